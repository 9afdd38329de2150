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
//! Room on the disk is checked before writes are applied (`embedded::room`); this module
//! holds the room of the file's disk for the writer.

use std::{
    path::Path,
    sync::{
        Arc, Mutex, RwLock,
        atomic::{AtomicU64, Ordering},
    },
    time::Duration,
};

use redb::{Builder, Database, ReadableDatabase};

use crate::store::{StoreError, embedded::room::DiskRoom};

/// How often the writer tries again to open a file it could not reopen.
pub const RETRY: Duration = Duration::from_secs(1);
/// Longest the writer waits for reads started on the old handle before it reopens anyway later.
const READERS_WAIT: Duration = Duration::from_secs(5);

/// Opens the database (again).
pub type Opener = Box<dyn Fn() -> Result<Database, redb::DatabaseError> + Send + Sync>;

/// The store's database handle, replaced when it has to be reopened.
pub struct StoreFile {
    /// How to open the database again; `None` for a store in memory (tests), which cannot be.
    open: Option<Opener>,
    /// The room on the file's disk.
    pub room: DiskRoom,
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
        let room = DiskRoom::of_dir(path.parent().map(Path::to_path_buf).unwrap_or_default());
        // redb's builder is not `Send`, so one is made for each open.
        let open: Opener = Box::new(move || builder(cache).create(&path));
        StoreFile::with_opener(open, room).map_err(|e| StoreError::Unavailable(format!("cannot open {shown}: {e}")))
    }

    /// A store opened (and opened again) by `open`, on a disk whose room `room` tells; tests
    /// give storage that fails as a full disk does.
    pub fn with_opener(open: Opener, room: DiskRoom) -> Result<StoreFile, StoreError> {
        let db = open().map_err(db_err)?;
        Ok(StoreFile {
            open: Some(open),
            room,
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
            room: DiskRoom::new(None),
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

    /// `Ok` when a write of new data would go ahead now; for `/health`.
    pub fn writable(&self) -> Result<(), StoreError> {
        if self.is_broken() {
            return Err(self.broken_error());
        }
        self.room.writable()
    }

    /// Checks a read transaction can be begun (for pings).
    pub fn ping(&self) -> Result<(), StoreError> {
        self.current()?.begin_read().map(|_| ()).map_err(db_err)
    }
}

#[cfg(test)]
mod tests {
    use std::collections::{HashMap, HashSet};

    use redb::{StorageBackend, backends::InMemoryBackend};

    use super::*;
    use crate::store::{Store, embedded::EmbeddedStore, embedded::room::PROBE_EVERY};

    /// A disk of `size` bytes shared by the store's file and `ballast` (another program's
    /// files). Writing a 4 KiB block never written before takes a block of the disk, and
    /// fails with `StorageFull` when none is left; blocks already written can be written
    /// again, and setting the file's length takes nothing, as on tmpfs or ext4.
    #[derive(Debug, Default)]
    struct DiskState {
        size: u64,
        ballast: u64,
        written: HashSet<u64>,
    }

    impl DiskState {
        fn free(&self) -> u64 {
            self.size.saturating_sub(self.ballast + 4096 * self.written.len() as u64)
        }
    }

    #[derive(Debug)]
    struct Disk {
        bytes: Arc<InMemoryBackend>,
        state: Arc<Mutex<DiskState>>,
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
            let mut disk = lock(&self.state);
            let blocks = offset / 4096..=(offset + data.len().max(1) as u64 - 1) / 4096;
            let new = blocks.clone().filter(|b| !disk.written.contains(b)).count() as u64;
            if new * 4096 > disk.free() {
                return Err(std::io::Error::from(std::io::ErrorKind::StorageFull));
            }
            disk.written.extend(blocks);
            self.bytes.write(offset, data)
        }
    }

    /// A store on `disk`, with a page cache small enough that reads go to the disk (and
    /// would fail on a handle redb stopped trusting).
    fn store_on(bytes: &Arc<InMemoryBackend>, disk: &Arc<Mutex<DiskState>>) -> EmbeddedStore {
        let (b, d) = (bytes.clone(), disk.clone());
        let open: Opener =
            Box::new(move || builder(64 << 10).create_with_backend(Disk { bytes: b.clone(), state: d.clone() }));
        let d = disk.clone();
        let room = DiskRoom::new(Some(Box::new(move || Some(lock(&d).free()))));
        EmbeddedStore::with_file(StoreFile::with_opener(open, room).unwrap()).unwrap()
    }

    fn value(i: usize) -> Vec<u8> {
        (0..64 * 1024 + i).map(|n| (n * 7 + i) as u8).collect()
    }

    async fn all_read_back(store: &EmbeddedStore, kept: &HashMap<String, Vec<u8>>) {
        for (key, v) in kept {
            assert_eq!(store.get(key).await.unwrap().as_ref(), Some(v), "{key}");
        }
    }

    #[tokio::test]
    async fn a_full_disk_refuses_new_data_keeps_reads_and_heals_without_a_restart() {
        let bytes = Arc::new(InMemoryBackend::new());
        let disk = Arc::new(Mutex::new(DiskState { size: 16 << 20, ..DiskState::default() }));
        let store = store_on(&bytes, &disk);
        let mut kept = HashMap::new();

        // The store fills its disk: new data is refused at the reserve, before any commit fails.
        let mut refused = None;
        for i in 0..1000 {
            let key = format!("paste:{i}");
            match store.put(&key, &value(i), None).await {
                Ok(()) => {
                    kept.insert(key, value(i));
                }
                Err(e) => {
                    refused = Some(e);
                    break;
                }
            }
        }
        let refused = refused.expect("the disk filled up");
        assert!(matches!(&refused, StoreError::Full(why) if why.contains("reserve")), "{refused:?}");
        assert!(kept.len() >= 20, "only {} values fitted", kept.len());
        assert!(store.writable().await.is_err());
        all_read_back(&store, &kept).await;
        // Counting still works below the reserve, and so does deleting.
        assert_eq!(store.incr("views", None).await.unwrap().0, 1);

        // Another program takes the rest of the disk: probes now fail in the commit, which
        // costs a reopen of the file and nothing else.
        let left = lock(&disk).free();
        lock(&disk).ballast = left;
        let mut failed_commits = 0;
        for _ in 0..3 {
            tokio::time::sleep(PROBE_EVERY).await;
            assert!(matches!(store.put("big", &vec![1; 300_000], None).await, Err(StoreError::Full(_))));
            failed_commits = store.file().reopened();
        }
        assert!(failed_commits >= 1, "a probe's commit met the full disk");
        all_read_back(&store, &kept).await;
        assert_eq!(store.get("big").await.unwrap(), None, "a refused write leaves nothing");

        // Deleting makes room inside the file, which the next probe finds: writes resume
        // although the disk itself has no more room than before.
        let gone: Vec<String> = kept.keys().take(kept.len() / 2).cloned().collect();
        for key in &gone {
            store.delete(&[key]).await.unwrap();
            kept.remove(key);
        }
        let resumed = std::time::Instant::now();
        let mut written = 0;
        while resumed.elapsed() < 2 * PROBE_EVERY + Duration::from_secs(1) && written < 5 {
            let key = format!("again:{written}");
            if store.put(&key, &value(written), None).await.is_ok() {
                kept.insert(key, value(written));
                written += 1;
            } else {
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
        }
        assert_eq!(written, 5, "writes did not resume in the file's freed pages");
        assert!(store.writable().await.is_ok());

        // The other program's files go: the disk's room is back.
        lock(&disk).ballast = 0;
        store.put("after", &value(1), None).await.unwrap();
        kept.insert("after".into(), value(1));
        all_read_back(&store, &kept).await;

        // A store opened afresh on the same disk has everything acknowledged, nothing torn.
        drop(store);
        let reopened = store_on(&bytes, &disk);
        all_read_back(&reopened, &kept).await;
        for key in &gone {
            assert_eq!(reopened.get(key).await.unwrap(), None);
        }
        eprintln!(
            "{} values kept, {failed_commits} reopen(s) after failed commits, writes resumed in the file after {:?}",
            kept.len(),
            resumed.elapsed()
        );
    }
}
