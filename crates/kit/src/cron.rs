//! Five-field cron expressions as Vixie cron reads them: parsing with per-field errors, the
//! next run times, and a plain-English description.
//!
//! Grammar per field: a comma-separated list of `*`, `N`, `N-M`, each optionally followed by
//! `/STEP`; `N/STEP` (from N to the end of the range) is accepted as most schedulers do. Months
//! and weekdays take three-letter English names in any case; weekday 7 is Sunday, as 0 is.
//! `@yearly`, `@annually`, `@monthly`, `@weekly`, `@daily`, `@midnight` and `@hourly` stand
//! for their five-field forms. Quartz extensions (`L`, `W`, `#`, `?`) and seconds or year
//! fields are refused with a message saying so.
//!
//! Day matching follows Vixie cron (`man 5 crontab`): when both day-of-month and day-of-week
//! are restricted, a day matches if *either* does; when either field starts with `*` (so
//! `*/2` counts as unrestricted for this rule, as in Vixie's source), both must match.

use std::fmt::Write as _;

use jiff::{ToSpan, civil::DateTime};

const MONTHS: [&str; 12] = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"];
const WEEKDAYS: [&str; 7] = ["sun", "mon", "tue", "wed", "thu", "fri", "sat"];
const MONTH_NAMES: [&str; 12] = [
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
];
const WEEKDAY_NAMES: [&str; 7] = ["Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"];

/// How far ahead [`Schedule::next_after`] looks: 28 years is a full cycle of the Gregorian
/// weekday/leap-year pattern (outside century years), so a schedule that does not fire within
/// it (`0 0 30 2 *`) never fires.
const SEARCH_YEARS: i16 = 28;

/// Which of the five fields; fixes its range, its names and its wording.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Minute,
    Hour,
    DayOfMonth,
    Month,
    DayOfWeek,
}

impl Kind {
    const ALL: [Kind; 5] = [Kind::Minute, Kind::Hour, Kind::DayOfMonth, Kind::Month, Kind::DayOfWeek];

    pub fn name(self) -> &'static str {
        match self {
            Kind::Minute => "minute",
            Kind::Hour => "hour",
            Kind::DayOfMonth => "day-of-month",
            Kind::Month => "month",
            Kind::DayOfWeek => "day-of-week",
        }
    }

    /// Lowest and highest value written (day-of-week allows 7 for Sunday).
    fn bounds(self) -> (u8, u8) {
        match self {
            Kind::Minute => (0, 59),
            Kind::Hour => (0, 23),
            Kind::DayOfMonth => (1, 31),
            Kind::Month => (1, 12),
            Kind::DayOfWeek => (0, 7),
        }
    }

    fn number(self, text: &str) -> Result<u8, String> {
        let lower = text.to_ascii_lowercase();
        let named = match self {
            Kind::Month => MONTHS.iter().position(|m| *m == lower).map(|i| i as u8 + 1),
            Kind::DayOfWeek => WEEKDAYS.iter().position(|d| *d == lower).map(|i| i as u8),
            _ => None,
        };
        if let Some(n) = named {
            return Ok(n);
        }
        if text.is_empty() || !text.bytes().all(|b| b.is_ascii_digit()) {
            let upper = text.to_ascii_uppercase();
            let quartz = matches!(self, Kind::DayOfMonth | Kind::DayOfWeek)
                && (upper == "L"
                    || upper == "LW"
                    || upper.ends_with(['L', 'W']) && upper[..upper.len() - 1].bytes().all(|b| b.is_ascii_digit()));
            if quartz {
                return Err(format!("{text:?} uses a Quartz extension (L, W), which five-field cron does not have"));
            }
            let hint = match self {
                Kind::Month => "; months are 1-12 or JAN-DEC",
                Kind::DayOfWeek => "; weekdays are 0-7 (0 and 7 are Sunday) or SUN-SAT",
                _ => "",
            };
            return Err(format!("{text:?} is not a number{hint}"));
        }
        let (lo, hi) = self.bounds();
        match text.parse::<u8>() {
            Ok(n) if (lo..=hi).contains(&n) => Ok(n),
            _ => Err(format!("{text} is out of range {lo}-{hi}")),
        }
    }

    /// The value as a person reads it in this field.
    fn show(self, v: u8) -> String {
        match self {
            Kind::Month => MONTH_NAMES[v as usize - 1].to_string(),
            Kind::DayOfWeek => WEEKDAY_NAMES[v as usize % 7].to_string(),
            Kind::Hour => format!("{v:02}:00"),
            _ => v.to_string(),
        }
    }
}

/// One comma-separated element of a field.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Item {
    /// `*` or `*/step`.
    All { step: u8 },
    /// `a-b` or `a-b/step`.
    Range { lo: u8, hi: u8, step: u8 },
    /// `a/step`: from a to the end of the field's range.
    From { start: u8, step: u8 },
    /// `a`.
    Value(u8),
}

/// One parsed field: what was written and the set of values it allows.
#[derive(Debug, Clone)]
pub struct Field {
    pub kind: Kind,
    pub text: String,
    items: Vec<Item>,
    /// Bit v set when value v matches (day-of-week 7 folded onto 0).
    bits: u64,
}

impl Field {
    fn parse(kind: Kind, text: &str) -> Result<Field, String> {
        let fail = |why: String| format!("{} field {text:?}: {why}", kind.name());
        let (lo, hi) = kind.bounds();
        let mut items = Vec::new();
        let mut bits = 0u64;
        for part in text.split(',') {
            if part.contains(['#', '?']) {
                return Err(fail(format!(
                    "{part:?} uses a Quartz extension (#, ?), which five-field cron does not have"
                )));
            }
            let (base, step) = match part.split_once('/') {
                Some((b, s)) => {
                    let step =
                        s.parse::<u8>().ok().filter(|s| *s >= 1 && *s <= hi.max(1)).ok_or_else(|| {
                            fail(format!("step {s:?} must be a whole number from 1 to {}", hi.max(1)))
                        })?;
                    (b, Some(step))
                }
                None => (part, None),
            };
            let item = if base == "*" {
                Item::All { step: step.unwrap_or(1) }
            } else if let Some((a, b)) = base.split_once('-') {
                let a = kind.number(a).map_err(&fail)?;
                let b = kind.number(b).map_err(&fail)?;
                if b < a {
                    return Err(fail(format!("the range {base} runs backwards; write it from low to high")));
                }
                Item::Range { lo: a, hi: b, step: step.unwrap_or(1) }
            } else if base.is_empty() {
                return Err(fail("an empty list element".into()));
            } else {
                let v = kind.number(base).map_err(&fail)?;
                match step {
                    Some(step) => Item::From { start: v, step },
                    None => Item::Value(v),
                }
            };
            let (from, to, step) = match item {
                Item::All { step } => (lo, hi, step),
                Item::Range { lo, hi, step } => (lo, hi, step),
                Item::From { start, step } => (start, hi, step),
                Item::Value(v) => (v, v, 1),
            };
            let mut v = from;
            while v <= to {
                let folded = if kind == Kind::DayOfWeek && v == 7 { 0 } else { v };
                bits |= 1 << folded;
                v = match v.checked_add(step) {
                    Some(n) => n,
                    None => break,
                };
            }
            items.push(item);
        }
        Ok(Field { kind, text: text.to_string(), items, bits })
    }

    pub fn matches(&self, v: u8) -> bool {
        self.bits & (1 << v) != 0
    }

    /// The allowed values in order (day-of-week as 0-6).
    pub fn values(&self) -> Vec<u8> {
        (0..64u8).filter(|v| self.matches(*v)).collect()
    }

    fn is_star(&self) -> bool {
        self.text == "*"
    }

    /// Only plain values (`5` or `1,15`): such fields can be listed as they are.
    fn plain_values(&self) -> Option<Vec<u8>> {
        self.items.iter().all(|i| matches!(i, Item::Value(_))).then(|| self.values())
    }

    /// The elements in words: "1 and 15", "Monday through Friday", "every 2nd day".
    fn describe_items(&self, unit: &str) -> String {
        let day = self.kind == Kind::DayOfMonth;
        if day && let Some(vs) = self.plain_values() {
            return format!("day {}", join_and(&vs.iter().map(u8::to_string).collect::<Vec<_>>()));
        }
        let show = |v: u8| if day { format!("day {v}") } else { self.kind.show(v) };
        let parts: Vec<String> = self
            .items
            .iter()
            .map(|item| match *item {
                Item::Value(v) => show(v),
                Item::Range { lo, hi, step: 1 } if day => format!("days {lo} through {hi}"),
                Item::Range { lo, hi, step: 1 } => format!("{} through {}", show(lo), show(hi)),
                Item::Range { lo, hi, step } => format!("{} from {} through {}", every(step, unit), show(lo), show(hi)),
                Item::All { step } => every(step, unit),
                Item::From { start, step } => format!("{} from {}", every(step, unit), show(start)),
            })
            .collect();
        join_and(&parts)
    }
}

/// "every minute", "every 2nd day", "every 3rd month".
fn every(step: u8, unit: &str) -> String {
    if step == 1 {
        return format!("every {unit}");
    }
    let suffix = match (step % 10, step % 100) {
        (_, 11..=13) => "th",
        (1, _) => "st",
        (2, _) => "nd",
        (3, _) => "rd",
        _ => "th",
    };
    format!("every {step}{suffix} {unit}")
}

/// "a", "a and b", "a, b and c".
fn join_and(parts: &[String]) -> String {
    match parts {
        [] => String::new(),
        [one] => one.clone(),
        [init @ .., last] => format!("{} and {last}", init.join(", ")),
    }
}

/// A parsed five-field expression.
#[derive(Debug, Clone)]
pub struct Schedule {
    /// The five fields in order: minute, hour, day-of-month, month, day-of-week.
    pub fields: [Field; 5],
    /// The five-field form (nicknames expanded).
    pub normalized: String,
}

impl Schedule {
    pub fn parse(expression: &str) -> Result<Schedule, String> {
        let trimmed = expression.trim();
        let expanded = match trimmed.to_ascii_lowercase().as_str() {
            "@yearly" | "@annually" => "0 0 1 1 *",
            "@monthly" => "0 0 1 * *",
            "@weekly" => "0 0 * * 0",
            "@daily" | "@midnight" => "0 0 * * *",
            "@hourly" => "0 * * * *",
            "@reboot" => return Err("@reboot runs at start-up, not on a schedule, so it has no run times".into()),
            s if s.starts_with('@') => {
                return Err(format!(
                    "unknown nickname {trimmed:?}; known: @yearly, @annually, @monthly, @weekly, @daily, @midnight, @hourly"
                ));
            }
            _ => trimmed,
        };
        let parts: Vec<&str> = expanded.split_whitespace().collect();
        if parts.len() != 5 {
            return Err(format!(
                "expected five fields (minute hour day-of-month month day-of-week), found {}{}",
                parts.len(),
                if parts.len() > 5 { "; seconds and year fields are not part of five-field cron" } else { "" }
            ));
        }
        let mut fields = Vec::with_capacity(5);
        for (kind, text) in Kind::ALL.into_iter().zip(&parts) {
            fields.push(Field::parse(kind, text)?);
        }
        let fields: [Field; 5] = fields.try_into().expect("five fields");
        Ok(Schedule { normalized: parts.join(" "), fields })
    }

    fn day_matches(&self, dt: DateTime) -> bool {
        let [_, _, dom, _, dow] = &self.fields;
        let dom_hit = dom.matches(dt.day() as u8);
        let dow_hit = dow.matches(dt.weekday().to_sunday_zero_offset() as u8);
        if dom.text.starts_with('*') || dow.text.starts_with('*') { dom_hit && dow_hit } else { dom_hit || dow_hit }
    }

    /// The first run time strictly after `after` (UTC civil time), or None when the schedule
    /// does not fire in the next [`SEARCH_YEARS`] years.
    pub fn next_after(&self, after: DateTime) -> Option<DateTime> {
        let [minute, hour, _, month, _] = &self.fields;
        let start = after.date().at(after.hour(), after.minute(), 0, 0);
        let mut t = start.checked_add(1.minute()).ok()?;
        let last_year = after.year().saturating_add(SEARCH_YEARS);
        while t.year() <= last_year {
            if !month.matches(t.month() as u8) {
                t = t.date().first_of_month().checked_add(1.month()).ok()?.at(0, 0, 0, 0);
            } else if !self.day_matches(t) {
                t = t.date().checked_add(1.day()).ok()?.at(0, 0, 0, 0);
            } else if !hour.matches(t.hour() as u8) {
                t = t.date().at(t.hour(), 0, 0, 0).checked_add(1.hour()).ok()?;
            } else if !minute.matches(t.minute() as u8) {
                t = t.checked_add(1.minute()).ok()?;
            } else {
                return Some(t);
            }
        }
        None
    }

    /// The schedule in plain English.
    pub fn describe(&self) -> String {
        let [minute, hour, dom, month, dow] = &self.fields;
        let mut out = time_phrase(minute, hour);
        let dom_phrase = || format!("on {} of the month", dom.describe_items("day"));
        let dow_phrase = || dow.describe_items("day of the week");
        match (dom.is_star(), dow.is_star()) {
            (true, true) => {}
            (false, true) => write!(out, ", {}", dom_phrase()).unwrap(),
            (true, false) => write!(out, ", on {}", dow_phrase()).unwrap(),
            (false, false) => {
                if dom.text.starts_with('*') || dow.text.starts_with('*') {
                    write!(out, ", {}, if it is also {}", dom_phrase(), dow_phrase()).unwrap()
                } else {
                    write!(out, ", {} or on {}", dom_phrase(), dow_phrase()).unwrap()
                }
            }
        }
        if !month.is_star() {
            write!(out, ", in {}", month.describe_items("month")).unwrap();
        }
        out
    }
}

/// The time-of-day part: "At 09:30", "Every 15 minutes, between 09:00 and 17:59", ...
fn time_phrase(minute: &Field, hour: &Field) -> String {
    if let (Some(ms), Some(hs)) = (minute.plain_values(), hour.plain_values())
        && ms.len() * hs.len() <= 8
    {
        let times: Vec<String> = hs.iter().flat_map(|h| ms.iter().map(move |m| format!("{h:02}:{m:02}"))).collect();
        return format!("At {}", join_and(&times));
    }
    let minute_part = match (minute.items.as_slice(), minute.plain_values()) {
        ([Item::All { step: 1 }], _) => "Every minute".to_string(),
        ([Item::All { step }], _) => format!("Every {step} minutes"),
        (_, Some(vs)) if vs == [0] => "At the start of the hour".to_string(),
        (_, Some(vs)) => {
            format!("At minute{} {}", if vs.len() > 1 { "s" } else { "" }, minute.describe_items("minute"))
        }
        _ => format!("At minutes {}", minute.describe_items("minute")),
    };
    let hour_part = match hour.items.as_slice() {
        [Item::All { step: 1 }] => String::new(),
        [Item::All { step }] => format!(", every {step} hours"),
        items => {
            let parts: Vec<String> = items
                .iter()
                .map(|item| match *item {
                    Item::Value(h) => format!("between {h:02}:00 and {h:02}:59"),
                    Item::Range { lo, hi, step: 1 } => format!("between {lo:02}:00 and {hi:02}:59"),
                    Item::Range { lo, hi, step } => format!("every {step} hours from {lo:02}:00 through {hi:02}:59"),
                    Item::From { start, step } => format!("every {step} hours from {start:02}:00"),
                    Item::All { step } => format!("every {step} hours"),
                })
                .collect();
            format!(", {}", join_and(&parts))
        }
    };
    minute_part + &hour_part
}

#[cfg(test)]
mod tests {
    use super::*;

    fn describe(e: &str) -> String {
        Schedule::parse(e).unwrap().describe()
    }

    #[test]
    fn descriptions_read_as_english() {
        let cases = [
            ("* * * * *", "Every minute"),
            ("*/15 * * * *", "Every 15 minutes"),
            ("0 * * * *", "At the start of the hour"),
            ("5,35 * * * *", "At minutes 5 and 35"),
            ("0 9 * * *", "At 09:00"),
            ("30 9,17 * * *", "At 09:30 and 17:30"),
            ("0 9 * * 1-5", "At 09:00, on Monday through Friday"),
            ("*/5 9-17 * * *", "Every 5 minutes, between 09:00 and 17:59"),
            ("0 */2 * * *", "At the start of the hour, every 2 hours"),
            ("0 0 1 * *", "At 00:00, on day 1 of the month"),
            ("0 0 1,15 * 1", "At 00:00, on day 1 and 15 of the month or on Monday"),
            ("0 12 * JAN-MAR mon,fri", "At 12:00, on Monday and Friday, in January through March"),
            ("0 0 */2 * *", "At 00:00, on every 2nd day of the month"),
            ("0 0 */2 * 1", "At 00:00, on every 2nd day of the month, if it is also Monday"),
            ("@weekly", "At 00:00, on Sunday"),
            ("0 0 1 */3 *", "At 00:00, on day 1 of the month, in every 3rd month"),
            ("0 8 1-7 * *", "At 08:00, on days 1 through 7 of the month"),
            ("0 8 1-7,15 * *", "At 08:00, on days 1 through 7 and day 15 of the month"),
        ];
        for (e, want) in cases {
            assert_eq!(describe(e), want, "{e}");
        }
    }

    #[test]
    fn errors_name_the_field() {
        let cases = [
            ("61 * * * *", "minute field \"61\": 61 is out of range 0-59"),
            ("* 24 * * *", "hour field"),
            ("* * 0 * *", "day-of-month field \"0\": 0 is out of range 1-31"),
            ("* * * 13 *", "month field"),
            ("* * * * 8", "day-of-week field"),
            ("* * * FOO *", "months are 1-12 or JAN-DEC"),
            ("*/0 * * * *", "step \"0\""),
            ("5-1 * * * *", "runs backwards"),
            ("* * L * *", "Quartz extension"),
            ("* * 15W * *", "Quartz extension"),
            ("* * * * 5L", "Quartz extension"),
            ("* * * * 1#2", "Quartz extension"),
            ("0 * * * * *", "found 6; seconds and year"),
            ("* * *", "found 3"),
            ("1,,2 * * * *", "empty list element"),
            ("@reboot", "start-up"),
        ];
        for (e, want) in cases {
            let err = Schedule::parse(e).unwrap_err();
            assert!(err.contains(want), "{e}: {err}");
        }
    }

    fn at(s: &str) -> DateTime {
        s.parse().unwrap()
    }

    fn next_n(e: &str, from: &str, n: usize) -> Vec<String> {
        let s = Schedule::parse(e).unwrap();
        let mut t = at(from);
        (0..n)
            .map(|_| {
                t = s.next_after(t).unwrap();
                t.to_string()
            })
            .collect()
    }

    #[test]
    fn vixie_day_rules() {
        // 2026-11-21 is a Saturday. Both restricted: the 1st OR any Monday.
        assert_eq!(
            next_n("0 0 1 * 1", "2026-11-21T10:00", 3),
            ["2026-11-23T00:00:00", "2026-11-30T00:00:00", "2026-12-01T00:00:00"]
        );
        // Day-of-month starting with '*': both must match (odd days that are Mondays).
        assert_eq!(next_n("0 0 */2 * 1", "2026-11-21T10:00", 2), ["2026-11-23T00:00:00", "2026-12-07T00:00:00"]);
        // Sunday as 0 and as 7.
        assert_eq!(next_n("0 0 * * 7", "2026-11-21T10:00", 1), next_n("0 0 * * 0", "2026-11-21T10:00", 1));
        // Leap day.
        assert_eq!(next_n("0 0 29 2 *", "2026-11-21T10:00", 2), ["2028-02-29T00:00:00", "2032-02-29T00:00:00"]);
        // Strictly after: a from time exactly on a run time gives the following one.
        assert_eq!(next_n("30 9 * * *", "2026-11-21T09:30:00", 1), ["2026-11-22T09:30:00"]);
        assert_eq!(next_n("30 9 * * *", "2026-11-21T09:29:59.9", 1), ["2026-11-21T09:30:00"]);
        assert!(Schedule::parse("0 0 30 2 *").unwrap().next_after(at("2026-01-01T00:00")).is_none());
    }

    #[test]
    fn next_times_agree_with_croner() {
        // croner (an independent implementation) with its default OR rule for day-of-month and
        // day-of-week, on expressions where Vixie's star rule does not come into play.
        use croner::parser::{CronParser, Seconds};
        let parser = CronParser::builder().seconds(Seconds::Disallowed).build();
        let exprs = [
            "* * * * *",
            "*/7 * * * *",
            "5-50/15 3,4 * * *",
            "0 0 1 * *",
            "0 12 * * MON-FRI",
            "15 10 1,15 * 5",
            "0 0 29 2 *",
            "0 0 31 * *",
            "0 6 * JAN,JUL SUN",
            "0 0 13 * 5",
            "*/30 */6 10-20/5 2-11/3 1-5",
        ];
        for e in exprs {
            let mine = Schedule::parse(e).unwrap();
            let theirs = parser.parse(e).unwrap();
            let mut t = jiff::Timestamp::from_second(1_790_000_000).unwrap().to_zoned(jiff::tz::TimeZone::UTC);
            let mut mine_t = t.datetime();
            for _ in 0..40 {
                t = theirs.find_next_occurrence(&t, false).unwrap();
                mine_t = mine.next_after(mine_t).unwrap();
                assert_eq!(mine_t, t.datetime(), "{e}");
            }
        }
    }
}
