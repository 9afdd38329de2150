//! `date/diff`: how far apart two moments are, in calendar units on the wall clock (years,
//! months, days, then hours, minutes and seconds, as Python's `dateutil.relativedelta` counts
//! them: months first, clamped to the month's last day, the rest after), in elapsed totals,
//! and in business days.

use jiff::Unit;
use wrench_contract::prelude::*;

use super::business::{Calendar, Day};
use super::moment::{read, weekday, write};

#[derive(Debug, Deserialize, JsonSchema, Validate)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct DateDiffInput {
    /// The first moment: a date (`2025-03-30`), a local date and time (`2025-03-30T14:00`), an
    /// RFC 3339 instant (`2025-03-30T14:00:00+02:00`) or one with its zone
    /// (`2025-03-30T14:00+02:00[Europe/Paris]`).
    #[schemars(length(min = 1, max = 64))]
    from: String,
    /// The second moment, in the same forms.
    #[schemars(length(min = 1, max = 64))]
    to: String,
    /// The zone both moments are placed in: an IANA name or a fixed offset (`+05:30`). Without
    /// it, each moment's own zone or offset, and UTC for those that name none.
    #[schemars(length(min = 1, max = 64))]
    tz: Option<String>,
    /// A country (ISO 3166-1 alpha-2) whose public holidays are not business days.
    #[schemars(length(min = 2, max = 2), pattern("^[A-Za-z]{2}$"))]
    country: Option<String>,
    /// A subdivision of `country` as `holidays/list` names it (`BY`, `CA`).
    #[schemars(length(min = 1, max = 16))]
    subdivision: Option<String>,
    /// The days of the weekend; Saturday and Sunday when absent.
    #[schemars(length(min = 0, max = 6))]
    weekend: Option<Vec<Day>>,
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct SkippedHoliday {
    /// `YYYY-MM-DD`.
    date: String,
    /// Its English name.
    name: String,
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct DateDiffOutput {
    /// The first moment, as read (in the form it was written).
    from: String,
    /// The second moment, as read.
    to: String,
    /// Whether `to` comes before `from` (then every unit below is negative or zero).
    negative: bool,
    years: i64,
    months: i64,
    days: i64,
    hours: i64,
    minutes: i64,
    /// Seconds, with any fraction.
    seconds: f64,
    /// The difference as an ISO 8601 duration (`P1Y2M3DT4H5M6S`, `-P3D`).
    iso_duration: String,
    /// The elapsed time in days of 86,400 seconds.
    total_days: f64,
    /// The elapsed time in hours.
    total_hours: f64,
    /// The elapsed time in seconds.
    total_seconds: f64,
    /// The calendar days between the two dates (their times ignored).
    calendar_days: i64,
    /// The business days from `from`'s date (counted) to `to`'s date (not counted), negative
    /// backwards: days outside `weekend` that are not `country`'s holidays.
    business_days: i64,
    /// The holidays that fell on a weekday in that range (empty without `country`).
    holidays: Vec<SkippedHoliday>,
    /// `from`'s weekday.
    from_weekday: String,
    /// `to`'s weekday.
    to_weekday: String,
}

/// Difference between two dates or times.
///
/// Counts the calendar difference (years, months, days, hours, minutes, seconds) on the wall
/// clock the way `dateutil.relativedelta` does: whole months first, a month-end day clamped,
/// the rest after;
/// then the exact totals in days, hours and seconds, the calendar days, and the business days
/// from the first date (counted) to the second (not counted) in the direction of travel, as
/// NumPy's `busday_count` counts them. `weekend` names the rest days (Saturday and Sunday by default); `country` and
/// `subdivision` take that calendar's public holidays out (the years `holidays/list` covers,
/// 2000 to 2050), listed in `holidays`. Across a daylight-saving change the calendar
/// difference is the wall clock's (Saturday noon to Sunday noon is one day) and the totals are
/// elapsed time (23 hours).
#[op(post "/v1/date/diff" as dateDiff, tag = DeveloperUtilities,
     rejects = "a moment that is not a date or an RFC 3339 time, an unknown zone or country, or a business-day range outside the holiday table",
     example(project, {"from": "2025-01-15", "to": "2026-03-04T12:30:00", "country": "DE", "subdivision": "BY"}),
     example(across_dst, {"from": "2025-03-29T12:00", "to": "2025-03-30T12:00", "tz": "Europe/Paris"}),
     example(backwards, {"from": "2025-03-31", "to": "2025-01-31"}),
     example(bad_date, {"from": "2025-02-30", "to": "2025-03-01"}, status = 400))]
async fn date_diff(input: DateDiffInput) -> Result<DateDiffOutput, ApiError> {
    let zone = input.tz.as_deref().map(crate::dev::timestamp::time_zone).transpose()?;
    let from = read("from", &input.from, zone.as_ref())?;
    // Without a zone asked for, `to` is read in `from`'s, so the two are compared on one clock.
    let zone = zone.unwrap_or_else(|| from.zoned.time_zone().clone());
    let to = read("to", &input.to, Some(&zone))?;
    let calendar = Calendar::new(input.weekend.as_deref(), input.country.as_deref(), input.subdivision.as_deref())?;

    let (a, b) = (&from.zoned, &to.zoned);
    let span = calendar_difference(a.datetime(), b.datetime())?;
    let elapsed = b.timestamp().as_nanosecond() - a.timestamp().as_nanosecond();
    let total_seconds = elapsed as f64 / 1e9;
    let seconds = span.get_seconds() as f64
        + (span.get_milliseconds() as f64) / 1e3
        + (span.get_microseconds() as f64) / 1e6
        + (span.get_nanoseconds() as f64) / 1e9;
    let (business_days, skipped) = calendar.count(a.date(), b.date())?;
    Ok(DateDiffOutput {
        from: write(a, from.form),
        to: write(b, to.form),
        negative: elapsed < 0,
        years: span.get_years().into(),
        months: span.get_months().into(),
        days: (i64::from(span.get_weeks()) * 7) + i64::from(span.get_days()),
        hours: span.get_hours().into(),
        minutes: span.get_minutes(),
        seconds,
        iso_duration: iso_duration(&span),
        total_days: total_seconds / 86_400.0,
        total_hours: total_seconds / 3_600.0,
        total_seconds,
        calendar_days: (b.date() - a.date()).get_days().into(),
        business_days,
        holidays: skipped.into_iter().map(|(d, name)| SkippedHoliday { date: d.to_string(), name }).collect(),
        from_weekday: weekday(a),
        to_weekday: weekday(b),
    })
}

/// The calendar difference from `a` to `b` on the wall clock, as `relativedelta(b, a)`
/// counts it: the most whole months (as years and months) that `a` can move without passing
/// `b`, a month's day clamped to its last; then the rest in days, hours, minutes and seconds.
/// jiff's own `until` follows Temporal instead, which counts January 31 to February 29 as 29
/// days where relativedelta counts one month.
fn calendar_difference(a: jiff::civil::DateTime, b: jiff::civil::DateTime) -> Result<jiff::Span, ApiError> {
    let too_far = |e: jiff::Error| ApiError::invalid("to", format!("is too far from `from`: {e}"));
    let mut months = (i64::from(b.year()) - i64::from(a.year())) * 12 + i64::from(b.month()) - i64::from(a.month());
    let shifted = |months: i64| a.checked_add(jiff::Span::new().months(months)).map_err(too_far);
    let mut moved = shifted(months)?;
    // Step back one month at a time while the move passes `b` (at most twice: the day and the
    // time of day can each push it over).
    while (b >= a && moved > b) || (b < a && moved < b) {
        months += if b >= a { -1 } else { 1 };
        moved = shifted(months)?;
    }
    let rest = moved.until((Unit::Day, b)).map_err(too_far)?;
    let (years, months) = (months / 12, months % 12);
    let span = jiff::Span::new()
        .years(years)
        .months(months)
        .days(rest.get_days())
        .hours(rest.get_hours())
        .minutes(rest.get_minutes())
        .seconds(rest.get_seconds())
        .milliseconds(rest.get_milliseconds())
        .microseconds(rest.get_microseconds())
        .nanoseconds(rest.get_nanoseconds());
    Ok(span)
}

/// `span` as an ISO 8601 duration, upper-case designators, seconds with their fraction.
pub(super) fn iso_duration(span: &jiff::Span) -> String {
    let negative = span.signum() < 0;
    let abs = span.abs();
    let mut out = String::from(if negative { "-P" } else { "P" });
    let days = i64::from(abs.get_weeks()) * 7 + i64::from(abs.get_days());
    for (n, unit) in [(i64::from(abs.get_years()), 'Y'), (i64::from(abs.get_months()), 'M'), (days, 'D')] {
        if n != 0 {
            out.push_str(&format!("{n}{unit}"));
        }
    }
    let nanos = abs.get_milliseconds() as i128 * 1_000_000
        + abs.get_microseconds() as i128 * 1_000
        + abs.get_nanoseconds() as i128;
    let seconds = abs.get_seconds() as i128 + nanos / 1_000_000_000;
    let fraction = nanos % 1_000_000_000;
    let (h, m) = (i64::from(abs.get_hours()), abs.get_minutes());
    if h != 0 || m != 0 || seconds != 0 || fraction != 0 {
        out.push('T');
        if h != 0 {
            out.push_str(&format!("{h}H"));
        }
        if m != 0 {
            out.push_str(&format!("{m}M"));
        }
        if seconds != 0 || fraction != 0 {
            if fraction == 0 {
                out.push_str(&format!("{seconds}S"));
            } else {
                let f = format!("{fraction:09}");
                out.push_str(&format!("{seconds}.{}S", f.trim_end_matches('0')));
            }
        }
    }
    if out.ends_with('P') {
        out.push_str("T0S");
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(v: Value) -> Result<DateDiffOutput, ApiError> {
        let input: DateDiffInput = serde_json::from_value(v).expect("input");
        tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(date_diff(input))
    }

    #[test]
    fn differences_agree_with_dateutil_and_numpy() {
        // tests/fixtures/date_arith.py: python-dateutil's relativedelta, NumPy's busday_count,
        // and the holidays library wrench's table comes from.
        let fixture = crate::testing::fixture("date_arith.json");
        let cases = fixture["diff"].as_array().expect("cases");
        assert_eq!(cases.len(), 360);
        for case in cases {
            let mut input = json!({"from": case["from"], "to": case["to"]});
            let out = run(input.clone()).unwrap_or_else(|e| panic!("{case}: {}", e.message));
            let seen = json!([out.years, out.months, out.days]);
            let want = json!([case["years"], case["months"], case["days"]]);
            assert_eq!(seen, want, "{case}");
            // The time of day is compared as one quantity: backwards, relativedelta keeps
            // Python's positive microseconds beside negative seconds (-10 minutes and +0.887
            // seconds), where every unit here carries the one sign (-9 minutes, -59.113 seconds).
            let time = |h: f64, m: f64, s: f64| h * 3600.0 + m * 60.0 + s;
            let f = |k: &str| case[k].as_f64().unwrap();
            let seen = time(out.hours as f64, out.minutes as f64, out.seconds);
            assert!((seen - time(f("hours"), f("minutes"), f("seconds"))).abs() < 1e-6, "{case}");
            assert!(out.hours.signum() * out.minutes.signum() >= 0, "{case}");
            assert!((out.total_seconds - case["totalSeconds"].as_f64().unwrap()).abs() < 1e-3, "{case}");
            assert_eq!(out.business_days, case["businessDays"].as_i64().unwrap(), "{case}");
            input["weekend"] = json!(["friday", "saturday"]);
            assert_eq!(
                run(input.clone()).unwrap().business_days,
                case["businessDaysFriSat"].as_i64().unwrap(),
                "{case}"
            );
            if let Some(cc) = case["country"].as_str() {
                input["weekend"] = Value::Null;
                input["country"] = json!(cc);
                if let Some(sub) = case["subdivision"].as_str() {
                    input["subdivision"] = json!(sub);
                }
                let out = run(input).unwrap_or_else(|e| panic!("{case}: {}", e.message));
                assert_eq!(out.business_days, case["businessDaysCountry"].as_i64().unwrap(), "{case}");
            }
        }
    }

    #[test]
    fn durations_and_their_iso_form() {
        let out = run(json!({"from": "2024-01-31T10:00:00.250", "to": "2024-03-01T09:59:59"})).unwrap();
        assert_eq!(out.iso_duration, "P1MT23H59M58.75S");
        let back = run(json!({"from": "2024-03-01T09:59:59", "to": "2024-01-31T10:00:00.250"})).unwrap();
        assert!(back.negative && back.iso_duration.starts_with("-P"), "{}", back.iso_duration);
        assert_eq!(run(json!({"from": "2024-01-01", "to": "2024-01-01"})).unwrap().iso_duration, "PT0S");
        // An offset in `from` is the clock both are read on.
        let out = run(json!({"from": "2024-06-01T00:00:00+02:00", "to": "2024-06-01T00:00:00Z"})).unwrap();
        assert_eq!((out.hours, out.to.as_str()), (2, "2024-06-01T02:00:00+02:00"));
        assert!(run(json!({"from": "2024-01-01", "to": "2060-01-01", "country": "DE"})).is_err());
        assert!(run(json!({"from": "2024-01-01", "to": "2024-02-01", "subdivision": "BY"})).is_err());
        assert!(run(json!({"from": "2024-01-01", "to": "2024-02-01", "tz": "Mars/Olympus"})).is_err());
        let all = json!(["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"]);
        assert!(run(json!({"from": "2024-01-01", "to": "2024-02-01", "weekend": all})).is_err());
    }
}
