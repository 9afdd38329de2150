//! The embedded store's file: opening it, opening it again after a disk error, and the room
//! left on its disk.
//!
//! redb stops trusting its handle after any I/O error (a write that met a full disk, say):
//! every later transaction fails with "previous I/O error" until the database is closed and
//! opened again, and reads of pages not already cached fail too. The file itself is intact
//! (redb commits copy-on-write, so the last commit stands), and opening it again repairs what
//! the failed commit left, even on a disk that is still full (measured: 9 ms for a 8 MB file,
//! 0.33 s for 300 MB). So the writer, the only code that writes, reopens the file as soon as a
//! commit fails that way ([`StoreFile::reopen`]); readers wait for the new handle instead of
//! failing. While no handle can be opened, calls fail with the reason and the writer tries
//! again every [`RETRY`].
//!
//! Room is checked before writes rather than discovered by failing them ([`StoreFile::room`]):
//! the filesystem's free space is read (one `statvfs`) before each batch, and writes that add
//! data are refused while it is under [`RESERVE`], which keeps room for the writes that only
//! count or spend (a paste's last view, a link's visit) and for deletions, which make room.
//! What the check cannot foresee (another program filling the disk between the check and the
//! write, a quota) ends in a failed commit and a reopen, and the next batch is checked again.

use std::{
    path::{Path, PathBuf},
    sync::{
        Arc, Mutex, RwLock,
        atomic::{AtomicU64, Ordering},
    },
    time::Duration,
};

use redb::{Builder, Database, ReadableDatabase};

use super::StoreError;

/// Free space below which writes that add data are refused: room for counts, spent uses,
/// deletions and the sweep of expired entries, which need a few pages each.
pub const RESERVE: u64 = 8 << 20;
/// Free space below which writes that only count or spend are refused too; deletions still go.
pub const KEEP_FLOOR: u64 = 1 << 20;
/// How often the writer tries again to open a file it could not reopen.
pub const RETRY: Duration = Duration::from_secs(1);
/// Longest the writer waits for reads started on the old handle before it reopens anyway later.
const READERS_WAIT: Duration = Duration::from_secs(5);

/// What a write does to the disk, declared with the write and checked before it is applied.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Room {
    /// Adds about this many bytes (a value, an entry, a batch of visits).
    Grows(usize),
    /// Counts, stamps or spends a use: a few pages rewritten.
    Keeps,
    /// Removes data (deletions, clearing a log, the sweep): always let through, since it is
    /// how room is made.
    Frees,
}

/// Opens the database (again).
pub type Opener = Box<dyn Fn() -> Result<Database, redb::DatabaseError> + Send + Sync>;

/// The store's database handle, replaced when it has to be reopened.
pub struct StoreFile {
    /// How to open the database again; `None` for a store in memory (tests), which cannot be.
    open: Option<Opener>,
    /// The directory whose filesystem's room is checked; `None` in memory.
    dir: Option<PathBuf>,
    /// The handle; `None` while the file could not be opened again.
    db: RwLock<Option<Arc<Database>>>,
    /// Why the file could not be opened again, while it cannot.
    broken: Mutex<Option<String>>,
    /// How many times the file was opened again.
    reopened: AtomicU64,
}

fn builder(cache: usize) -> Builder {
    let mut builder = Builder::new();
    builder.set_cache_size(cache);
    builder
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// The meaning of a redb error: a full disk (or quota) is [`StoreError::Full`], anything else
/// an outage of the file.
pub(crate) fn db_err(e: impl Into<redb::Error>) -> StoreError {
    let e: redb::Error = e.into();
    if let redb::Error::Io(io) = &e
        && matches!(
            io.kind(),
            std::io::ErrorKind::StorageFull | std::io::ErrorKind::QuotaExceeded | std::io::ErrorKind::FileTooLarge
        )
    {
        return StoreError::Full("the disk holding the embedded store is full".into());
    }
    StoreError::Unavailable(e.to_string())
}

impl StoreFile {
    /// Opens (or creates) the file at `path` with a page cache of at most `cache` bytes.
    pub fn open(path: &Path, cache: usize) -> Result<StoreFile, StoreError> {
        let shown = path.display().to_string();
        let path = path.to_path_buf();
        let dir = path.parent().map(Path::to_path_buf);
        // redb's builder is not `Send`, so one is made for each open.
        let open: Opener = Box::new(move || builder(cache).create(&path));
        StoreFile::with_opener(dir, open).map_err(|e| StoreError::Unavailable(format!("cannot open {shown}: {e}")))
    }

    /// A store opened (and opened again) by `open`, whose room is that of `dir`'s filesystem;
    /// tests give a backend that fails as a full disk does.
    pub fn with_opener(dir: Option<PathBuf>, open: Opener) -> Result<StoreFile, StoreError> {
        let db = open().map_err(db_err)?;
        Ok(StoreFile {
            open: Some(open),
            dir,
            db: RwLock::new(Some(Arc::new(db))),
            broken: Mutex::new(None),
            reopened: AtomicU64::new(0),
        })
    }

    /// A store that lives in memory only.
    pub fn in_memory(cache: usize) -> Result<StoreFile, StoreError> {
        let db = builder(cache).create_with_backend(redb::backends::InMemoryBackend::new()).map_err(db_err)?;
        Ok(StoreFile {
            open: None,
            dir: None,
            db: RwLock::new(Some(Arc::new(db))),
            broken: Mutex::new(None),
            reopened: AtomicU64::new(0),
        })
    }

    /// The handle to use now. While the writer reopens the file this waits for it (a read
    /// waits at most the time redb takes to open the file); while the file cannot be opened,
    /// the reason.
    pub fn current(&self) -> Result<Arc<Database>, StoreError> {
        let db = self.db.read().unwrap_or_else(|e| e.into_inner()).clone();
        db.ok_or_else(|| self.broken_error())
    }

    /// The handle when taking it needs no wait (a reopen is not under way), for callers on an
    /// async thread that would rather hand the read to the blocking pool than wait there.
    pub fn try_current(&self) -> Option<Arc<Database>> {
        self.db.try_read().ok().and_then(|db| db.clone())
    }

    /// Whether the last attempt to open the file again failed (there is no handle).
    pub fn is_broken(&self) -> bool {
        lock(&self.broken).is_some()
    }

    fn broken_error(&self) -> StoreError {
        let why = lock(&self.broken).clone().unwrap_or_else(|| "it is being opened again".into());
        StoreError::Unavailable(format!("the embedded store's file cannot be used: {why}"))
    }

    /// Whether the handle has stopped taking transactions after an I/O error (redb's
    /// "previous I/O error"), or there is no handle: either way it must be opened again.
    pub fn needs_reopen(&self) -> bool {
        let Ok(db) = self.current() else { return self.open.is_some() };
        match db.begin_write() {
            Ok(tx) => {
                let _ = tx.abort();
                false
            }
            Err(redb::TransactionError::Storage(redb::StorageError::PreviousIo)) => true,
            Err(_) => false,
        }
    }

    /// Closes the handle and opens the file again; called by the writer only. Reads started on
    /// the old handle finish first (new ones wait meanwhile). When the file cannot be opened,
    /// there is no handle until a later call succeeds.
    pub fn reopen(&self) -> Result<(), StoreError> {
        let Some(open) = &self.open else { return Ok(()) };
        let mut slot = self.db.write().unwrap_or_else(|e| e.into_inner());
        if let Some(old) = slot.take() {
            let waited = std::time::Instant::now();
            while Arc::strong_count(&old) > 1 {
                if waited.elapsed() > READERS_WAIT {
                    *slot = Some(old);
                    return Err(StoreError::Unavailable("reads on the old handle did not finish".into()));
                }
                std::thread::sleep(Duration::from_millis(1));
            }
            // Closing a handle after an I/O error writes nothing; the next open repairs.
            drop(old);
        }
        let started = std::time::Instant::now();
        match open() {
            Ok(db) => {
                *slot = Some(Arc::new(db));
                lock(&self.broken).take();
                self.reopened.fetch_add(1, Ordering::Relaxed);
                crate::metrics::store_reopened();
                tracing::warn!(
                    took_ms = started.elapsed().as_millis() as u64,
                    "the embedded store's file was opened again after a disk error"
                );
                Ok(())
            }
            Err(e) => {
                let e = db_err(e);
                let why = match &e {
                    StoreError::Full(why) => why.clone(),
                    other => other.to_string(),
                };
                tracing::warn!(error = %why, "the embedded store's file could not be opened again; retrying");
                *lock(&self.broken) = Some(why);
                Err(e)
            }
        }
    }

    /// How many times the file was opened again after a disk error.
    pub fn reopened(&self) -> u64 {
        self.reopened.load(Ordering::Relaxed)
    }

    /// Bytes free to an unprivileged writer on the file's filesystem; `None` in memory or
    /// when the filesystem does not say.
    pub fn free_bytes(&self) -> Option<u64> {
        let stats = rustix::fs::statvfs(self.dir.as_deref()?).ok()?;
        Some(stats.f_bavail.saturating_mul(stats.f_frsize))
    }

    /// Whether a write of this kind has room, given `free` bytes and `admitted` bytes already
    /// let through in the same batch; the reason when it has not.
    pub fn room(room: Room, free: Option<u64>, admitted: u64) -> Result<(), StoreError> {
        let Some(free) = free else { return Ok(()) };
        let need = match room {
            Room::Frees => return Ok(()),
            Room::Keeps => KEEP_FLOOR,
            // Twice the bytes: the pages a commit writes before the old ones are freed.
            Room::Grows(bytes) => RESERVE + 2 * (bytes as u64 + admitted),
        };
        if free >= need {
            return Ok(());
        }
        Err(StoreError::Full(match room {
            Room::Grows(_) => format!(
                "the disk holding the embedded store has {} free; this write needs {} with the {} kept in reserve",
                mib(free),
                mib(need),
                mib(RESERVE)
            ),
            _ => format!(
                "the disk holding the embedded store has {} free, under the {} kept for counts",
                mib(free),
                mib(KEEP_FLOOR)
            ),
        }))
    }

    /// `Ok` when a write of new data would find room now; for `/health`.
    pub fn writable(&self) -> Result<(), StoreError> {
        if lock(&self.broken).is_some() {
            return Err(self.broken_error());
        }
        StoreFile::room(Room::Grows(0), self.free_bytes(), 0)
    }

    /// Checks a read transaction can be begun (for pings).
    pub fn ping(&self) -> Result<(), StoreError> {
        self.current()?.begin_read().map(|_| ()).map_err(db_err)
    }
}

/// Bytes in MiB with one decimal, for messages.
fn mib(bytes: u64) -> String {
    format!("{:.1} MiB", bytes as f64 / (1 << 20) as f64)
}

#[cfg(test)]
mod tests {
    use std::{
        collections::HashSet,
        sync::atomic::{AtomicBool, Ordering},
    };

    use redb::{StorageBackend, backends::InMemoryBackend};

    use super::*;
    use crate::store::{Store, embedded::EmbeddedStore};

    /// Storage that fails as a full disk fails: once `full` is set, a write that touches a
    /// 4 KiB block never written before gets `StorageFull` (setting the length allocates
    /// nothing, as on tmpfs or ext4), while blocks already written can be written again.
    #[derive(Debug)]
    struct Disk {
        bytes: Arc<InMemoryBackend>,
        written: Arc<Mutex<HashSet<u64>>>,
        full: Arc<AtomicBool>,
    }

    impl StorageBackend for Disk {
        fn len(&self) -> Result<u64, std::io::Error> {
            self.bytes.len()
        }
        fn read(&self, offset: u64, out: &mut [u8]) -> Result<(), std::io::Error> {
            self.bytes.read(offset, out)
        }
        fn set_len(&self, len: u64) -> Result<(), std::io::Error> {
            self.bytes.set_len(len)
        }
        fn sync_data(&self) -> Result<(), std::io::Error> {
            self.bytes.sync_data()
        }
        fn write(&self, offset: u64, data: &[u8]) -> Result<(), std::io::Error> {
            let blocks = offset / 4096..=(offset + data.len().max(1) as u64 - 1) / 4096;
            let mut written = lock(&self.written);
            if self.full.load(Ordering::SeqCst) && blocks.clone().any(|b| !written.contains(&b)) {
                return Err(std::io::Error::from(std::io::ErrorKind::StorageFull));
            }
            written.extend(blocks);
            self.bytes.write(offset, data)
        }
    }

    #[test]
    fn room_is_refused_below_the_reserve_for_new_data_and_below_the_floor_for_counts() {
        assert!(StoreFile::room(Room::Grows(1 << 20), None, 0).is_ok(), "in memory nothing is checked");
        assert!(StoreFile::room(Room::Grows(1 << 20), Some(RESERVE + (2 << 20)), 0).is_ok());
        let full = StoreFile::room(Room::Grows(1 << 20), Some(RESERVE + (2 << 20) - 1), 0);
        assert!(
            matches!(&full, Err(StoreError::Full(why)) if why.contains("10.0 MiB") && !why.contains('/')),
            "{full:?}"
        );
        assert!(StoreFile::room(Room::Grows(1 << 20), Some(RESERVE + (4 << 20)), 1 << 20).is_ok());
        assert!(
            StoreFile::room(Room::Grows(1 << 20), Some(RESERVE + (4 << 20)), (1 << 20) + 1).is_err(),
            "the batch's earlier writes count"
        );
        assert!(StoreFile::room(Room::Keeps, Some(KEEP_FLOOR), 0).is_ok());
        assert!(StoreFile::room(Room::Keeps, Some(KEEP_FLOOR - 1), 0).is_err());
        assert!(StoreFile::room(Room::Frees, Some(0), 0).is_ok(), "deleting is how room is made");
    }

    #[tokio::test]
    async fn a_full_disk_refuses_writes_keeps_reads_and_heals_without_a_restart() {
        let written: Arc<Mutex<HashSet<u64>>> = Arc::default();
        let (bytes, full) = (Arc::new(InMemoryBackend::new()), Arc::new(AtomicBool::new(false)));
        let disk = (bytes.clone(), Arc::clone(&written), full.clone());
        // A small cache, so that reads go to the storage and would fail on a handle redb
        // stopped trusting.
        let open: Opener = Box::new(move || {
            builder(64 << 10).create_with_backend(Disk {
                bytes: disk.0.clone(),
                written: disk.1.clone(),
                full: disk.2.clone(),
            })
        });
        let file = StoreFile::with_opener(None, open).unwrap();
        let store = EmbeddedStore::with_file(file).unwrap();
        let value = |i: usize| vec![i as u8; 3000 + i];
        for i in 0..200 {
            store.put(&format!("paste:{i}"), &value(i), None).await.unwrap();
        }

        full.store(true, Ordering::SeqCst);
        let refused = store.put("big", &vec![7; 200_000], None).await;
        assert!(matches!(&refused, Err(StoreError::Full(_))), "{refused:?}");
        assert_eq!(store.file().reopened(), 1, "the handle redb stopped trusting was replaced");
        // Reads go on after the failed commit: every acknowledged value, none torn.
        for i in 0..200 {
            assert_eq!(store.get(&format!("paste:{i}")).await.unwrap(), Some(value(i)), "paste:{i}");
        }
        assert_eq!(store.get("big").await.unwrap(), None, "the refused write left nothing");
        // More refusals cost a reopen each and nothing else.
        for _ in 0..3 {
            assert!(matches!(store.put("big", &vec![7; 200_000], None).await, Err(StoreError::Full(_))));
        }
        assert!(store.get("paste:3").await.unwrap().is_some());

        // Room returns: the next write works, with no restart.
        full.store(false, Ordering::SeqCst);
        store.put("after", b"room again", None).await.unwrap();
        assert_eq!(store.get("after").await.unwrap().as_deref(), Some(&b"room again"[..]));
        assert_eq!(store.incr("n", None).await.unwrap().0, 1);

        // And a store opened afresh on the same bytes has everything acknowledged.
        drop(store);
        let reopened = EmbeddedStore::with_file(
            StoreFile::with_opener(
                None,
                Box::new(move || {
                    Builder::new().create_with_backend(Disk {
                        bytes: bytes.clone(),
                        written: written.clone(),
                        full: Arc::new(AtomicBool::new(false)),
                    })
                }),
            )
            .unwrap(),
        )
        .unwrap();
        for i in 0..200 {
            assert_eq!(reopened.get(&format!("paste:{i}")).await.unwrap(), Some(value(i)));
        }
        assert_eq!(reopened.get("after").await.unwrap().as_deref(), Some(&b"room again"[..]));
        assert_eq!(reopened.get("big").await.unwrap(), None);
    }
}
