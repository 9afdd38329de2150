//! Phone numbers (`phone`): parsed, validated and formatted by libphonenumber's
//! metadata (the `phonenumber` crate, metadata 9.0.33), with the carrier a mobile prefix was
//! allocated to from libphonenumber's carrier data (embedded, `data/phone/carriers.tsv`).
//!
//! The carrier is the network the number range was allocated to; numbers ported since keep
//! their old prefix, so it is a hint, and the answer says so. libphonenumber's geographic
//! descriptions (towns of fixed-line area codes, 40 MB of data) are not embedded; the
//! country is given instead.

use std::{collections::HashMap, sync::OnceLock};

use phonenumber::{Metadata, Mode, PhoneNumber, Type, country, metadata::DATABASE};

use wrench_contract::prelude::*;
use wrench_infra::datasets::countries;

/// Builds the numbering-plan metadata now (the warm-up and `wrench tables` call it).
pub(crate) fn warm_metadata() {
    let _ = phonenumber::parse(None, "+41 44 668 18 00");
}

/// Builds the carrier table now (`wrench tables` calls it; requests build it on first use).
pub(crate) fn warm_carriers() {
    let _ = carriers();
}

/// Carrier names by number prefix (country calling code and national digits).
fn carriers() -> &'static HashMap<&'static str, &'static str> {
    static T: OnceLock<HashMap<&'static str, &'static str>> = OnceLock::new();
    T.get_or_init(|| {
        wrench_infra::blobs::PHONE_CARRIERS
            .leak_text()
            .lines()
            .filter(|l| !l.starts_with('#'))
            .filter_map(|l| l.split_once('\t'))
            .collect()
    })
}

#[derive(Debug, Deserialize, JsonSchema, Validate)]
#[serde(deny_unknown_fields)]
struct PhoneInput {
    /// The number as written: `+44 20 7946 0958`, `(650) 253-0000` with a region, `00 49 30
    /// 901820`, `tel:+1-650-253-0000`, vanity letters (`1-800-FLOWERS`), an extension
    /// (`ext. 123`).
    #[schemars(length(min = 1, max = 64))]
    phone: String,
    /// The region (ISO 3166-1 alpha-2, `US`) a number without `+` or an international prefix
    /// is read in.
    #[schemars(length(min = 2, max = 2))]
    region: Option<String>,
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
enum NumberType {
    FixedLine,
    Mobile,
    /// The region's numbering plan does not tell the two apart (the US and Canada).
    FixedLineOrMobile,
    TollFree,
    PremiumRate,
    SharedCost,
    PersonalNumber,
    Voip,
    Pager,
    Uan,
    Voicemail,
    Unknown,
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct PhoneOutput {
    input: String,
    /// The number matches a range its region assigns.
    valid: bool,
    /// The number has a length its region uses (a weaker test than `valid`).
    possible: bool,
    /// `+442079460958`.
    e164: String,
    /// `+44 20 7946 0958`.
    international: String,
    /// `020 7946 0958`.
    national: String,
    /// `tel:+44-20-7946-0958`.
    rfc3966: String,
    /// The country calling code, `44`.
    country_calling_code: u16,
    /// The national significant number, without national prefix.
    national_number: String,
    extension: Option<String>,
    /// The region the number belongs to (ISO 3166-1 alpha-2), or null when it cannot be told
    /// (an invalid number, or a non-geographic code such as +800).
    region_code: Option<String>,
    country: Option<String>,
    #[serde(rename = "type")]
    kind: NumberType,
    /// The network the number's range was allocated to (mobile numbers, where the data knows
    /// it); the number may have been ported since.
    carrier: Option<String>,
    /// The metadata the answer comes from.
    metadata: &'static str,
}

fn kind(t: Type) -> NumberType {
    match t {
        Type::FixedLine => NumberType::FixedLine,
        Type::Mobile => NumberType::Mobile,
        Type::FixedLineOrMobile => NumberType::FixedLineOrMobile,
        Type::TollFree => NumberType::TollFree,
        Type::PremiumRate => NumberType::PremiumRate,
        Type::SharedCost => NumberType::SharedCost,
        Type::PersonalNumber => NumberType::PersonalNumber,
        Type::Voip => NumberType::Voip,
        Type::Pager => NumberType::Pager,
        Type::Uan => NumberType::Uan,
        Type::Voicemail => NumberType::Voicemail,
        _ => NumberType::Unknown,
    }
}

/// The carrier of the longest prefix of the number's digits, for the types libphonenumber
/// gives carriers for (mobile, fixed line or mobile, pager).
fn carrier(number: &PhoneNumber, e164: &str, t: Type) -> Option<String> {
    if !matches!(t, Type::Mobile | Type::FixedLineOrMobile | Type::Pager) || !number.is_valid() {
        return None;
    }
    let digits = e164.trim_start_matches('+');
    (1..=digits.len()).rev().find_map(|n| carriers().get(&digits[..n])).map(|c| c.to_string())
}

/// The metadata of the number's region, or of the main region of its calling code when the
/// region cannot be told (libphonenumber judges lengths by the calling code).
fn metadata_for(number: &PhoneNumber) -> Option<&'static Metadata> {
    number.metadata(&DATABASE).or_else(|| {
        let all = DATABASE.by_code(&number.code().value())?;
        all.iter().find(|m| m.is_main_country_for_code()).or(all.first()).copied()
    })
}

/// The national significant number as libphonenumber writes it: with the leading zeros some
/// countries keep when dialled from abroad (Italy's `06 ...`).
fn significant(number: &PhoneNumber) -> String {
    let n = number.national();
    format!("{}{}", "0".repeat(usize::from(n.zeros())), n.value())
}

/// libphonenumber's number-type test, on the national significant number: the special
/// services first, then fixed line and mobile.
fn classify(m: &Metadata, national: &str) -> Type {
    let d = m.descriptors();
    if !d.general().is_match(national) {
        return Type::Unknown;
    }
    let hit = |x: Option<&phonenumber::metadata::Descriptor>| x.is_some_and(|x| x.is_match(national));
    let special = [
        (d.premium_rate(), Type::PremiumRate),
        (d.toll_free(), Type::TollFree),
        (d.shared_cost(), Type::SharedCost),
        (d.voip(), Type::Voip),
        (d.personal_number(), Type::PersonalNumber),
        (d.pager(), Type::Pager),
        (d.uan(), Type::Uan),
        (d.voicemail(), Type::Voicemail),
    ];
    if let Some((_, t)) = special.into_iter().find(|(x, _)| hit(*x)) {
        return t;
    }
    match (hit(d.fixed_line()), hit(d.mobile())) {
        (true, true) => Type::FixedLineOrMobile,
        (true, false) => Type::FixedLine,
        (false, true) => Type::Mobile,
        _ => Type::Unknown,
    }
}

/// The region and type. The crate tells the region of a shared calling code (+39: Italy and
/// the Vatican) from the number without its leading zeros, which fails for Italian fixed
/// lines; then each region of the code is tried with the significant number, as
/// libphonenumber does.
fn region_and_type(number: &PhoneNumber) -> (Option<String>, Type) {
    if let Some(id) = number.country().id() {
        return (Some(id.as_ref().to_string()), number.number_type(&DATABASE));
    }
    let national = significant(number);
    let found = DATABASE.by_code(&number.code().value()).into_iter().flatten().find(|m| {
        m.leading_digits().is_some_and(|p| p.find(&national).is_some_and(|at| at.start() == 0))
            || (m.leading_digits().is_none() && classify(m, &national) != Type::Unknown)
    });
    match found {
        Some(m) => (Some(m.id().to_string()), classify(m, &national)),
        None => (None, number.number_type(&DATABASE)),
    }
}

/// Whether the national number has a length the region (or non-geographic code) uses: any
/// length of any of its number types, as libphonenumber's general description holds it.
fn possible(number: &PhoneNumber) -> bool {
    let len = significant(number).len() as u16;
    metadata_for(number).is_some_and(|m| {
        let d = m.descriptors();
        let types = [
            d.fixed_line(),
            d.mobile(),
            d.toll_free(),
            d.premium_rate(),
            d.shared_cost(),
            d.personal_number(),
            d.voip(),
            d.pager(),
            d.uan(),
            d.voicemail(),
        ];
        std::iter::once(Some(d.general()))
            .chain(types)
            .flatten()
            .any(|t| t.possible_length().contains(&len) || t.possible_local_length().contains(&len))
    })
}

/// Parse, validate and format a phone number.
///
/// Reads a number as people write it (with `+` or an international prefix, or in `region`),
/// and answers whether it is valid (a range its region assigns) and possible (a length its
/// region uses), its region and country, its type (mobile, fixed line, toll free, ...), the
/// E.164, international, national and RFC 3966 forms, the extension, and for mobile numbers
/// the carrier the range was allocated to (numbers may have been ported since). Metadata:
/// libphonenumber 9.0.33. Text that holds no phone number, or a country calling code that
/// does not exist, is a 400.
#[op(post "/v1/phone" as phone, tag = Lookups,
     rejects = "text that is not a phone number, an unknown calling code, a number without `+` and without a `region`, or a region that is not ISO 3166-1",
     example(international, {"phone": "+44 20 7946 0958"}),
     example(national_with_region, {"phone": "06 12 34 56 78", "region": "FR"}),
     example(mobile_with_carrier, {"phone": "+49 1512 3456789"}),
     example(vanity_toll_free, {"phone": "1-800-FLOWERS", "region": "US"}),
     example(not_a_number, {"phone": "hello"}, status = 400))]
async fn phone(input: PhoneInput) -> Result<PhoneOutput, ApiError> {
    let region = match input.region.as_deref().map(str::trim) {
        None | Some("") => None,
        Some(r) => Some(r.to_ascii_uppercase().parse::<country::Id>().map_err(|_| {
            ApiError::invalid("region", format!("{r:?} is not an ISO 3166-1 alpha-2 region libphonenumber knows"))
        })?),
    };
    let text = input.phone.trim();
    let number = phonenumber::parse(region, text).map_err(|e| {
        let why = match e {
            phonenumber::ParseError::InvalidCountryCode if region.is_none() && !text.starts_with('+') => {
                "the number has no country calling code: write it with + or give `region`".to_string()
            }
            phonenumber::ParseError::InvalidCountryCode => "the country calling code does not exist".to_string(),
            other => other.to_string(),
        };
        ApiError::invalid("phone", format!("{text:?} is not a phone number ({why})"))
    })?;
    let (region, t) = region_and_type(&number);
    let region_code = region.filter(|c| c != "001");
    let e164 = number.format().mode(Mode::E164).to_string();
    Ok(PhoneOutput {
        input: input.phone.clone(),
        valid: number.is_valid(),
        possible: possible(&number),
        international: number.format().mode(Mode::International).to_string(),
        national: number.format().mode(Mode::National).to_string(),
        rfc3966: number.format().mode(Mode::Rfc3966).to_string(),
        country_calling_code: number.code().value(),
        national_number: significant(&number),
        extension: number.extension().map(|e| e.to_string()),
        country: region_code.as_deref().and_then(countries::by_code).map(|c| c.name.to_string()),
        region_code,
        kind: kind(t),
        carrier: carrier(&number, &e164, t),
        e164,
        metadata: "libphonenumber 9.0.33 (phonenumber crate); carriers from libphonenumber's carrier data",
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Validity, region, type, formats and carrier agree with the Python port of
    /// libphonenumber (`tests/fixtures/phone_numbers.json`, from `phone_numbers.py`).
    #[tokio::test]
    async fn agrees_with_pythons_phonenumbers() {
        let cases: Vec<Value> = serde_json::from_str(include_str!("../../tests/fixtures/phone_numbers.json")).unwrap();
        assert!(cases.len() >= 70);
        // Known: for "12345" read in the US the crate takes the leading 1 for the national
        // prefix where libphonenumber keeps it (both call the number invalid).
        let known = [("12345", "US")];
        let mut disagreements = Vec::new();
        for c in &cases {
            if known.iter().any(|(t, r)| c["input"] == *t && c["region"] == *r) {
                continue;
            }
            let input =
                PhoneInput { phone: c["input"].as_str().unwrap().into(), region: c["region"].as_str().map(Into::into) };
            let ctx = format!("{} in {:?}", input.phone, input.region);
            let out = phone(input).await;
            if c.get("error").is_some() {
                assert!(out.is_err(), "{ctx}: expected a parse error");
                continue;
            }
            let out = out.unwrap_or_else(|e| panic!("{ctx}: {e}"));
            let got = serde_json::to_value(&out).unwrap();
            for key in
                ["valid", "possible", "e164", "international", "national", "rfc3966", "nationalNumber", "carrier"]
            {
                if got[key] != c[key] {
                    disagreements.push(format!("{ctx}: {key} {} vs {}", got[key], c[key]));
                }
            }
            let region = c["regionCode"].as_str().filter(|r| *r != "001");
            if out.region_code.as_deref() != region {
                disagreements.push(format!("{ctx}: region {:?} vs {region:?}", out.region_code));
            }
            let kind = got["type"].as_str().unwrap().to_ascii_uppercase();
            if kind != c["type"].as_str().unwrap() {
                disagreements.push(format!("{ctx}: type {kind} vs {}", c["type"]));
            }
        }
        assert!(disagreements.is_empty(), "{} disagreements:\n{}", disagreements.len(), disagreements.join("\n"));
    }

    /// Text at the edges of what the parser reads answers 200 or 400, never a panic.
    #[tokio::test]
    async fn odd_input_answers() {
        let long_digits = "9".repeat(60);
        let odd = [
            "+",
            "++1",
            "tel:",
            "tel:+",
            "tel:+1;ext=",
            "+1 ext.",
            "0",
            "00",
            "000000000000000000000000",
            "+9999999999999999999999999",
            "\u{661}\u{662}\u{663}\u{664}\u{665}\u{666}\u{667}",
            "１２３４５６７８９０",
            "+800 1234",
            "+1 (((((650)))))",
            "+44;ext=1",
            "+49-----30",
            "+0 123",
            "+00",
            "*#06#",
            long_digits.as_str(),
            "+1 650 253 0000 x 99999999999",
            "+883 5100 0000 0000",
            "+979 123456789",
            "\u{200b}+1 650 253 0000",
        ];
        for text in odd {
            for region in [None, Some("US"), Some("IT"), Some("001")] {
                let _ = phone(PhoneInput { phone: text.into(), region: region.map(Into::into) }).await;
            }
        }
    }

    #[tokio::test]
    async fn bad_input_is_named() {
        for (text, region, needle) in [
            ("hello", None, "not a phone number"),
            ("020 7946 0958", None, "give `region`"),
            ("020 7946 0958", Some("XX"), "region"),
        ] {
            let e = phone(PhoneInput { phone: text.into(), region: region.map(Into::into) }).await.unwrap_err();
            assert!(e.to_string().contains(needle), "{text}: {e}");
        }
    }
}
