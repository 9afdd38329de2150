//! CPU-heavy work (formatting large documents, YAML, regular expressions, diffs, key
//! derivation, rasterising images) off the async workers.
//!
//! With two cores there are two async workers: one 4096 x 4096 PNG, one Argon2 derivation or
//! one YAML alias bomb on a worker would stall every other request behind it. Such work runs on
//! the blocking pool instead, at most one job per core at a time, which also bounds the memory
//! it can take (about 64 MiB for the largest image, 19-64 MiB for a key derivation). Operations
//! declared `cpu` in `#[op]` (heavy even on small input) and every operation given a body over
//! [`INLINE_BODY_LIMIT`] run whole (decoding, work, serialization) through [`run_async`];
//! others may hand just their heavy part to [`run`]. Work already on the pool runs in place, so
//! the two never wait for each other's slot.

use std::{cell::Cell, future::Future, sync::LazyLock};

use tokio::sync::Semaphore;

use crate::envelope::ApiError;

/// Bodies up to this size are worked on where they arrive; larger ones go to the pool, whatever
/// the operation (a 1 MiB document costs milliseconds in any of them).
pub const INLINE_BODY_LIMIT: usize = 16 * 1024;

static SLOTS: LazyLock<Semaphore> =
    LazyLock::new(|| Semaphore::new(std::thread::available_parallelism().map_or(2, |n| n.get())));

thread_local! {
    /// Set on a pool thread while it runs a job.
    static ON_POOL: Cell<bool> = const { Cell::new(false) };
}

/// Runs `f` on the blocking pool once a slot is free (in place when already there).
pub async fn run<T: Send + 'static>(f: impl FnOnce() -> Result<T, ApiError> + Send + 'static) -> Result<T, ApiError> {
    if ON_POOL.get() {
        return f();
    }
    let _slot = SLOTS.acquire().await.map_err(|_| ApiError::internal("the work queue is closed"))?;
    join(tokio::task::spawn_blocking(move || crate::flag::while_set(&ON_POOL, f)).await)
}

/// Runs the future `f` makes to completion on the blocking pool once a slot is free.
pub async fn run_async<T, F, Fut>(f: F) -> Result<T, ApiError>
where
    T: Send + 'static,
    F: FnOnce() -> Fut + Send + 'static,
    Fut: Future<Output = Result<T, ApiError>>,
{
    let _slot = SLOTS.acquire().await.map_err(|_| ApiError::internal("the work queue is closed"))?;
    let handle = tokio::runtime::Handle::current();
    join(tokio::task::spawn_blocking(move || crate::flag::while_set(&ON_POOL, || handle.block_on(f()))).await)
}

/// A job's result; a panic in the job continues as a panic here, so the pipeline reports it
/// like any other operation's.
fn join<T>(r: Result<Result<T, ApiError>, tokio::task::JoinError>) -> Result<T, ApiError> {
    match r {
        Ok(out) => out,
        Err(e) if e.is_panic() => std::panic::resume_unwind(e.into_panic()),
        Err(e) => Err(ApiError::internal(format!("the worker failed: {e}"))),
    }
}
