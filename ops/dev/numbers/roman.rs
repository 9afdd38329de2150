//! `number/roman`: integers from 1 to 3999 to Roman numerals and back, in the standard
//! subtractive form only (`IV`, never `IIII`), so that every numeral read has exactly one
//! spelling and writing it again gives the same text.

use wrench_contract::prelude::*;

#[derive(Debug, Deserialize, JsonSchema, Validate)]
#[serde(deny_unknown_fields)]
struct RomanInput {
    /// An integer to write as a numeral, 1 to 3999. Give this or `roman`.
    #[serde(default)]
    #[schemars(range(min = 1, max = 3999))]
    value: Option<u16>,
    /// A numeral to read (`MCMXCIV`), either letter case. Give this or `value`.
    #[serde(default)]
    #[schemars(length(min = 1, max = 32))]
    roman: Option<String>,
}

#[derive(Debug, Serialize, JsonSchema)]
struct RomanOutput {
    /// The numeral, upper case.
    roman: String,
    /// The integer.
    value: u16,
}

/// The symbols from the largest, each subtractive pair among them.
const SYMBOLS: [(u16, &str); 13] = [
    (1000, "M"),
    (900, "CM"),
    (500, "D"),
    (400, "CD"),
    (100, "C"),
    (90, "XC"),
    (50, "L"),
    (40, "XL"),
    (10, "X"),
    (9, "IX"),
    (5, "V"),
    (4, "IV"),
    (1, "I"),
];

fn to_roman(mut value: u16) -> String {
    let mut out = String::new();
    for (n, symbol) in SYMBOLS {
        while value >= n {
            out.push_str(symbol);
            value -= n;
        }
    }
    out
}

/// The numeral's value when it is written in the standard form: read greedily, then written
/// again, and only accepted when that gives back the same text (this refuses `IIII`, `VX`,
/// `IC` and `MMMM` alike).
fn from_roman(text: &str) -> Result<u16, String> {
    let upper = text.trim().to_ascii_uppercase();
    if let Some(bad) = upper.chars().find(|c| !"MDCLXVI".contains(*c)) {
        return Err(format!("{bad:?} is not a Roman numeral letter (I, V, X, L, C, D, M)"));
    }
    let mut rest = upper.as_str();
    let mut value: u32 = 0;
    for (n, symbol) in SYMBOLS {
        while let Some(tail) = rest.strip_prefix(symbol) {
            value += u32::from(n);
            rest = tail;
        }
    }
    match u16::try_from(value) {
        Ok(v) if rest.is_empty() && (1..=3999).contains(&v) && to_roman(v) == upper => Ok(v),
        _ => Err(format!("{:?} is not a numeral in standard form from I to MMMCMXCIX", text.trim())),
    }
}

/// Convert between integers and Roman numerals.
///
/// Give `value` (1 to 3999) for its numeral, or `roman` for its value; both are answered. Only
/// the standard subtractive form is read (`XIV`, not `XIIII` or `IVX`), as PyPI `roman`'s
/// `fromRoman` reads it; letter case does not matter.
#[op(post "/v1/number/roman" as numberRoman, tag = DeveloperUtilities,
     rejects = "both or neither of value and roman, or a numeral not in standard form",
     example(to_numeral, {"value": 1994}),
     example(from_numeral, {"roman": "mmxxvi"}),
     example(not_standard, {"roman": "IIII"}, status = 400))]
async fn number_roman(input: RomanInput) -> Result<RomanOutput, ApiError> {
    match (input.value, input.roman) {
        (Some(value), None) => Ok(RomanOutput { roman: to_roman(value), value }),
        (None, Some(text)) => {
            let value = from_roman(&text).map_err(|why| ApiError::invalid("roman", why))?;
            Ok(RomanOutput { roman: to_roman(value), value })
        }
        (Some(_), Some(_)) => Err(ApiError::invalid("roman", "give value or roman, not both")),
        (None, None) => Err(ApiError::invalid("value", "give value (1 to 3999) or roman")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// PyPI `roman` (tests/fixtures/number_forms.py): `toRoman` of every integer from 1 to 3999, and
    /// `fromRoman`'s verdict on generated strings of numeral letters, valid and not.
    #[test]
    fn every_numeral_and_pythons_verdicts() {
        let f = crate::testing::fixture("number_forms.json");
        let all = f["roman"].as_array().unwrap();
        assert_eq!(all.len(), 3999);
        for (i, numeral) in all.iter().enumerate() {
            let value = i as u16 + 1;
            assert_eq!(to_roman(value), numeral.as_str().unwrap());
            assert_eq!(from_roman(numeral.as_str().unwrap()), Ok(value));
        }
        let verdicts = f["romanRead"].as_array().unwrap();
        assert!(verdicts.len() >= 500);
        for c in verdicts {
            let text = c["text"].as_str().unwrap();
            assert_eq!(from_roman(text).ok(), c["value"].as_u64().map(|v| v as u16), "{text}");
        }
        assert_eq!(from_roman(" mcmxciv "), Ok(1994));
        for bad in ["", "IIII", "MMMM", "IM", "VX", "ABC", "IIV"] {
            assert!(from_roman(bad).is_err(), "{bad}");
        }
    }
}
