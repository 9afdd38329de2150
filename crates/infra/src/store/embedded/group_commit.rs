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
//!
//! The writer also keeps the file usable: each write declares what it does to the disk
//! ([`Room`]), and before a batch is applied the writes that would not fit are answered `Full`
//! and left out (`embedded::room`); after a commit that failed on an I/O error it opens the
//! file again at once, and while the file cannot be opened it tries again every second
//! (`embedded::file`).

use std::sync::Arc;

use redb::{Durability, WriteTransaction};
use tokio::sync::{mpsc, oneshot};

use crate::store::{
    StoreError,
    embedded::file::{RETRY, StoreFile, db_err},
    embedded::room::Room,
};

/// Most writes in one transaction: bounds the time a batch holds the writer.
pub const MAX_BATCH: usize = 256;
/// Writes waiting for the writer before callers wait to queue (backpressure, not loss).
const QUEUE: usize = 4096;

/// One queued write, type-erased so one queue carries every kind.
trait Pending: Send {
    fn durable(&self) -> bool;
    fn room(&self) -> Room;
    fn apply(&mut self, tx: &WriteTransaction) -> Result<(), StoreError>;
    fn finish(self: Box<Self>, committed: Result<(), StoreError>);
}

struct Job<T, F> {
    durable: bool,
    room: Room,
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

    fn room(&self) -> Room {
        self.room
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
    /// Starts the writer thread for `file`.
    pub fn start(file: Arc<StoreFile>) -> Result<Writer, StoreError> {
        let (queue, mut rx) = mpsc::channel::<Box<dyn Pending>>(QUEUE);
        // A clock for waiting on the queue with a timeout while the file cannot be opened.
        let clock = tokio::runtime::Builder::new_current_thread()
            .enable_time()
            .build()
            .map_err(|e| StoreError::Unavailable(format!("cannot start the store writer: {e}")))?;
        let thread = std::thread::Builder::new()
            .name("wrench-store-writer".into())
            .spawn(move || {
                loop {
                    let first = if file.is_broken() {
                        match clock.block_on(async { tokio::time::timeout(RETRY, rx.recv()).await }) {
                            Ok(Some(job)) => Some(job),
                            Ok(None) => return,
                            Err(_) => None,
                        }
                    } else {
                        match rx.blocking_recv() {
                            Some(job) => Some(job),
                            None => return,
                        }
                    };
                    if file.is_broken() {
                        let _ = file.reopen();
                    }
                    let Some(first) = first else { continue };
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
                    let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| commit(&file, batch)));
                }
            })
            .map_err(|e| StoreError::Unavailable(format!("cannot start the store writer: {e}")))?;
        Ok(Writer { queue: Some(queue), thread: Some(thread) })
    }

    /// Runs `work` in the next transaction and answers once that transaction is committed.
    /// `room` says what the write does to the disk (checked before it is applied);
    /// `durable: false` (rate windows) lets a batch made only of such writes skip the fsync.
    pub async fn write<T, F>(&self, room: Room, durable: bool, work: F) -> Result<T, StoreError>
    where
        T: Send + 'static,
        F: FnOnce(&WriteTransaction) -> Result<T, StoreError> + Send + 'static,
    {
        let (job, answer) = job(room, durable, work);
        let stopped = || StoreError::Unavailable("the store writer has stopped".into());
        self.queue.as_ref().ok_or_else(stopped)?.send(job).await.map_err(|_| stopped())?;
        answer.await.map_err(|_| StoreError::Unavailable("the store writer stopped before committing".into()))?
    }

    /// Queues `work` for the next transaction without waiting for its commit (a click count
    /// behind a redirect): the caller waits only while the queue is full, so a writer that
    /// falls behind slows callers down instead of piling up work. A failure is logged.
    pub async fn submit<F>(&self, room: Room, durable: bool, work: F)
    where
        F: FnOnce(&WriteTransaction) -> Result<(), StoreError> + Send + 'static,
    {
        let Some(queue) = &self.queue else { return };
        let (job, answer) = job(room, durable, work);
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
fn job<T, F>(room: Room, durable: bool, work: F) -> (Box<dyn Pending>, oneshot::Receiver<Result<T, StoreError>>)
where
    T: Send + 'static,
    F: FnOnce(&WriteTransaction) -> Result<T, StoreError> + Send + 'static,
{
    let (reply, answer) = oneshot::channel();
    (Box::new(Job { durable, room, work: Some(work), result: None, reply }), answer)
}

/// Applies a batch in one transaction and answers every write of it: first those that find
/// no room (they never touch the file), then the rest with the commit's outcome. A commit that
/// failed on an I/O error leaves redb's handle refusing every later transaction, so the file
/// is opened again before the next batch.
fn commit(file: &StoreFile, batch: Vec<Box<dyn Pending>>) {
    let mut room = file.room.check();
    let mut batch: Vec<Box<dyn Pending>> = batch
        .into_iter()
        .filter_map(|pending| match file.room.admit(&mut room, pending.room()) {
            Ok(()) => Some(pending),
            Err(full) => {
                pending.finish(Err(full));
                None
            }
        })
        .collect();
    if batch.is_empty() {
        return;
    }
    let outcome = (|| {
        let db = file.current()?;
        let mut tx = db.begin_write().map_err(db_err)?;
        if batch.iter().all(|p| !p.durable()) {
            tx.set_durability(Durability::None).map_err(db_err)?;
        }
        for pending in &mut batch {
            pending.apply(&tx)?;
        }
        tx.commit().map_err(db_err)
    })();
    file.room.after_commit(&room, outcome.is_ok());
    // The handle is replaced before the callers hear of the failure, so that what they do
    // next (a read, say) meets a handle that works.
    if outcome.is_err() && file.needs_reopen() {
        let _ = file.reopen();
    }
    for pending in batch {
        pending.finish(outcome.clone());
    }
}
