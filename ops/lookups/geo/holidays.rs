//! Public holidays (`holidays/list`) of 251 countries and their subdivisions, 2000
//! to 2050, from a table generated from the Python library `holidays` 0.108
//! (`data/holidays/generate.py`): each holiday with its name in the country's language and in
//! English, and the days that stand in for a holiday falling on a rest day.
//!
//! The table itself is `wrench_kit::geo::holidays`, shared with the business-day arithmetic of
//! `date/diff` and `date/add`.

use wrench_contract::prelude::*;
use wrench_infra::datasets::countries;
use wrench_kit::geo::holidays::{SOURCE, rows_of};

/// Builds the embedded table now (the warm-up and `wrench tables` call it).
pub(crate) fn warm() {
    wrench_kit::geo::holidays::warm();
}

#[derive(Debug, Deserialize, JsonSchema, Validate)]
#[serde(deny_unknown_fields)]
struct HolidaysInput {
    /// ISO 3166-1 alpha-2 country code (`DE`, `US`).
    #[schemars(length(min = 2, max = 2), pattern("^[A-Za-z]{2}$"))]
    country: String,
    /// The year, 2000 to 2050.
    #[schemars(range(min = 2000, max = 2050))]
    year: i16,
    /// A subdivision code as the country's list has it (`BY` for Bavaria, `CA` for
    /// California); its own holidays are added and those it does not keep are left out.
    #[schemars(length(min = 1, max = 16))]
    subdivision: Option<String>,
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct Holiday {
    /// `YYYY-MM-DD`.
    date: String,
    /// `monday` ... `sunday`.
    weekday: String,
    /// The name in the country's language (`localLanguage`).
    local_name: String,
    /// The name in English.
    name: String,
    /// `public`, or `observed` for a day that stands in for a holiday falling on a rest day.
    #[serde(rename = "type")]
    kind: String,
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct HolidaysOutput {
    country: String,
    country_name: Option<String>,
    subdivision: Option<String>,
    year: i16,
    /// The language of `localName` (a language tag such as `de` or `pt_BR`).
    local_language: String,
    count: usize,
    holidays: Vec<Holiday>,
    /// The subdivision codes the country's list knows.
    subdivisions: Vec<String>,
    source: &'static str,
}

/// List the public holidays of a country.
///
/// The public holidays of a country (ISO 3166-1 alpha-2) in a year from 2000 to 2050, in date
/// order, each with its weekday, its name in the country's language and in English, and
/// whether it is the holiday itself or a day observed in its place. With `subdivision`, the
/// holidays of that state or region (its own added, national ones it does not keep removed).
/// 251 countries, from the Python library holidays 0.108. Countries whose law suspends
/// holidays (Ukraine under martial law since 2022) list none for those years.
#[op(post "/v1/holidays/list" as holidaysList,
     get "/v1/holidays/list" as holidaysListGet,
     tag = Lookups,
     rejects = "a country or subdivision the embedded calendars do not cover",
     example(germany, {"country": "DE", "year": 2025}),
     example(bavaria, {"country": "DE", "year": 2025, "subdivision": "BY"}),
     example(united_states, {"country": "US", "year": 2026}),
     example(unknown_country, {"country": "XX", "year": 2025}, status = 400))]
async fn holidays_list(input: HolidaysInput) -> Result<HolidaysOutput, ApiError> {
    let cc = input.country.trim().to_ascii_uppercase();
    let (block, subdivision, mut rows) =
        rows_of(&input.country, input.subdivision.as_deref(), &format!("{}-", input.year))?;
    if !(block.first_year..=block.last_year).contains(&input.year) {
        return Err(ApiError::invalid(
            "year",
            format!("{cc}'s holidays are known from {} to {}", block.first_year, block.last_year),
        ));
    }
    rows.sort();
    let holidays: Vec<Holiday> = rows
        .into_iter()
        .map(|(date, local, en, kind)| Holiday {
            weekday: date
                .parse::<jiff::civil::Date>()
                .map(|d| format!("{:?}", d.weekday()).to_ascii_lowercase())
                .unwrap_or_default(),
            date,
            local_name: local,
            name: en,
            kind,
        })
        .collect();
    Ok(HolidaysOutput {
        country_name: countries::by_code(&cc).map(|c| c.name.to_string()),
        country: cc,
        subdivision,
        year: input.year,
        local_language: block.language.to_string(),
        count: holidays.len(),
        holidays,
        subdivisions: block.subdivisions.iter().map(|s| s.to_string()).collect(),
        source: SOURCE,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    async fn list(cc: &str, year: i16, sub: Option<&str>) -> Result<HolidaysOutput, ApiError> {
        holidays_list(HolidaysInput { country: cc.into(), year, subdivision: sub.map(Into::into) }).await
    }

    fn dates(out: &HolidaysOutput) -> std::collections::BTreeSet<String> {
        out.holidays.iter().filter(|h| h.kind == "public").map(|h| h.date.clone()).collect()
    }

    /// The table against date-holidays 3.37.0, rules written independently in JavaScript
    /// (`tests/fixtures/holidays_date_holidays.json`, 52 countries in 5 years). The two agree
    /// on most days; where they differ it is mostly on what counts as a national public
    /// holiday (Switzerland's are cantonal; India's gazetted list; Russia's New Year week;
    /// Islamic dates by sighting), so the check is a rate overall and exact agreement for
    /// countries with settled calendars.
    /// Days the two libraries class differently: Sundays that are legal holidays in Belgium,
    /// Finland's eves that close offices by law or custom, the Dutch days that are public
    /// holidays for some employers only (Good Friday, and Liberation Day in lustrum years),
    /// Italy's National Unity Day, Sweden's Whit Monday before its abolition in 2005
    /// (date-holidays applies today's calendar to earlier years), and England's Late Summer
    /// Bank Holiday, which date-holidays' GB list leaves to its regions while keeping Easter
    /// Monday, which Scotland does not have either.
    const KNOWN: &[(&str, &str)] = &[
        ("GB", "Late Summer Bank Holiday"),
        ("BE", "Easter Sunday"),
        ("BE", "Pentecost"),
        ("IT", "National Unity Day"),
        ("SE", "Pentecost Monday"),
        ("FI", "Midsummer Eve"),
        ("FI", "Christmas Eve"),
        ("NL", "Good Friday"),
        ("NL", "Liberation Day"),
    ];

    #[tokio::test]
    async fn agrees_with_date_holidays() {
        let fixture: Value =
            serde_json::from_str(include_str!("../../../tests/fixtures/holidays_date_holidays.json")).unwrap();
        let settled =
            ["AT", "BE", "DE", "DK", "FI", "FR", "GB", "IE", "IT", "LU", "NL", "NO", "NZ", "PL", "SE", "US", "CA"];
        let (mut both, mut ours_total, mut theirs_total) = (0, 0, 0);
        let mut settled_misses = Vec::new();
        for c in fixture["cases"].as_array().unwrap() {
            let (cc, year) = (c["country"].as_str().unwrap(), c["year"].as_i64().unwrap() as i16);
            let theirs: std::collections::BTreeSet<String> =
                c["dates"].as_array().unwrap().iter().map(|d| d.as_str().unwrap().to_string()).collect();
            // date-holidays' GB is England and Wales; the table's GB is what the whole
            // kingdom shares (Easter Monday is not a holiday in Scotland).
            let sub = (cc == "GB").then_some("ENG");
            let ours: std::collections::BTreeSet<String> = match list(cc, year, sub).await {
                Ok(out) => out
                    .holidays
                    .iter()
                    .filter(|h| h.kind == "public" && !KNOWN.contains(&(cc, h.name.as_str())))
                    .map(|h| h.date.clone())
                    .collect(),
                Err(_) => Default::default(),
            };
            both += ours.intersection(&theirs).count();
            ours_total += ours.len();
            theirs_total += theirs.len();
            if settled.contains(&cc) && ours != theirs {
                settled_misses.push(format!(
                    "{cc} {year}: ours {:?} theirs {:?}",
                    ours.difference(&theirs).collect::<Vec<_>>(),
                    theirs.difference(&ours).collect::<Vec<_>>()
                ));
            }
        }
        let rate = both as f64 / ours_total.max(theirs_total) as f64;
        assert!(rate > 0.85, "agreement {rate:.3} ({both} days in common of {ours_total} and {theirs_total})");
        assert!(settled_misses.is_empty(), "{}", settled_misses.join("\n"));
    }

    #[tokio::test]
    async fn names_subdivisions_and_observed_days() {
        let de = list("de", 2025, None).await.unwrap();
        assert_eq!(
            (de.country.as_str(), de.country_name.as_deref(), de.local_language.as_str()),
            ("DE", Some("Germany"), "de")
        );
        let unity = de.holidays.iter().find(|h| h.date == "2025-10-03").unwrap();
        assert_eq!(
            (unity.local_name.as_str(), unity.name.as_str(), unity.weekday.as_str()),
            ("Tag der Deutschen Einheit", "German Unity Day", "friday")
        );
        // Bavaria adds Epiphany, Corpus Christi and All Saints' Day.
        let by = list("DE", 2025, Some("by")).await.unwrap();
        for d in ["2025-01-06", "2025-06-19", "2025-11-01"] {
            assert!(dates(&by).contains(d) && !dates(&de).contains(d), "{d}");
        }
        assert!(by.count > de.count && by.subdivision.as_deref() == Some("BY"));
        // Independence Day 2026 is a Saturday: observed on Friday 3 July.
        let us = list("US", 2026, None).await.unwrap();
        let observed = us.holidays.iter().find(|h| h.date == "2026-07-03").unwrap();
        assert_eq!(observed.kind, "observed");
        let jp = list("JP", 2024, None).await.unwrap();
        assert!(jp.holidays.iter().any(|h| h.local_name == "元日"));
        for (cc, year, sub, field) in
            [("XX", 2025, None, "country"), ("DE", 2025, Some("ZZ"), "subdivision"), ("USA", 2025, None, "country")]
        {
            let e = list(cc, year, sub).await.unwrap_err();
            assert_eq!(e.field.as_deref(), Some(field), "{e}");
        }
        assert!(wrench_kit::geo::holidays::country_count() >= 200);
    }
}
