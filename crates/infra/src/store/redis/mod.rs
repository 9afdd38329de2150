//! The Redis store, through fred: the production backend, shared by every instance.
//!
//! Each operation is one command, or one Lua script where it takes several steps: a counter
//! with its window, a capped list, a guarded push, a read that counts, a batch of visits (`tally.rs`). Scripts run by hash
//! (EVALSHA) and are loaded again when Redis answers NOSCRIPT (after a restart or a failover to a
//! replica that never saw them); the keys of one script share a hash tag (or there is one key),
//! so a cluster runs each on one node. Scripts rather than MULTI: counting an anonymous caller
//! with two MULTIs held a redirect to 0.05 of Redis's INCR rate, one script to 0.25
//! (BENCHMARKS.md). A Redis Cluster (`redis-cluster://` URLs) is reached through one client
//! per primary, routed by wrench (`nodes.rs`), so that a stopped primary costs only its
//! own slots while the cluster fails over; every call waits for the first slot map.
//! The client never waits long: connecting times out after one
//! second and commands after 1.5 seconds, so a Redis that is down becomes
//! `StoreError::Unavailable` (503) well within two seconds, while the client keeps reconnecting
//! in the background and the service recovers by itself when Redis returns.

use std::{
    sync::LazyLock,
    time::{Duration, SystemTime},
};

use fred::{
    prelude::*,
    types::{Expiration, SetOptions, scripts::Script},
};

use crate::store::{Appended, CountedRead, GuardedPush, LogAppend, LogState, Pushed, Store, StoreError, StoreFuture};

mod client;
mod log;
pub mod nodes;
mod tally;
pub mod timeouts;

use crate::time::unix_ms;
pub use client::RedisStore;
use client::{Route, err, lock, ttl_ms, unexpected};

/// Counters. KEYS: the counters. ARGV: for each, the TTL in ms of a new counter (0: none).
/// Answers {count, pttl} for each, in order.
static INCR_EACH: LazyLock<Script> = LazyLock::new(|| {
    Script::from_lua(
        r#"
local out = {}
for i, key in ipairs(KEYS) do
  local n = redis.call('INCR', key)
  local ttl = tonumber(ARGV[i])
  if ttl > 0 and redis.call('PTTL', key) == -1 then redis.call('PEXPIRE', key, ttl) end
  out[#out + 1] = n
  out[#out + 1] = redis.call('PTTL', key)
end
return out
"#,
    )
});

/// A capped list. KEYS: list. ARGV: value, cap, expiry (Unix ms). Answers the length.
static PUSH_CAPPED: LazyLock<Script> = LazyLock::new(|| {
    Script::from_lua(
        r#"
redis.call('LPUSH', KEYS[1], ARGV[1])
redis.call('LTRIM', KEYS[1], 0, tonumber(ARGV[2]) - 1)
redis.call('PEXPIREAT', KEYS[1], ARGV[3])
return redis.call('LLEN', KEYS[1])
"#,
    )
});

/// A guarded, counted push. KEYS: guard, list, counter (unused without a window). ARGV: value,
/// cap, limit (0: no window), counter TTL in ms. Answers {0} without a guard, {1, pttl} when
/// the window is full, {2, length} when pushed.
static PUSH_GUARDED: LazyLock<Script> = LazyLock::new(|| {
    Script::from_lua(
        r#"
local ttl = redis.call('PTTL', KEYS[1])
if ttl == -2 then return {0} end
local limit = tonumber(ARGV[3])
if limit > 0 then
  local n = redis.call('INCR', KEYS[3])
  if n == 1 then redis.call('PEXPIRE', KEYS[3], ARGV[4]) end
  if n > limit then return {1, redis.call('PTTL', KEYS[3])} end
end
redis.call('LPUSH', KEYS[2], ARGV[1])
redis.call('LTRIM', KEYS[2], 0, tonumber(ARGV[2]) - 1)
if ttl > 0 then redis.call('PEXPIRE', KEYS[2], ttl) else redis.call('PERSIST', KEYS[2]) end
return {2, redis.call('LLEN', KEYS[2])}
"#,
    )
});

/// A read that counts, through the value's gate if it has one (`gated.rs`: a zero byte and
/// `g`, since and until as 15 digits, uses left as 10, all nines for no limit). Answers the
/// value as it was and 1 when counted, 0 when the gate was closed. KEYS: key, stamp key,
/// counter. ARGV: stamp, now in Unix milliseconds.
static GET_AND_COUNT: LazyLock<Script> = LazyLock::new(|| {
    Script::from_lua(
        r#"
local v = redis.call('GET', KEYS[1])
if not v then return false end
if string.sub(v, 1, 2) == '\0g' and string.len(v) >= 42 then
  local since = tonumber(string.sub(v, 3, 17))
  local untl = tonumber(string.sub(v, 18, 32))
  local left = tonumber(string.sub(v, 33, 42))
  local now = tonumber(ARGV[2])
  if (since > 0 and now < since) or (untl > 0 and now >= untl) or left == 0 then
    return {v, 0}
  end
  if left < 9999999999 then
    redis.call('SETRANGE', KEYS[1], 32, string.format('%010d', left - 1))
  end
end
redis.call('SET', KEYS[2], ARGV[1])
redis.call('INCR', KEYS[3])
return {v, 1}
"#,
    )
});

/// A read that spends one of a counted value's reads (`counted.rs`): the value as it was,
/// and the reads left, -1 for a value without a count. KEYS: key.
static TAKE: LazyLock<Script> = LazyLock::new(|| {
    Script::from_lua(
        r#"
local v = redis.call('GET', KEYS[1])
if not v then return false end
local n = nil
if string.byte(v, 1) == 0 then n = tonumber(string.sub(v, 2, 6)) end
if not n then return {v, -1} end
local left = n - 1
if left <= 0 then
  redis.call('DEL', KEYS[1])
else
  redis.call('SETRANGE', KEYS[1], 1, string.format('%05d', left))
end
return {v, left}
"#,
    )
});

impl Store for RedisStore {
    fn get<'a>(&'a self, key: &'a str) -> StoreFuture<'a, Option<Vec<u8>>> {
        Box::pin(async move {
            let k = &self.key(key);
            self.on(k, |c| async move { c.get::<Option<Vec<u8>>, _>(k.as_str()).await }).await
        })
    }

    fn put<'a>(&'a self, key: &'a str, value: &'a [u8], ttl: Option<Duration>) -> StoreFuture<'a, ()> {
        Box::pin(async move {
            let k = &self.key(key);
            self.on(k, |c| async move {
                let expire = ttl.map(|t| Expiration::PX(ttl_ms(t)));
                c.set::<(), _, _>(k.as_str(), value, expire, None, false).await
            })
            .await
        })
    }

    fn put_new<'a>(&'a self, key: &'a str, value: &'a [u8], ttl: Option<Duration>) -> StoreFuture<'a, bool> {
        Box::pin(async move {
            let k = &self.key(key);
            self.on(k, |c| async move {
                let expire = ttl.map(|t| Expiration::PX(ttl_ms(t)));
                let written: Option<String> = c.set(k.as_str(), value, expire, Some(SetOptions::NX), false).await?;
                Ok(written.is_some())
            })
            .await
        })
    }

    fn incr_each<'a>(
        &'a self,
        counters: &'a [(&'a str, Option<Duration>)],
    ) -> StoreFuture<'a, Vec<(i64, Option<Duration>)>> {
        Box::pin(async move {
            let keys = counters.iter().map(|(key, _)| self.key(key)).collect();
            // NX semantics: only a counter without expiry (a new one) gets its TTL, so a
            // window never slides.
            let ttls = counters.iter().map(|(_, ttl)| Value::Integer(ttl.map_or(0, ttl_ms))).collect();
            let reply: Vec<i64> = self.run(&INCR_EACH, keys, ttls).await?;
            if reply.len() != 2 * counters.len() {
                return Err(unexpected(&reply));
            }
            Ok(reply.chunks(2).map(|c| (c[0], (c[1] >= 0).then(|| Duration::from_millis(c[1] as u64)))).collect())
        })
    }

    fn count<'a>(&'a self, key: &'a str) -> StoreFuture<'a, i64> {
        Box::pin(async move {
            let k = &self.key(key);
            self.on(k, |c| async move { Ok(c.get::<Option<i64>, _>(k.as_str()).await?.unwrap_or(0)) }).await
        })
    }

    fn push_capped<'a>(
        &'a self,
        key: &'a str,
        value: &'a [u8],
        cap: usize,
        expires_at: SystemTime,
    ) -> StoreFuture<'a, usize> {
        Box::pin(async move {
            let args: Vec<Value> = vec![
                Value::Bytes(value.to_vec().into()),
                Value::Integer(cap.max(1) as i64),
                Value::Integer(unix_ms(expires_at) as i64),
            ];
            let len: i64 = self.run(&PUSH_CAPPED, vec![self.key(key)], args).await?;
            Ok(len.max(0) as usize)
        })
    }

    fn list<'a>(&'a self, key: &'a str) -> StoreFuture<'a, Vec<Vec<u8>>> {
        Box::pin(async move {
            let k = &self.key(key);
            self.on(k, |c| async move { c.lrange::<Vec<Vec<u8>>, _>(k.as_str(), 0, -1).await }).await
        })
    }

    fn list_len<'a>(&'a self, key: &'a str) -> StoreFuture<'a, usize> {
        Box::pin(async move {
            let k = &self.key(key);
            self.on(k, |c| async move { c.llen::<usize, _>(k.as_str()).await }).await
        })
    }

    fn push_guarded<'a>(&'a self, push: GuardedPush<'a>) -> StoreFuture<'a, Pushed> {
        Box::pin(async move {
            let (counter, limit, window) = match push.window {
                Some((key, limit, ttl)) => (self.key(key), limit, ttl_ms(ttl)),
                None => (self.key(push.list), 0, 0),
            };
            let keys = vec![self.key(push.guard), self.key(push.list), counter];
            let args: Vec<Value> = vec![
                Value::Bytes(push.value.to_vec().into()),
                Value::Integer(push.cap.max(1) as i64),
                Value::Integer(limit),
                Value::Integer(window),
            ];
            let reply: Vec<i64> = self.run(&PUSH_GUARDED, keys, args).await?;
            Ok(match reply.as_slice() {
                [0, ..] => Pushed::NoGuard,
                [1, pttl, ..] => Pushed::Limited((*pttl >= 0).then(|| Duration::from_millis(*pttl as u64))),
                [2, len, ..] => Pushed::Done((*len).max(0) as usize),
                other => return Err(unexpected(other)),
            })
        })
    }

    fn get_and_count<'a>(&'a self, read: CountedRead<'a>) -> StoreFuture<'a, Option<crate::store::Counted>> {
        Box::pin(async move {
            let keys = vec![self.key(read.key), self.key(read.stamp_key), self.key(read.counter)];
            let args = vec![Value::Bytes(read.stamp.to_vec().into()), Value::Integer(read.now_ms as i64)];
            let reply: Value = match self.run(&GET_AND_COUNT, keys, args).await {
                Ok(reply) => reply,
                Err(StoreError::Full(why)) => return self.get_uncounted(read, why).await,
                Err(e) => return Err(e),
            };
            let parts = match reply {
                Value::Null => return Ok(None),
                Value::Array(parts) => parts,
                other => return Err(unexpected(&other)),
            };
            let [stored, open] = parts.as_slice() else { return Err(unexpected(Value::Array(parts))) };
            let value = crate::store::gated::split(stored.as_bytes().ok_or_else(|| unexpected(stored))?).1.to_vec();
            Ok(Some(if open.as_i64() == Some(1) {
                crate::store::Counted::Open(value)
            } else {
                crate::store::Counted::Closed(value)
            }))
        })
    }

    fn record(&self, batch: std::sync::Arc<crate::store::TallyBatch>) -> StoreFuture<'_, bool> {
        Box::pin(async move { tally::record(self, &batch).await })
    }

    fn tallies<'a>(&'a self, keys: &'a [&'a str]) -> StoreFuture<'a, Vec<Vec<(String, i64)>>> {
        Box::pin(tally::read(self, keys))
    }

    fn members<'a>(&'a self, key: &'a str) -> StoreFuture<'a, Vec<String>> {
        Box::pin(async move {
            let k = &self.key(key);
            self.on(k, |c| async move { c.smembers::<Vec<String>, _>(k.as_str()).await }).await
        })
    }

    fn take<'a>(&'a self, key: &'a str) -> StoreFuture<'a, Option<crate::store::counted::Taken>> {
        use crate::store::counted::{self, Taken};
        Box::pin(async move {
            let reply: Value = self.run(&TAKE, vec![self.key(key)], vec![]).await?;
            let parts = match reply {
                Value::Null => return Ok(None),
                Value::Array(parts) => parts,
                other => return Err(unexpected(&other)),
            };
            match parts.as_slice() {
                [stored, left] => {
                    let stored = stored.as_bytes().ok_or_else(|| unexpected(stored))?;
                    let left = left.as_i64().ok_or_else(|| unexpected(left))?;
                    // The value as it was before the read: its header still says so.
                    let value = counted::split(stored).1.to_vec();
                    Ok(Some(Taken { value, left: u32::try_from(left).ok() }))
                }
                _ => Err(unexpected(&parts)),
            }
        })
    }

    fn log_append<'a>(&'a self, append: LogAppend<'a>) -> StoreFuture<'a, Appended> {
        Box::pin(log::append(self, append))
    }

    fn log_state<'a>(&'a self, log: &'a str) -> StoreFuture<'a, LogState> {
        Box::pin(log::state(self, log))
    }

    fn log_read<'a>(&'a self, log: &'a str, from: u64, to: u64) -> StoreFuture<'a, Vec<(u64, Vec<u8>)>> {
        Box::pin(log::read(self, log, from, to))
    }

    fn log_update<'a>(&'a self, log: &'a str, seq: u64, value: &'a [u8]) -> StoreFuture<'a, bool> {
        Box::pin(log::update(self, log, seq, value))
    }

    fn log_clear<'a>(&'a self, log: &'a str) -> StoreFuture<'a, ()> {
        Box::pin(log::clear(self, log))
    }

    /// One `DEL` per key: on a cluster, keys of different slots cannot share a command.
    fn delete<'a>(&'a self, keys: &'a [&'a str]) -> StoreFuture<'a, ()> {
        Box::pin(async move {
            for key in keys {
                let k = &self.key(key);
                self.on(k, |c| async move { c.del::<i64, _>(k.as_str()).await }).await?;
            }
            Ok(())
        })
    }

    /// A single Redis: PING. A cluster: its slot map could be read, from any node.
    fn ping(&self) -> StoreFuture<'_, ()> {
        Box::pin(async move {
            match &self.route {
                Route::One(c) => c.ping::<String>(None).await.map(|_| ()).map_err(err),
                Route::Cluster(nodes) => nodes.refresh().await,
            }
        })
    }

    /// Probes only the parts that refused a write for lack of memory since they last had room:
    /// a healthy store costs nothing here.
    fn writable(&self) -> StoreFuture<'_, ()> {
        Box::pin(async move {
            let parts: Vec<String> = lock(&self.full).iter().cloned().collect();
            let mut still = 0;
            for part in &parts {
                match self.probe_room(part).await {
                    Ok(()) => {
                        lock(&self.full).remove(part);
                        tracing::info!(
                            part = if part.is_empty() { "the whole store" } else { part.as_str() },
                            "Redis has room for writes again"
                        );
                    }
                    Err(StoreError::Full(_)) => still += 1,
                    Err(e) => return Err(e),
                }
            }
            match (still, &self.route) {
                (0, _) => Ok(()),
                (_, Route::One(_)) => Err(StoreError::Full("Redis is at its memory limit (maxmemory)".into())),
                (n, Route::Cluster(_)) => Err(StoreError::Full(format!(
                    "{n} of the Redis Cluster's primaries {} at its memory limit (maxmemory); writes to their slots are refused",
                    if n == 1 { "is" } else { "are" }
                ))),
            }
        })
    }

    fn partitioned(&self) -> bool {
        matches!(self.route, Route::Cluster(_))
    }

    fn part_of(&self, key: &str) -> Option<String> {
        match &self.route {
            Route::Cluster(nodes) => nodes.owner(&self.key(key)),
            Route::One(_) => None,
        }
    }

    fn ping_part<'a>(&'a self, part: &'a str) -> StoreFuture<'a, ()> {
        Box::pin(async move {
            let Route::Cluster(nodes) = &self.route else { return self.ping().await };
            // A primary the map no longer names serves nothing: no call waits on it.
            if !nodes.serves(part) {
                return Ok(());
            }
            let answer = nodes.client(part)?.ping::<String>(None).await.map(|_| ()).map_err(err);
            if answer.is_err() {
                nodes.refresh_soon();
            }
            answer
        })
    }

    fn backend(&self) -> &'static str {
        "redis"
    }
}
