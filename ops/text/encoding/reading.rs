//! What the decoders of this family share: the answer they give (the bytes in the encoding the
//! caller asked for, the encoding used, and how many bytes there were), and the reading of the
//! caller's characters with their positions, so that errors point into the caller's own text.

use wrench_contract::prelude::*;
use wrench_kit::byte_encoding::{self, OutputEncoding, UsedEncoding};

/// The answer of every decoder here.
#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Decoded {
    /// The decoded bytes, written as `outputEncoding` says.
    pub decoded: String,
    /// How `decoded` is written: `utf-8`, `hex`, `base64` or `base64url`.
    pub output_encoding: UsedEncoding,
    /// How many bytes were decoded.
    pub bytes: usize,
}

impl Decoded {
    /// `bytes` answered as `encoding` asks (the request's `outputEncoding`).
    pub(crate) fn of(bytes: &[u8], encoding: OutputEncoding) -> Result<Decoded, ApiError> {
        let (decoded, output_encoding) = byte_encoding::encode(bytes, encoding, "outputEncoding")?;
        Ok(Decoded { decoded, output_encoding, bytes: bytes.len() })
    }
}

/// The characters of `text` with their positions, skipping ASCII whitespace (which every
/// decoder here ignores, so wrapped text decodes).
pub(crate) fn significant(text: &str) -> impl Iterator<Item = (usize, char)> + '_ {
    text.chars().enumerate().filter(|(_, c)| !c.is_ascii_whitespace())
}
