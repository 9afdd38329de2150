//! XOR with a repeating key (`xor`), and the search for a short key that turns bytes into
//! readable text (`xor/brute`), as one does with obfuscated strings and single-byte XOR
//! challenges.

use wrench_contract::prelude::*;
use wrench_kit::byte_encoding::{self, InputEncoding, OutputEncoding, UsedEncoding};

/// Most bytes `xor/brute` tries every key on (65,536 keys of two bytes each cost a pass).
pub const BRUTE_MAX_BYTES: usize = 4096;

fn xor(bytes: &[u8], key: &[u8]) -> Vec<u8> {
    bytes.iter().zip(key.iter().cycle()).map(|(b, k)| b ^ k).collect()
}

#[derive(Debug, Deserialize, JsonSchema, Validate)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct XorInput {
    /// The bytes: text (its UTF-8 bytes), or as `inputEncoding` says.
    input: String,
    /// How `input` carries its bytes: `utf-8` (the default), `hex`, `base64` or `base64url`.
    #[serde(default)]
    input_encoding: InputEncoding,
    /// The key, repeated over the input; at least one byte.
    #[schemars(length(min = 1, max = 1024))]
    key: String,
    /// How `key` carries its bytes: `utf-8` (the default), `hex`, `base64` or `base64url`.
    #[serde(default)]
    key_encoding: InputEncoding,
    /// How to write the result: `auto` (the default: text when it is UTF-8 text without
    /// control characters other than tab and line breaks, else standard Base64), `utf-8`,
    /// `hex`, `base64` or `base64url`.
    #[serde(default)]
    output_encoding: OutputEncoding,
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct XorOutput {
    /// The input XORed with the key, written as `outputEncoding` says.
    output: String,
    /// How `output` is written: `utf-8`, `hex`, `base64` or `base64url`.
    output_encoding: UsedEncoding,
}

/// XOR bytes with a repeating key.
///
/// Each byte of `input` is XORed with the byte of `key` at the same position, the key
/// repeating as often as needed; XORing the result with the same key gives the input back.
/// Both take text or bytes (`inputEncoding`, `keyEncoding`), and the result comes back as text
/// when it is text, else in the encoding `outputEncoding` names.
#[op(post "/v1/xor" as xorBytes, tag = TextAndData, pipe(input -> output),
     rejects = "`input` or `key` that is not in its encoding, or an empty key",
     example(typical, {"input": "Hello, World!", "key": "k", "outputEncoding": "hex"}),
     example(back_to_text, {"input": "230e070704474b3c0419070f4a", "inputEncoding": "hex", "key": "k"}),
     example(multi_byte_key, {"input": "attack at dawn", "key": "0102ff", "keyEncoding": "hex"}),
     example(empty_key, {"input": "x", "key": ""}, status = 400))]
async fn xor_bytes(input: XorInput) -> Result<XorOutput, ApiError> {
    let bytes = byte_encoding::decode(&input.input, input.input_encoding, "input")?;
    let key = byte_encoding::decode(&input.key, input.key_encoding, "key")?;
    if key.is_empty() {
        return Err(ApiError::invalid("key", "must hold at least one byte"));
    }
    let (output, output_encoding) = byte_encoding::encode(&xor(&bytes, &key), input.output_encoding, "outputEncoding")?;
    Ok(XorOutput { output, output_encoding })
}

#[derive(Debug, Deserialize, JsonSchema, Validate)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct XorBruteInput {
    /// The bytes, at most 4,096 of them, written as `inputEncoding` says.
    #[schemars(length(max = 16384))]
    input: String,
    /// How `input` carries its bytes: `hex` (the default here, as XORed data is rarely
    /// text), `base64`, `base64url` or `utf-8`.
    #[serde(default = "hex")]
    input_encoding: InputEncoding,
    /// Key length to try: 1 (256 keys, the default) or 2 (65,536 keys).
    #[serde(default = "one")]
    #[schemars(range(min = 1, max = 2))]
    key_length: u8,
    /// Only keep keys whose output contains this text (a known word of the plaintext).
    #[serde(default)]
    #[schemars(length(min = 1, max = 256))]
    crib: Option<String>,
    /// How many candidates to answer, best first (1-50; 10 by default).
    #[serde(default = "ten")]
    #[schemars(range(min = 1, max = 50))]
    limit: u8,
}

fn hex() -> InputEncoding {
    InputEncoding::Hex
}

fn one() -> u8 {
    1
}

fn ten() -> u8 {
    10
}

#[derive(Debug, Serialize, JsonSchema)]
struct Candidate {
    /// The key, in hex.
    key: String,
    /// The input XORed with it, as text when it is text, else in Base64 (see `encoding`).
    output: String,
    /// How `output` is written: `utf-8` or `base64`.
    encoding: UsedEncoding,
    /// How much the output reads like English text, 0 to 1: the mean of how often each of its
    /// characters occurs in English (0 when one never does, such as a control character).
    score: f64,
}

#[derive(Debug, Serialize, JsonSchema)]
struct XorBruteOutput {
    /// The best keys first.
    candidates: Vec<Candidate>,
    /// How many keys were tried.
    tried: usize,
}

/// Relative frequencies of `a` to `z` in English text (Lewand, "Cryptological Mathematics",
/// 2000), in percent.
const ENGLISH: [f64; 26] = [
    8.167, 1.492, 2.782, 4.253, 12.702, 2.228, 2.015, 6.094, 6.966, 0.153, 0.772, 4.025, 2.406, 6.749, 7.507, 1.929,
    0.095, 5.987, 6.327, 9.056, 2.758, 0.978, 2.360, 0.150, 1.974, 0.074,
];

/// How likely a byte is in English text, in percent: letters by the table (capitals at a
/// fifth), a space as often as about one character in six, digits and punctuation rarely,
/// other printable ASCII and line breaks hardly, and anything else never.
fn weight(b: u8) -> f64 {
    match b {
        b'a'..=b'z' => ENGLISH[usize::from(b - b'a')],
        b'A'..=b'Z' => ENGLISH[usize::from(b - b'A')] / 5.0,
        b' ' => 15.0,
        b'0'..=b'9' | b'.' | b',' | b'\'' | b'"' | b'!' | b'?' | b'-' | b':' | b';' => 0.5,
        b'\n' | b'\r' | b'\t' | 0x21..=0x7e => 0.05,
        _ => 0.0,
    }
}

/// How much `bytes` read like English, 0 to 1: the mean weight of its bytes over that of a
/// typical English sentence's (about 7.5), capped at 1, and 0 when any byte is one English
/// text never holds.
fn score(bytes: &[u8]) -> f64 {
    if bytes.is_empty() || bytes.iter().any(|&b| weight(b) == 0.0) {
        return 0.0;
    }
    let mean = bytes.iter().map(|&b| weight(b)).sum::<f64>() / bytes.len() as f64;
    (mean / 7.5).min(1.0)
}

/// Find the short XOR key that makes bytes readable.
///
/// Tries every key of `keyLength` bytes (256 of one byte, 65,536 of two) on `input` (hex by
/// default, at most 4,096 bytes), keeps those whose output holds `crib` if one is given, and
/// answers the `limit` best by how much the output reads like English text (the mean of how
/// often each of its characters occurs in English; a byte English text never holds rules a key
/// out). The ranking is a heuristic: check the outputs, not only the first.
#[op(post "/v1/xor/brute" as xorBrute, tag = TextAndData,
     rejects = "`input` that is not in its `inputEncoding`, or more than 4,096 bytes",
     example(single_byte, {"input": "1b37373331363f78151b7f2b783431333d78397828372d363c78373e783a393b3736"}),
     example(with_crib, {"input": "230e070704474b3c0419070f4a", "crib": "World", "limit": 1}),
     example(key_length_3, {"input": "41", "keyLength": 3}, status = 400))]
async fn xor_brute(input: XorBruteInput) -> Result<XorBruteOutput, ApiError> {
    let bytes = byte_encoding::decode(&input.input, input.input_encoding, "input")?;
    if bytes.len() > BRUTE_MAX_BYTES {
        return Err(ApiError::invalid(
            "input",
            format!("holds {} bytes; xor/brute tries keys on at most {BRUTE_MAX_BYTES}", bytes.len()),
        ));
    }
    if !(1..=2).contains(&input.key_length) {
        return Err(ApiError::invalid("keyLength", "is 1 or 2"));
    }
    let (length, limit) = (input.key_length, usize::from(input.limit));
    let crib = input.crib.map(String::into_bytes);
    wrench_infra::cpu::run(move || {
        // One searcher for every key's output, built once (a window-by-window compare of each
        // took three times as long as the XORs themselves).
        let crib = crib.as_deref().map(memchr::memmem::Finder::new);
        let keys: usize = if length == 1 { 256 } else { 65_536 };
        let mut ranked: Vec<(f64, Vec<u8>, Vec<u8>)> = Vec::new();
        for k in 0..keys {
            let key = if length == 1 { vec![k as u8] } else { vec![(k >> 8) as u8, k as u8] };
            let out = xor(&bytes, &key);
            if crib.as_ref().is_some_and(|c| c.find(&out).is_none()) {
                continue;
            }
            ranked.push((score(&out), key, out));
            // Keep the list short as it grows: only the best `limit` can be answered.
            if ranked.len() >= limit * 8 {
                ranked.sort_by(|a, b| b.0.total_cmp(&a.0).then_with(|| a.1.cmp(&b.1)));
                ranked.truncate(limit);
            }
        }
        ranked.sort_by(|a, b| b.0.total_cmp(&a.0).then_with(|| a.1.cmp(&b.1)));
        ranked.truncate(limit);
        let candidates = ranked
            .into_iter()
            .map(|(score, key, out)| {
                let (output, encoding) = byte_encoding::encode(&out, OutputEncoding::Auto, "output")?;
                Ok(Candidate {
                    key: ::hex::encode(key),
                    output,
                    encoding,
                    score: (score * 10_000.0).round() / 10_000.0,
                })
            })
            .collect::<Result<Vec<_>, ApiError>>()?;
        Ok(XorBruteOutput { candidates, tried: keys })
    })
    .await
}

#[cfg(test)]
mod tests {
    use super::*;

    /// XOR against Python's `bytes(b ^ k[i % n] ...)` on the same bytes and keys
    /// (tests/fixtures/text_transforms.py), and XOR twice is the identity.
    #[test]
    fn python_agrees() {
        let fixture = crate::testing::fixture("text_transforms.json");
        for case in fixture["xor"].as_array().unwrap() {
            let h = |k: &str| ::hex::decode(case[k].as_str().unwrap()).unwrap();
            assert_eq!(xor(&h("input"), &h("key")), h("output"));
            assert_eq!(xor(&h("output"), &h("key")), h("input"));
        }
    }

    /// English sentences XORed with every one-byte key, and some with two-byte keys: the key
    /// ranks first.
    #[tokio::test]
    async fn the_key_ranks_first() {
        let sentences = [
            "Cooking MC's like a pound of bacon",
            "Now that the party is jumping, the bass kicks in and the Vega's are pumpin'",
            "It was the best of times, it was the worst of times.",
        ];
        for text in sentences {
            for key in [0x01u8, 0x20, 0x58, 0x7f, 0xa5, 0xff] {
                let input = ::hex::encode(xor(text.as_bytes(), &[key]));
                let out = xor_brute(XorBruteInput {
                    input,
                    input_encoding: InputEncoding::Hex,
                    key_length: 1,
                    crib: None,
                    limit: 3,
                })
                .await
                .unwrap();
                assert_eq!(out.candidates[0].key, format!("{key:02x}"), "{text}");
                assert_eq!(out.candidates[0].output, text);
            }
            let input = ::hex::encode(xor(text.as_bytes(), &[0x13, 0x37]));
            let out = xor_brute(XorBruteInput {
                input,
                input_encoding: InputEncoding::Hex,
                key_length: 2,
                crib: None,
                limit: 1,
            })
            .await
            .unwrap();
            assert_eq!((out.candidates[0].key.as_str(), out.tried), ("1337", 65_536), "{text}");
        }
    }
}
