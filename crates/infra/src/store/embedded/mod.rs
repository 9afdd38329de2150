//! The embedded store: one redb file, no set-up.
//!
//! Each value is stored with its expiry (Unix milliseconds, 0 for never) in front of it, so
//! reads can refuse expired data without waiting for the sweeper, which deletes expired entries
//! in the background every minute. Lists are one value each (short, such as a rate window's
//! keys); logs store each entry on its own (`log.rs`), and tallies and sets each counter
//! and member (`tally.rs`). Writes go through one writer thread that commits concurrent
//! writes together, one fsync per batch (`group_commit.rs`); running them one after
//! another is what makes `put_new`, `incr` and `push_capped` atomic. Reads block, so they run
//! on the blocking pool.

use std::{
    path::Path,
    sync::{Arc, Weak},
    time::{Duration, SystemTime},
};

use redb::{Database, ReadableDatabase, ReadableTable, TableDefinition, WriteTransaction};

use crate::store::{
    Appended, CountedRead, GuardedPush, LogAppend, LogState, Pushed, Store, StoreError, StoreFuture,
    embedded::file::{StoreFile, db_err},
    embedded::group_commit::Writer,
    embedded::log::LOGS,
    embedded::room::Room,
    embedded::tally::{SETS, TALLIES},
    embedded::values::{Table, VALUES, bump, encode, expiry_from, live},
};
use crate::time::unix_ms;

pub mod file;
pub mod group_commit;
mod log;
pub mod room;
mod tally;
mod values;

const LISTS: TableDefinition<&str, &[u8]> = TableDefinition::new("lists");
/// File name inside the data directory.
pub const FILE_NAME: &str = "wrench.redb";
/// How often expired entries are deleted.
const SWEEP_EVERY: Duration = Duration::from_secs(60);
/// The key of `writable`'s probe write: no feature's key starts with a zero byte.
const ROOM_PROBE: &str = "\0room-probe";
/// The page cache of a store in memory (tests): the file's is a setting.
const MEMORY_CACHE: usize = 16 << 20;

pub struct EmbeddedStore {
    inner: Arc<Inner>,
}

/// What the store and its sweeper share; the sweeper holds it weakly, so dropping the store
/// closes the file.
struct Inner {
    file: Arc<StoreFile>,
    writer: Writer,
}

fn now_ms() -> u64 {
    unix_ms(SystemTime::now())
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
    /// Opens (or creates) the store file in `dir`, with a page cache of at most `cache` bytes,
    /// and starts the sweeper.
    pub fn open(dir: &Path, cache: usize) -> Result<EmbeddedStore, StoreError> {
        std::fs::create_dir_all(dir)
            .map_err(|e| StoreError::Unavailable(format!("cannot create {}: {e}", dir.display())))?;
        let store = EmbeddedStore::start(StoreFile::open(&dir.join(FILE_NAME), cache)?)?;
        if let Ok(handle) = tokio::runtime::Handle::try_current() {
            handle.spawn(sweeper(Arc::downgrade(&store.inner)));
        }
        Ok(store)
    }

    /// A store that lives in memory only, for tests and throw-away instances.
    pub fn in_memory() -> Result<EmbeddedStore, StoreError> {
        EmbeddedStore::start(StoreFile::in_memory(MEMORY_CACHE)?)
    }

    /// A store on `file` (opened by the caller, as tests open one on storage that fails on
    /// command), without a sweeper.
    pub fn with_file(file: StoreFile) -> Result<EmbeddedStore, StoreError> {
        EmbeddedStore::start(file)
    }

    /// The store's file handle.
    pub fn file(&self) -> &StoreFile {
        &self.inner.file
    }

    fn start(file: StoreFile) -> Result<EmbeddedStore, StoreError> {
        let file = Arc::new(file);
        with_tables(&*file.current()?)?;
        let writer = Writer::start(file.clone())?;
        Ok(EmbeddedStore { inner: Arc::new(Inner { file, writer }) })
    }

    fn writer(&self) -> &Writer {
        &self.inner.writer
    }

    async fn blocking<T: Send + 'static>(
        &self,
        f: impl FnOnce(&Database) -> Result<T, StoreError> + Send + 'static,
    ) -> Result<T, StoreError> {
        let file = self.inner.file.clone();
        tokio::task::spawn_blocking(move || f(&*file.current()?))
            .await
            .map_err(|e| StoreError::Unavailable(e.to_string()))?
    }

    /// Deletes every expired entry now. Returns how many were removed.
    pub async fn sweep(&self) -> Result<usize, StoreError> {
        self.writer().write(Room::Frees, true, |tx| sweep(tx, now_ms())).await
    }
}

/// A value as stored now, or `None` when it is absent or expired.
fn read_value(db: &Database, key: &str) -> Result<Option<Vec<u8>>, StoreError> {
    let tx = db.begin_read().map_err(db_err)?;
    let table = tx.open_table(VALUES).map_err(db_err)?;
    let value = table.get(key).map_err(db_err)?;
    Ok(value.and_then(|v| live(v.value(), now_ms()).map(|(_, p)| p.to_vec())))
}

/// Creates the tables if they are missing, so that reads never meet an absent table.
fn with_tables(db: &Database) -> Result<(), StoreError> {
    let tx = db.begin_write().map_err(db_err)?;
    tx.open_table(VALUES).map_err(db_err)?;
    tx.open_table(LISTS).map_err(db_err)?;
    tx.open_table(LOGS).map_err(db_err)?;
    tx.open_table(TALLIES).map_err(db_err)?;
    tx.open_table(SETS).map_err(db_err)?;
    tx.commit().map_err(db_err)
}

/// Deletes the expired entries of every table, in the writer's transaction (so that every
/// write, this one included, goes through the one writer that keeps the file usable).
fn sweep(tx: &WriteTransaction, now: u64) -> Result<usize, StoreError> {
    let mut removed = 0;
    for def in [VALUES, LISTS, LOGS] {
        let mut table = tx.open_table(def).map_err(db_err)?;
        table
            .retain(|_, v| {
                let keep = live(v, now).is_some();
                removed += usize::from(!keep);
                keep
            })
            .map_err(db_err)?;
    }
    removed += tally::sweep(tx, now)?;
    Ok(removed)
}

async fn sweeper(inner: Weak<Inner>) {
    loop {
        tokio::time::sleep(SWEEP_EVERY).await;
        let Some(inner) = inner.upgrade() else { return };
        match inner.writer.write(Room::Frees, true, |tx| sweep(tx, now_ms())).await {
            Ok(n) if n > 0 => tracing::debug!(removed = n, "expired entries swept"),
            Err(e) => tracing::warn!(error = %e, "sweeping expired entries failed"),
            _ => {}
        }
    }
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
        .map_err(db_err)?
        .and_then(|v| live(v.value(), now).map(|(_, p)| decode_list(p)))
        .unwrap_or_default();
    items.insert(0, value);
    items.truncate(cap);
    lists.insert(key, encode(expires_at, &encode_list(&items)).as_slice()).map_err(db_err)?;
    Ok(items.len())
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
        let room = Room::Grows(key.len() + value.len());
        Box::pin(self.writer().write(room, true, move |tx| {
            tx.open_table(VALUES).map_err(db_err)?.insert(key.as_str(), value.as_slice()).map_err(db_err)?;
            Ok(())
        }))
    }

    fn put_new<'a>(&'a self, key: &'a str, value: &'a [u8], ttl: Option<Duration>) -> StoreFuture<'a, bool> {
        let (key, value) = (key.to_string(), encode(expiry(ttl), value));
        let room = Room::Grows(key.len() + value.len());
        Box::pin(self.writer().write(room, true, move |tx| {
            let mut table = tx.open_table(VALUES).map_err(db_err)?;
            let taken = table.get(key.as_str()).map_err(db_err)?.is_some_and(|v| live(v.value(), now_ms()).is_some());
            if !taken {
                table.insert(key.as_str(), value.as_slice()).map_err(db_err)?;
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
        Box::pin(self.writer().write(Room::Keeps, durable, move |tx| {
            let now = now_ms();
            let mut values = tx.open_table(VALUES).map_err(db_err)?;
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
        let room = Room::Grows(key.len() + value.len());
        Box::pin(self.writer().write(room, true, move |tx| {
            push_front(&mut tx.open_table(LISTS).map_err(db_err)?, &key, value, cap, expires_at, now_ms())
        }))
    }

    fn list<'a>(&'a self, key: &'a str) -> StoreFuture<'a, Vec<Vec<u8>>> {
        let key = key.to_string();
        Box::pin(self.blocking(move |db| {
            let tx = db.begin_read().map_err(db_err)?;
            let table = tx.open_table(LISTS).map_err(db_err)?;
            let value = table.get(key.as_str()).map_err(db_err)?;
            Ok(value.and_then(|v| live(v.value(), now_ms()).map(|(_, p)| decode_list(p))).unwrap_or_default())
        }))
    }

    fn list_len<'a>(&'a self, key: &'a str) -> StoreFuture<'a, usize> {
        Box::pin(async move { Ok(self.list(key).await?.len()) })
    }

    fn push_guarded<'a>(&'a self, push: GuardedPush<'a>) -> StoreFuture<'a, Pushed> {
        let (guard, list, value, cap) = (push.guard.to_string(), push.list.to_string(), push.value.to_vec(), push.cap);
        let window = push.window.map(|(k, limit, ttl)| (k.to_string(), limit, ttl));
        let room = Room::Grows(list.len() + value.len());
        Box::pin(self.writer().write(room, true, move |tx| {
            let now = now_ms();
            let mut values = tx.open_table(VALUES).map_err(db_err)?;
            let guard_expiry =
                values.get(guard.as_str()).map_err(db_err)?.and_then(|v| live(v.value(), now).map(|(e, _)| e));
            let Some(expires_at) = guard_expiry else { return Ok(Pushed::NoGuard) };
            if let Some((key, limit, ttl)) = window {
                let (count, counter_expiry) = bump(&mut values, &key, now, Some(ttl))?;
                if count > limit {
                    return Ok(Pushed::Limited(Some(Duration::from_millis(counter_expiry.saturating_sub(now)))));
                }
            }
            drop(values);
            let len =
                push_front(&mut tx.open_table(LISTS).map_err(db_err)?, &list, value, cap.max(1), expires_at, now)?;
            Ok(Pushed::Done(len))
        }))
    }

    fn get_and_count<'a>(&'a self, read: CountedRead<'a>) -> StoreFuture<'a, Option<crate::store::Counted>> {
        use crate::store::{Counted, gated};
        let (stamp_key, stamp, counter) = (read.stamp_key.to_string(), encode(0, read.stamp), read.counter.to_string());
        Box::pin(async move {
            // Read on the calling thread, not the blocking pool: a counted read is a short
            // link's redirect, whose value is a few hundred bytes in pages the store's cache
            // holds once read, so the read takes microseconds, less than handing it to another
            // thread and back (BENCHMARKS.md, "Fourth round": 14% of a redirect's CPU went to
            // that hand-off). Values that can be large (pastes) are still read on the pool.
            let found = match self.inner.file.try_current() {
                Some(db) => read_value(&db, read.key)?,
                // The file is being opened again: wait for it on the pool, not here.
                None => {
                    let key = read.key.to_string();
                    self.blocking(move |db| read_value(db, &key)).await?
                }
            };
            let Some(found) = found else { return Ok(None) };
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
                        .writer()
                        .write(Room::Keeps, true, move |tx| {
                            let mut values = tx.open_table(VALUES).map_err(db_err)?;
                            let current = match values.get(key.as_str()).map_err(db_err)? {
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
                                values.insert(key.as_str(), again.as_slice()).map_err(db_err)?;
                            }
                            values.insert(stamp_key.as_str(), stamp.as_slice()).map_err(db_err)?;
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
            self.writer()
                .submit(Room::Keeps, true, move |tx| {
                    let mut values = tx.open_table(VALUES).map_err(db_err)?;
                    // Removed since it was read: a deleted value counts nothing more.
                    let gone =
                        values.get(key.as_str()).map_err(db_err)?.is_none_or(|v| live(v.value(), now_ms()).is_none());
                    if gone {
                        return Ok(());
                    }
                    values.insert(stamp_key.as_str(), stamp.as_slice()).map_err(db_err)?;
                    bump(&mut values, &counter, now_ms(), None)?;
                    Ok(())
                })
                .await;
            Ok(Some(Counted::Open(value.to_vec())))
        })
    }

    fn record(&self, batch: Arc<crate::store::TallyBatch>) -> StoreFuture<'_, bool> {
        let room = Room::Grows(batch.bytes());
        Box::pin(self.writer().write(room, true, move |tx| tally::record(tx, &batch, now_ms())))
    }

    fn tallies<'a>(&'a self, keys: &'a [&'a str]) -> StoreFuture<'a, Vec<Vec<(String, i64)>>> {
        let keys: Vec<String> = keys.iter().map(|k| k.to_string()).collect();
        Box::pin(self.blocking(move |db| tally::read(db, &keys)))
    }

    fn members<'a>(&'a self, key: &'a str) -> StoreFuture<'a, Vec<String>> {
        let key = key.to_string();
        Box::pin(self.blocking(move |db| tally::members(db, &key, now_ms())))
    }

    fn take<'a>(&'a self, key: &'a str) -> StoreFuture<'a, Option<crate::store::counted::Taken>> {
        use crate::store::counted::{self, Taken};
        Box::pin(async move {
            // Most values have no count: a read, without a write or an fsync.
            let Some(found) = self.get(key).await? else { return Ok(None) };
            if counted::split(&found).0.is_none() {
                return Ok(Some(Taken { value: found, left: None }));
            }
            // The count is spent in one write, which reads the value again: a concurrent
            // reader may have spent the last read since.
            let key = key.to_string();
            self.writer()
                .write(Room::Keeps, true, move |tx| {
                    let mut values = tx.open_table(VALUES).map_err(db_err)?;
                    let now = now_ms();
                    let (expires_at, stored) = match values.get(key.as_str()).map_err(db_err)? {
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
                        values.remove(key.as_str()).map_err(db_err)?;
                    } else {
                        let again = encode(expires_at, &counted::counted(left, value));
                        values.insert(key.as_str(), again.as_slice()).map_err(db_err)?;
                    }
                    Ok(Some(Taken { value: value.to_vec(), left: Some(left) }))
                })
                .await
        })
    }

    fn log_append<'a>(&'a self, append: LogAppend<'a>) -> StoreFuture<'a, Appended> {
        let room = Room::Grows(append.log.len() + append.value.len());
        let append = log::OwnedAppend::from(append);
        Box::pin(self.writer().write(room, true, move |tx| log::append(tx, &append, now_ms())))
    }

    fn log_state<'a>(&'a self, log: &'a str) -> StoreFuture<'a, LogState> {
        let log = log.to_string();
        Box::pin(self.blocking(move |db| log::state(db, &log, now_ms())))
    }

    fn log_read<'a>(&'a self, log: &'a str, from: u64, to: u64) -> StoreFuture<'a, Vec<(u64, Vec<u8>)>> {
        let log = log.to_string();
        Box::pin(self.blocking(move |db| log::read(db, &log, from, to, now_ms())))
    }

    fn log_update<'a>(&'a self, log: &'a str, seq: u64, value: &'a [u8]) -> StoreFuture<'a, bool> {
        let (log, value) = (log.to_string(), value.to_vec());
        let room = Room::Grows(log.len() + value.len());
        Box::pin(self.writer().write(room, true, move |tx| log::update(tx, &log, seq, &value, now_ms())))
    }

    fn log_clear<'a>(&'a self, log: &'a str) -> StoreFuture<'a, ()> {
        let log = log.to_string();
        Box::pin(self.writer().write(Room::Frees, true, move |tx| log::clear(tx, &log, now_ms())))
    }

    fn delete<'a>(&'a self, keys: &'a [&'a str]) -> StoreFuture<'a, ()> {
        let keys: Vec<String> = keys.iter().map(|k| k.to_string()).collect();
        Box::pin(self.writer().write(Room::Frees, true, move |tx| {
            for key in &keys {
                for def in [VALUES, LISTS] {
                    tx.open_table(def).map_err(db_err)?.remove(key.as_str()).map_err(db_err)?;
                }
                log::remove_entries(tx, key)?;
                tally::remove(tx, key)?;
            }
            Ok(())
        }))
    }

    fn ping(&self) -> StoreFuture<'_, ()> {
        let file = self.inner.file.clone();
        Box::pin(async move {
            tokio::task::spawn_blocking(move || file.ping())
                .await
                .map_err(|e| StoreError::Unavailable(e.to_string()))?
        })
    }

    /// The disk's room, read now; below the reserve, a probe write when one is due (a write of
    /// nothing that expires at once), which finds room the file itself has.
    fn writable(&self) -> StoreFuture<'_, ()> {
        let file = self.inner.file.clone();
        Box::pin(async move {
            let room = tokio::task::spawn_blocking(move || file.writable())
                .await
                .map_err(|e| StoreError::Unavailable(e.to_string()))?;
            match room {
                Err(StoreError::Full(_)) => self.put(ROOM_PROBE, b"", Some(Duration::from_secs(1))).await,
                other => other,
            }
        })
    }

    fn backend(&self) -> &'static str {
        "embedded"
    }
}
