//! `number/base`: an integer of any size read in one base from 2 to 36 and written in others,
//! with an optional two's complement width for negative numbers and bit patterns.

use num_bigint::{BigInt, BigUint, Sign};
use num_traits::{One, Zero};

use wrench_contract::prelude::*;

/// The widest two's complement width.
const MAX_BIT_WIDTH: u32 = 16384;

#[derive(Debug, Deserialize, JsonSchema, Validate)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct NumberBaseInput {
    /// The integer: an optional sign, then digits of `from` (letters either case for digits
    /// above 9). At most 4,096 characters, so the widest answer (base 2 of 4,096 base-36
    /// digits) has about 21,200 digits. Underscores and spaces between digits are ignored. With `from` absent, a
    /// `0x`, `0o` or `0b` prefix picks the base, else it is decimal.
    #[schemars(length(min = 1, max = 4096))]
    value: String,
    /// The base `value` is written in, 2 to 36; absent, read from the prefix.
    #[serde(default)]
    #[schemars(range(min = 2, max = 36))]
    from: Option<u32>,
    /// The bases to write it in, 2 to 36 (default 2, 8, 10 and 16), in the order answered.
    #[serde(default = "default_bases")]
    #[schemars(length(min = 1, max = 35))]
    to: Vec<Radix>,
    /// A two's complement width in bits (1 to 16384): the value must fit it, and each base also
    /// gets the width's bit pattern in `twosComplement`.
    #[serde(default)]
    #[schemars(range(min = 1, max = 16384))]
    bit_width: Option<u32>,
    /// With `bitWidth`: read `value`'s digits as a two's complement pattern, so a pattern
    /// with its top bit set is negative (`ff` on 8 bits is -1).
    #[serde(default)]
    signed: bool,
    /// Digits above 9 in capitals.
    #[serde(default)]
    uppercase: bool,
}

fn default_bases() -> Vec<Radix> {
    [2, 8, 10, 16].into_iter().map(Radix).collect()
}

/// A base from 2 to 36, declared and checked as such.
#[derive(Debug, Clone, Copy, Deserialize)]
#[serde(transparent)]
struct Radix(u8);

impl JsonSchema for Radix {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "Radix".into()
    }

    fn inline_schema() -> bool {
        true
    }

    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({"type": "integer", "minimum": 2, "maximum": 36})
    }
}

impl Validate for Radix {
    fn validate(&self, path: &str) -> Result<(), wrench_contract::validate::FieldError> {
        if (2..=36).contains(&self.0) {
            return Ok(());
        }
        Err(wrench_contract::validate::FieldError {
            path: path.to_string(),
            message: format!("base {} is not from 2 to 36", self.0),
        })
    }
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct BaseDigits {
    /// The base, 2 to 36.
    base: u8,
    /// The integer in that base, with `-` when negative, no prefix.
    digits: String,
    /// With `bitWidth`: the width's two's complement pattern, zero-padded to the width's digits
    /// (exact for bases 2, 4, 8, 16 and 32; other bases write the pattern's value).
    #[serde(skip_serializing_if = "Option::is_none")]
    twos_complement: Option<String>,
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct NumberBaseOutput {
    /// The integer in decimal.
    decimal: String,
    /// The base `value` was read in.
    from: u32,
    /// The integer in each base of `to`.
    results: Vec<BaseDigits>,
    /// Bits the magnitude needs (0 for zero).
    bit_length: u64,
    negative: bool,
}

/// The value's sign, digits (separators dropped) and base.
fn read(input: &NumberBaseInput) -> Result<(BigInt, u32), ApiError> {
    let text = input.value.trim();
    let (negative, rest) = match text.as_bytes().first() {
        Some(b'-') => (true, &text[1..]),
        Some(b'+') => (false, &text[1..]),
        _ => (false, text),
    };
    let lower = rest.to_ascii_lowercase();
    let prefixed = |p: &str| lower.strip_prefix(p).map(str::to_string);
    let (base, digits) = match input.from {
        Some(16) if lower.starts_with("0x") => (16, prefixed("0x").unwrap_or_default()),
        Some(8) if lower.starts_with("0o") => (8, prefixed("0o").unwrap_or_default()),
        Some(2) if lower.starts_with("0b") => (2, prefixed("0b").unwrap_or_default()),
        Some(base) => (base, lower.clone()),
        None => match lower.get(..2) {
            Some("0x") => (16, lower[2..].to_string()),
            Some("0o") => (8, lower[2..].to_string()),
            Some("0b") => (2, lower[2..].to_string()),
            _ => (10, lower.clone()),
        },
    };
    if digits.starts_with(['_', ' ']) || digits.ends_with(['_', ' ']) {
        return Err(ApiError::invalid("value", "separators (_ or space) go between digits only"));
    }
    let clean: String = digits.chars().filter(|c| !matches!(c, '_' | ' ')).collect();
    if clean.is_empty() {
        return Err(ApiError::invalid("value", "has no digits"));
    }
    if let Some((i, c)) = clean.char_indices().find(|(_, c)| c.to_digit(base).is_none()) {
        return Err(ApiError::invalid("value", format!("{c:?} (digit {}) is not a base-{base} digit", i + 1)));
    }
    let magnitude = BigUint::parse_bytes(clean.as_bytes(), base)
        .ok_or_else(|| ApiError::invalid("value", format!("is not a base-{base} integer")))?;
    let sign = if negative && !magnitude.is_zero() { Sign::Minus } else { Sign::Plus };
    Ok((BigInt::from_biguint(sign, magnitude), base))
}

/// Digits of `n` in `base`, zero-padded to `width` digits.
fn padded(n: &BigUint, base: u32, width: usize, uppercase: bool) -> String {
    let digits = n.to_str_radix(base);
    let digits = if uppercase { digits.to_ascii_uppercase() } else { digits };
    format!("{}{digits}", "0".repeat(width.saturating_sub(digits.len())))
}

/// Convert an integer between bases 2 to 36.
///
/// Reads `value` in base `from` (or by its `0x`/`0o`/`0b` prefix) and writes it in each base of
/// `to`, at any size (up to 4,096 digits in). With `bitWidth` the value must fit that many
/// bits, and each base also gets the two's complement bit pattern; with `signed` too, the digits
/// are read as such a pattern. Agrees with Python's `int(value, base)`.
#[op(post "/v1/number/base" as numberBase, tag = DeveloperUtilities,
     rejects = "a digit outside the base, a base outside 2 to 36, or a value that does not fit bitWidth",
     example(hex_to_all, {"value": "0xff"}),
     example(big, {"value": "123456789012345678901234567890", "to": [16, 36]}),
     example(twos_complement, {"value": "-1", "bitWidth": 16, "to": [2, 16]}),
     example(signed_pattern, {"value": "ff", "from": 16, "bitWidth": 8, "signed": true, "to": [10]}),
     example(bad_digit, {"value": "12z", "from": 10}, status = 400))]
async fn number_base(input: NumberBaseInput) -> Result<NumberBaseOutput, ApiError> {
    let (mut value, from) = read(&input)?;
    let width = input.bit_width;
    if input.signed && width.is_none() {
        return Err(ApiError::invalid("signed", "needs bitWidth, the width of the pattern"));
    }
    let pattern_modulus = width.map(|w| BigInt::one() << w.min(MAX_BIT_WIDTH));
    if let (Some(w), Some(modulus)) = (width, &pattern_modulus) {
        let half = modulus >> 1u32;
        if input.signed {
            if value.sign() == Sign::Minus || &value >= modulus {
                return Err(ApiError::invalid("value", format!("is not a {w}-bit pattern (0 to 2^{w} - 1)")));
            }
            if value >= half {
                value -= modulus;
            }
        } else if value >= *modulus || value < -half.clone() {
            return Err(ApiError::invalid("value", format!("does not fit {w} bits (-2^{} to 2^{w} - 1)", w - 1)));
        }
    }
    let magnitude = value.magnitude().clone();
    let negative = value.sign() == Sign::Minus;
    let results = input
        .to
        .iter()
        .map(|&Radix(base)| {
            let base32 = u32::from(base);
            let body = padded(&magnitude, base32, 0, input.uppercase);
            let twos_complement = pattern_modulus.as_ref().zip(width).map(|(modulus, w)| {
                let pattern = if negative { modulus + &value } else { value.clone() };
                // Digits the width needs in this base: ceil(w / log2(base)) for powers of two.
                let bits_per_digit = if base.is_power_of_two() { base.trailing_zeros() } else { 0 };
                let digits = if bits_per_digit > 0 { w.div_ceil(bits_per_digit) as usize } else { 0 };
                padded(pattern.magnitude(), base32, digits, input.uppercase)
            });
            BaseDigits { base, digits: if negative { format!("-{body}") } else { body }, twos_complement }
        })
        .collect();
    Ok(NumberBaseOutput { decimal: value.to_string(), from, results, bit_length: magnitude.bits(), negative })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn input(value: &str, from: Option<u32>, to: &[u8]) -> NumberBaseInput {
        NumberBaseInput {
            value: value.into(),
            from,
            to: to.iter().copied().map(Radix).collect(),
            bit_width: None,
            signed: false,
            uppercase: false,
        }
    }

    /// Python's `int(text, base)` and its digits in every base from 2 to 36 (four bases for the
    /// longest)
    /// (tests/fixtures/number_forms.py), on generated integers up to 4,096 digits, negative ones
    /// and ones with separators among them.
    #[tokio::test]
    async fn pythons_integers_in_every_base() {
        let f = crate::testing::fixture("number_forms.json");
        let cases = f["base"].as_array().unwrap();
        assert!(cases.len() >= 200);
        for c in cases {
            let text = c["value"].as_str().unwrap();
            let from = c["from"].as_u64().map(|b| b as u32);
            let to: Vec<u8> = c["to"].as_array().unwrap().iter().map(|b| b.as_u64().unwrap() as u8).collect();
            let out = number_base(input(text, from, &to)).await.unwrap();
            assert_eq!(out.decimal, c["decimal"].as_str().unwrap(), "{text} in {from:?}");
            let digits: Vec<&str> = out.results.iter().map(|r| r.digits.as_str()).collect();
            let want: Vec<&str> = c["digits"].as_array().unwrap().iter().map(|d| d.as_str().unwrap()).collect();
            assert_eq!(digits, want, "{text}");
            assert_eq!(out.bit_length, c["bitLength"].as_u64().unwrap(), "{text}");
        }
        // The longest value admitted, in base 36, written in base 2.
        let longest = "z".repeat(4096);
        let out = number_base(input(&longest, Some(36), &[2])).await.unwrap();
        assert_eq!(out.results[0].digits.len() as u64, out.bit_length);
        assert!(out.bit_length > 21_000);
    }

    /// Two's complement against Python's `value & (2**w - 1)` and its reading back.
    #[tokio::test]
    async fn twos_complement_patterns() {
        let mut i = input("-1", None, &[2, 16, 10]);
        i.bit_width = Some(12);
        let out = number_base(i).await.unwrap();
        let tc: Vec<_> = out.results.iter().map(|r| r.twos_complement.clone().unwrap()).collect();
        assert_eq!(tc, ["111111111111", "fff", "4095"]);
        let mut i = input("0x80", None, &[10]);
        (i.bit_width, i.signed) = (Some(8), true);
        assert_eq!(number_base(i).await.unwrap().decimal, "-128");
        let mut i = input("5", None, &[2]);
        i.bit_width = Some(8);
        assert_eq!(number_base(i).await.unwrap().results[0].twos_complement.as_deref(), Some("00000101"));
        for (value, width, signed) in [("256", 8, false), ("-129", 8, false), ("-1", 8, true), ("1ff", 8, true)] {
            let mut i = input(value, if value == "1ff" { Some(16) } else { None }, &[2]);
            (i.bit_width, i.signed) = (Some(width), signed);
            let e = number_base(i).await.unwrap_err();
            assert_eq!(e.field.as_deref(), Some("value"), "{value}");
        }
    }

    #[tokio::test]
    async fn refusals_name_the_field() {
        for (value, from, field) in [
            ("12z", Some(10), "value"),
            ("", None, "value"),
            ("0x", None, "value"),
            ("_1", None, "value"),
            ("2", Some(2), "value"),
        ] {
            let e = number_base(input(value, from, &[2])).await.unwrap_err();
            assert_eq!(e.field.as_deref(), Some(field), "{value}");
        }
        assert_eq!(Radix(37).validate("to[0]").unwrap_err().path, "to[0]");
    }
}
