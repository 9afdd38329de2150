//! Libraries that operations share: what two operations need alike lives here, never in one
//! of them. Each module is a topic: asking hosts for DNS, TLS, RDAP and WHOIS ([`hosts`]), fetching
//! and reading web pages ([`web`]), mail records and policies ([`mail`]), places, geocoding and
//! time zones ([`geo`]), and smaller rule sets and algorithms (cron, arithmetic, units,
//! barcodes, image plumbing, checksums, VAT and IBAN rules, JSON differences, the compact JWS
//! form, addresses as numbers), the secret tokens that change or delete a stored thing
//! ([`tokens`]), the byte
//! convention of every operation that takes or gives bytes ([`byte_encoding`]), and what webhook
//! inboxes record of a delivery and how they check its signature ([`webhook`]).
//!
//! It stands on `wrench-contract` (an operation's context and error type, for the libraries
//! that fetch or fail on an operation's behalf) and knows no operation: the operations depend
//! on it, never the reverse.

#![forbid(unsafe_code)]

pub mod barcode;
pub mod byte_encoding;
pub mod card_brands;
pub mod checksum;
pub mod color;
pub mod cron;
pub mod crypto;
pub mod geo;
pub mod hosts;
pub mod iban;
pub mod ip_numbers;
pub mod jq;
pub mod json_diff;
pub mod jws;
pub mod mail;
pub mod math_expr;
pub mod number_units;
pub mod open_meteo;
pub mod qr;
pub mod render;
pub mod tokens;
pub mod uap;
pub mod useragent;
pub mod vat;
pub mod web;
pub mod webhook;
