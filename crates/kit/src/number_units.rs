//! Unit patterns for `number/format` with `style: unit`: the units ECMA-402 sanctions (and
//! their `-per-` compounds) in 39 locales, from Unicode CLDR 48 (embedded from
//! `data/cldr/units.json`; see THIRD_PARTY_DATA.md and `data/cldr/extract_units.py`).
//!
//! A unit is written by choosing its pattern for the plural category of the formatted number
//! (`{0} km`, `{0} kilometers`), falling back to `other`. A compound `x-per-y` without its own
//! CLDR entry is written as ICU does: the numerator's pattern wrapped in the denominator's
//! per-unit pattern (`{0}/h`), or else the locale's compound pattern (`{0}/{1}`) with the
//! denominator's singular name.

use std::{collections::BTreeMap, sync::LazyLock};

use serde::Deserialize;

#[derive(Debug, Deserialize)]
struct UnitEntry {
    /// Pattern per plural category (`one`, `other`, ...), `{0}` standing for the number.
    patterns: BTreeMap<String, String>,
    /// How the unit reads as a denominator (`{0}/km`), when CLDR has it.
    per: Option<String>,
}

#[derive(Debug, Deserialize)]
struct WidthTable {
    /// The compound pattern `{0}/{1}`.
    per: String,
    units: BTreeMap<String, UnitEntry>,
}

#[derive(Debug, Deserialize)]
struct UnitsData {
    units: Vec<String>,
    locales: BTreeMap<String, BTreeMap<String, WidthTable>>,
}

static DATA: LazyLock<UnitsData> = LazyLock::new(|| {
    serde_json::from_slice(&wrench_infra::blobs::CLDR_UNITS.bytes())
        .expect("the embedded CLDR unit data is valid JSON (checked by a test)")
});

/// Builds the embedded table now (the warm-up and `wrench tables` call it).
pub fn warm() {
    let _ = &*DATA;
}

/// The simple units accepted (ECMA-402's sanctioned list).
pub fn simple_units() -> &'static [String] {
    &DATA.units
}

/// The locales with unit data.
pub fn locales() -> Vec<&'static str> {
    DATA.locales.keys().map(String::as_str).collect()
}

/// The data locale for a BCP 47 tag: the tag itself, its language with script (Traditional
/// Chinese for Taiwan, Hong Kong and Macao), or its language alone.
pub fn resolve_locale(tag: &str) -> Option<&'static str> {
    let parts: Vec<&str> = tag.split('-').collect();
    let language = parts[0].to_ascii_lowercase();
    let mut candidates = vec![tag.to_string()];
    if parts.len() >= 2 {
        candidates.push(format!("{language}-{}", parts[1]));
    }
    if language == "zh" && parts.iter().any(|p| matches!(*p, "Hant" | "TW" | "HK" | "MO")) {
        candidates.push("zh-Hant".into());
    }
    candidates.push(language);
    candidates.into_iter().find_map(|c| DATA.locales.get_key_value(&c).map(|(k, _)| k.as_str()))
}

/// Whether `unit` is a simple sanctioned unit or `x-per-y` of two of them.
pub fn is_supported(unit: &str) -> bool {
    let simple = |u: &str| DATA.units.iter().any(|s| s == u);
    match unit.split_once("-per-") {
        Some((a, b)) => simple(a) && simple(b),
        None => simple(unit),
    }
}

fn pattern<'a>(entry: &'a UnitEntry, category: &str) -> &'a str {
    entry.patterns.get(category).or_else(|| entry.patterns.get("other")).map_or("{0}", String::as_str)
}

/// `number` (already formatted) with `unit`, in `width` (short, long or narrow), for the plural
/// `category` of the number. None when the locale or unit has no data.
pub fn apply(locale: &str, width: &str, unit: &str, number: &str, category: &str) -> Option<String> {
    let table = DATA.locales.get(locale)?.get(width)?;
    if let Some(entry) = table.units.get(unit) {
        return Some(pattern(entry, category).replace("{0}", number));
    }
    let (numerator, denominator) = unit.split_once("-per-")?;
    let top = pattern(table.units.get(numerator)?, category).replace("{0}", number);
    let bottom = table.units.get(denominator)?;
    Some(match &bottom.per {
        Some(per) => per.replace("{0}", &top),
        None => {
            let name = pattern(bottom, "one").replace("{0}", "").trim().to_string();
            table.per.replace("{0}", &top).replace("{1}", &name)
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn data_covers_every_sanctioned_unit_in_every_locale_and_width() {
        assert_eq!(simple_units().len(), 45);
        for (locale, widths) in &DATA.locales {
            for width in ["short", "long", "narrow"] {
                let table = &widths[width];
                for unit in simple_units() {
                    assert!(table.units.contains_key(unit), "{locale} {width} {unit}");
                    assert!(table.units[unit].patterns.contains_key("other"), "{locale} {width} {unit}");
                }
            }
        }
    }

    #[test]
    fn locales_resolve_to_their_closest_data() {
        assert_eq!(resolve_locale("en-US"), Some("en"));
        assert_eq!(resolve_locale("en-GB"), Some("en-GB"));
        assert_eq!(resolve_locale("pt-BR"), Some("pt"));
        assert_eq!(resolve_locale("pt-PT"), Some("pt-PT"));
        assert_eq!(resolve_locale("zh-TW"), Some("zh-Hant"));
        assert_eq!(resolve_locale("zh-CN"), Some("zh"));
        assert_eq!(resolve_locale("xx"), None);
    }
}
