//! The Redis store's client: where each command goes (one Redis, or the primary of its slot
//! on a cluster, `nodes.rs`), what a failed command means (an outage, a full Redis, or a refusal
//! of that command alone), which parts are full, and running a script by hash.

use std::{
    collections::HashSet,
    sync::{Arc, Mutex},
    time::Duration,
};

use fred::{
    prelude::*,
    types::{Expiration, scripts::Script},
};

use super::{
    nodes::{self, Nodes},
    timeouts::{COMMAND_TIMEOUT, CONNECT_TIMEOUT},
};
use crate::store::{CountedRead, Store, StoreError};

pub struct RedisStore {
    pub(super) route: Route,
    prefix: String,
    /// The parts that refused a write for lack of memory ([`WHOLE`] on a single Redis, a
    /// primary's `host:port` on a cluster) since the probe in [`Store::writable`] last found
    /// room there. Only `/health` and `/ready` read it: writes are always sent, so they work
    /// again the moment Redis has room.
    pub(super) full: Mutex<HashSet<String>>,
}

/// The part name of a single Redis.
pub(super) const WHOLE: &str = "";
/// Key of the probe write `writable` makes (with a hash tag chosen per cluster primary).
const ROOM_PROBE: &str = "room-probe";

/// Where commands go.
pub(super) enum Route {
    /// The client of a single Redis (or of a Sentinel-managed one).
    One(Client),
    /// A Redis Cluster: one client per primary, routed by slot (`redis_nodes.rs`).
    Cluster(Arc<Nodes>),
}

/// What a failed command means. Silence (a lost or refused connection, a timeout, a cluster
/// that cannot serve the slot, credentials Redis does not take) is an outage, which opens the
/// breaker. An error reply is Redis's answer: `OOM` says it is at `maxmemory` (no room for
/// this write), anything else (`READONLY`, `BUSY`, `LOADING`, a script error) refuses this
/// command alone, and so does a reply fred cannot read as the type asked for.
pub(super) fn err(e: fred::error::Error) -> StoreError {
    use fred::error::ErrorKind;
    let answered = matches!(
        e.kind(),
        ErrorKind::Unknown
            | ErrorKind::InvalidArgument
            | ErrorKind::InvalidCommand
            | ErrorKind::Parse
            | ErrorKind::NotFound
    );
    if !answered {
        return StoreError::Unavailable(e.to_string());
    }
    if e.details().starts_with("OOM ") {
        return StoreError::Full("Redis is at its memory limit (maxmemory)".into());
    }
    StoreError::Refused(e.to_string())
}

/// A script's answer of a shape its code never gives: Redis answered, so not an outage.
pub(super) fn unexpected(answer: impl std::fmt::Debug) -> StoreError {
    StoreError::Refused(format!("unexpected script answer {answer:?}"))
}

impl RedisStore {
    /// Builds the client and starts connecting in the background. Fails only on a malformed
    /// URL: an unreachable Redis is reported per operation, so the stateless operations start
    /// and keep working regardless.
    pub fn connect(url: &str, prefix: &str) -> Result<RedisStore, String> {
        let mut config = Config::from_url(url).map_err(|e| format!("WRENCH_REDIS_URL: {e}"))?;
        // Keep trying when Redis is down at start-up too, not only after a first success.
        config.fail_fast = false;
        let route = match Nodes::new(&config, build) {
            Some(nodes) => Route::Cluster(nodes),
            None => Route::One(build(config)?),
        };
        Ok(RedisStore { route, prefix: prefix.to_string(), full: Mutex::new(HashSet::new()) })
    }

    pub(super) fn key(&self, key: &str) -> String {
        format!("{}{key}", self.prefix)
    }

    /// Runs `f` with the client that serves `key` (prefixed, as sent). On a cluster, a failure
    /// makes the slot map be asked again soon, and a `MOVED` answer (the map was older than
    /// the cluster's) at once, after which the command is sent once more.
    pub(super) async fn on<T, F, Fut>(&self, key: &str, f: F) -> Result<T, StoreError>
    where
        F: Fn(Client) -> Fut,
        Fut: std::future::Future<Output = Result<T, fred::error::Error>>,
    {
        let nodes = match &self.route {
            Route::One(client) => return f(client.clone()).await.map_err(|e| self.failed(WHOLE, e)),
            Route::Cluster(nodes) => nodes,
        };
        let mut retried = false;
        loop {
            let client = nodes.for_key(key).await?;
            match f(client).await {
                Ok(v) => return Ok(v),
                Err(e) if nodes::moved(&e) && !retried => {
                    retried = true;
                    nodes.refresh().await?;
                }
                Err(e) => {
                    let e = self.failed(&nodes.owner(key).unwrap_or_default(), e);
                    if e.is_outage() {
                        nodes.refresh_soon();
                    }
                    return Err(e);
                }
            }
        }
    }

    /// The meaning of a failed command on `part`, remembering a refusal for lack of memory.
    pub(super) fn failed(&self, part: &str, e: fred::error::Error) -> StoreError {
        let e = err(e);
        if matches!(e, StoreError::Full(_)) && lock(&self.full).insert(part.to_string()) {
            tracing::warn!(
                part = if part.is_empty() { "the whole store" } else { part },
                "Redis refused a write: it is at its memory limit (maxmemory)"
            );
        }
        e
    }

    /// Writes a probe key on `part` that expires at once: whether a write finds room there now.
    pub(super) async fn probe_room(&self, part: &str) -> Result<(), StoreError> {
        let key = match &self.route {
            Route::One(_) => self.key(ROOM_PROBE),
            // A key of a slot this primary serves: the hash tag decides the slot.
            Route::Cluster(nodes) => match (0..100_000)
                .map(|n| self.key(&format!("{ROOM_PROBE}:{{{n}}}")))
                .find(|k| nodes.owner(k).as_deref() == Some(part))
            {
                Some(key) => key,
                // The map no longer names it: it serves nothing, so nothing waits on it.
                None => return Ok(()),
            },
        };
        let k = key.as_str();
        self.on(k, |c| async move { c.set::<(), _, _>(k, 1, Some(Expiration::PX(1000)), None, false).await }).await
    }

    /// Runs `script` on the node of its first key (the keys of one script share a hash tag).
    pub(super) async fn run<R: FromValue>(
        &self,
        script: &Script,
        keys: Vec<String>,
        args: Vec<Value>,
    ) -> Result<R, StoreError> {
        let first = keys.first().cloned().unwrap_or_default();
        self.on(&first, |client| {
            let (keys, args) = (keys.clone(), args.clone());
            async move { script.evalsha_with_reload(&client, keys, args).await }
        })
        .await
    }

    /// A counted read that met a Redis without room to count: the value is read all the same
    /// when the read needs no write to be right (no gate, or a period without a use limit), so
    /// that a full Redis still redirects; the click goes uncounted, as on the embedded store
    /// when a queued count fails. A value with uses left cannot be opened without spending
    /// one, so that read is refused like any write.
    pub(super) async fn get_uncounted(
        &self,
        read: CountedRead<'_>,
        why: String,
    ) -> Result<Option<crate::store::Counted>, StoreError> {
        let Some(stored) = self.get(read.key).await? else { return Ok(None) };
        let (gate, value) = crate::store::gated::split(&stored);
        match gate {
            Some(g) if !g.admits(read.now_ms) => Ok(Some(crate::store::Counted::Closed(value.to_vec()))),
            Some(g) if g.left.is_some() => Err(StoreError::Full(why)),
            _ => {
                crate::metrics::store_full();
                tracing::debug!("a read was answered without its count: Redis is at its memory limit");
                Ok(Some(crate::store::Counted::Open(value.to_vec())))
            }
        }
    }

    /// Waits up to `timeout` for the first connection (for start-up logs and tests); on a
    /// cluster, for the first slot map.
    pub async fn wait_connected(&self, timeout: Duration) -> bool {
        match &self.route {
            Route::One(c) => tokio::time::timeout(timeout, c.wait_for_connect()).await.is_ok_and(|r| r.is_ok()),
            Route::Cluster(nodes) => {
                let deadline = tokio::time::Instant::now() + timeout;
                while tokio::time::Instant::now() < deadline {
                    if nodes.refresh().await.is_ok() {
                        return true;
                    }
                    tokio::time::sleep(Duration::from_millis(100)).await;
                }
                false
            }
        }
    }
}

/// One Redis client with wrench's time limits, started (it connects in the background).
fn build(config: Config) -> Result<Client, String> {
    let client = Builder::from_config(config)
        .with_connection_config(|c| {
            c.connection_timeout = CONNECT_TIMEOUT;
            c.internal_command_timeout = Duration::from_secs(1);
            c.max_command_attempts = 2;
        })
        .with_performance_config(|p| p.default_command_timeout = COMMAND_TIMEOUT)
        .set_policy(ReconnectPolicy::new_constant(0, 500))
        .build()
        .map_err(|e| format!("WRENCH_REDIS_URL: {e}"))?;
    client.connect();
    Ok(client)
}

pub(super) fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

pub(super) fn ttl_ms(ttl: Duration) -> i64 {
    (ttl.as_millis() as i64).max(1)
}
