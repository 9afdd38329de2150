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
    /// True while the store is known to be unreachable. Whoever opens the breaker starts the
    /// one probe, and only the probe closes it, so an open breaker always has its probe.
    open: Arc<AtomicBool>,
}

impl Breaker {
    pub fn new(inner: Arc<dyn Store>) -> Breaker {
        Breaker { inner, open: Arc::new(AtomicBool::new(false)) }
    }

    /// Passes `call` to the store unless the breaker is open; a failure opens it.
    async fn guard<T>(&self, call: StoreFuture<'_, T>) -> Result<T, StoreError> {
        if self.open.load(Ordering::Acquire) {
            return Err(StoreError::Unavailable(
                "the store did not answer recently; retrying in the background".into(),
            ));
        }
        let result = call.await;
        if result.is_err() {
            self.trip();
        }
        result
    }

    fn trip(&self) {
        if self.open.swap(true, Ordering::AcqRel) {
            return;
        }
        tracing::warn!(backend = self.inner.backend(), "store unreachable: failing fast until it answers again");
        crate::metrics::circuit(true);
        // Outside a runtime (never in the server) there is nothing to probe with: stay closed,
        // so the next call tries the store itself.
        let Ok(handle) = tokio::runtime::Handle::try_current() else {
            self.open.store(false, Ordering::Release);
            crate::metrics::circuit(false);
            return;
        };
        let (inner, open) = (self.inner.clone(), self.open.clone());
        handle.spawn(async move {
            loop {
                tokio::time::sleep(PROBE_INTERVAL).await;
                if inner.ping().await.is_ok() {
                    open.store(false, Ordering::Release);
                    crate::metrics::circuit(false);
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

    fn incr_each<'a>(
        &'a self,
        counters: &'a [(&'a str, Option<Duration>)],
    ) -> StoreFuture<'a, Vec<(i64, Option<Duration>)>> {
        Box::pin(self.guard(self.inner.incr_each(counters)))
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

    fn push_guarded<'a>(&'a self, push: super::GuardedPush<'a>) -> StoreFuture<'a, super::Pushed> {
        Box::pin(self.guard(self.inner.push_guarded(push)))
    }

    fn get_and_count<'a>(&'a self, read: super::CountedRead<'a>) -> StoreFuture<'a, Option<Vec<u8>>> {
        Box::pin(self.guard(self.inner.get_and_count(read)))
    }

    fn ping(&self) -> StoreFuture<'_, ()> {
        Box::pin(self.guard(self.inner.ping()))
    }

    fn backend(&self) -> &'static str {
        self.inner.backend()
    }
}
