//! Timestamps as the API writes them: RFC 3339, UTC, millisecond precision.

use std::time::{Duration, SystemTime};

/// Milliseconds since the Unix epoch (0 for times before it).
pub fn unix_ms(t: SystemTime) -> u64 {
    t.duration_since(SystemTime::UNIX_EPOCH).map_or(0, |d| d.as_millis() as u64)
}

/// `t` as `2026-11-21T18:31:28.123Z`.
pub fn rfc3339(t: SystemTime) -> String {
    match jiff::Timestamp::from_millisecond(unix_ms(t) as i64) {
        Ok(ts) => format!("{ts:.3}"),
        Err(_) => "1970-01-01T00:00:00.000Z".to_string(),
    }
}

/// Now, truncated to whole milliseconds, so that what is stored and what is shown agree.
/// The present moment as RFC 3339 text, for the `checkedAt`-style fields of answers.
pub fn now_rfc3339() -> String {
    rfc3339(now())
}

pub fn now() -> SystemTime {
    SystemTime::UNIX_EPOCH + Duration::from_millis(unix_ms(SystemTime::now()))
}

/// Now, in whole seconds since the Unix epoch.
pub fn unix_secs() -> u64 {
    SystemTime::now().duration_since(SystemTime::UNIX_EPOCH).map_or(0, |d| d.as_secs())
}

/// An instant written as ISO 8601 / RFC 3339: with an offset (`2026-11-21T10:00:00+01:00`,
/// `...Z`), or without one (`2026-11-21T10:00`, `2026-11-21`), which is read as UTC.
pub fn parse_iso(text: &str) -> Result<jiff::Timestamp, String> {
    let text = text.trim();
    if let Ok(ts) = text.parse::<jiff::Timestamp>() {
        return Ok(ts);
    }
    if let Ok(z) = text.parse::<jiff::Zoned>() {
        return Ok(z.timestamp());
    }
    let civil = text
        .parse::<jiff::civil::DateTime>()
        .or_else(|_| text.parse::<jiff::civil::Date>().map(|d| d.at(0, 0, 0, 0)))
        .map_err(|_| format!("{text:?} is not an ISO 8601 date or date-time (e.g. 2026-11-21T10:00:00Z)"))?;
    civil.to_zoned(jiff::tz::TimeZone::UTC).map(|z| z.timestamp()).map_err(|e| format!("{text:?}: {e}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_rfc3339_utc_milliseconds() {
        let t = SystemTime::UNIX_EPOCH + Duration::from_millis(1_795_000_000_123);
        // Reference: Python, datetime.fromtimestamp(1795000000, timezone.utc) is 2026-11-18 11:06:40.
        assert_eq!(rfc3339(t), "2026-11-18T11:06:40.123Z");
        assert_eq!(rfc3339(SystemTime::UNIX_EPOCH), "1970-01-01T00:00:00.000Z");
    }
}
