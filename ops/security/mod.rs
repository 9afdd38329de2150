//! Security and validation (spec 4.4, the offline part): cards, IBANs, VAT numbers, encryption, OTPs.
//!
//! Every file here is declared below; the build fails naming a file that is not.

pub(crate) mod card;
pub(crate) mod encrypt;
pub(crate) mod header_grade;
pub(crate) mod iban;
pub(crate) mod iban_registry;
pub(crate) mod otp;
pub(crate) mod vat;
pub(crate) mod vat_rules;
