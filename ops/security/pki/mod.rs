//! Certificates, keys and the structures they are made of. `names.rs` writes distinguished
//! names; `x509_parse.rs` reads certificates and chains; `asn1_parse.rs` walks any DER or BER;
//! `fields.rs` reads what certificates and signing requests share; `csr_parse.rs` reads signing
//! requests, and `csr_generate.rs` and `x509_self_signed.rs` write them and certificates, with
//! `request.rs` turning a caller's subject, names and key into rcgen's; `x509_convert.rs` moves
//! certificates between PEM, DER, PKCS#7 (`pkcs7.rs`) and PKCS#12 (`pkcs12.rs`).

pub(crate) mod asn1_parse;
pub(crate) mod csr_generate;
pub(crate) mod csr_parse;
mod fields;
mod names;
mod pkcs12;
mod pkcs7;
mod request;
pub(crate) mod x509_convert;
pub(crate) mod x509_parse;
pub(crate) mod x509_self_signed;
