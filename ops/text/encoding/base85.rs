//! Base85 (`base85/encode`, `base85/decode`): four bytes as five characters, in the four forms
//! in use. Ascii85 (btoa's, `!`-`u`, `z` for four zero bytes), Adobe's Ascii85 (the same between
//! `<~` and `~>`), ZeroMQ's Z85 (its own alphabet, whole groups only) and the alphabet of RFC 1924
//! as git and Python's `b85encode` use it for bytes. A last group of one to three bytes is
//! padded with zeros and written with as many characters as it has bytes plus one (Ascii85 and
//! the RFC 1924 alphabet; Z85 takes whole groups only).

use wrench_contract::prelude::*;
use wrench_infra::bounds::OutputBudget;
use wrench_kit::byte_encoding::{self, InputEncoding, OutputEncoding};

use super::reading::{Decoded, significant};

#[derive(Debug, Deserialize, Serialize, JsonSchema, Validate, Clone, Copy, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
enum Base85Variant {
    /// Ascii85 as btoa writes it: `!` to `u`, `z` for four zero bytes.
    Ascii85,
    /// Adobe's Ascii85: the same, between `<~` and `~>`.
    Adobe,
    /// ZeroMQ's Z85 (RFC 32/Z85): its own alphabet; whole groups of four bytes only.
    Z85,
    /// The alphabet of RFC 1924 (digits, letters, then ``!#$%&()*+-;<=>?@^_`{|}~``), as git and
    /// Python's `base64.b85encode` use it for bytes.
    Rfc1924,
}

fn ascii85() -> Base85Variant {
    Base85Variant::Ascii85
}

const Z85: &[u8; 85] = b"0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ.-:+=^!/*?&<>()[]{}@%$#";
const RFC1924: &[u8; 85] = b"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz!#$%&()*+-;<=>?@^_`{|}~";

impl Base85Variant {
    /// The character for each digit 0-84.
    fn symbol(self, digit: u32) -> u8 {
        match self {
            Base85Variant::Ascii85 | Base85Variant::Adobe => b'!' + digit as u8,
            Base85Variant::Z85 => Z85[digit as usize],
            Base85Variant::Rfc1924 => RFC1924[digit as usize],
        }
    }

    /// The digit a character stands for.
    fn digit(self, c: u8) -> Option<u32> {
        match self {
            Base85Variant::Ascii85 | Base85Variant::Adobe => (b'!'..=b'u').contains(&c).then(|| u32::from(c - b'!')),
            Base85Variant::Z85 => Z85.iter().position(|&s| s == c).map(|d| d as u32),
            Base85Variant::Rfc1924 => RFC1924.iter().position(|&s| s == c).map(|d| d as u32),
        }
    }

    fn ascii85(self) -> bool {
        matches!(self, Base85Variant::Ascii85 | Base85Variant::Adobe)
    }
}

fn encode(bytes: &[u8], variant: Base85Variant) -> Result<String, String> {
    if variant == Base85Variant::Z85 && !bytes.len().is_multiple_of(4) {
        return Err(format!("Z85 encodes whole groups of four bytes; {} bytes are not", bytes.len()));
    }
    let mut out = String::with_capacity(bytes.len() / 4 * 5 + 9);
    if variant == Base85Variant::Adobe {
        out.push_str("<~");
    }
    for group in bytes.chunks(4) {
        let mut word = [0u8; 4];
        word[..group.len()].copy_from_slice(group);
        let value = u32::from_be_bytes(word);
        if variant.ascii85() && value == 0 && group.len() == 4 {
            out.push('z');
            continue;
        }
        let mut digits = [0u8; 5];
        let mut v = value;
        for d in digits.iter_mut().rev() {
            *d = variant.symbol(v % 85);
            v /= 85;
        }
        out.extend(digits[..group.len() + 1].iter().map(|&b| b as char));
    }
    if variant == Base85Variant::Adobe {
        out.push_str("~>");
    }
    Ok(out)
}

/// The bytes of Base85 `text` in `variant`, or why not, with positions in the caller's
/// characters (whitespace is skipped).
fn decode(text: &str, variant: Base85Variant) -> Result<Vec<u8>, String> {
    let mut chars: Vec<(usize, char)> = significant(text).collect();
    if variant == Base85Variant::Adobe {
        if chars.len() < 4 || chars[chars.len() - 2..].iter().map(|&(_, c)| c).ne(['~', '>']) {
            return Err("Adobe's Ascii85 ends with ~>".into());
        }
        chars.truncate(chars.len() - 2);
        if chars.len() >= 2 && chars[0].1 == '<' && chars[1].1 == '~' {
            chars.drain(..2);
        }
    }
    let mut out = Vec::with_capacity(chars.len() / 5 * 4 + 4);
    let mut group: Vec<(usize, u32)> = Vec::with_capacity(5);
    for &(at, c) in &chars {
        if variant.ascii85() && c == 'z' {
            if !group.is_empty() {
                return Err(format!("'z' at position {at} is inside a group of five"));
            }
            out.extend_from_slice(&[0; 4]);
            continue;
        }
        let digit = u8::try_from(c).ok().and_then(|b| variant.digit(b));
        let Some(digit) = digit else {
            return Err(format!("{c:?} at position {at} is not in the alphabet"));
        };
        group.push((at, digit));
        if group.len() == 5 {
            out.extend_from_slice(&word(&group, 5)?);
            group.clear();
        }
    }
    match group.len() {
        0 => {}
        1 => {
            return Err(format!(
                "the last group has one character, at position {}: two or more make a byte",
                group[0].0
            ));
        }
        n if variant == Base85Variant::Z85 => {
            return Err(format!("Z85 is whole groups of five characters; the last has {n}"));
        }
        n => {
            // A short last group stands for n - 1 bytes: pad it with the highest digit.
            let last_digit = 84;
            while group.len() < 5 {
                group.push((group[0].0, last_digit));
            }
            out.extend_from_slice(&word(&group, n)?[..n - 1]);
        }
    }
    Ok(out)
}

/// Four bytes from five digits; `kept` characters were the caller's (for the message).
fn word(group: &[(usize, u32)], kept: usize) -> Result<[u8; 4], String> {
    let value = group.iter().try_fold(0u32, |acc, &(_, d)| acc.checked_mul(85)?.checked_add(d));
    value.map(u32::to_be_bytes).ok_or_else(|| {
        format!("the group of {kept} characters at position {} is over 2^32 - 1, more than four bytes", group[0].0)
    })
}

#[derive(Debug, Deserialize, JsonSchema, Validate)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct Base85EncodeInput {
    /// What to encode: text (its UTF-8 bytes), or bytes written as `inputEncoding` says.
    text: String,
    /// How `text` carries its bytes: `utf-8` (the default), `hex`, `base64` or `base64url`.
    #[serde(default)]
    input_encoding: InputEncoding,
    /// The form: `ascii85` (the default), `adobe`, `z85` or `rfc1924`.
    #[serde(default = "ascii85")]
    variant: Base85Variant,
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct Base85EncodeOutput {
    /// The Base85 text.
    encoded: String,
    /// The form used.
    variant: Base85Variant,
}

/// Encode bytes as Base85.
///
/// Four bytes become five characters. `ascii85` (the default) is btoa's form, with `z` for four
/// zero bytes; `adobe` is the same between `<~` and `~>` (PostScript and PDF); `z85` is
/// ZeroMQ's, which takes whole groups of four bytes only; `rfc1924` is the alphabet of RFC 1924
/// as git's binary patches and Python's `b85encode` use it. A last group of one to three bytes
/// is written with one character more than it has bytes. Bytes that are not text are given in
/// hex or Base64 with `inputEncoding`.
#[op(post "/v1/base85/encode" as base85Encode, tag = TextAndData, pipe(text -> encoded),
     rejects = "`text` that is not in its `inputEncoding`, or a length that is not a multiple of four for Z85",
     example(typical, {"text": "Hello, World!"}),
     example(adobe, {"text": "Hello, World!", "variant": "adobe"}),
     example(z85_spec_vector, {"text": "864FD26FB559F75B", "inputEncoding": "hex", "variant": "z85"}),
     example(z85_partial, {"text": "abc", "variant": "z85"}, status = 400))]
async fn base85_encode(ctx: &Ctx, input: Base85EncodeInput) -> Result<Base85EncodeOutput, ApiError> {
    let bytes = byte_encoding::decode(&input.text, input.input_encoding, "text")?;
    // Five characters a group, which JSON may escape (`"` and `\` are in two alphabets).
    OutputBudget::new(ctx.config.response_limit).add(bytes.len().div_ceil(4) * 10 + 8)?;
    let encoded = encode(&bytes, input.variant).map_err(|e| ApiError::invalid("text", e))?;
    Ok(Base85EncodeOutput { encoded, variant: input.variant })
}

#[derive(Debug, Deserialize, JsonSchema, Validate)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct Base85DecodeInput {
    /// Base85 text; whitespace is ignored.
    encoded: String,
    /// The form: `ascii85` (the default), `adobe` (`<~` optional, `~>` required), `z85` or
    /// `rfc1924`.
    #[serde(default = "ascii85")]
    variant: Base85Variant,
    /// How to write the decoded bytes: `auto` (the default: text when they are UTF-8 text
    /// without control characters other than tab and line breaks, else standard Base64),
    /// `utf-8` (text, refused when they are not UTF-8), `hex`, `base64` or `base64url`.
    #[serde(default)]
    output_encoding: OutputEncoding,
}

/// Decode Base85 to bytes.
///
/// Reads the chosen form, ignoring whitespace: Ascii85 with `z` for four zero bytes, Adobe's
/// between `<~` (optional) and `~>`, Z85 in whole groups, or the RFC 1924 alphabet. A short
/// last group stands for one byte less than its characters. A character outside the alphabet,
/// a group worth more than four bytes or a lone last character is a 400 naming the position.
/// The bytes come back as text when they are text, else in the encoding the answer's
/// `outputEncoding` names.
#[op(post "/v1/base85/decode" as base85Decode, tag = TextAndData, pipe(encoded -> decoded),
     rejects = "a character outside the alphabet, a group over four bytes, or a lone last character, naming the position",
     example(typical, {"encoded": "87cURD]i,\"Ebo80"}),
     example(z85_as_hex, {"encoded": "HelloWorld", "variant": "z85", "outputEncoding": "hex"}),
     example(adobe, {"encoded": "<~87cURD]i,\"Ebo80~>", "variant": "adobe"}),
     example(over_four_bytes, {"encoded": "uuuuu"}, status = 400))]
async fn base85_decode(input: Base85DecodeInput) -> Result<Decoded, ApiError> {
    let bytes = decode(&input.encoded, input.variant)
        .map_err(|e| ApiError::invalid("encoded", format!("not valid Base85: {e}")))?;
    Decoded::of(&bytes, input.output_encoding)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Python's `base64.a85encode` (with and without `adobe`) and `b85encode`, and Z85 as the
    /// RFC 1924 alphabet's digits translated into ZeroMQ's, on random bytes
    /// (tests/fixtures/base_n.py).
    #[test]
    fn python_agrees() {
        let fixture = crate::testing::fixture("base_n.json");
        let cases = fixture["base85"].as_array().unwrap();
        assert!(cases.len() >= 10);
        for case in cases {
            let bytes = ::hex::decode(case["hex"].as_str().unwrap()).unwrap();
            for (name, variant) in [
                ("ascii85", Base85Variant::Ascii85),
                ("adobe", Base85Variant::Adobe),
                ("rfc1924", Base85Variant::Rfc1924),
                ("z85", Base85Variant::Z85),
            ] {
                let Some(want) = case[name].as_str() else { continue };
                assert_eq!(encode(&bytes, variant).unwrap(), want, "{name} of {}", case["hex"]);
                assert_eq!(decode(want, variant).unwrap(), bytes, "{name}");
            }
        }
    }

    /// ZeroMQ's Z85 specification (RFC 32) gives `86 4F D2 6F B5 59 F7 5B` as `HelloWorld`.
    #[test]
    fn z85_specification_vector() {
        let bytes = [0x86, 0x4F, 0xD2, 0x6F, 0xB5, 0x59, 0xF7, 0x5B];
        assert_eq!(encode(&bytes, Base85Variant::Z85).unwrap(), "HelloWorld");
        assert_eq!(decode("HelloWorld", Base85Variant::Z85).unwrap(), bytes);
    }

    #[test]
    fn errors_point() {
        assert!(decode("uuuuu", Base85Variant::Ascii85).unwrap_err().contains("over 2^32 - 1"));
        assert_eq!(decode("87c v", Base85Variant::Ascii85).unwrap_err(), "'v' at position 4 is not in the alphabet");
        assert!(decode("87cURD", Base85Variant::Ascii85).unwrap_err().contains("one character, at position 5"));
        assert!(decode("8z", Base85Variant::Ascii85).unwrap_err().contains("inside a group"));
        assert!(decode("<~87cUR", Base85Variant::Adobe).unwrap_err().contains("~>"));
        assert!(encode(b"abc", Base85Variant::Z85).is_err());
    }
}
