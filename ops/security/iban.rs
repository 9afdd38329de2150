//! IBANs (ISO 13616): the MOD 97-10 check (ISO 7064) and each country's BBAN structure from
//! the SWIFT IBAN registry (`wrench_kit::iban`, every country and territory it lists).

use wrench_contract::prelude::*;
use wrench_kit::iban::{entry, segments};

#[derive(Debug, Deserialize, JsonSchema, Validate)]
#[serde(deny_unknown_fields)]
struct IbanInput {
    /// The IBAN, electronic (`DE89370400440532013000`) or print form (`DE89 3704 0044 0532 0130
    /// 00`, optionally after `IBAN`); any case.
    #[schemars(length(min = 1, max = 64))]
    iban: String,
}

#[derive(Debug, Serialize, JsonSchema, Default)]
#[serde(rename_all = "camelCase")]
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

/// The ISO 7064 MOD 97-10 remainder of an IBAN (country code and check digits moved to the
/// end, letters as 10-35), computed digit by digit so any length fits.
fn mod97(iban: &str) -> u32 {
    let (head, rest) = iban.split_at(4);
    rest.chars().chain(head.chars()).fold(0u32, |acc, c| {
        let v = c.to_digit(36).unwrap_or(0);
        if v < 10 { (acc * 10 + v) % 97 } else { (acc * 100 + v) % 97 }
    })
}

/// Whether `bban` has the registry structure `spec`.
fn fits(bban: &str, spec: &str) -> bool {
    let mut chars = bban.bytes();
    for (count, kind) in segments(spec) {
        for _ in 0..count {
            let ok = match (chars.next(), kind) {
                (Some(b), b'n') => b.is_ascii_digit(),
                (Some(b), b'a') => b.is_ascii_uppercase(),
                (Some(b), _) => b.is_ascii_alphanumeric(),
                (None, _) => false,
            };
            if !ok {
                return false;
            }
        }
    }
    chars.next().is_none()
}

fn check(text: &str) -> IbanOutput {
    let iban = normalize(text);
    let invalid = |reason: String| {
        let country = iban.get(..2).filter(|c| c.chars().all(|ch| ch.is_ascii_uppercase())).map(str::to_string);
        IbanOutput { iban: iban.clone(), country_code: country, reason: Some(reason), ..IbanOutput::default() }
    };
    if !iban.chars().all(|c| c.is_ascii_alphanumeric()) {
        return invalid("an IBAN holds only letters and digits".to_string());
    }
    if iban.len() < 5 || iban.len() > 34 {
        return invalid(format!("an IBAN has 5 to 34 characters, this has {}", iban.len()));
    }
    let (country, check_digits, bban) = (&iban[..2], &iban[2..4], &iban[4..]);
    if !country.bytes().all(|b| b.is_ascii_uppercase()) || !check_digits.bytes().all(|b| b.is_ascii_digit()) {
        return invalid("it does not start with a two-letter country code and two check digits".to_string());
    }
    let Some((_, spec, bank, branch)) = entry(country) else {
        return invalid(format!("{country} is not a country of the SWIFT IBAN registry"));
    };
    if mod97(&iban) != 1 {
        return invalid(
            "the check digits do not match (MOD 97-10); a character is wrong or two are swapped".to_string(),
        );
    }
    if !fits(bban, spec) {
        let expected: usize = segments(spec).map(|(n, _)| n).sum::<usize>() + 4;
        let shape = if iban.len() == expected {
            "has a letter where a digit belongs, or the reverse".to_string()
        } else {
            format!("has {} characters; {country} IBANs have {expected}", iban.len())
        };
        return invalid(format!(
            "the check digits are right but the account part does not fit {country}'s structure ({spec}): it {shape}"
        ));
    }
    let part = |r: &Option<(usize, usize)>| r.map(|(s, e)| bban[s..e].to_string());
    let formatted =
        iban.as_bytes().chunks(4).map(|c| String::from_utf8_lossy(c).into_owned()).collect::<Vec<_>>().join(" ");
    IbanOutput {
        valid: true,
        formatted: Some(formatted),
        country_code: Some(country.to_string()),
        check_digits: Some(check_digits.to_string()),
        bban: Some(bban.to_string()),
        bank_code: part(bank),
        branch_code: part(branch),
        reason: None,
        iban,
    }
}

/// Validate an IBAN.
///
/// Checks the MOD 97-10 check digits (ISO 7064) and the country's BBAN structure from the
/// SWIFT IBAN registry (all 105 countries and territories, Pakistan, Honduras and Yemen
/// included), and splits out country, check digits, BBAN, and the
/// bank and branch codes where the country defines them. Electronic and print forms are
/// accepted in any case. Invalid IBANs answer `valid: false` with the reason.
#[op(post "/v1/validate/iban" as validateIban, tag = SecurityAndValidation,
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
            ("FR1420041010050500013M02606", "FR", Some("20041"), Some("01005")),
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

    /// Every country of the registry, through tests/fixtures/iban_registry.json: a valid IBAN
    /// and five or six invalid ones per country, each with the verdict and the bank and branch
    /// codes of an independent implementation (schwifty; see the script beside the fixture).
    #[test]
    fn every_registry_country_agrees_with_schwifty() {
        let fixture: Value = serde_json::from_str(include_str!("../../tests/fixtures/iban_registry.json")).unwrap();
        let countries = fixture["countries"].as_array().unwrap();
        assert_eq!(countries.len(), wrench_kit::iban::REGISTRY.len(), "one fixture entry per registry entry");
        let mut failures = Vec::new();
        for c in countries {
            for (kind, ex) in c["examples"].as_object().unwrap() {
                let iban = ex["iban"].as_str().unwrap();
                let out = check(iban);
                let want = ex["valid"].as_bool().unwrap();
                if out.valid != want {
                    failures.push(format!(
                        "{} {kind} {iban}: schwifty says {want}, we say {} ({:?})",
                        c["country"], out.valid, out.reason
                    ));
                } else if want
                    && (out.bank_code.as_deref() != ex["bank"].as_str()
                        || out.branch_code.as_deref() != ex["branch"].as_str())
                {
                    failures.push(format!(
                        "{} {iban}: codes {:?}/{:?}, schwifty {}/{}",
                        c["country"], out.bank_code, out.branch_code, ex["bank"], ex["branch"]
                    ));
                }
            }
        }
        assert!(failures.is_empty(), "{}", failures.join("\n"));
        // The registry's own example for Pakistan, which an older table lacked.
        let pk = check("PK36SCBL0000001123456702");
        assert!(pk.valid, "{:?}", pk.reason);
        assert_eq!(pk.bank_code.as_deref(), Some("SCBL"));
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
