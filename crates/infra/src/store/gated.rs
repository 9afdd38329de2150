//! Values that are open only during a period and for a number of uses (a short link with
//! `validSince`, `validUntil` and `maxVisits`).
//!
//! Such a value carries its gate in a fixed-width header of 42 bytes ahead of its bytes: a zero
//! byte and `g`, the start and end of its period as 15 decimal digits of Unix milliseconds each
//! (enough for the year 9999; zero: open on that side), and the uses left as 10 decimal digits
//! (all nines: no limit).
//! [`super::Store::get_and_count`] checks the gate and spends a use in the same step that
//! counts the read, rewriting only the ten digits, so concurrent readers of a value with N
//! uses left get exactly N opens, on either backend. The gate sits in the value itself, so a
//! value and its gate are written, read and removed together.

/// Length of the header.
pub const HEADER: usize = 42;
/// The uses-left field that means no limit.
const UNLIMITED: u64 = 9_999_999_999;
/// Largest limit a gate can hold.
pub const MAX_USES: u64 = UNLIMITED - 1;

/// When a value is open, and how many more times.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Gate {
    /// Opens at this Unix millisecond (0: always open so far).
    pub since_ms: u64,
    /// Closes at this Unix millisecond (0: never).
    pub until_ms: u64,
    /// Uses left (`None`: no limit).
    pub left: Option<u64>,
}

impl Gate {
    /// Whether the gate lets a use through at `now_ms`.
    pub fn admits(&self, now_ms: u64) -> bool {
        (self.since_ms == 0 || now_ms >= self.since_ms)
            && (self.until_ms == 0 || now_ms < self.until_ms)
            && self.left != Some(0)
    }
}

/// Latest instant a gate holds (Unix milliseconds, 15 digits).
const LATEST_MS: u64 = 999_999_999_999_999;

/// `value` behind `gate`. Instants past the 15 digits are held as the latest one.
pub fn gated(gate: &Gate, value: &[u8]) -> Vec<u8> {
    let left = gate.left.map_or(UNLIMITED, |n| n.min(MAX_USES));
    let mut out = Vec::with_capacity(HEADER + value.len());
    out.extend_from_slice(b"\0g");
    let (since, until) = (gate.since_ms.min(LATEST_MS), gate.until_ms.min(LATEST_MS));
    out.extend_from_slice(format!("{since:015}{until:015}{left:010}").as_bytes());
    out.extend_from_slice(value);
    out
}

/// The gate of `stored` (`None` for a value without one) and the value's bytes.
pub fn split(stored: &[u8]) -> (Option<Gate>, &[u8]) {
    let Some((head, rest)) = stored.split_at_checked(HEADER) else { return (None, stored) };
    if &head[..2] != b"\0g" {
        return (None, stored);
    }
    let number = |range: std::ops::Range<usize>| std::str::from_utf8(&head[range]).ok()?.parse::<u64>().ok();
    match (number(2..17), number(17..32), number(32..42)) {
        (Some(since_ms), Some(until_ms), Some(left)) => {
            (Some(Gate { since_ms, until_ms, left: (left != UNLIMITED).then_some(left) }), rest)
        }
        _ => (None, stored),
    }
}

/// `stored` with one use spent, when its gate has a limit.
pub fn spend(stored: &[u8]) -> Option<Vec<u8>> {
    let (gate, value) = split(stored);
    let gate = gate?;
    let left = gate.left?.checked_sub(1)?;
    Some(gated(&Gate { left: Some(left), ..gate }, value))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gates_round_trip_and_admit_within_their_period_and_uses() {
        let far = Gate { since_ms: 32_472_144_000_000, until_ms: 253_402_300_799_999, left: None };
        assert_eq!(split(&gated(&far, b"v")).0, Some(far), "instants up to the year 9999 are kept");
        assert!(!far.admits(1_800_000_000_000));
        let gate = Gate { since_ms: 1_000, until_ms: 2_000, left: Some(3) };
        let stored = gated(&gate, b"{\"url\":1}");
        assert_eq!(stored.len(), HEADER + 9);
        assert_eq!(split(&stored), (Some(gate), &b"{\"url\":1}"[..]));
        assert!(!gate.admits(999) && gate.admits(1_000) && gate.admits(1_999) && !gate.admits(2_000));
        let spent = spend(&stored).unwrap();
        assert_eq!(split(&spent).0.unwrap().left, Some(2));
        let empty = gated(&Gate { left: Some(0), ..gate }, b"x");
        assert!(!split(&empty).0.unwrap().admits(1_500));
        assert_eq!(spend(&empty), None);
        let open = Gate { since_ms: 0, until_ms: 0, left: None };
        assert_eq!(split(&gated(&open, b"v")).0, Some(open));
        assert!(open.admits(u64::MAX));
        assert_eq!(spend(&gated(&open, b"v")), None, "no limit, nothing to spend");
        assert_eq!(split(b"{\"plain\":true}"), (None, &b"{\"plain\":true}"[..]));
    }
}
