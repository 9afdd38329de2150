//! Tallies on Redis: a batch of visits in one script, and tallies read in chunks.
//!
//! A tally is a hash of counters; the number of values a group holds is kept in the same hash
//! under `#group:`, which readers leave out. A batch ([`TallyBatch`]) is one script on the
//! keys of one owner (one hash tag, one cluster slot): it checks the guard, adds the summed
//! counters, registers the tally in its index, adds the visitors to the day's set (a new one
//! adds its own counters) and appends the entries to the log of recent visits, writing only the
//! entries the log will keep. Its cost grows with what differs between the visits (counter
//! names, visitors, entries), not with their number.

use std::sync::LazyLock;

use fred::{prelude::*, types::scripts::Script};

use super::client::RedisStore;
use crate::store::{StoreError, TallyBatch};

/// KEYS: guard, tally, index, set, log (a key given for an absent part is not touched). ARGV:
/// the tally's name for the index, values per group, the set's TTL in ms, entries the log
/// keeps, the number of counters, the number of members; then each counter's name and
/// amount; then each member, the number of its names and the names; then the log's entries.
/// Answers 0 without a guard, 1 when recorded.
static RECORD: LazyLock<Script> = LazyLock::new(|| {
    Script::from_lua(
        r#"
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
local tally, per = KEYS[2], tonumber(ARGV[2])
local function add(name, by)
  local c = string.find(name, ':', 1, true)
  if c and c < string.len(name) and redis.call('HEXISTS', tally, name) == 0 then
    local held = '#' .. string.sub(name, 1, c)
    if redis.call('HINCRBY', tally, held, 1) > per then
      redis.call('HINCRBY', tally, held, -1)
      name = string.sub(name, 1, c)
    end
  end
  redis.call('HINCRBY', tally, name, by)
end
local i = 7
for _ = 1, tonumber(ARGV[5]) do
  add(ARGV[i], tonumber(ARGV[i + 1]))
  i = i + 2
end
redis.call('SADD', KEYS[3], ARGV[1])
local ttl = tonumber(ARGV[3])
for _ = 1, tonumber(ARGV[6]) do
  local n = tonumber(ARGV[i + 1])
  if redis.call('SADD', KEYS[4], ARGV[i]) == 1 then
    if redis.call('PTTL', KEYS[4]) < 0 then redis.call('PEXPIRE', KEYS[4], ttl) end
    for j = i + 2, i + 1 + n do add(ARGV[j], 1) end
  end
  i = i + 2 + n
end
local count, keep = #ARGV - i + 1, tonumber(ARGV[4])
if count > 0 then
  local log = KEYS[5]
  local last = redis.call('HINCRBY', log, 'last', count)
  local held = last - count
  local first = tonumber(redis.call('HGET', log, 'first') or '1')
  local bytes = tonumber(redis.call('HGET', log, 'bytes') or '0')
  local floor = math.max(first, last - keep + 1)
  for j = i, #ARGV do
    local seq = held + j - i + 1
    if seq >= floor then
      redis.call('HSET', log, '#' .. seq, ARGV[j])
      bytes = bytes + string.len(ARGV[j])
    end
  end
  while first < floor and first <= held do
    local field = '#' .. first
    bytes = bytes - redis.call('HSTRLEN', log, field)
    redis.call('HDEL', log, field)
    first = first + 1
  end
  redis.call('HSET', log, 'first', floor, 'bytes', bytes)
end
return 1
"#,
    )
});

/// Reads tallies. KEYS: the tallies. Answers each one's fields and counts, flat.
static TALLIES: LazyLock<Script> = LazyLock::new(|| {
    Script::from_lua(
        r#"
local out = {}
for i, k in ipairs(KEYS) do out[i] = redis.call('HGETALL', k) end
return out
"#,
    )
});

/// Most tallies one script reads: a long range is read in several, so that no script holds
/// Redis for long.
const TALLIES_CHUNK: usize = 64;

pub(super) async fn record(store: &RedisStore, b: &TallyBatch) -> Result<bool, StoreError> {
    let text = |s: &str| Value::String(s.to_string().into());
    let int = |n: usize| Value::Integer(n.min(i64::MAX as usize) as i64);
    let keys = vec![
        store.key(&b.guard),
        store.key(&b.key),
        store.key(&b.index),
        store.key(b.distinct.as_ref().map_or(&b.key, |d| &d.set)),
        store.key(b.log.as_ref().map_or(&b.key, |l| &l.log)),
    ];
    let members = b.distinct.as_ref().map_or(&[][..], |d| &d.members);
    let mut args = vec![
        text(&b.key),
        int(b.per_group),
        Value::Integer(b.distinct.as_ref().map_or(1, |d| (d.ttl.as_millis() as i64).max(1))),
        int(b.log.as_ref().map_or(1, |l| l.keep.max(1))),
        int(b.add.len()),
        int(members.len()),
    ];
    for (name, by) in &b.add {
        args.push(text(name));
        args.push(Value::Integer((*by).min(i64::MAX as u64) as i64));
    }
    for (member, names) in members {
        args.push(text(member));
        args.push(int(names.len()));
        args.extend(names.iter().map(|n| text(n)));
    }
    if let Some(l) = &b.log {
        args.extend(l.entries.iter().map(|e| Value::Bytes(e.clone().into())));
    }
    let done: i64 = store.run(&RECORD, keys, args).await?;
    Ok(done == 1)
}

pub(super) async fn read(store: &RedisStore, keys: &[&str]) -> Result<Vec<Vec<(String, i64)>>, StoreError> {
    let mut out = Vec::with_capacity(keys.len());
    for chunk in keys.chunks(TALLIES_CHUNK) {
        let keys: Vec<String> = chunk.iter().map(|k| store.key(k)).collect();
        let reply: Vec<Value> = store.run(&TALLIES, keys, Vec::new()).await?;
        out.extend(reply.into_iter().map(counters));
    }
    Ok(out)
}

/// A tally's counters from `HGETALL`'s flat answer, bookkeeping left out.
fn counters(flat: Value) -> Vec<(String, i64)> {
    let Value::Array(items) = flat else { return Vec::new() };
    items
        .chunks_exact(2)
        .filter_map(|pair| {
            let name = pair[0].as_string()?;
            let n = pair[1].as_i64().or_else(|| pair[1].as_string()?.parse().ok())?;
            (!name.starts_with('#')).then_some((name, n))
        })
        .collect()
}
