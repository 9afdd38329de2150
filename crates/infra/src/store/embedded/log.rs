//! Logs on the embedded store: each entry a record of its own, so that appending costs the
//! same whether the log holds one entry or a thousand.
//!
//! The log's state (first and last live numbers, bytes held) is a 24-byte value at the log's
//! key in the values table; entry `n` is at `{log}\0{n:020}` in the logs table, so that a
//! log's entries sort by number and sit together for range reads and deletes. Entries and
//! state carry the guard's expiry like every embedded value, and the sweeper removes them
//! with the rest.

use std::time::Duration;

use redb::{ReadableDatabase, ReadableTable, TableDefinition, WriteTransaction};

use crate::store::{
    Appended, LogAppend, LogState, StoreError,
    embedded::file::db_err,
    embedded::values::{VALUES, bump, encode, live},
};

pub(crate) const LOGS: TableDefinition<&str, &[u8]> = TableDefinition::new("logs");

fn entry_key(log: &str, seq: u64) -> String {
    format!("{log}\0{seq:020}")
}

/// The range of keys every entry of `log` falls in.
fn all_entries(log: &str) -> (String, String) {
    (format!("{log}\0"), format!("{log}\u{1}"))
}

fn encode_state(s: LogState) -> [u8; 24] {
    let mut out = [0; 24];
    out[..8].copy_from_slice(&s.first.to_be_bytes());
    out[8..16].copy_from_slice(&s.last.to_be_bytes());
    out[16..].copy_from_slice(&s.bytes.to_be_bytes());
    out
}

fn decode_state(raw: &[u8]) -> Option<LogState> {
    let n = |i: usize| raw.get(i..i + 8).and_then(|b| b.try_into().ok()).map(u64::from_be_bytes);
    Some(LogState { first: n(0)?, last: n(8)?, bytes: n(16)? })
}

/// The live state of `log` in `values`, with its expiry.
fn state_in(
    values: &impl ReadableTable<&'static str, &'static [u8]>,
    log: &str,
    now: u64,
) -> Result<Option<(LogState, u64)>, StoreError> {
    Ok(values
        .get(log)
        .map_err(db_err)?
        .and_then(|v| live(v.value(), now).and_then(|(exp, p)| decode_state(p).map(|s| (s, exp)))))
}

/// The append itself, inside the writer's transaction.
pub(crate) fn append(tx: &WriteTransaction, a: &OwnedAppend, now: u64) -> Result<Appended, StoreError> {
    let mut values = tx.open_table(VALUES).map_err(db_err)?;
    let guard = values.get(a.guard.as_str()).map_err(db_err)?.and_then(|v| {
        live(v.value(), now)
            .map(|(e, held)| (e, a.guard_is.as_ref().is_some_and(|is| is != held).then(|| held.to_vec())))
    });
    let expires_at = match guard {
        None => return Ok(Appended::NoGuard),
        Some((_, Some(held))) => return Ok(Appended::Changed(held)),
        Some((e, None)) => e,
    };
    if let Some((key, limit, ttl)) = &a.window {
        let (count, counter_expiry) = bump(&mut values, key, now, Some(*ttl))?;
        if count > *limit {
            return Ok(Appended::Limited(Some(Duration::from_millis(counter_expiry.saturating_sub(now)))));
        }
    }
    let state = push(&mut values, tx, &a.log, &a.value, (a.max_entries, a.max_bytes), expires_at, now)?;
    Ok(Appended::Done { seq: state.last, log: state })
}

/// Appends `value` to `log` as its next entry, expiring at `expires_at`, and drops the oldest
/// entries while the log holds more than `max` entries or bytes (the newest always stays).
/// The log's state afterwards.
pub(crate) fn push(
    values: &mut redb::Table<'_, &'static str, &'static [u8]>,
    tx: &WriteTransaction,
    log: &str,
    value: &[u8],
    (max_entries, max_bytes): (usize, usize),
    expires_at: u64,
    now: u64,
) -> Result<LogState, StoreError> {
    let mut state = state_in(values, log, now)?.map_or(LogState::EMPTY, |(s, _)| s);
    let mut logs = tx.open_table(LOGS).map_err(db_err)?;
    let seq = state.last + 1;
    logs.insert(entry_key(log, seq).as_str(), encode(expires_at, value).as_slice()).map_err(db_err)?;
    state.last = seq;
    state.bytes += value.len() as u64;
    // The oldest go first, one at a time: each was paid for by the append that made it, so
    // this costs nothing that grows with the log.
    while state.first < seq && (state.len() > max_entries.max(1) as u64 || state.bytes > max_bytes as u64) {
        if let Some(old) = logs.remove(entry_key(log, state.first).as_str()).map_err(db_err)? {
            let size = old.value().len().saturating_sub(8) as u64;
            state.bytes = state.bytes.saturating_sub(size);
        }
        state.first += 1;
    }
    values.insert(log, encode(expires_at, &encode_state(state)).as_slice()).map_err(db_err)?;
    Ok(state)
}

/// An append with owned data, for the writer thread.
pub(crate) struct OwnedAppend {
    pub guard: String,
    pub log: String,
    pub value: Vec<u8>,
    pub max_entries: usize,
    pub max_bytes: usize,
    pub window: Option<(String, i64, Duration)>,
    pub guard_is: Option<Vec<u8>>,
}

impl From<LogAppend<'_>> for OwnedAppend {
    fn from(a: LogAppend<'_>) -> OwnedAppend {
        OwnedAppend {
            guard: a.guard.to_string(),
            log: a.log.to_string(),
            value: a.value.to_vec(),
            max_entries: a.max_entries,
            max_bytes: a.max_bytes,
            window: a.window.map(|(k, l, t)| (k.to_string(), l, t)),
            guard_is: a.guard_is.map(<[u8]>::to_vec),
        }
    }
}

pub(crate) fn state(db: &redb::Database, log: &str, now: u64) -> Result<LogState, StoreError> {
    let tx = db.begin_read().map_err(db_err)?;
    let values = tx.open_table(VALUES).map_err(db_err)?;
    Ok(state_in(&values, log, now)?.map_or(LogState::EMPTY, |(s, _)| s))
}

pub(crate) fn read(
    db: &redb::Database,
    log: &str,
    from: u64,
    to: u64,
    now: u64,
) -> Result<Vec<(u64, Vec<u8>)>, StoreError> {
    if from > to {
        return Ok(Vec::new());
    }
    let tx = db.begin_read().map_err(db_err)?;
    let logs = tx.open_table(LOGS).map_err(db_err)?;
    let (start, end) = (entry_key(log, from), entry_key(log, to));
    let mut out = Vec::new();
    for item in logs.range(start.as_str()..=end.as_str()).map_err(db_err)? {
        let (k, v) = item.map_err(db_err)?;
        let seq = k.value().rsplit('\0').next().and_then(|n| n.parse().ok());
        if let (Some(seq), Some((_, payload))) = (seq, live(v.value(), now)) {
            out.push((seq, payload.to_vec()));
        }
    }
    Ok(out)
}

/// Removes every entry; the state keeps its numbering and expiry.
pub(crate) fn clear(tx: &WriteTransaction, log: &str, now: u64) -> Result<(), StoreError> {
    let mut values = tx.open_table(VALUES).map_err(db_err)?;
    let Some((state, expires_at)) = state_in(&values, log, now)? else { return Ok(()) };
    remove_entries(tx, log)?;
    let cleared = LogState { first: state.last + 1, last: state.last, bytes: 0 };
    values.insert(log, encode(expires_at, &encode_state(cleared)).as_slice()).map_err(db_err)?;
    Ok(())
}

/// Removes the entries a log holds (its state is the caller's to keep or drop).
pub(crate) fn remove_entries(tx: &WriteTransaction, log: &str) -> Result<(), StoreError> {
    let mut logs = tx.open_table(LOGS).map_err(db_err)?;
    let (start, end) = all_entries(log);
    logs.retain_in(start.as_str()..end.as_str(), |_, _| false).map_err(db_err)
}

/// Replaces a live entry, keeping its expiry; the state's byte count follows.
pub(crate) fn update(tx: &WriteTransaction, log: &str, seq: u64, value: &[u8], now: u64) -> Result<bool, StoreError> {
    let mut values = tx.open_table(VALUES).map_err(db_err)?;
    let Some((mut state, state_expiry)) = state_in(&values, log, now)? else { return Ok(false) };
    let mut logs = tx.open_table(LOGS).map_err(db_err)?;
    let key = entry_key(log, seq);
    let old = logs
        .get(key.as_str())
        .map_err(db_err)?
        .and_then(|v| live(v.value(), now).map(|(exp, p)| (exp, p.len() as u64)));
    let Some((expires_at, old_len)) = old else { return Ok(false) };
    logs.insert(key.as_str(), encode(expires_at, value).as_slice()).map_err(db_err)?;
    state.bytes = (state.bytes + value.len() as u64).saturating_sub(old_len);
    values.insert(log, encode(state_expiry, &encode_state(state)).as_slice()).map_err(db_err)?;
    Ok(true)
}
