//! The embedded store: one redb file, no set-up.
//!
//! Each value is stored with its expiry (Unix milliseconds, 0 for never) in front of it, so
//! reads can refuse expired data without waiting for the sweeper, which deletes expired entries
//! in the background every minute. Lists are one value each (short, such as a rate window's
//! keys); logs store each entry on its own (`embedded_log`), and tallies and sets each counter
//! and member (`embedded_tally`). Writes go through one writer thread that commits concurrent
//! writes together, one fsync per batch ([`super::group_commit`]); running them one after
//! another is what makes `put_new`, `incr` and `push_capped` atomic. Reads block, so they run
//! on the blocking pool.

use std::{
    path::Path,
    sync::{Arc, Weak},
    time::{Duration, SystemTime},
};

use redb::{Database, ReadableDatabase, ReadableTable, TableDefinition};

use super::{
    Appended, CountedRead, GuardedPush, LogAppend, LogState, Pushed, Store, StoreError, StoreFuture,
    embedded_log::{self, LOGS},
    embedded_tally::{self, SETS, TALLIES},
    group_commit::Writer,
};
use crate::time::unix_ms;

pub(crate) const VALUES: TableDefinition<&str, &[u8]> = TableDefinition::new("values");
const LISTS: TableDefinition<&str, &[u8]> = TableDefinition::new("lists");
/// File name inside the data directory.
pub const FILE_NAME: &str = "wrench.redb";
/// How often expired entries are deleted.
const SWEEP_EVERY: Duration = Duration::from_secs(60);

pub struct EmbeddedStore {
    db: Arc<Database>,
    writer: Writer,
}

fn now_ms() -> u64 {
    unix_ms(SystemTime::now())
}

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

fn encode_list(items: &[Vec<u8>]) -> Vec<u8> {
    let mut out = Vec::new();
    for item in items {
        out.extend_from_slice(&(item.len() as u32).to_be_bytes());
        out.extend_from_slice(item);
    }
    out
}

fn decode_list(mut raw: &[u8]) -> Vec<Vec<u8>> {
    let mut out = Vec::new();
    while let Some((len, rest)) = raw.split_at_checked(4) {
        let n = u32::from_be_bytes(len.try_into().unwrap_or_default()) as usize;
        let Some((item, rest)) = rest.split_at_checked(n) else { break };
        out.push(item.to_vec());
        raw = rest;
    }
    out
}

impl EmbeddedStore {
    /// Opens (or creates) the store file in `dir` and starts the sweeper.
    pub fn open(dir: &Path) -> Result<EmbeddedStore, StoreError> {
        std::fs::create_dir_all(dir)
            .map_err(|e| StoreError::unavailable(format!("cannot create {}: {e}", dir.display())))?;
        let path = dir.join(FILE_NAME);
        let db = Database::create(&path)
            .map_err(|e| StoreError::unavailable(format!("cannot open {}: {e}", path.display())))?;
        let db = Arc::new(with_tables(db)?);
        if let Ok(handle) = tokio::runtime::Handle::try_current() {
            handle.spawn(sweeper(Arc::downgrade(&db)));
        }
        let writer = Writer::start(db.clone())?;
        Ok(EmbeddedStore { db, writer })
    }

    /// A store that lives in memory only, for tests and throw-away instances.
    pub fn in_memory() -> Result<EmbeddedStore, StoreError> {
        let db = Database::builder()
            .create_with_backend(redb::backends::InMemoryBackend::new())
            .map_err(StoreError::unavailable)?;
        let db = Arc::new(with_tables(db)?);
        let writer = Writer::start(db.clone())?;
        Ok(EmbeddedStore { db, writer })
    }

    async fn blocking<T: Send + 'static>(
        &self,
        f: impl FnOnce(&Database) -> Result<T, StoreError> + Send + 'static,
    ) -> Result<T, StoreError> {
        let db = self.db.clone();
        tokio::task::spawn_blocking(move || f(&db)).await.map_err(StoreError::unavailable)?
    }

    /// Deletes every expired entry now. Returns how many were removed.
    pub fn sweep(&self) -> Result<usize, StoreError> {
        sweep(&self.db)
    }
}

/// A value as stored now, or `None` when it is absent or expired.
fn read_value(db: &Database, key: &str) -> Result<Option<Vec<u8>>, StoreError> {
    let tx = db.begin_read().map_err(StoreError::unavailable)?;
    let table = tx.open_table(VALUES).map_err(StoreError::unavailable)?;
    let value = table.get(key).map_err(StoreError::unavailable)?;
    Ok(value.and_then(|v| live(v.value(), now_ms()).map(|(_, p)| p.to_vec())))
}

/// Creates the tables if they are missing, so that reads never meet an absent table.
fn with_tables(db: Database) -> Result<Database, StoreError> {
    let tx = db.begin_write().map_err(StoreError::unavailable)?;
    tx.open_table(VALUES).map_err(StoreError::unavailable)?;
    tx.open_table(LISTS).map_err(StoreError::unavailable)?;
    tx.open_table(LOGS).map_err(StoreError::unavailable)?;
    tx.open_table(TALLIES).map_err(StoreError::unavailable)?;
    tx.open_table(SETS).map_err(StoreError::unavailable)?;
    tx.commit().map_err(StoreError::unavailable)?;
    Ok(db)
}

fn sweep(db: &Database) -> Result<usize, StoreError> {
    let now = now_ms();
    let tx = db.begin_write().map_err(StoreError::unavailable)?;
    let mut removed = 0;
    for def in [VALUES, LISTS, LOGS] {
        let mut table = tx.open_table(def).map_err(StoreError::unavailable)?;
        table
            .retain(|_, v| {
                let keep = live(v, now).is_some();
                removed += usize::from(!keep);
                keep
            })
            .map_err(StoreError::unavailable)?;
    }
    removed += embedded_tally::sweep(&tx, now)?;
    tx.commit().map_err(StoreError::unavailable)?;
    Ok(removed)
}

async fn sweeper(db: Weak<Database>) {
    loop {
        tokio::time::sleep(SWEEP_EVERY).await;
        let Some(db) = db.upgrade() else { return };
        match tokio::task::spawn_blocking(move || sweep(&db)).await {
            Ok(Ok(n)) if n > 0 => tracing::debug!(removed = n, "expired entries swept"),
            Ok(Err(e)) => tracing::warn!(error = %e, "sweeping expired entries failed"),
            _ => {}
        }
    }
}

type Table<'t> = redb::Table<'t, &'static str, &'static [u8]>;

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
        .map_err(StoreError::unavailable)?
        .and_then(|v| live(v.value(), now).map(|(exp, p)| (i64::from_be_bytes(p.try_into().unwrap_or_default()), exp)));
    let (count, expires_at) = match current {
        Some((n, exp)) => (n + 1, exp),
        None => (1, expiry_from(now, ttl)),
    };
    values.insert(key, encode(expires_at, &count.to_be_bytes()).as_slice()).map_err(StoreError::unavailable)?;
    Ok((count, expires_at))
}

/// Puts `value` in front of the list at `key` in `lists`, keeps the `cap` newest entries and
/// sets the list's expiry. The list's length afterwards.
fn push_front(
    lists: &mut Table<'_>,
    key: &str,
    value: Vec<u8>,
    cap: usize,
    expires_at: u64,
    now: u64,
) -> Result<usize, StoreError> {
    let mut items = lists
        .get(key)
        .map_err(StoreError::unavailable)?
        .and_then(|v| live(v.value(), now).map(|(_, p)| decode_list(p)))
        .unwrap_or_default();
    items.insert(0, value);
    items.truncate(cap);
    lists.insert(key, encode(expires_at, &encode_list(&items)).as_slice()).map_err(StoreError::unavailable)?;
    Ok(items.len())
}

/// The expiry instant for `ttl` from `now` (0: never). Callers that also report time left
/// pass the same `now`, so the two agree to the millisecond.
fn expiry_from(now: u64, ttl: Option<Duration>) -> u64 {
    ttl.map_or(0, |t| now + (t.as_millis() as u64).max(1))
}

fn expiry(ttl: Option<Duration>) -> u64 {
    expiry_from(now_ms(), ttl)
}

impl Store for EmbeddedStore {
    fn get<'a>(&'a self, key: &'a str) -> StoreFuture<'a, Option<Vec<u8>>> {
        let key = key.to_string();
        Box::pin(self.blocking(move |db| read_value(db, &key)))
    }

    fn put<'a>(&'a self, key: &'a str, value: &'a [u8], ttl: Option<Duration>) -> StoreFuture<'a, ()> {
        let (key, value) = (key.to_string(), encode(expiry(ttl), value));
        Box::pin(self.writer.write(true, move |tx| {
            tx.open_table(VALUES)
                .map_err(StoreError::unavailable)?
                .insert(key.as_str(), value.as_slice())
                .map_err(StoreError::unavailable)?;
            Ok(())
        }))
    }

    fn put_new<'a>(&'a self, key: &'a str, value: &'a [u8], ttl: Option<Duration>) -> StoreFuture<'a, bool> {
        let (key, value) = (key.to_string(), encode(expiry(ttl), value));
        Box::pin(self.writer.write(true, move |tx| {
            let mut table = tx.open_table(VALUES).map_err(StoreError::unavailable)?;
            let taken = table
                .get(key.as_str())
                .map_err(StoreError::unavailable)?
                .is_some_and(|v| live(v.value(), now_ms()).is_some());
            if !taken {
                table.insert(key.as_str(), value.as_slice()).map_err(StoreError::unavailable)?;
            }
            Ok(!taken)
        }))
    }

    fn incr_each<'a>(
        &'a self,
        counters: &'a [(&'a str, Option<Duration>)],
    ) -> StoreFuture<'a, Vec<(i64, Option<Duration>)>> {
        let counters: Vec<(String, Option<Duration>)> = counters.iter().map(|(k, t)| (k.to_string(), *t)).collect();
        // Rate windows (counters with a TTL) need no fsync of their own: a crash may lose the
        // last counts, never anything a client was told.
        let durable = counters.iter().any(|(_, ttl)| ttl.is_none());
        Box::pin(self.writer.write(durable, move |tx| {
            let now = now_ms();
            let mut values = tx.open_table(VALUES).map_err(StoreError::unavailable)?;
            let mut counted = Vec::with_capacity(counters.len());
            for (key, ttl) in &counters {
                let (count, expires_at) = bump(&mut values, key, now, *ttl)?;
                counted.push((count, (expires_at != 0).then(|| Duration::from_millis(expires_at.saturating_sub(now)))));
            }
            Ok(counted)
        }))
    }

    fn count<'a>(&'a self, key: &'a str) -> StoreFuture<'a, i64> {
        Box::pin(async move {
            Ok(self.get(key).await?.and_then(|p| <[u8; 8]>::try_from(p.as_slice()).ok()).map_or(0, i64::from_be_bytes))
        })
    }

    fn push_capped<'a>(
        &'a self,
        key: &'a str,
        value: &'a [u8],
        cap: usize,
        expires_at: SystemTime,
    ) -> StoreFuture<'a, usize> {
        let (key, value, expires_at) = (key.to_string(), value.to_vec(), unix_ms(expires_at).max(1));
        Box::pin(self.writer.write(true, move |tx| {
            push_front(
                &mut tx.open_table(LISTS).map_err(StoreError::unavailable)?,
                &key,
                value,
                cap,
                expires_at,
                now_ms(),
            )
        }))
    }

    fn list<'a>(&'a self, key: &'a str) -> StoreFuture<'a, Vec<Vec<u8>>> {
        let key = key.to_string();
        Box::pin(self.blocking(move |db| {
            let tx = db.begin_read().map_err(StoreError::unavailable)?;
            let table = tx.open_table(LISTS).map_err(StoreError::unavailable)?;
            let value = table.get(key.as_str()).map_err(StoreError::unavailable)?;
            Ok(value.and_then(|v| live(v.value(), now_ms()).map(|(_, p)| decode_list(p))).unwrap_or_default())
        }))
    }

    fn list_len<'a>(&'a self, key: &'a str) -> StoreFuture<'a, usize> {
        Box::pin(async move { Ok(self.list(key).await?.len()) })
    }

    fn push_guarded<'a>(&'a self, push: GuardedPush<'a>) -> StoreFuture<'a, Pushed> {
        let (guard, list, value, cap) = (push.guard.to_string(), push.list.to_string(), push.value.to_vec(), push.cap);
        let window = push.window.map(|(k, limit, ttl)| (k.to_string(), limit, ttl));
        Box::pin(self.writer.write(true, move |tx| {
            let now = now_ms();
            let mut values = tx.open_table(VALUES).map_err(StoreError::unavailable)?;
            let guard_expiry = values
                .get(guard.as_str())
                .map_err(StoreError::unavailable)?
                .and_then(|v| live(v.value(), now).map(|(e, _)| e));
            let Some(expires_at) = guard_expiry else { return Ok(Pushed::NoGuard) };
            if let Some((key, limit, ttl)) = window {
                let (count, counter_expiry) = bump(&mut values, &key, now, Some(ttl))?;
                if count > limit {
                    return Ok(Pushed::Limited(Some(Duration::from_millis(counter_expiry.saturating_sub(now)))));
                }
            }
            drop(values);
            let len = push_front(
                &mut tx.open_table(LISTS).map_err(StoreError::unavailable)?,
                &list,
                value,
                cap.max(1),
                expires_at,
                now,
            )?;
            Ok(Pushed::Done(len))
        }))
    }

    fn get_and_count<'a>(&'a self, read: CountedRead<'a>) -> StoreFuture<'a, Option<super::Counted>> {
        use super::{Counted, gated};
        let (stamp_key, stamp, counter) = (read.stamp_key.to_string(), encode(0, read.stamp), read.counter.to_string());
        Box::pin(async move {
            // Read on the calling thread, not the blocking pool: a counted read is a short
            // link's redirect, whose value is a few hundred bytes in pages the store's cache
            // holds once read, so the read takes microseconds, less than handing it to another
            // thread and back (BENCHMARKS.md, "Fourth round": 14% of a redirect's CPU went to
            // that hand-off). Values that can be large (pastes) are still read on the pool.
            let Some(found) = read_value(&self.db, read.key)? else { return Ok(None) };
            let (gate, value) = gated::split(&found);
            match gate {
                Some(g) if !g.admits(read.now_ms) => return Ok(Some(Counted::Closed(value.to_vec()))),
                // A limited gate is spent in one write with the count, which reads the value
                // again (a concurrent reader may have spent the last use since) and waits for
                // its fsync: the use is the answer's.
                Some(g) if g.left.is_some() => {
                    let key = read.key.to_string();
                    let now = read.now_ms;
                    return self
                        .writer
                        .write(true, move |tx| {
                            let mut values = tx.open_table(VALUES).map_err(StoreError::unavailable)?;
                            let current = match values.get(key.as_str()).map_err(StoreError::unavailable)? {
                                Some(v) => live(v.value(), now_ms()).map(|(exp, p)| (exp, p.to_vec())),
                                None => None,
                            };
                            let Some((expires_at, stored)) = current else { return Ok(None) };
                            let (gate, value) = gated::split(&stored);
                            let value = value.to_vec();
                            if gate.is_some_and(|g| !g.admits(now)) {
                                return Ok(Some(Counted::Closed(value)));
                            }
                            if let Some(spent) = gated::spend(&stored) {
                                let again = encode(expires_at, &spent);
                                values.insert(key.as_str(), again.as_slice()).map_err(StoreError::unavailable)?;
                            }
                            values.insert(stamp_key.as_str(), stamp.as_slice()).map_err(StoreError::unavailable)?;
                            bump(&mut values, &counter, now_ms(), None)?;
                            Ok(Some(Counted::Open(value)))
                        })
                        .await;
                }
                _ => {}
            }
            // The count is queued, not awaited: the redirect does not wait for an fsync, and
            // the writer keeps the stamp-then-count order.
            let key = read.key.to_string();
            self.writer
                .submit(true, move |tx| {
                    let mut values = tx.open_table(VALUES).map_err(StoreError::unavailable)?;
                    // Removed since it was read: a deleted value counts nothing more.
                    let gone = values
                        .get(key.as_str())
                        .map_err(StoreError::unavailable)?
                        .is_none_or(|v| live(v.value(), now_ms()).is_none());
                    if gone {
                        return Ok(());
                    }
                    values.insert(stamp_key.as_str(), stamp.as_slice()).map_err(StoreError::unavailable)?;
                    bump(&mut values, &counter, now_ms(), None)?;
                    Ok(())
                })
                .await;
            Ok(Some(Counted::Open(value.to_vec())))
        })
    }

    fn record(&self, batch: Arc<super::TallyBatch>) -> StoreFuture<'_, bool> {
        Box::pin(self.writer.write(true, move |tx| embedded_tally::record(tx, &batch, now_ms())))
    }

    fn tallies<'a>(&'a self, keys: &'a [&'a str]) -> StoreFuture<'a, Vec<Vec<(String, i64)>>> {
        let keys: Vec<String> = keys.iter().map(|k| k.to_string()).collect();
        Box::pin(self.blocking(move |db| embedded_tally::read(db, &keys)))
    }

    fn members<'a>(&'a self, key: &'a str) -> StoreFuture<'a, Vec<String>> {
        let key = key.to_string();
        Box::pin(self.blocking(move |db| embedded_tally::members(db, &key, now_ms())))
    }

    fn take<'a>(&'a self, key: &'a str) -> StoreFuture<'a, Option<super::counted::Taken>> {
        use super::counted::{self, Taken};
        Box::pin(async move {
            // Most values have no count: a read, without a write or an fsync.
            let Some(found) = self.get(key).await? else { return Ok(None) };
            if counted::split(&found).0.is_none() {
                return Ok(Some(Taken { value: found, left: None }));
            }
            // The count is spent in one write, which reads the value again: a concurrent
            // reader may have spent the last read since.
            let key = key.to_string();
            self.writer
                .write(true, move |tx| {
                    let mut values = tx.open_table(VALUES).map_err(StoreError::unavailable)?;
                    let now = now_ms();
                    let (expires_at, stored) = match values.get(key.as_str()).map_err(StoreError::unavailable)? {
                        Some(v) => match live(v.value(), now) {
                            Some((expires_at, payload)) => (expires_at, payload.to_vec()),
                            None => return Ok(None),
                        },
                        None => return Ok(None),
                    };
                    let (reads, value) = counted::split(&stored);
                    let Some(reads) = reads else { return Ok(Some(Taken { value: value.to_vec(), left: None })) };
                    let left = reads.saturating_sub(1);
                    if left == 0 {
                        values.remove(key.as_str()).map_err(StoreError::unavailable)?;
                    } else {
                        let again = encode(expires_at, &counted::counted(left, value));
                        values.insert(key.as_str(), again.as_slice()).map_err(StoreError::unavailable)?;
                    }
                    Ok(Some(Taken { value: value.to_vec(), left: Some(left) }))
                })
                .await
        })
    }

    fn log_append<'a>(&'a self, append: LogAppend<'a>) -> StoreFuture<'a, Appended> {
        let append = embedded_log::OwnedAppend::from(append);
        Box::pin(self.writer.write(true, move |tx| embedded_log::append(tx, &append, now_ms())))
    }

    fn log_state<'a>(&'a self, log: &'a str) -> StoreFuture<'a, LogState> {
        let log = log.to_string();
        Box::pin(self.blocking(move |db| embedded_log::state(db, &log, now_ms())))
    }

    fn log_read<'a>(&'a self, log: &'a str, from: u64, to: u64) -> StoreFuture<'a, Vec<(u64, Vec<u8>)>> {
        let log = log.to_string();
        Box::pin(self.blocking(move |db| embedded_log::read(db, &log, from, to, now_ms())))
    }

    fn log_update<'a>(&'a self, log: &'a str, seq: u64, value: &'a [u8]) -> StoreFuture<'a, bool> {
        let (log, value) = (log.to_string(), value.to_vec());
        Box::pin(self.writer.write(true, move |tx| embedded_log::update(tx, &log, seq, &value, now_ms())))
    }

    fn log_clear<'a>(&'a self, log: &'a str) -> StoreFuture<'a, ()> {
        let log = log.to_string();
        Box::pin(self.writer.write(true, move |tx| embedded_log::clear(tx, &log, now_ms())))
    }

    fn delete<'a>(&'a self, keys: &'a [&'a str]) -> StoreFuture<'a, ()> {
        let keys: Vec<String> = keys.iter().map(|k| k.to_string()).collect();
        Box::pin(self.writer.write(true, move |tx| {
            for key in &keys {
                for def in [VALUES, LISTS] {
                    tx.open_table(def)
                        .map_err(StoreError::unavailable)?
                        .remove(key.as_str())
                        .map_err(StoreError::unavailable)?;
                }
                embedded_log::remove_entries(tx, key)?;
                embedded_tally::remove(tx, key)?;
            }
            Ok(())
        }))
    }

    fn ping(&self) -> StoreFuture<'_, ()> {
        Box::pin(self.blocking(|db| db.begin_read().map(|_| ()).map_err(StoreError::unavailable)))
    }

    fn backend(&self) -> &'static str {
        "embedded"
    }
}
