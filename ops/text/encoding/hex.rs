//! Bytes as hexadecimal text and back (`hex/encode`, `hex/decode`), in the shapes people paste:
//! plain (`48656c6c6f`), separated (`48:65:6c`), prefixed (`0x48, 0x65`, `\x48\x65`, `%48%65`)
//! and wrapped into lines (`xxd -p`).

use wrench_contract::prelude::*;
use wrench_infra::bounds::OutputBudget;
use wrench_kit::byte_encoding::{self, InputEncoding, OutputEncoding};

use super::reading::Decoded;

#[derive(Debug, Deserialize, JsonSchema, Validate)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct HexEncodeInput {
    /// What to encode: text (its UTF-8 bytes), or bytes written as `inputEncoding` says.
    text: String,
    /// How `text` carries its bytes: `utf-8` (the default), `hex`, `base64` or `base64url`.
    #[serde(default)]
    input_encoding: InputEncoding,
    /// Written between two bytes of a line: nothing by default; ` `, `:`, `, ` and the like.
    #[serde(default)]
    #[schemars(length(max = 16))]
    delimiter: String,
    /// Written before every byte: nothing by default; `0x`, `\x` or `%`, for instance.
    #[serde(default)]
    #[schemars(length(max = 8))]
    prefix: String,
    /// Upper-case digits (`A`-`F`) instead of lower-case.
    #[serde(default)]
    uppercase: bool,
    /// Bytes per line; lines end with a line feed. 0 (the default) writes one line; 30 is what
    /// `xxd -p` writes.
    #[serde(default)]
    #[schemars(range(min = 0, max = 65536))]
    bytes_per_line: u32,
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct HexEncodeOutput {
    /// The bytes in hexadecimal.
    encoded: String,
    /// How many bytes were encoded.
    bytes: usize,
}

/// `bytes` as hex, each byte `prefix` and two digits, `delimiter` between bytes of a line.
fn write_hex(bytes: &[u8], delimiter: &str, prefix: &str, uppercase: bool, per_line: usize) -> String {
    if delimiter.is_empty() && prefix.is_empty() && per_line == 0 {
        return if uppercase { ::hex::encode_upper(bytes) } else { ::hex::encode(bytes) };
    }
    let digits: &[u8; 16] = if uppercase { b"0123456789ABCDEF" } else { b"0123456789abcdef" };
    let mut out = String::with_capacity(bytes.len() * (2 + prefix.len() + delimiter.len()));
    for (i, &b) in bytes.iter().enumerate() {
        if i > 0 {
            if per_line > 0 && i % per_line == 0 {
                out.push('\n');
            } else {
                out.push_str(delimiter);
            }
        }
        out.push_str(prefix);
        out.push(digits[usize::from(b >> 4)] as char);
        out.push(digits[usize::from(b & 15)] as char);
    }
    out
}

/// Encode bytes as hexadecimal.
///
/// Writes each byte as two hex digits (lower-case unless `uppercase`), with an optional
/// `prefix` before every byte (`0x`, `\x`, `%`) and `delimiter` between bytes (` `, `:`,
/// `, `), wrapped at `bytesPerLine` bytes when it is not 0 (`xxd -p` wraps at 30). Bytes that
/// are not text are given in hex or Base64 with `inputEncoding`. An answer that would pass the
/// response limit is refused before it is built.
#[op(post "/v1/hex/encode" as hexEncode, tag = TextAndData, pipe(text -> encoded),
     rejects = "`text` that is not in its `inputEncoding`, naming the position",
     example(typical, {"text": "Hello"}),
     example(colon_upper, {"text": "Hello", "delimiter": ":", "uppercase": true}),
     example(c_array, {"text": "00ff7f", "inputEncoding": "hex", "prefix": "0x", "delimiter": ", "}),
     example(bad_base64, {"text": "not base64!", "inputEncoding": "base64"}, status = 400))]
async fn hex_encode(ctx: &Ctx, input: HexEncodeInput) -> Result<HexEncodeOutput, ApiError> {
    let bytes = byte_encoding::decode(&input.text, input.input_encoding, "text")?;
    let per_line = input.bytes_per_line as usize;
    // Count the answer before writing it: a prefix and a delimiter multiply the input.
    let escaped = |s: &str| s.bytes().map(wrench_infra::bounds::json_escaped_byte_len).sum::<usize>();
    let gaps = bytes.len().saturating_sub(1);
    let mut budget = OutputBudget::new(ctx.config.response_limit);
    budget.add(bytes.len().saturating_mul(2 + escaped(&input.prefix)))?;
    budget.add(gaps.saturating_mul(escaped(&input.delimiter).max(2)))?;
    let encoded = write_hex(&bytes, &input.delimiter, &input.prefix, input.uppercase, per_line);
    Ok(HexEncodeOutput { encoded, bytes: bytes.len() })
}

#[derive(Debug, Deserialize, JsonSchema, Validate)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct HexDecodeInput {
    /// Hexadecimal text: pairs of digits of either case, optionally each after `0x`, `\x` or
    /// `%`, optionally separated by whitespace, `:`, `,`, `;`, `-` or `.`.
    encoded: String,
    /// How to write the decoded bytes: `auto` (the default: text when they are UTF-8 text
    /// without control characters other than tab and line breaks, else standard Base64),
    /// `utf-8` (text, refused when they are not UTF-8), `hex`, `base64` or `base64url`.
    #[serde(default)]
    output_encoding: OutputEncoding,
}

/// The bytes hexadecimal text stands for, or why not, with the position (in characters) of
/// the first character at fault. Separators split the text into runs of digits; each run must
/// be whole bytes, so `0x1` is refused rather than guessed at.
fn read_hex(text: &str) -> Result<Vec<u8>, String> {
    let chars: Vec<char> = text.chars().collect();
    let mut out = Vec::with_capacity(chars.len() / 2);
    let (mut i, mut run_start, mut pending) = (0, 0, None::<u8>);
    let end_run = |pending: Option<u8>, start: usize| match pending {
        Some(_) => Err(format!("the digits starting at position {start} are an odd number: two digits make a byte")),
        None => Ok(()),
    };
    while i < chars.len() {
        let c = chars[i];
        let next = chars.get(i + 1).copied();
        let prefix_len = match (c, next) {
            ('0', Some('x' | 'X')) | ('\\', Some('x' | 'X')) => 2,
            ('%', _) => 1,
            _ => 0,
        };
        if prefix_len > 0 || c.is_ascii_whitespace() || matches!(c, ':' | ',' | ';' | '-' | '.') {
            end_run(pending.take(), run_start)?;
            i += prefix_len.max(1);
            run_start = i;
            continue;
        }
        let Some(d) = c.to_digit(16) else {
            return Err(format!("{c:?} at position {i} is not a hexadecimal digit"));
        };
        match pending.take() {
            Some(high) => out.push(high << 4 | d as u8),
            None => pending = Some(d as u8),
        }
        i += 1;
    }
    end_run(pending, run_start)?;
    Ok(out)
}

/// Decode hexadecimal to bytes.
///
/// Reads pairs of hex digits of either case, skipping what people put between them: ASCII
/// whitespace and line breaks (so `xxd -p` output decodes), `:`, `,`, `;`, `-` and `.`, and a
/// `0x`, `\x` or `%` before a byte. A run of digits between separators must be whole bytes (an
/// even number of digits). The bytes come back as text when they are text, else in the
/// encoding the answer's `outputEncoding` names (Base64 unless another is asked for).
#[op(post "/v1/hex/decode" as hexDecode, tag = TextAndData, pipe(encoded -> decoded),
     rejects = "a character that is not a hex digit or separator, or an odd run of digits, naming the position; bytes that are not UTF-8 when `outputEncoding` is `utf-8`",
     example(typical, {"encoded": "48656c6c6f"}),
     example(c_array_as_hex, {"encoded": "0x00, 0xFF, 0x7f", "outputEncoding": "hex"}),
     example(binary_auto, {"encoded": "de:ad:be:ef"}),
     example(odd_digits, {"encoded": "0x1"}, status = 400))]
async fn hex_decode(input: HexDecodeInput) -> Result<Decoded, ApiError> {
    let bytes = read_hex(&input.encoded).map_err(|e| ApiError::invalid("encoded", format!("not valid hex: {e}")))?;
    Decoded::of(&bytes, input.output_encoding)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Python's `bytes.hex`, `bytes.fromhex` and Debian's `xxd -p` on the same bytes
    /// (tests/fixtures/hex_dumps.py).
    #[test]
    fn python_and_xxd_agree() {
        let fixture = crate::testing::fixture("hex_dumps.json");
        let cases = fixture["hex"].as_array().unwrap();
        assert!(cases.len() >= 10);
        for case in cases {
            let s = |k: &str| case[k].as_str().unwrap().to_string();
            let bytes = ::hex::decode(s("hex")).unwrap();
            assert_eq!(write_hex(&bytes, "", "", false, 0), s("hex"));
            assert_eq!(write_hex(&bytes, ":", "", false, 0), s("colon"));
            assert_eq!(write_hex(&bytes, " ", "", true, 0), s("spaced_upper"));
            assert_eq!(write_hex(&bytes, "", "\\x", false, 0), s("escaped"));
            assert_eq!(write_hex(&bytes, "", "", false, 30), s("xxd_p").trim_end_matches('\n'));
            for form in ["colon", "spaced_upper", "escaped", "xxd_p"] {
                assert_eq!(read_hex(&s(form)).unwrap(), bytes, "{form} of {}", s("hex"));
            }
        }
    }

    #[test]
    fn errors_point_at_the_fault() {
        assert_eq!(
            read_hex("0x00, 0x1").unwrap_err(),
            "the digits starting at position 8 are an odd number: two digits make a byte"
        );
        assert_eq!(read_hex("ab cg").unwrap_err(), "'g' at position 4 is not a hexadecimal digit");
        assert_eq!(read_hex("é").unwrap_err(), "'é' at position 0 is not a hexadecimal digit");
        assert_eq!(read_hex("%41%42").unwrap(), b"AB");
        assert_eq!(read_hex("").unwrap(), b"");
    }
}
