//! The checksums that are not CRCs: Adler-32 (RFC 1950), Fletcher's sums, FNV-1a, the
//! internet checksum (RFC 1071), an XOR of the bytes, xxHash, MurmurHash3 and the Luhn digit.
//! Each gives an unsigned number of a fixed width; the op writes it in hex and decimal.

use serde::Serialize;
use wrench_contract::prelude::JsonSchema;

use super::murmur3;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, JsonSchema)]
pub(super) enum Sum {
    /// Adler-32 (RFC 1950), zlib's.
    #[serde(rename = "adler32")]
    Adler32,
    /// Fletcher-16: two sums of the bytes modulo 255.
    #[serde(rename = "fletcher16")]
    Fletcher16,
    /// Fletcher-32: two sums of little-endian 16-bit words modulo 65,535 (an odd last byte is
    /// padded with zero).
    #[serde(rename = "fletcher32")]
    Fletcher32,
    /// Fletcher-64: two sums of little-endian 32-bit words modulo 2^32 - 1 (zero-padded).
    #[serde(rename = "fletcher64")]
    Fletcher64,
    /// FNV-1a, 32 bits.
    #[serde(rename = "fnv1a-32")]
    Fnv1a32,
    /// FNV-1a, 64 bits.
    #[serde(rename = "fnv1a-64")]
    Fnv1a64,
    /// The internet checksum of IP, TCP and UDP headers (RFC 1071): the ones' complement of
    /// the ones' complement sum of big-endian 16-bit words.
    #[serde(rename = "internet")]
    Internet,
    /// Every byte XORed together (a longitudinal parity byte).
    #[serde(rename = "xor8")]
    Xor8,
    /// xxHash32.
    #[serde(rename = "xxh32")]
    Xxh32,
    /// xxHash64.
    #[serde(rename = "xxh64")]
    Xxh64,
    /// XXH3, 64 bits.
    #[serde(rename = "xxh3-64")]
    Xxh3_64,
    /// XXH3, 128 bits.
    #[serde(rename = "xxh3-128")]
    Xxh3_128,
    /// MurmurHash3 x86 32-bit.
    #[serde(rename = "murmur3-32")]
    Murmur3_32,
    /// MurmurHash3 x64 128-bit.
    #[serde(rename = "murmur3-128")]
    Murmur3_128,
    /// The Luhn (mod 10) digit of a decimal number (card numbers, IMEIs).
    #[serde(rename = "luhn")]
    Luhn,
}

/// What a sum came to: its value, its width, and for Luhn the verdict on the number.
#[derive(Debug)]
pub(super) struct Value {
    pub value: u128,
    pub bits: u16,
    /// The hex digits, when they are not the value's big-endian digits (MurmurHash3-128 writes
    /// its two halves as bytes in output order, as the reference does).
    pub hex: Option<String>,
    pub luhn: Option<Luhn>,
}

#[derive(Debug)]
pub(super) struct Luhn {
    /// Whether the number, its last digit included, passes.
    pub valid: bool,
    /// The digit that, appended to the number, makes it pass.
    pub check_digit: u8,
}

impl Sum {
    pub(super) const ALL: [Sum; 15] = [
        Sum::Adler32,
        Sum::Fletcher16,
        Sum::Fletcher32,
        Sum::Fletcher64,
        Sum::Fnv1a32,
        Sum::Fnv1a64,
        Sum::Internet,
        Sum::Xor8,
        Sum::Xxh32,
        Sum::Xxh64,
        Sum::Xxh3_64,
        Sum::Xxh3_128,
        Sum::Murmur3_32,
        Sum::Murmur3_128,
        Sum::Luhn,
    ];

    pub(super) fn name(self) -> &'static str {
        match self {
            Sum::Adler32 => "adler32",
            Sum::Fletcher16 => "fletcher16",
            Sum::Fletcher32 => "fletcher32",
            Sum::Fletcher64 => "fletcher64",
            Sum::Fnv1a32 => "fnv1a-32",
            Sum::Fnv1a64 => "fnv1a-64",
            Sum::Internet => "internet",
            Sum::Xor8 => "xor8",
            Sum::Xxh32 => "xxh32",
            Sum::Xxh64 => "xxh64",
            Sum::Xxh3_64 => "xxh3-64",
            Sum::Xxh3_128 => "xxh3-128",
            Sum::Murmur3_32 => "murmur3-32",
            Sum::Murmur3_128 => "murmur3-128",
            Sum::Luhn => "luhn",
        }
    }

    /// The sum of `data`; `seed` seeds xxHash and MurmurHash3. Luhn reads `data` as decimal
    /// digits (spaces and hyphens between them ignored) and answers why not when it is not.
    pub(super) fn compute(self, data: &[u8], seed: u32) -> Result<Value, String> {
        let plain = |value: u128, bits: u16| Ok(Value { value, bits, hex: None, luhn: None });
        match self {
            Sum::Adler32 => plain(adler2::adler32_slice(data).into(), 32),
            Sum::Fletcher16 => plain(fletcher::<1>(data, 255).into(), 16),
            Sum::Fletcher32 => plain(fletcher::<2>(data, 65_535).into(), 32),
            Sum::Fletcher64 => plain(fletcher::<4>(data, u32::MAX.into()).into(), 64),
            Sum::Fnv1a32 => {
                let h = data.iter().fold(0x811c_9dc5_u32, |h, &b| (h ^ u32::from(b)).wrapping_mul(0x0100_0193));
                plain(h.into(), 32)
            }
            Sum::Fnv1a64 => {
                let h = data
                    .iter()
                    .fold(0xcbf2_9ce4_8422_2325_u64, |h, &b| (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3));
                plain(h.into(), 64)
            }
            Sum::Internet => plain(internet(data).into(), 16),
            Sum::Xor8 => plain(data.iter().fold(0u8, |x, &b| x ^ b).into(), 8),
            Sum::Xxh32 => plain(twox_hash::XxHash32::oneshot(seed, data).into(), 32),
            Sum::Xxh64 => plain(twox_hash::XxHash64::oneshot(seed.into(), data).into(), 64),
            Sum::Xxh3_64 => plain(twox_hash::XxHash3_64::oneshot_with_seed(seed.into(), data).into(), 64),
            Sum::Xxh3_128 => plain(twox_hash::XxHash3_128::oneshot_with_seed(seed.into(), data), 128),
            Sum::Murmur3_32 => plain(murmur3::x86_32(data, seed).into(), 32),
            Sum::Murmur3_128 => {
                let (h1, h2) = murmur3::x64_128(data, seed);
                let mut bytes = h1.to_le_bytes().to_vec();
                bytes.extend_from_slice(&h2.to_le_bytes());
                let value = u128::from(h1) | (u128::from(h2) << 64);
                Ok(Value { value, bits: 128, hex: Some(hex::encode(bytes)), luhn: None })
            }
            Sum::Luhn => {
                let digits = luhn_digits(data)?;
                let (sum, check_digit) = luhn(&digits);
                let verdict = Luhn { valid: sum == 0, check_digit };
                Ok(Value { value: sum.into(), bits: 4, hex: None, luhn: Some(verdict) })
            }
        }
    }
}

/// Fletcher's checksum over little-endian words of `N` bytes (the last zero-padded): a running
/// sum and a sum of the running sums, both modulo `modulus`, the second in the high half.
fn fletcher<const N: usize>(data: &[u8], modulus: u64) -> u64 {
    let (mut a, mut b) = (0u64, 0u64);
    for chunk in data.chunks(N) {
        let mut word = [0u8; 8];
        word[..chunk.len()].copy_from_slice(chunk);
        a = (a + u64::from_le_bytes(word)) % modulus;
        b = (b + a) % modulus;
    }
    (b << (8 * N)) | a
}

/// RFC 1071: big-endian 16-bit words (an odd last byte padded with zero) summed with the
/// carries folded back in, then complemented.
fn internet(data: &[u8]) -> u16 {
    let mut sum: u64 =
        data.chunks(2).map(|c| u64::from(u16::from_be_bytes([c[0], c.get(1).copied().unwrap_or(0)]))).sum();
    while sum >> 16 != 0 {
        sum = (sum & 0xffff) + (sum >> 16);
    }
    !(sum as u16)
}

/// The digits of a decimal number, separators (space, hyphen) dropped.
fn luhn_digits(data: &[u8]) -> Result<Vec<u8>, String> {
    let mut digits = Vec::with_capacity(data.len());
    for (i, &b) in data.iter().enumerate() {
        match b {
            b'0'..=b'9' => digits.push(b - b'0'),
            b' ' | b'-' => {}
            _ => return Err(format!("luhn reads decimal digits; byte {i} is {:?}", char::from(b))),
        }
    }
    if digits.is_empty() {
        return Err("luhn reads decimal digits; there are none".into());
    }
    Ok(digits)
}

/// The Luhn sum of `digits` modulo 10 (0 when the number passes), and the check digit that
/// appended to `digits` would make it pass.
fn luhn(digits: &[u8]) -> (u8, u8) {
    // Doubling every second digit from the right, starting with the last (`double_last`) or
    // with the one before it.
    let sum = |double_last: bool| -> u32 {
        digits
            .iter()
            .rev()
            .enumerate()
            .map(|(i, &d)| {
                let d = u32::from(d);
                if (i % 2 == 0) == double_last {
                    let twice = d * 2;
                    if twice > 9 { twice - 9 } else { twice }
                } else {
                    d
                }
            })
            .sum()
    };
    ((sum(false) % 10) as u8, ((10 - sum(true) % 10) % 10) as u8)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn value(sum: Sum, data: &[u8]) -> u128 {
        sum.compute(data, 0).unwrap().value
    }

    /// Wikipedia's examples for Fletcher's checksum, with its (little-endian word) convention.
    #[test]
    fn fletcher_matches_the_published_examples() {
        let cases: [(&[u8], u128, u128, u128); 3] = [
            (b"abcde", 0xC8F0, 0xF04F_C729, 0xC8C6_C527_6463_62C6),
            (b"abcdef", 0x2057, 0x5650_2D2A, 0xC8C7_2B27_6463_C8C6),
            (b"abcdefgh", 0x0627, 0xEBE1_9591, 0x312E_2B28_CCCA_C8C6),
        ];
        for (data, f16, f32, f64) in cases {
            assert_eq!(value(Sum::Fletcher16, data), f16);
            assert_eq!(value(Sum::Fletcher32, data), f32);
            assert_eq!(value(Sum::Fletcher64, data), f64);
        }
    }

    /// The FNV reference's examples (draft-eastlake-fnv, appendix C).
    #[test]
    fn fnv1a_matches_the_reference() {
        assert_eq!(value(Sum::Fnv1a32, b""), 0x811c_9dc5);
        assert_eq!(value(Sum::Fnv1a32, b"a"), 0xe40c_292c);
        assert_eq!(value(Sum::Fnv1a32, b"foobar"), 0xbf9c_f968);
        assert_eq!(value(Sum::Fnv1a64, b""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(value(Sum::Fnv1a64, b"a"), 0xaf63_dc4c_8601_ec8c);
        assert_eq!(value(Sum::Fnv1a64, b"foobar"), 0x8594_4171_f739_67e8);
    }

    /// RFC 1071 section 3's example: words 0001 f203 f4f5 f6f7 sum to ddf2.
    #[test]
    fn the_internet_checksum_matches_rfc_1071() {
        assert_eq!(value(Sum::Internet, &[0x00, 0x01, 0xf2, 0x03, 0xf4, 0xf5, 0xf6, 0xf7]), 0x220d);
        // An odd byte is the high half of a last word.
        assert_eq!(value(Sum::Internet, &[0x01]), 0xfeff);
    }

    #[test]
    fn luhn_checks_and_completes_numbers() {
        // The classic example: 7992739871 needs a 3.
        let out = Sum::Luhn.compute(b"7992739871", 0).unwrap();
        let verdict = out.luhn.unwrap();
        assert_eq!((verdict.valid, verdict.check_digit), (false, 3));
        let out = Sum::Luhn.compute(b"7992739871 3", 0).unwrap();
        assert_eq!((out.value, out.luhn.unwrap().valid), (0, true));
        // A Visa test number, with separators.
        assert!(Sum::Luhn.compute(b"4111-1111-1111-1111", 0).unwrap().luhn.unwrap().valid);
        assert!(Sum::Luhn.compute(b"41x1", 0).unwrap_err().contains("byte 2"));
        assert!(Sum::Luhn.compute(b" - ", 0).is_err());
    }
}
