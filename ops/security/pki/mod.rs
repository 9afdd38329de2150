//! Certificates, keys and the structures they are made of. `names.rs` writes distinguished
//! names; `x509_parse.rs` reads certificates and chains; `asn1_parse.rs` walks any DER or BER;
//! `fields.rs` reads what certificates and signing requests share; `csr_parse.rs` reads signing
//! requests, and `csr_generate.rs` and `x509_self_signed.rs` write them and certificates, with
//! `request.rs` turning a caller's subject, names and key into rcgen's.

pub(crate) mod asn1_parse;
pub(crate) mod csr_generate;
pub(crate) mod csr_parse;
mod fields;
mod names;
mod request;
pub(crate) mod x509_parse;
pub(crate) mod x509_self_signed;
