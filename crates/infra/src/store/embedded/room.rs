//! The room the embedded store has on its disk, checked before a batch of writes is applied.
//!
//! Room is checked before writes rather than discovered by failing them: a write that fails on
//! a full disk costs a reopen of the file (`embedded::file`), during which reads wait. The
//! filesystem's free space is read once per batch (one `statvfs`); writes that add data are
//! refused while it is under [`RESERVE`], which keeps room for the writes that only count or
//! spend (a paste's last view, a link's visit, refused under [`KEEP_FLOOR`]) and for
//! deletions, which are always let through because they are how room is made.
//!
//! The file may have room the filesystem does not show: redb reuses the pages that deletions
//! and the sweep of expired entries freed before it grows the file. So below the thresholds
//! one write goes ahead as a probe, at once after a deletion was committed and otherwise every
//! [`PROBE_EVERY`], twice as long after each probe that found no room (up to
//! [`PROBE_AT_MOST`], so that probes eat little of the reserve). When a probe's commit takes no
//! space from the filesystem, the store is writing into its own freed pages, and writes go on
//! until a commit takes space again or fails. What no check can foresee (another program
//! filling the disk between the check and the commit, a quota) ends in a failed commit and a
//! reopen of the file.

use std::{
    path::PathBuf,
    sync::Mutex,
    time::{Duration, Instant},
};

use crate::store::StoreError;

/// Free space below which writes that add data are refused: room for counts, spent uses,
/// deletions and the sweep of expired entries, which need a few pages each.
pub const RESERVE: u64 = 8 << 20;
/// Free space below which writes that only count or spend are refused too.
pub const KEEP_FLOOR: u64 = 1 << 20;
/// How often, below the thresholds, a write goes ahead to find out whether the file has room
/// of its own for it.
pub const PROBE_EVERY: Duration = Duration::from_secs(2);
/// The longest wait between probes that keep finding no room.
pub const PROBE_AT_MOST: Duration = Duration::from_secs(32);

/// What a write does to the disk, declared with the write.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Room {
    /// Adds about this many bytes (a value, an entry, a batch of visits).
    Grows(usize),
    /// Counts, stamps or spends a use: a few pages rewritten.
    Keeps,
    /// Removes data (deletions, clearing a log, the sweep).
    Frees,
}

/// Bytes free on the disk; `None` when it cannot tell.
pub type FreeSpace = Box<dyn Fn() -> Option<u64> + Send + Sync>;

/// The disk's room and what the probes found.
pub struct DiskRoom {
    /// `None`: nothing is checked (a store in memory).
    free: Option<FreeSpace>,
    below: Mutex<BelowThresholds>,
}

/// What the writer knows of the room below the thresholds.
#[derive(Debug, Default)]
struct BelowThresholds {
    /// The last commit that went ahead below the thresholds fitted in the file's freed pages.
    inside: bool,
    /// When the next probe may go ahead; `None`: with the next write.
    probe_at: Option<Instant>,
    /// The wait after the next probe that finds no room.
    backoff: Duration,
}

/// The room check of one batch.
#[derive(Debug)]
pub struct RoomCheck {
    /// The disk's free space when the batch started; `None`: nothing is checked.
    free: Option<u64>,
    /// Bytes the writes let through so far add.
    admitted: u64,
    /// Whether a write went ahead below the thresholds (a probe, or on room in the file).
    beyond: bool,
    /// Whether a write that removes data went ahead.
    frees: bool,
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

impl DiskRoom {
    /// The room of the filesystem holding `dir`.
    pub fn of_dir(dir: PathBuf) -> DiskRoom {
        DiskRoom::new(Some(Box::new(move || {
            let stats = rustix::fs::statvfs(&dir).ok()?;
            Some(stats.f_bavail.saturating_mul(stats.f_frsize))
        })))
    }

    /// The room `free` tells (tests give a disk of their own); `None` checks nothing.
    pub fn new(free: Option<FreeSpace>) -> DiskRoom {
        DiskRoom { free, below: Mutex::default() }
    }

    /// Starts the check of a batch: reads the disk's free space once.
    pub fn check(&self) -> RoomCheck {
        RoomCheck { free: self.free.as_ref().and_then(|f| f()), admitted: 0, beyond: false, frees: false }
    }

    /// Whether a write of this kind goes ahead in the batch `check` describes; the reason
    /// when it does not. Below the thresholds it goes ahead when the file is known to have room
    /// of its own, or as the batch's probe when one is due.
    pub fn admit(&self, check: &mut RoomCheck, room: Room) -> Result<(), StoreError> {
        if let Err(full) = need(room, check.free, check.admitted) {
            let below = lock(&self.below);
            let probe = !check.beyond && below.probe_at.is_none_or(|at| Instant::now() >= at);
            if !below.inside && !probe {
                return Err(full);
            }
            check.beyond = true;
        }
        match room {
            Room::Grows(bytes) => check.admitted += bytes as u64,
            Room::Frees => check.frees = true,
            Room::Keeps => {}
        }
        Ok(())
    }

    /// Learns from a batch's commit: when writes went ahead below the thresholds, whether the
    /// commit fitted in the file (it took no space from the disk).
    /// A committed deletion makes the next probe due at once: it freed pages in the file.
    pub fn after_commit(&self, check: &RoomCheck, committed: bool) {
        if check.beyond {
            let after = self.free.as_ref().and_then(|f| f());
            let inside = committed && check.free.zip(after).is_some_and(|(before, after)| after >= before);
            let mut below = lock(&self.below);
            if inside && !below.inside {
                tracing::info!("the embedded store has room in its own file: writes go on below the disk's reserve");
            }
            below.inside = inside;
            if inside {
                below.backoff = PROBE_EVERY;
            } else {
                let wait = below.backoff.max(PROBE_EVERY);
                below.probe_at = Some(Instant::now() + wait);
                below.backoff = (wait * 2).min(PROBE_AT_MOST);
            }
        }
        if check.frees && committed {
            let mut below = lock(&self.below);
            below.probe_at = None;
            below.backoff = PROBE_EVERY;
        }
    }

    /// `Ok` when a write of new data would go ahead now, as far as the disk and the last probe
    /// tell; for `/health`.
    pub fn writable(&self) -> Result<(), StoreError> {
        let free = self.free.as_ref().and_then(|f| f());
        need(Room::Grows(0), free, 0).or_else(|full| if lock(&self.below).inside { Ok(()) } else { Err(full) })
    }
}

/// Whether a write of this kind has room, given `free` bytes and `admitted` bytes already let
/// through in the same batch; the reason, in words fit for a client, when it has not.
fn need(room: Room, free: Option<u64>, admitted: u64) -> Result<(), StoreError> {
    let Some(free) = free else { return Ok(()) };
    let need = match room {
        Room::Frees => return Ok(()),
        Room::Keeps => KEEP_FLOOR,
        // Twice the bytes: a commit writes its pages before the ones they replace are freed.
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

/// Bytes in MiB with one decimal, for messages.
fn mib(bytes: u64) -> String {
    format!("{:.1} MiB", bytes as f64 / (1 << 20) as f64)
}

#[cfg(test)]
mod tests {
    use std::sync::{Arc, atomic::AtomicU64, atomic::Ordering};

    use super::*;

    #[test]
    fn new_data_is_refused_below_the_reserve_counts_below_the_floor_and_deletions_never() {
        assert!(need(Room::Grows(1 << 20), None, 0).is_ok(), "in memory nothing is checked");
        assert!(need(Room::Grows(1 << 20), Some(RESERVE + (2 << 20)), 0).is_ok());
        let full = need(Room::Grows(1 << 20), Some(RESERVE + (2 << 20) - 1), 0);
        assert!(
            matches!(&full, Err(StoreError::Full(why)) if why.contains("10.0 MiB") && !why.contains('/')),
            "{full:?}"
        );
        assert!(need(Room::Grows(1 << 20), Some(RESERVE + (4 << 20)), 1 << 20).is_ok());
        assert!(
            need(Room::Grows(1 << 20), Some(RESERVE + (4 << 20)), (1 << 20) + 1).is_err(),
            "the batch's earlier writes count"
        );
        assert!(need(Room::Keeps, Some(KEEP_FLOOR), 0).is_ok());
        assert!(need(Room::Keeps, Some(KEEP_FLOOR - 1), 0).is_err());
        assert!(need(Room::Frees, Some(0), 0).is_ok(), "deleting is how room is made");
    }

    #[test]
    fn below_the_reserve_one_probe_goes_ahead_and_a_commit_that_fits_in_the_file_opens_the_way() {
        let free = Arc::new(AtomicU64::new(RESERVE - 1));
        let reading = free.clone();
        let room = DiskRoom::new(Some(Box::new(move || Some(reading.load(Ordering::SeqCst)))));
        assert!(room.writable().is_err());

        // The first write below the reserve is the probe; the others of its batch wait.
        let mut batch = room.check();
        assert!(room.admit(&mut batch, Room::Grows(100)).is_ok(), "the probe");
        assert!(room.admit(&mut batch, Room::Grows(100)).is_err(), "one probe a batch");
        assert!(room.admit(&mut batch, Room::Keeps).is_ok(), "counts have their own floor");
        // Its commit took space from the disk: no room in the file, and no probe for a while,
        // twice as long after each probe that finds none.
        free.fetch_sub(4096, Ordering::SeqCst);
        room.after_commit(&batch, true);
        let mut batch = room.check();
        assert!(room.admit(&mut batch, Room::Grows(100)).is_err(), "the next probe waits {PROBE_EVERY:?}");
        assert!(room.writable().is_err());
        assert_eq!(lock(&room.below).backoff, 2 * PROBE_EVERY);
        lock(&room.below).probe_at = None;
        let mut batch = room.check();
        assert!(room.admit(&mut batch, Room::Grows(100)).is_ok());
        free.fetch_sub(4096, Ordering::SeqCst);
        room.after_commit(&batch, true);
        assert_eq!(lock(&room.below).backoff, 4 * PROBE_EVERY);

        // A deletion makes the next probe due at once; one whose commit takes nothing from the
        // disk shows the file's own room.
        let mut batch = room.check();
        assert!(room.admit(&mut batch, Room::Frees).is_ok());
        room.after_commit(&batch, true);
        let mut batch = room.check();
        assert!(room.admit(&mut batch, Room::Grows(100)).is_ok());
        room.after_commit(&batch, true);
        assert!(room.writable().is_ok(), "writes go on in the file's freed pages");
        let mut batch = room.check();
        for _ in 0..10 {
            assert!(room.admit(&mut batch, Room::Grows(100)).is_ok());
        }
        // Until a commit fails (or takes space again): then it is a probe at a time once more.
        room.after_commit(&batch, false);
        let mut batch = room.check();
        assert!(room.admit(&mut batch, Room::Grows(100)).is_err());
        assert!(room.writable().is_err());
    }
}
