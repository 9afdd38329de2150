//! Inbox records a delivery has read, kept per instance so that the next delivery to the same
//! inbox costs one store round trip instead of two.
//!
//! An entry holds the record and the exact bytes it was read as. A delivery decides with the
//! cached record (signature check, reply, forwarding, caps), then appends only while the store
//! still holds those bytes (`LogAppend::guard_is`). A record changed or deleted since, by any
//! instance, is therefore never acted on: the append answers the record it found instead, or
//! that there is none. The cache can only be out of date, never wrong, and an out-of-date
//! entry costs one more round trip.
//!
//! Bounds: [`CACHED`] inboxes; the cache starts again empty when full. Entries are per store (a
//! process may serve several: tests do).

use std::{
    collections::HashMap,
    sync::{Arc, Mutex},
};

use crate::storage::webhook::model::{InboxRecord, load_raw, parse};
use wrench_contract::prelude::*;

/// Inbox records kept.
const CACHED: usize = 1024;

type Entry = (Arc<Vec<u8>>, Arc<InboxRecord>);
type Cache = HashMap<(usize, String), Entry>;

static CACHE: Mutex<Option<Cache>> = Mutex::new(None);

fn store_of(ctx: &Ctx) -> usize {
    Arc::as_ptr(&ctx.store) as *const () as usize
}

/// The record of inbox `id` as last read here, if any.
pub(in crate::storage) fn get(ctx: &Ctx, id: &str) -> Option<Entry> {
    let cache = CACHE.lock().ok()?;
    cache.as_ref()?.get(&(store_of(ctx), id.to_string())).cloned()
}

/// Reads inbox `id` from the store and keeps it.
pub(in crate::storage) async fn load(ctx: &Ctx, id: &str) -> Result<Entry, ApiError> {
    put(ctx, id, load_raw(ctx, id).await?)
}

/// Keeps `raw` as inbox `id`'s record.
pub(in crate::storage) fn put(ctx: &Ctx, id: &str, raw: Vec<u8>) -> Result<Entry, ApiError> {
    let record = Arc::new(parse(&raw)?);
    let entry: Entry = (Arc::new(raw), record);
    if let Ok(mut cache) = CACHE.lock() {
        let cache = cache.get_or_insert_with(Default::default);
        if cache.len() >= CACHED {
            cache.clear();
        }
        cache.insert((store_of(ctx), id.to_string()), entry.clone());
    }
    Ok(entry)
}

/// Drops inbox `id` (the store says it is gone).
pub(in crate::storage) fn forget(ctx: &Ctx, id: &str) {
    if let Ok(mut cache) = CACHE.lock()
        && let Some(cache) = cache.as_mut()
    {
        cache.remove(&(store_of(ctx), id.to_string()));
    }
}
