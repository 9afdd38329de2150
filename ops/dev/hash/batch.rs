//! `hash/batch`: several digests of the same bytes at once, and, given a digest, which of them
//! it is.

use super::algorithm::{self, Algorithm, Encoding, hex_default};
use wrench_contract::prelude::*;
use wrench_kit::byte_encoding::{self, InputEncoding};

#[derive(Debug, Deserialize, JsonSchema, Validate)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct HashBatchInput {
    /// What to hash: text (its UTF-8 bytes), or bytes written as `inputEncoding` says.
    text: String,
    /// How `text` carries its bytes: `utf-8` (the default), `hex`, `base64` or `base64url`.
    #[serde(default)]
    input_encoding: InputEncoding,
    /// Which digests, each at its default length and unkeyed; md5, sha1, sha256, sha384 and
    /// sha512 when absent. Repeats are ignored.
    #[serde(default)]
    #[schemars(length(min = 1, max = 21))]
    algorithms: Option<Vec<Algorithm>>,
    /// How the digests are written.
    #[serde(default = "hex_default")]
    encoding: Encoding,
    /// A digest to look for, written as `encoding` says (hex in either case): the answer's
    /// `matches` lists the algorithms that give it, each compared in constant time.
    #[serde(default)]
    #[schemars(length(min = 1, max = 256))]
    expected: Option<String>,
}

#[derive(Debug, Serialize, JsonSchema)]
struct HashBatchOutput {
    /// Algorithm name to digest, in the order asked for.
    hashes: indexmap::IndexMap<String, String>,
    /// How the digests are written.
    encoding: Encoding,
    /// The algorithms whose digest is `expected`, in the order asked for (only when it was
    /// given; empty when none is).
    #[serde(skip_serializing_if = "Option::is_none")]
    matches: Option<Vec<Algorithm>>,
}

/// Hash text with several algorithms at once.
///
/// The same digests as `/v1/hash`, of the same bytes (`inputEncoding`), for the algorithms
/// listed (md5, sha1, sha256, sha384 and sha512 by default), keyed by algorithm name; SHAKE,
/// BLAKE2 and BLAKE3 at their default lengths. With `expected`, `matches` names the algorithms
/// that give that digest: a way to find which function produced a hash.
#[op(post "/v1/hash/batch" as hashBatch, tag = DeveloperUtilities,
     rejects = "`text` that is not in its `inputEncoding`, or `expected` that is not in `encoding`, naming the position",
     example(all_five, {"text": "abc"}),
     example(two_base64, {"text": "wrench", "algorithms": ["sha256", "sha512"], "encoding": "base64"}),
     example(bytes_from_base64, {"text": "AP8Q/g==", "inputEncoding": "base64", "algorithms": ["md5"]}),
     example(which_is_it, {"text": "abc", "algorithms": ["sha256", "sha3-256", "blake2s", "blake3"], "expected": "508c5e8c327c14e2e1a72ba34eeb452f37458b209ed63a294d999b4c86675982"}))]
async fn hash_batch(input: HashBatchInput) -> Result<HashBatchOutput, ApiError> {
    let bytes = byte_encoding::decode(&input.text, input.input_encoding, "text")?;
    let expected = input.expected.as_deref().map(|e| algorithm::read_expected(e, input.encoding)).transpose()?;
    let algorithms = input.algorithms.unwrap_or_else(|| Algorithm::DEFAULT_BATCH.to_vec());
    let mut hashes = indexmap::IndexMap::new();
    let mut matches = expected.as_ref().map(|_| Vec::new());
    for a in algorithms {
        if hashes.contains_key(a.name()) {
            continue;
        }
        let digest = a.digest(&bytes);
        if let (Some(expected), Some(found)) = (&expected, &mut matches)
            && algorithm::same(&digest, expected)
        {
            found.push(a);
        }
        hashes.insert(a.name().to_string(), algorithm::encode(&digest, input.encoding));
    }
    Ok(HashBatchOutput { hashes, encoding: input.encoding, matches })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn expected_names_every_algorithm_that_gives_it_and_only_those() {
        let sha256 = "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad";
        let every: Vec<Algorithm> = Algorithm::ALL.to_vec();
        let input = |expected: &str| HashBatchInput {
            text: "abc".into(),
            input_encoding: InputEncoding::default(),
            algorithms: Some(every.clone()),
            encoding: Encoding::Hex,
            expected: Some(expected.into()),
        };
        let out = hash_batch(input(sha256)).await.unwrap();
        assert_eq!(out.hashes.len(), 21);
        assert_eq!(out.matches, Some(vec![Algorithm::Sha256]));
        // BLAKE2s-256 and BLAKE3 both give 32 bytes: one digest, one match.
        let out = hash_batch(input(&out.hashes["blake3"].clone())).await.unwrap();
        assert_eq!(out.matches, Some(vec![Algorithm::Blake3]));
        let out = hash_batch(input(&sha256[..40])).await.unwrap();
        assert_eq!(out.matches, Some(vec![]), "a prefix matches nothing");
    }
}
