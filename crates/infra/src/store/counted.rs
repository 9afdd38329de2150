//! Values that may be read a limited number of times (a paste that burns after reading).
//!
//! Such a value carries its reads left in a header of six bytes, a zero byte and five decimal
//! digits, ahead of its bytes; [`super::Store::take`] spends one read and removes the value
//! with the last, in one step on either backend. The header sits in the value itself, so a
//! value and its count never live under two keys (which a Redis Cluster could place on two
//! nodes) and expire together. A value without the header (no value the features store
//! begins with a zero byte) is read as it is, for as long as it lives.

/// Largest number of reads a counted value can hold.
pub const MAX_READS: u32 = 99_999;
/// Length of the header.
pub const HEADER: usize = 6;

/// `value` with `reads` reads (1 to [`MAX_READS`]; larger counts are capped).
pub fn counted(reads: u32, value: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(HEADER + value.len());
    out.push(0);
    out.extend_from_slice(format!("{:05}", reads.clamp(1, MAX_READS)).as_bytes());
    out.extend_from_slice(value);
    out
}

/// The reads left in `stored` (`None` for a value without a count) and the value's bytes.
pub fn split(stored: &[u8]) -> (Option<u32>, &[u8]) {
    match stored.split_at_checked(HEADER) {
        Some((head, rest)) if head[0] == 0 => {
            let digits = std::str::from_utf8(&head[1..]).ok().and_then(|d| d.parse::<u32>().ok());
            match digits {
                Some(n) => (Some(n), rest),
                None => (None, stored),
            }
        }
        _ => (None, stored),
    }
}

/// What one read left of a value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Taken {
    /// The value's bytes, without the header.
    pub value: Vec<u8>,
    /// Reads left after this one (`None`: the value has no count). At 0 the value is gone.
    pub left: Option<u32>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn headers_round_trip_and_plain_values_pass_through() {
        assert_eq!(split(&counted(7, b"{\"a\":1}")), (Some(7), &b"{\"a\":1}"[..]));
        assert_eq!(split(&counted(0, b"x")).0, Some(1), "at least one read");
        assert_eq!(split(&counted(1_000_000, b"x")).0, Some(MAX_READS));
        assert_eq!(split(b"{\"plain\":true}"), (None, &b"{\"plain\":true}"[..]));
        assert_eq!(split(b"\0abc"), (None, &b"\0abc"[..]), "too short for a header");
        assert_eq!(split(b"\0abcdef"), (None, &b"\0abcdef"[..]), "not digits");
    }
}
