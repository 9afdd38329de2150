//! Base32 in its four common alphabets (`base32/encode`, `base32/decode`): RFC 4648's
//! standard (section 6) and extended-hex (section 7) alphabets, Crockford's (no `I L O U`,
//! read forgivingly) and z-base-32 (made for humans and QR codes). All four read bytes five
//! bits at a time, high bit first; only the RFC 4648 alphabets pad with `=`.

use std::sync::LazyLock;

use data_encoding::{DecodeKind, Encoding, Specification};

use wrench_contract::prelude::*;
use wrench_infra::bounds::OutputBudget;
use wrench_kit::byte_encoding::{self, InputEncoding, OutputEncoding};

use super::reading::{Decoded, significant};

#[derive(Debug, Deserialize, Serialize, JsonSchema, Validate, Clone, Copy, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
enum Base32Variant {
    /// RFC 4648 section 6: `A`-`Z`, `2`-`7`.
    Rfc4648,
    /// RFC 4648 section 7, extended hex: `0`-`9`, `A`-`V` (sorts as the bytes do).
    Base32hex,
    /// Crockford's: `0`-`9` and letters without `I L O U`; decoding reads either case, `O`
    /// as `0`, `I` and `L` as `1`, and skips hyphens.
    Crockford,
    /// z-base-32: `ybndrfg8ejkmcpqxot1uwisza345h769`, lower-case.
    #[serde(rename = "z-base-32")]
    ZBase32,
}

fn rfc4648() -> Base32Variant {
    Base32Variant::Rfc4648
}

/// An unpadded alphabet, with the characters decoding translates and those it skips.
fn spec(symbols: &str, translate: (&str, &str), ignore: &str) -> Encoding {
    let mut spec = Specification::new();
    spec.symbols.push_str(symbols);
    spec.translate.from.push_str(translate.0);
    spec.translate.to.push_str(translate.1);
    spec.ignore.push_str(ignore);
    spec.encoding().expect("a valid Base32 alphabet")
}

static STANDARD: LazyLock<Encoding> = LazyLock::new(|| data_encoding::BASE32_NOPAD.clone());
static EXTENDED_HEX: LazyLock<Encoding> = LazyLock::new(|| data_encoding::BASE32HEX_NOPAD.clone());
static CROCKFORD: LazyLock<Encoding> = LazyLock::new(|| {
    spec("0123456789ABCDEFGHJKMNPQRSTVWXYZ", ("abcdefghjkmnpqrstvwxyzoOiIlL", "ABCDEFGHJKMNPQRSTVWXYZ001111"), "-")
});
static Z_BASE_32: LazyLock<Encoding> = LazyLock::new(|| {
    spec("ybndrfg8ejkmcpqxot1uwisza345h769", ("YBNDRFGEJKMCPQXOTUWISZAH", "ybndrfgejkmcpqxotuwiszah"), "")
});

impl Base32Variant {
    /// The unpadded encoding of the variant (padding is added or checked apart).
    fn encoding(self) -> &'static Encoding {
        match self {
            Base32Variant::Rfc4648 => &STANDARD,
            Base32Variant::Base32hex => &EXTENDED_HEX,
            Base32Variant::Crockford => &CROCKFORD,
            Base32Variant::ZBase32 => &Z_BASE_32,
        }
    }

    fn pads(self) -> bool {
        matches!(self, Base32Variant::Rfc4648 | Base32Variant::Base32hex)
    }
}

#[derive(Debug, Deserialize, JsonSchema, Validate)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct Base32EncodeInput {
    /// What to encode: text (its UTF-8 bytes), or bytes written as `inputEncoding` says.
    text: String,
    /// How `text` carries its bytes: `utf-8` (the default), `hex`, `base64` or `base64url`.
    #[serde(default)]
    input_encoding: InputEncoding,
    /// The alphabet: `rfc4648` (the default), `base32hex`, `crockford` or `z-base-32`.
    #[serde(default = "rfc4648")]
    variant: Base32Variant,
    /// Pad with `=` to a multiple of eight characters. The RFC 4648 alphabets pad by default;
    /// Crockford's and z-base-32 have no padding, and `true` is refused for them.
    #[serde(default)]
    padding: Option<bool>,
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct Base32EncodeOutput {
    /// The Base32 text.
    encoded: String,
    /// The alphabet used.
    variant: Base32Variant,
}

/// `=` to a multiple of eight characters.
fn pad(mut text: String) -> String {
    let more = (8 - text.len() % 8) % 8;
    text.extend(std::iter::repeat_n('=', more));
    text
}

/// Encode bytes as Base32.
///
/// Five bits a character, high bit first, in RFC 4648's standard alphabet (the default), its
/// extended-hex alphabet (`base32hex`, which sorts as the bytes do), Crockford's or
/// z-base-32. The RFC 4648 alphabets pad with `=` to a multiple of eight characters unless
/// `padding` is false. Crockford's alphabet is applied to bytes here, five bits at a time, as
/// RFC 4648 does (not to one big number, as its check-symbol form for integers does). Bytes
/// that are not text are given in hex or Base64 with `inputEncoding`.
#[op(post "/v1/base32/encode" as base32Encode, tag = TextAndData, pipe(text -> encoded),
     rejects = "`text` that is not in its `inputEncoding`, or `padding: true` for an alphabet without padding",
     example(typical, {"text": "foobar"}),
     example(base32hex_unpadded, {"text": "foobar", "variant": "base32hex", "padding": false}),
     example(crockford_bytes, {"text": "00ff10fe", "inputEncoding": "hex", "variant": "crockford"}),
     example(z_base_32, {"text": "hello", "variant": "z-base-32"}),
     example(crockford_padded, {"text": "x", "variant": "crockford", "padding": true}, status = 400))]
async fn base32_encode(ctx: &Ctx, input: Base32EncodeInput) -> Result<Base32EncodeOutput, ApiError> {
    let padded = match (input.padding, input.variant.pads()) {
        (Some(true), false) => {
            return Err(ApiError::invalid(
                "padding",
                "this alphabet has no padding: leave padding out or set it false",
            ));
        }
        (Some(p), _) => p,
        (None, pads) => pads,
    };
    let bytes = byte_encoding::decode(&input.text, input.input_encoding, "text")?;
    OutputBudget::new(ctx.config.response_limit).add(bytes.len().div_ceil(5) * 8 + 2)?;
    let encoded = input.variant.encoding().encode(&bytes);
    Ok(Base32EncodeOutput { encoded: if padded { pad(encoded) } else { encoded }, variant: input.variant })
}

#[derive(Debug, Deserialize, JsonSchema, Validate)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct Base32DecodeInput {
    /// Base32 text. Padding is optional; whitespace is ignored (and, for Crockford's alphabet,
    /// hyphens).
    encoded: String,
    /// The alphabet: `rfc4648` (the default), `base32hex`, `crockford` or `z-base-32`.
    #[serde(default = "rfc4648")]
    variant: Base32Variant,
    /// How to write the decoded bytes: `auto` (the default: text when they are UTF-8 text
    /// without control characters other than tab and line breaks, else standard Base64),
    /// `utf-8` (text, refused when they are not UTF-8), `hex`, `base64` or `base64url`.
    #[serde(default)]
    output_encoding: OutputEncoding,
}

/// The bytes of Base32 `text` in `variant`, or why not, with positions in the caller's
/// characters.
fn read(text: &str, variant: Base32Variant) -> Result<Vec<u8>, String> {
    let (kept, positions): (String, Vec<usize>) = significant(text).map(|(i, c)| (c, i)).unzip();
    let body = if variant.pads() { kept.trim_end_matches('=') } else { kept.as_str() };
    let padding = kept.len() - body.len();
    if padding > 0 && (kept.len() % 8 != 0 || padding > 6) {
        return Err(format!("the {padding} = of padding do not fill the last group of eight characters"));
    }
    variant.encoding().decode(body.as_bytes()).map_err(|e| {
        let at = body.get(..e.position).map_or(0, |s| s.chars().count());
        let where_ = positions.get(at).copied().unwrap_or(text.chars().count());
        let c = body.chars().nth(at).unwrap_or(' ');
        match e.kind {
            DecodeKind::Symbol | DecodeKind::Padding => {
                format!("{c:?} at position {where_} is not in the alphabet")
            }
            DecodeKind::Length => {
                format!("{} characters cannot be a whole number of bytes (one is missing or extra)", body.len())
            }
            DecodeKind::Trailing => {
                format!("the last character, at position {where_}, has bits set that encode nothing")
            }
        }
    })
}

/// Decode Base32 to bytes.
///
/// Reads the alphabet named by `variant`, with or without `=` padding, ignoring whitespace
/// (Crockford's alphabet also skips hyphens and reads either case, `O` as `0` and `I`, `L` as
/// `1`; z-base-32 reads either case). A character outside the alphabet, a length that is not
/// whole bytes, or unused bits that are set are 400s naming the position. The bytes come back
/// as text when they are text, else in the encoding the answer's `outputEncoding` names.
#[op(post "/v1/base32/decode" as base32Decode, tag = TextAndData, pipe(encoded -> decoded),
     rejects = "a character outside the alphabet, a length that is not whole bytes, or misplaced padding, naming the position",
     example(typical, {"encoded": "MZXW6YTBOI======"}),
     example(crockford_forgiving, {"encoded": "01ZH-0ZG", "variant": "crockford", "outputEncoding": "hex"}),
     example(z_base_32, {"encoded": "pb1sa5dx", "variant": "z-base-32"}),
     example(wrong_alphabet, {"encoded": "MZXW1", "variant": "rfc4648"}, status = 400))]
async fn base32_decode(input: Base32DecodeInput) -> Result<Decoded, ApiError> {
    let bytes = read(&input.encoded, input.variant)
        .map_err(|e| ApiError::invalid("encoded", format!("not valid Base32: {e}")))?;
    Decoded::of(&bytes, input.output_encoding)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// RFC 4648 section 10's vectors, in both RFC alphabets, padded and not.
    #[test]
    fn rfc_4648_vectors() {
        let cases = [
            ("", "", ""),
            ("f", "MY======", "CO======"),
            ("fo", "MZXQ====", "CPNG===="),
            ("foo", "MZXW6===", "CPNMU==="),
            ("foob", "MZXW6YQ=", "CPNMUOG="),
            ("fooba", "MZXW6YTB", "CPNMUOJ1"),
            ("foobar", "MZXW6YTBOI======", "CPNMUOJ1E8======"),
        ];
        for (plain, standard, hex) in cases {
            for (variant, want) in [(Base32Variant::Rfc4648, standard), (Base32Variant::Base32hex, hex)] {
                assert_eq!(pad(variant.encoding().encode(plain.as_bytes())), want);
                assert_eq!(read(want, variant).unwrap(), plain.as_bytes());
                assert_eq!(read(want.trim_end_matches('='), variant).unwrap(), plain.as_bytes());
            }
        }
    }

    /// Python's `base64.b32encode` and `b32hexencode`, and those strings translated into
    /// Crockford's and z-base-32's alphabets, on random bytes (tests/fixtures/base_n.py).
    #[test]
    fn python_agrees() {
        let fixture = crate::testing::fixture("base_n.json");
        let cases = fixture["base32"].as_array().unwrap();
        assert!(cases.len() >= 10);
        for case in cases {
            let bytes = ::hex::decode(case["hex"].as_str().unwrap()).unwrap();
            for (name, variant, padded) in [
                ("rfc4648", Base32Variant::Rfc4648, true),
                ("base32hex", Base32Variant::Base32hex, true),
                ("crockford", Base32Variant::Crockford, false),
                ("z-base-32", Base32Variant::ZBase32, false),
            ] {
                let want = case[name].as_str().unwrap();
                let got = variant.encoding().encode(&bytes);
                assert_eq!(if padded { pad(got) } else { got }, want, "{name}");
                assert_eq!(read(want, variant).unwrap(), bytes, "{name}");
            }
        }
    }

    #[test]
    fn crockford_reads_forgivingly_and_errors_point() {
        let exact = read("01ZH0ZG", Base32Variant::Crockford).unwrap();
        assert_eq!(read("oIzh-0zg", Base32Variant::Crockford).unwrap(), exact);
        assert_eq!(read("MZ XW\n1", Base32Variant::Rfc4648).unwrap_err(), "'1' at position 6 is not in the alphabet");
        assert!(read("MZX", Base32Variant::Rfc4648).unwrap_err().contains("3 characters"));
        assert!(
            read("MZ======", Base32Variant::Rfc4648).unwrap_err().contains("bits set"),
            "Z's low bits encode nothing"
        );
        assert!(read("MY=====", Base32Variant::Rfc4648).unwrap_err().contains("padding"));
    }
}
