//! ISO 3166-1 countries: English name, continent and calling codes, from the embedded
//! `data/countries/countries.tsv` (npm countries-list 3.4.1, MIT), for data sets that give
//! only a country code.

use std::{collections::HashMap, sync::OnceLock};

#[derive(Debug, Clone, Copy)]
pub struct Country {
    pub code: &'static str,
    pub name: &'static str,
    pub continent: &'static str,
    pub calling_codes: &'static str,
}

const TABLE: &str = include_str!("../../../../data/countries/countries.tsv");

/// Builds the embedded table now (the warm-up and `wrench tables` call it).
pub fn warm() {
    let _ = table();
}

fn table() -> &'static HashMap<&'static str, Country> {
    static T: OnceLock<HashMap<&'static str, Country>> = OnceLock::new();
    T.get_or_init(|| {
        TABLE
            .lines()
            .filter(|l| !l.starts_with('#') && !l.is_empty())
            .filter_map(|l| {
                let mut f = l.split('\t');
                let c = Country { code: f.next()?, name: f.next()?, continent: f.next()?, calling_codes: f.next()? };
                Some((c.code, c))
            })
            .collect()
    })
}

/// The country of an ISO 3166-1 alpha-2 code (any case).
pub fn by_code(code: &str) -> Option<Country> {
    table().get(code.to_ascii_uppercase().as_str()).copied()
}

/// Every country of the table.
pub fn all() -> impl Iterator<Item = Country> {
    table().values().copied()
}

pub fn continent_name(code: &str) -> Option<&'static str> {
    Some(match code {
        "AF" => "Africa",
        "AN" => "Antarctica",
        "AS" => "Asia",
        "EU" => "Europe",
        "NA" => "North America",
        "OC" => "Oceania",
        "SA" => "South America",
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_give_names_and_continents() {
        assert_eq!(table().len(), 252);
        let de = by_code("de").unwrap();
        assert_eq!((de.name, de.continent, de.calling_codes), ("Germany", "EU", "49"));
        assert_eq!(by_code("GB").unwrap().name, "United Kingdom");
        assert!(by_code("ZZ").is_none());
        assert_eq!(continent_name("SA"), Some("South America"));
    }
}
