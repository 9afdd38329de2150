//! Integers written other ways: in any base from 2 to 36, of any size, with two's complement
//! (`base.rs`), and as Roman numerals (`roman.rs`). Number formatting for people (locales,
//! words) stays in `dev/number_format.rs`.

pub(crate) mod base;
pub(crate) mod roman;
