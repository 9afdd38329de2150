//! Text and data: encoders, formatters, converters and text tools.
//!
//! Every file here is declared below; the build fails naming a file that is not.

pub(crate) mod base64;
pub(crate) mod bytes;
pub(crate) mod compression;
pub(crate) mod csv;
pub(crate) mod encoding;
pub(crate) mod formats;
pub(crate) mod html;
pub(crate) mod indicators;
pub(crate) mod json;
pub(crate) mod lines;
pub(crate) mod lorem;
pub(crate) mod markdown;
pub(crate) mod plain;
pub(crate) mod regex;
pub(crate) mod xml;
