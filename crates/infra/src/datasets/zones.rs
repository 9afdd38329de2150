//! The IANA time zone at a coordinate, for IP data sets whose records carry coordinates but no
//! zone: the ip-location-db flat schema has a `timezone` column its files leave empty.
//!
//! The boundaries are timezone-boundary-builder's (derived from OpenStreetMap, ODbL), as
//! simplified by tzf-dist 2026f, read by tzf-rs (4.1 MB, deflated to 2.6 MB in the binary).
//! The finder takes about 30 MiB once built, so it is built only where needed: when a city file
//! has been loaded (`Datasets::load_all`) or on first use. Over the sea it answers the nautical
//! `Etc/GMT±N` zones.

use std::sync::OnceLock;

use tzf_rs::DefaultFinder;

fn finder() -> &'static DefaultFinder {
    static FINDER: OnceLock<DefaultFinder> = OnceLock::new();
    FINDER.get_or_init(|| {
        DefaultFinder::from_tzb(&crate::blobs::TZ_BOUNDARIES.bytes())
            .expect("the embedded boundaries open (checked by the embedded data's test)")
    })
}

/// The credit an answer owes when a zone came from the boundaries.
pub const ATTRIBUTION: &str = "time zone from timezone-boundary-builder, © OpenStreetMap contributors, ODbL 1.0";

/// `attribution` with the boundaries' credit added when `used` (a zone came from them).
pub fn credit(attribution: Option<String>, used: bool) -> Option<String> {
    match (attribution, used) {
        (a, false) => a,
        (Some(a), true) => Some(format!("{a}; {ATTRIBUTION}")),
        (None, true) => Some(ATTRIBUTION.to_string()),
    }
}

/// Builds the finder now, so the first lookup that needs it does not wait.
pub fn warm_up() {
    let _ = finder();
}

/// The zone at `lat`/`lng`, or `None` where no boundary covers the point.
pub fn zone_at(lat: f64, lng: f64) -> Option<&'static str> {
    if !(-90.0..=90.0).contains(&lat) || !(-180.0..=180.0).contains(&lng) {
        return None;
    }
    Some(finder().get_tz_name(lng, lat)).filter(|z| !z.is_empty())
}

/// The boundary data's release.
pub fn version() -> &'static str {
    finder().data_version()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn zones_of_known_places_and_the_sea() {
        // Cities near zone boundaries, and the sea; each zone is also one jiff's tzdb knows.
        for (lat, lng, zone) in [
            (51.5142, -0.0931, "Europe/London"),
            (-27.4679, 153.0281, "Australia/Brisbane"),
            (-33.8688, 151.2093, "Australia/Sydney"),
            (37.3861, -122.0839, "America/Los_Angeles"),
            (41.8781, -87.6298, "America/Chicago"),
            (40.7128, -74.0060, "America/New_York"),
            (35.6895, 139.6917, "Asia/Tokyo"),
            (43.2965, 5.3698, "Europe/Paris"),
            (47.3769, 8.5417, "Europe/Zurich"),
            (64.1466, -21.9426, "Atlantic/Reykjavik"),
            (-34.6037, -58.3816, "America/Argentina/Buenos_Aires"),
            (28.6139, 77.2090, "Asia/Kolkata"),
            (0.0, -160.0, "Etc/GMT+11"),
        ] {
            assert_eq!(zone_at(lat, lng), Some(zone), "{lat},{lng}");
            assert!(jiff::tz::TimeZone::get(zone).is_ok(), "{zone}");
        }
        assert_eq!(zone_at(91.0, 0.0), None);
        // THIRD_PARTY_DATA.md names this release.
        assert!(version().contains("2026f"), "{}", version());
    }
}
