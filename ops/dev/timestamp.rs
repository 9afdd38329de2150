//! Timestamps: Unix seconds, Unix milliseconds and ISO 8601 read (detected or hinted) and
//! written as Unix, milliseconds, ISO 8601 (RFC 3339), RFC 2822 and a relative phrase.
//!
//! Detection: digits (with an optional sign and fraction) are Unix seconds, or milliseconds
//! when their magnitude is 10^11 or more (10^11 seconds is the year 5138, so no realistic
//! seconds value is that large, and every millisecond value since March 1973 is). Anything
//! else is read as ISO 8601. Times span the years -9999 to 9999.

use jiff::{Timestamp, fmt::rfc2822};

use wrench_contract::prelude::*;
use wrench_infra::time;

use super::timestamp_epochs as epochs;

#[derive(Debug, Deserialize, Serialize, JsonSchema, Validate, Clone, Copy, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
enum InputForm {
    /// Unix seconds (a fraction is allowed).
    Unix,
    /// Unix milliseconds.
    UnixMs,
    /// ISO 8601 / RFC 3339.
    Iso,
    /// Windows FILETIME (also AD and LDAP): 100-ns intervals since 1601-01-01.
    WindowsFiletime,
    /// .NET ticks: 100-ns intervals since 0001-01-01.
    DotnetTicks,
    /// Excel serial date, 1900 system (Windows).
    Excel1900,
    /// Excel serial date, 1904 system (older Mac workbooks).
    Excel1904,
    /// Apple Cocoa / Core Data: seconds since 2001-01-01.
    AppleCocoa,
    /// Julian day number with its fraction.
    JulianDay,
}

#[derive(Debug, Deserialize, Serialize, JsonSchema, Validate, Clone, Copy, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
enum OutputForm {
    Unix,
    UnixMs,
    Iso,
    Rfc2822,
    Relative,
    WindowsFiletime,
    DotnetTicks,
    Excel1900,
    Excel1904,
    AppleCocoa,
    JulianDay,
    Rfc7231,
    IsoWeek,
}

/// A timestamp written as text (at most 64 characters) or as a JSON number.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(untagged)]
enum Stamp {
    Text(#[schemars(length(max = 64))] String),
    Number(serde_json::Number),
}

impl wrench_contract::validate::Validate for Stamp {
    fn validate(&self, path: &str) -> Result<(), wrench_contract::validate::FieldError> {
        match self {
            Stamp::Text(t) => wrench_contract::validate::check_length(t, path, None, Some(64)),
            Stamp::Number(_) => Ok(()),
        }
    }
}

#[derive(Debug, Deserialize, JsonSchema, Validate)]
#[serde(deny_unknown_fields)]
struct TimestampConvertInput {
    /// Unix seconds (`1700000000`), Unix milliseconds (`1700000000000`) or ISO 8601
    /// (`2023-11-14T22:13:20Z`, `2023-11-14`), as a string or a number.
    timestamp: Stamp,
    /// How to read it, when detection is not wanted.
    #[serde(default)]
    from: Option<InputForm>,
    /// A form to also return alone in `result`.
    #[serde(default)]
    to: Option<OutputForm>,
    /// A time zone to also give the instant in (`zoned`), and to write `format` in: an IANA
    /// name (`Europe/Paris`) or a fixed offset (`+05:30`, `-0800`, `Z`).
    #[serde(default)]
    #[schemars(length(min = 1, max = 64))]
    tz: Option<String>,
    /// A `strftime` pattern to write the instant with, in `tz` (UTC without one), into
    /// `formatted`: `%Y-%m-%d %H:%M:%S %Z`, `%A %e %B %Y`, `%s`. The C library's conversions
    /// and flags (`%-d`, `%_H`, `%^a`, `%#Z`, widths such as `%10Y`) in the C locale
    /// (`%c` is `Tue Nov 14 22:13:20 2023`), plus `%f` (the second's fraction: `%3f` or
    /// `%6f` for a fixed number of digits), `%:z` (`+05:30`), `%q` (quarter) and `%Q` (the
    /// zone's name). An unknown conversion is refused by name.
    #[serde(default)]
    #[schemars(length(min = 1, max = 256))]
    format: Option<String>,
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct ZonedForm {
    /// The zone: its IANA name, or the fixed offset given.
    timezone: String,
    /// ISO 8601 with the zone's offset at that instant (RFC 3339 but for the local mean times of
    /// the 19th century, whose offsets keep their seconds: `+05:21:10`).
    iso: String,
    /// The local date and time, without an offset.
    local: String,
    /// The offset from UTC at that instant, `+05:30` (`+05:21:10` when it has seconds).
    offset: String,
    /// The zone's abbreviation at that instant (`CET`, `EDT`; the offset where the zone has
    /// none).
    abbreviation: String,
    /// Whether daylight saving time is in effect.
    dst: bool,
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct TimestampConvertOutput {
    /// How the input was read: unix, unix_ms or iso.
    detected: InputForm,
    /// Unix seconds (rounded down).
    unix: i64,
    /// Unix milliseconds (rounded down).
    unix_ms: i64,
    /// ISO 8601 / RFC 3339 in UTC; milliseconds shown when not zero.
    iso: String,
    /// RFC 2822 in UTC, as e-mail and HTTP dates write it.
    rfc2822: String,
    /// Relative to now: "in 3 days", "2 hours ago", "just now".
    relative: String,
    /// Day of the week in UTC.
    day_of_week: String,
    /// Windows FILETIME, a decimal string (it outgrows JSON numbers); null before 1601.
    windows_filetime: Option<String>,
    /// .NET `DateTime.Ticks`, a decimal string; null before the year 1.
    dotnet_ticks: Option<String>,
    /// Excel serial date in the 1900 system (Lotus's 29 February 1900 counted, as Excel
    /// does); null before 1900-01-01.
    excel1900: Option<f64>,
    /// Excel serial date in the 1904 system; null before 1904-01-01.
    excel1904: Option<f64>,
    /// Apple Cocoa (NSDate) seconds since 2001-01-01.
    apple_cocoa: f64,
    /// Julian day (days since noon, 1 January 4713 BC).
    julian_day: f64,
    /// RFC 7231 (HTTP) date: `Tue, 14 Nov 2023 22:13:20 GMT`; null outside the years 1 to 9999.
    rfc7231: Option<String>,
    /// ISO 8601 week date, `2023-W46-2` (ISO year, week, weekday from Monday = 1).
    iso_week: String,
    /// The form asked for in `to`, alone; null when `to` is absent.
    result: Option<Value>,
    /// The instant in the zone `tz`; null without one.
    zoned: Option<ZonedForm>,
    /// The instant written with `format`; null without one.
    formatted: Option<String>,
}

/// An IANA zone, or a fixed offset: `Z`, `+05`, `+0530`, `+05:30`, `-08:00` (up to 25 hours,
/// as jiff allows).
pub(crate) fn time_zone(text: &str) -> Result<jiff::tz::TimeZone, ApiError> {
    let t = text.trim();
    if t.eq_ignore_ascii_case("z") {
        return Ok(jiff::tz::TimeZone::UTC);
    }
    let Some(rest) = t.strip_prefix(['+', '-']) else {
        return wrench_kit::geo::tzdb::zone("tz", t);
    };
    let bad = || ApiError::invalid("tz", format!("{t:?} is not an offset such as +05:30, -0800 or +01"));
    let digits = match rest.as_bytes() {
        [_, _] | [_, _, _, _] => rest.to_string(),
        [a, b, b':', c, d] => String::from_utf8(vec![*a, *b, *c, *d]).map_err(|_| bad())?,
        _ => return Err(bad()),
    };
    if !digits.bytes().all(|b| b.is_ascii_digit()) {
        return Err(bad());
    }
    let hours: i32 = digits[..2].parse().map_err(|_| bad())?;
    let minutes: i32 = if digits.len() == 4 { digits[2..].parse().map_err(|_| bad())? } else { 0 };
    if hours > 25 || minutes > 59 {
        return Err(bad());
    }
    let seconds = (hours * 3600 + minutes * 60) * if t.starts_with('-') { -1 } else { 1 };
    let offset = jiff::tz::Offset::from_seconds(seconds).map_err(|e| ApiError::invalid("tz", e))?;
    Ok(jiff::tz::TimeZone::fixed(offset))
}

/// The instant in `tz`, each part of it.
fn zoned_form(zoned: &jiff::Zoned, name: String) -> ZonedForm {
    // What `timezone` answers for the zone at that instant; the offset keeps its seconds, which
    // jiff's RFC 3339 printer would round to minutes, so `iso` is written from it here.
    let observed = wrench_kit::geo::tzdb::observed(zoned.time_zone(), zoned.timestamp());
    ZonedForm {
        timezone: name,
        iso: format!("{}{}", zoned.datetime(), observed.offset),
        local: zoned.datetime().to_string(),
        offset: observed.offset,
        abbreviation: observed.abbreviation,
        dst: observed.dst,
    }
}

/// `zoned` written with the `strftime` pattern, in the C locale.
fn strftime(zoned: &jiff::Zoned, pattern: &str) -> Result<String, ApiError> {
    use jiff::fmt::strtime::{BrokenDownTime, Config, PosixCustom};
    let config = Config::new().custom(PosixCustom::new());
    BrokenDownTime::from(zoned).to_string_with_config(&config, pattern).map_err(|e| ApiError::invalid("format", e))
}

fn read(text: &str, hint: Option<InputForm>) -> Result<(Timestamp, InputForm), String> {
    let text = text.trim();
    let numeric = !text.is_empty()
        && text.trim_start_matches(['-', '+']).chars().all(|c| c.is_ascii_digit() || c == '.')
        && text.chars().any(|c| c.is_ascii_digit());
    let form = match hint {
        Some(f) => f,
        None if numeric => {
            let magnitude: f64 = text.parse().map_err(|_| format!("{text:?} is not a number"))?;
            if magnitude.abs() >= 1e11 { InputForm::UnixMs } else { InputForm::Unix }
        }
        None => InputForm::Iso,
    };
    let out_of_range = |_| format!("{text} is outside the supported range (years -9999 to 9999)");
    let epoch_form = !matches!(form, InputForm::Iso | InputForm::Unix | InputForm::UnixMs);
    if epoch_form && !numeric {
        return Err(format!("{text:?} is not a number"));
    }
    let ts = match form {
        InputForm::Iso => time::parse_iso(text)?,
        InputForm::WindowsFiletime => epochs::read_filetime(text)?,
        InputForm::DotnetTicks => epochs::read_dotnet_ticks(text)?,
        InputForm::Excel1900 => epochs::read_excel(text, false)?,
        InputForm::Excel1904 => epochs::read_excel(text, true)?,
        InputForm::AppleCocoa => epochs::read_cocoa(text)?,
        InputForm::JulianDay => epochs::read_julian_day(text)?,
        InputForm::Unix | InputForm::UnixMs => {
            if !numeric {
                return Err(format!(
                    "{text:?} is not a number of {}",
                    if form == InputForm::Unix { "seconds" } else { "milliseconds" }
                ));
            }
            let n: f64 = text.parse().map_err(|_| format!("{text:?} is not a number"))?;
            let nanos = if form == InputForm::Unix { n * 1e9 } else { n * 1e6 };
            if !nanos.is_finite() || nanos.abs() > 4e20 {
                return Err(out_of_range(()));
            }
            // Whole units exactly; only a fraction goes through floating point.
            let whole: Option<i64> = text.parse().ok();
            match (whole, form) {
                (Some(s), InputForm::Unix) => Timestamp::from_second(s).map_err(|_| out_of_range(()))?,
                (Some(ms), _) => Timestamp::from_millisecond(ms).map_err(|_| out_of_range(()))?,
                (None, _) => Timestamp::from_nanosecond(nanos as i128).map_err(|_| out_of_range(()))?,
            }
        }
    };
    Ok((ts, form))
}

/// "in 3 days", "2 hours ago": the largest whole unit of the distance from `now`.
fn relative(t: Timestamp, now: Timestamp) -> String {
    let secs = t.as_second() - now.as_second();
    let d = secs.unsigned_abs();
    if d < 1 {
        return "just now".into();
    }
    let (n, unit) =
        [(31_556_952, "year"), (2_629_746, "month"), (86_400, "day"), (3_600, "hour"), (60, "minute"), (1, "second")]
            .into_iter()
            .find(|(size, _)| d >= *size)
            .map(|(size, unit)| (d / size, unit))
            .unwrap_or((d, "second"));
    let phrase = format!("{n} {unit}{}", if n == 1 { "" } else { "s" });
    if secs > 0 { format!("in {phrase}") } else { format!("{phrase} ago") }
}

/// Convert a timestamp between Unix, ISO 8601, RFC 2822, FILETIME, Excel and more.
///
/// The input form is detected (digits are seconds, or milliseconds from 10^11 on; other text is
/// ISO 8601, with an offset or read as UTC) unless `from` says which it is: also Windows
/// FILETIME (AD, LDAP), .NET ticks, Excel serial dates (1900 and 1904 systems), Apple Cocoa
/// seconds or a Julian day. Every form is returned, with the RFC 7231 (HTTP) date and the ISO
/// week date; `to` also puts one of them alone in `result`. These outputs are UTC; `tz` adds the
/// instant in an IANA zone or at an offset (`zoned`), and `format` writes it with a `strftime`
/// pattern (`formatted`). Months and years in `relative` are average Gregorian lengths (30.44
/// and 365.2425 days).
#[op(post "/v1/timestamp/convert" as timestampConvert, tag = DeveloperUtilities, pipe(timestamp -> iso),
     rejects = "text that is not a timestamp in the form given or detected, or one outside the years -9999 to 9999; \
                a tz that is not an IANA zone or offset; a format with an unknown conversion",
     redact(".data.relative"),
     example(unix_seconds, {"timestamp": "1700000000"}),
     example(milliseconds_number, {"timestamp": 1700000000123i64, "to": "iso"}),
     example(iso_with_offset, {"timestamp": "2024-02-29T23:30:00+05:30", "to": "rfc2822"}),
     example(windows_filetime, {"timestamp": "133444736000000000", "from": "windows_filetime"}),
     example(excel_serial, {"timestamp": 45000.75, "from": "excel1900", "to": "iso"}),
     example(in_a_zone_with_a_pattern, {"timestamp": "2024-07-01T12:00:00Z", "tz": "America/New_York", "format": "%A %-d %B %Y, %-I:%M %p %Z"}),
     example(unknown_conversion, {"timestamp": "1700000000", "format": "%Y-%!"}, status = 400),
     example(not_a_time, {"timestamp": "yesterday"}, status = 400))]
async fn timestamp_convert(input: TimestampConvertInput) -> Result<TimestampConvertOutput, ApiError> {
    let text = match &input.timestamp {
        Stamp::Text(t) => t.clone(),
        Stamp::Number(n) => n.to_string(),
    };
    let (ts, detected) = read(&text, input.from).map_err(|e| ApiError::invalid("timestamp", e))?;
    let unix = ts.as_second() - i64::from(ts.subsec_nanosecond() < 0);
    let unix_ms = ts.as_millisecond();
    let iso = if ts.subsec_millisecond() == 0 { format!("{ts:.0}") } else { format!("{ts:.3}") };
    let zoned = ts.to_zoned(jiff::tz::TimeZone::UTC);
    let rfc2822 = rfc2822::to_string(&zoned).map_err(|e| ApiError::invalid("timestamp", e))?;
    let relative = relative(ts, Timestamp::now());
    let (windows_filetime, dotnet_ticks) = (epochs::filetime(ts), epochs::dotnet_ticks(ts));
    let (excel1900, excel1904) = (epochs::excel(ts, false), epochs::excel(ts, true));
    let (apple_cocoa, julian_day) = (epochs::cocoa(ts), epochs::julian_day(ts));
    let rfc7231 = (1..=9999).contains(&zoned.year()).then(|| zoned.strftime("%a, %d %b %Y %H:%M:%S GMT").to_string());
    let date = zoned.date();
    let week = date.iso_week_date();
    let iso_week = format!("{:04}-W{:02}-{}", week.year(), week.week(), date.weekday().to_monday_one_offset());
    let local = match input.tz.as_deref() {
        Some(name) => {
            let tz = time_zone(name)?;
            let label = tz.iana_name().map_or_else(|| name.trim().to_string(), str::to_string);
            let local = ts.to_zoned(tz);
            Some((zoned_form(&local, label), local))
        }
        None => None,
    };
    let formatted = match input.format.as_deref() {
        Some(pattern) => Some(strftime(local.as_ref().map_or(&zoned, |(_, z)| z), pattern)?),
        None => None,
    };
    let result = input.to.map(|to| match to {
        OutputForm::Unix => json!(unix),
        OutputForm::UnixMs => json!(unix_ms),
        OutputForm::Iso => json!(iso),
        OutputForm::Rfc2822 => json!(rfc2822),
        OutputForm::Relative => json!(relative),
        OutputForm::WindowsFiletime => json!(windows_filetime),
        OutputForm::DotnetTicks => json!(dotnet_ticks),
        OutputForm::Excel1900 => json!(excel1900),
        OutputForm::Excel1904 => json!(excel1904),
        OutputForm::AppleCocoa => json!(apple_cocoa),
        OutputForm::JulianDay => json!(julian_day),
        OutputForm::Rfc7231 => json!(rfc7231),
        OutputForm::IsoWeek => json!(iso_week),
    });
    Ok(TimestampConvertOutput {
        detected,
        unix,
        unix_ms,
        iso,
        rfc2822,
        relative,
        day_of_week: format!("{:?}", zoned.weekday()),
        windows_filetime,
        dotnet_ticks,
        excel1900,
        excel1904,
        apple_cocoa,
        julian_day,
        rfc7231,
        iso_week,
        result,
        zoned: local.map(|(form, _)| form),
        formatted,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    async fn convert(v: Value) -> Result<TimestampConvertOutput, ApiError> {
        timestamp_convert(serde_json::from_value(v).unwrap()).await
    }

    /// Python's zoneinfo and `datetime.strftime` in the C locale (tests/fixtures/strftime_zones.py):
    /// 170 instants from 1900 to 2100 and beside daylight-saving changes, in 17 zones and six
    /// fixed offsets, with 14 patterns of glibc's conversions and flags.
    #[tokio::test]
    async fn zones_and_patterns_agree_with_python() {
        let cases = crate::testing::fixture("strftime_zones.json");
        for c in cases.as_array().unwrap() {
            let out =
                convert(json!({"timestamp": c["timestamp"], "tz": c["tz"], "format": c["format"]})).await.unwrap();
            let zoned = out.zoned.unwrap();
            let want = |k: &str| c[k].as_str().unwrap().to_string();
            assert_eq!(
                out.formatted.as_deref(),
                Some(want("format").as_str()).map(|_| want("formatted")).as_deref(),
                "{c}"
            );
            assert_eq!((zoned.iso, zoned.local, zoned.offset), (want("iso"), want("local"), want("offset")), "{c}");
            // Python reads the system's tzdata in its main form, where Ireland's winter is a
            // negative daylight saving; jiff's embedded tzdb is in the rearguard form, where
            // Irish summer time is daylight saving, as people say it.
            if c["tz"] != "Europe/Dublin" {
                assert_eq!(zoned.dst, c["dst"].as_bool().unwrap(), "{c}");
            }
            if let Some(abbreviation) = c["abbreviation"].as_str() {
                assert_eq!(zoned.abbreviation, abbreviation, "{c}");
            }
        }
        for (at, dst) in [("2024-07-01T12:00:00Z", true), ("2024-01-15T12:00:00Z", false)] {
            let out = convert(json!({"timestamp": at, "tz": "Europe/Dublin"})).await.unwrap();
            assert_eq!(out.zoned.unwrap().dst, dst, "{at}");
        }
        // `%s` is the Unix time in any zone (glibc's, through Python, reads the local time as UTC).
        let out =
            convert(json!({"timestamp": "1700000000", "tz": "Asia/Kolkata", "format": "%s %3f %q %Q"})).await.unwrap();
        assert_eq!(out.formatted.as_deref(), Some("1700000000 000 4 Asia/Kolkata"));
    }

    #[tokio::test]
    async fn bad_zones_and_patterns_are_named() {
        for (tz, field) in
            [("Mars/Olympus", "tz"), ("+5:30", "tz"), ("+26:00", "tz"), ("+05:60", "tz"), ("+0530x", "tz")]
        {
            let e = convert(json!({"timestamp": "0", "tz": tz})).await.err().unwrap_or_else(|| panic!("{tz}"));
            assert_eq!(e.field.as_deref(), Some(field), "{tz}");
        }
        for pattern in ["%Y-%!", "%E", "%+"] {
            let e = convert(json!({"timestamp": "0", "format": pattern}))
                .await
                .err()
                .unwrap_or_else(|| panic!("{pattern}"));
            assert_eq!(e.field.as_deref(), Some("format"), "{pattern}");
        }
    }

    #[tokio::test]
    async fn known_instants_in_every_form() {
        // 1700000000 is 2023-11-14T22:13:20Z, a Tuesday (as `date -u -d @1700000000` prints).
        for input in [
            json!("1700000000"),
            json!(1700000000),
            json!("1700000000000"),
            json!("2023-11-14T22:13:20Z"),
            json!("2023-11-15T03:43:20+05:30"),
        ] {
            let out = convert(json!({"timestamp": input})).await.unwrap();
            assert_eq!(out.unix, 1_700_000_000, "{input}");
            assert_eq!(out.iso, "2023-11-14T22:13:20Z");
            assert_eq!(out.rfc2822, "Tue, 14 Nov 2023 22:13:20 +0000");
            assert_eq!(out.day_of_week, "Tuesday");
        }
        // The epoch, a negative time (before 1970 rounds down) and fractions.
        assert_eq!(convert(json!({"timestamp": "0"})).await.unwrap().iso, "1970-01-01T00:00:00Z");
        let before = convert(json!({"timestamp": "-1.5"})).await.unwrap();
        assert_eq!((before.unix, before.unix_ms, before.iso.as_str()), (-2, -1500, "1969-12-31T23:59:58.500Z"));
        let ms = convert(json!({"timestamp": 1700000000123i64})).await.unwrap();
        assert_eq!(
            (ms.detected, ms.unix, ms.iso.as_str()),
            (InputForm::UnixMs, 1_700_000_000, "2023-11-14T22:13:20.123Z")
        );
        // A date alone is midnight UTC; the leap day exists in 2024.
        assert_eq!(convert(json!({"timestamp": "2024-02-29"})).await.unwrap().unix, 1_709_164_800);
    }

    #[tokio::test]
    async fn hints_override_detection_and_bad_input_is_refused() {
        let out = convert(json!({"timestamp": "1700000000", "from": "unix_ms"})).await.unwrap();
        assert_eq!(out.iso, "1970-01-20T16:13:20Z");
        assert_eq!(
            convert(json!({"timestamp": "86400", "to": "iso"})).await.unwrap().result,
            Some(json!("1970-01-02T00:00:00Z"))
        );
        for bad in [
            json!({"timestamp": "yesterday"}),
            json!({"timestamp": "2023-02-30"}),
            json!({"timestamp": "99999999999999999999"}),
            json!({"timestamp": "2023-11-14", "from": "unix"}),
            json!({"timestamp": ""}),
        ] {
            let err = convert(bad.clone()).await.err().unwrap_or_else(|| panic!("{bad} accepted"));
            assert_eq!(err.field.as_deref(), Some("timestamp"), "{bad}");
        }
    }

    /// Python's `datetime` arithmetic, PyPI openpyxl's `to_excel`, `email.utils` and
    /// `isocalendar` (tests/fixtures/timestamps.py) on 300 instants from 1900 to 2100: every
    /// epoch-counted form written, and each read back to the instant.
    #[tokio::test]
    async fn epoch_forms_as_python_writes_them() {
        let f = crate::testing::fixture("timestamps.json");
        for c in f.as_array().unwrap() {
            let ms = c["unixMs"].as_i64().unwrap();
            let out = convert(json!({"timestamp": ms.to_string(), "from": "unix_ms"})).await.unwrap();
            assert_eq!(out.windows_filetime.as_deref(), c["windowsFiletime"].as_str(), "{ms}");
            assert_eq!(out.dotnet_ticks.as_deref(), c["dotnetTicks"].as_str(), "{ms}");
            assert_eq!(out.rfc7231.as_deref(), c["rfc7231"].as_str(), "{ms}");
            assert_eq!(out.iso_week, c["isoWeek"].as_str().unwrap(), "{ms}");
            let close = |a: Option<f64>, b: Option<f64>| match (a, b) {
                (Some(a), Some(b)) => (a - b).abs() < 1e-6,
                (a, b) => a.is_none() && b.is_none(),
            };
            for (mine, key) in [
                (out.excel1900, "excel1900"),
                (out.excel1904, "excel1904"),
                (Some(out.apple_cocoa), "appleCocoa"),
                (Some(out.julian_day), "julianDay"),
            ] {
                assert!(close(mine, c[key].as_f64()), "{ms} {key}: {mine:?} vs {}", c[key]);
            }
            for (form, key) in [
                ("windows_filetime", "windowsFiletime"),
                ("dotnet_ticks", "dotnetTicks"),
                ("excel1900", "excel1900"),
                ("excel1904", "excel1904"),
                ("apple_cocoa", "appleCocoa"),
                ("julian_day", "julianDay"),
            ] {
                if c[key].is_null() {
                    continue;
                }
                let text = c[key].as_str().map_or_else(|| c[key].to_string(), str::to_string);
                let back = convert(json!({"timestamp": text, "from": form})).await.unwrap();
                assert_eq!(back.unix_ms, ms, "{form} {text}");
            }
        }
        // Excel's 29 February 1900 is refused by name; serial 61 is 1 March 1900.
        let e = convert(json!({"timestamp": "60", "from": "excel1900"})).await.unwrap_err();
        assert!(e.message.contains("29 February 1900"), "{}", e.message);
        assert_eq!(convert(json!({"timestamp": "61", "from": "excel1900"})).await.unwrap().iso, "1900-03-01T00:00:00Z");
        assert_eq!(convert(json!({"timestamp": "1", "from": "excel1900"})).await.unwrap().iso, "1900-01-01T00:00:00Z");
    }

    #[test]
    fn relative_phrases() {
        let now = Timestamp::from_second(1_700_000_000).unwrap();
        let at = |d: i64| relative(Timestamp::from_second(1_700_000_000 + d).unwrap(), now);
        assert_eq!(at(0), "just now");
        assert_eq!(at(1), "in 1 second");
        assert_eq!(at(-90), "1 minute ago");
        assert_eq!(at(7_200), "in 2 hours");
        assert_eq!(at(-3 * 86_400), "3 days ago");
        assert_eq!(at(400 * 86_400), "in 1 year");
    }
}
