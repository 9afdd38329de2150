//! Tallies and sets on the embedded store, each counter and each member a record of its own.
//!
//! Counter `name` of tally `key` is at `{key}\0{name}` in the tallies table (a count that never
//! expires), so that a visit adds to a few small records rather than rewriting a day's whole
//! map, and a tally is one range read. The number of values a group holds is kept beside them
//! at `{key}\0#{group}:`, hidden from readers. Member `m` of set `key` is at `{key}\0{m}` in the
//! sets table, with its expiry (Unix milliseconds, 0 for never); the sweeper removes expired
//! members with the rest.

use redb::{ReadableDatabase, ReadableTable, TableDefinition, WriteTransaction};

use crate::store::{
    StoreError, TallyBatch,
    embedded::file::db_err,
    embedded::log,
    embedded::values::{VALUES, live},
};

pub(crate) const TALLIES: TableDefinition<&str, u64> = TableDefinition::new("tallies");
pub(crate) const SETS: TableDefinition<&str, u64> = TableDefinition::new("sets");

fn row(key: &str, name: &str) -> String {
    format!("{key}\0{name}")
}

/// The range of rows of `key`.
fn rows_of(key: &str) -> (String, String) {
    (format!("{key}\0"), format!("{key}\u{1}"))
}

/// The group of a counter name (`group:` of `group:value`), if it is one of a group's values.
fn group_of(name: &str) -> Option<&str> {
    let c = name.find(':')?;
    (c + 1 < name.len()).then(|| &name[..=c])
}

/// Adds `by` to `name` in the tally `key`, holding its group to `per_group` values.
fn add(
    tallies: &mut redb::Table<'_, &'static str, u64>,
    key: &str,
    name: &str,
    by: u64,
    per_group: usize,
) -> Result<(), StoreError> {
    let count = |t: &redb::Table<'_, &'static str, u64>, r: &str| -> Result<u64, StoreError> {
        Ok(t.get(r).map_err(db_err)?.map_or(0, |v| v.value()))
    };
    let mut at = row(key, name);
    let mut n = count(tallies, &at)?;
    if n == 0
        && let Some(group) = group_of(name)
    {
        let held_at = row(key, &format!("#{group}"));
        let held = count(tallies, &held_at)?;
        if held as usize >= per_group {
            at = row(key, group);
            n = count(tallies, &at)?;
        } else {
            tallies.insert(held_at.as_str(), held + 1).map_err(db_err)?;
        }
    }
    tallies.insert(at.as_str(), n.saturating_add(by)).map_err(db_err)?;
    Ok(())
}

/// Records `batch` inside the writer's transaction, if its guard is live. False when not.
pub(crate) fn record(tx: &WriteTransaction, b: &TallyBatch, now: u64) -> Result<bool, StoreError> {
    let mut values = tx.open_table(VALUES).map_err(db_err)?;
    let guarded = values.get(b.guard.as_str()).map_err(db_err)?.is_some_and(|v| live(v.value(), now).is_some());
    if !guarded {
        return Ok(false);
    }
    let mut tallies = tx.open_table(TALLIES).map_err(db_err)?;
    for (name, by) in &b.add {
        add(&mut tallies, &b.key, name, *by, b.per_group)?;
    }
    let mut sets = tx.open_table(SETS).map_err(db_err)?;
    sets.insert(row(&b.index, &b.key).as_str(), 0).map_err(db_err)?;
    if let Some(d) = &b.distinct {
        let ttl = (d.ttl.as_millis() as u64).max(1);
        for (member, names) in &d.members {
            let at = row(&d.set, member);
            let seen = sets.get(at.as_str()).map_err(db_err)?.is_some_and(|e| {
                let e = e.value();
                e == 0 || e > now
            });
            if !seen {
                // Each member is kept `ttl` from its own arrival, which is at least the
                // contract's `ttl` from the set's first member.
                sets.insert(at.as_str(), now + ttl).map_err(db_err)?;
                for name in names {
                    add(&mut tallies, &b.key, name, 1, b.per_group)?;
                }
            }
        }
    }
    drop((tallies, sets));
    if let Some(l) = &b.log {
        for entry in &l.entries {
            log::push(&mut values, tx, &l.log, entry, (l.keep, usize::MAX), 0, now)?;
        }
    }
    Ok(true)
}

/// The counters of each tally, bookkeeping rows left out.
pub(crate) fn read(db: &redb::Database, keys: &[String]) -> Result<Vec<Vec<(String, i64)>>, StoreError> {
    let tx = db.begin_read().map_err(db_err)?;
    let tallies = tx.open_table(TALLIES).map_err(db_err)?;
    keys.iter()
        .map(|key| {
            let (start, end) = rows_of(key);
            let mut out = Vec::new();
            for item in tallies.range(start.as_str()..end.as_str()).map_err(db_err)? {
                let (k, v) = item.map_err(db_err)?;
                let name = &k.value()[start.len()..];
                if !name.starts_with('#') {
                    out.push((name.to_string(), v.value().min(i64::MAX as u64) as i64));
                }
            }
            Ok(out)
        })
        .collect()
}

/// The live members of a set.
pub(crate) fn members(db: &redb::Database, key: &str, now: u64) -> Result<Vec<String>, StoreError> {
    let tx = db.begin_read().map_err(db_err)?;
    let sets = tx.open_table(SETS).map_err(db_err)?;
    let (start, end) = rows_of(key);
    let mut out = Vec::new();
    for item in sets.range(start.as_str()..end.as_str()).map_err(db_err)? {
        let (k, e) = item.map_err(db_err)?;
        let e = e.value();
        if e == 0 || e > now {
            out.push(k.value()[start.len()..].to_string());
        }
    }
    Ok(out)
}

/// Removes every counter of a tally and every member of a set at `key`.
pub(crate) fn remove(tx: &WriteTransaction, key: &str) -> Result<(), StoreError> {
    let (start, end) = rows_of(key);
    for def in [TALLIES, SETS] {
        tx.open_table(def).map_err(db_err)?.retain_in(start.as_str()..end.as_str(), |_, _| false).map_err(db_err)?;
    }
    Ok(())
}

/// Removes expired members. How many went.
pub(crate) fn sweep(tx: &WriteTransaction, now: u64) -> Result<usize, StoreError> {
    let mut removed = 0;
    tx.open_table(SETS)
        .map_err(db_err)?
        .retain(|_, e| {
            let keep = e == 0 || e > now;
            removed += usize::from(!keep);
            keep
        })
        .map_err(db_err)?;
    Ok(removed)
}
