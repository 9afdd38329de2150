//! Certificates, keys and the structures they are made of. `names.rs` writes distinguished
//! names; `x509_parse.rs` reads certificates and chains.

mod names;
pub(crate) mod x509_parse;
