//! Cron expressions: a plain-English reading and the next run times (UTC). The grammar and
//! the day-matching rule are those of Vixie cron; see `wrench_kit::cron`.

use indexmap::IndexMap;

use wrench_contract::prelude::*;
use wrench_infra::time;
use wrench_kit::cron::Schedule;

#[derive(Debug, Deserialize, JsonSchema, Validate)]
#[serde(deny_unknown_fields)]
struct CronParseInput {
    /// Five fields (minute hour day-of-month month day-of-week), e.g. `*/15 9-17 * * MON-FRI`,
    /// or a nickname such as `@daily`.
    #[schemars(length(max = 256))]
    expression: String,
}

#[derive(Debug, Serialize, JsonSchema)]
struct CronField {
    /// The field as written.
    expression: String,
    /// Every value it allows, ascending (day-of-week 0-6 with 0 = Sunday).
    values: Vec<u8>,
}

#[derive(Debug, Serialize, JsonSchema)]
struct CronParseOutput {
    /// The expression as given.
    expression: String,
    /// The five-field form (nicknames expanded, whitespace collapsed).
    normalized: String,
    /// The schedule in plain English.
    description: String,
    /// The five fields, keyed minute, hour, day-of-month, month, day-of-week.
    fields: IndexMap<String, CronField>,
}

fn parse(expression: &str) -> Result<Schedule, ApiError> {
    Schedule::parse(expression).map_err(|e| ApiError::invalid("expression", e))
}

/// Describe a cron expression in plain English.
///
/// Five-field cron as Vixie cron reads it: lists, ranges, steps (`*/15`, `1-30/5`), month and
/// weekday names (JAN-DEC, SUN-SAT), 0 or 7 for Sunday, and the nicknames @yearly, @annually,
/// @monthly, @weekly, @daily, @midnight and @hourly. Invalid expressions are a 400 naming the
/// field at fault. When both day-of-month and day-of-week are restricted a day matches either
/// (unless one of them starts with `*`), which the description spells out.
#[op(post "/v1/cron/parse" as cronParse, tag = DeveloperUtilities,
     rejects = "an expression that is not valid five-field cron",
     example(weekdays, {"expression": "*/15 9-17 * * MON-FRI"}),
     example(either_day, {"expression": "0 0 1,15 * 1"}),
     example(nickname, {"expression": "@weekly"}),
     example(out_of_range, {"expression": "0 24 * * *"}, status = 400))]
async fn cron_parse(input: CronParseInput) -> Result<CronParseOutput, ApiError> {
    let s = parse(&input.expression)?;
    let fields = s
        .fields
        .iter()
        .map(|f| (f.kind.name().to_string(), CronField { expression: f.text.clone(), values: f.values() }))
        .collect();
    Ok(CronParseOutput {
        description: s.describe(),
        normalized: s.normalized.clone(),
        expression: input.expression,
        fields,
    })
}

#[derive(Debug, Deserialize, JsonSchema, Validate)]
#[serde(deny_unknown_fields)]
struct CronNextInput {
    /// Five-field cron expression or nickname.
    #[schemars(length(max = 256))]
    expression: String,
    /// How many run times.
    #[serde(default = "five")]
    #[schemars(range(min = 1, max = 25))]
    count: u32,
    /// Start after this instant: ISO 8601 with an offset, or without one (read as UTC).
    /// Default: now.
    #[serde(default)]
    #[schemars(length(max = 64))]
    from: Option<String>,
}

fn five() -> u32 {
    5
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct CronNextOutput {
    /// The expression as given.
    expression: String,
    /// The schedule in plain English.
    description: String,
    /// The instant the search started after (RFC 3339, UTC).
    from: String,
    /// Always UTC.
    timezone: &'static str,
    /// The next run times, strictly after `from`, RFC 3339 in UTC.
    next_runs: Vec<String>,
}

/// The next run times of a cron expression, in UTC.
///
/// `count` (1-25, default 5) run times strictly after `from` (default now), evaluated in UTC.
/// Day-of-month and day-of-week combine as Vixie cron does. A schedule that never fires
/// (`0 0 30 2 *`) is a 400 saying so; one that fires fewer times than asked within 28 years
/// returns those it found.
#[op(post "/v1/cron/next" as cronNext, tag = DeveloperUtilities,
     rejects = "an expression that is not valid five-field cron, or that never fires",
     example(weekday_mornings, {"expression": "30 9 * * MON-FRI", "count": 3, "from": "2026-11-20T12:00:00Z"}),
     example(leap_day, {"expression": "0 0 29 2 *", "count": 2, "from": "2026-01-01"}),
     example(never, {"expression": "0 0 30 2 *"}, status = 400))]
async fn cron_next(input: CronNextInput) -> Result<CronNextOutput, ApiError> {
    let s = parse(&input.expression)?;
    let from = match &input.from {
        Some(text) => time::parse_iso(text).map_err(|e| ApiError::invalid("from", e))?,
        None => jiff::Timestamp::now(),
    };
    let utc = jiff::tz::TimeZone::UTC;
    let mut t = from.to_zoned(utc.clone()).datetime();
    let mut next_runs = Vec::new();
    while next_runs.len() < input.count as usize {
        let Some(next) = s.next_after(t) else { break };
        let stamp = next.to_zoned(utc.clone()).map_err(|e| ApiError::invalid("from", e))?.timestamp();
        next_runs.push(format!("{stamp:.0}"));
        t = next;
    }
    if next_runs.is_empty() && t.year() > 9999 - 28 {
        return Err(ApiError::invalid("from", "run times are computed up to the year 9999; start earlier"));
    }
    if next_runs.is_empty() {
        return Err(ApiError::invalid(
            "expression",
            format!("{:?} never fires (no matching date in the next 28 years)", input.expression),
        ));
    }
    Ok(CronNextOutput {
        expression: input.expression,
        description: s.describe(),
        from: format!("{:.0}", from.round(jiff::Unit::Second).unwrap_or(from)),
        timezone: "UTC",
        next_runs,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn the_end_of_the_calendar_is_named_not_mistaken_for_a_schedule_that_never_fires() {
        let input =
            CronNextInput { expression: "* * * * *".into(), count: 3, from: Some("9999-12-31T23:59:00Z".into()) };
        let e = cron_next(input).await.unwrap_err();
        assert_eq!(e.field.as_deref(), Some("from"), "{}", e.message);
        let input = CronNextInput { expression: "0 0 1 1 *".into(), count: 25, from: Some("9990-06-01".into()) };
        assert_eq!(cron_next(input).await.unwrap().next_runs.len(), 9, "runs up to 9999, then stops");
    }
}
