//! Where the stateful features keep their data: the `Store` trait and its two backends.
//!
//! The trait has exactly the operations webhook inboxes, pastes, short links and rate limits
//! need, each atomic on its own: a value with an optional TTL, a value written only if absent
//! (id and slug reservation), a counter that gets its TTL when created and never extends it
//! (rate windows, clicks), and a capped list with an absolute expiry (inbox payloads). Two
//! more do a hot path's whole conditional work at once, so it costs one round trip on Redis
//! and one queued write on the embedded store: a guarded, counted push, and a read that counts
//! (a short link's redirect). A log is a numbered sequence whose entries are stored one by one
//! (a webhook inbox's deliveries), trimmed by count and bytes, read by number range. A tally is
//! a map of named counters (a short link's visits by hour, referrer, country...), with a set
//! of distinct members and a log of recent entries beside it, written a batch at a time
//! (the short links' visit queue, a service of the storage operations, sums a redirect's
//! visits off its request path). Their keys share a hash
//! tag (`{id}`), so they stay on one cluster slot. Expired data is never returned, whatever
//! the backend.
//!
//! - `embedded` (default): a redb file under the data directory. Nothing acknowledged is lost
//!   across a restart; only counters with a TTL (rate windows) are written without waiting for
//!   the disk, because losing a minute's count on a crash costs nothing. Concurrent writes
//!   share one fsync ([`group_commit`]).
//! - `redis` (`WRENCH_REDIS_URL`): fred, single node or cluster. An operation is one command,
//!   or one Lua script whose keys share a hash slot. Commands time out (1.5 s) rather than
//!   wait for a Redis that is gone, and the client reconnects by itself. A circuit breaker
//!   (`breaker`) in front of it makes every call after a failure fail at once until a
//!   background probe sees Redis answer again.
//!
//! A failure says which of three it is ([`StoreError`]): the store did not answer (503
//! `STORE_UNAVAILABLE`; on Redis the breaker opens), it answered and refused this call (503
//! for this call alone), or it has no room for a write (507 `STORE_FULL`, for that write
//! alone: reads go on, and writes resume by themselves once there is room). The store knows
//! nothing of HTTP or of the features' record shapes.

pub mod breaker;
pub mod counted;
pub mod embedded;
pub mod gated;
pub mod redis;

use std::{
    future::Future,
    pin::Pin,
    time::{Duration, SystemTime},
};

use crate::envelope::{ApiError, ErrorCode};

/// Why a store call failed. The three differ in what they cost the rest of the service.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StoreError {
    /// The store did not answer: the connection is gone, the call timed out, the file could
    /// not be read. On Redis this opens the circuit breaker (`breaker`) until a probe sees the
    /// store again. Answered 503 `STORE_UNAVAILABLE`.
    Unavailable(String),
    /// The store answered and refused this call (a read-only replica, a busy script, a reply
    /// of an unexpected shape). An answer, not an outage: this request fails and nothing
    /// else does. Answered 503 `STORE_UNAVAILABLE`.
    Refused(String),
    /// No room for the write: the embedded store's disk is full, or Redis is at `maxmemory`.
    /// The write did not happen; reads go on, and writes resume by themselves once there is
    /// room. The text is safe to show a client (it names no path or host). Answered 507
    /// `STORE_FULL` with `Retry-After`.
    Full(String),
}

impl std::fmt::Display for StoreError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            StoreError::Unavailable(why) => write!(f, "store unavailable: {why}"),
            StoreError::Refused(why) => write!(f, "store refused the call: {why}"),
            StoreError::Full(why) => write!(f, "store full: {why}"),
        }
    }
}

impl std::error::Error for StoreError {}

impl StoreError {
    /// Whether the failure says the store is out of reach (and not that it answered no).
    pub fn is_outage(&self) -> bool {
        matches!(self, StoreError::Unavailable(_))
    }
}

/// Seconds a client is asked to wait before retrying a write refused for lack of room: the
/// embedded store checks its disk before every write and Redis is asked every time, so a
/// write made after this finds the room that was freed meanwhile.
pub const FULL_RETRY_AFTER: u64 = 5;

/// Whether a warning of a kind last given at `last` (Unix seconds) may be given now: at most
/// one every ten seconds, for failures that every request meets while they last (a full
/// store, say), which the metrics count one by one.
pub fn warn_now(last: &std::sync::atomic::AtomicU64) -> bool {
    use std::sync::atomic::Ordering::Relaxed;
    let (now, before) = (crate::time::unix_secs(), last.load(Relaxed));
    now >= before + 10 && last.compare_exchange(before, now, Relaxed, Relaxed).is_ok()
}

impl From<StoreError> for ApiError {
    fn from(e: StoreError) -> ApiError {
        // The detail of an outage can name hosts or paths; it is logged, and the client gets
        // the gist. A refusal for lack of room says so in words written for clients.
        crate::metrics::store_error();
        match e {
            StoreError::Full(why) => {
                static WARNED: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
                if warn_now(&WARNED) {
                    tracing::warn!(reason = %why, "store writes refused: no room (said at most every 10 s; wrench_store_full_total counts them)");
                }
                crate::metrics::store_full();
                ApiError::new(
                    ErrorCode::StoreFull,
                    format!("the data store has no room for this write ({why}); reads still work, and writes resume once room is made"),
                )
                .with_retry_after(FULL_RETRY_AFTER)
            }
            StoreError::Refused(_) => {
                tracing::warn!(error = %e, "store call refused");
                ApiError::new(ErrorCode::StoreUnavailable, "the data store refused the request; try again shortly")
            }
            StoreError::Unavailable(_) => {
                tracing::warn!(error = %e, "store operation failed");
                ApiError::new(ErrorCode::StoreUnavailable, "the data store is not answering; try again shortly")
            }
        }
    }
}

pub type StoreFuture<'a, T> = Pin<Box<dyn Future<Output = Result<T, StoreError>> + Send + 'a>>;

/// The operations the stateful features need. Keys are plain strings chosen by the features;
/// each backend adds its own namespace prefix.
pub trait Store: Send + Sync {
    /// The value at `key`, or `None` when absent or expired.
    fn get<'a>(&'a self, key: &'a str) -> StoreFuture<'a, Option<Vec<u8>>>;

    /// Writes `value` at `key`, replacing what was there, expiring after `ttl` if given.
    fn put<'a>(&'a self, key: &'a str, value: &'a [u8], ttl: Option<Duration>) -> StoreFuture<'a, ()>;

    /// Writes `value` only if `key` holds no live value. True when written.
    fn put_new<'a>(&'a self, key: &'a str, value: &'a [u8], ttl: Option<Duration>) -> StoreFuture<'a, bool>;

    /// Adds one to the counter at `key` (a missing or expired counter counts from zero). A new
    /// counter gets `ttl`; an existing one keeps its expiry. Returns the new value and the time
    /// left before it expires (`None` for a counter without TTL).
    fn incr<'a>(&'a self, key: &'a str, ttl: Option<Duration>) -> StoreFuture<'a, (i64, Option<Duration>)> {
        Box::pin(async move {
            let counted = self.incr_each(&[(key, ttl)]).await?;
            counted.first().copied().ok_or_else(|| StoreError::Unavailable("no count returned".into()))
        })
    }

    /// [`Store::incr`] on each of `counters` (key, TTL for a new counter) in one step: a rate
    /// limit's minute and day windows in one round trip. On Redis their keys share a hash tag,
    /// so a cluster counts them on one node. Returns each counter's value and time left, in
    /// order.
    fn incr_each<'a>(
        &'a self,
        counters: &'a [(&'a str, Option<Duration>)],
    ) -> StoreFuture<'a, Vec<(i64, Option<Duration>)>>;

    /// The current value of the counter at `key` (0 when absent or expired).
    fn count<'a>(&'a self, key: &'a str) -> StoreFuture<'a, i64>;

    /// Pushes `value` in front of the list at `key`, keeps the `cap` newest entries and makes
    /// the list expire at `expires_at`. Returns the list's length afterwards.
    fn push_capped<'a>(
        &'a self,
        key: &'a str,
        value: &'a [u8],
        cap: usize,
        expires_at: SystemTime,
    ) -> StoreFuture<'a, usize>;

    /// The list at `key`, newest first (empty when absent or expired).
    fn list<'a>(&'a self, key: &'a str) -> StoreFuture<'a, Vec<Vec<u8>>>;

    /// Length of the list at `key` (0 when absent or expired).
    fn list_len<'a>(&'a self, key: &'a str) -> StoreFuture<'a, usize>;

    /// Pushes `push.value` in front of the list `push.list` only while `push.guard` holds a
    /// live value, keeping the `cap` newest entries; the list expires when the guard does.
    /// With `push.window`, the push first counts one in that counter (created with the
    /// window's TTL) and is refused once the count passes the limit.
    fn push_guarded<'a>(&'a self, push: GuardedPush<'a>) -> StoreFuture<'a, Pushed>;

    /// The value at `read.key`; when there is one, also writes `read.stamp` at
    /// `read.stamp_key` and adds one to the counter `read.counter` (neither expires), stamp
    /// first: a reader that sees the count also sees the stamp. A value behind a gate
    /// ([`gated`]) is counted only while its gate admits `read.now_ms`, spending one of its
    /// uses in the same step; otherwise nothing is written and the answer is [`Counted::Closed`].
    /// The value is answered without its gate.
    fn get_and_count<'a>(&'a self, read: CountedRead<'a>) -> StoreFuture<'a, Option<Counted>>;

    /// Records a batch of visits of one owner on one tally ([`TallyBatch`]) in one step, while
    /// `batch.guard` holds a live value; false (and nothing written) when it does not, so that
    /// a deleted owner gets no late tally. The batch's keys share a hash tag.
    fn record(&self, batch: std::sync::Arc<TallyBatch>) -> StoreFuture<'_, bool>;

    /// The counters of each tally in `keys` (name and count, in no particular order; none for
    /// a tally never written), in the order of `keys`. The keys of one call share a hash tag.
    fn tallies<'a>(&'a self, keys: &'a [&'a str]) -> StoreFuture<'a, Vec<Vec<(String, i64)>>>;

    /// The members of the set at `key` (empty when absent).
    fn members<'a>(&'a self, key: &'a str) -> StoreFuture<'a, Vec<String>>;

    /// The value at `key`, spending one read of a value written with a count
    /// ([`counted::counted`]): the read that spends the last removes it, in the same step, so
    /// that of any number of concurrent readers exactly as many succeed as there were reads
    /// left. A value without a count is read as [`Store::get`] reads it. `None` when absent or
    /// expired.
    fn take<'a>(&'a self, key: &'a str) -> StoreFuture<'a, Option<counted::Taken>>;

    /// Appends `append.value` to the log `append.log` while `append.guard` holds a live value
    /// (the value `append.guard_is`, when given), counted first in `append.window` as
    /// [`Store::push_guarded`] counts. Each entry is stored
    /// on its own under the next sequence number (from 1, never reused), so an append costs the
    /// same however much the log holds. Once the log holds more than `max_entries` entries or
    /// `max_bytes` bytes, the oldest go (the newest always stays). The log expires with its
    /// guard.
    fn log_append<'a>(&'a self, append: LogAppend<'a>) -> StoreFuture<'a, Appended>;

    /// Where the log stands: its first and last live sequence numbers and the bytes its entries
    /// hold (first 1, last 0 for a log never written or gone).
    fn log_state<'a>(&'a self, log: &'a str) -> StoreFuture<'a, LogState>;

    /// The entries numbered `from..=to` that the log still holds, oldest first.
    fn log_read<'a>(&'a self, log: &'a str, from: u64, to: u64) -> StoreFuture<'a, Vec<(u64, Vec<u8>)>>;

    /// Replaces entry `seq` of the log with `value` if the log still holds it (a delivery's
    /// forwarding outcome, recorded after it was stored). True when replaced.
    fn log_update<'a>(&'a self, log: &'a str, seq: u64, value: &'a [u8]) -> StoreFuture<'a, bool>;

    /// Removes every entry of the log; numbering goes on from where it was, so that a reader
    /// that remembers a number never sees it again.
    fn log_clear<'a>(&'a self, log: &'a str) -> StoreFuture<'a, ()>;

    /// Removes what each key holds, whatever it is (value, counter, list, log, tally or set).
    fn delete<'a>(&'a self, keys: &'a [&'a str]) -> StoreFuture<'a, ()>;

    /// Checks the backend answers.
    fn ping(&self) -> StoreFuture<'_, ()>;

    /// Whether a write would find room now: `Ok`, or [`StoreError::Full`] saying why not (the
    /// disk is full, Redis is at `maxmemory`). For `/health` and `/ready`, which report a full
    /// store as reachable and not writable; writes themselves never wait for this.
    fn writable(&self) -> StoreFuture<'_, ()> {
        Box::pin(async { Ok(()) })
    }

    /// Whether the store fails in parts (a Redis Cluster: one primary may be down while the
    /// others serve their slots), so that a failure is scoped to [`Store::part_of`] the key.
    fn partitioned(&self) -> bool {
        false
    }

    /// The part of the store that serves `key` (on a Redis Cluster, the primary of the key's
    /// slot, `host:port`); `None` when the store fails as one, or does not know yet.
    fn part_of(&self, _key: &str) -> Option<String> {
        None
    }

    /// Pings the part [`Store::part_of`] named. `Ok` too when that part serves nothing any more
    /// (a primary a replica replaced): no call waits on it.
    fn ping_part<'a>(&'a self, _part: &'a str) -> StoreFuture<'a, ()> {
        self.ping()
    }

    /// How many circuit breakers are open in front of this store (parts of a cluster, or the
    /// whole store): the `wrench_store_circuit_open` gauge, read from the store each server
    /// holds rather than counted process-wide.
    fn circuits_open(&self) -> usize {
        0
    }

    /// `embedded` or `redis`, for logs and health.
    fn backend(&self) -> &'static str;
}

/// A push that happens only while its guard exists, counted in a window if given.
#[derive(Debug, Clone, Copy)]
pub struct GuardedPush<'a> {
    pub guard: &'a str,
    pub list: &'a str,
    pub value: &'a [u8],
    pub cap: usize,
    /// Counter key, limit and TTL of a new counter.
    pub window: Option<(&'a str, i64, Duration)>,
}

/// A read that, when it finds a value, stamps and counts (a short link and its clicks).
#[derive(Debug, Clone, Copy)]
pub struct CountedRead<'a> {
    pub key: &'a str,
    pub stamp_key: &'a str,
    pub stamp: &'a [u8],
    pub counter: &'a str,
    /// The instant a gate is checked at (Unix milliseconds).
    pub now_ms: u64,
}

/// Visits of one owner (a short link) on one of its tallies (a day), summed, as
/// [`Store::record`] writes them: named counters in a tally that never expires, members of an
/// expiring set of distinct visitors, and entries of a log that keeps the newest.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TallyBatch {
    /// The batch is recorded only while this key holds a live value (the link).
    pub guard: String,
    /// The tally the counters live in (a short link's day).
    pub key: String,
    /// Counters and what to add to each, in the order they were first seen. A name
    /// `group:value` is one of its group's values: a tally holds at most `per_group` values of
    /// a group, and counts a further value as `group:` (the group's other values). Names do not
    /// start with `#`, which the tally keeps for its own bookkeeping.
    pub add: Vec<(String, u64)>,
    pub per_group: usize,
    /// A set that `key` is added to, so that every tally of one owner can be found and deleted.
    pub index: String,
    /// Members of a set of distinct members (a day's visitors), each with the counters that
    /// get one more when the member is new there.
    pub distinct: Option<DistinctBatch>,
    /// Entries appended, in order, to a log that keeps its newest `keep` entries (numbered as
    /// [`Store::log_append`] numbers them; the log never expires).
    pub log: Option<LogBatch>,
}

impl TallyBatch {
    /// About how many bytes the batch adds to a store (its counters' names, members and log
    /// entries), for the embedded store's room check.
    pub fn bytes(&self) -> usize {
        let names: usize = self.add.iter().map(|(n, _)| n.len() + 16).sum();
        let members: usize = self.distinct.iter().flat_map(|d| &d.members).map(|(m, _)| m.len() + 16).sum();
        let entries: usize = self.log.iter().flat_map(|l| &l.entries).map(|e| e.len() + 32).sum();
        self.key.len() + names + members + entries
    }
}

/// The members a batch adds to a set of distinct members. A member is remembered for `ttl` at
/// least, counted from the set's first member.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct DistinctBatch {
    pub set: String,
    pub ttl: Duration,
    /// Each member (once) and the counters a new member adds one to.
    pub members: Vec<(String, Vec<String>)>,
}

/// Entries a batch appends to a log.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LogBatch {
    pub log: String,
    pub entries: Vec<Vec<u8>>,
    pub keep: usize,
}

/// What a counted read found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Counted {
    /// Counted (and a use of its gate spent, if it has a limit).
    Open(Vec<u8>),
    /// Behind a gate that is closed now, or has no uses left: nothing was counted.
    Closed(Vec<u8>),
}

/// What became of a guarded push.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Pushed {
    /// The guard holds no live value: nothing was counted or pushed.
    NoGuard,
    /// The window's limit is passed: nothing was pushed. The counter's time left.
    Limited(Option<Duration>),
    /// Pushed; the list's length afterwards.
    Done(usize),
}

/// An entry for a guarded log (a webhook delivery), counted in a window if given.
#[derive(Debug, Clone, Copy)]
pub struct LogAppend<'a> {
    pub guard: &'a str,
    pub log: &'a str,
    pub value: &'a [u8],
    /// Most entries kept.
    pub max_entries: usize,
    /// Most bytes of entries kept.
    pub max_bytes: usize,
    /// Counter key, limit and TTL of a new counter.
    pub window: Option<(&'a str, i64, Duration)>,
    /// When given, the append happens only while the guard holds exactly these bytes (the
    /// inbox record a caller read earlier and decided with); otherwise [`Appended::Changed`].
    pub guard_is: Option<&'a [u8]>,
}

/// What became of an append.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Appended {
    /// The guard holds no live value: nothing was counted or appended.
    NoGuard,
    /// The window's limit is passed: nothing was appended. The counter's time left.
    Limited(Option<Duration>),
    /// Appended under `seq`; the log afterwards.
    Done { seq: u64, log: LogState },
    /// The guard holds other bytes than `guard_is` (the record changed since it was read):
    /// nothing was counted or appended. What it holds now.
    Changed(Vec<u8>),
}

/// A log's live range and size.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LogState {
    pub first: u64,
    pub last: u64,
    pub bytes: u64,
}

impl LogState {
    pub const EMPTY: LogState = LogState { first: 1, last: 0, bytes: 0 };

    pub fn len(&self) -> u64 {
        (self.last + 1).saturating_sub(self.first)
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// Opens the configured backend: Redis when `WRENCH_REDIS_URL` is set, else the embedded file.
pub fn open(config: &crate::config::Config) -> Result<std::sync::Arc<dyn Store>, String> {
    match &config.redis_url {
        Some(url) => {
            let redis = std::sync::Arc::new(redis::RedisStore::connect(url, &config.redis_prefix)?);
            Ok(std::sync::Arc::new(breaker::Breaker::new(redis)))
        }
        None => embedded::EmbeddedStore::open(&config.data_dir, config.store_cache)
            .map(|s| std::sync::Arc::new(s) as std::sync::Arc<dyn Store>)
            .map_err(|e| format!("WRENCH_DATA_DIR ({}): {e}", config.data_dir.display())),
    }
}
