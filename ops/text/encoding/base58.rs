//! Base58 (`base58/encode`, `base58/decode`): bytes as one big number in base 58, each leading
//! zero byte as the alphabet's first character, in Bitcoin's, Flickr's or Ripple's alphabet,
//! optionally with Base58Check's four-byte checksum (the first four bytes of SHA-256 of SHA-256
//! of the payload), as Bitcoin addresses and WIF keys carry it.
//!
//! Base58 is quadratic in the length (every character touches the whole number), so the bytes
//! are capped at [`MAX_BYTES`] and the work runs on the CPU pool.

use sha2::{Digest, Sha256};

use wrench_contract::prelude::*;
use wrench_kit::byte_encoding::{self, InputEncoding, OutputEncoding};

use super::reading::{Decoded, significant};

/// The most bytes encoded or decoded at once (about 11,000 Base58 characters).
pub const MAX_BYTES: usize = 8192;

#[derive(Debug, Deserialize, Serialize, JsonSchema, Validate, Clone, Copy, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
enum Base58Alphabet {
    /// `123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz` (also IPFS's).
    Bitcoin,
    /// `123456789abcdefghijkmnopqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ`.
    Flickr,
    /// `rpshnaf39wBUDNEGHJKLM4PQRST7VWXYZ2bcdeCg65jkm8oFqi1tuvAxyz`.
    Ripple,
}

fn bitcoin() -> Base58Alphabet {
    Base58Alphabet::Bitcoin
}

impl Base58Alphabet {
    fn get(self) -> &'static bs58::Alphabet {
        match self {
            Base58Alphabet::Bitcoin => bs58::Alphabet::BITCOIN,
            Base58Alphabet::Flickr => bs58::Alphabet::FLICKR,
            Base58Alphabet::Ripple => bs58::Alphabet::RIPPLE,
        }
    }
}

/// Base58Check's checksum: the first four bytes of SHA-256 twice.
fn checksum(payload: &[u8]) -> [u8; 4] {
    let twice = Sha256::digest(Sha256::digest(payload));
    [twice[0], twice[1], twice[2], twice[3]]
}

fn encode(bytes: &[u8], alphabet: Base58Alphabet, check: bool) -> String {
    let mut all = bytes.to_vec();
    if check {
        all.extend_from_slice(&checksum(bytes));
    }
    bs58::encode(all).with_alphabet(alphabet.get()).into_string()
}

/// The bytes of Base58 `text`, or why not, with positions in the caller's characters.
fn decode(text: &str, alphabet: Base58Alphabet, check: bool) -> Result<Vec<u8>, String> {
    let (kept, positions): (String, Vec<usize>) = significant(text).map(|(i, c)| (c, i)).unzip();
    let mut bytes = bs58::decode(kept.as_bytes()).with_alphabet(alphabet.get()).into_vec().map_err(|e| match e {
        bs58::decode::Error::InvalidCharacter { character, index } => {
            let at = kept[..index].chars().count();
            format!("{character:?} at position {} is not in the alphabet", positions[at])
        }
        bs58::decode::Error::NonAsciiCharacter { index } => {
            let at = kept.get(..index).map_or(0, |s| s.chars().count());
            let c = kept.chars().nth(at).unwrap_or(' ');
            format!("{c:?} at position {} is not in the alphabet", positions.get(at).copied().unwrap_or(0))
        }
        other => other.to_string(),
    })?;
    if check {
        if bytes.len() < 4 {
            return Err(format!("{} bytes cannot hold Base58Check's four-byte checksum", bytes.len()));
        }
        let payload = bytes.len() - 4;
        if checksum(&bytes[..payload]) != bytes[payload..] {
            return Err("the checksum does not match: a character is wrong, missing or extra".into());
        }
        bytes.truncate(payload);
    }
    Ok(bytes)
}

#[derive(Debug, Deserialize, JsonSchema, Validate)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct Base58EncodeInput {
    /// What to encode, at most 8,192 bytes: text (its UTF-8 bytes), or bytes written as
    /// `inputEncoding` says.
    #[schemars(length(max = 32768))]
    text: String,
    /// How `text` carries its bytes: `utf-8` (the default), `hex`, `base64` or `base64url`.
    #[serde(default)]
    input_encoding: InputEncoding,
    /// The alphabet: `bitcoin` (the default), `flickr` or `ripple`.
    #[serde(default = "bitcoin")]
    alphabet: Base58Alphabet,
    /// Append Base58Check's four-byte checksum (double SHA-256).
    #[serde(default)]
    check: bool,
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct Base58EncodeOutput {
    /// The Base58 text.
    encoded: String,
    /// The alphabet used.
    alphabet: Base58Alphabet,
}

fn too_many(field: &str, n: usize) -> ApiError {
    ApiError::invalid(
        field,
        format!("holds {n} bytes; Base58 takes at most {MAX_BYTES}, its cost grows with the square of the length"),
    )
}

/// Encode bytes as Base58.
///
/// The bytes as one big-endian number written in base 58, each leading zero byte as the
/// alphabet's first character, in Bitcoin's alphabet (the default, also IPFS's), Flickr's or
/// Ripple's. With `check`, Base58Check: the first four bytes of SHA-256 of SHA-256 of the bytes
/// are appended first, as in Bitcoin addresses (a version byte is part of the bytes you give).
/// At most 8,192 bytes, since the work grows with the square of the length.
#[op(post "/v1/base58/encode" as base58Encode, tag = TextAndData, pipe(text -> encoded),
     rejects = "`text` that is not in its `inputEncoding`, or more than 8,192 bytes",
     example(typical, {"text": "Hello World!"}),
     example(address_with_check, {"text": "00f54a5851e9372b87810a8e60cdd2e7cfd80b6e31", "inputEncoding": "hex", "check": true}),
     example(ripple, {"text": "Hello World!", "alphabet": "ripple"}),
     example(bad_hex, {"text": "0", "inputEncoding": "hex"}, status = 400))]
async fn base58_encode(input: Base58EncodeInput) -> Result<Base58EncodeOutput, ApiError> {
    let bytes = byte_encoding::decode(&input.text, input.input_encoding, "text")?;
    if bytes.len() > MAX_BYTES {
        return Err(too_many("text", bytes.len()));
    }
    let (alphabet, check) = (input.alphabet, input.check);
    let encoded = wrench_infra::cpu::run(move || Ok(encode(&bytes, alphabet, check))).await?;
    Ok(Base58EncodeOutput { encoded, alphabet })
}

#[derive(Debug, Deserialize, JsonSchema, Validate)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct Base58DecodeInput {
    /// Base58 text (whitespace is ignored), of at most 8,192 bytes.
    #[schemars(length(max = 16384))]
    encoded: String,
    /// The alphabet: `bitcoin` (the default), `flickr` or `ripple`.
    #[serde(default = "bitcoin")]
    alphabet: Base58Alphabet,
    /// Verify and remove Base58Check's four-byte checksum.
    #[serde(default)]
    check: bool,
    /// How to write the decoded bytes: `auto` (the default: text when they are UTF-8 text
    /// without control characters other than tab and line breaks, else standard Base64),
    /// `utf-8` (text, refused when they are not UTF-8), `hex`, `base64` or `base64url`.
    #[serde(default)]
    output_encoding: OutputEncoding,
}

/// Decode Base58 to bytes.
///
/// Reads Base58 in the chosen alphabet, ignoring whitespace; with `check`, verifies and removes
/// Base58Check's four-byte checksum (a wrong checksum is a 400, so a mistyped address is
/// caught). The bytes come back as text when they are text, else in the encoding the answer's
/// `outputEncoding` names; a Bitcoin address decodes to its version byte and hash, best read
/// as `hex`.
#[op(post "/v1/base58/decode" as base58Decode, tag = TextAndData, pipe(encoded -> decoded),
     rejects = "a character outside the alphabet (naming the position), a checksum that does not match, or more than 8,192 bytes",
     example(typical, {"encoded": "2NEpo7TZRRrLZSi2U"}),
     example(address_as_hex, {"encoded": "1PMycacnJaSqwwJqjawXBErnLsZ7RkXUAs", "check": true, "outputEncoding": "hex"}),
     example(bad_checksum, {"encoded": "1PMycacnJaSqwwJqjawXBErnLsZ7RkXUAt", "check": true}, status = 400),
     example(not_in_alphabet, {"encoded": "0OIl"}, status = 400))]
async fn base58_decode(input: Base58DecodeInput) -> Result<Decoded, ApiError> {
    let (alphabet, check) = (input.alphabet, input.check);
    let encoded = input.encoded;
    let bytes = wrench_infra::cpu::run(move || {
        decode(&encoded, alphabet, check).map_err(|e| ApiError::invalid("encoded", format!("not valid Base58: {e}")))
    })
    .await?;
    if bytes.len() > MAX_BYTES {
        return Err(too_many("encoded", bytes.len()));
    }
    Decoded::of(&bytes, input.output_encoding)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// PyPI `base58` (`b58encode`, `b58encode_check`, its Ripple alphabet and Flickr's given
    /// as a custom alphabet) on random bytes with leading zeros (tests/fixtures/base_n.py).
    #[test]
    fn pypi_base58_agrees() {
        let fixture = crate::testing::fixture("base_n.json");
        let cases = fixture["base58"].as_array().unwrap();
        assert!(cases.len() >= 10);
        for case in cases {
            let bytes = ::hex::decode(case["hex"].as_str().unwrap()).unwrap();
            for (name, alphabet, check) in [
                ("bitcoin", Base58Alphabet::Bitcoin, false),
                ("bitcoin_check", Base58Alphabet::Bitcoin, true),
                ("flickr", Base58Alphabet::Flickr, false),
                ("ripple", Base58Alphabet::Ripple, false),
                ("ripple_check", Base58Alphabet::Ripple, true),
            ] {
                let want = case[name].as_str().unwrap();
                assert_eq!(encode(&bytes, alphabet, check), want, "{name}");
                assert_eq!(decode(want, alphabet, check).unwrap(), bytes, "{name}");
            }
        }
    }

    #[test]
    fn errors_point_and_checksums_catch_typos() {
        assert_eq!(
            decode("2NE 0", Base58Alphabet::Bitcoin, false).unwrap_err(),
            "'0' at position 4 is not in the alphabet"
        );
        assert_eq!(
            decode("2Né", Base58Alphabet::Bitcoin, false).unwrap_err(),
            "'é' at position 2 is not in the alphabet"
        );
        let address = "1PMycacnJaSqwwJqjawXBErnLsZ7RkXUAs";
        assert_eq!(decode(address, Base58Alphabet::Bitcoin, true).unwrap().len(), 21);
        assert!(decode(&address.replace('s', "t"), Base58Alphabet::Bitcoin, true).unwrap_err().contains("checksum"));
        assert!(decode("1", Base58Alphabet::Bitcoin, true).unwrap_err().contains("cannot hold"));
    }
}
