//! A local date-time from one time zone to another (`timezone/convert`), with the
//! two awkward cases said out loud: a wall-clock time that does not exist (skipped by a
//! spring-forward change, a gap) and one that happens twice (repeated by a fall-back change,
//! a fold). How either is resolved is the caller's choice, with the rules of RFC 9557 and
//! JavaScript's Temporal (`compatible`, `earlier`, `later`, `reject`).

use jiff::{
    civil::DateTime,
    tz::{AmbiguousOffset, Disambiguation, TimeZone},
};

use wrench_contract::prelude::*;
use wrench_kit::geo::tzdb::{Observed, observed, offset_text, tzdb_version, zone, zone_name};

#[derive(Debug, Deserialize, Serialize, JsonSchema, Validate, Clone, Copy, PartialEq, Eq, Default)]
#[serde(rename_all = "lowercase")]
enum Resolve {
    /// A skipped time moves forward by the gap (02:30 becomes 03:30); a repeated time takes
    /// its first occurrence.
    #[default]
    Compatible,
    /// The instant before the gap's length (02:30 becomes 01:30); the first occurrence.
    Earlier,
    /// The instant after (02:30 becomes 03:30); the second occurrence.
    Later,
    /// Answer 400 instead.
    Reject,
}

#[derive(Debug, Deserialize, JsonSchema, Validate)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct ConvertInput {
    /// A local date and time without offset: `YYYY-MM-DDTHH:mm:ss` (minutes-only and
    /// fractional seconds are accepted too).
    #[schemars(
        length(min = 1, max = 64),
        pattern("^[0-9]{4}-[0-9]{2}-[0-9]{2}[Tt ][0-9]{2}:[0-9]{2}(?::[0-9]{2}(?:[.][0-9]{1,9})?)?$")
    )]
    datetime: String,
    /// The IANA zone `datetime` is local to.
    #[schemars(length(min = 1, max = 64))]
    from: String,
    /// The IANA zone to convert to.
    #[schemars(length(min = 1, max = 64))]
    to: String,
    /// What to do with a time that does not exist or happens twice in `from`.
    #[serde(default)]
    disambiguation: Resolve,
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct Side {
    /// Local date and time in this zone.
    datetime: String,
    timezone: String,
    #[serde(flatten)]
    observed: Observed,
    /// The same with its offset (RFC 3339).
    iso: String,
}

#[derive(Debug, Serialize, JsonSchema, PartialEq)]
#[serde(rename_all = "lowercase")]
enum Kind {
    /// The time happens exactly once.
    Exact,
    /// The time was skipped by a change of offset and never happens.
    Gap,
    /// The time happens twice.
    Fold,
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct Resolution {
    kind: Kind,
    /// The rule applied (`compatible` unless asked otherwise).
    disambiguation: Resolve,
    /// For a gap or fold, the offsets either side of the change and what was done.
    note: Option<String>,
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct ConvertOutput {
    /// The date-time as written.
    requested: String,
    /// The instant it was read as, in the source zone (differs from `requested` only in a gap).
    from: Side,
    to: Side,
    /// The instant in UTC.
    utc: String,
    unix: i64,
    /// `to`'s offset minus `from`'s, `+06:00`.
    offset_difference: String,
    offset_difference_seconds: i32,
    /// Calendar days between the local dates (`-1`, `0`, `1`).
    day_difference: i32,
    resolution: Resolution,
    tzdb_version: &'static str,
}

fn side(tz: &TimeZone, at: jiff::Timestamp) -> Side {
    let obs = observed(tz, at);
    let zoned = at.to_zoned(tz.clone());
    Side {
        datetime: zoned.datetime().to_string(),
        timezone: zone_name(tz),
        iso: at.display_with_offset(zoned.offset()).to_string(),
        observed: obs,
    }
}

/// Convert a local date-time between time zones.
///
/// Reads `datetime` as wall-clock time in `from` and gives the same instant in `to`, with
/// both offsets, abbreviations and DST flags, the offset difference, the UTC instant and the
/// calendar-day difference. Around a DST change a wall-clock time may not exist (a gap) or
/// may happen twice (a fold): `resolution` says which, and `disambiguation` chooses the
/// answer (`compatible` by default: a skipped time moves forward by the gap, a repeated time
/// takes its first occurrence; `reject` answers 400).
#[op(post "/v1/timezone/convert" as timezoneConvert, tag = Lookups,
     rejects = "a date or time that is not in the calendar (a 13th month, a 25th hour) or lies within a day of the ends \
                of the supported range (the years -9999 and 9999), an unknown zone, or (with `reject`) a time in a gap or fold",
     example(new_york_to_tokyo, {"datetime": "2024-06-15T09:00:00", "from": "America/New_York", "to": "Asia/Tokyo"}),
     example(spring_forward_gap, {"datetime": "2024-03-10T02:30:00", "from": "America/New_York", "to": "UTC"}),
     example(fall_back_fold_later, {"datetime": "2024-10-27T02:30:00", "from": "Europe/Berlin", "to": "Asia/Kolkata", "disambiguation": "later"}),
     example(gap_rejected, {"datetime": "2024-03-31T02:30:00", "from": "Europe/Paris", "to": "UTC", "disambiguation": "reject"}, status = 400),
     example(offset_given, {"datetime": "2024-06-15T09:00:00Z", "from": "UTC", "to": "Asia/Tokyo"}, status = 400))]
async fn timezone_convert(input: ConvertInput) -> Result<ConvertOutput, ApiError> {
    let from = zone("from", &input.from)?;
    let to = zone("to", &input.to)?;
    let text = input.datetime.trim();
    // The parser would take an offset or `Z` and drop it; here it would contradict `from`.
    let has_offset = text.get(10..).is_some_and(|t| t.contains(['Z', 'z', '+', '-', '[']));
    let local: DateTime = (!has_offset).then(|| text.parse().ok()).flatten().ok_or_else(|| {
        ApiError::invalid(
            "datetime",
            format!(
                "{text:?} is not a local date-time YYYY-MM-DDTHH:mm:ss (without an offset or Z: the zone is `from`)"
            ),
        )
    })?;
    let ambiguous = from.to_ambiguous_timestamp(local);
    let (kind, change) = match ambiguous.offset() {
        AmbiguousOffset::Unambiguous { .. } => (Kind::Exact, None),
        AmbiguousOffset::Gap { before, after } => (Kind::Gap, Some((before, after))),
        AmbiguousOffset::Fold { before, after } => (Kind::Fold, Some((before, after))),
    };
    let name = zone_name(&from);
    let note = change.map(|(before, after)| {
        let (b, a) = (offset_text(before.seconds()), offset_text(after.seconds()));
        let what = match (&kind, input.disambiguation) {
            (_, Resolve::Reject) => "rejected",
            (Kind::Gap, Resolve::Earlier) => "read with the later offset, landing before the gap",
            (Kind::Gap, _) => "read with the earlier offset, landing after the gap",
            (_, Resolve::Later) => "the second occurrence taken",
            _ => "the first occurrence taken",
        };
        match kind {
            Kind::Gap => format!("{text} does not exist in {name}: clocks move from {b} to {a} across it; {what}"),
            _ => format!("{text} happens twice in {name}: first at {b}, then at {a}; {what}"),
        }
    });
    let rule = match input.disambiguation {
        Resolve::Compatible => Disambiguation::Compatible,
        Resolve::Earlier => Disambiguation::Earlier,
        Resolve::Later => Disambiguation::Later,
        Resolve::Reject => Disambiguation::Reject,
    };
    let at = ambiguous.disambiguate(rule).map_err(|e| match &note {
        Some(n) => ApiError::invalid("datetime", n.clone()),
        None => ApiError::invalid("datetime", format!("{text:?} is out of range ({e})")),
    })?;
    let (a, b) = (side(&from, at), side(&to, at));
    let diff = b.observed.offset_seconds - a.observed.offset_seconds;
    // Date minus date is a span of days.
    let day_difference = (to.to_datetime(at).date() - from.to_datetime(at).date()).get_days();
    Ok(ConvertOutput {
        requested: local.to_string(),
        from: a,
        to: b,
        utc: at.to_string(),
        unix: at.as_second(),
        offset_difference: offset_text(diff),
        offset_difference_seconds: diff,
        day_difference,
        resolution: Resolution { kind, disambiguation: input.disambiguation, note },
        tzdb_version: tzdb_version(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    async fn convert(dt: &str, from: &str, to: &str, how: Resolve) -> Result<ConvertOutput, ApiError> {
        timezone_convert(ConvertInput { datetime: dt.into(), from: from.into(), to: to.into(), disambiguation: how })
            .await
    }

    /// Conversions over DST edges agree with Python's zoneinfo (PEP 495: `fold=0` is
    /// `compatible`; `fold=1` is `earlier` in a gap and `later` in a fold), from
    /// `tests/fixtures/timezones.py`.
    #[tokio::test]
    async fn agrees_with_pythons_zoneinfo_over_dst_edges() {
        let fixture: Value = serde_json::from_str(include_str!("../../../tests/fixtures/timezones.json")).unwrap();
        let cases = fixture["conversions"].as_array().unwrap();
        assert!(cases.len() >= 30);
        let (mut gaps, mut folds) = (0, 0);
        for c in cases {
            let s = |k: &str| c[k].as_str().unwrap().to_string();
            let ctx = format!("{} {} -> {}", s("datetime"), s("from"), s("to"));
            let kind = s("kind");
            let second = if kind == "gap" { Resolve::Earlier } else { Resolve::Later };
            for (how, key) in [(Resolve::Compatible, "fold0"), (second, "fold1")] {
                let out = convert(&s("datetime"), &s("from"), &s("to"), how).await.unwrap();
                let want = &c[key];
                assert_eq!(out.utc, want["utc"].as_str().unwrap(), "{ctx} {how:?}");
                assert_eq!(out.to.datetime, want["toLocal"].as_str().unwrap(), "{ctx} {how:?}");
                assert_eq!(i64::from(out.to.observed.offset_seconds), want["toOffset"].as_i64().unwrap(), "{ctx}");
                assert_eq!(out.to.observed.abbreviation, want["toAbbreviation"].as_str().unwrap(), "{ctx}");
                let expected_kind = match kind.as_str() {
                    "gap" => Kind::Gap,
                    "fold" => Kind::Fold,
                    _ => Kind::Exact,
                };
                assert_eq!(out.resolution.kind, expected_kind, "{ctx}");
            }
            gaps += usize::from(kind == "gap");
            folds += usize::from(kind == "fold");
        }
        assert!(gaps >= 5 && folds >= 5, "{gaps} gaps, {folds} folds");
    }

    #[tokio::test]
    async fn gaps_and_folds_are_said_and_can_be_refused() {
        let gap = convert("2024-03-10T02:30:00", "America/New_York", "UTC", Resolve::Compatible).await.unwrap();
        assert_eq!((gap.from.datetime.as_str(), gap.utc.as_str()), ("2024-03-10T03:30:00", "2024-03-10T07:30:00Z"));
        assert!(gap.resolution.note.unwrap().contains("does not exist"));
        let e = convert("2024-03-10T02:30:00", "America/New_York", "UTC", Resolve::Reject).await.unwrap_err();
        assert!(e.to_string().contains("does not exist"), "{e}");
        let e = convert("2024-11-03T01:30:00", "America/New_York", "UTC", Resolve::Reject).await.unwrap_err();
        assert!(e.to_string().contains("happens twice"), "{e}");
        let plain = convert("2024-06-15T23:00:00", "America/New_York", "Asia/Tokyo", Resolve::Reject).await.unwrap();
        assert_eq!((plain.offset_difference.as_str(), plain.day_difference), ("+13:00", 1));
        assert_eq!(plain.to.datetime, "2024-06-16T12:00:00");
    }

    #[tokio::test]
    async fn offsets_in_the_input_are_refused() {
        for bad in ["2024-06-15T09:00:00Z", "2024-06-15T09:00:00+02:00", "15/06/2024 09:00", "2024-13-01T00:00:00"] {
            let e = convert(bad, "UTC", "UTC", Resolve::Compatible).await.unwrap_err();
            assert!(e.to_string().contains("datetime"), "{bad}: {e}");
        }
    }
}
