//! A moment as people write one: a date (`2025-03-30`), a local date and time
//! (`2025-03-30T02:30`), an instant with an offset (`2025-03-30T02:30:00+02:00`, `…Z`), or
//! with its zone (`2025-03-30T02:30+02:00[Europe/Paris]`). Each is placed in a zone: the one
//! asked for, else the one it names, else UTC. Answers are written in the form the moment was
//! given in, so a date stays a date.

use jiff::{Timestamp, Zoned, civil, tz::TimeZone};
use wrench_contract::prelude::*;

/// The form a moment was written in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Form {
    Date,
    Local,
    Offset,
    Zoned,
}

pub(super) struct Moment {
    pub zoned: Zoned,
    pub form: Form,
}

/// Reads `text` (the value of `field`), placing it in `zone` when one is given.
pub(super) fn read(field: &str, text: &str, zone: Option<&TimeZone>) -> Result<Moment, ApiError> {
    let t = text.trim();
    let bad = |e: jiff::Error| {
        ApiError::invalid(
            field,
            format!(
                "{t:?} is not a date (2025-03-30), a local date and time (2025-03-30T14:00), or an RFC 3339 instant ({e})"
            ),
        )
    };
    if t.contains('[') {
        let z: Zoned = t.parse().map_err(bad)?;
        let zoned = match zone {
            Some(tz) => z.with_time_zone(tz.clone()),
            None => z,
        };
        return Ok(Moment { zoned, form: Form::Zoned });
    }
    if let Ok(ts) = t.parse::<Timestamp>() {
        let tz = match zone {
            Some(tz) => tz.clone(),
            None => {
                // The offset written is the zone: `…+02:00` stays at +02:00.
                let offset = written_offset(t).unwrap_or(jiff::tz::Offset::UTC);
                TimeZone::fixed(offset)
            }
        };
        return Ok(Moment { zoned: ts.to_zoned(tz), form: Form::Offset });
    }
    let tz = zone.cloned().unwrap_or(TimeZone::UTC);
    if t.len() > 10 {
        let dt: civil::DateTime = t.parse().map_err(bad)?;
        let zoned = dt.to_zoned(tz).map_err(bad)?;
        return Ok(Moment { zoned, form: Form::Local });
    }
    let d: civil::Date = t.parse().map_err(bad)?;
    let zoned = d.to_zoned(tz).map_err(bad)?;
    Ok(Moment { zoned, form: Form::Date })
}

/// The offset at the end of an RFC 3339 text.
fn written_offset(t: &str) -> Option<jiff::tz::Offset> {
    if t.ends_with(['Z', 'z']) {
        return Some(jiff::tz::Offset::UTC);
    }
    let at = t.rfind(['+', '-']).filter(|&i| i > 10)?;
    let (sign, rest) = t[at..].split_at(1);
    let (h, m) = rest.split_once(':').unwrap_or((rest.get(..2)?, rest.get(2..).unwrap_or("0")));
    let seconds = h.parse::<i32>().ok()? * 3600 + m.parse::<i32>().ok()? * 60;
    jiff::tz::Offset::from_seconds(if sign == "-" { -seconds } else { seconds }).ok()
}

/// `zoned` written in `form`.
pub(super) fn write(zoned: &Zoned, form: Form) -> String {
    match form {
        Form::Date => zoned.date().to_string(),
        Form::Local => zoned.datetime().to_string(),
        Form::Offset => zoned.timestamp().display_with_offset(zoned.offset()).to_string(),
        Form::Zoned => zoned.to_string(),
    }
}

/// The weekday's name in lower case.
pub(super) fn weekday(zoned: &Zoned) -> String {
    format!("{:?}", zoned.weekday()).to_ascii_lowercase()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_form_reads_and_writes_back() {
        for (text, form) in [
            ("2025-03-30", Form::Date),
            ("2025-03-30T14:05", Form::Local),
            ("2025-03-30T14:05:06.5", Form::Local),
            ("2025-03-30T14:05:06+02:00", Form::Offset),
            ("2025-03-30T14:05:06Z", Form::Offset),
            ("2025-03-30T14:05:06+02:00[Europe/Paris]", Form::Zoned),
        ] {
            let m = read("from", text, None).unwrap_or_else(|e| panic!("{text}: {}", e.message));
            assert_eq!(m.form, form, "{text}");
        }
        let m = read("from", "2025-03-30T14:05:06-05:30", None).unwrap();
        assert_eq!(write(&m.zoned, m.form), "2025-03-30T14:05:06-05:30");
        let m = read("from", "2025-03-30T14:05:06Z", None).unwrap();
        assert_eq!(write(&m.zoned, m.form), "2025-03-30T14:05:06+00:00");
        assert!(read("from", "30/03/2025", None).is_err());
        assert!(read("from", "2025-02-30", None).is_err());
    }
}
