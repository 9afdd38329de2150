//! Payment card numbers: Luhn check (ISO/IEC 7812-1 annex B) and brand by issuer prefix.
//!
//! The number never reaches a log (the request log holds no bodies) and the answer only
//! carries it masked, first six and last four digits, as PCI DSS allows them to be shown.

use wrench_kit::{card_brands::brand_of, checksum};

use wrench_contract::prelude::*;

#[derive(Debug, Deserialize, JsonSchema, Validate)]
#[serde(deny_unknown_fields)]
struct CardInput {
    /// The card number; spaces and dashes are ignored.
    #[schemars(length(min = 1, max = 64))]
    number: String,
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct CardOutput {
    /// Luhn-valid, of a known brand and of a length that brand issues.
    valid: bool,
    /// Whether the Luhn check digit is right.
    luhn_valid: bool,
    /// Brand identifier: visa, mastercard, amex, discover, diners, jcb, unionpay, maestro, mir;
    /// null when no known prefix matches.
    brand: Option<&'static str>,
    /// The brand's name.
    brand_name: Option<&'static str>,
    /// Whether the length is one the brand issues.
    length_valid: bool,
    /// Digits in the number.
    length: usize,
    /// Lengths the brand issues.
    expected_lengths: Vec<usize>,
    /// First six and last four digits, the rest as `*`.
    masked: String,
    /// Why the number is not valid; null when valid.
    reason: Option<String>,
}

/// Validate a payment card number (Luhn and brand).
///
/// Spaces and dashes are ignored; anything else but digits makes the number invalid. The brand
/// comes from the issuer prefix (Visa, Mastercard including the 2221-2720 range, American
/// Express, Discover, Diners Club, JCB, UnionPay, Maestro, Mir) and decides the lengths
/// accepted. This checks the number's form only: it says nothing about whether a card exists.
/// The number is never logged; the answer shows it masked.
#[op(post "/v1/validate/credit-card" as validateCreditCard, tag = SecurityAndValidation,
     example(visa, {"number": "4111 1111 1111 1111"}),
     example(mastercard_2_series, {"number": "2223-0031-2200-3222"}),
     example(bad_check_digit, {"number": "378282246310006"}))]
async fn validate_credit_card(input: CardInput) -> Result<CardOutput, ApiError> {
    Ok(check(&input.number))
}

fn check(text: &str) -> CardOutput {
    let digits: String = text.chars().filter(|c| !matches!(c, ' ' | '-')).collect();
    let parsed = checksum::digits(&digits).filter(|d| !d.is_empty());
    let only_digits = parsed.is_some();
    let brand = if only_digits { brand_of(&digits) } else { None };
    let length = digits.chars().count();
    let expected_lengths: Vec<usize> = brand.map_or_else(|| (12..=19).collect(), |b| b.lengths.to_vec());
    let length_valid = only_digits && expected_lengths.contains(&length);
    let luhn_valid = parsed.as_deref().is_some_and(checksum::luhn_valid);
    let reason = if !only_digits {
        Some("contains characters other than digits, spaces and dashes".to_string())
    } else if brand.is_none() {
        Some(format!("no card network in the table issues numbers starting with {}", &digits[..digits.len().min(4)]))
    } else if !length_valid {
        Some(match brand {
            Some(b) => format!("{} numbers have {} digits, not {length}", b.name, join(b.lengths)),
            None => format!("card numbers have 12 to 19 digits, not {length}"),
        })
    } else if !luhn_valid {
        Some("the Luhn check digit is wrong (a typo, or not a card number)".to_string())
    } else {
        None
    };
    let masked = if only_digits && length > 10 {
        format!("{}{}{}", &digits[..6], "*".repeat(length - 10), &digits[length - 4..])
    } else {
        "*".repeat(length.min(19))
    };
    CardOutput {
        valid: reason.is_none(),
        luhn_valid,
        brand: brand.map(|b| b.id),
        brand_name: brand.map(|b| b.name),
        length_valid,
        length,
        expected_lengths,
        masked,
        reason,
    }
}

fn join(lengths: &[usize]) -> String {
    let parts: Vec<String> = lengths.iter().map(usize::to_string).collect();
    match parts.as_slice() {
        [one] => one.clone(),
        [init @ .., last] => format!("{} or {last}", init.join(", ")),
        [] => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn published_test_numbers_validate_with_their_brand() {
        // The test card numbers payment processors publish for their sandboxes.
        let cases = [
            ("4111111111111111", "visa"),
            ("4012888888881881", "visa"),
            ("4222222222222", "visa"),
            ("5555555555554444", "mastercard"),
            ("5105105105105100", "mastercard"),
            ("2223003122003222", "mastercard"),
            ("378282246310005", "amex"),
            ("371449635398431", "amex"),
            ("6011111111111117", "discover"),
            ("6011000990139424", "discover"),
            ("30569309025904", "diners"),
            ("38520000023237", "diners"),
            ("3530111333300000", "jcb"),
            ("3566002020360505", "jcb"),
            ("6200000000000005", "unionpay"),
            ("6759649826438453", "maestro"),
            ("2200000000000004", "mir"),
        ];
        for (n, brand) in cases {
            let out = check(n);
            assert!(out.valid, "{n}: {:?}", out.reason);
            assert_eq!(out.brand, Some(brand), "{n}");
        }
    }

    #[test]
    fn invalid_numbers_say_why() {
        assert!(check("4111111111111112").reason.unwrap().contains("Luhn"));
        assert!(check("41111111111111").reason.unwrap().contains("Visa numbers have 13, 16 or 19 digits"));
        assert!(check("4111-1111-1111-111x").reason.unwrap().contains("characters other than digits"));
        assert_eq!(check("4111 1111-1111 1111").masked, "411111******1111");
        // Luhn-valid but issued by no card network.
        assert!(check("0000000000000000").reason.unwrap().contains("no card network"));
    }
}
