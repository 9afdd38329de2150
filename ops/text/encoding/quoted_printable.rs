//! Quoted-printable (RFC 2045 section 6.7, `quoted-printable/encode` and `/decode`), the mail
//! transfer encoding that keeps printable ASCII as it is and writes every other byte as `=`
//! and two hex digits, with lines of at most 76 characters joined by soft breaks (`=` at a
//! line's end). The encoder makes the choices Python's `quopri` (CPython's `binascii.b2a_qp`)
//! makes, so that the two agree byte for byte; its one departure is a carriage return that
//! ends no line, which it encodes (`=0D`) where `quopri` leaves it bare. `header` is the
//! variant of RFC 2047 section 4.2 for mail headers, where `_` stands for a space.

use wrench_contract::prelude::*;
use wrench_infra::bounds::OutputBudget;
use wrench_kit::byte_encoding::{self, InputEncoding, OutputEncoding};

use super::reading::Decoded;

/// The longest line the encoder writes, soft break included (RFC 2045 section 6.7, rule 5).
const MAX_LINE: usize = 76;

#[derive(Debug, Deserialize, JsonSchema, Validate)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct QpEncodeInput {
    /// What to encode: text (its UTF-8 bytes), or bytes written as `inputEncoding` says.
    text: String,
    /// How `text` carries its bytes: `utf-8` (the default), `hex`, `base64` or `base64url`.
    #[serde(default)]
    input_encoding: InputEncoding,
    /// Treat the bytes as binary: line breaks are encoded (`=0D=0A`) rather than kept as the
    /// text's line breaks.
    #[serde(default)]
    binary: bool,
    /// Encode every space and tab, not only those that end a line.
    #[serde(default)]
    quote_tabs: bool,
    /// The header variant (RFC 2047 section 4.2): spaces are written `_`, and `_` is encoded.
    #[serde(default)]
    header: bool,
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct QpEncodeOutput {
    /// The quoted-printable text.
    encoded: String,
}

/// How the encoder writes.
#[derive(Clone, Copy, Default)]
struct Style {
    binary: bool,
    quote_tabs: bool,
    header: bool,
}

/// Whether the byte at `i` is written as `=XX`.
fn escaped(data: &[u8], i: usize, line_len: usize, style: Style) -> bool {
    let b = data[i];
    let last = i + 1 == data.len();
    let next = data.get(i + 1).copied();
    b > 126
        || b == b'='
        || (style.header && b == b'_')
        // A lone `.` on a line ends a message in SMTP.
        || (b == b'.' && line_len == 0 && (last || matches!(next, Some(b'\n' | b'\r' | 0))))
        || (style.binary && (b == b'\r' || b == b'\n'))
        // A carriage return that starts no line break is a byte like any other control.
        || (!style.binary && b == b'\r' && next != Some(b'\n'))
        || ((b == b' ' || b == b'\t') && last)
        || (b < 33 && b != b'\r' && b != b'\n' && (style.quote_tabs || (b != b' ' && b != b'\t')))
}

/// The quoted-printable form of `data`. Line breaks keep the style of the first one (CRLF or
/// LF); soft breaks are written in it too.
fn encode(data: &[u8], style: Style) -> String {
    let crlf = data.iter().position(|&b| b == b'\n').is_some_and(|p| p > 0 && data[p - 1] == b'\r');
    let soft: &[u8] = if crlf { b"=\r\n" } else { b"=\n" };
    let hard: &[u8] = if crlf { b"\r\n" } else { b"\n" };
    let mut out: Vec<u8> = Vec::with_capacity(data.len() + data.len() / 2);
    let push_hex = |out: &mut Vec<u8>, b: u8| {
        const HEX: &[u8; 16] = b"0123456789ABCDEF";
        out.extend_from_slice(&[b'=', HEX[usize::from(b >> 4)], HEX[usize::from(b & 15)]]);
    };
    let (mut i, mut line_len) = (0, 0);
    while i < data.len() {
        let b = data[i];
        if escaped(data, i, line_len, style) {
            if line_len + 3 >= MAX_LINE {
                out.extend_from_slice(soft);
                line_len = 0;
            }
            push_hex(&mut out, b);
            line_len += 3;
            i += 1;
        } else if !style.binary && (b == b'\n' || (b == b'\r' && data.get(i + 1) == Some(&b'\n'))) {
            // Whitespace that ends a line would be taken for transport padding: encode it.
            if let Some(&last @ (b' ' | b'\t')) = out.last() {
                out.pop();
                push_hex(&mut out, last);
            }
            out.extend_from_slice(hard);
            line_len = 0;
            i += if b == b'\r' { 2 } else { 1 };
        } else {
            if i + 1 != data.len() && data[i + 1] != b'\n' && line_len + 1 >= MAX_LINE {
                out.extend_from_slice(soft);
                line_len = 0;
            }
            out.push(if style.header && b == b' ' { b'_' } else { b });
            line_len += 1;
            i += 1;
        }
    }
    // Only ASCII is ever written.
    String::from_utf8(out).unwrap_or_default()
}

/// Encode bytes as quoted-printable.
///
/// Printable ASCII stays as it is; `=`, other bytes and whitespace that ends a line are
/// written as `=` and two upper-case hex digits (RFC 2045 section 6.7), and lines longer than
/// 76 characters are split by soft breaks (`=` at the end of a line). Line breaks are kept, in
/// the style of the first one (CRLF or LF), unless `binary` encodes them. `quoteTabs` encodes
/// every space and tab; `header` writes spaces as `_` (RFC 2047). The same output as Python's
/// `quopri.encodestring`, except that a carriage return ending no line is encoded.
#[op(post "/v1/quoted-printable/encode" as quotedPrintableEncode, tag = TextAndData, pipe(text -> encoded),
     rejects = "`text` that is not in its `inputEncoding`",
     example(typical, {"text": "Grüße aus Köln = greetings from Cologne"}),
     example(header, {"text": "Café au lait_menu", "header": true}),
     example(binary, {"text": "00ff0d0a3d", "inputEncoding": "hex", "binary": true}),
     example(bad_hex, {"text": "0g", "inputEncoding": "hex"}, status = 400))]
async fn quoted_printable_encode(ctx: &Ctx, input: QpEncodeInput) -> Result<QpEncodeOutput, ApiError> {
    let bytes = byte_encoding::decode(&input.text, input.input_encoding, "text")?;
    // Three characters a byte at most, and a soft break (three more) per 73 of them.
    let most = bytes.len() * 3;
    OutputBudget::new(ctx.config.response_limit).add(most + most / 73 * 3 + 2)?;
    let style = Style { binary: input.binary, quote_tabs: input.quote_tabs, header: input.header };
    Ok(QpEncodeOutput { encoded: encode(&bytes, style) })
}

#[derive(Debug, Deserialize, JsonSchema, Validate)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct QpDecodeInput {
    /// Quoted-printable text. Soft breaks (`=` ending a line, optionally followed by spaces or
    /// tabs) join lines; other characters stand for their own UTF-8 bytes.
    encoded: String,
    /// The header variant (RFC 2047 section 4.2): `_` stands for a space.
    #[serde(default)]
    header: bool,
    /// How to write the decoded bytes: `auto` (the default: text when they are UTF-8 text
    /// without control characters other than tab and line breaks, else standard Base64),
    /// `utf-8` (text, refused when they are not UTF-8), `hex`, `base64` or `base64url`.
    #[serde(default)]
    output_encoding: OutputEncoding,
}

/// The bytes `text` stands for, or why not, with the position in the caller's characters.
fn decode(text: &str, header: bool) -> Result<Vec<u8>, String> {
    let data = text.as_bytes();
    let mut out = Vec::with_capacity(data.len());
    let mut i = 0;
    let position = |i: usize| text.get(..i).map_or(i, |s| s.chars().count());
    while i < data.len() {
        match data[i] {
            b'=' => {
                let hex = |b: Option<&u8>| b.and_then(|b| char::from(*b).to_digit(16));
                if let (Some(h), Some(l)) = (hex(data.get(i + 1)), hex(data.get(i + 2))) {
                    out.push((h * 16 + l) as u8);
                    i += 3;
                    continue;
                }
                // A soft break: `=`, perhaps transport padding, then the line's end.
                let mut j = i + 1;
                while matches!(data.get(j), Some(b' ' | b'\t')) {
                    j += 1;
                }
                match (data.get(j), data.get(j + 1)) {
                    (Some(b'\r'), Some(b'\n')) => i = j + 2,
                    (Some(b'\n'), _) => i = j + 1,
                    (None, _) => i = j,
                    _ => {
                        let shown: String = text[i..].chars().take(3).collect();
                        return Err(format!(
                            "{shown:?} at position {} is neither =XX with two hex digits nor a soft line break",
                            position(i)
                        ));
                    }
                }
            }
            b'_' if header => {
                out.push(b' ');
                i += 1;
            }
            b => {
                out.push(b);
                i += 1;
            }
        }
    }
    Ok(out)
}

/// Decode quoted-printable to bytes.
///
/// Reads `=XX` (either case) as the byte it names, drops soft breaks (`=` at a line's end,
/// also with spaces or tabs after it), keeps line breaks and every other character as its
/// UTF-8 bytes, and with `header` reads `_` as a space (RFC 2047). An `=` that starts neither
/// is a 400 naming its position. The bytes come back as text when they are text, else in the
/// encoding the answer's `outputEncoding` names.
#[op(post "/v1/quoted-printable/decode" as quotedPrintableDecode, tag = TextAndData, pipe(encoded -> decoded),
     rejects = "an `=` followed by neither two hex digits nor the end of the line, naming its position",
     example(typical, {"encoded": "Gr=C3=BC=C3=9Fe aus K=C3=B6ln =3D greetings from Cologne"}),
     example(soft_breaks, {"encoded": "a long line, =\r\nbroken softly"}),
     example(header, {"encoded": "Caf=C3=A9_au_lait", "header": true}),
     example(bytes, {"encoded": "=00=FF=0D=0A", "outputEncoding": "hex"}),
     example(bad_escape, {"encoded": "price =E2=82 = 5"}, status = 400))]
async fn quoted_printable_decode(input: QpDecodeInput) -> Result<Decoded, ApiError> {
    let bytes = decode(&input.encoded, input.header)
        .map_err(|e| ApiError::invalid("encoded", format!("not valid quoted-printable: {e}")))?;
    Decoded::of(&bytes, input.output_encoding)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rfc_2045_rules() {
        let text = |s: &str| encode(s.as_bytes(), Style::default());
        assert_eq!(text("a=b"), "a=3Db");
        assert_eq!(text("tab\tand space \nnext"), "tab\tand space=20\nnext", "trailing space is encoded");
        assert_eq!(text("ends with a tab\t"), "ends with a tab=09");
        assert_eq!(text("crlf \r\nline"), "crlf=20\r\nline");
        assert_eq!(text("é"), "=C3=A9");
        assert_eq!(text("lone\rcr"), "lone=0Dcr");
        assert_eq!(text(".\nlone dot"), "=2E\nlone dot");
        // 76 characters a line at most, soft break included.
        let long = "x".repeat(200);
        let encoded = text(&long);
        assert!(encoded.lines().all(|l| l.len() <= MAX_LINE), "{encoded}");
        assert_eq!(decode(&encoded, false).unwrap(), long.as_bytes());
        let binary = Style { binary: true, ..Style::default() };
        assert_eq!(encode(b"a\r\nb", binary), "a=0D=0Ab");
        let header = Style { header: true, ..Style::default() };
        assert_eq!(encode(b"a b_c", header), "a_b=5Fc");
    }

    #[test]
    fn decoding_reads_soft_breaks_and_points_at_errors() {
        assert_eq!(decode("a=\r\nb=  \nc=\n", false).unwrap(), b"abc");
        assert_eq!(decode("=e9=E9", false).unwrap(), [0xe9, 0xe9]);
        assert_eq!(decode("a_b", true).unwrap(), b"a b");
        assert_eq!(decode("a_b", false).unwrap(), b"a_b");
        let e = decode("é =G1", false).unwrap_err();
        assert!(e.contains("position 2"), "{e}");
        assert!(decode("=4", false).is_err());
    }
}
