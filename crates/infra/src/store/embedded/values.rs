//! How a value sits in the embedded store's tables: its expiry (Unix milliseconds, 0 for
//! never) in front of its bytes, read back only while live, and counters kept that way. The
//! store, its logs and its tallies all read and write values through this file.

use std::time::Duration;

use redb::{ReadableTable, TableDefinition};

use crate::store::{StoreError, embedded::file::db_err};

pub(crate) const VALUES: TableDefinition<&str, &[u8]> = TableDefinition::new("values");
pub(crate) fn encode(expires_at: u64, payload: &[u8]) -> Vec<u8> {
    let mut v = Vec::with_capacity(8 + payload.len());
    v.extend_from_slice(&expires_at.to_be_bytes());
    v.extend_from_slice(payload);
    v
}

/// (expiry, payload) of a live entry; `None` when expired or malformed.
pub(crate) fn live(raw: &[u8], now: u64) -> Option<(u64, &[u8])> {
    let (head, payload) = raw.split_at_checked(8)?;
    let expires_at = u64::from_be_bytes(head.try_into().ok()?);
    (expires_at == 0 || expires_at > now).then_some((expires_at, payload))
}

pub(crate) type Table<'t> = redb::Table<'t, &'static str, &'static [u8]>;

/// Adds one to the counter at `key` in `values` (a missing or expired one counts from zero and
/// gets `ttl`; a live one keeps its expiry). The new count and the counter's expiry.
pub(crate) fn bump(
    values: &mut Table<'_>,
    key: &str,
    now: u64,
    ttl: Option<Duration>,
) -> Result<(i64, u64), StoreError> {
    let current = values
        .get(key)
        .map_err(db_err)?
        .and_then(|v| live(v.value(), now).map(|(exp, p)| (i64::from_be_bytes(p.try_into().unwrap_or_default()), exp)));
    let (count, expires_at) = match current {
        Some((n, exp)) => (n + 1, exp),
        None => (1, expiry_from(now, ttl)),
    };
    values.insert(key, encode(expires_at, &count.to_be_bytes()).as_slice()).map_err(db_err)?;
    Ok((count, expires_at))
}

/// The expiry instant for `ttl` from `now` (0: never). Callers that also report time left
/// pass the same `now`, so the two agree to the millisecond.
pub(crate) fn expiry_from(now: u64, ttl: Option<Duration>) -> u64 {
    ttl.map_or(0, |t| now + (t.as_millis() as u64).max(1))
}
