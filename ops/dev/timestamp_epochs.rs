//! The epoch-counted forms `timestamp/convert` reads and writes besides Unix time, each a count
//! of some unit since some instant (UTC):
//! - Windows FILETIME (also Active Directory and LDAP times): 100-nanosecond intervals since
//!   1601-01-01;
//! - .NET `DateTime.Ticks`: 100-nanosecond intervals since 0001-01-01;
//! - Excel serial dates: days since 1899-12-30 in the 1900 system, which counts the 29 February
//!   1900 that never was (so serials below 61 are one less than the days), or since 1904-01-01
//!   in the 1904 system; the fraction is the time of day;
//! - Apple Cocoa (`NSDate`, Core Data): seconds since 2001-01-01;
//! - Julian day: days since noon on 1 January 4713 BC (proleptic Julian), 2440587.5 at the Unix
//!   epoch.

use jiff::Timestamp;

const NANOS_PER_DAY: f64 = 86_400e9;
/// Seconds from 1601-01-01 to 1970-01-01.
const FILETIME_OFFSET: i128 = 11_644_473_600;
/// Seconds from 0001-01-01 to 1970-01-01.
const DOTNET_OFFSET: i128 = 62_135_596_800;
/// Seconds from 1970-01-01 to 2001-01-01.
const COCOA_OFFSET: f64 = 978_307_200.0;
/// Days from 1899-12-30 and from 1904-01-01 to 1970-01-01.
const EXCEL_1900_DAYS: f64 = 25_569.0;
const EXCEL_1904_DAYS: f64 = 24_107.0;
const JULIAN_AT_UNIX_EPOCH: f64 = 2_440_587.5;

fn nanos(ts: Timestamp) -> i128 {
    ts.as_nanosecond()
}

fn from_nanos(n: i128, text: &str) -> Result<Timestamp, String> {
    Timestamp::from_nanosecond(n).map_err(|_| format!("{text} is outside the supported range (years -9999 to 9999)"))
}

/// 100-nanosecond ticks since `offset` seconds before the Unix epoch; `None` before it.
fn ticks(ts: Timestamp, offset: i128) -> Option<String> {
    let t = (nanos(ts) + offset * 1_000_000_000).div_euclid(100);
    (t >= 0).then(|| t.to_string())
}

pub(super) fn filetime(ts: Timestamp) -> Option<String> {
    ticks(ts, FILETIME_OFFSET)
}

pub(super) fn dotnet_ticks(ts: Timestamp) -> Option<String> {
    ticks(ts, DOTNET_OFFSET)
}

pub(super) fn cocoa(ts: Timestamp) -> f64 {
    nanos(ts) as f64 / 1e9 - COCOA_OFFSET
}

pub(super) fn julian_day(ts: Timestamp) -> f64 {
    nanos(ts) as f64 / NANOS_PER_DAY + JULIAN_AT_UNIX_EPOCH
}

/// The Excel serial date; `None` before the system's first day (1900-01-01 or 1904-01-01).
pub(super) fn excel(ts: Timestamp, system_1904: bool) -> Option<f64> {
    let days = nanos(ts) as f64 / NANOS_PER_DAY + if system_1904 { EXCEL_1904_DAYS } else { EXCEL_1900_DAYS };
    if system_1904 {
        return (days >= 0.0).then_some(days);
    }
    match days.floor() {
        // 1900-01-01 is day 2 after 1899-12-30 and serial 1: before 1 March 1900 the serial is
        // a day less, since the 1900 system counts a 29 February 1900.
        d if d < 2.0 => None,
        d if d <= 60.0 => Some(days - 1.0),
        _ => Some(days),
    }
}

/// The integer in `text`, or why not.
fn integer(text: &str, what: &str) -> Result<i128, String> {
    text.parse::<i128>().map_err(|_| format!("{text:?} is not a whole number of {what}"))
}

fn number(text: &str, what: &str) -> Result<f64, String> {
    text.parse::<f64>().ok().filter(|f| f.is_finite()).ok_or_else(|| format!("{text:?} is not a number of {what}"))
}

pub(super) fn read_filetime(text: &str) -> Result<Timestamp, String> {
    let t = integer(text, "100-nanosecond intervals")?;
    if !(0..=i128::from(i64::MAX)).contains(&t) {
        return Err(format!("{text} is not a FILETIME (0 to 2^63 - 1)"));
    }
    from_nanos(t * 100 - FILETIME_OFFSET * 1_000_000_000, text)
}

pub(super) fn read_dotnet_ticks(text: &str) -> Result<Timestamp, String> {
    let t = integer(text, "ticks")?;
    if !(0..=3_155_378_975_999_999_999).contains(&t) {
        return Err(format!("{text} is not a .NET tick count (0 to 3155378975999999999, the year 9999)"));
    }
    from_nanos(t * 100 - DOTNET_OFFSET * 1_000_000_000, text)
}

pub(super) fn read_cocoa(text: &str) -> Result<Timestamp, String> {
    let s = number(text, "seconds")?;
    // Microseconds: a double of a billion seconds carries no finer.
    from_nanos((((s + COCOA_OFFSET) * 1e6).round() as i128) * 1000, text)
}

pub(super) fn read_julian_day(text: &str) -> Result<Timestamp, String> {
    let d = number(text, "days")?;
    // Milliseconds are as fine as a day's fraction in a double carries.
    from_nanos((((d - JULIAN_AT_UNIX_EPOCH) * 86_400_000.0).round() as i128) * 1_000_000, text)
}

pub(super) fn read_excel(text: &str, system_1904: bool) -> Result<Timestamp, String> {
    let serial = number(text, "days")?;
    let days = if system_1904 {
        if serial < 0.0 {
            return Err(format!("{text} is before the 1904 system's first day (0)"));
        }
        serial - EXCEL_1904_DAYS
    } else {
        if serial < 1.0 {
            return Err(format!("{text} is before the 1900 system's first day (1, 1900-01-01)"));
        }
        if (60.0..61.0).contains(&serial) {
            return Err(format!("{text} is 29 February 1900, which Excel counts and the calendar does not"));
        }
        (if serial < 60.0 { serial + 1.0 } else { serial }) - EXCEL_1900_DAYS
    };
    // Milliseconds, as Excel keeps them.
    from_nanos(((days * 86_400_000.0).round() as i128) * 1_000_000, text)
}
