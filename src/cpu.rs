//! CPU-heavy work (key derivation, rasterising images) off the async workers.
//!
//! With two cores there are two async workers: one 4096 x 4096 PNG or one Argon2 derivation on
//! a worker would stall every other request behind it. Such work runs on the blocking pool
//! instead, at most one job per core at a time, which also bounds the memory it can take
//! (about 64 MiB for the largest image, 19-64 MiB for a key derivation).

use std::sync::LazyLock;

use tokio::sync::Semaphore;

use crate::envelope::ApiError;

static SLOTS: LazyLock<Semaphore> =
    LazyLock::new(|| Semaphore::new(std::thread::available_parallelism().map_or(2, |n| n.get())));

/// Runs `f` on the blocking pool once a slot is free.
pub async fn run<T: Send + 'static>(f: impl FnOnce() -> Result<T, ApiError> + Send + 'static) -> Result<T, ApiError> {
    let _slot = SLOTS.acquire().await.map_err(|_| ApiError::internal("the work queue is closed"))?;
    tokio::task::spawn_blocking(f).await.map_err(|e| ApiError::internal(format!("the worker failed: {e}")))?
}
