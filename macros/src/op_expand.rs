//! `#[op]`: from a parsed declaration and its function to the operation descriptor.
//!
//! The user's function is always emitted as written, even when the declaration is wrong, so
//! that a mistake gives its own message and not a cascade of "cannot find function" errors
//! elsewhere; in that case a stand-in descriptor (never called: the build has failed) keeps
//! the generated registry compiling. Type requirements are checked by calls spanned at the
//! user's types, so "does not derive Validate" points at the input type, not at the attribute.

use heck::{ToSnakeCase, ToUpperCamelCase};
use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote, quote_spanned};
use syn::{FnArg, Ident, ItemFn, LitStr, ReturnType, Type, spanned::Spanned};

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
    if let (Some(sig), Some(first)) = (&sig, decl.uses.first())
        && !sig.call_args.iter().any(|a| a.to_string() == quote!(&ctx).to_string())
    {
        // What an operation uses is reached through its context: a declaration that says
        // otherwise is wrong about the function.
        errors.at(
            first.span(),
            "an operation that uses the network, a provider, the store or a data set takes `ctx: &Ctx`",
        );
    }
    if let (Some(sig), Some((from, _))) = (&sig, &decl.pipe) {
        let json = decl.output.as_ref().is_none_or(|o| o.value == op_parse::OutputKind::Json);
        if sig.input.is_none() || !json {
            errors.at(
                from.span(),
                "a pipe connects an input field to a JSON output field: the operation takes an input and answers JSON",
            );
        }
    }
    let kinds = sig.as_ref().map(|sig| route_inputs(&decl, sig, &mut errors));
    let tag = names(&decl);
    let unused_codes =
        error_variants(&decl).map(|v| quote_spanned!(v.span()=> use ::wrench_contract::ErrorCode::#v as _;));
    let descriptor = format_ident!("__op_{}", func.sig.ident);
    if let (Some(sig), Some(kinds), true) = (&sig, &kinds, errors.is_empty())
        && let Some(generated) = generate(&decl, &func, sig, kinds)
    {
        return quote!(#func #generated);
    }
    // The names the compiler checks (the tag, the error codes) are still looked up, so that
    // their mistakes are reported with the others instead of after the fix.
    let compile_errors = errors.to_compile_errors();
    quote! {
        #func
        #compile_errors
        #[doc(hidden)]
        #[allow(non_snake_case, dead_code, unused_imports)]
        pub(crate) fn #descriptor() -> ::wrench_contract::op::Operation {
            #tag
            #(#unused_codes)*
            ::core::unreachable!("a declaration that did not compile")
        }
    }
}

/// `use ::wrench_contract::op::Tag::Images as DeclaredTag;`: an import rather than a path expression,
/// because a misspelt import is reported with the similar names of its own enum and nothing
/// else.
fn names(decl: &OpAttr) -> TokenStream {
    match &decl.tag {
        Some(t) => quote_spanned!(t.span()=> use ::wrench_contract::op::Tag::#t as DeclaredTag;),
        None => TokenStream::new(),
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
        } else if kind == InputKind::Body && r.path.value().contains("...}") {
            errors.at(
                r.path.span(),
                "a route that reads a JSON body takes whole-segment path parameters only, not the rest of the path",
            );
        }
        kinds.push(kind);
    }
    kinds
}

/// The descriptor and the example tests. Each requirement on the user's types is met in one
/// place, spanned at the type, so that a missing derive is one error at the type that lacks it.
fn generate(decl: &OpAttr, func: &ItemFn, sig: &Signature, kinds: &[InputKind]) -> Option<TokenStream> {
    let name = &func.sig.ident;
    let tag = names(decl);
    decl.tag.as_ref()?;
    let output = decl.output.as_ref().map_or(OutputKind::Json, |o| o.value);
    let any_raw = kinds.contains(&InputKind::Raw);
    let out_ty = &sig.output;

    let decode = match &sig.input {
        Some(t) if any_raw => {
            let raw = quote_spanned!(t.span()=> ::wrench_contract::decode::raw::<#t>);
            quote!(let input: #t = #raw(req)?;)
        }
        Some(t) => {
            let decode = quote_spanned!(t.span()=> ::wrench_contract::decode::input::<#t>);
            quote!(let input: #t = #decode(&req)?;)
        }
        None => quote!(let _ = req;),
    };
    let call_args = &sig.call_args;
    let reply = match output {
        OutputKind::Json => {
            let json = quote_spanned!(out_ty.span()=> ::wrench_contract::op::Reply::json::<#out_ty>);
            quote!(#json(&output, ctx.config.response_limit))
        }
        OutputKind::Image => quote_spanned!(out_ty.span()=> ::wrench_contract::op::Reply::image(output)),
        OutputKind::Redirect => quote_spanned!(out_ty.span()=> ::wrench_contract::op::Reply::redirect(output)),
        OutputKind::Raw => quote_spanned!(out_ty.span()=>
            ::wrench_contract::op::IntoReply::into_reply(output, ctx.config.response_limit)),
    };
    let work = quote! {
        #decode
        let output = #name(#(#call_args),*).await?;
        #reply
    };
    // Heavy operations decode, run and serialize on the CPU pool, off the async workers; so
    // does any operation given a large body, since its work grows with the body. Raw-input
    // operations only store what they receive, which is I/O, not CPU.
    let on_pool =
        quote!(::std::boxed::Box::pin(::wrench_contract::__private::cpu::run_async(move || async move { #work })));
    let inline = quote!(::std::boxed::Box::pin(async move { #work }));
    let run = if decl.cpu {
        on_pool
    } else if any_raw {
        inline
    } else {
        quote!(if req.body.len() > ::wrench_contract::__private::cpu::INLINE_BODY_LIMIT { #on_pool } else { #inline })
    };

    let schema_of = |t: &Type| {
        let call =
            quote_spanned!(t.span()=> ::wrench_contract::__private::schemars::SchemaGenerator::subschema_for::<#t>);
        quote!(::std::option::Option::Some(#call(g)))
    };
    let in_schema = match &sig.input {
        Some(t) if !any_raw => schema_of(t),
        _ => quote!(::std::option::Option::None),
    };
    let out_schema = match output {
        OutputKind::Json => schema_of(out_ty),
        OutputKind::Image | OutputKind::Redirect => quote!(::std::option::Option::None),
        OutputKind::Raw => quote_spanned!(out_ty.span()=>
            <#out_ty as ::wrench_contract::op::IntoReply>::envelope_schema(g)),
    };
    let output_variant = Ident::new(
        match output {
            OutputKind::Json => "Json",
            OutputKind::Image => "Image",
            OutputKind::Redirect => "Redirect",
            OutputKind::Raw => "Raw",
        },
        Span::call_site(),
    );
    let routes = decl.routes.iter().zip(kinds).map(|(r, kind)| {
        let method = Ident::new(r.method.variant(), r.id.span());
        let input = Ident::new(kind.variant(), Span::call_site());
        let (path, id) = (&r.path, r.id.to_string());
        quote! {
            ::wrench_contract::op::Route {
                method: ::wrench_contract::op::HttpMethod::#method,
                path: #path,
                id: #id,
                input: ::wrench_contract::op::InputKind::#input,
            }
        }
    });
    let error_variants: Vec<Ident> = error_variants(decl).collect();
    let error_aliases: Vec<Ident> = (0..error_variants.len()).map(|i| format_ident!("DeclaredError{i}")).collect();
    let code_imports = error_variants
        .iter()
        .zip(&error_aliases)
        .map(|(v, alias)| quote_spanned!(v.span()=> use ::wrench_contract::ErrorCode::#v as #alias;));
    let uses: Vec<Ident> = decl
        .uses
        .iter()
        .map(|u| {
            let variant = op_parse::USES.iter().find(|(n, _)| u == n).map_or("Network", |(_, v)| *v);
            Ident::new(variant, u.span())
        })
        .collect();
    let media: Vec<String> = if output == OutputKind::Raw && decl.media.is_empty() {
        vec!["*/*".to_string()]
    } else {
        decl.media.iter().map(LitStr::value).collect()
    };
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
    let (pipe, pipe_check) = pipe(decl, sig);
    let revalidated = match output {
        OutputKind::Raw => quote_spanned!(out_ty.span()=> <#out_ty as ::wrench_contract::op::IntoReply>::REVALIDATED),
        _ => quote!(false),
    };
    let test_mod = format_ident!("__examples_{}", name);

    Some(quote! {
        #[doc(hidden)]
        // Registered by the list build.rs generates; test fixtures are registered by hand.
        #[allow(non_snake_case, dead_code)]
        pub(crate) fn #descriptor() -> ::wrench_contract::op::Operation {
            #tag
            #(#code_imports)*
            fn handler(ctx: ::wrench_contract::op::Ctx, req: ::wrench_contract::op::OpRequest) -> ::wrench_contract::op::BoxReply {
                #run
            }
            fn input_schema(
                g: &mut ::wrench_contract::__private::schemars::SchemaGenerator,
            ) -> ::std::option::Option<::wrench_contract::__private::schemars::Schema> {
                let _ = &g;
                #in_schema
            }
            fn output_schema(
                g: &mut ::wrench_contract::__private::schemars::SchemaGenerator,
            ) -> ::std::option::Option<::wrench_contract::__private::schemars::Schema> {
                let _ = &g;
                #out_schema
            }
            fn examples() -> ::std::vec::Vec<::wrench_contract::op::Example> {
                ::std::vec![#(::wrench_contract::op::Example {
                    name: #ex_names,
                    input: ::wrench_contract::__private::serde_json::json!(#ex_inputs),
                    status: #ex_status,
                }),*]
            }
            ::wrench_contract::op::Operation {
                routes: &[#(#routes),*],
                tag: DeclaredTag,
                summary: #summary,
                description: #description,
                output: ::wrench_contract::op::OutputKind::#output_variant,
                uses: &[#(::wrench_contract::op::Uses::#uses),*],
                errors: &[#(#error_aliases),*],
                rejects: #rejects,
                body_limit: #body_limit,
                redactions: &[#(#redact),*],
                handler,
                input_schema,
                output_schema,
                examples,
                function: #fn_name,
                media: &[#(#media),*],
                pipe: #pipe,
                revalidated: #revalidated,
            }
        }
        #pipe_check

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

/// The descriptor's `pipe`, and a function that reads both fields from the input and output
/// types, so that a pipe naming a field the types lack does not compile (spanned at the
/// name). Fields are named on the wire in camelCase and in Rust in snake_case.
fn pipe(decl: &OpAttr, sig: &Signature) -> (TokenStream, TokenStream) {
    let (Some((from, to)), Some(in_ty)) = (&decl.pipe, &sig.input) else {
        return (quote!(::std::option::Option::None), TokenStream::new());
    };
    let out_ty = &sig.output;
    let field = |i: &Ident| Ident::new(&i.to_string().to_snake_case(), i.span());
    let (from_field, to_field) = (field(from), field(to));
    let (from_name, to_name) = (from.to_string(), to.to_string());
    let check = format_ident!("__pipe_fields_{}", sig_name(decl));
    (
        quote!(::std::option::Option::Some(::wrench_contract::op::Pipe { input: #from_name, output: #to_name })),
        quote! {
            #[doc(hidden)]
            #[allow(non_snake_case, dead_code)]
            fn #check(input: &#in_ty, output: &#out_ty) {
                let _ = (&input.#from_field, &output.#to_field);
            }
        },
    )
}

/// The operationId of the first route, to name generated items after.
fn sig_name(decl: &OpAttr) -> String {
    decl.routes.first().map_or_else(String::new, |r| r.id.to_string())
}

/// `NOT_FOUND` -> `NotFound`, spanned at the code: wire codes are what authors know, the
/// variants are Rust's, and a misspelt code is reported where it is written.
fn error_variants(decl: &OpAttr) -> impl Iterator<Item = Ident> + '_ {
    decl.errors.iter().map(|code| {
        // `NOT_FOUND` -> `NotFound`, the variant of ErrorCode.
        Ident::new(&code.to_string().to_upper_camel_case(), code.span())
    })
}

fn option(v: Option<TokenStream>) -> TokenStream {
    match v {
        Some(v) => quote!(::std::option::Option::Some(#v)),
        None => quote!(::std::option::Option::None),
    }
}
