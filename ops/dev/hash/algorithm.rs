//! The digests `hash` and `hash/batch` offer, and how each is computed: fixed-length functions,
//! the extendable-output ones (SHAKE, BLAKE3) at any `length`, and the keyed modes BLAKE2 and
//! BLAKE3 define. How a digest is written and compared with an `expected` one lives here too,
//! since `hash`, `hash/batch` and `hash/hmac` all answer the same way.

use base64::Engine;
use md5::Md5;
use sha1::Sha1;
use sha2::{Digest, Sha256, Sha384, Sha512};
use sha3::digest::{ExtendableOutput, Update, XofReader};

use wrench_contract::prelude::*;
use wrench_kit::byte_encoding::{self, InputEncoding};

/// The longest output an extendable-output function may be asked for, in bytes: 4 KiB (8 KiB
/// of hex), far beyond any digest and enough for key material.
pub(super) const MAX_XOF_LENGTH: usize = 4096;

#[derive(Debug, Deserialize, Serialize, JsonSchema, Validate, Clone, Copy, PartialEq, Eq, Hash)]
pub(super) enum Algorithm {
    /// MD5 (RFC 1321); not collision resistant.
    #[serde(rename = "md5")]
    Md5,
    /// SHA-1 (FIPS 180-4); not collision resistant.
    #[serde(rename = "sha1")]
    Sha1,
    /// SHA-224 (FIPS 180-4).
    #[serde(rename = "sha224")]
    Sha224,
    /// SHA-256 (FIPS 180-4).
    #[serde(rename = "sha256")]
    Sha256,
    /// SHA-384 (FIPS 180-4).
    #[serde(rename = "sha384")]
    Sha384,
    /// SHA-512 (FIPS 180-4).
    #[serde(rename = "sha512")]
    Sha512,
    /// SHA-512/256 (FIPS 180-4): SHA-512's rounds, 256 bits out.
    #[serde(rename = "sha512-256")]
    Sha512_256,
    /// SHA3-224 (FIPS 202).
    #[serde(rename = "sha3-224")]
    Sha3_224,
    /// SHA3-256 (FIPS 202).
    #[serde(rename = "sha3-256")]
    Sha3_256,
    /// SHA3-384 (FIPS 202).
    #[serde(rename = "sha3-384")]
    Sha3_384,
    /// SHA3-512 (FIPS 202).
    #[serde(rename = "sha3-512")]
    Sha3_512,
    /// Keccak-256 as Ethereum uses it (the padding before FIPS 202; not SHA3-256).
    #[serde(rename = "keccak256")]
    Keccak256,
    /// SHAKE128 (FIPS 202), 32 bytes out unless `length` says otherwise.
    #[serde(rename = "shake128")]
    Shake128,
    /// SHAKE256 (FIPS 202), 64 bytes out unless `length` says otherwise.
    #[serde(rename = "shake256")]
    Shake256,
    /// BLAKE2b (RFC 7693), 64 bytes out unless `length` says otherwise (1 to 64); keyed with `key`.
    #[serde(rename = "blake2b")]
    Blake2b,
    /// BLAKE2s (RFC 7693), 32 bytes out unless `length` says otherwise (1 to 32); keyed with `key`.
    #[serde(rename = "blake2s")]
    Blake2s,
    /// BLAKE3, 32 bytes out unless `length` says otherwise; keyed with a 32-byte `key`.
    #[serde(rename = "blake3")]
    Blake3,
    /// RIPEMD-160, as Bitcoin addresses use it.
    #[serde(rename = "ripemd160")]
    Ripemd160,
    /// MD4 (RFC 1320), as NTLM uses it; broken, for old data only.
    #[serde(rename = "md4")]
    Md4,
    /// SM3 (GB/T 32905-2016).
    #[serde(rename = "sm3")]
    Sm3,
    /// Whirlpool (ISO/IEC 10118-3), 64 bytes.
    #[serde(rename = "whirlpool")]
    Whirlpool,
}

/// What a keyed or variable-length digest takes beyond the message.
#[derive(Debug, Default, Clone, Copy)]
pub(super) struct Options<'a> {
    /// Output length in bytes, for the algorithms that have one to choose.
    pub length: Option<usize>,
    /// Key bytes, for the keyed modes of BLAKE2 and BLAKE3.
    pub key: Option<&'a [u8]>,
}

impl Algorithm {
    /// Every algorithm, in the order of the enum (which is the document's order).
    #[cfg(test)]
    pub(super) const ALL: [Algorithm; 21] = [
        Algorithm::Md5,
        Algorithm::Sha1,
        Algorithm::Sha224,
        Algorithm::Sha256,
        Algorithm::Sha384,
        Algorithm::Sha512,
        Algorithm::Sha512_256,
        Algorithm::Sha3_224,
        Algorithm::Sha3_256,
        Algorithm::Sha3_384,
        Algorithm::Sha3_512,
        Algorithm::Keccak256,
        Algorithm::Shake128,
        Algorithm::Shake256,
        Algorithm::Blake2b,
        Algorithm::Blake2s,
        Algorithm::Blake3,
        Algorithm::Ripemd160,
        Algorithm::Md4,
        Algorithm::Sm3,
        Algorithm::Whirlpool,
    ];

    /// What `hash/batch` computes when no list is given: the five it has always computed.
    pub(super) const DEFAULT_BATCH: [Algorithm; 5] =
        [Algorithm::Md5, Algorithm::Sha1, Algorithm::Sha256, Algorithm::Sha384, Algorithm::Sha512];

    pub(super) fn name(self) -> &'static str {
        match self {
            Algorithm::Md5 => "md5",
            Algorithm::Sha1 => "sha1",
            Algorithm::Sha224 => "sha224",
            Algorithm::Sha256 => "sha256",
            Algorithm::Sha384 => "sha384",
            Algorithm::Sha512 => "sha512",
            Algorithm::Sha512_256 => "sha512-256",
            Algorithm::Sha3_224 => "sha3-224",
            Algorithm::Sha3_256 => "sha3-256",
            Algorithm::Sha3_384 => "sha3-384",
            Algorithm::Sha3_512 => "sha3-512",
            Algorithm::Keccak256 => "keccak256",
            Algorithm::Shake128 => "shake128",
            Algorithm::Shake256 => "shake256",
            Algorithm::Blake2b => "blake2b",
            Algorithm::Blake2s => "blake2s",
            Algorithm::Blake3 => "blake3",
            Algorithm::Ripemd160 => "ripemd160",
            Algorithm::Md4 => "md4",
            Algorithm::Sm3 => "sm3",
            Algorithm::Whirlpool => "whirlpool",
        }
    }

    /// The output length when none is asked for, in bytes.
    fn default_length(self) -> usize {
        match self {
            Algorithm::Md5 | Algorithm::Md4 => 16,
            Algorithm::Sha1 | Algorithm::Ripemd160 => 20,
            Algorithm::Sha224 | Algorithm::Sha3_224 => 28,
            Algorithm::Sha384 | Algorithm::Sha3_384 => 48,
            Algorithm::Sha512 | Algorithm::Sha3_512 | Algorithm::Shake256 | Algorithm::Blake2b => 64,
            Algorithm::Whirlpool => 64,
            _ => 32,
        }
    }

    /// The output lengths that may be asked for, or `None` when the length is fixed.
    fn length_range(self) -> Option<(usize, usize)> {
        match self {
            Algorithm::Shake128 | Algorithm::Shake256 | Algorithm::Blake3 => Some((1, MAX_XOF_LENGTH)),
            Algorithm::Blake2b => Some((1, 64)),
            Algorithm::Blake2s => Some((1, 32)),
            _ => None,
        }
    }

    /// The key lengths a keyed mode takes, or `None` when the algorithm has no key.
    fn key_range(self) -> Option<(usize, usize)> {
        match self {
            Algorithm::Blake2b => Some((1, 64)),
            Algorithm::Blake2s => Some((1, 32)),
            Algorithm::Blake3 => Some((32, 32)),
            _ => None,
        }
    }

    /// Checks `options` against what this algorithm takes, naming the field that does not fit.
    pub(super) fn check(self, options: Options<'_>) -> Result<(), ApiError> {
        if let Some(length) = options.length {
            match self.length_range() {
                None => {
                    return Err(ApiError::invalid(
                        "length",
                        format!(
                            "{} always gives {} bytes; `length` applies to shake128, shake256, blake2b, blake2s and blake3",
                            self.name(),
                            self.default_length()
                        ),
                    ));
                }
                Some((min, max)) if !(min..=max).contains(&length) => {
                    return Err(ApiError::invalid(
                        "length",
                        format!("{} gives {min} to {max} bytes, not {length}", self.name()),
                    ));
                }
                Some(_) => {}
            }
        }
        if let Some(key) = options.key {
            match self.key_range() {
                None => {
                    return Err(ApiError::invalid(
                        "key",
                        format!(
                            "{} takes no key; blake2b, blake2s and blake3 have keyed modes, and hash/hmac keys the others",
                            self.name()
                        ),
                    ));
                }
                Some((min, max)) if !(min..=max).contains(&key.len()) => {
                    let want = if min == max { format!("exactly {min}") } else { format!("{min} to {max}") };
                    return Err(ApiError::invalid(
                        "key",
                        format!("a {} key is {want} bytes, not {}", self.name(), key.len()),
                    ));
                }
                Some(_) => {}
            }
        }
        Ok(())
    }

    /// The digest of `data` with the algorithm's defaults.
    pub(super) fn digest(self, data: &[u8]) -> Vec<u8> {
        self.digest_with(data, Options::default())
    }

    /// The digest of `data`; `options` must have passed [`Algorithm::check`].
    pub(super) fn digest_with(self, data: &[u8], options: Options<'_>) -> Vec<u8> {
        let length = options.length.unwrap_or_else(|| self.default_length());
        match self {
            Algorithm::Md5 => Md5::digest(data).to_vec(),
            Algorithm::Sha1 => Sha1::digest(data).to_vec(),
            Algorithm::Sha224 => sha2::Sha224::digest(data).to_vec(),
            Algorithm::Sha256 => Sha256::digest(data).to_vec(),
            Algorithm::Sha384 => Sha384::digest(data).to_vec(),
            Algorithm::Sha512 => Sha512::digest(data).to_vec(),
            Algorithm::Sha512_256 => sha2::Sha512_256::digest(data).to_vec(),
            Algorithm::Sha3_224 => sha3::Sha3_224::digest(data).to_vec(),
            Algorithm::Sha3_256 => sha3::Sha3_256::digest(data).to_vec(),
            Algorithm::Sha3_384 => sha3::Sha3_384::digest(data).to_vec(),
            Algorithm::Sha3_512 => sha3::Sha3_512::digest(data).to_vec(),
            Algorithm::Keccak256 => sha3::Keccak256::digest(data).to_vec(),
            Algorithm::Shake128 => xof(sha3::Shake128::default(), data, length),
            Algorithm::Shake256 => xof(sha3::Shake256::default(), data, length),
            Algorithm::Blake2b => {
                let mut params = blake2b_simd::Params::new();
                params.hash_length(length);
                if let Some(key) = options.key {
                    params.key(key);
                }
                params.hash(data).as_bytes().to_vec()
            }
            Algorithm::Blake2s => {
                let mut params = blake2s_simd::Params::new();
                params.hash_length(length);
                if let Some(key) = options.key {
                    params.key(key);
                }
                params.hash(data).as_bytes().to_vec()
            }
            Algorithm::Blake3 => {
                let mut hasher = match options.key.and_then(|k| <&[u8; 32]>::try_from(k).ok()) {
                    Some(key) => blake3::Hasher::new_keyed(key),
                    None => blake3::Hasher::new(),
                };
                hasher.update(data);
                let mut out = vec![0; length];
                hasher.finalize_xof().fill(&mut out);
                out
            }
            Algorithm::Ripemd160 => ripemd::Ripemd160::digest(data).to_vec(),
            Algorithm::Md4 => md4::Md4::digest(data).to_vec(),
            Algorithm::Sm3 => sm3::Sm3::digest(data).to_vec(),
            Algorithm::Whirlpool => whirlpool::Whirlpool::digest(data).to_vec(),
        }
    }
}

/// `length` bytes of an extendable-output function's stream over `data`.
fn xof<H: Update + ExtendableOutput>(mut hasher: H, data: &[u8], length: usize) -> Vec<u8> {
    hasher.update(data);
    let mut out = vec![0; length];
    hasher.finalize_xof().read(&mut out);
    out
}

#[derive(Debug, Deserialize, Serialize, JsonSchema, Validate, Clone, Copy, PartialEq)]
#[serde(rename_all = "lowercase")]
pub(super) enum Encoding {
    /// Lower-case hexadecimal.
    Hex,
    /// Standard Base64 with padding.
    Base64,
}

pub(super) fn hex_default() -> Encoding {
    Encoding::Hex
}

pub(super) fn encode(bytes: &[u8], encoding: Encoding) -> String {
    match encoding {
        Encoding::Hex => hex::encode(bytes),
        Encoding::Base64 => base64::engine::general_purpose::STANDARD.encode(bytes),
    }
}

/// Reads an `expected` digest written as `encoding` says (hex in either case); one that is
/// not is a 400 naming the field.
pub(super) fn read_expected(expected: &str, encoding: Encoding) -> Result<Vec<u8>, ApiError> {
    let convention = match encoding {
        Encoding::Hex => InputEncoding::Hex,
        Encoding::Base64 => InputEncoding::Base64,
    };
    byte_encoding::decode(expected.trim(), convention, "expected")
}

/// Whether `digest` is `expected`, in time that does not depend on where they differ.
pub(super) fn same(digest: &[u8], expected: &[u8]) -> bool {
    expected.len() == digest.len() && bool::from(subtle::ConstantTimeEq::ct_eq(digest, expected))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn digests_match_published_vectors() {
        let cases = [
            // RFC 1321, appendix A.5.
            (Algorithm::Md5, "", "d41d8cd98f00b204e9800998ecf8427e"),
            (Algorithm::Md5, "abc", "900150983cd24fb0d6963f7d28e17f72"),
            (Algorithm::Md5, "message digest", "f96b697d7cb7938d525a2f31aaf161d0"),
            // FIPS 180-2 appendix examples ("abc" and the 448-bit message).
            (Algorithm::Sha1, "abc", "a9993e364706816aba3e25717850c26c9cd0d89d"),
            (
                Algorithm::Sha1,
                "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
                "84983e441c3bd26ebaae4aa1f95129e5e54670f1",
            ),
            (Algorithm::Sha256, "abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
            (
                Algorithm::Sha256,
                "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
                "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1",
            ),
            (
                Algorithm::Sha384,
                "abc",
                "cb00753f45a35e8bb5a03d699ac65007272c32ab0eded1631a8b605a43ff5bed8086072ba1e7cc2358baeca134c825a7",
            ),
            (
                Algorithm::Sha512,
                "abc",
                "ddaf35a193617abacc417349ae20413112e6fa4e89a97ea20a9eeee64b55d39a2192992a274fc1a836ba3c23a3feebbd454d4423643ce80e2a9ac94fa54ca49f",
            ),
        ];
        for (alg, text, want) in cases {
            assert_eq!(hex::encode(alg.digest(text.as_bytes())), want, "{} of {text:?}", alg.name());
        }
    }

    /// Python's `hashlib`, PyPI pycryptodome (Keccak-256, MD4), PyPI blake3 and Debian's rhash
    /// (Whirlpool) on the same bytes, every algorithm at its default length, and SHAKE, BLAKE2
    /// and BLAKE3 at other lengths and with keys (tests/fixtures/digests.py).
    #[test]
    fn the_references_agree_on_every_algorithm() {
        let fixture = crate::testing::fixture("digests.json");
        let cases = fixture["defaults"].as_array().unwrap();
        assert!(cases.len() >= 5);
        let mut seen = std::collections::HashSet::new();
        for case in cases {
            let bytes = ::hex::decode(case["hex"].as_str().unwrap()).unwrap();
            for (name, want) in case["digests"].as_object().unwrap() {
                let algorithm: Algorithm = serde_json::from_value(json!(name)).unwrap();
                assert_eq!(algorithm.name(), name);
                seen.insert(algorithm);
                assert_eq!(hex::encode(algorithm.digest(&bytes)), want.as_str().unwrap(), "{name} of {}", case["hex"]);
            }
        }
        assert_eq!(seen.len(), Algorithm::ALL.len(), "every algorithm has a reference");
        let options = fixture["options"].as_array().unwrap();
        assert!(options.len() >= 20);
        for case in options {
            let algorithm: Algorithm = serde_json::from_value(case["algorithm"].clone()).unwrap();
            let bytes = ::hex::decode(case["hex"].as_str().unwrap()).unwrap();
            let key = case["key"].as_str().map(|k| ::hex::decode(k).unwrap());
            let options = Options { length: case["length"].as_u64().map(|l| l as usize), key: key.as_deref() };
            algorithm.check(options).unwrap();
            assert_eq!(hex::encode(algorithm.digest_with(&bytes, options)), case["digest"].as_str().unwrap(), "{case}");
        }
    }

    #[test]
    fn lengths_and_keys_are_checked_per_algorithm() {
        let long = Options { length: Some(65), key: None };
        assert_eq!(Algorithm::Blake2b.check(long).unwrap_err().field.as_deref(), Some("length"));
        assert!(Algorithm::Shake128.check(long).is_ok());
        let fixed = Options { length: Some(32), key: None };
        let e = Algorithm::Sha256.check(fixed).unwrap_err();
        assert!(e.message.contains("always gives 32 bytes"), "{}", e.message);
        let too_long = Options { length: Some(MAX_XOF_LENGTH + 1), key: None };
        assert!(Algorithm::Blake3.check(too_long).is_err());
        let short_key = Options { length: None, key: Some(&[1; 16]) };
        let e = Algorithm::Blake3.check(short_key).unwrap_err();
        assert_eq!((e.field.as_deref(), e.message.contains("exactly 32")), (Some("key"), true), "{}", e.message);
        assert!(Algorithm::Blake2s.check(short_key).is_ok());
        assert_eq!(Algorithm::Sha256.check(short_key).unwrap_err().field.as_deref(), Some("key"));
        assert!(Algorithm::Blake2b.check(Options { length: None, key: Some(&[]) }).is_err(), "an empty key is no key");
    }

    #[test]
    fn expected_digests_are_compared_whole() {
        let digest = Algorithm::Sha256.digest(b"abc");
        let hex = hex::encode(&digest);
        let read = |s: &str| read_expected(s, Encoding::Hex).unwrap();
        assert!(same(&digest, &read(&hex.to_uppercase())));
        assert!(!same(&digest, &read(&hex[..62])), "a prefix is not the digest");
        assert!(!same(&digest, &read(&format!("{}00", &hex[..62]))));
        assert_eq!(read_expected("xyz", Encoding::Hex).unwrap_err().field.as_deref(), Some("expected"));
    }
}
