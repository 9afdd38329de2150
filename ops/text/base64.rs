//! Base64 in both directions, standard (RFC 4648 section 4) and URL-safe (section 5).

use base64::{
    Engine, alphabet,
    engine::{DecodePaddingMode, GeneralPurpose, GeneralPurposeConfig},
};

use wrench_contract::prelude::*;

/// Encoders: standard with padding; URL-safe without (the spec's form).
const STANDARD: GeneralPurpose = base64::engine::general_purpose::STANDARD;
const URL_SAFE: GeneralPurpose = base64::engine::general_purpose::URL_SAFE_NO_PAD;

/// Decoders accept input with or without padding; the alphabet is strict.
const LENIENT: GeneralPurposeConfig =
    GeneralPurposeConfig::new().with_decode_padding_mode(DecodePaddingMode::Indifferent);
const STANDARD_DECODE: GeneralPurpose = GeneralPurpose::new(&alphabet::STANDARD, LENIENT);
const URL_SAFE_DECODE: GeneralPurpose = GeneralPurpose::new(&alphabet::URL_SAFE, LENIENT);

#[derive(Debug, Deserialize, JsonSchema, Validate)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct Base64EncodeInput {
    /// The text to encode (its UTF-8 bytes are encoded).
    text: String,
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
/// recommends for URLs and file names.
#[op(post "/v1/base64/encode" as base64Encode, tag = TextAndData,
     example(typical, {"text": "Hello, World!"}),
     example(url_safe, {"text": "subjects?_d=1&x=ÿ", "urlSafe": true}),
     example(empty, {"text": ""}))]
async fn base64_encode(input: Base64EncodeInput) -> Result<Base64EncodeOutput, ApiError> {
    let engine = if input.url_safe { URL_SAFE } else { STANDARD };
    Ok(Base64EncodeOutput { encoded: engine.encode(input.text.as_bytes()) })
}

#[derive(Debug, Deserialize, JsonSchema, Validate)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct Base64DecodeInput {
    /// Base64 text. Padding is optional; line breaks and spaces are ignored.
    encoded: String,
    /// Read the URL-safe alphabet (`-` and `_`) instead of the standard one (`+` and `/`).
    #[serde(default)]
    url_safe: bool,
}

#[derive(Debug, Serialize, JsonSchema)]
struct Base64DecodeOutput {
    /// The decoded text.
    decoded: String,
}

/// Decode Base64 to text.
///
/// Accepts padded or unpadded input and ignores ASCII whitespace (so MIME-style wrapped lines
/// decode). The alphabet is strict: standard (`+`, `/`) by default, URL-safe (`-`, `_`) with
/// `urlSafe`; a character of the other alphabet is an error rather than a silent guess. The
/// decoded bytes must be UTF-8 text, because the result is a JSON string.
#[op(post "/v1/base64/decode" as base64Decode, tag = TextAndData,
     rejects = "input that is not Base64 in the chosen alphabet, or that decodes to bytes that are not UTF-8",
     example(typical, {"encoded": "SGVsbG8sIFdvcmxkIQ=="}),
     example(url_safe_unpadded, {"encoded": "c3ViamVjdHM_X2Q9MSZ4PcO_", "urlSafe": true}),
     example(invalid, {"encoded": "not base64!"}, status = 400))]
async fn base64_decode(input: Base64DecodeInput) -> Result<Base64DecodeOutput, ApiError> {
    // Whitespace is dropped before decoding; remember where each kept character was, so an
    // error can point at the client's own input.
    let (compact, positions): (String, Vec<usize>) =
        input.encoded.chars().enumerate().filter(|(_, c)| !c.is_ascii_whitespace()).map(|(i, c)| (c, i)).unzip();
    let engine = if input.url_safe { URL_SAFE_DECODE } else { STANDARD_DECODE };
    // The decoder reports byte offsets into `compact`; map them to character positions.
    let at = |offset: usize| {
        let chars_before = compact.get(..offset).map_or(offset, |s| s.chars().count());
        positions.get(chars_before).copied().unwrap_or(input.encoded.chars().count())
    };
    let bytes = engine.decode(compact.as_bytes()).map_err(|e| {
        let what = match e {
            base64::DecodeError::InvalidByte(offset, b) => {
                let hint = if !input.url_safe && (b == b'-' || b == b'_') {
                    " (this looks like URL-safe Base64: set urlSafe to true)"
                } else if input.url_safe && (b == b'+' || b == b'/') {
                    " (this looks like standard Base64: set urlSafe to false)"
                } else {
                    ""
                };
                let c = compact.get(offset..).and_then(|s| s.chars().next()).unwrap_or(b as char);
                format!("invalid character {c:?} at position {}{hint}", at(offset))
            }
            base64::DecodeError::InvalidLength(n) => {
                format!("{n} Base64 characters cannot be a whole number of bytes (one is missing or extra)")
            }
            base64::DecodeError::InvalidLastSymbol { offset, .. } => {
                format!("the last character, at position {}, has bits set that encode nothing", at(offset))
            }
            base64::DecodeError::InvalidPadding => "the = padding is misplaced or of the wrong length".to_string(),
        };
        ApiError::invalid("encoded", format!("not valid Base64: {what}"))
    })?;
    let decoded = String::from_utf8(bytes).map_err(|e| {
        ApiError::invalid(
            "encoded",
            format!(
                "decodes to bytes that are not UTF-8 text (first invalid byte at offset {})",
                e.utf8_error().valid_up_to()
            ),
        )
    })?;
    Ok(Base64DecodeOutput { decoded })
}

#[cfg(test)]
mod tests {
    use super::*;

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
            let out = base64_encode(Base64EncodeInput { text: plain.to_string(), url_safe: false }).await.unwrap();
            assert_eq!(&out.encoded, encoded);
            let back =
                base64_decode(Base64DecodeInput { encoded: encoded.to_string(), url_safe: false }).await.unwrap();
            assert_eq!(&back.decoded, plain);
            let unpadded = encoded.trim_end_matches('=');
            let back =
                base64_decode(Base64DecodeInput { encoded: unpadded.to_string(), url_safe: true }).await.unwrap();
            assert_eq!(&back.decoded, plain);
        }
    }

    #[tokio::test]
    async fn url_safe_uses_its_alphabet() {
        let out = base64_encode(Base64EncodeInput { text: "\u{fb}\u{ff}".into(), url_safe: true }).await.unwrap();
        assert_eq!(out.encoded, "w7vDvw");
        let std = base64_encode(Base64EncodeInput { text: "\u{fb}\u{ff}".into(), url_safe: false }).await.unwrap();
        assert_eq!(std.encoded, "w7vDvw==");
        let out = base64_encode(Base64EncodeInput { text: "??>".into(), url_safe: true }).await.unwrap();
        assert_eq!(out.encoded, "Pz8-");
        let err = base64_decode(Base64DecodeInput { encoded: "Pz8-".into(), url_safe: false }).await.unwrap_err();
        assert!(err.message.contains("urlSafe"), "{}", err.message);
        // Positions count the client's characters, whitespace included.
        let err =
            base64_decode(Base64DecodeInput { encoded: "Zm9v\n Y!Fy".into(), url_safe: false }).await.unwrap_err();
        assert!(err.message.contains("'!' at position 7"), "{}", err.message);
    }

    #[tokio::test]
    async fn garbage_and_binary_are_refused() {
        for bad in ["abc!", "Zg=a", "Z"] {
            assert!(base64_decode(Base64DecodeInput { encoded: bad.into(), url_safe: false }).await.is_err(), "{bad}");
        }
        let err = base64_decode(Base64DecodeInput { encoded: "/w==".into(), url_safe: false }).await.unwrap_err();
        assert!(err.message.contains("UTF-8"));
        let ok = base64_decode(Base64DecodeInput { encoded: "Zm9v\r\nYmFy".into(), url_safe: false }).await.unwrap();
        assert_eq!(ok.decoded, "foobar");
    }
}
