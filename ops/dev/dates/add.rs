//! `date/add`: a moment moved by an ISO 8601 duration (calendar units first, as
//! `dateutil.relativedelta` adds them: years and months with the day clamped to the month's
//! end, then days, then time), or by business days (as NumPy's `busday_offset`).

use jiff::Span;
use wrench_contract::prelude::*;

use super::business::{Calendar, Day, MAX_STEPS};
use super::diff::iso_duration;
use super::moment::{Form, read, weekday, write};

#[derive(Debug, Deserialize, JsonSchema, Validate)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct DateAddInput {
    /// The moment: a date (`2025-03-30`), a local date and time (`2025-03-30T14:00`), an
    /// RFC 3339 instant, or one with its zone (`2025-03-30T14:00+02:00[Europe/Paris]`).
    #[schemars(length(min = 1, max = 64))]
    date: String,
    /// An ISO 8601 duration to add (`P1Y2M10DT2H30M`, `P2W`, `-P3D` to go back). Give it or
    /// `businessDays`, not both.
    #[schemars(length(min = 2, max = 64))]
    duration: Option<String>,
    /// Business days to move (negative to go back), at most 100,000 either way.
    #[schemars(range(min = -100000, max = 100000))]
    business_days: Option<i64>,
    /// When `date` is not a business day, where it rolls before moving: `forward` (default) or
    /// `backward`.
    #[serde(default)]
    roll: Roll,
    /// The zone the moment is placed in: an IANA name or a fixed offset; without it, the
    /// moment's own, or UTC.
    #[schemars(length(min = 1, max = 64))]
    tz: Option<String>,
    /// A country (ISO 3166-1 alpha-2) whose public holidays are not business days.
    #[schemars(length(min = 2, max = 2), pattern("^[A-Za-z]{2}$"))]
    country: Option<String>,
    /// A subdivision of `country` as `holidays/list` names it.
    #[schemars(length(min = 1, max = 16))]
    subdivision: Option<String>,
    /// The days of the weekend; Saturday and Sunday when absent.
    #[schemars(length(min = 0, max = 6))]
    weekend: Option<Vec<Day>>,
}

#[derive(Debug, Default, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema, Validate)]
#[serde(rename_all = "lowercase")]
enum Roll {
    #[default]
    Forward,
    Backward,
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct DateAddOutput {
    /// The moment moved, in the form `date` was written in (a date stays a date unless the
    /// duration has a time part).
    result: String,
    /// The result's weekday.
    weekday: String,
    /// The result with its offset and zone (`2025-03-31T14:00:00+02:00[Europe/Paris]`).
    zoned: String,
    /// What was added, as an ISO 8601 duration (null for business days).
    added: Option<String>,
}

/// Add a duration or business days to a date.
///
/// Moves a date or time by an ISO 8601 duration (`P1M`, `P2W`, `PT36H`, `-P1Y`) or by a
/// number of business days. Durations add years and months first (the day clamped to the
/// month's end: January 31 plus a month is February's last day), then weeks and days as
/// calendar days, then hours, minutes and seconds as elapsed time, so a day across a
/// daylight-saving change keeps the clock time and 24 hours do not. Business days skip the
/// `weekend` (Saturday and Sunday by default) and `country`'s public holidays; a start that is
/// not a business day first rolls `forward` (the default) or `backward`, as NumPy's
/// `busday_offset` does.
#[op(post "/v1/date/add" as dateAdd, tag = DeveloperUtilities,
     rejects = "a moment that is not a date or RFC 3339 time, a duration that is not ISO 8601, both or neither of duration and businessDays, or a business-day walk outside the holiday table",
     example(month_end, {"date": "2024-01-31", "duration": "P1M"}),
     example(business_days, {"date": "2025-12-23", "businessDays": 3, "country": "GB"}),
     example(across_dst, {"date": "2025-03-29T12:00", "duration": "P1DT1H", "tz": "Europe/Paris"}),
     example(both, {"date": "2025-01-01", "duration": "P1D", "businessDays": 1}, status = 400),
     example(bad_duration, {"date": "2025-01-01", "duration": "1 month"}, status = 400))]
async fn date_add(input: DateAddInput) -> Result<DateAddOutput, ApiError> {
    let zone = input.tz.as_deref().map(crate::dev::timestamp::time_zone).transpose()?;
    let start = read("date", &input.date, zone.as_ref())?;
    let (moved, form, added) = match (&input.duration, input.business_days) {
        (Some(text), None) => {
            let t = text.trim();
            let iso = t.trim_start_matches(['-', '+']).starts_with(['P', 'p']);
            let span: Span = t.parse().ok().filter(|_| iso).ok_or_else(|| {
                ApiError::invalid(
                    "duration",
                    format!("{text:?} is not an ISO 8601 duration such as P1Y2M10DT2H30M or -P3D"),
                )
            })?;
            let moved = start
                .zoned
                .checked_add(span)
                .map_err(|e| ApiError::invalid("duration", format!("moves the date out of range: {e}")))?;
            let has_time = span.get_hours() != 0
                || span.get_minutes() != 0
                || span.get_seconds() != 0
                || span.get_milliseconds() != 0
                || span.get_microseconds() != 0
                || span.get_nanoseconds() != 0;
            // A date plus a time part is a time: show it.
            let form = if start.form == Form::Date && has_time { Form::Local } else { start.form };
            (moved, form, Some(iso_duration(&span)))
        }
        (None, Some(steps)) => {
            if steps.abs() > MAX_STEPS {
                return Err(ApiError::invalid("businessDays", format!("is beyond ±{MAX_STEPS}")));
            }
            let calendar =
                Calendar::new(input.weekend.as_deref(), input.country.as_deref(), input.subdivision.as_deref())?;
            let day = calendar.offset(start.zoned.date(), steps, input.roll == Roll::Backward)?;
            let moved = day
                .to_datetime(start.zoned.time())
                .to_zoned(start.zoned.time_zone().clone())
                .map_err(|e| ApiError::invalid("date", e))?;
            (moved, start.form, None)
        }
        (Some(_), Some(_)) => return Err(ApiError::invalid("duration", "give duration or businessDays, not both")),
        (None, None) => return Err(ApiError::invalid("duration", "give duration or businessDays")),
    };
    Ok(DateAddOutput { result: write(&moved, form), weekday: weekday(&moved), zoned: moved.to_string(), added })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(v: Value) -> Result<DateAddOutput, ApiError> {
        let input: DateAddInput = serde_json::from_value(v).expect("input");
        tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(date_add(input))
    }

    #[test]
    fn durations_agree_with_dateutil() {
        let fixture = crate::testing::fixture("date_arith.json");
        let cases = fixture["add"].as_array().expect("cases");
        assert_eq!(cases.len(), 300);
        for case in cases {
            let out = run(json!({"date": case["date"], "duration": case["duration"]}))
                .unwrap_or_else(|e| panic!("{case}: {}", e.message));
            // Python writes milliseconds as three digits, jiff without trailing zeros.
            let read = |t: &str| t.parse::<jiff::civil::DateTime>().map(|d| d.to_string()).unwrap_or(t.to_string());
            assert_eq!(read(&out.result), read(case["result"].as_str().unwrap()), "{case}");
        }
    }

    #[test]
    fn business_days_agree_with_numpy() {
        let fixture = crate::testing::fixture("date_arith.json");
        let cases = fixture["offsets"].as_array().expect("cases");
        assert_eq!(cases.len(), 200);
        for case in cases {
            let mut input = case.clone();
            input.as_object_mut().unwrap().remove("result");
            let out = run(input).unwrap_or_else(|e| panic!("{case}: {}", e.message));
            assert_eq!(out.result, case["result"].as_str().unwrap(), "{case}");
        }
    }

    #[test]
    fn clocks_across_daylight_saving_and_refusals() {
        // A calendar day keeps the clock time; 24 hours do not (Paris skips 02:00-03:00 on
        // 2025-03-30).
        let day = run(json!({"date": "2025-03-29T12:00", "duration": "P1D", "tz": "Europe/Paris"})).unwrap();
        assert_eq!(day.zoned, "2025-03-30T12:00:00+02:00[Europe/Paris]");
        let hours = run(json!({"date": "2025-03-29T12:00", "duration": "PT24H", "tz": "Europe/Paris"})).unwrap();
        assert_eq!(hours.zoned, "2025-03-30T13:00:00+02:00[Europe/Paris]");
        assert_eq!(run(json!({"date": "2024-01-31", "duration": "P1M"})).unwrap().result, "2024-02-29");
        assert_eq!(run(json!({"date": "2024-01-31", "duration": "PT1H"})).unwrap().result, "2024-01-31T01:00:00");
        for bad in [
            json!({"date": "2024-01-31", "duration": "1 month"}),
            json!({"date": "2024-01-31", "duration": "P1M", "businessDays": 1}),
            json!({"date": "2024-01-31"}),
            json!({"date": "2050-12-20", "businessDays": 30, "country": "DE"}),
            json!({"date": "9999-12-31", "duration": "P1D"}),
        ] {
            assert!(run(bad.clone()).is_err(), "{bad}");
        }
    }
}
