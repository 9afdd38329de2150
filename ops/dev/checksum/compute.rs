//! `checksum`: one checksum of the bytes by name, or all of them.

use std::borrow::Cow;

use wrench_contract::prelude::*;
use wrench_contract::validate::FieldError;
use wrench_kit::byte_encoding::{self, InputEncoding};

use super::crc_catalogue::CATALOGUE;
use super::sums::Sum;

/// Above this many bytes the work goes to the CPU pool: `all` reads the input 128 times.
const INLINE_BYTES: usize = 64 * 1024;

/// An algorithm by name: a catalogued CRC (by its name or an alias), another sum, or `all`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(try_from = "String")]
enum Named {
    /// The catalogue's entry, and which of its names it was asked by (0 its own, then its
    /// aliases).
    Crc(usize, usize),
    Sum(Sum),
    All,
}

impl Named {
    /// Every name the operation takes, in the order the document lists them.
    fn names() -> impl Iterator<Item = &'static str> {
        CATALOGUE
            .iter()
            .flat_map(|c| std::iter::once(c.name).chain(c.aliases.iter().copied()))
            .chain(Sum::ALL.iter().map(|s| s.name()))
            .chain(std::iter::once("all"))
    }
}

impl TryFrom<String> for Named {
    type Error = String;
    fn try_from(name: String) -> Result<Self, String> {
        if name == "all" {
            return Ok(Named::All);
        }
        if let Some(sum) = Sum::ALL.iter().find(|s| s.name() == name) {
            return Ok(Named::Sum(*sum));
        }
        CATALOGUE
            .iter()
            .enumerate()
            .find_map(|(i, c)| {
                std::iter::once(&c.name).chain(c.aliases).position(|n| *n == name).map(|n| Named::Crc(i, n))
            })
            .ok_or_else(|| {
                format!(
                    "{name:?} is not a checksum wrench knows: CRCs go by the CRC catalogue's names in lower case (crc-32/iso-hdlc, crc-32, crc-16/modbus), the others are adler32, fletcher16/32/64, fnv1a-32/64, internet, xor8, xxh32, xxh64, xxh3-64, xxh3-128, murmur3-32, murmur3-128 and luhn, or all"
                )
            })
    }
}

impl JsonSchema for Named {
    fn schema_name() -> Cow<'static, str> {
        "ChecksumAlgorithm".into()
    }

    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        let names: Vec<&str> = Named::names().collect();
        schemars::json_schema!({
            "type": "string",
            "description": "A CRC by the CRC catalogue's name or one of its aliases, in lower case; another checksum; or `all`.",
            "enum": names,
        })
    }
}

impl Validate for Named {
    fn validate(&self, _: &str) -> Result<(), FieldError> {
        Ok(())
    }
}

#[derive(Debug, Deserialize, JsonSchema, Validate)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct ChecksumInput {
    /// What to sum: text (its UTF-8 bytes), or bytes written as `inputEncoding` says.
    text: String,
    /// How `text` carries its bytes: `utf-8` (the default), `hex`, `base64` or `base64url`.
    #[serde(default)]
    input_encoding: InputEncoding,
    /// Which checksum: any of the 113 CRCs of the CRC catalogue by its name or an alias
    /// (`crc-32/iso-hdlc` alias `crc-32` is zlib's and ZIP's, `crc-32/iscsi` alias `crc-32c`,
    /// `crc-16/modbus`, `crc-16/xmodem`, `crc-64/xz`), `adler32`, `fletcher16`, `fletcher32`,
    /// `fletcher64`, `fnv1a-32`, `fnv1a-64`, `internet` (RFC 1071), `xor8`, `xxh32`, `xxh64`,
    /// `xxh3-64`, `xxh3-128`, `murmur3-32`, `murmur3-128`, `luhn`; or `all` of them.
    algorithm: Named,
    /// The seed of xxHash and MurmurHash3 (0 by default); the others take none.
    #[serde(default)]
    #[schemars(range(min = 0, max = 4294967295u32))]
    seed: u32,
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct ChecksumValue {
    /// The checksum in lower-case hex, zero-padded to its width (MurmurHash3-128: its 16
    /// bytes in output order).
    hex: String,
    /// The checksum as an unsigned decimal number, in a string since it may pass 2^53.
    decimal: String,
    /// Its width in bits.
    bits: u16,
    /// Luhn only: whether the number, last digit included, passes.
    #[serde(skip_serializing_if = "Option::is_none")]
    valid: Option<bool>,
    /// Luhn only: the digit that, appended to the number, makes it pass.
    #[serde(skip_serializing_if = "Option::is_none")]
    check_digit: Option<String>,
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct ChecksumOutput {
    /// Each checksum, by the name asked for (by the catalogue's name with `all`).
    checksums: indexmap::IndexMap<String, ChecksumValue>,
    /// With `all`, the checksums that do not apply to these bytes and why (Luhn of what is not
    /// a decimal number).
    #[serde(skip_serializing_if = "indexmap::IndexMap::is_empty")]
    skipped: indexmap::IndexMap<String, String>,
    /// How many bytes were summed.
    bytes: usize,
}

fn crc_value(index: usize, data: &[u8]) -> ChecksumValue {
    let c = &CATALOGUE[index];
    let value = (c.run)(data);
    let digits = usize::from(c.width).div_ceil(4);
    ChecksumValue {
        hex: format!("{value:0digits$x}"),
        decimal: value.to_string(),
        bits: c.width.into(),
        valid: None,
        check_digit: None,
    }
}

fn sum_value(sum: Sum, data: &[u8], seed: u32) -> Result<ChecksumValue, String> {
    let v = sum.compute(data, seed)?;
    let digits = usize::from(v.bits).div_ceil(4);
    Ok(ChecksumValue {
        hex: v.hex.unwrap_or_else(|| format!("{:0digits$x}", v.value)),
        decimal: v.value.to_string(),
        bits: v.bits,
        valid: v.luhn.as_ref().map(|l| l.valid),
        check_digit: v.luhn.map(|l| l.check_digit.to_string()),
    })
}

fn compute(named: Named, name: String, data: &[u8], seed: u32) -> Result<ChecksumOutput, ApiError> {
    let mut checksums = indexmap::IndexMap::new();
    let mut skipped = indexmap::IndexMap::new();
    match named {
        Named::Crc(index, _) => {
            checksums.insert(name, crc_value(index, data));
        }
        Named::Sum(sum) => {
            checksums.insert(name, sum_value(sum, data, seed).map_err(|e| ApiError::invalid("text", e))?);
        }
        Named::All => {
            for (index, c) in CATALOGUE.iter().enumerate() {
                checksums.insert(c.name.to_string(), crc_value(index, data));
            }
            for sum in Sum::ALL {
                match sum_value(sum, data, seed) {
                    Ok(v) => {
                        checksums.insert(sum.name().to_string(), v);
                    }
                    Err(why) => {
                        skipped.insert(sum.name().to_string(), why);
                    }
                }
            }
        }
    }
    Ok(ChecksumOutput { checksums, skipped, bytes: data.len() })
}

/// Compute a CRC, Adler, Fletcher, FNV, xxHash, MurmurHash3 or Luhn checksum.
///
/// Sums the UTF-8 bytes of `text` (or, with `inputEncoding`, the bytes it carries in hex or
/// Base64) with any of the 113 CRCs of the CRC catalogue (named as the catalogue names them,
/// aliases included, in lower case), Adler-32, Fletcher-16/32/64, FNV-1a 32 and 64, the
/// internet checksum of RFC 1071, an XOR of the bytes, xxHash32, xxHash64, XXH3 64 and 128,
/// MurmurHash3 32 and 128 (`seed` for those two families), or Luhn's digit of a decimal
/// number; or `all` of them at once. Each answers in zero-padded hex and in decimal. These
/// detect accidents, not tampering: for integrity against an adversary use `hash` or
/// `hash/hmac`.
#[op(post "/v1/checksum" as checksum, tag = DeveloperUtilities,
     rejects = "`text` that is not in its `inputEncoding`, or `luhn` of what is not a decimal number",
     example(crc32, {"text": "123456789", "algorithm": "crc-32"}),
     example(modbus_frame, {"text": "01030000000a", "inputEncoding": "hex", "algorithm": "crc-16/modbus"}),
     example(xxh64_seeded, {"text": "wrench", "algorithm": "xxh64", "seed": 42}),
     example(luhn_digit, {"text": "7992739871", "algorithm": "luhn"}),
     example(every_checksum, {"text": "123456789", "algorithm": "all"}),
     example(unknown, {"text": "abc", "algorithm": "crc-33"}, status = 400))]
async fn checksum(input: ChecksumInput) -> Result<ChecksumOutput, ApiError> {
    let data = byte_encoding::decode(&input.text, input.input_encoding, "text")?;
    let name = match input.algorithm {
        Named::Crc(i, 0) => CATALOGUE[i].name.to_string(),
        Named::Crc(i, alias) => CATALOGUE[i].aliases[alias - 1].to_string(),
        Named::Sum(s) => s.name().to_string(),
        Named::All => "all".to_string(),
    };
    let (named, seed) = (input.algorithm, input.seed);
    if data.len() <= INLINE_BYTES {
        return compute(named, name, &data, seed);
    }
    wrench_infra::cpu::run(move || compute(named, name, &data, seed)).await
}

#[cfg(test)]
mod tests {
    use super::*;

    /// PyPI crccheck (every catalogued CRC), Python's zlib (CRC-32, Adler-32), PyPI xxhash
    /// and mmh3 (the C and C++ reference code behind bindings), on bytes of many lengths
    /// (tests/fixtures/checksums.py).
    #[test]
    fn the_references_agree_on_every_checksum() {
        let fixture = crate::testing::fixture("checksums.json");
        let cases = fixture.as_array().unwrap();
        assert!(cases.len() >= 8);
        let mut compared = 0;
        for case in cases {
            let data = ::hex::decode(case["hex"].as_str().unwrap()).unwrap();
            let seed = case["seed"].as_u64().unwrap() as u32;
            let all = compute(Named::All, "all".into(), &data, seed).unwrap();
            for (name, want) in case["checksums"].as_object().unwrap() {
                let named = Named::try_from(name.clone()).unwrap_or_else(|e| panic!("{e}"));
                let got = compute(named, name.clone(), &data, seed).unwrap();
                let got = &got.checksums[name.as_str()];
                assert_eq!(got.hex, want["hex"].as_str().unwrap(), "{name} of {}", case["hex"]);
                assert_eq!(got.decimal, want["decimal"].as_str().unwrap(), "{name} of {}", case["hex"]);
                let primary = match named {
                    Named::Crc(i, _) => CATALOGUE[i].name,
                    _ => name.as_str(),
                };
                assert_eq!(all.checksums[primary].hex, got.hex, "all gives {name} the same");
                compared += 1;
            }
        }
        assert!(compared > 113 * 8, "{compared}");
    }

    #[test]
    fn aliases_answer_under_the_name_asked() {
        let alias = Named::try_from("crc-32".to_string()).unwrap();
        let own = Named::try_from("crc-32/iso-hdlc".to_string()).unwrap();
        assert!(
            matches!((alias, own), (Named::Crc(a, 1), Named::Crc(b, 0)) if a == b && CATALOGUE[a].aliases[0] == "crc-32")
        );
        assert!(Named::try_from("CRC-32".to_string()).is_err(), "the document lists lower case only");
        let e = Named::try_from("crc-33".to_string()).unwrap_err();
        assert!(e.contains("CRC catalogue"), "{e}");
    }

    #[test]
    fn all_skips_luhn_of_what_is_not_a_number_and_says_why() {
        let out = compute(Named::All, "all".into(), b"abc", 0).unwrap();
        assert_eq!(out.checksums.len(), 113 + 14);
        assert!(out.skipped["luhn"].contains("decimal digits"), "{:?}", out.skipped);
        let e = compute(Named::Sum(Sum::Luhn), "luhn".into(), b"abc", 0).unwrap_err();
        assert_eq!(e.field.as_deref(), Some("text"));
    }

    #[test]
    fn the_document_lists_every_name_once() {
        let names: Vec<&str> = Named::names().collect();
        let unique: std::collections::HashSet<&str> = names.iter().copied().collect();
        assert_eq!(names.len(), unique.len());
        for name in names {
            Named::try_from(name.to_string()).unwrap();
        }
    }
}
