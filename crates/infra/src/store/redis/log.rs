//! Logs on Redis: one hash per log, one field per entry.
//!
//! The hash holds `first`, `last` and `bytes` beside the entries (`#<n>`), so that the whole
//! log is one key: one slot on a cluster, one expiry, one `DEL`. Appending is one script that
//! checks the guard, counts the window, writes the entry and drops the oldest entries while the
//! log is over its caps (`HSTRLEN` gives their sizes without reading them); each step is
//! constant time, so an append costs the same however long the log is. Reading a range is one
//! `HMGET`.

use std::{sync::LazyLock, time::Duration};

use fred::{prelude::*, types::scripts::Script};

use super::client::{RedisStore, unexpected};
use crate::store::{Appended, LogAppend, LogState, StoreError};

/// `log_push(log, value, max_entries, max_bytes)`: appends the next entry and drops the oldest
/// while the log is over either cap (the newest always stays). Answers seq, first, bytes.
const LOG_PUSH_LUA: &str = r#"
local function log_push(log, value, max_entries, max_bytes)
  local seq = redis.call('HINCRBY', log, 'last', 1)
  local first = tonumber(redis.call('HGET', log, 'first') or '1')
  local bytes = redis.call('HINCRBY', log, 'bytes', string.len(value))
  redis.call('HSET', log, '#' .. seq, value)
  while first < seq and (seq - first + 1 > max_entries or bytes > max_bytes) do
    local field = '#' .. first
    bytes = bytes - redis.call('HSTRLEN', log, field)
    redis.call('HDEL', log, field)
    first = first + 1
  end
  redis.call('HSET', log, 'first', first, 'bytes', bytes)
  return seq, first, bytes
end
"#;

/// KEYS: guard, log, counter (unused without a window). ARGV: value, max entries, max bytes,
/// limit (0: no window), counter TTL in ms, and the guard's expected value if any. Answers {0}
/// without a guard, {3, value} when the guard holds another value than expected, {1, pttl} when
/// the window is full, {2, seq, first, bytes} when appended.
static LOG_APPEND: LazyLock<Script> = LazyLock::new(|| {
    Script::from_lua(format!(
        "{LOG_PUSH_LUA}{}",
        r#"
local ttl = redis.call('PTTL', KEYS[1])
if ttl == -2 then return {0} end
if #ARGV > 5 then
  local held = redis.call('GET', KEYS[1])
  if held ~= ARGV[6] then return {3, held} end
end
local limit = tonumber(ARGV[4])
if limit > 0 then
  local n = redis.call('INCR', KEYS[3])
  if n == 1 then redis.call('PEXPIRE', KEYS[3], ARGV[5]) end
  if n > limit then return {1, redis.call('PTTL', KEYS[3])} end
end
local seq, first, bytes = log_push(KEYS[2], ARGV[1], tonumber(ARGV[2]), tonumber(ARGV[3]))
if ttl > 0 then redis.call('PEXPIRE', KEYS[2], ttl) else redis.call('PERSIST', KEYS[2]) end
return {2, seq, first, bytes}
"#
    ))
});

/// KEYS: log. ARGV: seq, value. Replaces a held entry; answers 1 when it did.
static LOG_UPDATE: LazyLock<Script> = LazyLock::new(|| {
    Script::from_lua(
        r#"
local field = '#' .. ARGV[1]
if redis.call('HEXISTS', KEYS[1], field) == 0 then return 0 end
local old = redis.call('HSTRLEN', KEYS[1], field)
redis.call('HSET', KEYS[1], field, ARGV[2])
redis.call('HINCRBY', KEYS[1], 'bytes', string.len(ARGV[2]) - old)
return 1
"#,
    )
});

/// KEYS: log. Drops every entry, keeps `last`.
static LOG_CLEAR: LazyLock<Script> = LazyLock::new(|| {
    Script::from_lua(
        r#"
local last = tonumber(redis.call('HGET', KEYS[1], 'last') or '0')
local first = tonumber(redis.call('HGET', KEYS[1], 'first') or '1')
for n = first, last do redis.call('HDEL', KEYS[1], '#' .. n) end
if last > 0 then redis.call('HSET', KEYS[1], 'first', last + 1, 'bytes', 0) end
return last
"#,
    )
});

fn number(v: Option<String>, default: u64) -> u64 {
    v.and_then(|s| s.parse().ok()).unwrap_or(default)
}

pub(super) async fn append(store: &RedisStore, a: LogAppend<'_>) -> Result<Appended, StoreError> {
    let (counter, limit, window) = match a.window {
        Some((key, limit, ttl)) => (store.key(key), limit, (ttl.as_millis() as i64).max(1)),
        None => (store.key(a.log), 0, 0),
    };
    let keys = vec![store.key(a.guard), store.key(a.log), counter];
    let args: Vec<Value> = vec![
        Value::Bytes(a.value.to_vec().into()),
        Value::Integer(a.max_entries.max(1) as i64),
        Value::Integer(a.max_bytes.min(i64::MAX as usize) as i64),
        Value::Integer(limit),
        Value::Integer(window),
    ];
    let mut args = args;
    if let Some(is) = a.guard_is {
        args.push(Value::Bytes(is.to_vec().into()));
    }
    let reply: Vec<Value> = store.run(&LOG_APPEND, keys, args).await?;
    if let [Value::Integer(3), held] = reply.as_slice() {
        let held = held.as_bytes().ok_or_else(|| unexpected(&reply))?;
        return Ok(Appended::Changed(held.to_vec()));
    }
    let reply: Vec<i64> = reply.iter().map(|v| v.as_i64().unwrap_or(-1)).collect();
    let n = |v: i64| v.max(0) as u64;
    Ok(match reply.as_slice() {
        [0, ..] => Appended::NoGuard,
        [1, pttl, ..] => Appended::Limited((*pttl >= 0).then(|| Duration::from_millis(*pttl as u64))),
        [2, seq, first, bytes] => {
            Appended::Done { seq: n(*seq), log: LogState { first: n(*first), last: n(*seq), bytes: n(*bytes) } }
        }
        other => return Err(unexpected(other)),
    })
}

pub(super) async fn state(store: &RedisStore, log: &str) -> Result<LogState, StoreError> {
    let k = &store.key(log);
    let (first, last, bytes): (Option<String>, Option<String>, Option<String>) =
        store.on(k, |c| async move { c.hmget(k.as_str(), vec!["first", "last", "bytes"]).await }).await?;
    if last.is_none() {
        return Ok(LogState::EMPTY);
    }
    Ok(LogState { first: number(first, 1), last: number(last, 0), bytes: number(bytes, 0) })
}

/// Most fields asked for in one `HMGET`: a page of a long log is read in several.
const READ_CHUNK: u64 = 64;

pub(super) async fn read(store: &RedisStore, log: &str, from: u64, to: u64) -> Result<Vec<(u64, Vec<u8>)>, StoreError> {
    let k = &store.key(log);
    let mut out = Vec::new();
    let mut start = from.max(1);
    while start <= to {
        let end = to.min(start + READ_CHUNK - 1);
        let fields: Vec<String> = (start..=end).map(|n| format!("#{n}")).collect();
        let values: Vec<Option<Vec<u8>>> = store
            .on(k, |c| {
                let fields = fields.clone();
                async move { c.hmget(k.as_str(), fields).await }
            })
            .await?;
        out.extend((start..=end).zip(values).filter_map(|(n, v)| v.map(|v| (n, v))));
        start = end + 1;
    }
    Ok(out)
}

pub(super) async fn clear(store: &RedisStore, log: &str) -> Result<(), StoreError> {
    let _: i64 = store.run(&LOG_CLEAR, vec![store.key(log)], Vec::new()).await?;
    Ok(())
}

pub(super) async fn update(store: &RedisStore, log: &str, seq: u64, value: &[u8]) -> Result<bool, StoreError> {
    let args = vec![Value::Integer(seq.min(i64::MAX as u64) as i64), Value::Bytes(value.to_vec().into())];
    let replaced: i64 = store.run(&LOG_UPDATE, vec![store.key(log)], args).await?;
    Ok(replaced == 1)
}
