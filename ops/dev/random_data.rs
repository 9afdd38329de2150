//! Fake identity records for test fixtures, from the locale data of the `fake` crate.
//!
//! Everything here is invented on purpose and says so: e-mail addresses use the reserved
//! `example.com`, `example.net` and `example.org` domains (RFC 2606), so a fixture can never
//! mail a real person. A `seed` makes the output reproducible.

use fake::{
    Fake, RngExt,
    faker::impls::address::CityNameGenFn,
    faker::{
        address::raw as address, company::raw as company, job::raw as job, name::raw as name,
        phone_number::raw as phone,
    },
    locales::{self, Data},
    rand::{Rng, SeedableRng, rngs::StdRng},
};

use wrench_contract::prelude::*;

#[derive(Debug, Deserialize, Serialize, JsonSchema, Validate, Clone, Copy, PartialEq, Eq, Default)]
#[serde(rename_all = "snake_case")]
enum Locale {
    /// English (United States).
    #[default]
    En,
    FrFr,
    DeDe,
    ItIt,
    NlNl,
    PtBr,
    PtPt,
    JaJp,
    ZhCn,
    ZhTw,
    ArSa,
    FaIr,
    TrTr,
    CyGb,
}

impl Locale {
    /// The country the locale's addresses belong to: ISO 3166-1 alpha-2 and English name.
    fn country(self) -> (&'static str, &'static str) {
        match self {
            Locale::En => ("US", "United States"),
            Locale::FrFr => ("FR", "France"),
            Locale::DeDe => ("DE", "Germany"),
            Locale::ItIt => ("IT", "Italy"),
            Locale::NlNl => ("NL", "Netherlands"),
            Locale::PtBr => ("BR", "Brazil"),
            Locale::PtPt => ("PT", "Portugal"),
            Locale::JaJp => ("JP", "Japan"),
            Locale::ZhCn => ("CN", "China"),
            Locale::ZhTw => ("TW", "Taiwan"),
            Locale::ArSa => ("SA", "Saudi Arabia"),
            Locale::FaIr => ("IR", "Iran"),
            Locale::TrTr => ("TR", "Türkiye"),
            Locale::CyGb => ("GB", "United Kingdom"),
        }
    }

    /// Which fields the locale's data covers in its own right; the others would borrow United
    /// States templates ("North ... bury", US states, US phone formats), so they are null.
    fn coverage(self) -> Coverage {
        let all = Coverage {
            street: true,
            city: true,
            state: true,
            postal: Postal::Post,
            phone: true,
            company: true,
            job: true,
        };
        let names_only = Coverage {
            street: false,
            city: false,
            state: false,
            postal: Postal::None,
            phone: false,
            company: false,
            job: false,
        };
        match self {
            Locale::En | Locale::ItIt | Locale::PtPt | Locale::FaIr => all,
            Locale::FrFr => Coverage { state: false, company: false, job: false, ..all },
            Locale::DeDe => Coverage { postal: Postal::Zip, phone: false, company: false, job: false, ..all },
            Locale::NlNl => Coverage { company: false, ..all },
            Locale::PtBr => Coverage { city: false, company: false, job: false, ..all },
            Locale::TrTr => Coverage { company: false, ..all },
            Locale::JaJp => Coverage { phone: true, company: true, job: true, ..names_only },
            Locale::ZhCn => {
                Coverage { street: true, city: true, postal: Postal::Post, company: true, job: true, ..names_only }
            }
            Locale::CyGb => Coverage { street: true, city: true, phone: true, company: true, job: true, ..names_only },
            Locale::ZhTw | Locale::ArSa => names_only,
        }
    }

    /// Whether names are written family name first, without a space.
    fn family_first(self) -> bool {
        matches!(self, Locale::JaJp | Locale::ZhCn | Locale::ZhTw)
    }
}

/// Which postal-code format list of the locale data holds the country's format.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Postal {
    Post,
    Zip,
    None,
}

#[derive(Clone, Copy)]
struct Coverage {
    street: bool,
    city: bool,
    state: bool,
    postal: Postal,
    phone: bool,
    company: bool,
    job: bool,
}

#[derive(Debug, Deserialize, JsonSchema, Validate)]
#[serde(deny_unknown_fields)]
struct RandomDataInput {
    /// How many records.
    #[serde(default = "one")]
    #[schemars(range(min = 1, max = 50))]
    count: u32,
    /// Whose names, addresses and phone formats.
    #[serde(default)]
    locale: Locale,
    /// Makes the output reproducible: the same seed gives the same records (with the same
    /// version of the service). Random when absent.
    #[serde(default)]
    #[schemars(range(min = 0, max = 9007199254740991u64))]
    seed: Option<u64>,
}

fn one() -> u32 {
    1
}

#[derive(Debug, Serialize, JsonSchema, PartialEq)]
#[serde(rename_all = "camelCase")]
struct Address {
    /// Street name; null when the locale has no street data.
    street: Option<String>,
    /// House or building number; null with the street.
    building_number: Option<String>,
    /// City; null when the locale has no city data.
    city: Option<String>,
    /// State, province or region; null when the locale has none.
    state: Option<String>,
    /// Postal code in the country's format; null when the locale has none.
    postal_code: Option<String>,
    /// Country name in English.
    country: &'static str,
    /// ISO 3166-1 alpha-2 country code.
    country_code: &'static str,
}

#[derive(Debug, Serialize, JsonSchema, PartialEq)]
#[serde(rename_all = "camelCase")]
struct Person {
    /// A random UUID (version 4 layout).
    id: String,
    /// Given name.
    first_name: String,
    /// Family name.
    last_name: String,
    /// Full name in the locale's order.
    full_name: String,
    /// An address at a reserved example domain (never deliverable).
    email: String,
    /// A user name derived from the name (ASCII).
    username: String,
    /// A phone number in the locale's format; null when the locale has no phone formats.
    phone: Option<String>,
    /// A postal address.
    address: Address,
    /// A company name; null when the locale has no company data.
    company: Option<String>,
    /// A job title; null when the locale has no job data.
    job_title: Option<String>,
    /// Date of birth, ISO 8601; ages 18 to 85 on 2026-01-01.
    birthdate: String,
}

#[derive(Debug, Serialize, JsonSchema)]
struct RandomDataOutput {
    /// The records.
    records: Vec<Person>,
    /// How many.
    count: usize,
    /// The locale used.
    locale: Locale,
    /// The seed used (given or drawn), to reproduce this output.
    seed: u64,
}

/// ASCII letters and digits of `s`, lower case (transliterated first, so `Zoë` gives `zoe`).
fn ascii_slug(s: &str) -> String {
    deunicode::deunicode(s).chars().filter(char::is_ascii_alphanumeric).collect::<String>().to_ascii_lowercase()
}

fn person<L: Data + CityNameGenFn + Copy>(l: L, locale: Locale, rng: &mut StdRng) -> Person {
    let first: String = name::FirstName(l).fake_with_rng(rng);
    let last: String = name::LastName(l).fake_with_rng(rng);
    let full_name = if locale.family_first() { format!("{last}{first}") } else { format!("{first} {last}") };
    let (f, s) = (ascii_slug(&first), ascii_slug(&last));
    let stem = match (f.is_empty(), s.is_empty()) {
        (false, false) => format!("{f}.{s}"),
        (false, true) => f.clone(),
        (true, false) => s.clone(),
        (true, true) => "user".to_string(),
    };
    let n: u16 = rng.random_range(1..100);
    let domain = ["com", "net", "org"][rng.random_range(0..3)];
    let mut id = [0u8; 16];
    rng.fill_bytes(&mut id);
    let (code, country) = locale.country();
    let c = locale.coverage();
    // 1940-09-05 .. 2007-12-31: ages 18 to 85 on 2026-01-01.
    let birth = jiff::civil::date(1940, 9, 5)
        .checked_add(jiff::Span::new().days(rng.random_range(0..24_588)))
        .unwrap_or(jiff::civil::date(1980, 1, 1));
    Person {
        id: uuid::Builder::from_random_bytes(id).into_uuid().hyphenated().to_string(),
        email: format!("{stem}{n}@example.{domain}"),
        username: format!("{}{n}", stem.replace('.', "_")),
        first_name: first,
        last_name: last,
        full_name,
        phone: c.phone.then(|| phone::PhoneNumber(l).fake_with_rng(rng)),
        address: Address {
            street: c.street.then(|| address::StreetName(l).fake_with_rng(rng)),
            building_number: c.street.then(|| address::BuildingNumber(l).fake_with_rng(rng)),
            city: c.city.then(|| address::CityName(l).fake_with_rng(rng)),
            state: c.state.then(|| address::StateName(l).fake_with_rng(rng)),
            postal_code: match c.postal {
                Postal::Post => Some(address::PostCode(l).fake_with_rng(rng)),
                Postal::Zip => Some(address::ZipCode(l).fake_with_rng(rng)),
                Postal::None => None,
            },
            country,
            country_code: code,
        },
        company: c.company.then(|| company::CompanyName(l).fake_with_rng(rng)),
        job_title: c.job.then(|| job::Title(l).fake_with_rng(rng)),
        birthdate: birth.to_string(),
    }
}

fn generate(locale: Locale, count: u32, seed: u64) -> Vec<Person> {
    let mut rng = StdRng::seed_from_u64(seed);
    (0..count)
        .map(|_| match locale {
            Locale::En => person(locales::EN, locale, &mut rng),
            Locale::FrFr => person(locales::FR_FR, locale, &mut rng),
            Locale::DeDe => person(locales::DE_DE, locale, &mut rng),
            Locale::ItIt => person(locales::IT_IT, locale, &mut rng),
            Locale::NlNl => person(locales::NL_NL, locale, &mut rng),
            Locale::PtBr => person(locales::PT_BR, locale, &mut rng),
            Locale::PtPt => person(locales::PT_PT, locale, &mut rng),
            Locale::JaJp => person(locales::JA_JP, locale, &mut rng),
            Locale::ZhCn => person(locales::ZH_CN, locale, &mut rng),
            Locale::ZhTw => person(locales::ZH_TW, locale, &mut rng),
            Locale::ArSa => person(locales::AR_SA, locale, &mut rng),
            Locale::FaIr => person(locales::FA_IR, locale, &mut rng),
            Locale::TrTr => person(locales::TR_TR, locale, &mut rng),
            Locale::CyGb => person(locales::CY_GB, locale, &mut rng),
        })
        .collect()
}

/// Generate fake identity records.
///
/// `count` (1-50, default 1) invented people with name, e-mail, user name, phone number,
/// postal address, company, job title and date of birth, in one of 14 locales (default `en`,
/// United States). Fields a locale's data does not cover (Japanese addresses, Arabic phone
/// numbers, ...) are null rather than filled from another country's templates. E-mail
/// addresses are at `example.com`/`.net`/`.org`, which RFC 2606
/// reserves, so they can never reach anyone. A `seed` (0 to 2^53-1) reproduces the same records;
/// the seed used is always returned.
#[op(post "/v1/random/data" as randomData, tag = DeveloperUtilities,
     example(seeded, {"count": 2, "locale": "de_de", "seed": 42}),
     example(japanese, {"locale": "ja_jp", "seed": 7}),
     example(unknown_locale, {"locale": "xx_yy"}, status = 400))]
async fn random_data(input: RandomDataInput) -> Result<RandomDataOutput, ApiError> {
    let seed = match input.seed {
        Some(s) => s,
        None => {
            let mut b = [0u8; 8];
            getrandom::fill(&mut b)
                .map_err(|e| ApiError::internal(format!("the system random generator failed: {e}")))?;
            // Within JSON's exact integer range, so the returned seed reproduces the output.
            u64::from_le_bytes(b) >> 11
        }
    };
    let records = generate(input.locale, input.count, seed);
    Ok(RandomDataOutput { count: records.len(), records, locale: input.locale, seed })
}

#[cfg(test)]
mod tests {
    use super::*;

    const ALL: [Locale; 14] = [
        Locale::En,
        Locale::FrFr,
        Locale::DeDe,
        Locale::ItIt,
        Locale::NlNl,
        Locale::PtBr,
        Locale::PtPt,
        Locale::JaJp,
        Locale::ZhCn,
        Locale::ZhTw,
        Locale::ArSa,
        Locale::FaIr,
        Locale::TrTr,
        Locale::CyGb,
    ];

    #[test]
    fn every_locale_fills_every_field_and_emails_are_reserved_ascii() {
        let email = regex::Regex::new(r"^[a-z0-9._]+@example\.(com|net|org)$").unwrap();
        for locale in ALL {
            for p in generate(locale, 30, 1) {
                let c = locale.coverage();
                assert!(!p.first_name.trim().is_empty() && !p.last_name.trim().is_empty());
                for (covered, field) in [
                    (c.phone, &p.phone),
                    (c.street, &p.address.street),
                    (c.city, &p.address.city),
                    (c.state, &p.address.state),
                    (c.postal != Postal::None, &p.address.postal_code),
                    (c.company, &p.company),
                    (c.job, &p.job_title),
                ] {
                    assert_eq!(covered, field.as_ref().is_some_and(|f| !f.trim().is_empty()), "{locale:?}: {p:?}");
                }
                assert!(email.is_match(&p.email), "{locale:?}: {}", p.email);
                assert!(p.username.is_ascii());
                assert!(uuid::Uuid::parse_str(&p.id).unwrap().get_version_num() == 4);
                let born: jiff::civil::Date = p.birthdate.parse().unwrap();
                assert!((jiff::civil::date(1940, 9, 5)..=jiff::civil::date(2007, 12, 31)).contains(&born));
            }
        }
    }

    #[test]
    fn postal_codes_have_the_country_format() {
        let formats = [
            (Locale::En, r"^\d{5}(-\d{4})?$"),
            (Locale::DeDe, r"^\d{5}$"),
            (Locale::FrFr, r"^\d{5}$"),
            (Locale::NlNl, r"^\d{4} [A-Z]{2}$"),
            (Locale::PtBr, r"^\d{5}-\d{3}$"),
            (Locale::PtPt, r"^\d{4}-\d{3}$"),
            (Locale::ZhCn, r"^\d{6}$"),
        ];
        for (locale, pattern) in formats {
            let re = regex::Regex::new(pattern).unwrap();
            for p in generate(locale, 20, 11) {
                let code = p.address.postal_code.unwrap();
                assert!(re.is_match(&code), "{locale:?}: {code}");
            }
        }
    }

    #[test]
    fn names_come_from_the_locale() {
        for p in generate(Locale::DeDe, 20, 3) {
            assert!(locales::DE_DE::NAME_FIRST_NAME.contains(&p.first_name.as_str()), "{}", p.first_name);
            assert_eq!(p.address.country_code, "DE");
        }
        for p in generate(Locale::JaJp, 20, 3) {
            assert!(locales::JA_JP::NAME_LAST_NAME.contains(&p.last_name.as_str()));
            assert_eq!(p.full_name, format!("{}{}", p.last_name, p.first_name));
        }
    }

    #[test]
    fn seeds_reproduce_and_differ() {
        assert_eq!(generate(Locale::FrFr, 5, 99), generate(Locale::FrFr, 5, 99));
        assert_ne!(generate(Locale::FrFr, 5, 99), generate(Locale::FrFr, 5, 100));
        let ids: std::collections::HashSet<String> = generate(Locale::En, 50, 5).into_iter().map(|p| p.id).collect();
        assert_eq!(ids.len(), 50);
    }
}
