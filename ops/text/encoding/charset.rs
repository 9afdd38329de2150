//! Text in legacy character sets (`charset/encode`, `charset/decode`, `charset/detect`): the
//! encodings of the WHATWG Encoding Standard by any of their labels (`latin1`, `sjis`,
//! `cp1251`...), as browsers read them (encoding_rs, Firefox's), plus UTF-16 in both byte
//! orders for writing, and a guess of an unknown text's encoding as Firefox guesses it
//! (chardetng).

use encoding_rs::{DecoderResult, Encoding, UTF_8, UTF_16BE, UTF_16LE};

use wrench_contract::prelude::*;
use wrench_kit::byte_encoding::{self, InputEncoding, OutputEncoding, UsedEncoding};

/// The encoding a label names, or a 400 listing what a label is.
fn lookup(label: &str) -> Result<&'static Encoding, ApiError> {
    Encoding::for_label_no_replacement(label.trim().as_bytes()).ok_or_else(|| {
        ApiError::invalid(
            "charset",
            format!(
                "{label:?} is not a label of the Encoding Standard (windows-1252, iso-8859-2, koi8-r, shift_jis, \
                 euc-jp, gb18030, big5, euc-kr, utf-16le, ... and their other names)"
            ),
        )
    })
}

#[derive(Debug, Deserialize, Serialize, JsonSchema, Validate, Clone, Copy, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
enum CharsetUnmappable {
    /// A character the charset cannot hold is a 400 naming its position.
    Error,
    /// It is written as an HTML numeric reference (`&#8364;`), as browsers submit forms.
    Html,
}

fn error() -> CharsetUnmappable {
    CharsetUnmappable::Error
}

#[derive(Debug, Deserialize, JsonSchema, Validate)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct CharsetEncodeInput {
    /// The text to write in the charset.
    text: String,
    /// The charset, by any label of the Encoding Standard (`windows-1252`, `latin1`,
    /// `shift_jis`, `gbk`, `koi8-r`, `utf-16le`...).
    #[schemars(length(min = 1, max = 64))]
    charset: String,
    /// What to do with a character the charset cannot hold: `error` (the default) or `html`.
    #[serde(default = "error")]
    unmappable: CharsetUnmappable,
    /// How to write the bytes: `auto` (the default: text when they are UTF-8 text without
    /// control characters other than tab and line breaks, else standard Base64), `utf-8`,
    /// `hex`, `base64` or `base64url`.
    #[serde(default)]
    output_encoding: OutputEncoding,
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct CharsetEncodeOutput {
    /// The bytes, written as `outputEncoding` says.
    output: String,
    /// How `output` is written: `utf-8`, `hex`, `base64` or `base64url`.
    output_encoding: UsedEncoding,
    /// The charset's canonical name.
    charset: &'static str,
    /// How many characters were written as HTML references (with `unmappable: html`).
    unmappable: usize,
}

/// `text` in `encoding`; the characters it cannot hold are counted, or refused.
fn encode(text: &str, encoding: &'static Encoding, unmappable: CharsetUnmappable) -> Result<(Vec<u8>, usize), String> {
    if encoding == UTF_16LE || encoding == UTF_16BE {
        let le = encoding == UTF_16LE;
        let bytes = text.encode_utf16().flat_map(|u| if le { u.to_le_bytes() } else { u.to_be_bytes() }).collect();
        return Ok((bytes, 0));
    }
    let mut encoder = encoding.new_encoder();
    let mut out = Vec::with_capacity(text.len() + 16);
    let (mut rest, mut count) = (text, 0);
    loop {
        let needed = encoder.max_buffer_length_from_utf8_without_replacement(rest.len()).unwrap_or(rest.len() * 4 + 16);
        out.reserve(needed);
        let (result, read) = encoder.encode_from_utf8_to_vec_without_replacement(rest, &mut out, true);
        match result {
            encoding_rs::EncoderResult::InputEmpty => return Ok((out, count)),
            encoding_rs::EncoderResult::OutputFull => {}
            encoding_rs::EncoderResult::Unmappable(c) => {
                if unmappable == CharsetUnmappable::Error {
                    let at = text[..text.len() - rest.len() + read].chars().count() - 1;
                    return Err(format!("{c:?} at position {at} has no code in {}", encoding.name()));
                }
                out.extend_from_slice(format!("&#{};", c as u32).as_bytes());
                count += 1;
            }
        }
        rest = &rest[read..];
    }
}

/// Write text in a legacy charset.
///
/// Encodes `text` in the charset named by any label of the WHATWG Encoding Standard, as
/// browsers do (so `latin1` and `iso-8859-1` name windows-1252, and `shift_jis` is Windows'
/// variant), and in UTF-16LE or UTF-16BE without a byte order mark. A character the charset
/// cannot hold is a 400 naming its position, or with `unmappable: html` an HTML numeric
/// reference, as a browser submits it in a form. The bytes come back in the encoding
/// `outputEncoding` names (Base64 for anything that is not UTF-8 text).
#[op(post "/v1/charset/encode" as charsetEncode, tag = TextAndData, pipe(text -> output),
     rejects = "a label that is not the Encoding Standard's, or a character the charset cannot hold",
     example(latin1_as_hex, {"text": "café €5", "charset": "latin1", "outputEncoding": "hex"}),
     example(shift_jis, {"text": "日本語", "charset": "shift_jis"}),
     example(unmappable_html, {"text": "€ and ☕", "charset": "iso-8859-2", "unmappable": "html"}),
     example(unmappable, {"text": "☕", "charset": "koi8-r"}, status = 400))]
async fn charset_encode(input: CharsetEncodeInput) -> Result<CharsetEncodeOutput, ApiError> {
    let encoding = lookup(&input.charset)?;
    let (bytes, count) = encode(&input.text, encoding, input.unmappable).map_err(|e| ApiError::invalid("text", e))?;
    let (output, output_encoding) = byte_encoding::encode(&bytes, input.output_encoding, "outputEncoding")?;
    Ok(CharsetEncodeOutput { output, output_encoding, charset: encoding.name(), unmappable: count })
}

#[derive(Debug, Deserialize, JsonSchema, Validate)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct CharsetDecodeInput {
    /// The bytes, written as `inputEncoding` says (hex or Base64 for anything but UTF-8).
    input: String,
    /// How `input` carries its bytes: `utf-8` (the default), `hex`, `base64` or `base64url`.
    #[serde(default)]
    input_encoding: InputEncoding,
    /// The charset, by any label of the Encoding Standard.
    #[schemars(length(min = 1, max = 64))]
    charset: String,
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct CharsetDecodeOutput {
    /// The text.
    text: String,
    /// The charset's canonical name.
    charset: &'static str,
    /// How many malformed byte sequences were read as U+FFFD.
    replacements: usize,
}

/// `bytes` read in `encoding`, malformed sequences as U+FFFD (counted). No byte order mark
/// is looked for: the caller named the charset.
fn decode(bytes: &[u8], encoding: &'static Encoding) -> (String, usize) {
    let mut decoder = encoding.new_decoder_without_bom_handling();
    let mut out = String::with_capacity(decoder.max_utf8_buffer_length(bytes.len()).unwrap_or(bytes.len() * 3));
    let (mut rest, mut count) = (bytes, 0);
    loop {
        let (result, read) = decoder.decode_to_string_without_replacement(rest, &mut out, true);
        rest = &rest[read..];
        match result {
            DecoderResult::InputEmpty => return (out, count),
            DecoderResult::OutputFull => out.reserve(rest.len() * 3 + 16),
            DecoderResult::Malformed(_, _) => {
                out.push('\u{FFFD}');
                count += 1;
            }
        }
    }
}

/// Read bytes in a legacy charset.
///
/// Decodes the bytes as browsers do in the charset named by any label of the WHATWG Encoding
/// Standard (UTF-16 in either byte order too). A byte sequence that is not valid in the charset
/// becomes U+FFFD, and `replacements` counts them, so a wrong guess of charset shows.
#[op(post "/v1/charset/decode" as charsetDecode, tag = TextAndData, pipe(input -> text),
     rejects = "`input` that is not in its `inputEncoding`, or a label that is not the Encoding Standard's",
     example(windows_1252, {"input": "636166e920803520", "inputEncoding": "hex", "charset": "windows-1252"}),
     example(koi8_r, {"input": "f0d2c9d7c5d4", "inputEncoding": "hex", "charset": "koi8-r"}),
     example(malformed_utf8, {"input": "6f6bff", "inputEncoding": "hex", "charset": "utf-8"}),
     example(unknown_label, {"input": "x", "charset": "klingon"}, status = 400))]
async fn charset_decode(input: CharsetDecodeInput) -> Result<CharsetDecodeOutput, ApiError> {
    let encoding = lookup(&input.charset)?;
    let bytes = byte_encoding::decode(&input.input, input.input_encoding, "input")?;
    let (text, replacements) = decode(&bytes, encoding);
    Ok(CharsetDecodeOutput { text, charset: encoding.name(), replacements })
}

#[derive(Debug, Deserialize, JsonSchema, Validate)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct CharsetDetectInput {
    /// The bytes, written as `inputEncoding` says (hex or Base64 for anything but UTF-8).
    input: String,
    /// How `input` carries its bytes: `utf-8` (the default), `hex`, `base64` or `base64url`.
    #[serde(default)]
    input_encoding: InputEncoding,
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct CharsetDetectOutput {
    /// The likeliest charset's canonical name.
    charset: &'static str,
    /// How the charset was found: `bom` (a byte order mark says it), `valid-utf-8` (the bytes
    /// are UTF-8 and hold something beyond ASCII), `ascii` (nothing beyond ASCII: any
    /// ASCII-compatible charset reads it alike), or `guess` (statistics of the bytes).
    method: &'static str,
    /// Whether the guess is a confident one (always true but for `guess`).
    confident: bool,
    /// The text read in that charset.
    text: String,
}

/// Guess the charset of bytes.
///
/// A byte order mark decides first (UTF-8, UTF-16LE, UTF-16BE); then bytes that are valid UTF-8
/// with something beyond ASCII are UTF-8; then bytes that are all ASCII are reported as such
/// (windows-1252 reads them, as any ASCII-compatible charset would); otherwise the guess is the
/// one Firefox makes for a page without a declared charset (chardetng), with whether it is
/// confident. Longer samples guess better; a few bytes can fit several charsets. The text read
/// in the charset found comes back too.
#[op(post "/v1/charset/detect" as charsetDetect, tag = TextAndData, pipe(input -> text),
     rejects = "`input` that is not in its `inputEncoding`",
     example(shift_jis, {"input": "93fa967b8cea82cc8365834c8358836782c582b7814282b182ea82cd93fa967b8cea82c58f9182a982ea82bd95b68fcd82c582b78142", "inputEncoding": "hex"}),
     example(utf8, {"input": "déjà vu"}),
     example(bom, {"input": "fffe680069002100", "inputEncoding": "hex"}))]
async fn charset_detect(input: CharsetDetectInput) -> Result<CharsetDetectOutput, ApiError> {
    let bytes = byte_encoding::decode(&input.input, input.input_encoding, "input")?;
    let (encoding, method, confident, body) = if let Some((encoding, bom)) = Encoding::for_bom(&bytes) {
        (encoding, "bom", true, &bytes[bom..])
    } else if bytes.is_ascii() {
        (encoding_rs::WINDOWS_1252, "ascii", true, &bytes[..])
    } else if std::str::from_utf8(&bytes).is_ok() {
        (UTF_8, "valid-utf-8", true, &bytes[..])
    } else {
        let mut detector = chardetng::EncodingDetector::new();
        detector.feed(&bytes, true);
        let (encoding, confident) = detector.guess_assess(None, false);
        (encoding, "guess", confident, &bytes[..])
    };
    let (text, _) = decode(body, encoding);
    Ok(CharsetDetectOutput { charset: encoding.name(), method, confident, text })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Python's codecs (and Debian's iconv, which the script checks against them) encode and
    /// decode the same texts in twelve charsets; for each long sample charset-normalizer named
    /// rightly, the guess here reads it as its charset does (tests/fixtures/charsets.py).
    #[test]
    fn python_and_iconv_agree() {
        let fixture = crate::testing::fixture("charsets.json");
        let cases = fixture["codecs"].as_array().unwrap();
        assert!(cases.len() >= 20);
        for case in cases {
            let label = case["label"].as_str().unwrap();
            let text = case["text"].as_str().unwrap();
            let encoding = lookup(label).unwrap();
            let want = case["hex"].as_str().map(|h| ::hex::decode(h).unwrap());
            let got = encode(text, encoding, CharsetUnmappable::Error).ok().map(|(b, _)| b);
            if case["standard_writes"] == false {
                // EUC-JP's JIS X 0212: read, never written (see the script).
                assert_eq!(got, None, "{label} {text:?}");
            } else {
                assert_eq!(got, want, "{label} {text:?}");
            }
            if let Some(bytes) = want {
                assert_eq!(decode(&bytes, encoding), (text.to_string(), 0), "{label}");
            }
        }
        for case in fixture["detect"].as_array().unwrap() {
            let bytes = ::hex::decode(case["hex"].as_str().unwrap()).unwrap();
            let mut detector = chardetng::EncodingDetector::new();
            detector.feed(&bytes, true);
            let (guess, _) = detector.guess_assess(None, false);
            // The guess must read the sample as its charset does (KOI8-U reads Russian as KOI8-R).
            let truth = lookup(case["charset"].as_str().unwrap()).unwrap();
            assert_eq!(decode(&bytes, guess), decode(&bytes, truth), "{} guessed {}", case["sample"], guess.name());
        }
    }

    #[test]
    fn malformed_bytes_are_counted_and_unmappable_characters_located() {
        assert_eq!(decode(b"ok\xff\xfe!", UTF_8), ("ok\u{FFFD}\u{FFFD}!".to_string(), 2));
        let e = encode("ab☕", lookup("koi8-r").unwrap(), CharsetUnmappable::Error).unwrap_err();
        assert_eq!(e, "'☕' at position 2 has no code in KOI8-R");
        let (bytes, n) = encode("€☕", lookup("latin1").unwrap(), CharsetUnmappable::Html).unwrap();
        assert_eq!((bytes, n), (b"\x80&#9749;".to_vec(), 1));
    }
}
