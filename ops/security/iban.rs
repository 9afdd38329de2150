//! IBANs (ISO 13616): the MOD 97-10 check (ISO 7064) and each country's BBAN structure from
//! the SWIFT IBAN registry, as the iban_validate crate encodes them.

use iban::{BaseIban, Iban, IbanLike, ParseIbanError};

use crate::prelude::*;

#[derive(Debug, Deserialize, JsonSchema, Validate)]
#[serde(deny_unknown_fields)]
struct IbanInput {
    /// The IBAN, electronic (`DE89370400440532013000`) or print form (`DE89 3704 0044 0532 0130
    /// 00`, optionally after `IBAN`); any case.
    #[schemars(length(min = 1, max = 64))]
    iban: String,
}

#[derive(Debug, Serialize, JsonSchema, Default)]
struct IbanOutput {
    /// Valid check digits and a BBAN of the country's registered structure.
    valid: bool,
    /// Electronic form: upper case, no spaces.
    iban: String,
    /// Print form in groups of four; null when invalid.
    formatted: Option<String>,
    /// ISO 3166 country code (the first two letters).
    country_code: Option<String>,
    /// The two check digits.
    check_digits: Option<String>,
    /// The Basic Bank Account Number (everything after the check digits).
    bban: Option<String>,
    /// The bank identifier, where the country's structure defines one.
    bank_code: Option<String>,
    /// The branch identifier, where the country's structure defines one.
    branch_code: Option<String>,
    /// Why it is not valid; null when valid.
    reason: Option<String>,
}

fn normalize(text: &str) -> String {
    let compact: String = text.chars().filter(|c| !c.is_whitespace()).collect::<String>().to_uppercase();
    match compact.strip_prefix("IBAN") {
        Some(rest) if rest.get(..2).is_some_and(|p| p.chars().all(|c| c.is_ascii_alphabetic())) => rest.to_string(),
        _ => compact,
    }
}

fn check(text: &str) -> IbanOutput {
    let iban = normalize(text);
    match iban.parse::<Iban>() {
        Ok(parsed) => IbanOutput {
            valid: true,
            formatted: Some(parsed.to_string()),
            country_code: Some(parsed.country_code().to_string()),
            check_digits: Some(parsed.check_digits_str().to_string()),
            bban: Some(parsed.bban().to_string()),
            bank_code: parsed.bank_identifier().map(str::to_string),
            branch_code: parsed.branch_identifier().map(str::to_string),
            reason: None,
            iban,
        },
        Err(e) => {
            let reason = match e {
                ParseIbanError::InvalidBaseIban { source } => match iban.parse::<BaseIban>() {
                    Err(_) if iban.len() < 5 || iban.len() > 34 => format!("an IBAN has 5 to 34 characters, this has {}", iban.len()),
                    Err(_) if !iban.chars().all(|c| c.is_ascii_alphanumeric()) => "an IBAN holds only letters and digits".to_string(),
                    _ => match source {
                        iban::ParseBaseIbanError::InvalidChecksum => "the check digits do not match (MOD 97-10); a character is wrong or two are swapped".to_string(),
                        iban::ParseBaseIbanError::InvalidFormat => "it does not start with a two-letter country code and two check digits".to_string(),
                    },
                },
                ParseIbanError::InvalidBban(base) => format!(
                    "the check digits are right but the account part does not have the structure {} IBANs use (length or character types)",
                    base.country_code()
                ),
                ParseIbanError::UnknownCountry(base) => format!("{} is not a country that uses IBANs", base.country_code()),
            };
            let country = iban.get(..2).filter(|c| c.chars().all(|ch| ch.is_ascii_uppercase())).map(str::to_string);
            IbanOutput { iban, country_code: country, reason: Some(reason), ..IbanOutput::default() }
        }
    }
}

/// Validate an IBAN.
///
/// Checks the MOD 97-10 check digits (ISO 7064) and the country's BBAN structure from the
/// SWIFT IBAN registry (over 80 countries), and splits out country, check digits, BBAN, and the
/// bank and branch codes where the country defines them. Electronic and print forms are
/// accepted in any case. Invalid IBANs answer `valid: false` with the reason.
#[op(post "/v1/validate/iban", id = "validateIban", tag = "Security and validation",
     example(germany, {"iban": "DE89 3704 0044 0532 0130 00"}),
     example(uk_lower_case, {"iban": "gb29nwbk60161331926819"}),
     example(wrong_check_digits, {"iban": "DE88370400440532013000"}))]
async fn validate_iban(input: IbanInput) -> Result<IbanOutput, ApiError> {
    Ok(check(&input.iban))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn registry_examples_validate_and_split() {
        // Examples from the SWIFT IBAN registry and national bank publications.
        let cases = [
            ("DE89370400440532013000", "DE", Some("37040044"), None),
            ("GB29NWBK60161331926819", "GB", Some("NWBK"), Some("601613")),
            ("FR1420041010050500013M02606", "FR", Some("20041"), None),
            ("NL91ABNA0417164300", "NL", Some("ABNA"), None),
            ("BE68539007547034", "BE", Some("539"), None),
            ("CH9300762011623852957", "CH", Some("00762"), None),
            ("IT60X0542811101000000123456", "IT", Some("05428"), Some("11101")),
            ("ES9121000418450200051332", "ES", Some("2100"), Some("0418")),
            ("NO9386011117947", "NO", Some("8601"), None),
            ("MT84MALT011000012345MTLCAST001S", "MT", Some("MALT"), Some("01100")),
            ("SA0380000000608010167519", "SA", Some("80"), None),
        ];
        for (iban, country, bank, branch) in cases {
            let out = check(iban);
            assert!(out.valid, "{iban}: {:?}", out.reason);
            assert_eq!(out.country_code.as_deref(), Some(country));
            assert_eq!(out.bank_code.as_deref(), bank, "{iban}");
            assert_eq!(out.branch_code.as_deref(), branch, "{iban}");
        }
        assert_eq!(check("IBAN de89 3704 0044 0532 0130 00").formatted.as_deref(), Some("DE89 3704 0044 0532 0130 00"));
    }

    #[test]
    fn every_single_character_change_is_caught() {
        // MOD 97-10 catches every single substitution and every adjacent transposition.
        let good = "GB29NWBK60161331926819";
        for i in 4..good.len() {
            for c in "0123456789".chars() {
                let mut s: Vec<char> = good.chars().collect();
                if s[i] == c || !s[i].is_ascii_digit() {
                    continue;
                }
                s[i] = c;
                let bad: String = s.into_iter().collect();
                assert!(!check(&bad).valid, "{bad}");
            }
        }
        assert!(check("DE89370400440532013001").reason.unwrap().contains("check digits"));
        assert!(check("XX89370400440532013000").reason.is_some());
        assert!(check("DE8937040044053201300").reason.is_some(), "one digit short");
        assert!(check("DE89-3704").reason.unwrap().contains("only letters and digits"));
        // Multi-byte characters where the country code would be are a reason, not a crash.
        for odd in ["IBAN€12", "€€€€€€", "IBANé", "ÄÖ89370400440532013000"] {
            assert!(!check(odd).valid, "{odd}");
        }
    }
}
