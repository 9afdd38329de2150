//! Commands to a Redis Cluster, one client per primary, routed by wrench itself.
//!
//! fred's clustered client is one router for the whole cluster: when one primary stops, it
//! reconnects to every node and refuses to go on until it reaches them all, so every command,
//! on every slot, waits until the cluster has failed over (seconds). Redis Cluster promises
//! that only the stopped primary's slots are unavailable meanwhile, and this module keeps that
//! promise: the slot map comes from `CLUSTER SLOTS` (asked of every known node at once, the
//! first answer wins), each primary has a client of its own (a plain fred client, which
//! reconnects to its node alone), and a command goes to the client of its key's slot. A
//! failed command makes the map be asked again soon, and the map is asked every
//! [`REFRESH_EVERY`] anyway, so a replica that took over is found within about a second of
//! the cluster's own switch. A `MOVED` answer (a map older than the cluster's) makes the map
//! be asked at once and the command be sent once more.
//!
//! Not done here: `ASK` redirections during a slot migration (reshardings are operator work
//! done while the service is told to wait, and such a command fails with 503 like any other
//! store failure), and reading from replicas.

use std::{
    collections::HashMap,
    sync::{Arc, Mutex, RwLock, Weak},
    time::{Duration, Instant},
};

use fred::{
    prelude::*,
    types::config::{Config, ServerConfig},
};
use futures_util::future::select_ok;

use super::timeouts::COMMAND_TIMEOUT;
use crate::store::StoreError;

/// How often the slot map is asked for when nothing failed.
pub const REFRESH_EVERY: Duration = Duration::from_secs(5);
/// The least time between two refreshes asked for by failures.
const REFRESH_AT_MOST_EVERY: Duration = Duration::from_millis(200);

/// Slots `start..=end` served by the primary `node` (`host:port`).
#[derive(Debug, Clone)]
struct Owner {
    start: u16,
    end: u16,
    node: String,
}

pub struct Nodes {
    /// The settings of one node's client (auth, TLS, database): the URL's, made centralized.
    template: Config,
    /// The nodes the URL names: asked for the map when none of the map's answers.
    seeds: Vec<(String, u16)>,
    map: RwLock<Arc<Vec<Owner>>>,
    clients: Mutex<HashMap<String, Client>>,
    /// Refreshes run one at a time; a caller that finds one running waits for it.
    refreshing: tokio::sync::Mutex<Option<Instant>>,
    build: fn(Config) -> Result<Client, String>,
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

impl Nodes {
    /// The router for a clustered configuration (`redis-cluster://`); `None` for any other.
    /// `build` makes (and starts) one node's client from its settings. Starts the periodic
    /// refresh on the current runtime, if any.
    pub fn new(config: &Config, build: fn(Config) -> Result<Client, String>) -> Option<Arc<Nodes>> {
        let ServerConfig::Clustered { hosts, .. } = &config.server else { return None };
        let seeds = hosts.iter().map(|s| (s.host.to_string(), s.port)).collect();
        let nodes = Arc::new(Nodes {
            template: config.clone(),
            seeds,
            map: RwLock::new(Arc::new(Vec::new())),
            clients: Mutex::new(HashMap::new()),
            refreshing: tokio::sync::Mutex::new(None),
            build,
        });
        if let Ok(handle) = tokio::runtime::Handle::try_current() {
            let weak: Weak<Nodes> = Arc::downgrade(&nodes);
            handle.spawn(async move {
                loop {
                    let Some(nodes) = weak.upgrade() else { return };
                    if let Err(e) = nodes.refresh().await {
                        tracing::debug!(error = %e, "the Redis Cluster's slot map could not be read");
                    }
                    drop(nodes);
                    tokio::time::sleep(REFRESH_EVERY).await;
                }
            });
        }
        Some(nodes)
    }

    fn current(&self) -> Arc<Vec<Owner>> {
        self.map.read().unwrap_or_else(|e| e.into_inner()).clone()
    }

    /// The primary serving `key` (the full key, prefix included), per the last map.
    pub fn owner(&self, key: &str) -> Option<String> {
        let slot = fred::util::redis_keyslot(key.as_bytes());
        self.current().iter().find(|o| o.start <= slot && slot <= o.end).map(|o| o.node.clone())
    }

    /// Whether the last map names `node` as a primary.
    pub fn serves(&self, node: &str) -> bool {
        self.current().iter().any(|o| o.node == node)
    }

    /// The client of `node`, made and started on first use.
    pub fn client(&self, node: &str) -> Result<Client, StoreError> {
        if let Some(c) = lock(&self.clients).get(node) {
            return Ok(c.clone());
        }
        let (host, port) = node
            .rsplit_once(':')
            .and_then(|(h, p)| Some((h.to_string(), p.parse::<u16>().ok()?)))
            .ok_or_else(|| StoreError::Unavailable(format!("the cluster named a node {node:?} without a port")))?;
        let mut config = self.template.clone();
        config.server = ServerConfig::Centralized { server: Server::new(host, port) };
        let client = (self.build)(config).map_err(StoreError::Unavailable)?;
        Ok(lock(&self.clients).entry(node.to_string()).or_insert(client).clone())
    }

    /// The client for `key` (the full key), asking for the map first when there is none yet.
    pub async fn for_key(&self, key: &str) -> Result<Client, StoreError> {
        if self.current().is_empty() {
            self.refresh().await?;
        }
        let node = self
            .owner(key)
            .ok_or_else(|| StoreError::Unavailable("the Redis Cluster's slot map has no node for this key".into()))?;
        self.client(&node)
    }

    /// Asks every known node for the slot map at once and keeps the first answer.
    pub async fn refresh(&self) -> Result<(), StoreError> {
        let mut last = self.refreshing.lock().await;
        // Another caller refreshed while this one waited: that map is new enough.
        if last.is_some_and(|at| at.elapsed() < REFRESH_AT_MOST_EVERY) {
            return Ok(());
        }
        let mut known: Vec<String> = self.current().iter().map(|o| o.node.clone()).collect();
        for (h, p) in &self.seeds {
            known.push(format!("{h}:{p}"));
        }
        known.sort();
        known.dedup();
        let asks = known.iter().filter_map(|node| {
            let client = self.client(node).ok()?;
            let host = node.rsplit_once(':').map_or(node.as_str(), |(h, _)| h).to_string();
            Some(Box::pin(async move {
                let reply: Value = tokio::time::timeout(COMMAND_TIMEOUT, client.cluster_slots())
                    .await
                    .map_err(|_| "timed out".to_string())?
                    .map_err(|e| e.to_string())?;
                parse_slots(reply, &host)
            }))
        });
        let (map, _) = select_ok(asks)
            .await
            .map_err(|e| StoreError::Unavailable(format!("no node of the Redis Cluster gave its slot map: {e}")))?;
        *self.map.write().unwrap_or_else(|e| e.into_inner()) = Arc::new(map);
        *last = Some(Instant::now());
        Ok(())
    }

    /// A refresh in the background, after a failure.
    pub fn refresh_soon(self: &Arc<Self>) {
        let me = self.clone();
        tokio::spawn(async move {
            if let Err(e) = me.refresh().await {
                tracing::debug!(error = %e, "the Redis Cluster's slot map could not be read");
            }
        });
    }
}

/// `CLUSTER SLOTS`: `[[start, end, [host, port, id, ...], replicas...], ...]`. An empty host
/// means the node that answered (`asked`).
fn parse_slots(reply: Value, asked: &str) -> Result<Vec<Owner>, String> {
    let mut out = Vec::new();
    for entry in reply.into_array() {
        let parts = entry.into_array();
        let (Some(start), Some(end), Some(primary)) =
            (parts.first().and_then(Value::as_u64), parts.get(1).and_then(Value::as_u64), parts.get(2))
        else {
            return Err("a CLUSTER SLOTS entry without start, end and primary".into());
        };
        let primary = primary.clone().into_array();
        let host = primary.first().and_then(|h| h.as_str().map(|s| s.to_string())).unwrap_or_default();
        let port = primary.get(1).and_then(Value::as_u64).ok_or("a primary without a port")?;
        let host = if host.is_empty() || host == "?" { asked.to_string() } else { host };
        let (Ok(start), Ok(end), Ok(port)) = (u16::try_from(start), u16::try_from(end), u16::try_from(port)) else {
            return Err("a CLUSTER SLOTS entry out of range".into());
        };
        out.push(Owner { start, end, node: format!("{host}:{port}") });
    }
    if out.is_empty() {
        return Err("CLUSTER SLOTS named no slots".into());
    }
    Ok(out)
}

/// Whether a command's failure says the map is older than the cluster's.
pub fn moved(e: &fred::error::Error) -> bool {
    let m = e.details();
    m.starts_with("MOVED") || m.contains("MOVED ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_slot_map_is_read_from_cluster_slots() {
        let node = |h: &str, p: i64| {
            Value::Array(vec![Value::String(h.into()), Value::Integer(p), Value::String("id".into())])
        };
        let reply = Value::Array(vec![
            Value::Array(vec![
                Value::Integer(0),
                Value::Integer(5460),
                node("127.0.0.1", 7000),
                node("127.0.0.1", 7003),
            ]),
            Value::Array(vec![Value::Integer(5461), Value::Integer(16383), node("", 7001)]),
        ]);
        let map = parse_slots(reply, "node.example").unwrap();
        assert_eq!((map[0].start, map[0].end, map[0].node.as_str()), (0, 5460, "127.0.0.1:7000"));
        assert_eq!(map[1].node, "node.example:7001", "an empty host is the node asked");
        assert!(parse_slots(Value::Array(vec![]), "x").is_err());
    }
}
