//! VAT identification numbers of the EU member states, Northern Ireland (XI) and Great
//! Britain: shape and national check digits (rules in `wrench_kit::vat`). This is an offline check;
//! whether a number is registered needs the member state's register (VIES), which is not
//! consulted here.

use wrench_contract::prelude::*;
use wrench_kit::vat::{COUNTRIES, Check};

#[derive(Debug, Deserialize, JsonSchema, Validate)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
#[schemars(transform = wrench_contract::validate::declare_aliases::<Self>)]
struct VatInput {
    /// The VAT number with its country prefix (`DE136695976`, `FR 40 303 265 045`); spaces,
    /// dots and dashes are ignored. Greece is `EL` (`GR` is accepted).
    #[schemars(length(min = 1, max = 64))]
    #[serde(rename = "vat_number", alias = "vatNumber")]
    vat_number: String,
}

#[derive(Debug, Serialize, JsonSchema, Default)]
#[serde(rename_all = "camelCase")]
struct VatOutput {
    /// The number has the country's format and, where the country defines one, a correct
    /// check digit.
    valid: bool,
    /// The normalized number with its prefix.
    vat_number: String,
    /// The prefix (EL for Greece, XI for Northern Ireland); null when none was recognised.
    country_code: Option<&'static str>,
    /// The country's name.
    country: Option<&'static str>,
    /// The format the country's numbers have.
    expected_format: Option<&'static str>,
    /// Whether a national check-digit algorithm was applied (false for the few number shapes
    /// without a check digit).
    checksum_verified: bool,
    /// Why the number is not valid; null when valid.
    reason: Option<String>,
}

/// Validate a European VAT number offline.
///
/// All 27 EU member states plus XI (Northern Ireland) and GB: the number must carry its
/// country prefix and match the national format, and its check digits must pass the national
/// algorithm (all have one, except Czech birth numbers of people born before 1954 and the GD/HA
/// numbers of UK government and health bodies, which are checked for shape only). The answer
/// names the expected format. This does not ask VIES whether the number is registered.
#[op(post "/v1/validate/vat" as validateVat, tag = SecurityAndValidation,
     example(germany, {"vat_number": "DE136695976"}),
     example(france_spaced, {"vat_number": "FR 40 303 265 045"}),
     example(bad_check_digit, {"vat_number": "NL004495445B02"}),
     example(no_prefix, {"vat_number": "136695976"}))]
async fn validate_vat(input: VatInput) -> Result<VatOutput, ApiError> {
    Ok(check(&input.vat_number))
}

fn check(text: &str) -> VatOutput {
    let compact: String =
        text.chars().filter(|c| !matches!(c, ' ' | '.' | '-' | '/')).collect::<String>().to_uppercase();
    let prefix = compact.get(..2).unwrap_or("");
    let prefix = if prefix == "GR" { "EL" } else { prefix };
    let Some(country) = COUNTRIES.iter().find(|c| c.code == prefix) else {
        return VatOutput {
            vat_number: compact,
            reason: Some(format!(
                "the number must start with a country prefix: {}",
                COUNTRIES.iter().map(|c| c.code).collect::<Vec<_>>().join(", ")
            )),
            ..VatOutput::default()
        };
    };
    let number = &compact[2..];
    let outcome = (country.rule)(number);
    VatOutput {
        valid: outcome.is_ok(),
        vat_number: format!("{}{number}", country.code),
        country_code: Some(country.code),
        country: Some(country.name),
        expected_format: Some(country.format),
        checksum_verified: outcome == Ok(Check::Checksum),
        reason: outcome.err().map(|why| format!("{} VAT number: {why}", country.name)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn published_valid_numbers_pass() {
        // Valid examples published with the national rules (tax administrations' examples as
        // collected by the python-stdnum project's documentation).
        let valid = [
            "ATU13585627",
            "BE0428759497",
            "BE428759497",
            "BG175074752",
            "CY10259033P",
            "CZ25123891",
            "CZ7103192745",
            "CZ640903926",
            "DE136695976",
            "DK13585628",
            "EE100594102",
            "EL094259216",
            "GR094259216",
            "ESB64717838",
            "ES54362315K",
            "ESX5253868R",
            "ESM1234567L",
            "FI20774740",
            "FR23334175221",
            "FR40303265045",
            "FRK7399859412",
            "HR33392005961",
            "HU12892312",
            "IE6433435F",
            "IE6433435OA",
            "IE8D79739I",
            "IT00743110157",
            "LT119511515",
            "LT100001919017",
            "LT100004801610",
            "LU15027442",
            "LV40003521600",
            "LV16117519997",
            "LV32867300679",
            "MT11679112",
            "NL004495445B01",
            "NL002455799B11",
            "PL8567346215",
            "PT501964843",
            "RO18547290",
            "SE123456789701",
            "SI50223054",
            "SK2022749619",
            "GB980780684",
            "XI980780684",
        ];
        for n in valid {
            let out = check(n);
            assert!(out.valid, "{n}: {:?}", out.reason);
        }
    }

    #[test]
    fn published_invalid_numbers_fail_with_a_reason() {
        let invalid = [
            "ATU13585626",
            "BE431150351",
            "BG175074751",
            "CY10259033Z",
            "CZ25123890",
            "DE136695978",
            "DK13585627",
            "EE100594103",
            "EL123456781",
            "ESB64717839",
            "FI20774741",
            "FR84323140391",
            "FRIO334175221",
            "HR33392005962",
            "HU12892313",
            "IE6433435E",
            "IT00743110158",
            "LT100001919018",
            "LU15027443",
            "LV40003521601",
            "LV16137519997",
            "LV32867300677",
            "MT11679113",
            "NL123456789B90",
            "PL8567346216",
            "PT501964842",
            "SI50223055",
            "SK2022749618",
            "GB802311781",
        ];
        for n in invalid {
            let out = check(n);
            assert!(!out.valid, "{n} passed");
            assert!(out.reason.is_some() && out.expected_format.is_some(), "{n}");
        }
        let none = check("136695976");
        assert!(none.reason.unwrap().contains("country prefix"));
    }
}
