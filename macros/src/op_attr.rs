//! `#[op(...)]`: parsing of the declaration and generation of the operation descriptor.
//!
//! Grammar (items after the first may come in any order):
//!
//! ```text
//! #[op(post "/v1/base64/encode",          // method and path; `{name}` marks a path parameter
//!      id = "base64Encode",               // operationId: stable, camelCase
//!      tag = "Text and data",
//!      alias = "/v1/hash/",               // optional, repeatable: the same operation on another path
//!      input = body | query | none | raw, // default: body for POST, query for GET
//!      output = json | image | redirect,  // default: json
//!      errors(NOT_FOUND, SLUG_TAKEN),     // codes beyond the ones every operation can give
//!      rejects = "text that is not Base64", // schema-valid input that is still refused with 400
//!      body_limit = 4194304,              // a larger body limit for this operation (bytes)
//!      cpu,                               // decode and run on the bounded CPU pool (heavy work)
//!      redact(".data.uuid"),              // snapshot redactions for random values
//!      example(typical, {"text": "hi"}),  // at least one; name is an identifier
//!      example(bad, {"text": 1}, status = 400))]
//! ```

use proc_macro2::{Span, TokenStream, TokenTree};
use quote::{format_ident, quote};
use syn::{
    Error, FnArg, Ident, ItemFn, LitInt, LitStr, Result, ReturnType, Token, Type,
    parse::{Parse, ParseStream},
    punctuated::Punctuated,
    spanned::Spanned,
};

struct Example {
    name: Ident,
    input: TokenTree,
    status: u16,
}

struct OpAttr {
    method: Ident,
    path: LitStr,
    id: Option<LitStr>,
    tag: Option<LitStr>,
    aliases: Vec<LitStr>,
    input: Option<Ident>,
    output: Option<Ident>,
    errors: Vec<Ident>,
    rejects: Option<LitStr>,
    body_limit: Option<LitInt>,
    cpu: bool,
    redact: Vec<LitStr>,
    examples: Vec<Example>,
}

impl Parse for OpAttr {
    fn parse(input: ParseStream) -> Result<Self> {
        let method: Ident = input.parse()?;
        let path: LitStr = input.parse()?;
        let mut attr = OpAttr {
            method,
            path,
            id: None,
            tag: None,
            aliases: Vec::new(),
            input: None,
            output: None,
            errors: Vec::new(),
            rejects: None,
            body_limit: None,
            cpu: false,
            redact: Vec::new(),
            examples: Vec::new(),
        };
        while !input.is_empty() {
            input.parse::<Token![,]>()?;
            if input.is_empty() {
                break;
            }
            let key: Ident = input.parse()?;
            match key.to_string().as_str() {
                "id" => attr.id = Some(value(input)?),
                "tag" => attr.tag = Some(value(input)?),
                "alias" => attr.aliases.push(value(input)?),
                "rejects" => attr.rejects = Some(value(input)?),
                "body_limit" => {
                    input.parse::<Token![=]>()?;
                    attr.body_limit = Some(input.parse()?);
                }
                "cpu" => attr.cpu = true,
                "input" => {
                    input.parse::<Token![=]>()?;
                    attr.input = Some(input.parse()?);
                }
                "output" => {
                    input.parse::<Token![=]>()?;
                    attr.output = Some(input.parse()?);
                }
                "errors" => {
                    let content;
                    syn::parenthesized!(content in input);
                    let list = Punctuated::<Ident, Token![,]>::parse_terminated(&content)?;
                    attr.errors.extend(list);
                }
                "redact" => {
                    let content;
                    syn::parenthesized!(content in input);
                    let list = Punctuated::<LitStr, Token![,]>::parse_terminated(&content)?;
                    attr.redact.extend(list);
                }
                "example" => {
                    let content;
                    syn::parenthesized!(content in input);
                    let name: Ident = content.parse()?;
                    content.parse::<Token![,]>()?;
                    let body: TokenTree = content.parse()?;
                    let mut status = 200;
                    if content.peek(Token![,]) {
                        content.parse::<Token![,]>()?;
                        let k: Ident = content.parse()?;
                        if k != "status" {
                            return Err(Error::new(k.span(), "expected `status = <code>`"));
                        }
                        content.parse::<Token![=]>()?;
                        let lit: LitInt = content.parse()?;
                        status = lit.base10_parse()?;
                    }
                    if !content.is_empty() {
                        return Err(content.error("unexpected tokens in example(...)"));
                    }
                    attr.examples.push(Example { name, input: body, status });
                }
                other => {
                    return Err(Error::new(
                        key.span(),
                        format!(
                            "unknown op item `{other}`; expected id, tag, alias, input, output, \
                             errors, rejects, body_limit, cpu, redact or example"
                        ),
                    ));
                }
            }
        }
        Ok(attr)
    }
}

fn value(input: ParseStream) -> Result<LitStr> {
    input.parse::<Token![=]>()?;
    input.parse()
}

/// `NOT_FOUND` -> `NotFound`: the wire code is what authors know, the variant is Rust's.
fn variant_of(code: &Ident) -> Result<Ident> {
    let s = code.to_string();
    if s.is_empty() || !s.chars().all(|c| c.is_ascii_uppercase() || c == '_' || c.is_ascii_digit()) {
        return Err(Error::new(code.span(), "error codes are written as on the wire, e.g. NOT_FOUND"));
    }
    let camel: String = s
        .split('_')
        .filter(|p| !p.is_empty())
        .map(|p| {
            let lower = p.to_ascii_lowercase();
            let mut c = lower.chars();
            match c.next() {
                Some(f) => f.to_ascii_uppercase().to_string() + c.as_str(),
                None => String::new(),
            }
        })
        .collect();
    Ok(Ident::new(&camel, code.span()))
}

/// Splits the doc comment into summary (first paragraph) and description (the rest).
fn docs(item: &ItemFn) -> Result<(String, String)> {
    let mut lines = Vec::new();
    for attr in &item.attrs {
        if !attr.path().is_ident("doc") {
            continue;
        }
        if let syn::Meta::NameValue(nv) = &attr.meta
            && let syn::Expr::Lit(syn::ExprLit { lit: syn::Lit::Str(s), .. }) = &nv.value
        {
            let v = s.value();
            lines.push(v.strip_prefix(' ').unwrap_or(&v).to_string());
        }
    }
    let text = lines.join("\n");
    let text = text.trim();
    if text.is_empty() {
        return Err(Error::new(
            item.sig.ident.span(),
            "an operation needs a doc comment: its first paragraph is the OpenAPI summary",
        ));
    }
    let (summary, description) = match text.find("\n\n") {
        Some(i) => (&text[..i], text[i..].trim()),
        None => (text, ""),
    };
    let summary = summary.split_whitespace().collect::<Vec<_>>().join(" ");
    Ok((summary, description.to_string()))
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
fn ok_type(ret: &ReturnType) -> Result<Type> {
    let err = || Error::new(ret.span(), "an operation returns `Result<Output, ApiError>`");
    let ReturnType::Type(_, ty) = ret else {
        return Err(err());
    };
    let Type::Path(p) = &**ty else {
        return Err(err());
    };
    let last = p.path.segments.last().ok_or_else(err)?;
    if last.ident != "Result" {
        return Err(err());
    }
    let syn::PathArguments::AngleBracketed(args) = &last.arguments else {
        return Err(err());
    };
    match args.args.first() {
        Some(syn::GenericArgument::Type(t)) if args.args.len() == 2 => Ok(t.clone()),
        _ => Err(err()),
    }
}

fn check_path(path: &LitStr) -> Result<Vec<String>> {
    let p = path.value();
    if !p.starts_with('/') || p.contains("//") || p.contains(' ') {
        return Err(Error::new(path.span(), "a path starts with `/` and has no empty segments"));
    }
    let mut params = Vec::new();
    for seg in p.split('/') {
        if let Some(rest) = seg.strip_prefix('{') {
            let name = rest
                .strip_suffix('}')
                .filter(|n| !n.is_empty() && n.chars().all(|c| c.is_ascii_alphanumeric() || c == '_'));
            match name {
                Some(n) => params.push(n.to_string()),
                None => {
                    return Err(Error::new(path.span(), "a path parameter is a whole segment `{name}`"));
                }
            }
        } else if seg.contains('{') || seg.contains('}') || seg.contains(':') || seg.contains('*') {
            return Err(Error::new(path.span(), "write path parameters as whole segments `{name}`"));
        }
    }
    Ok(params)
}

pub(crate) fn expand(attr: TokenStream, item: TokenStream) -> Result<TokenStream> {
    let attr: OpAttr = syn::parse2(attr)?;
    let func: ItemFn = syn::parse2(item)?;
    let name = &func.sig.ident;

    if func.sig.asyncness.is_none() {
        return Err(Error::new(func.sig.fn_token.span(), "an operation is an `async fn`"));
    }
    if !func.sig.generics.params.is_empty() {
        return Err(Error::new(func.sig.generics.span(), "an operation takes no generic parameters"));
    }

    let method = attr.method.to_string();
    let method_variant = match method.as_str() {
        "get" => quote!(Get),
        "post" => quote!(Post),
        "put" => quote!(Put),
        "patch" => quote!(Patch),
        "delete" => quote!(Delete),
        _ => {
            return Err(Error::new(attr.method.span(), "method is one of get, post, put, patch, delete"));
        }
    };
    let path_params = check_path(&attr.path)?;
    for alias in &attr.aliases {
        if check_path(alias)? != path_params {
            return Err(Error::new(alias.span(), "an alias must have the same path parameters"));
        }
    }
    let id = attr.id.as_ref().ok_or_else(|| Error::new(attr.path.span(), "missing `id = \"camelCaseName\"`"))?;
    let id_value = id.value();
    let mut chars = id_value.chars();
    if !chars.next().is_some_and(|c| c.is_ascii_lowercase()) || !chars.all(|c| c.is_ascii_alphanumeric()) {
        return Err(Error::new(id.span(), "operation ids are camelCase: letters and digits, lower-case first"));
    }
    let tag = attr.tag.as_ref().ok_or_else(|| Error::new(attr.path.span(), "missing `tag = \"...\"`"))?;
    if attr.examples.is_empty() {
        return Err(Error::new(attr.path.span(), "declare at least one `example(name, {...})`"));
    }
    for (i, ex) in attr.examples.iter().enumerate() {
        if attr.examples[..i].iter().any(|e| e.name == ex.name) {
            return Err(Error::new(ex.name.span(), "example names must be unique"));
        }
        if !matches!(&ex.input, TokenTree::Group(g) if g.delimiter() == proc_macro2::Delimiter::Brace) {
            return Err(Error::new(ex.input.span(), "an example input is a JSON object `{...}`"));
        }
        if !(100..600).contains(&ex.status) {
            return Err(Error::new(ex.name.span(), "status must be an HTTP status code"));
        }
    }
    for r in &attr.redact {
        if !r.value().starts_with('.') {
            return Err(Error::new(r.span(), "a redaction is an insta selector such as \".data.uuid\""));
        }
    }
    let (summary, description) = docs(&func)?;

    // Parameters: at most one input value and at most one `&Ctx`.
    let mut input_ty: Option<Type> = None;
    let mut call_args = Vec::new();
    for arg in &func.sig.inputs {
        let FnArg::Typed(pt) = arg else {
            return Err(Error::new(arg.span(), "an operation is a free function"));
        };
        if is_ctx(&pt.ty) {
            call_args.push(quote!(&ctx));
        } else if input_ty.is_none() {
            input_ty = Some((*pt.ty).clone());
            call_args.push(quote!(input));
        } else {
            return Err(Error::new(pt.span(), "an operation takes one input value and optionally `&Ctx`"));
        }
    }

    let input_kind = match (&attr.input, &input_ty) {
        (Some(k), _) => k.to_string(),
        (None, None) => "none".to_string(),
        (None, Some(_)) if method == "get" || method == "delete" => "query".to_string(),
        (None, Some(_)) => "body".to_string(),
    };
    let (kind_variant, decode) = match (input_kind.as_str(), &input_ty) {
        ("body", Some(t)) => (quote!(Body), quote!(let input: #t = ::wrench::decode::body(&req)?;)),
        ("query", Some(t)) => (quote!(Query), quote!(let input: #t = ::wrench::decode::query(&req)?;)),
        ("raw", Some(t)) => (quote!(Raw), quote!(let input: #t = ::wrench::decode::raw(req)?;)),
        ("none", None) => (quote!(None), quote!(let _ = req;)),
        ("none", Some(t)) => {
            return Err(Error::new(t.span(), "`input = none` takes no input parameter"));
        }
        (k @ ("body" | "query" | "raw"), None) => {
            return Err(Error::new(func.sig.span(), format!("`input = {k}` needs an input parameter")));
        }
        _ => {
            let span = attr.input.as_ref().map_or(Span::call_site(), |i| i.span());
            return Err(Error::new(span, "input is one of body, query, none, raw"));
        }
    };
    if !path_params.is_empty() && !matches!(input_kind.as_str(), "query" | "raw") {
        return Err(Error::new(attr.path.span(), "path parameters need `input = query` (they decode with the query)"));
    }

    let out_ty = ok_type(&func.sig.output)?;
    let output_kind = attr.output.as_ref().map_or("json".to_string(), |o| o.to_string());
    let (out_variant, out_schema, reply) = match output_kind.as_str() {
        "json" => (
            quote!(Json),
            quote!(::std::option::Option::Some(g.subschema_for::<#out_ty>())),
            quote!(::wrench::op::Reply::json(&output, ctx.config.response_limit)),
        ),
        "image" => (quote!(Image), quote!(::std::option::Option::None), quote!(::wrench::op::Reply::image(output))),
        "redirect" => {
            (quote!(Redirect), quote!(::std::option::Option::None), quote!(::wrench::op::Reply::redirect(output)))
        }
        _ => {
            let span = attr.output.as_ref().map_or(Span::call_site(), |o| o.span());
            return Err(Error::new(span, "output is one of json, image, redirect"));
        }
    };
    let in_schema = match &input_ty {
        Some(t) if input_kind != "raw" => {
            quote!(::std::option::Option::Some(g.subschema_for::<#t>()))
        }
        _ => quote!(::std::option::Option::None),
    };

    let errors = attr.errors.iter().map(variant_of).collect::<Result<Vec<_>>>()?;
    let path = &attr.path;
    let aliases = &attr.aliases;
    let redact = &attr.redact;
    let rejects = match &attr.rejects {
        Some(r) => quote!(::std::option::Option::Some(#r)),
        None => quote!(::std::option::Option::None),
    };
    let body_limit = match &attr.body_limit {
        Some(l) => {
            let n: usize = l.base10_parse()?;
            quote!(::std::option::Option::Some(#n))
        }
        None => quote!(::std::option::Option::None),
    };
    let fn_name = name.to_string();
    let ex_names: Vec<String> = attr.examples.iter().map(|e| e.name.to_string()).collect();
    let ex_inputs: Vec<&TokenTree> = attr.examples.iter().map(|e| &e.input).collect();
    let ex_status: Vec<u16> = attr.examples.iter().map(|e| e.status).collect();
    let ex_idents: Vec<&Ident> = attr.examples.iter().map(|e| &e.name).collect();

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
    let run = if attr.cpu {
        on_pool
    } else if input_kind == "raw" {
        inline
    } else {
        quote! {
            if req.body.len() > ::wrench::cpu::INLINE_BODY_LIMIT { #on_pool } else { #inline }
        }
    };
    let descriptor = format_ident!("__op_{}", name);
    let test_mod = format_ident!("__examples_{}", name);

    Ok(quote! {
        #func

        #[doc(hidden)]
        #[allow(non_snake_case)]
        pub(crate) fn #descriptor() -> ::wrench::op::Operation {
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
                id: #id,
                method: ::wrench::op::HttpMethod::#method_variant,
                path: #path,
                aliases: &[#(#aliases),*],
                tag: #tag,
                summary: #summary,
                description: #description,
                input: ::wrench::op::InputKind::#kind_variant,
                output: ::wrench::op::OutputKind::#out_variant,
                errors: &[#(::wrench::envelope::ErrorCode::#errors),*],
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

#[cfg(test)]
mod tests {
    use quote::quote;

    use super::expand;

    /// The error message a declaration produces, or "" when it expands.
    fn error_of(attr: proc_macro2::TokenStream, item: proc_macro2::TokenStream) -> String {
        expand(attr, item).err().map(|e| e.to_string()).unwrap_or_default()
    }

    fn good_item() -> proc_macro2::TokenStream {
        quote! {
            /// Does a thing.
            async fn thing(input: In) -> Result<Out, ApiError> { todo!() }
        }
    }

    #[test]
    fn a_good_declaration_expands() {
        let attr = quote!(post "/v1/thing", id = "doThing", tag = "T", example(typical, {"a": 1}));
        assert_eq!(error_of(attr, good_item()), "");
    }

    #[test]
    fn malformed_declarations_say_what_is_wrong() {
        let cases = [
            (quote!(post "/v1/thing", tag = "T", example(a, {})), "missing `id"),
            (quote!(post "/v1/thing", id = "do_thing", tag = "T", example(a, {})), "camelCase"),
            (quote!(post "/v1/thing", id = "doThing", example(a, {})), "missing `tag"),
            (quote!(post "/v1/thing", id = "doThing", tag = "T"), "at least one `example"),
            (quote!(fetch "/v1/thing", id = "doThing", tag = "T", example(a, {})), "method is one of"),
            (quote!(post "v1/thing", id = "doThing", tag = "T", example(a, {})), "starts with `/`"),
            (quote!(post "/v1/{id}", id = "doThing", tag = "T", example(a, {})), "input = query"),
            (quote!(post "/v1/thing", id = "doThing", tag = "T", colour = "red", example(a, {})), "unknown op item"),
            (quote!(post "/v1/thing", id = "doThing", tag = "T", example(a, [1])), "JSON object"),
            (quote!(post "/v1/thing", id = "doThing", tag = "T", example(a, {}), example(a, {})), "unique"),
            (quote!(post "/v1/thing", id = "doThing", tag = "T", errors(not_found), example(a, {})), "as on the wire"),
            (quote!(post "/v1/thing", id = "doThing", tag = "T", output = pdf, example(a, {})), "output is one of"),
        ];
        for (attr, want) in cases {
            let got = error_of(attr.clone(), good_item());
            assert!(got.contains(want), "{attr}: expected an error containing {want:?}, got {got:?}");
        }
    }

    #[test]
    fn malformed_functions_say_what_is_wrong() {
        let attr = quote!(post "/v1/thing", id = "doThing", tag = "T", example(a, {}));
        let cases = [
            (
                quote!(
                    /// Doc.
                    fn thing(input: In) -> Result<Out, ApiError> {
                        todo!()
                    }
                ),
                "async fn",
            ),
            (
                quote!(
                    async fn thing(input: In) -> Result<Out, ApiError> {
                        todo!()
                    }
                ),
                "doc comment",
            ),
            (
                quote!(
                    /// Doc.
                    async fn thing(input: In) -> Out {
                        todo!()
                    }
                ),
                "Result<Output, ApiError>",
            ),
            (
                quote!(
                    /// Doc.
                    async fn thing(a: In, b: In) -> Result<Out, ApiError> {
                        todo!()
                    }
                ),
                "one input value",
            ),
        ];
        for (item, want) in cases {
            let got = error_of(attr.clone(), item.clone());
            assert!(got.contains(want), "{item}: expected an error containing {want:?}, got {got:?}");
        }
    }
}
