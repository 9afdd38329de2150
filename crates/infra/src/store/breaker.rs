//! A circuit breaker in front of a store that lives across the network (Redis).
//!
//! A Redis that is gone answers nothing: each command waits for its timeout (1.5 s) before it
//! fails. Without a breaker every anonymous request (whose rate limit is counted in the store)
//! would wait that long, and a stateful request that touches the store twice would wait twice.
//! The breaker opens on the first failure to answer (a lost connection, a timeout; never a
//! refusal, which is an answer): from then on every call fails at once, and one
//! background probe pings the store every [`PROBE_INTERVAL`] until it answers, which closes
//! the breaker again. Stateless requests keep their normal latency (the limiter lets them
//! through when it cannot count) and stateful ones answer 503 `STORE_UNAVAILABLE` at once.
//!
//! A store that fails in parts (a Redis Cluster, [`Store::partitioned`]) has one breaker per
//! part: a failed call opens the breaker of the primary that serves its key's slot, the probe
//! pings that primary, and calls whose keys other primaries serve go on as before. That is the
//! cluster's own promise: while a primary fails over, only its slots are unavailable. Once a
//! replica has taken over, the client's slot map names the new primary for those slots, whose
//! breaker is closed, so calls go through before the old primary's probe has ended (it ends
//! when the slot map no longer names it).
//!
//! The embedded store is not wrapped: its failures are disk errors of one operation, not an
//! outage to wait out.

use std::{
    collections::HashSet,
    sync::{
        Arc, Mutex,
        atomic::{AtomicUsize, Ordering},
    },
    time::{Duration, SystemTime},
};

use super::{Store, StoreError, StoreFuture};

/// How often the probe pings a store (or a part of one) that has failed.
pub const PROBE_INTERVAL: Duration = Duration::from_millis(500);

/// The part name of the whole store.
const WHOLE: &str = "";

pub struct Breaker {
    inner: Arc<dyn Store>,
    /// The parts known to be unreachable ([`WHOLE`] for the whole store). Whoever opens a
    /// part starts its one probe, and only the probe closes it, so an open part always has
    /// its probe.
    open: Arc<Mutex<HashSet<String>>>,
    /// How many parts are open: calls look at the set only when some are.
    opened: Arc<AtomicUsize>,
}

impl Breaker {
    pub fn new(inner: Arc<dyn Store>) -> Breaker {
        Breaker { inner, open: Arc::new(Mutex::new(HashSet::new())), opened: Arc::new(AtomicUsize::new(0)) }
    }

    /// The parts open now (for tests and logs).
    pub fn open_parts(&self) -> Vec<String> {
        lock(&self.open).iter().cloned().collect()
    }

    /// Passes `call`, which reads or writes `key` (none for a ping), to the store unless the
    /// breaker of the part serving it is open; a failure opens that part's breaker.
    async fn guard<T>(&self, key: Option<&str>, call: StoreFuture<'_, T>) -> Result<T, StoreError> {
        let part = key.and_then(|k| self.inner.part_of(k));
        if self.opened.load(Ordering::Acquire) > 0 {
            let open = lock(&self.open);
            if open.contains(WHOLE) {
                return Err(StoreError::Unavailable(
                    "the store did not answer recently; retrying in the background".into(),
                ));
            }
            if let Some(p) = part.as_deref().filter(|p| open.contains(*p)) {
                return Err(StoreError::Unavailable(format!(
                    "the store's node serving this key ({p}) did not answer recently; retrying in the background"
                )));
            }
        }
        let result = call.await;
        // Only silence opens the breaker. A store that answers "no" (Redis at `maxmemory`, a
        // read-only replica, a script error) is up: the call that met the refusal fails, and
        // every other call, reads above all, goes on.
        if result.as_ref().is_err_and(StoreError::is_outage) {
            match (part, key) {
                (Some(p), _) => self.trip(p),
                // A key whose part is not known yet (a cluster's first slot map) or a store
                // that fails as one.
                (None, Some(_)) => self.trip(WHOLE.to_string()),
                // A ping goes to one node of a cluster: its failure says nothing of the others.
                (None, None) if self.inner.partitioned() => {}
                (None, None) => self.trip(WHOLE.to_string()),
            }
        }
        result
    }

    fn trip(&self, part: String) {
        if !lock(&self.open).insert(part.clone()) {
            return;
        }
        self.opened.fetch_add(1, Ordering::AcqRel);
        let shown = if part == WHOLE { "the whole store" } else { part.as_str() };
        tracing::warn!(
            backend = self.inner.backend(),
            part = shown,
            "store unreachable: failing fast until it answers again"
        );
        // Outside a runtime (never in the server) there is nothing to probe with: stay closed,
        // so the next call tries the store itself.
        let Ok(handle) = tokio::runtime::Handle::try_current() else {
            close(&self.open, &self.opened, &part);
            return;
        };
        let (inner, open, opened) = (self.inner.clone(), self.open.clone(), self.opened.clone());
        handle.spawn(async move {
            loop {
                tokio::time::sleep(PROBE_INTERVAL).await;
                let answered = if part == WHOLE { inner.ping().await } else { inner.ping_part(&part).await };
                if answered.is_ok() {
                    close(&open, &opened, &part);
                    let shown = if part == WHOLE { "the whole store" } else { part.as_str() };
                    tracing::info!(backend = inner.backend(), part = shown, "store answering again");
                    return;
                }
            }
        });
    }
}

/// The set, whatever a panicking holder left in it (it only ever holds whole names).
fn lock(open: &Mutex<HashSet<String>>) -> std::sync::MutexGuard<'_, HashSet<String>> {
    open.lock().unwrap_or_else(|e| e.into_inner())
}

fn close(open: &Mutex<HashSet<String>>, opened: &AtomicUsize, part: &str) {
    if lock(open).remove(part) {
        opened.fetch_sub(1, Ordering::AcqRel);
    }
}

impl Store for Breaker {
    fn get<'a>(&'a self, key: &'a str) -> StoreFuture<'a, Option<Vec<u8>>> {
        Box::pin(self.guard(Some(key), self.inner.get(key)))
    }

    fn put<'a>(&'a self, key: &'a str, value: &'a [u8], ttl: Option<Duration>) -> StoreFuture<'a, ()> {
        Box::pin(self.guard(Some(key), self.inner.put(key, value, ttl)))
    }

    fn put_new<'a>(&'a self, key: &'a str, value: &'a [u8], ttl: Option<Duration>) -> StoreFuture<'a, bool> {
        Box::pin(self.guard(Some(key), self.inner.put_new(key, value, ttl)))
    }

    /// The counters of one call share a hash tag (the contract asks it), so the first key's
    /// part is every key's.
    fn incr_each<'a>(
        &'a self,
        counters: &'a [(&'a str, Option<Duration>)],
    ) -> StoreFuture<'a, Vec<(i64, Option<Duration>)>> {
        Box::pin(self.guard(counters.first().map(|c| c.0), self.inner.incr_each(counters)))
    }

    fn count<'a>(&'a self, key: &'a str) -> StoreFuture<'a, i64> {
        Box::pin(self.guard(Some(key), self.inner.count(key)))
    }

    fn push_capped<'a>(
        &'a self,
        key: &'a str,
        value: &'a [u8],
        cap: usize,
        expires_at: SystemTime,
    ) -> StoreFuture<'a, usize> {
        Box::pin(self.guard(Some(key), self.inner.push_capped(key, value, cap, expires_at)))
    }

    fn list<'a>(&'a self, key: &'a str) -> StoreFuture<'a, Vec<Vec<u8>>> {
        Box::pin(self.guard(Some(key), self.inner.list(key)))
    }

    fn list_len<'a>(&'a self, key: &'a str) -> StoreFuture<'a, usize> {
        Box::pin(self.guard(Some(key), self.inner.list_len(key)))
    }

    fn push_guarded<'a>(&'a self, push: super::GuardedPush<'a>) -> StoreFuture<'a, super::Pushed> {
        let key = push.guard;
        Box::pin(self.guard(Some(key), self.inner.push_guarded(push)))
    }

    fn get_and_count<'a>(&'a self, read: super::CountedRead<'a>) -> StoreFuture<'a, Option<super::Counted>> {
        let key = read.key;
        Box::pin(self.guard(Some(key), self.inner.get_and_count(read)))
    }

    fn record(&self, batch: std::sync::Arc<super::TallyBatch>) -> StoreFuture<'_, bool> {
        Box::pin(async move {
            let guard = batch.guard.clone();
            self.guard(Some(&guard), self.inner.record(batch)).await
        })
    }

    fn tallies<'a>(&'a self, keys: &'a [&'a str]) -> StoreFuture<'a, Vec<Vec<(String, i64)>>> {
        Box::pin(self.guard(keys.first().copied(), self.inner.tallies(keys)))
    }

    fn members<'a>(&'a self, key: &'a str) -> StoreFuture<'a, Vec<String>> {
        Box::pin(self.guard(Some(key), self.inner.members(key)))
    }

    fn take<'a>(&'a self, key: &'a str) -> StoreFuture<'a, Option<super::counted::Taken>> {
        Box::pin(self.guard(Some(key), self.inner.take(key)))
    }

    fn log_append<'a>(&'a self, append: super::LogAppend<'a>) -> StoreFuture<'a, super::Appended> {
        let key = append.guard;
        Box::pin(self.guard(Some(key), self.inner.log_append(append)))
    }

    fn log_state<'a>(&'a self, log: &'a str) -> StoreFuture<'a, super::LogState> {
        Box::pin(self.guard(Some(log), self.inner.log_state(log)))
    }

    fn log_read<'a>(&'a self, log: &'a str, from: u64, to: u64) -> StoreFuture<'a, Vec<(u64, Vec<u8>)>> {
        Box::pin(self.guard(Some(log), self.inner.log_read(log, from, to)))
    }

    fn log_update<'a>(&'a self, log: &'a str, seq: u64, value: &'a [u8]) -> StoreFuture<'a, bool> {
        Box::pin(self.guard(Some(log), self.inner.log_update(log, seq, value)))
    }

    fn log_clear<'a>(&'a self, log: &'a str) -> StoreFuture<'a, ()> {
        Box::pin(self.guard(Some(log), self.inner.log_clear(log)))
    }

    fn delete<'a>(&'a self, keys: &'a [&'a str]) -> StoreFuture<'a, ()> {
        Box::pin(self.guard(keys.first().copied(), self.inner.delete(keys)))
    }

    fn ping(&self) -> StoreFuture<'_, ()> {
        Box::pin(self.guard(None, self.inner.ping()))
    }

    /// Not behind the breaker: a store that answers has room or not whatever the breaker says.
    fn writable(&self) -> StoreFuture<'_, ()> {
        self.inner.writable()
    }

    fn partitioned(&self) -> bool {
        self.inner.partitioned()
    }

    fn part_of(&self, key: &str) -> Option<String> {
        self.inner.part_of(key)
    }

    fn ping_part<'a>(&'a self, part: &'a str) -> StoreFuture<'a, ()> {
        self.inner.ping_part(part)
    }

    fn circuits_open(&self) -> usize {
        self.open_parts().len()
    }

    fn backend(&self) -> &'static str {
        self.inner.backend()
    }
}
