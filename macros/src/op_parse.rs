//! The grammar of `#[op(...)]`, read into typed values.
//!
//! ```text
//! #[op(post "/v1/qr/generate" as qrGenerate,     // a route: method, path template, operationId
//!      get "/v1/qr/generate" as qrGenerateGet,   // more routes: the same operation, other forms
//!      tag = Images,                             // a variant of wrench_contract::op::Tag
//!      input = body | query | none | raw,        // default: from each route's method (see below)
//!      output = json | image | redirect | raw("media/type", ...),  // default: json; raw
//!                                                // without a list answers any type (`*/*`)
//!      uses(network, store),                     // what it reaches: network, provider, store, dataset
//!      errors(NOT_FOUND),                        // codes of its own, beyond what it uses brings
//!      rejects = "text that is not Base64",      // schema-valid input still refused with 400
//!      body_limit = 7340032,                     // a larger body limit for this operation (bytes)
//!      cpu,                                      // decode and run on the bounded CPU pool
//!      redact(".data.uuid"),                     // snapshot redactions for random values
//!      pipe(text -> encoded),                    // a recipe's pipe form: the main input field
//!                                                // and the main output field (wire names)
//!      example(typical, {"text": "hi"}),         // at least one; run against every route
//!      example(bad, {"text": 1}, status = 400))]
//! ```
//!
//! Routes come first; the other items follow in any order, each at most once except `example`.
//! Without `input`, a route of a function that takes an input reads it from the query string
//! and path when its method is GET or DELETE and from a JSON body otherwise; a function without
//! an input parameter reads nothing. `input = query` makes every route read the query string
//! and path (a POST kept for old clients whose body is ignored).
//!
//! The attribute is split at its top-level commas and every item is parsed on its own, so a
//! mistake in one item is reported at that item and the others are still read: one
//! declaration with three mistakes gives three messages.

use proc_macro2::{Delimiter, Group, Span, TokenStream, TokenTree};
use syn::{
    Ident, LitInt, LitStr, Token,
    parse::{ParseStream, Parser},
    punctuated::Punctuated,
};

use crate::errors::Errors;
use wrench_path_template::PathTemplate;

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum Method {
    Get,
    Post,
    Put,
    Patch,
    Delete,
    Head,
    Options,
}

impl Method {
    fn from_ident(i: &Ident) -> Option<Method> {
        Some(match i.to_string().as_str() {
            "get" => Method::Get,
            "post" => Method::Post,
            "put" => Method::Put,
            "patch" => Method::Patch,
            "delete" => Method::Delete,
            "head" => Method::Head,
            "options" => Method::Options,
            _ => return None,
        })
    }

    pub(crate) fn variant(self) -> &'static str {
        match self {
            Method::Get => "Get",
            Method::Post => "Post",
            Method::Put => "Put",
            Method::Patch => "Patch",
            Method::Delete => "Delete",
            Method::Head => "Head",
            Method::Options => "Options",
        }
    }
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum InputKind {
    Body,
    Query,
    None,
    Raw,
}

impl InputKind {
    pub(crate) fn variant(self) -> &'static str {
        match self {
            InputKind::Body => "Body",
            InputKind::Query => "Query",
            InputKind::None => "None",
            InputKind::Raw => "Raw",
        }
    }

    pub(crate) fn word(self) -> &'static str {
        match self {
            InputKind::Body => "body",
            InputKind::Query => "query",
            InputKind::None => "none",
            InputKind::Raw => "raw",
        }
    }
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum OutputKind {
    Json,
    Image,
    Redirect,
    Raw,
}

pub(crate) struct RouteDecl {
    pub(crate) method: Method,
    pub(crate) path: LitStr,
    /// The operationId, camelCase.
    pub(crate) id: Ident,
}

pub(crate) struct Example {
    pub(crate) name: Ident,
    /// The `{...}` group, JSON written as Rust tokens (`serde_json::json!` reads it).
    pub(crate) input: Group,
    pub(crate) status: u16,
}

/// A value and where it was written.
pub(crate) struct At<T> {
    pub(crate) value: T,
    pub(crate) span: Span,
}

#[derive(Default)]
pub(crate) struct OpAttr {
    pub(crate) routes: Vec<RouteDecl>,
    pub(crate) tag: Option<Ident>,
    pub(crate) input: Option<At<InputKind>>,
    pub(crate) output: Option<At<OutputKind>>,
    /// The media types of a raw output.
    pub(crate) media: Vec<LitStr>,
    pub(crate) uses: Vec<Ident>,
    pub(crate) errors: Vec<Ident>,
    pub(crate) rejects: Option<LitStr>,
    pub(crate) body_limit: Option<At<usize>>,
    pub(crate) cpu: bool,
    pub(crate) redact: Vec<LitStr>,
    pub(crate) examples: Vec<Example>,
    /// The main input field and the main output field, as the wire spells them.
    pub(crate) pipe: Option<(Ident, Ident)>,
}

const ITEMS: &str = "tag, input, output, uses, errors, rejects, body_limit, cpu, redact, pipe or example";

/// What `uses(...)` may name, and the variant of `op::Uses` each is.
pub(crate) const USES: &[(&str, &str)] =
    &[("network", "Network"), ("provider", "Provider"), ("store", "Store"), ("dataset", "Dataset")];

/// Reads the whole attribute. Whatever could be read is returned; every mistake is in `errors`.
pub(crate) fn parse(attr: TokenStream, errors: &mut Errors) -> OpAttr {
    let mut out = OpAttr::default();
    let mut seen: Vec<String> = Vec::new();
    let (mut route_items, mut example_items) = (0, 0);
    for item in split_top_level(attr) {
        let mut tokens = item.clone().into_iter();
        let (first, second) = (tokens.next(), tokens.next());
        match (&first, &second) {
            (Some(TokenTree::Ident(_)), Some(TokenTree::Literal(_))) => {
                route_items += 1;
                if !seen.is_empty() {
                    errors.at(span_of(&item), "routes come first, before tag, examples and the other items");
                }
                if let Some(r) = errors.keep(Parser::parse2(route, item)) {
                    out.routes.push(r);
                }
            }
            (Some(TokenTree::Ident(key)), _) => {
                let key_name = key.to_string();
                let repeatable = key_name == "example";
                if !repeatable && seen.contains(&key_name) {
                    errors.at(key.span(), format!("`{key_name}` is given twice; give it once"));
                    continue;
                }
                if repeatable {
                    example_items += 1;
                }
                seen.push(key_name);
                let parsed = Parser::parse2(|input: ParseStream| item_into(input, &mut out), item);
                errors.keep(parsed);
            }
            _ => errors.at(span_of(&item), format!("expected a route (`post \"/v1/...\" as opId`) or one of {ITEMS}")),
        }
    }
    // A route that was written but is wrong has its own message already.
    if route_items == 0 {
        errors.at(Span::call_site(), "declare a route first: `post \"/v1/...\" as camelCaseName`");
    }
    if example_items == 0 {
        errors.at(Span::call_site(), "declare at least one `example(name, {...})`");
    }
    check(&out, errors);
    out
}

/// The items of the attribute: its tokens split at commas outside any group.
fn split_top_level(attr: TokenStream) -> Vec<TokenStream> {
    let mut items = vec![TokenStream::new()];
    for tt in attr {
        match &tt {
            TokenTree::Punct(p) if p.as_char() == ',' => items.push(TokenStream::new()),
            _ => items.last_mut().expect("never empty").extend([tt]),
        }
    }
    items.retain(|i| !i.is_empty());
    items
}

fn span_of(tokens: &TokenStream) -> Span {
    tokens.clone().into_iter().next().map_or_else(Span::call_site, |t| t.span())
}

/// `post "/v1/x/{id}" as xGet`
fn route(input: ParseStream) -> syn::Result<RouteDecl> {
    let method_ident: Ident = input.parse()?;
    let method = Method::from_ident(&method_ident).ok_or_else(|| {
        syn::Error::new(
            method_ident.span(),
            "a route starts with its method: get, post, put, patch, delete, head or options",
        )
    })?;
    let path: LitStr = input.parse()?;
    PathTemplate::parse(&path.value()).map_err(|e| syn::Error::new(path.span(), e))?;
    if !input.peek(Token![as]) {
        return Err(syn::Error::new(path.span(), "name the route's operationId after the path: `as camelCaseName`"));
    }
    input.parse::<Token![as]>()?;
    let id: Ident = input.parse()?;
    let name = id.to_string();
    let mut chars = name.chars();
    if !chars.next().is_some_and(|c| c.is_ascii_lowercase()) || !chars.all(|c| c.is_ascii_alphanumeric()) {
        return Err(syn::Error::new(
            id.span(),
            "an operationId is camelCase (letters and digits, lower-case first): generated SDKs name methods by it",
        ));
    }
    Ok(RouteDecl { method, path, id })
}

fn item_into(input: ParseStream, out: &mut OpAttr) -> syn::Result<()> {
    let key: Ident = input.parse()?;
    match key.to_string().as_str() {
        "tag" => out.tag = Some(value(input)?),
        "input" => {
            let choices = [
                ("body", InputKind::Body),
                ("query", InputKind::Query),
                ("none", InputKind::None),
                ("raw", InputKind::Raw),
            ];
            out.input = Some(one_of(input, &choices, "input")?);
        }
        "output" => {
            let choices = [
                ("json", OutputKind::Json),
                ("image", OutputKind::Image),
                ("redirect", OutputKind::Redirect),
                ("raw", OutputKind::Raw),
            ];
            let kind = one_of(input, &choices, "output")?;
            if kind.value == OutputKind::Raw && input.peek(syn::token::Paren) {
                let content;
                syn::parenthesized!(content in input);
                for media in Punctuated::<LitStr, Token![,]>::parse_terminated(&content)? {
                    let v = media.value();
                    if v.split('/').count() != 2 || v.contains(' ') {
                        return Err(syn::Error::new(media.span(), "a media type is `type/subtype`"));
                    }
                    out.media.push(media);
                }
            }
            out.output = Some(kind);
        }
        "uses" => {
            let content;
            syn::parenthesized!(content in input);
            for used in Punctuated::<Ident, Token![,]>::parse_terminated(&content)? {
                if !USES.iter().any(|(name, _)| used == name) {
                    let names: Vec<&str> = USES.iter().map(|(n, _)| *n).collect();
                    return Err(syn::Error::new(used.span(), format!("an operation uses one of {}", names.join(", "))));
                }
                if out.uses.contains(&used) {
                    return Err(syn::Error::new(used.span(), format!("{used} is listed twice")));
                }
                out.uses.push(used);
            }
        }
        "errors" => {
            let content;
            syn::parenthesized!(content in input);
            for code in Punctuated::<Ident, Token![,]>::parse_terminated(&content)? {
                let s = code.to_string();
                if !s.chars().all(|c| c.is_ascii_uppercase() || c == '_' || c.is_ascii_digit()) {
                    return Err(syn::Error::new(code.span(), "error codes are written as on the wire, e.g. NOT_FOUND"));
                }
                if out.errors.contains(&code) {
                    return Err(syn::Error::new(code.span(), format!("{s} is listed twice")));
                }
                out.errors.push(code);
            }
        }
        "rejects" => out.rejects = Some(value(input)?),
        "body_limit" => {
            let lit: LitInt = value(input)?;
            out.body_limit = Some(At { value: lit.base10_parse()?, span: lit.span() });
        }
        "cpu" => out.cpu = true,
        "redact" => {
            let content;
            syn::parenthesized!(content in input);
            for r in Punctuated::<LitStr, Token![,]>::parse_terminated(&content)? {
                if !r.value().starts_with('.') {
                    return Err(syn::Error::new(r.span(), "a redaction is an insta selector such as \".data.uuid\""));
                }
                out.redact.push(r);
            }
        }
        "example" => {
            let content;
            syn::parenthesized!(content in input);
            out.examples.push(example(&content)?);
        }
        "pipe" => {
            let content;
            syn::parenthesized!(content in input);
            let from: Ident = content.parse()?;
            if !content.peek(Token![->]) {
                return Err(content.error("a pipe is `pipe(inputField -> outputField)`"));
            }
            content.parse::<Token![->]>()?;
            let to: Ident = content.parse()?;
            if !content.is_empty() {
                return Err(content.error("a pipe is `pipe(inputField -> outputField)`"));
            }
            out.pipe = Some((from, to));
        }
        "id" | "alias" => {
            return Err(syn::Error::new(
                key.span(),
                "operationIds follow their route: `post \"/v1/x\" as xDo`, and another path is another route",
            ));
        }
        other => {
            return Err(syn::Error::new(key.span(), format!("unknown op item `{other}`; expected one of {ITEMS}")));
        }
    }
    if !input.is_empty() {
        return Err(input.error("unexpected tokens; items are separated by commas"));
    }
    Ok(())
}

/// `= word`, where the word is one of `choices`.
fn one_of<T: Copy>(input: ParseStream, choices: &[(&str, T)], key: &str) -> syn::Result<At<T>> {
    let word: Ident = value(input)?;
    match choices.iter().find(|(name, _)| word == name) {
        Some((_, v)) => Ok(At { value: *v, span: word.span() }),
        None => {
            let names: Vec<&str> = choices.iter().map(|(name, _)| *name).collect();
            Err(syn::Error::new(word.span(), format!("{key} is one of {}", names.join(", "))))
        }
    }
}

fn value<T: syn::parse::Parse>(input: ParseStream) -> syn::Result<T> {
    input.parse::<Token![=]>()?;
    input.parse()
}

/// `typical, {"text": "hi"}` or `bad, {"text": 1}, status = 400`
fn example(content: ParseStream) -> syn::Result<Example> {
    let name: Ident = content.parse()?;
    content.parse::<Token![,]>()?;
    let input = match content.parse::<TokenTree>()? {
        TokenTree::Group(g) if g.delimiter() == Delimiter::Brace => g,
        other => return Err(syn::Error::new(other.span(), "an example input is a JSON object `{...}`")),
    };
    let mut status = 200;
    if content.peek(Token![,]) {
        content.parse::<Token![,]>()?;
        let k: Ident = content.parse()?;
        if k != "status" {
            return Err(syn::Error::new(k.span(), "expected `status = <code>`"));
        }
        content.parse::<Token![=]>()?;
        let lit: LitInt = content.parse()?;
        status = lit.base10_parse()?;
        if !(100..600).contains(&status) {
            return Err(syn::Error::new(lit.span(), "status must be an HTTP status code"));
        }
    }
    if !content.is_empty() {
        return Err(content.error("unexpected tokens in example(...)"));
    }
    Ok(Example { name, input, status })
}

/// Rules that span several items.
fn check(attr: &OpAttr, errors: &mut Errors) {
    for (i, r) in attr.routes.iter().enumerate() {
        let before = &attr.routes[..i];
        if before.iter().any(|b| b.id == r.id) {
            errors.at(r.id.span(), "each route has an operationId of its own");
        }
        if before.iter().any(|b| b.method == r.method && b.path.value() == r.path.value()) {
            errors.at(r.path.span(), "this method and path are declared twice");
        }
    }
    if attr.tag.is_none() {
        errors.at(Span::call_site(), "missing `tag = ...`, one of the variants of wrench_contract::op::Tag");
    }
    for (i, ex) in attr.examples.iter().enumerate() {
        if attr.examples[..i].iter().any(|e| e.name == ex.name) {
            errors.at(ex.name.span(), "example names must be unique");
        }
    }
}
