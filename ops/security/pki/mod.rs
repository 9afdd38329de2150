//! Certificates, keys and the structures they are made of. `names.rs` writes distinguished
//! names; `x509_parse.rs` reads certificates and chains; `asn1_parse.rs` walks any DER or BER.

pub(crate) mod asn1_parse;
mod names;
pub(crate) mod x509_parse;
