//! `#[derive(Validate)]`: run-time checks from the schemars validation attributes.
//!
//! Reads `#[schemars(length(min = .., max = ..))]`, `#[schemars(range(min = .., max = ..))]` and
//! `#[schemars(pattern("..."))]` (or `regex(pattern = "...")`) on named fields, which schemars
//! writes as `minLength`/`maxLength` (or `minItems`/`maxItems`), `minimum`/`maximum` and
//! `pattern`. The same attribute therefore feeds the document and the check. Field names in
//! messages follow serde's `rename` and `rename_all`, so they match what the client sent.
//! Patterns are compiled here, so a bad one is a compile error, and must stay inside the subset
//! that both ECMA-262 (the schema's dialect) and Rust's `regex` understand.

use heck::{ToKebabCase, ToLowerCamelCase, ToShoutyKebabCase, ToShoutySnakeCase, ToUpperCamelCase};
use proc_macro2::TokenStream;
use quote::{ToTokens, quote};
use syn::{Data, DeriveInput, Error, Expr, Fields, LitStr, Result};

/// serde's `rename_all` rules.
const RENAME_RULES: &[&str] = &[
    "lowercase",
    "UPPERCASE",
    "PascalCase",
    "camelCase",
    "snake_case",
    "SCREAMING_SNAKE_CASE",
    "kebab-case",
    "SCREAMING-KEBAB-CASE",
];

#[derive(Default)]
struct Checks {
    length: (Option<Expr>, Option<Expr>),
    range: (Option<Expr>, Option<Expr>),
    pattern: Option<LitStr>,
}

fn parse_min_max(meta: &syn::meta::ParseNestedMeta) -> Result<(Option<Expr>, Option<Expr>)> {
    let mut out = (None, None);
    meta.parse_nested_meta(|inner| {
        let v: Expr = inner.value()?.parse()?;
        if inner.path.is_ident("min") {
            out.0 = Some(v);
        } else if inner.path.is_ident("max") {
            out.1 = Some(v);
        } else if inner.path.is_ident("equal") {
            out.0 = Some(v.clone());
            out.1 = Some(v);
        } else {
            return Err(inner.error("expected min, max or equal"));
        }
        Ok(())
    })?;
    Ok(out)
}

fn check_pattern_literal(lit: &LitStr) -> Result<()> {
    let p = lit.value();
    if let Err(e) = regex::Regex::new(&p) {
        return Err(Error::new(lit.span(), format!("invalid pattern: {e}")));
    }
    // Inline groups other than (?: are Rust-only syntax; ECMA-262 readers of the schema would
    // reject them or read them differently.
    if p.replace("(?:", "").contains("(?") || p.contains("\\A") || p.contains("\\z") {
        return Err(Error::new(lit.span(), "keep patterns to the ECMA-262 and Rust regex common subset"));
    }
    Ok(())
}

fn field_checks(field: &syn::Field) -> Result<Checks> {
    let mut checks = Checks::default();
    for attr in &field.attrs {
        if !attr.path().is_ident("schemars") {
            continue;
        }
        attr.parse_nested_meta(|meta| {
            if meta.path.is_ident("length") {
                checks.length = parse_min_max(&meta)?;
            } else if meta.path.is_ident("range") {
                checks.range = parse_min_max(&meta)?;
            } else if meta.path.is_ident("pattern") {
                let content;
                syn::parenthesized!(content in meta.input);
                let lit: LitStr = content.parse()?;
                check_pattern_literal(&lit)?;
                checks.pattern = Some(lit);
            } else if meta.path.is_ident("regex") {
                meta.parse_nested_meta(|inner| {
                    if inner.path.is_ident("pattern") {
                        let lit: LitStr = inner.value()?.parse()?;
                        check_pattern_literal(&lit)?;
                        checks.pattern = Some(lit);
                        Ok(())
                    } else {
                        Err(inner.error("write regex(pattern = \"...\") with a string literal"))
                    }
                })?;
            } else {
                // Everything else (description, example, with, ...) is schemars' own business;
                // consume its arguments without interpreting them.
                if meta.input.peek(syn::Token![=]) {
                    let _: Expr = meta.value()?.parse()?;
                } else if !meta.input.is_empty() && !meta.input.peek(syn::Token![,]) {
                    let _: proc_macro2::Group = meta.input.parse()?;
                }
            }
            Ok(())
        })?;
    }
    Ok(checks)
}

/// Every `#[serde(key = "...")]` among `attrs`, in order. Other serde items are consumed
/// without being interpreted.
fn serde_values(attrs: &[syn::Attribute], key: &str) -> Result<Vec<LitStr>> {
    let mut out = Vec::new();
    for attr in attrs {
        if !attr.path().is_ident("serde") {
            continue;
        }
        attr.parse_nested_meta(|meta| {
            if meta.path.is_ident(key) {
                out.push(meta.value()?.parse()?);
            } else if meta.input.peek(syn::Token![=]) {
                let _: Expr = meta.value()?.parse()?;
            } else if !meta.input.is_empty() && !meta.input.peek(syn::Token![,]) {
                let _: proc_macro2::Group = meta.input.parse()?;
            }
            Ok(())
        })?;
    }
    Ok(out)
}

/// The value of `#[serde(key = "...")]`, if any (the last one, as serde reads it).
fn serde_string(attrs: &[syn::Attribute], key: &str) -> Result<Option<String>> {
    Ok(serde_values(attrs, key)?.last().map(LitStr::value))
}

/// Whether the type's schema runs `declare_aliases`, which puts aliases into the document.
fn declares_aliases(attrs: &[syn::Attribute]) -> bool {
    attrs
        .iter()
        .any(|a| a.path().is_ident("schemars") && a.meta.to_token_stream().to_string().contains("declare_aliases"))
}

/// The JSON name of a field, as serde sees it.
fn json_name(field: &syn::Field, rename_all: Option<&str>) -> Result<String> {
    let ident = field.ident.as_ref().map(|i| i.to_string()).unwrap_or_default();
    let ident = ident.strip_prefix("r#").unwrap_or(&ident).to_string();
    if let Some(r) = serde_string(&field.attrs, "rename")? {
        return Ok(r);
    }
    // serde's own rule names; heck spells them the way serde does for snake_case fields.
    Ok(match rename_all {
        Some("camelCase") => ident.to_lower_camel_case(),
        Some("PascalCase") => ident.to_upper_camel_case(),
        Some("kebab-case") => ident.to_kebab_case(),
        Some("SCREAMING_SNAKE_CASE") => ident.to_shouty_snake_case(),
        Some("SCREAMING-KEBAB-CASE") => ident.to_shouty_kebab_case(),
        Some("lowercase") => ident.to_lowercase(),
        Some("UPPERCASE") => ident.to_uppercase(),
        _ => ident,
    })
}

fn opt(e: &Option<Expr>, cast: TokenStream) -> TokenStream {
    match e {
        Some(e) => quote!(::std::option::Option::Some((#e) as #cast)),
        None => quote!(::std::option::Option::None),
    }
}

pub(crate) fn expand(item: TokenStream) -> Result<TokenStream> {
    let input: DeriveInput = syn::parse2(item)?;
    let name = &input.ident;
    let rename_all = serde_string(&input.attrs, "rename_all")?;
    // Field names are derived for structs only; enums leave variant names to serde.
    if let (Data::Struct(_), Some(r)) = (&input.data, &rename_all)
        && !RENAME_RULES.contains(&r.as_str())
    {
        return Err(Error::new_spanned(&input.ident, format!("Validate does not know rename_all = \"{r}\"")));
    }
    let mut aliases = Vec::new();
    let body = match &input.data {
        Data::Struct(s) => {
            let fields: Vec<&syn::Field> = match &s.fields {
                Fields::Named(named) => named.named.iter().collect(),
                // A newtype (`#[serde(transparent)]`) is validated at its own path.
                Fields::Unnamed(u) if u.unnamed.len() == 1 => u.unnamed.iter().collect(),
                _ => {
                    return Err(Error::new_spanned(
                        name,
                        "Validate is derived for structs with named fields or newtypes",
                    ));
                }
            };
            let mut parts = Vec::new();
            for field in fields {
                let (ident, p_expr) = match &field.ident {
                    Some(i) => {
                        let jname = json_name(field, rename_all.as_deref())?;
                        for alias in serde_values(&field.attrs, "alias")? {
                            if !declares_aliases(&input.attrs) {
                                return Err(Error::new(
                                    alias.span(),
                                    "the document must list every name the server accepts: add \
                                     #[schemars(transform = wrench_contract::validate::declare_aliases::<Self>)] to the type",
                                ));
                            }
                            aliases.push(quote!((#jname, #alias)));
                        }
                        (quote!(#i), quote!(::wrench_contract::validate::join(path, #jname)))
                    }
                    None => (quote!(0), quote!(path.to_string())),
                };
                let c = field_checks(field)?;
                let mut checks = Vec::new();
                if c.length.0.is_some() || c.length.1.is_some() {
                    let (lo, hi) = (opt(&c.length.0, quote!(usize)), opt(&c.length.1, quote!(usize)));
                    checks.push(quote!(::wrench_contract::validate::check_length(&self.#ident, &p, #lo, #hi)?;));
                }
                if c.range.0.is_some() || c.range.1.is_some() {
                    let (lo, hi) = (opt(&c.range.0, quote!(f64)), opt(&c.range.1, quote!(f64)));
                    checks.push(quote!(::wrench_contract::validate::check_range(&self.#ident, &p, #lo, #hi)?;));
                }
                if let Some(pat) = &c.pattern {
                    checks.push(quote! {
                        static RE: ::std::sync::LazyLock<::wrench_contract::__private::regex::Regex> =
                            ::std::sync::LazyLock::new(|| {
                                ::wrench_contract::__private::regex::Regex::new(#pat).expect("pattern checked at compile time")
                            });
                        ::wrench_contract::validate::check_pattern(&self.#ident, &p, &RE, #pat)?;
                    });
                }
                parts.push(quote! {
                    {
                        let p = #p_expr;
                        #(#checks)*
                        ::wrench_contract::validate::Validate::validate(&self.#ident, &p)?;
                    }
                });
            }
            quote!(#(#parts)*)
        }
        Data::Enum(e) => {
            if e.variants.iter().any(|v| !matches!(v.fields, Fields::Unit)) {
                return Err(Error::new_spanned(name, "Validate is derived for enums of unit variants only"));
            }
            quote!(let _ = path;)
        }
        Data::Union(_) => {
            return Err(Error::new_spanned(name, "Validate is not derived for unions"));
        }
    };
    let (impl_g, ty_g, where_g) = input.generics.split_for_impl();
    Ok(quote! {
        impl #impl_g ::wrench_contract::validate::Validate for #name #ty_g #where_g {
            const ALIASES: &'static [(&'static str, &'static str)] = &[#(#aliases),*];

            fn validate(&self, path: &str) -> ::std::result::Result<(), ::wrench_contract::validate::FieldError> {
                #body
                ::std::result::Result::Ok(())
            }
        }
    })
}

#[cfg(test)]
mod tests {
    use quote::quote;

    use super::expand;

    fn error_of(item: proc_macro2::TokenStream) -> String {
        expand(item).err().map(|e| e.to_string()).unwrap_or_default()
    }

    #[test]
    fn checks_are_derived_from_schemars_attributes() {
        let out = expand(quote! {
            #[serde(rename_all = "camelCase")]
            struct In {
                #[schemars(length(min = 1, max = 10))]
                some_text: String,
                #[schemars(range(min = 1, max = 100))]
                count: u32,
                #[schemars(pattern("^[a-z]+$"))]
                name: String,
            }
        })
        .unwrap()
        .to_string();
        for needle in ["check_length", "check_range", "check_pattern", "\"someText\""] {
            assert!(out.contains(needle), "{needle} missing in {out}");
        }
    }

    #[test]
    fn bad_declarations_are_compile_errors() {
        let cases = [
            (
                quote!(
                    struct In {
                        #[schemars(pattern("(unclosed"))]
                        a: String,
                    }
                ),
                "invalid pattern",
            ),
            (
                quote!(
                    struct In {
                        #[schemars(pattern("(?i)abc"))]
                        a: String,
                    }
                ),
                "common subset",
            ),
            (
                quote!(
                    struct In {
                        #[schemars(length(least = 1))]
                        a: String,
                    }
                ),
                "min, max or equal",
            ),
            (
                quote!(
                    #[serde(rename_all = "Title Case")]
                    struct In {
                        a: String,
                    }
                ),
                "rename_all",
            ),
            (
                quote!(
                    enum E {
                        A(u8),
                    }
                ),
                "unit variants",
            ),
        ];
        for (item, want) in cases {
            let got = error_of(item.clone());
            assert!(got.contains(want), "{item}: expected an error containing {want:?}, got {got:?}");
        }
    }
}
