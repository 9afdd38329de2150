//! Group commit for the embedded store: one writer thread, one fsync for many writes.
//!
//! Every write is a closure sent to the writer. The writer takes the first waiting write,
//! then every other write already queued (up to [`MAX_BATCH`]), applies them in arrival order
//! inside one write transaction, commits it once, and only then answers each caller. Writes
//! that arrive while a commit's fsync is in progress wait in the queue and go into the next
//! transaction, so under one client each write is its own transaction, as before, and under
//! many the cost of an fsync is shared by the batch (the technique databases call group
//! commit). The guarantee is unchanged: nothing is acknowledged before it is on disk.
//!
//! Each write still sees the effects of the writes before it (they run one after another in
//! the same transaction), which is what keeps `put_new`, `incr` and `push_capped` atomic. A
//! storage error aborts the whole transaction and every write of the batch is answered with
//! it; nothing of the batch is kept.

use std::sync::Arc;

use redb::{Database, Durability, WriteTransaction};
use tokio::sync::{mpsc, oneshot};

use super::StoreError;

/// Most writes in one transaction: bounds the time a batch holds the writer.
pub const MAX_BATCH: usize = 256;
/// Writes waiting for the writer before callers wait to queue (backpressure, not loss).
const QUEUE: usize = 4096;

/// One queued write, type-erased so one queue carries every kind.
trait Pending: Send {
    fn durable(&self) -> bool;
    fn apply(&mut self, tx: &WriteTransaction) -> Result<(), StoreError>;
    fn finish(self: Box<Self>, committed: Result<(), StoreError>);
}

struct Job<T, F> {
    durable: bool,
    work: Option<F>,
    result: Option<T>,
    reply: oneshot::Sender<Result<T, StoreError>>,
}

impl<T, F> Pending for Job<T, F>
where
    T: Send,
    F: FnOnce(&WriteTransaction) -> Result<T, StoreError> + Send,
{
    fn durable(&self) -> bool {
        self.durable
    }

    fn apply(&mut self, tx: &WriteTransaction) -> Result<(), StoreError> {
        let work = self.work.take().ok_or_else(|| StoreError::Unavailable("a write was applied twice".into()))?;
        self.result = Some(work(tx)?);
        Ok(())
    }

    fn finish(self: Box<Self>, committed: Result<(), StoreError>) {
        let Job { result, reply, .. } = *self;
        let answer =
            committed.and_then(|()| result.ok_or_else(|| StoreError::Unavailable("the write was not applied".into())));
        // The caller may have gone (its request was cancelled); the write stands regardless.
        let _ = reply.send(answer);
    }
}

/// The sending side of the writer. Dropping it lets the thread finish the writes already
/// queued and waits for it, so the database file is closed when the store is gone (a store
/// reopened right after sees it free).
pub struct Writer {
    queue: Option<mpsc::Sender<Box<dyn Pending>>>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl Drop for Writer {
    fn drop(&mut self) {
        self.queue.take();
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

impl Writer {
    /// Starts the writer thread for `db`.
    pub fn start(db: Arc<Database>) -> Result<Writer, StoreError> {
        let (queue, mut rx) = mpsc::channel::<Box<dyn Pending>>(QUEUE);
        let thread = std::thread::Builder::new()
            .name("wrench-store-writer".into())
            .spawn(move || {
                while let Some(first) = rx.blocking_recv() {
                    let mut batch = vec![first];
                    while batch.len() < MAX_BATCH {
                        match rx.try_recv() {
                            Ok(next) => batch.push(next),
                            Err(_) => break,
                        }
                    }
                    crate::metrics::store_commit(batch.len());
                    // A panicking write fails its batch (the callers hear the writer stopped
                    // before committing) and leaves the writer serving the next one.
                    let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| commit(&db, batch)));
                }
            })
            .map_err(|e| StoreError::Unavailable(format!("cannot start the store writer: {e}")))?;
        Ok(Writer { queue: Some(queue), thread: Some(thread) })
    }

    /// Runs `work` in the next transaction and answers once that transaction is committed.
    /// `durable: false` (rate windows) lets a batch made only of such writes skip the fsync.
    pub async fn write<T, F>(&self, durable: bool, work: F) -> Result<T, StoreError>
    where
        T: Send + 'static,
        F: FnOnce(&WriteTransaction) -> Result<T, StoreError> + Send + 'static,
    {
        let (job, answer) = job(durable, work);
        let stopped = || StoreError::Unavailable("the store writer has stopped".into());
        self.queue.as_ref().ok_or_else(stopped)?.send(job).await.map_err(|_| stopped())?;
        answer.await.map_err(|_| StoreError::Unavailable("the store writer stopped before committing".into()))?
    }

    /// Queues `work` for the next transaction without waiting for its commit (a click count
    /// behind a redirect): the caller waits only while the queue is full, so a writer that
    /// falls behind slows callers down instead of piling up work. A failure is logged.
    pub async fn submit<F>(&self, durable: bool, work: F)
    where
        F: FnOnce(&WriteTransaction) -> Result<(), StoreError> + Send + 'static,
    {
        let Some(queue) = &self.queue else { return };
        let (job, answer) = job(durable, work);
        if queue.send(job).await.is_err() {
            return;
        }
        // At most one such task per queued write: bounded by the queue and the batch.
        tokio::spawn(async move {
            if let Ok(Err(e)) = answer.await {
                tracing::warn!(error = %e, "a queued write failed");
            }
        });
    }
}

/// A queued write for `work`, and where its answer will arrive.
fn job<T, F>(durable: bool, work: F) -> (Box<dyn Pending>, oneshot::Receiver<Result<T, StoreError>>)
where
    T: Send + 'static,
    F: FnOnce(&WriteTransaction) -> Result<T, StoreError> + Send + 'static,
{
    let (reply, answer) = oneshot::channel();
    (Box::new(Job { durable, work: Some(work), result: None, reply }), answer)
}

/// Applies a batch in one transaction and answers every write of it.
fn commit(db: &Database, mut batch: Vec<Box<dyn Pending>>) {
    let outcome = (|| {
        let mut tx = db.begin_write().map_err(StoreError::unavailable)?;
        if batch.iter().all(|p| !p.durable()) {
            tx.set_durability(Durability::None).map_err(StoreError::unavailable)?;
        }
        for pending in &mut batch {
            pending.apply(&tx)?;
        }
        tx.commit().map_err(StoreError::unavailable)
    })();
    for pending in batch {
        pending.finish(outcome.clone());
    }
}
