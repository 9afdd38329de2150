//! The registry's start-up work (building embedded tables) run in the background once a
//! server starts, and how far it got, which `/health` reports by each task's name. The server
//! knows the tasks only through the registry, never which group declared them. The hook given
//! to [`on_memory_freed`] (the binary gives back to the system what its allocator holds free)
//! runs twice: once the server is built, before the tasks start, for what building its routes
//! and documents freed; and once every task has run, for what the tasks freed, before the last
//! task is reported finished.

use std::{
    sync::{
        Arc, OnceLock, RwLock,
        atomic::{AtomicUsize, Ordering},
    },
    time::Instant,
};

use serde_json::{Value, json};

use wrench_contract::op::StartupTask;

static FREED: OnceLock<fn()> = OnceLock::new();

/// Sets what runs after a stage of the start-up that frees much of what it allocated: once the
/// server is built and once every start-up task has finished (the first call wins).
pub fn on_memory_freed(hook: fn()) {
    let _ = FREED.set(hook);
}

/// Runs the hook given to [`on_memory_freed`], if any.
pub(crate) fn memory_freed() {
    if let Some(hook) = FREED.get() {
        hook();
    }
}

/// Every task given to [`Startup::run`], with its duration once finished.
#[derive(Default)]
pub(crate) struct Startup {
    tasks: RwLock<Vec<(&'static str, Option<u64>)>>,
}

impl Startup {
    /// Runs each task on the blocking pool, recording when it finishes.
    pub(crate) fn run(self: &Arc<Self>, tasks: &[StartupTask]) {
        let mut list = self.tasks.write().unwrap_or_else(|e| e.into_inner());
        let left = Arc::new(AtomicUsize::new(tasks.len()));
        for task in tasks {
            let index = list.len();
            list.push((task.name, None));
            let (this, task, left) = (self.clone(), *task, left.clone());
            tokio::task::spawn_blocking(move || {
                let started = Instant::now();
                (task.run)();
                let ms = started.elapsed().as_millis() as u64;
                tracing::info!(task = task.name, ms, "start-up task finished");
                // The hook runs before the last task is reported finished, so that `/health`
                // saying so means everything the start-up does is done.
                if left.fetch_sub(1, Ordering::AcqRel) == 1 {
                    memory_freed();
                }
                this.tasks.write().unwrap_or_else(|e| e.into_inner())[index].1 = Some(ms);
            });
        }
    }

    /// `{"finished": bool, "tasks": [{"name", "finished", "ms"}]}` for `/health`.
    pub(crate) fn report(&self) -> Value {
        let list = self.tasks.read().unwrap_or_else(|e| e.into_inner());
        let tasks: Vec<Value> =
            list.iter().map(|(name, ms)| json!({"name": name, "finished": ms.is_some(), "ms": ms})).collect();
        json!({"finished": list.iter().all(|(_, ms)| ms.is_some()), "tasks": tasks})
    }
}
