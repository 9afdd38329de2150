//! The two macros that turn one annotated function into a whole wrench operation.
//!
//! `#[op]` reads the declaration of an operation (its routes, tag, the kinds of input and
//! output, the extra errors it can give, its examples) and emits, beside the function itself,
//! a descriptor function `__op_<name>()` that the runtime registers, plus one snapshot test per
//! example. `#[derive(Validate)]` reads the same `#[schemars(...)]` validation attributes that
//! schemars writes into the schema and enforces them at run time, so that the document and the
//! server cannot disagree.
//!
//! Everything a declaration gets wrong is a compile error at the mistake, all of them at once;
//! nothing here panics at run time. The macros know nothing of HTTP: they only name items of
//! the runtime (`::wrench_contract::op`, `::wrench_contract::validate`), which does the work.

mod errors;
#[cfg(test)]
mod expansion_tests;
mod op_expand;
mod op_parse;
// The one reader of `{name}` path templates, shared with the runtime.
mod validate_derive;

use proc_macro::TokenStream;

/// Declares an operation. The grammar is in `op_parse.rs`; `wrench_contract::op` shows an
/// example.
#[proc_macro_attribute]
pub fn op(attr: TokenStream, item: TokenStream) -> TokenStream {
    op_expand::expand(attr.into(), item.into()).into()
}

/// Derives `wrench_contract::validate::Validate` from the `#[schemars(length, range, pattern)]` attributes.
#[proc_macro_derive(Validate, attributes(schemars, serde))]
pub fn derive_validate(item: TokenStream) -> TokenStream {
    validate_derive::expand(item.into()).unwrap_or_else(|e| e.to_compile_error()).into()
}
