//! An error sink: every mistake found in a declaration is kept, and all of them are reported
//! together, each at its own place, instead of stopping at the first.

use proc_macro2::{Span, TokenStream};

#[derive(Default)]
pub(crate) struct Errors {
    first: Option<syn::Error>,
}

impl Errors {
    pub(crate) fn push(&mut self, e: syn::Error) {
        match &mut self.first {
            Some(first) => first.combine(e),
            None => self.first = Some(e),
        }
    }

    pub(crate) fn at(&mut self, span: Span, message: impl std::fmt::Display) {
        self.push(syn::Error::new(span, message));
    }

    /// Keeps the error of `r`, if any, and gives its value otherwise.
    pub(crate) fn keep<T>(&mut self, r: syn::Result<T>) -> Option<T> {
        r.map_err(|e| self.push(e)).ok()
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.first.is_none()
    }

    /// `compile_error!` invocations for everything kept (nothing when all went well).
    pub(crate) fn to_compile_errors(&self) -> TokenStream {
        self.first.as_ref().map(syn::Error::to_compile_error).unwrap_or_default()
    }
}
