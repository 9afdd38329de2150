//! Business days: the days that are neither a weekend day nor a day off of a country's (and
//! subdivision's) calendar, from wrench's holiday table (`holidays/list`; observed days
//! count as days off). Counting and stepping follow NumPy's `busday_count` and
//! `busday_offset`: a count takes the first day and not the last in the direction of travel
//! (`[from, to)`, or `(to, from]` and negative backwards); an offset
//! first rolls a day that is not a business day forward (or backward), then steps.

use std::collections::BTreeMap;

use jiff::civil::{Date, Weekday};
use wrench_contract::prelude::*;

/// The largest number of business days one request may step (about 385 years).
pub(super) const MAX_STEPS: i64 = 100_000;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema, Validate)]
#[serde(rename_all = "lowercase")]
pub(super) enum Day {
    Monday,
    Tuesday,
    Wednesday,
    Thursday,
    Friday,
    Saturday,
    Sunday,
}

impl Day {
    fn index(self) -> usize {
        self as usize
    }
}

fn index(w: Weekday) -> usize {
    w.to_monday_zero_offset() as usize
}

/// Which days are business days.
pub(super) struct Calendar {
    weekend: [bool; 7],
    holidays: BTreeMap<Date, String>,
    /// The years the holidays are known for; `None` without a country (every year is fine).
    years: Option<std::ops::RangeInclusive<i16>>,
    country: String,
}

impl Calendar {
    /// The calendar of `weekend` days (Saturday and Sunday when absent) and the days off of
    /// `country` and `subdivision`.
    pub fn new(weekend: Option<&[Day]>, country: Option<&str>, subdivision: Option<&str>) -> Result<Self, ApiError> {
        let mut days = [false; 7];
        for d in weekend.unwrap_or(&[Day::Saturday, Day::Sunday]) {
            days[d.index()] = true;
        }
        if days.iter().all(|&w| w) {
            return Err(ApiError::invalid("weekend", "leaves no business day in the week"));
        }
        if subdivision.is_some() && country.is_none() {
            return Err(ApiError::invalid("subdivision", "needs a country"));
        }
        let (holidays, years) = match country {
            Some(cc) => {
                let (days, years) = wrench_kit::geo::holidays::days_off(cc, subdivision)?;
                (days.into_iter().collect(), Some(years))
            }
            None => (BTreeMap::new(), None),
        };
        Ok(Calendar { weekend: days, holidays, years, country: country.unwrap_or("").to_ascii_uppercase() })
    }

    pub fn is_business(&self, d: Date) -> bool {
        !self.weekend[index(d.weekday())] && !self.holidays.contains_key(&d)
    }

    /// A 400 when `d` lies outside the years the country's holidays are known for.
    fn covered(&self, d: Date) -> Result<(), ApiError> {
        match &self.years {
            Some(years) if !years.contains(&d.year()) => Err(ApiError::invalid(
                "country",
                format!(
                    "{}'s holidays are known from {} to {}; {d} is outside them",
                    self.country,
                    years.start(),
                    years.end()
                ),
            )),
            _ => Ok(()),
        }
    }

    /// Business days from `from` (counted) to `to` (not counted) in the direction of travel:
    /// `[from, to)` forwards, `(to, from]` backwards and negative, as NumPy counts them; and the
    /// days off that fell on what would have been business days in that range.
    pub fn count(&self, from: Date, to: Date) -> Result<(i64, Vec<(Date, String)>), ApiError> {
        if to < from {
            let next = |d: Date| d.tomorrow().map_err(|e| ApiError::invalid("from", e));
            let (n, skipped) = self.count(next(to)?, next(from)?)?;
            return Ok((-n, skipped));
        }
        if from == to {
            return Ok((0, Vec::new()));
        }
        let last = to.yesterday().map_err(|e| ApiError::invalid("to", e))?;
        self.covered(from)?;
        self.covered(last)?;
        let days = (to - from).get_days() as i64;
        // Whole weeks at once, the rest day by day: a range of centuries costs a few steps.
        let per_week = self.weekend.iter().filter(|&&w| !w).count() as i64;
        let mut n = days / 7 * per_week;
        let mut d = from;
        for _ in 0..days % 7 {
            if !self.weekend[index(d.weekday())] {
                n += 1;
            }
            d = d.tomorrow().map_err(|e| ApiError::invalid("to", e))?;
        }
        let skipped: Vec<(Date, String)> = self
            .holidays
            .range(from..to)
            .filter(|(d, _)| !self.weekend[index(d.weekday())])
            .map(|(d, name)| (*d, name.clone()))
            .collect();
        Ok((n - skipped.len() as i64, skipped))
    }

    /// `start` rolled to a business day (forward, or backward when `backward`), then moved
    /// `steps` business days.
    pub fn offset(&self, start: Date, steps: i64, backward: bool) -> Result<Date, ApiError> {
        let step = |d: Date, forward: bool| -> Result<Date, ApiError> {
            let next = if forward { d.tomorrow() } else { d.yesterday() };
            let next = next.map_err(|e| ApiError::invalid("businessDays", e))?;
            self.covered(next)?;
            Ok(next)
        };
        self.covered(start)?;
        let mut d = start;
        while !self.is_business(d) {
            d = step(d, !backward)?;
        }
        let forward = steps >= 0;
        for _ in 0..steps.unsigned_abs() {
            d = step(d, forward)?;
            while !self.is_business(d) {
                d = step(d, forward)?;
            }
        }
        Ok(d)
    }
}
