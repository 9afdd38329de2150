//! The byte convention every operation that takes or gives bytes follows, so that bytes that
//! are not UTF-8 travel through JSON without loss.
//!
//! - A byte input is a string field with an `inputEncoding` beside it ([`InputEncoding`]):
//!   `utf-8` (the default: the string's own UTF-8 bytes), `hex`, `base64` or `base64url`.
//!   Hex and Base64 may be wrapped (ASCII whitespace is ignored) and Base64 may leave out its
//!   padding; anything else is refused with 400 naming the field and the position of the first
//!   character that is wrong, counted in the caller's own characters.
//! - A byte output is written as the caller's `outputEncoding` asks ([`OutputEncoding`]):
//!   `auto` (the default) gives text when the bytes are UTF-8 without control characters other
//!   than tab, line feed and carriage return, and standard Base64 otherwise; `utf-8` refuses
//!   bytes that are not UTF-8 with 400 naming the field; `hex`, `base64` and `base64url` always
//!   apply. The answer names the encoding it used ([`UsedEncoding`], never `auto`), as the
//!   webhook inbox's `rawBody` and `rawBodyEncoding` always have.
//!
//! Hex is lower case; `base64` is RFC 4648 section 4 with padding, `base64url` section 5
//! without it.

use base64::{
    Engine, alphabet,
    engine::{DecodePaddingMode, GeneralPurpose, GeneralPurposeConfig},
};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use wrench_contract::prelude::{ApiError, Validate};

/// How a byte input's string carries its bytes.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize, Serialize, JsonSchema, Validate)]
pub enum InputEncoding {
    /// The string's own UTF-8 bytes.
    #[default]
    #[serde(rename = "utf-8")]
    Utf8,
    /// Two hexadecimal digits a byte, either case.
    #[serde(rename = "hex")]
    Hex,
    /// Standard Base64 (`+`, `/`), padded or not.
    #[serde(rename = "base64")]
    Base64,
    /// URL-safe Base64 (`-`, `_`), padded or not.
    #[serde(rename = "base64url")]
    Base64Url,
}

/// `base64`: the `inputEncoding` default of operations whose input is rarely text (archives,
/// DER, CBOR), for `#[serde(default = "wrench_kit::byte_encoding::base64_input")]`.
pub fn base64_input() -> InputEncoding {
    InputEncoding::Base64
}

/// `base64`: the `outputEncoding` default of operations whose output is rarely text.
pub fn base64_output() -> OutputEncoding {
    OutputEncoding::Base64
}

/// Bytes as two lower-case hex digits each, joined by colons (`00:1a:2b`): MAC addresses,
/// UUID nodes, OpenSSH's MD5 fingerprints.
pub fn colon_hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect::<Vec<_>>().join(":")
}

/// How a byte output is to be written.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize, Serialize, JsonSchema, Validate)]
pub enum OutputEncoding {
    /// Text when the bytes are UTF-8 without control characters (tab and line breaks aside),
    /// standard Base64 otherwise.
    #[default]
    #[serde(rename = "auto")]
    Auto,
    /// Text; bytes that are not UTF-8 are refused.
    #[serde(rename = "utf-8")]
    Utf8,
    /// Lower-case hexadecimal, two digits a byte.
    #[serde(rename = "hex")]
    Hex,
    /// Standard Base64 with padding.
    #[serde(rename = "base64")]
    Base64,
    /// URL-safe Base64 without padding.
    #[serde(rename = "base64url")]
    Base64Url,
}

/// The encoding an answer's bytes were written in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, JsonSchema)]
pub enum UsedEncoding {
    #[serde(rename = "utf-8")]
    Utf8,
    #[serde(rename = "hex")]
    Hex,
    #[serde(rename = "base64")]
    Base64,
    #[serde(rename = "base64url")]
    Base64Url,
}

impl UsedEncoding {
    pub fn as_str(self) -> &'static str {
        match self {
            UsedEncoding::Utf8 => "utf-8",
            UsedEncoding::Hex => "hex",
            UsedEncoding::Base64 => "base64",
            UsedEncoding::Base64Url => "base64url",
        }
    }
}

/// Decoders accept input with or without padding; each alphabet is strict.
const LENIENT: GeneralPurposeConfig =
    GeneralPurposeConfig::new().with_decode_padding_mode(DecodePaddingMode::Indifferent);
const STANDARD_DECODE: GeneralPurpose = GeneralPurpose::new(&alphabet::STANDARD, LENIENT);
const URL_SAFE_DECODE: GeneralPurpose = GeneralPurpose::new(&alphabet::URL_SAFE, LENIENT);

/// The bytes `text` carries in `encoding`; `field` names the input in an error.
pub fn decode(text: &str, encoding: InputEncoding, field: &str) -> Result<Vec<u8>, ApiError> {
    match encoding {
        InputEncoding::Utf8 => Ok(text.as_bytes().to_vec()),
        InputEncoding::Hex => decode_hex(text, field),
        InputEncoding::Base64 => decode_base64(text, false, field),
        InputEncoding::Base64Url => decode_base64(text, true, field),
    }
}

/// The characters of `text` other than ASCII whitespace, each with its position (in
/// characters) in `text`, so that an error can point into the caller's own input.
fn compact(text: &str) -> (String, Vec<usize>) {
    text.chars().enumerate().filter(|(_, c)| !c.is_ascii_whitespace()).map(|(i, c)| (c, i)).unzip()
}

/// The bytes of `text` without ASCII whitespace, borrowed when there is none.
fn without_whitespace(text: &str) -> std::borrow::Cow<'_, [u8]> {
    if text.bytes().any(|b| b.is_ascii_whitespace()) {
        std::borrow::Cow::Owned(text.bytes().filter(|b| !b.is_ascii_whitespace()).collect())
    } else {
        std::borrow::Cow::Borrowed(text.as_bytes())
    }
}

fn decode_hex(text: &str, field: &str) -> Result<Vec<u8>, ApiError> {
    // As with Base64: one pass for valid text, the positions only for an error.
    if let Ok(bytes) = hex::decode(without_whitespace(text)) {
        return Ok(bytes);
    }
    let (digits, positions) = compact(text);
    if let Some((i, c)) = digits.chars().enumerate().find(|(_, c)| !c.is_ascii_hexdigit()) {
        return Err(ApiError::invalid(
            field,
            format!("not valid hex: {c:?} at position {} is not a hexadecimal digit", positions[i]),
        ));
    }
    if digits.len() % 2 == 1 {
        return Err(ApiError::invalid(
            field,
            format!("not valid hex: {} digits cannot be whole bytes (two digits a byte)", digits.len()),
        ));
    }
    hex::decode(&digits).map_err(|e| ApiError::invalid(field, format!("not valid hex: {e}")))
}

/// Why a text is not Base64, with positions counted in the caller's own characters
/// (whitespace included), so that each operation can word its message in its own fields.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Base64Fault {
    /// `char` at `at` is not in the alphabet; `other_alphabet`: it belongs to the other one
    /// (`-`, `_` read as standard, `+`, `/` read as URL-safe).
    Character { char: char, at: usize, other_alphabet: bool },
    /// `n` characters cannot be whole bytes.
    Length(usize),
    /// The last character, at `at`, has bits set that encode nothing.
    LastSymbol { at: usize },
    /// The `=` padding is misplaced or of the wrong length.
    Padding,
}

/// The bytes of Base64 `text` in the standard alphabet, or the URL-safe one: ASCII whitespace
/// is ignored (wrapped lines decode), padding is optional, and the alphabet is strict.
pub fn read_base64(text: &str, url_safe: bool) -> Result<Vec<u8>, Base64Fault> {
    let engine = if url_safe { URL_SAFE_DECODE } else { STANDARD_DECODE };
    // The common case, valid text, costs one pass (two when it is wrapped); the positions an
    // error names are worked out only when there is an error.
    if let Ok(bytes) = engine.decode(without_whitespace(text).as_ref()) {
        return Ok(bytes);
    }
    let (compact, positions) = compact(text);
    // The decoder reports byte offsets into `compact`; map them to the caller's characters.
    let at = |offset: usize| {
        let chars_before = compact.get(..offset).map_or(offset, |s| s.chars().count());
        positions.get(chars_before).copied().unwrap_or(text.chars().count())
    };
    engine.decode(compact.as_bytes()).map_err(|e| match e {
        base64::DecodeError::InvalidByte(offset, b) => Base64Fault::Character {
            char: compact.get(offset..).and_then(|s| s.chars().next()).unwrap_or(b as char),
            at: at(offset),
            other_alphabet: if url_safe { matches!(b, b'+' | b'/') } else { matches!(b, b'-' | b'_') },
        },
        base64::DecodeError::InvalidLength(n) => Base64Fault::Length(n),
        base64::DecodeError::InvalidLastSymbol { offset, .. } => Base64Fault::LastSymbol { at: at(offset) },
        base64::DecodeError::InvalidPadding => Base64Fault::Padding,
    })
}

fn decode_base64(text: &str, url_safe: bool, field: &str) -> Result<Vec<u8>, ApiError> {
    let name = if url_safe { "base64url" } else { "base64" };
    read_base64(text, url_safe).map_err(|fault| {
        let what = match fault {
            Base64Fault::Character { char, at, other_alphabet } => {
                let hint = match (other_alphabet, url_safe) {
                    (false, _) => "",
                    (true, false) => " (this looks like base64url)",
                    (true, true) => " (this looks like standard base64)",
                };
                format!("{char:?} at position {at} is not in its alphabet{hint}")
            }
            Base64Fault::Length(n) => format!("{n} characters cannot be whole bytes (one is missing or extra)"),
            Base64Fault::LastSymbol { at } => {
                format!("the last character, at position {at}, has bits set that encode nothing")
            }
            Base64Fault::Padding => "the = padding is misplaced or of the wrong length".to_string(),
        };
        ApiError::invalid(field, format!("not valid {name}: {what}"))
    })
}

/// Whether `bytes` read as text: UTF-8, without control characters other than tab, line
/// feed and carriage return.
pub fn is_text(bytes: &[u8]) -> bool {
    // Unicode's control characters (category Cc) are U+0000-U+001F and U+007F-U+009F: in valid
    // UTF-8, the bytes below 0x20 and 0x7F, and 0xC2 followed by 0x80-0x9F. A scan of bytes
    // finds them without decoding characters.
    std::str::from_utf8(bytes).is_ok()
        && !bytes.iter().enumerate().any(|(i, &b)| {
            (b < 0x20 && !matches!(b, b'\t' | b'\n' | b'\r'))
                || b == 0x7f
                || (b == 0xc2 && bytes.get(i + 1).is_some_and(|n| (0x80..=0x9f).contains(n)))
        })
}

/// `bytes` written as `encoding` asks, and the encoding used; `field` names the output in an
/// error (an `outputEncoding` of `utf-8` for bytes that are not UTF-8).
pub fn encode(bytes: &[u8], encoding: OutputEncoding, field: &str) -> Result<(String, UsedEncoding), ApiError> {
    let used = match encoding {
        OutputEncoding::Auto if is_text(bytes) => UsedEncoding::Utf8,
        OutputEncoding::Auto => UsedEncoding::Base64,
        OutputEncoding::Utf8 => UsedEncoding::Utf8,
        OutputEncoding::Hex => UsedEncoding::Hex,
        OutputEncoding::Base64 => UsedEncoding::Base64,
        OutputEncoding::Base64Url => UsedEncoding::Base64Url,
    };
    let text = match used {
        UsedEncoding::Utf8 => String::from_utf8(bytes.to_vec()).map_err(|e| {
            ApiError::invalid(
                field,
                format!(
                    "the result is not UTF-8 text (the first byte that is not, at offset {}, is 0x{:02x}); \
                     ask for hex, base64 or base64url, or auto",
                    e.utf8_error().valid_up_to(),
                    bytes[e.utf8_error().valid_up_to()]
                ),
            )
        })?,
        UsedEncoding::Hex => hex::encode(bytes),
        UsedEncoding::Base64 => base64::engine::general_purpose::STANDARD.encode(bytes),
        UsedEncoding::Base64Url => base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(bytes),
    };
    Ok((text, used))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// RFC 4648 section 10's vectors, in every input encoding.
    const VECTORS: &[(&str, &str, &str)] = &[
        ("", "", ""),
        ("f", "66", "Zg=="),
        ("fo", "666f", "Zm8="),
        ("foo", "666f6f", "Zm9v"),
        ("foob", "666f6f62", "Zm9vYg=="),
        ("fooba", "666f6f6261", "Zm9vYmE="),
        ("foobar", "666f6f626172", "Zm9vYmFy"),
    ];

    #[test]
    fn rfc4648_vectors_decode_and_encode() {
        for (plain, hex, b64) in VECTORS {
            assert_eq!(decode(plain, InputEncoding::Utf8, "input").unwrap(), plain.as_bytes());
            assert_eq!(decode(hex, InputEncoding::Hex, "input").unwrap(), plain.as_bytes());
            assert_eq!(decode(&hex.to_uppercase(), InputEncoding::Hex, "input").unwrap(), plain.as_bytes());
            assert_eq!(decode(b64, InputEncoding::Base64, "input").unwrap(), plain.as_bytes());
            assert_eq!(decode(b64.trim_end_matches('='), InputEncoding::Base64Url, "input").unwrap(), plain.as_bytes());
            assert_eq!(encode(plain.as_bytes(), OutputEncoding::Hex, "output").unwrap().0, *hex);
            assert_eq!(encode(plain.as_bytes(), OutputEncoding::Base64, "output").unwrap().0, *b64);
            assert_eq!(
                encode(plain.as_bytes(), OutputEncoding::Base64Url, "output").unwrap().0,
                b64.trim_end_matches('=')
            );
            assert_eq!(
                encode(plain.as_bytes(), OutputEncoding::Auto, "output").unwrap(),
                (plain.to_string(), UsedEncoding::Utf8)
            );
        }
    }

    /// Python's standard library (tests/fixtures/byte_encodings.py) wrote each case in every
    /// encoding and judged whether it reads as text; every reading and writing here agrees.
    #[test]
    fn pythons_encodings_and_verdicts_agree() {
        let cases: serde_json::Value =
            serde_json::from_str(include_str!("../../../tests/fixtures/byte_encodings.json")).unwrap();
        let cases = cases.as_array().unwrap();
        assert!(cases.len() >= 20);
        for case in cases {
            let field = |name: &str| case[name].as_str().unwrap().to_string();
            let bytes = decode(&field("hex"), InputEncoding::Hex, "input").unwrap();
            assert_eq!(decode(&field("base64"), InputEncoding::Base64, "input").unwrap(), bytes);
            assert_eq!(decode(&field("base64url"), InputEncoding::Base64Url, "input").unwrap(), bytes);
            for (asked, name) in [
                (OutputEncoding::Hex, "hex"),
                (OutputEncoding::Base64, "base64"),
                (OutputEncoding::Base64Url, "base64url"),
            ] {
                assert_eq!(encode(&bytes, asked, "output").unwrap().0, field(name), "{name} of {}", field("hex"));
            }
            let text = case["text"].as_bool().unwrap();
            assert_eq!(is_text(&bytes), text, "{}", field("hex"));
            let (auto, used) = encode(&bytes, OutputEncoding::Auto, "output").unwrap();
            if text {
                assert_eq!((auto.as_bytes(), used), (&bytes[..], UsedEncoding::Utf8));
            } else {
                assert_eq!((auto, used), (field("base64"), UsedEncoding::Base64));
            }
        }
    }

    #[test]
    fn every_byte_survives_every_encoding() {
        let all: Vec<u8> = (0..=255).collect();
        for (out, back) in [
            (OutputEncoding::Hex, InputEncoding::Hex),
            (OutputEncoding::Base64, InputEncoding::Base64),
            (OutputEncoding::Base64Url, InputEncoding::Base64Url),
            (OutputEncoding::Auto, InputEncoding::Base64),
        ] {
            let (text, used) = encode(&all, out, "output").unwrap();
            assert_ne!(used, UsedEncoding::Utf8);
            assert_eq!(decode(&text, back, "input").unwrap(), all, "{out:?}");
        }
    }

    #[test]
    fn auto_gives_text_only_for_text() {
        assert_eq!(encode("tab\tline\r\nÿ €".as_bytes(), OutputEncoding::Auto, "o").unwrap().1, UsedEncoding::Utf8);
        for not_text in [&b"\x00"[..], b"\x1b[31m", b"\x7f", "\u{85}".as_bytes(), b"\xff\xfe", b"\xc3"] {
            let (text, used) = encode(not_text, OutputEncoding::Auto, "o").unwrap();
            assert_eq!(used, UsedEncoding::Base64, "{not_text:?}");
            assert_eq!(decode(&text, InputEncoding::Base64, "i").unwrap(), not_text);
        }
        // Control characters that are UTF-8 may still be asked for as text.
        assert_eq!(encode(b"\x00", OutputEncoding::Utf8, "o").unwrap().0, "\0");
        let e = encode(b"ab\xff", OutputEncoding::Utf8, "decoded").unwrap_err();
        assert_eq!(e.field.as_deref(), Some("decoded"));
        assert!(e.message.contains("offset 2") && e.message.contains("0xff"), "{}", e.message);
    }

    #[test]
    fn wrapped_input_decodes_and_errors_point_at_the_callers_characters() {
        assert_eq!(decode("66 6f\n6f", InputEncoding::Hex, "i").unwrap(), b"foo");
        assert_eq!(decode("Zm9v\r\nYmFy", InputEncoding::Base64, "i").unwrap(), b"foobar");
        let e = decode("66 6g", InputEncoding::Hex, "input").unwrap_err();
        assert_eq!(e.field.as_deref(), Some("input"));
        assert!(e.message.contains("'g' at position 4"), "{}", e.message);
        let e = decode("666", InputEncoding::Hex, "input").unwrap_err();
        assert!(e.message.contains("3 digits"), "{}", e.message);
        let e = decode("Zm9v\n Y!Fy", InputEncoding::Base64, "input").unwrap_err();
        assert!(e.message.contains("'!' at position 7"), "{}", e.message);
        let e = decode("Pz8-", InputEncoding::Base64, "input").unwrap_err();
        assert!(e.message.contains("looks like base64url"), "{}", e.message);
        let e = decode("Pz8+", InputEncoding::Base64Url, "input").unwrap_err();
        assert!(e.message.contains("looks like standard base64"), "{}", e.message);
        for bad in ["Z", "Zg=a", "Zh=="] {
            assert!(decode(bad, InputEncoding::Base64, "input").is_err(), "{bad}");
        }
        // A multi-byte character before the mistake counts as one position.
        let e = decode("ÿÿ", InputEncoding::Hex, "input").unwrap_err();
        assert!(e.message.contains("position 0"), "{}", e.message);
    }

    #[test]
    fn the_wire_names_are_the_conventions() {
        let names = |v: serde_json::Value| {
            v.as_array().unwrap().iter().map(|x| x.as_str().unwrap().to_string()).collect::<Vec<_>>()
        };
        let input = serde_json::to_value([
            InputEncoding::Utf8,
            InputEncoding::Hex,
            InputEncoding::Base64,
            InputEncoding::Base64Url,
        ])
        .unwrap();
        assert_eq!(names(input), ["utf-8", "hex", "base64", "base64url"]);
        let output: OutputEncoding = serde_json::from_str("\"auto\"").unwrap();
        assert_eq!(output, OutputEncoding::default());
        assert!(serde_json::from_str::<InputEncoding>("\"utf8\"").is_err(), "one spelling");
        for used in [UsedEncoding::Utf8, UsedEncoding::Hex, UsedEncoding::Base64, UsedEncoding::Base64Url] {
            assert_eq!(serde_json::to_value(used).unwrap(), used.as_str());
        }
    }
}
