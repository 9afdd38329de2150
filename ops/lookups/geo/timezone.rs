//! A time zone now (or at a given instant): offset, abbreviation, daylight saving, local
//! time, Unix time and the transitions either side (`timezone`), from the embedded
//! tzdb (`tzdb.rs`).

use jiff::{Timestamp, tz::TimeZone};

use wrench_contract::prelude::*;
use wrench_kit::geo::tzdb::{Observed, observed, tzdb_version, zone, zone_name};

#[derive(Debug, Deserialize, JsonSchema, Validate)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct TimezoneInput {
    /// An IANA time zone name (`Europe/Paris`, `America/New_York`); case does not matter.
    #[serde(default = "utc")]
    #[schemars(length(min = 1, max = 64))]
    timezone: String,
    /// The instant to describe, RFC 3339 (`2024-03-31T01:30:00Z`); now when absent.
    #[schemars(
        length(min = 1, max = 64),
        extend("format" = "date-time"),
        pattern("^[0-9]{4}-[0-9]{2}-[0-9]{2}[Tt][0-9]{2}:[0-9]{2}:[0-9]{2}(?:[.][0-9]{1,9})?(?:[Zz]|[+-][0-9]{2}:[0-9]{2})$")
    )]
    at: Option<String>,
}

fn utc() -> String {
    "UTC".to_string()
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct Transition {
    /// When it happens, in UTC.
    at: String,
    /// The local time just before it.
    local_before: String,
    /// The local time it becomes.
    local_after: String,
    before: Observed,
    after: Observed,
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct TimezoneOutput {
    /// The zone's name as the tzdb spells it.
    timezone: String,
    #[serde(flatten)]
    observed: Observed,
    /// Local date and time, without offset.
    local_time: String,
    /// Local date and time with its offset (RFC 3339).
    iso_time: String,
    /// The same instant in UTC.
    utc_time: String,
    /// Unix seconds.
    unix: i64,
    /// The next change of offset, abbreviation or DST after the instant; null for zones
    /// without one (UTC, zones that dropped DST for good).
    next_transition: Option<Transition>,
    /// The last change at or before the instant; null when the zone has never changed.
    previous_transition: Option<Transition>,
    /// The tzdb release the answer comes from.
    tzdb_version: &'static str,
}

fn transition(tz: &TimeZone, at: Timestamp) -> Option<Transition> {
    let before_at = at.checked_sub(jiff::SignedDuration::from_secs(1)).ok()?;
    let before = observed(tz, before_at);
    let after = observed(tz, at);
    Some(Transition {
        at: at.to_string(),
        // The instant written with the offset that ends there: the wall-clock time that
        // jumps (02:00:00 at a spring-forward change to 03:00:00).
        local_before: TimeZone::fixed(tz.to_offset(before_at)).to_datetime(at).to_string(),
        local_after: tz.to_datetime(at).to_string(),
        before,
        after,
    })
}

/// Describe a time zone at an instant.
///
/// For an IANA time zone (UTC by default) and an instant (now by default): the UTC offset,
/// abbreviation and whether daylight saving time is in effect, the local time, the Unix time,
/// and the transitions either side with what they change. `localBefore` is the wall-clock
/// time the transition interrupts (`02:00:00` at a spring-forward change that jumps to
/// `03:00:00`). The tzdb release embedded in the service is in `tzdbVersion`.
#[op(post "/v1/timezone" as timezone,
     get "/v1/timezone" as timezoneGet,
     tag = Lookups,
     rejects = "a name that is not an IANA time zone, or an instant within a day of the ends of the supported range \
                (the years -9999 and 9999)",
     example(paris_in_summer, {"timezone": "Europe/Paris", "at": "2024-07-01T12:00:00Z"}),
     example(new_york_before_fall_back, {"timezone": "America/New_York", "at": "2024-11-03T05:30:00Z"}),
     example(kolkata, {"timezone": "Asia/Kolkata", "at": "2025-01-15T00:00:00Z"}),
     example(unknown_zone, {"timezone": "Mars/Olympus_Mons"}, status = 400))]
async fn timezone(input: TimezoneInput) -> Result<TimezoneOutput, ApiError> {
    let tz = zone("timezone", &input.timezone)?;
    let at = match input.at.as_deref() {
        None => Timestamp::now(),
        Some(text) => text.parse::<Timestamp>().map_err(|e| {
            ApiError::invalid("at", format!("{text:?} is not an RFC 3339 instant such as 2024-03-31T01:30:00Z ({e})"))
        })?,
    };
    let zoned = at.to_zoned(tz.clone());
    let next = tz.following(at).next().and_then(|t| transition(&tz, t.timestamp()));
    let previous = tz
        .preceding(at.checked_add(jiff::SignedDuration::from_nanos(1)).unwrap_or(at))
        .next()
        .and_then(|t| transition(&tz, t.timestamp()));
    Ok(TimezoneOutput {
        timezone: zone_name(&tz),
        observed: observed(&tz, at),
        local_time: zoned.datetime().to_string(),
        iso_time: zoned.timestamp().display_with_offset(zoned.offset()).to_string(),
        utc_time: at.to_string(),
        unix: at.as_second(),
        next_transition: next,
        previous_transition: previous,
        tzdb_version: tzdb_version(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    async fn at(zone: &str, when: &str) -> TimezoneOutput {
        timezone(TimezoneInput { timezone: zone.into(), at: Some(when.into()) }).await.unwrap()
    }

    /// Offsets, abbreviations and DST at instants agree with Python's zoneinfo
    /// (`tests/fixtures/timezones.json`, from `tests/fixtures/timezones.py`).
    #[tokio::test]
    async fn agrees_with_pythons_zoneinfo() {
        let fixture: Value = serde_json::from_str(include_str!("../../../tests/fixtures/timezones.json")).unwrap();
        let cases = fixture["instants"].as_array().unwrap();
        assert!(cases.len() >= 30);
        for c in cases {
            let s = |k: &str| c[k].as_str().unwrap().to_string();
            let out = at(&s("zone"), &s("at")).await;
            let ctx = format!("{} at {}", s("zone"), s("at"));
            assert_eq!(out.observed.offset_seconds, c["offsetSeconds"].as_i64().unwrap() as i32, "{ctx}");
            assert_eq!(out.observed.abbreviation, s("abbreviation"), "{ctx}");
            assert_eq!(out.local_time, s("local"), "{ctx}");
            if let Some(dst) = c["dst"].as_bool() {
                assert_eq!(out.observed.dst, dst, "{ctx}");
            }
        }
    }

    #[tokio::test]
    async fn transitions_either_side_are_the_tzdbs() {
        // US fall-back 2024: 2024-11-03 02:00 EDT becomes 01:00 EST, at 06:00 UTC.
        let ny = at("America/New_York", "2024-11-03T05:30:00Z").await;
        let next = ny.next_transition.unwrap();
        assert_eq!(next.at, "2024-11-03T06:00:00Z");
        assert_eq!(
            (next.local_before.as_str(), next.local_after.as_str()),
            ("2024-11-03T02:00:00", "2024-11-03T01:00:00")
        );
        assert_eq!((next.before.abbreviation.as_str(), next.after.abbreviation.as_str()), ("EDT", "EST"));
        assert!(next.before.dst && !next.after.dst);
        let prev = ny.previous_transition.unwrap();
        assert_eq!(prev.at, "2024-03-10T07:00:00Z");
        assert_eq!(
            (prev.local_before.as_str(), prev.local_after.as_str()),
            ("2024-03-10T02:00:00", "2024-03-10T03:00:00")
        );
        // At the very instant of a change the change is the previous one.
        let exact = at("America/New_York", "2024-11-03T06:00:00Z").await;
        assert_eq!(exact.previous_transition.unwrap().at, "2024-11-03T06:00:00Z");
        assert_eq!(exact.observed.abbreviation, "EST");
        // UTC never changes; Kolkata has not since 1945.
        let utc = at("UTC", "2024-01-01T00:00:00Z").await;
        assert!(utc.next_transition.is_none() && utc.previous_transition.is_none());
        assert_eq!((utc.observed.offset.as_str(), utc.unix), ("+00:00", 1_704_067_200));
        assert!(at("Asia/Kolkata", "2025-01-15T00:00:00Z").await.next_transition.is_none());
    }

    #[tokio::test]
    async fn bad_input_names_the_field() {
        let e = timezone(TimezoneInput { timezone: "Nowhere/Land".into(), at: None }).await.unwrap_err();
        assert!(e.to_string().contains("timezone"), "{e}");
        let e = timezone(TimezoneInput { timezone: "UTC".into(), at: Some("yesterday".into()) }).await.unwrap_err();
        assert!(e.to_string().contains("at"), "{e}");
    }
}
