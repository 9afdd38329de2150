//! Security and validation: cards, IBANs, VAT numbers, encryption, one-time passwords, and the
//! breach and phishing checks answered by third-party providers.
//!
//! Every file here is declared below; the build fails naming a file that is not.

pub(crate) mod breach;
pub(crate) mod card;
pub(crate) mod ciphers;
pub(crate) mod encrypt;
pub(crate) mod header_grade;
pub(crate) mod iban;
pub(crate) mod jose;
pub(crate) mod keys;
pub(crate) mod otp;
pub(crate) mod passwords;
pub(crate) mod phishing;
pub(crate) mod pki;
pub(crate) mod signatures;
pub(crate) mod vat;
