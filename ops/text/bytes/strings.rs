//! `bytes/strings`: the runs of printable characters inside binary data, found as GNU
//! binutils' `strings -a` finds them: printable is ASCII space to `~`, and tab; in `utf16le`,
//! two-byte little-endian units of those, at any offset.

use wrench_contract::prelude::*;
use wrench_kit::byte_encoding::{self, InputEncoding};

/// The most strings an answer lists.
const MAX_STRINGS: usize = 10_000;

fn four() -> usize {
    4
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize, Serialize, JsonSchema, Validate)]
#[serde(rename_all = "lowercase")]
enum StringsEncoding {
    /// Single bytes (`strings -e s`).
    #[default]
    Ascii,
    /// UTF-16 little-endian, as Windows binaries hold text (`strings -e l`).
    Utf16le,
    /// Both, merged by offset.
    Both,
}

#[derive(Debug, Deserialize, JsonSchema, Validate)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct StringsInput {
    /// The data.
    input: String,
    /// How `input` carries its bytes: `base64` (the default here), `base64url`, `hex` or
    /// `utf-8`.
    #[serde(default = "wrench_kit::byte_encoding::base64_input")]
    input_encoding: InputEncoding,
    /// The shortest run reported, in characters (default 4, as `strings`).
    #[serde(default = "four")]
    #[schemars(range(min = 1, max = 1000))]
    min_length: usize,
    /// Which text to look for (default `ascii`).
    #[serde(default)]
    encoding: StringsEncoding,
}

#[derive(Debug, Serialize, JsonSchema)]
struct FoundString {
    /// Where it starts, in bytes from the start of the data.
    offset: usize,
    /// The text.
    text: String,
    /// `ascii` or `utf16le`.
    encoding: StringsEncoding,
}

#[derive(Debug, Serialize, JsonSchema)]
struct StringsOutput {
    /// The strings found, by offset (at most 10,000).
    strings: Vec<FoundString>,
    /// Whether there were more than listed.
    truncated: bool,
}

fn printable(c: u16) -> bool {
    (0x20..=0x7e).contains(&c) || c == 0x09
}

/// Runs of at least `min` printable units, a unit being `width` bytes little-endian. After a
/// unit that is not printable the search resumes at that unit's second byte, as `strings` does,
/// so UTF-16 text is found at odd offsets too.
fn runs(bytes: &[u8], width: usize, min: usize, encoding: StringsEncoding, out: &mut Vec<FoundString>) {
    let unit = |at: usize| -> Option<u16> {
        let b = bytes.get(at..at + width)?;
        Some(if width == 1 { u16::from(b[0]) } else { u16::from_le_bytes([b[0], b[1]]) })
    };
    let mut pos = 0;
    while pos < bytes.len() {
        let start = pos;
        let mut text = String::new();
        let mut stop = None;
        loop {
            match unit(pos) {
                Some(c) if printable(c) => {
                    text.push(char::from(c as u8));
                    pos += width;
                }
                Some(_) => {
                    stop = Some(pos);
                    break;
                }
                None => break,
            }
        }
        if text.len() >= min {
            out.push(FoundString { offset: start, text, encoding });
        }
        match stop {
            Some(at) => pos = at + 1,
            None => break,
        }
    }
}

/// Extract printable strings from binary data.
///
/// Lists every run of at least `minLength` printable ASCII characters (space to `~`, and tab)
/// with its byte offset, as GNU `strings -a -t d` does, in single bytes, UTF-16 little-endian
/// (`strings -e l`) or both. At most 10,000 strings are listed.
#[op(post "/v1/bytes/strings" as bytesStrings, tag = TextAndData, cpu,
     rejects = "input that is not in its inputEncoding",
     example(mixed, {"input": "AAFoZWxsbyB3b3JsZAAA/3dyZW5jaAA=", "minLength": 4}),
     example(utf16, {"input": "680065006c006c006f000000", "inputEncoding": "hex", "encoding": "utf16le"}),
     example(zero_length, {"input": "AA==", "minLength": 0}, status = 400))]
async fn bytes_strings(input: StringsInput) -> Result<StringsOutput, ApiError> {
    let bytes = byte_encoding::decode(&input.input, input.input_encoding, "input")?;
    let mut found = Vec::new();
    if input.encoding != StringsEncoding::Utf16le {
        runs(&bytes, 1, input.min_length, StringsEncoding::Ascii, &mut found);
    }
    if input.encoding != StringsEncoding::Ascii {
        runs(&bytes, 2, input.min_length, StringsEncoding::Utf16le, &mut found);
    }
    found.sort_by_key(|s| s.offset);
    let truncated = found.len() > MAX_STRINGS;
    found.truncate(MAX_STRINGS);
    Ok(StringsOutput { strings: found, truncated })
}
