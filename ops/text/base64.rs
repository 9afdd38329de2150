//! Base64 in both directions, standard (RFC 4648 section 4) and URL-safe (section 5), on the
//! byte convention (`wrench_kit::byte_encoding`): any bytes go in, through `inputEncoding`, and
//! come out, through `outputEncoding`, without loss.

use base64::{Engine, engine::GeneralPurpose};

use wrench_contract::prelude::*;
use wrench_kit::byte_encoding::{self, Base64Fault, InputEncoding, OutputEncoding, UsedEncoding};

/// Encoders: standard with padding; URL-safe without (the spec's form).
const STANDARD: GeneralPurpose = base64::engine::general_purpose::STANDARD;
const URL_SAFE: GeneralPurpose = base64::engine::general_purpose::URL_SAFE_NO_PAD;

#[derive(Debug, Deserialize, JsonSchema, Validate)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct Base64EncodeInput {
    /// What to encode: text (its UTF-8 bytes), or bytes written as `inputEncoding` says.
    text: String,
    /// How `text` carries its bytes: `utf-8` (the default), `hex`, `base64` or `base64url`.
    #[serde(default)]
    input_encoding: InputEncoding,
    /// Use the URL-safe alphabet (`-` and `_`) without padding.
    #[serde(default)]
    url_safe: bool,
}

#[derive(Debug, Serialize, JsonSchema)]
struct Base64EncodeOutput {
    /// The Base64 text.
    encoded: String,
}

/// Encode text as Base64.
///
/// The UTF-8 bytes of `text` are encoded with the standard alphabet and `=` padding, or, with
/// `urlSafe`, with the URL-safe alphabet (`-` and `_`) and no padding, as RFC 4648 section 5
/// recommends for URLs and file names. Bytes that are not text are given in `hex` or Base64
/// with `inputEncoding`.
#[op(post "/v1/base64/encode" as base64Encode, tag = TextAndData, pipe(text -> encoded),
     rejects = "`text` that is not in its `inputEncoding`, naming the position",
     example(typical, {"text": "Hello, World!"}),
     example(url_safe, {"text": "subjects?_d=1&x=ÿ", "urlSafe": true}),
     example(bytes_from_hex, {"text": "00ff10fe", "inputEncoding": "hex"}),
     example(empty, {"text": ""}),
     example(bad_hex, {"text": "0g", "inputEncoding": "hex"}, status = 400))]
async fn base64_encode(input: Base64EncodeInput) -> Result<Base64EncodeOutput, ApiError> {
    let bytes = byte_encoding::decode(&input.text, input.input_encoding, "text")?;
    let engine = if input.url_safe { URL_SAFE } else { STANDARD };
    Ok(Base64EncodeOutput { encoded: engine.encode(bytes) })
}

#[derive(Debug, Deserialize, JsonSchema, Validate)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct Base64DecodeInput {
    /// Base64 text. Padding is optional; line breaks and spaces are ignored.
    encoded: String,
    /// Read the URL-safe alphabet (`-` and `_`) instead of the standard one (`+` and `/`).
    #[serde(default)]
    url_safe: bool,
    /// How to write the decoded bytes: `auto` (the default: text when they are UTF-8 text
    /// without control characters other than tab and line breaks, else standard Base64),
    /// `utf-8` (text, refused when they are not UTF-8), `hex`, `base64` or `base64url`.
    #[serde(default)]
    output_encoding: OutputEncoding,
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct Base64DecodeOutput {
    /// The decoded bytes, written as `outputEncoding` says.
    decoded: String,
    /// How `decoded` is written: `utf-8`, `hex`, `base64` or `base64url`.
    output_encoding: UsedEncoding,
}

/// Decode Base64 to text.
///
/// Accepts padded or unpadded input and ignores ASCII whitespace (so MIME-style wrapped lines
/// decode). The alphabet is strict: standard (`+`, `/`) by default, URL-safe (`-`, `_`) with
/// `urlSafe`; a character of the other alphabet is an error rather than a silent guess. The
/// decoded bytes come back as text when they are text, and otherwise in the encoding the
/// answer's `outputEncoding` names (Base64 unless another is asked for), so no byte is lost.
#[op(post "/v1/base64/decode" as base64Decode, tag = TextAndData, pipe(encoded -> decoded),
     rejects = "input that is not Base64 in the chosen alphabet, or bytes that are not UTF-8 when `outputEncoding` is `utf-8`",
     example(typical, {"encoded": "SGVsbG8sIFdvcmxkIQ=="}),
     example(url_safe_unpadded, {"encoded": "c3ViamVjdHM_X2Q9MSZ4PcO_", "urlSafe": true}),
     example(bytes_as_hex, {"encoded": "AP8Q/g==", "outputEncoding": "hex"}),
     example(invalid, {"encoded": "not base64!"}, status = 400))]
async fn base64_decode(input: Base64DecodeInput) -> Result<Base64DecodeOutput, ApiError> {
    // Positions count the client's own characters; the hints name this operation's field.
    let bytes = byte_encoding::read_base64(&input.encoded, input.url_safe).map_err(|fault| {
        let what = match fault {
            Base64Fault::Character { char, at, other_alphabet } => {
                let hint = match (other_alphabet, input.url_safe) {
                    (false, _) => "",
                    (true, false) => " (this looks like URL-safe Base64: set urlSafe to true)",
                    (true, true) => " (this looks like standard Base64: set urlSafe to false)",
                };
                format!("invalid character {char:?} at position {at}{hint}")
            }
            Base64Fault::Length(n) => {
                format!("{n} Base64 characters cannot be a whole number of bytes (one is missing or extra)")
            }
            Base64Fault::LastSymbol { at } => {
                format!("the last character, at position {at}, has bits set that encode nothing")
            }
            Base64Fault::Padding => "the = padding is misplaced or of the wrong length".to_string(),
        };
        ApiError::invalid("encoded", format!("not valid Base64: {what}"))
    })?;
    let (decoded, output_encoding) = byte_encoding::encode(&bytes, input.output_encoding, "outputEncoding")?;
    Ok(Base64DecodeOutput { decoded, output_encoding })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn encode_input(text: &str, url_safe: bool) -> Base64EncodeInput {
        Base64EncodeInput { text: text.into(), input_encoding: InputEncoding::Utf8, url_safe }
    }

    fn decode_input(encoded: &str, url_safe: bool) -> Base64DecodeInput {
        Base64DecodeInput { encoded: encoded.into(), url_safe, output_encoding: OutputEncoding::Auto }
    }

    /// RFC 4648 section 10 test vectors.
    const VECTORS: &[(&str, &str)] = &[
        ("", ""),
        ("f", "Zg=="),
        ("fo", "Zm8="),
        ("foo", "Zm9v"),
        ("foob", "Zm9vYg=="),
        ("fooba", "Zm9vYmE="),
        ("foobar", "Zm9vYmFy"),
    ];

    #[tokio::test]
    async fn rfc4648_vectors_both_ways() {
        for (plain, encoded) in VECTORS {
            let out = base64_encode(Base64EncodeInput {
                text: plain.to_string(),
                input_encoding: InputEncoding::Utf8,
                url_safe: false,
            })
            .await
            .unwrap();
            assert_eq!(&out.encoded, encoded);
            let back = base64_decode(decode_input(encoded, false)).await.unwrap();
            assert_eq!(&back.decoded, plain);
            let unpadded = encoded.trim_end_matches('=');
            let back = base64_decode(decode_input(unpadded, true)).await.unwrap();
            assert_eq!(&back.decoded, plain);
        }
    }

    #[tokio::test]
    async fn url_safe_uses_its_alphabet() {
        let out = base64_encode(encode_input("\u{fb}\u{ff}", true)).await.unwrap();
        assert_eq!(out.encoded, "w7vDvw");
        let std = base64_encode(encode_input("\u{fb}\u{ff}", false)).await.unwrap();
        assert_eq!(std.encoded, "w7vDvw==");
        let out = base64_encode(encode_input("??>", true)).await.unwrap();
        assert_eq!(out.encoded, "Pz8-");
        let err = base64_decode(decode_input("Pz8-", false)).await.unwrap_err();
        assert!(err.message.contains("urlSafe"), "{}", err.message);
        // Positions count the client's characters, whitespace included.
        let err = base64_decode(decode_input("Zm9v\n Y!Fy", false)).await.unwrap_err();
        assert!(err.message.contains("'!' at position 7"), "{}", err.message);
    }

    /// Every byte value goes through and back, in each encoding the convention offers.
    #[tokio::test]
    async fn every_byte_round_trips() {
        let all: Vec<u8> = (0..=255).collect();
        let hex = hex::encode(&all);
        for url_safe in [false, true] {
            let input = Base64EncodeInput { text: hex.clone(), input_encoding: InputEncoding::Hex, url_safe };
            let encoded = base64_encode(input).await.unwrap().encoded;
            for (asked, used) in [
                (OutputEncoding::Auto, UsedEncoding::Base64),
                (OutputEncoding::Hex, UsedEncoding::Hex),
                (OutputEncoding::Base64Url, UsedEncoding::Base64Url),
            ] {
                let back = Base64DecodeInput { output_encoding: asked, ..decode_input(&encoded, url_safe) };
                let out = base64_decode(back).await.unwrap();
                assert_eq!(out.output_encoding, used);
                let bytes = byte_encoding::decode(
                    &out.decoded,
                    match used {
                        UsedEncoding::Hex => InputEncoding::Hex,
                        UsedEncoding::Base64Url => InputEncoding::Base64Url,
                        _ => InputEncoding::Base64,
                    },
                    "decoded",
                )
                .unwrap();
                assert_eq!(bytes, all, "{asked:?}, urlSafe {url_safe}");
            }
        }
    }

    #[tokio::test]
    async fn garbage_and_binary_are_refused() {
        for bad in ["abc!", "Zg=a", "Z"] {
            assert!(base64_decode(decode_input(bad, false)).await.is_err(), "{bad}");
        }
        // Bytes that are not text come back in Base64 unless text is insisted on.
        let out = base64_decode(decode_input("/w==", false)).await.unwrap();
        assert_eq!((out.decoded.as_str(), out.output_encoding), ("/w==", UsedEncoding::Base64));
        let strict = Base64DecodeInput { output_encoding: OutputEncoding::Utf8, ..decode_input("/w==", false) };
        let err = base64_decode(strict).await.unwrap_err();
        assert_eq!(err.field.as_deref(), Some("outputEncoding"));
        assert!(err.message.contains("not UTF-8"), "{}", err.message);
        let ok = base64_decode(decode_input("Zm9v\r\nYmFy", false)).await.unwrap();
        assert_eq!(ok.decoded, "foobar");
    }
}
