//! A circuit breaker in front of a store that lives across the network (Redis).
//!
//! A Redis that is gone answers nothing: each command waits for its timeout (1.5 s) before it
//! fails. Without a breaker every anonymous request (whose rate limit is counted in the store)
//! would wait that long, and a stateful request that touches the store twice would wait twice.
//! The breaker opens on the first failure: from then on every call fails at once, and one
//! background probe pings the store every [`PROBE_INTERVAL`] until it answers, which closes
//! the breaker again. Stateless requests keep their normal latency (the limiter lets them
//! through when it cannot count) and stateful ones answer 503 `STORE_UNAVAILABLE` at once.
//!
//! The embedded store is not wrapped: its failures are disk errors of one operation, not an
//! outage to wait out.

use std::{
    sync::{
        Arc,
        atomic::{AtomicBool, Ordering},
    },
    time::{Duration, SystemTime},
};

use super::{Store, StoreError, StoreFuture};

/// How often the probe pings a store that has failed.
pub const PROBE_INTERVAL: Duration = Duration::from_millis(500);

pub struct Breaker {
    inner: Arc<dyn Store>,
    state: Arc<State>,
}

struct State {
    /// True while the store is known to be unreachable.
    open: AtomicBool,
    /// True while a probe task runs (at most one).
    probing: AtomicBool,
}

impl Breaker {
    pub fn new(inner: Arc<dyn Store>) -> Breaker {
        Breaker { inner, state: Arc::new(State { open: AtomicBool::new(false), probing: AtomicBool::new(false) }) }
    }

    /// Whether calls currently fail without reaching the store.
    pub fn is_open(&self) -> bool {
        self.state.open.load(Ordering::Acquire)
    }

    fn refused<T>(&self) -> Result<T, StoreError> {
        Err(StoreError::Unavailable("the store did not answer recently; retrying in the background".into()))
    }

    /// Passes `call` to the store unless the breaker is open; a failure opens it.
    async fn guard<T>(&self, call: StoreFuture<'_, T>) -> Result<T, StoreError> {
        if self.is_open() {
            return self.refused();
        }
        let result = call.await;
        if result.is_err() {
            self.trip();
        }
        result
    }

    fn trip(&self) {
        if !self.state.open.swap(true, Ordering::AcqRel) {
            tracing::warn!(backend = self.inner.backend(), "store unreachable: failing fast until it answers again");
        }
        if self.state.probing.swap(true, Ordering::AcqRel) {
            return;
        }
        let (inner, state) = (self.inner.clone(), self.state.clone());
        // Outside a runtime (never in the server) there is nothing to probe with; the next call
        // after a success closes the breaker instead.
        let Ok(handle) = tokio::runtime::Handle::try_current() else {
            state.open.store(false, Ordering::Release);
            state.probing.store(false, Ordering::Release);
            return;
        };
        handle.spawn(async move {
            loop {
                tokio::time::sleep(PROBE_INTERVAL).await;
                if inner.ping().await.is_ok() {
                    state.open.store(false, Ordering::Release);
                    state.probing.store(false, Ordering::Release);
                    tracing::info!(backend = inner.backend(), "store answering again");
                    return;
                }
            }
        });
    }
}

impl Store for Breaker {
    fn get<'a>(&'a self, key: &'a str) -> StoreFuture<'a, Option<Vec<u8>>> {
        Box::pin(self.guard(self.inner.get(key)))
    }

    fn put<'a>(&'a self, key: &'a str, value: &'a [u8], ttl: Option<Duration>) -> StoreFuture<'a, ()> {
        Box::pin(self.guard(self.inner.put(key, value, ttl)))
    }

    fn put_new<'a>(&'a self, key: &'a str, value: &'a [u8], ttl: Option<Duration>) -> StoreFuture<'a, bool> {
        Box::pin(self.guard(self.inner.put_new(key, value, ttl)))
    }

    fn incr<'a>(&'a self, key: &'a str, ttl: Option<Duration>) -> StoreFuture<'a, (i64, Option<Duration>)> {
        Box::pin(self.guard(self.inner.incr(key, ttl)))
    }

    fn count<'a>(&'a self, key: &'a str) -> StoreFuture<'a, i64> {
        Box::pin(self.guard(self.inner.count(key)))
    }

    fn push_capped<'a>(
        &'a self,
        key: &'a str,
        value: &'a [u8],
        cap: usize,
        expires_at: SystemTime,
    ) -> StoreFuture<'a, usize> {
        Box::pin(self.guard(self.inner.push_capped(key, value, cap, expires_at)))
    }

    fn list<'a>(&'a self, key: &'a str) -> StoreFuture<'a, Vec<Vec<u8>>> {
        Box::pin(self.guard(self.inner.list(key)))
    }

    fn list_len<'a>(&'a self, key: &'a str) -> StoreFuture<'a, usize> {
        Box::pin(self.guard(self.inner.list_len(key)))
    }

    fn ping(&self) -> StoreFuture<'_, ()> {
        Box::pin(self.guard(self.inner.ping()))
    }

    fn backend(&self) -> &'static str {
        self.inner.backend()
    }
}
