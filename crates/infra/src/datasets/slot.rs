//! One data set given as files: loaded on first use (or by the warm-up at start), kept whole in
//! memory, and replaced when the files change on disk, without a request ever seeing a
//! half-loaded copy.
//!
//! Files are read into memory rather than mapped: geoipupdate and similar tools may rewrite a
//! file in place, and a mapped file changing under a reader is undefined behaviour. A reload
//! reads every file, checks each was the same size and age before and after the read (a file
//! still being written fails this), parses and verifies the copy, and only then swaps it in.
//! Until then, and whenever a new copy fails, requests keep the copy they had; the failure
//! is kept for `wrench data` and `/health`.

use std::{
    fs,
    path::{Path, PathBuf},
    sync::{Arc, Mutex, RwLock},
    time::{Duration, Instant, SystemTime},
};

use crate::envelope::{ApiError, ErrorCode};

/// What identifies one version of a file on disk.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Stamp {
    len: u64,
    modified: Option<SystemTime>,
    inode: u64,
}

fn stamp(path: &Path) -> std::io::Result<Stamp> {
    let m = fs::metadata(path)?;
    #[cfg(unix)]
    let inode = std::os::unix::fs::MetadataExt::ino(&m);
    #[cfg(not(unix))]
    let inode = 0;
    Ok(Stamp { len: m.len(), modified: m.modified().ok(), inode })
}

/// What a loaded copy says of itself, for `wrench data`, `/health` and answers.
#[derive(Debug, Clone, serde::Serialize, schemars::JsonSchema, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct Summary {
    /// The format and schema read (`mmdb GeoIP2 City`, `mmdb flat city`, `CSV ranges`).
    pub format: String,
    /// The database type its metadata gives (`GeoLite2-City`, `DBIP-City-Lite`), or the
    /// file names for CSV.
    pub source: String,
    /// When the data was built (RFC 3339), where the file says.
    pub built: Option<String>,
    /// Networks or ranges held.
    pub records: u64,
    /// The licence or terms the source is known to carry, or what the file says of itself.
    pub licence: String,
    /// The credit the licence asks answers to carry, where one is known.
    pub attribution: Option<String>,
}

/// A parsed copy of a data set.
pub trait Dataset: Sized + Send + Sync + 'static {
    /// Parses the files' contents (path, bytes), in the order configured; the bytes are
    /// handed over so a reader can keep them without a copy.
    fn parse(files: Vec<(PathBuf, Vec<u8>)>) -> Result<(Self, Summary), String>;
}

/// A loaded copy and what it was loaded from.
pub struct Loaded<T> {
    pub data: T,
    pub summary: Summary,
    pub loaded_at: SystemTime,
    stamps: Vec<Stamp>,
}

pub struct Slot<T: Dataset> {
    /// What the data set is, for messages (`IP geolocation`).
    pub what: &'static str,
    /// The setting that names its files.
    pub setting: &'static str,
    paths: Vec<PathBuf>,
    recheck: Duration,
    current: RwLock<Option<Arc<Loaded<T>>>>,
    /// One load at a time; a request waiting for the first load waits here.
    loading: tokio::sync::Mutex<()>,
    last_check: Mutex<Option<Instant>>,
    last_error: Mutex<Option<String>>,
}

/// Where a data set stands. A set that failed to reload keeps serving its loaded copy, so it
/// is `Loaded` with an error beside it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub enum State {
    #[serde(rename = "not configured")]
    NotConfigured,
    #[serde(rename = "not loaded yet")]
    NotLoadedYet,
    #[serde(rename = "loaded")]
    Loaded,
    #[serde(rename = "failed")]
    Failed,
}

impl State {
    /// Whether the set is as the operator asked: loaded, or not asked for.
    pub fn is_ready(self) -> bool {
        matches!(self, State::Loaded | State::NotConfigured)
    }
}

impl std::fmt::Display for State {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            State::NotConfigured => "not configured",
            State::NotLoadedYet => "not loaded yet",
            State::Loaded => "loaded",
            State::Failed => "failed",
        })
    }
}

/// The state of a slot, for `wrench data` and `/health`.
#[derive(Debug, Clone, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Status {
    pub name: &'static str,
    pub setting: &'static str,
    /// Paths on the server: printed by `wrench data`, not published by `/health`.
    #[serde(skip)]
    pub files: Vec<String>,
    pub state: State,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub summary: Option<Summary>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub loaded_at: Option<String>,
    /// The last load that failed (a loaded copy stays in use).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

impl<T: Dataset> Slot<T> {
    pub fn new(what: &'static str, setting: &'static str, paths: Vec<PathBuf>, recheck: Duration) -> Self {
        Slot {
            what,
            setting,
            paths,
            recheck,
            current: RwLock::new(None),
            loading: tokio::sync::Mutex::new(()),
            last_check: Mutex::new(None),
            last_error: Mutex::new(None),
        }
    }

    pub fn configured(&self) -> bool {
        !self.paths.is_empty()
    }

    fn current(&self) -> Option<Arc<Loaded<T>>> {
        self.current.read().unwrap_or_else(|e| e.into_inner()).clone()
    }

    fn not_installed(&self, why: &str) -> ApiError {
        ApiError::new(
            ErrorCode::DatasetNotInstalled,
            format!("{} needs a data file: {why}; see the README's \"Data sets\" section", self.what),
        )
    }

    /// The loaded copy, loading it first if this is the first use. Also starts a background
    /// reload when the recheck interval has passed and the files changed.
    pub async fn get(self: &Arc<Self>) -> Result<Arc<Loaded<T>>, ApiError> {
        if !self.configured() {
            return Err(self.not_installed(&format!("set {} to the file's path", self.setting)));
        }
        if let Some(c) = self.current() {
            self.maybe_recheck(&c);
            return Ok(c);
        }
        self.load_now().await?;
        self.current().ok_or_else(|| self.not_installed("the load did not finish"))
    }

    /// Loads (or reloads) now unless the loaded copy matches the files; keeps the old copy on
    /// failure.
    pub async fn load_now(self: &Arc<Self>) -> Result<(), ApiError> {
        let _one = self.loading.lock().await;
        let this = self.clone();
        let result = tokio::task::spawn_blocking(move || this.load_blocking())
            .await
            .unwrap_or_else(|e| Err(format!("the loader stopped: {e}")));
        match result {
            Ok(()) => Ok(()),
            Err(e) => {
                tracing::warn!(dataset = self.setting, error = %e, "data set not loaded");
                *self.last_error.lock().unwrap_or_else(|p| p.into_inner()) = Some(e.clone());
                match self.current() {
                    Some(_) => Ok(()),
                    None => Err(self.not_installed(&format!("{} could not be loaded ({e})", self.setting))),
                }
            }
        }
    }

    fn stamps(&self) -> Result<Vec<Stamp>, String> {
        self.paths.iter().map(|p| stamp(p).map_err(|e| format!("{}: {e}", p.display()))).collect()
    }

    fn load_blocking(&self) -> Result<(), String> {
        let before = self.stamps()?;
        if self.current().is_some_and(|c| c.stamps == before) {
            return Ok(());
        }
        let mut files = Vec::with_capacity(self.paths.len());
        for p in &self.paths {
            files.push((p.clone(), fs::read(p).map_err(|e| format!("{}: {e}", p.display()))?));
        }
        let after = self.stamps()?;
        if after != before {
            return Err("a file changed while it was read (still being written?); it is read again later".into());
        }
        let (data, summary) = T::parse(files)?;
        let loaded = Arc::new(Loaded { data, summary, loaded_at: SystemTime::now(), stamps: after });
        tracing::info!(dataset = self.setting, records = loaded.summary.records, "data set loaded");
        *self.current.write().unwrap_or_else(|e| e.into_inner()) = Some(loaded);
        *self.last_error.lock().unwrap_or_else(|p| p.into_inner()) = None;
        Ok(())
    }

    fn maybe_recheck(self: &Arc<Self>, current: &Loaded<T>) {
        {
            let mut last = self.last_check.lock().unwrap_or_else(|p| p.into_inner());
            if last.is_some_and(|t| t.elapsed() < self.recheck) {
                return;
            }
            *last = Some(Instant::now());
        }
        // A stat per file, at most once per interval: cheap enough for the request path. The
        // load itself runs in the background while requests keep the current copy.
        if self.stamps().is_ok_and(|s| s == current.stamps) {
            return;
        }
        if let Ok(handle) = tokio::runtime::Handle::try_current() {
            let this = self.clone();
            handle.spawn(async move {
                let _ = this.load_now().await;
            });
        }
    }

    pub fn status(&self) -> Status {
        let current = self.current();
        let error = self.last_error.lock().unwrap_or_else(|p| p.into_inner()).clone();
        let state = match (&current, &error, self.configured()) {
            (_, _, false) => State::NotConfigured,
            (Some(_), _, _) => State::Loaded,
            (None, Some(_), _) => State::Failed,
            (None, None, _) => State::NotLoadedYet,
        };
        Status {
            name: self.what,
            setting: self.setting,
            files: self.paths.iter().map(|p| p.display().to_string()).collect(),
            state,
            summary: current.as_ref().map(|c| c.summary.clone()),
            loaded_at: current.as_ref().and_then(|c| {
                let d = c.loaded_at.duration_since(SystemTime::UNIX_EPOCH).ok()?;
                jiff::Timestamp::from_second(d.as_secs() as i64).ok().map(|t| t.to_string())
            }),
            error,
        }
    }
}
