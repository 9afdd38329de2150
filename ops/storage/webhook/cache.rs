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
//! Bounds: [`CACHED`] inboxes; the cache starts again empty when full. It is a group service
//! (`wrench_contract::services`), so each store a process serves has its own.

use std::{
    collections::HashMap,
    sync::{Arc, Mutex},
};

use crate::storage::webhook::model::{InboxRecord, load_raw, parse};
use wrench_contract::{
    prelude::*,
    services::{Foundation, Service},
};

/// Inbox records kept.
const CACHED: usize = 1024;

type Entry = (Arc<Vec<u8>>, Arc<InboxRecord>);

/// The records, by inbox id.
#[derive(Default)]
struct InboxCache(Mutex<HashMap<String, Entry>>);

impl Service for InboxCache {
    fn start(_: &Foundation<'_>) -> Self {
        InboxCache::default()
    }
}

/// The record of inbox `id` as last read here, if any.
pub(in crate::storage) fn get(ctx: &Ctx, id: &str) -> Option<Entry> {
    ctx.service::<InboxCache>().0.lock().ok()?.get(id).cloned()
}

/// Reads inbox `id` from the store and keeps it.
pub(in crate::storage) async fn load(ctx: &Ctx, id: &str) -> Result<Entry, ApiError> {
    put(ctx, id, load_raw(ctx, id).await?)
}

/// Keeps `raw` as inbox `id`'s record.
pub(in crate::storage) fn put(ctx: &Ctx, id: &str, raw: Vec<u8>) -> Result<Entry, ApiError> {
    let record = Arc::new(parse(&raw)?);
    let entry: Entry = (Arc::new(raw), record);
    if let Ok(mut cache) = ctx.service::<InboxCache>().0.lock() {
        if cache.len() >= CACHED {
            cache.clear();
        }
        cache.insert(id.to_string(), entry.clone());
    }
    Ok(entry)
}

/// Drops inbox `id` (the store says it is gone).
pub(in crate::storage) fn forget(ctx: &Ctx, id: &str) {
    if let Ok(mut cache) = ctx.service::<InboxCache>().0.lock() {
        cache.remove(id);
    }
}
