//! `#[op]`: from a parsed declaration and its function to the operation descriptor.
//!
//! The user's function is always emitted as written, even when the declaration is wrong, so
//! that a mistake gives its own message and not a cascade of "cannot find function" errors
//! elsewhere; in that case a stand-in descriptor (never called: the build has failed) keeps
//! the generated registry compiling. Type requirements are checked by calls spanned at the
//! user's types, so "does not derive Validate" points at the input type, not at the attribute.

use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote, quote_spanned};
use syn::{FnArg, Ident, ItemFn, ReturnType, Type, spanned::Spanned};

use crate::{
    errors::Errors,
    op_parse::{self, InputKind, Method, OpAttr, OutputKind},
};

pub(crate) fn expand(attr: TokenStream, item: TokenStream) -> TokenStream {
    let mut errors = Errors::default();
    let decl = op_parse::parse(attr, &mut errors);
    let func: ItemFn = match syn::parse2(item.clone()) {
        Ok(f) => f,
        Err(_) => {
            errors.at(Span::call_site(), "#[op] goes on an `async fn`");
            let compile_errors = errors.to_compile_errors();
            return quote!(#item #compile_errors);
        }
    };
    let sig = check_function(&func, &mut errors);
    let body = match sig {
        Some(sig) if errors.is_empty() => generate(&decl, &func, &sig, &mut errors),
        _ => None,
    };
    let descriptor = format_ident!("__op_{}", func.sig.ident);
    match body {
        Some(generated) if errors.is_empty() => quote!(#func #generated),
        _ => {
            let compile_errors = errors.to_compile_errors();
            quote! {
                #func
                #compile_errors
                #[doc(hidden)]
                #[allow(non_snake_case, dead_code)]
                pub(crate) fn #descriptor() -> ::wrench::op::Operation {
                    ::core::unreachable!("a declaration that did not compile")
                }
            }
        }
    }
}

/// What the function's signature says.
struct Signature {
    summary: String,
    description: String,
    input: Option<Type>,
    /// The arguments of the call, in order: `input` and `&ctx`.
    call_args: Vec<TokenStream>,
    output: Type,
}

fn check_function(func: &ItemFn, errors: &mut Errors) -> Option<Signature> {
    if func.sig.asyncness.is_none() {
        errors.at(func.sig.fn_token.span(), "an operation is an `async fn`");
    }
    if !func.sig.generics.params.is_empty() {
        errors.at(func.sig.generics.span(), "an operation takes no generic parameters");
    }
    let docs = docs(func, errors);
    let mut input = None;
    let mut call_args = Vec::new();
    for arg in &func.sig.inputs {
        let FnArg::Typed(pt) = arg else {
            errors.at(arg.span(), "an operation is a free function");
            continue;
        };
        if is_ctx(&pt.ty) {
            call_args.push(quote!(&ctx));
        } else if input.is_none() {
            input = Some((*pt.ty).clone());
            call_args.push(quote!(input));
        } else {
            errors.at(pt.span(), "an operation takes one input value and optionally `&Ctx`");
        }
    }
    let output = ok_type(&func.sig.output, errors);
    let (summary, description) = docs?;
    Some(Signature { summary, description, input, call_args, output: output? })
}

/// Splits the doc comment into summary (first paragraph) and description (the rest).
fn docs(func: &ItemFn, errors: &mut Errors) -> Option<(String, String)> {
    let mut lines = Vec::new();
    for attr in &func.attrs {
        if let syn::Meta::NameValue(nv) = &attr.meta
            && nv.path.is_ident("doc")
            && let syn::Expr::Lit(syn::ExprLit { lit: syn::Lit::Str(s), .. }) = &nv.value
        {
            let v = s.value();
            lines.push(v.strip_prefix(' ').unwrap_or(&v).to_string());
        }
    }
    let text = lines.join("\n");
    let text = text.trim();
    if text.is_empty() {
        errors
            .at(func.sig.ident.span(), "an operation needs a doc comment: its first paragraph is the OpenAPI summary");
        return None;
    }
    let (summary, description) = match text.find("\n\n") {
        Some(i) => (&text[..i], text[i..].trim()),
        None => (text, ""),
    };
    Some((summary.split_whitespace().collect::<Vec<_>>().join(" "), description.to_string()))
}

fn is_ctx(ty: &Type) -> bool {
    if let Type::Reference(r) = ty
        && let Type::Path(p) = &*r.elem
    {
        return p.path.segments.last().is_some_and(|s| s.ident == "Ctx");
    }
    false
}

/// `Result<T, ApiError>` -> `T`.
fn ok_type(ret: &ReturnType, errors: &mut Errors) -> Option<Type> {
    let found = (|| {
        let ReturnType::Type(_, ty) = ret else { return None };
        let Type::Path(p) = &**ty else { return None };
        let last = p.path.segments.last()?;
        let syn::PathArguments::AngleBracketed(args) = &last.arguments else { return None };
        match args.args.first() {
            Some(syn::GenericArgument::Type(t)) if last.ident == "Result" && args.args.len() == 2 => Some(t.clone()),
            _ => None,
        }
    })();
    if found.is_none() {
        errors.at(ret.span(), "an operation returns `Result<Output, ApiError>`");
    }
    found
}

/// The input kind of each route, in declaration order, with the rules that tie routes,
/// methods and the function's input together.
fn route_inputs(decl: &OpAttr, sig: &Signature, errors: &mut Errors) -> Vec<InputKind> {
    let declared = decl.input.as_ref().map(|i| i.value);
    match (declared, &sig.input) {
        (Some(InputKind::None), Some(t)) => errors.at(t.span(), "`input = none` takes no input parameter"),
        (Some(k @ (InputKind::Body | InputKind::Query | InputKind::Raw)), None) => {
            let span = decl.input.as_ref().map_or(Span::call_site(), |i| i.span);
            errors.at(span, format!("`input = {}` needs an input parameter", k.word()));
        }
        _ => {}
    }
    let mut kinds = Vec::new();
    for r in &decl.routes {
        let kind = match (declared, &sig.input) {
            (Some(k), _) => k,
            (None, None) => InputKind::None,
            (None, Some(_)) if matches!(r.method, Method::Get | Method::Delete) => InputKind::Query,
            (None, Some(_)) => InputKind::Body,
        };
        if kind == InputKind::Body && matches!(r.method, Method::Get | Method::Delete) {
            errors.at(r.path.span(), "a GET or DELETE route has no body to read; it takes `input = query`");
        }
        if kind == InputKind::Body && !r.params.is_empty() {
            errors.at(
                r.path.span(),
                "a route that reads a JSON body has no path parameters; put them in the body, or use GET",
            );
        }
        kinds.push(kind);
    }
    kinds
}

fn generate(decl: &OpAttr, func: &ItemFn, sig: &Signature, errors: &mut Errors) -> Option<TokenStream> {
    let name = &func.sig.ident;
    let kinds = route_inputs(decl, sig, errors);
    let tag = decl.tag.as_ref()?;
    let output = decl.output.as_ref().map_or(OutputKind::Json, |o| o.value);
    let any_raw = kinds.contains(&InputKind::Raw);
    if !errors.is_empty() {
        return None;
    }

    // Requirements on the user's types, checked where the types are written.
    let out_ty = &sig.output;
    let mut checks = Vec::new();
    if let Some(t) = &sig.input {
        checks.push(if any_raw {
            quote_spanned!(t.span()=> ::wrench::op::assert::raw_input::<#t>();)
        } else {
            quote_spanned!(t.span()=> ::wrench::op::assert::input::<#t>();)
        });
    }
    checks.push(match output {
        OutputKind::Json => quote_spanned!(out_ty.span()=> ::wrench::op::assert::json_output::<#out_ty>();),
        OutputKind::Image => quote_spanned!(out_ty.span()=> ::wrench::op::assert::image_output::<#out_ty>();),
        OutputKind::Redirect => quote_spanned!(out_ty.span()=> ::wrench::op::assert::redirect_output::<#out_ty>();),
    });

    let decode = match &sig.input {
        Some(t) if any_raw => quote!(let input: #t = ::wrench::decode::raw(req)?;),
        Some(t) => quote!(let input: #t = ::wrench::decode::input(&req)?;),
        None => quote!(let _ = req;),
    };
    let call_args = &sig.call_args;
    let reply = match output {
        OutputKind::Json => quote!(::wrench::op::Reply::json(&output, ctx.config.response_limit)),
        OutputKind::Image => quote!(::wrench::op::Reply::image(output)),
        OutputKind::Redirect => quote!(::wrench::op::Reply::redirect(output)),
    };
    let work = quote! {
        #decode
        let output = #name(#(#call_args),*).await?;
        #reply
    };
    // Heavy operations decode, run and serialize on the CPU pool, off the async workers; so
    // does any operation given a large body, since its work grows with the body. Raw-input
    // operations only store what they receive, which is I/O, not CPU.
    let on_pool = quote!(::std::boxed::Box::pin(::wrench::cpu::run_async(move || async move { #work })));
    let inline = quote!(::std::boxed::Box::pin(async move { #work }));
    let run = if decl.cpu {
        on_pool
    } else if any_raw {
        inline
    } else {
        quote!(if req.body.len() > ::wrench::cpu::INLINE_BODY_LIMIT { #on_pool } else { #inline })
    };

    let in_schema = match &sig.input {
        Some(t) if !any_raw => quote!(::std::option::Option::Some(g.subschema_for::<#t>())),
        _ => quote!(::std::option::Option::None),
    };
    let out_schema = match output {
        OutputKind::Json => quote!(::std::option::Option::Some(g.subschema_for::<#out_ty>())),
        OutputKind::Image | OutputKind::Redirect => quote!(::std::option::Option::None),
    };
    let output_variant = Ident::new(
        match output {
            OutputKind::Json => "Json",
            OutputKind::Image => "Image",
            OutputKind::Redirect => "Redirect",
        },
        Span::call_site(),
    );
    let routes = decl.routes.iter().zip(&kinds).map(|(r, kind)| {
        let method = Ident::new(r.method.variant(), r.id.span());
        let input = Ident::new(kind.variant(), Span::call_site());
        let (path, id) = (&r.path, r.id.to_string());
        quote! {
            ::wrench::op::Route {
                method: ::wrench::op::HttpMethod::#method,
                path: #path,
                id: #id,
                input: ::wrench::op::InputKind::#input,
            }
        }
    });
    let error_variants = decl.errors.iter().map(|code| {
        let camel: String = code.to_string().split('_').map(capitalised).collect();
        Ident::new(&camel, code.span())
    });
    let (summary, description) = (&sig.summary, &sig.description);
    let rejects = option(decl.rejects.as_ref().map(|r| quote!(#r)));
    let body_limit = option(decl.body_limit.as_ref().map(|l| {
        let n = l.value;
        quote!(#n)
    }));
    let redact = &decl.redact;
    let ex_names: Vec<String> = decl.examples.iter().map(|e| e.name.to_string()).collect();
    let ex_inputs = decl.examples.iter().map(|e| &e.input);
    let ex_status = decl.examples.iter().map(|e| e.status);
    let ex_idents = decl.examples.iter().map(|e| &e.name);
    let fn_name = name.to_string();
    let descriptor = format_ident!("__op_{}", name);
    let test_mod = format_ident!("__examples_{}", name);

    Some(quote! {
        #[doc(hidden)]
        #[allow(non_snake_case)]
        pub(crate) fn #descriptor() -> ::wrench::op::Operation {
            #(#checks)*
            fn handler(ctx: ::wrench::op::Ctx, req: ::wrench::op::OpRequest) -> ::wrench::op::BoxReply {
                #run
            }
            fn input_schema(
                g: &mut ::wrench::__private::schemars::SchemaGenerator,
            ) -> ::std::option::Option<::wrench::__private::schemars::Schema> {
                let _ = &g;
                #in_schema
            }
            fn output_schema(
                g: &mut ::wrench::__private::schemars::SchemaGenerator,
            ) -> ::std::option::Option<::wrench::__private::schemars::Schema> {
                let _ = &g;
                #out_schema
            }
            fn examples() -> ::std::vec::Vec<::wrench::op::Example> {
                ::std::vec![#(::wrench::op::Example {
                    name: #ex_names,
                    input: ::wrench::__private::serde_json::json!(#ex_inputs),
                    status: #ex_status,
                }),*]
            }
            ::wrench::op::Operation {
                routes: &[#(#routes),*],
                tag: ::wrench::op::Tag::#tag,
                summary: #summary,
                description: #description,
                output: ::wrench::op::OutputKind::#output_variant,
                errors: &[#(::wrench::envelope::ErrorCode::#error_variants),*],
                rejects: #rejects,
                body_limit: #body_limit,
                redactions: &[#(#redact),*],
                handler,
                input_schema,
                output_schema,
                examples,
                function: #fn_name,
            }
        }

        #[cfg(test)]
        #[allow(non_snake_case)]
        mod #test_mod {
            #(
                #[::tokio::test]
                async fn #ex_idents() {
                    crate::testing::check_example(super::#descriptor(), #ex_names).await;
                }
            )*
        }
    })
}

/// `NOT` -> `Not`: wire codes are what authors know; the variants are Rust's.
fn capitalised(part: &str) -> String {
    let lower = part.to_ascii_lowercase();
    let mut c = lower.chars();
    c.next().map(|f| f.to_ascii_uppercase().to_string() + c.as_str()).unwrap_or_default()
}

fn option(v: Option<TokenStream>) -> TokenStream {
    match v {
        Some(v) => quote!(::std::option::Option::Some(#v)),
        None => quote!(::std::option::Option::None),
    }
}
