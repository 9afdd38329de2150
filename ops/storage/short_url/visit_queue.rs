//! The short-link visit queue: visits recorded after their redirect has answered, summed into
//! batches. It is a group service of the storage operations (`wrench_contract::services`): one
//! queue per server and store, started by the first visit, flushed when the server stops.
//!
//! A redirect counts its click in its own store step: that count is exact, and it is what a
//! visit limit spends. What the visit says about its visitor (hour, referrer, browser,
//! country, the set of distinct visitors, the log of recent visits) is queued here instead.
//! Each queue has at most one writer at a time. The writer takes everything queued and sums it
//! per owner and tally (500 visits of one link from one browser in one hour become one
//! addition of 500, not 500 additions), writes each sum with one [`Store::record`], then takes
//! what arrived meanwhile. Under light load a visit is written about one round trip after its
//! redirect; under heavy load the batches grow instead of the store's work. No timer is
//! involved, so nothing waits longer than the write before it.
//!
//! Readers that must see every visit so far (statistics, the visit stream, a delete) call
//! [`VisitQueue::flush`] first, which waits for everything this instance queued before the
//! call. Another instance's visits show once its writer has written them.
//!
//! Recording is at most once. A batch the store refuses (Redis gone, a cluster node down) is
//! dropped, logged and counted in `wrench_visits_dropped_total`; retrying could count a
//! batch twice when only its answer was lost. While [`MAX_QUEUED`] visits wait, further
//! visits are dropped and counted the same way. Their clicks still count: only their
//! descriptions are lost.

use std::{
    collections::{HashMap, HashSet},
    sync::{Arc, Mutex},
    time::Duration,
};

use tokio::sync::watch;

use wrench_contract::services::{Foundation, Service, Stopping};
use wrench_infra::store::{DistinctBatch, LogBatch, Store, TallyBatch};

/// Most visits waiting to be written.
pub const MAX_QUEUED: usize = 10_000;
/// Longest [`VisitQueue::flush`] waits: past it the reader goes on with what is written.
pub const FLUSH_WAIT: Duration = Duration::from_secs(2);

/// One visit to record. It is recorded only while `guard` holds a value (the link).
#[derive(Debug, Clone)]
pub struct TallyVisit {
    pub guard: String,
    /// The tally it adds to (the link's day).
    pub key: String,
    /// Counters it adds one to.
    pub add: Vec<String>,
    /// Values of one group a tally holds ([`TallyBatch::add`]).
    pub per_group: usize,
    /// The set the tally is registered in.
    pub index: String,
    /// The visitor as a member of a set of distinct members, and the counters a new member
    /// adds one to.
    pub distinct: Option<Visitor>,
    /// The entry for the log of recent visits, and how many entries that log keeps.
    pub log: Option<(String, Vec<u8>, usize)>,
}

/// A visitor, for a set of distinct visitors ([`DistinctBatch`]).
#[derive(Debug, Clone)]
pub struct Visitor {
    pub set: String,
    pub ttl: Duration,
    pub member: String,
    pub add: Vec<String>,
}

/// What waits to be written, summed per (guard, tally).
#[derive(Default)]
struct Pending {
    batches: Vec<TallyBatch>,
    /// How many visits each batch sums.
    visits: Vec<usize>,
    at: HashMap<(String, String), usize>,
    /// Per batch: where each counter name is in its `add`, and the members it holds.
    names: Vec<HashMap<String, usize>>,
    members: Vec<HashSet<String>>,
    total: usize,
}

impl Pending {
    fn add(&mut self, v: TallyVisit) {
        // Looked up by the visit's own strings: they are copied only for a new batch.
        let owner = (v.guard, v.key);
        let i = match self.at.get(&owner) {
            Some(i) => *i,
            None => {
                let i = self.batches.len();
                self.batches.push(TallyBatch {
                    guard: owner.0.clone(),
                    key: owner.1.clone(),
                    per_group: v.per_group,
                    index: v.index,
                    ..TallyBatch::default()
                });
                self.at.insert(owner, i);
                self.visits.push(0);
                self.names.push(HashMap::new());
                self.members.push(HashSet::new());
                i
            }
        };
        let batch = &mut self.batches[i];
        for name in v.add {
            match self.names[i].get(&name) {
                Some(at) => batch.add[*at].1 += 1,
                None => {
                    self.names[i].insert(name.clone(), batch.add.len());
                    batch.add.push((name, 1));
                }
            }
        }
        if let Some(who) = v.distinct {
            let set =
                batch.distinct.get_or_insert_with(|| DistinctBatch { set: who.set, ttl: who.ttl, members: Vec::new() });
            // A visitor seen twice in one batch counts as its first visit did.
            if !self.members[i].contains(&who.member) {
                self.members[i].insert(who.member.clone());
                set.members.push((who.member, who.add));
            }
        }
        if let Some((log, entry, keep)) = v.log {
            batch.log.get_or_insert_with(|| LogBatch { log, entries: Vec::new(), keep }).entries.push(entry);
        }
        self.visits[i] += 1;
        self.total += 1;
    }
}

struct State {
    pending: Pending,
    /// Visits queued since the start (dropped ones not included).
    queued: u64,
    /// Whether a writer is running.
    writing: bool,
}

struct Shared {
    store: Arc<dyn Store>,
    state: Mutex<State>,
    /// Visits written or given up on, in the order `queued` counts them.
    settled: watch::Sender<u64>,
}

/// The queue of one store's visits (one per server; see the module's description).
pub(in crate::storage) struct VisitQueue(Arc<Shared>);

impl Service for VisitQueue {
    fn start(with: &Foundation<'_>) -> Self {
        VisitQueue::new(with.store.clone())
    }

    /// The last visits' descriptions, queued by requests that have all answered by now.
    fn stop(&self) -> Stopping<'_> {
        Box::pin(self.flush())
    }
}

impl VisitQueue {
    pub fn new(store: Arc<dyn Store>) -> VisitQueue {
        VisitQueue(Arc::new(Shared {
            store,
            state: Mutex::new(State { pending: Pending::default(), queued: 0, writing: false }),
            settled: watch::Sender::new(0),
        }))
    }

    /// Counts a visit that could not be described at all (its description needed the store,
    /// which failed): the visit itself was counted, and its redirect answered.
    pub fn undescribed(&self, why: &dyn std::fmt::Display) {
        wrench_infra::metrics::visits_dropped(1);
        tracing::debug!(error = %why, "a visit was counted but not described");
    }

    /// Queues `visit`, starting a writer if none is running.
    pub fn push(&self, visit: TallyVisit) {
        let Ok(runtime) = tokio::runtime::Handle::try_current() else {
            wrench_infra::metrics::visits_dropped(1);
            return;
        };
        let mut state = self.0.state.lock().unwrap_or_else(|e| e.into_inner());
        if state.pending.total >= MAX_QUEUED {
            drop(state);
            wrench_infra::metrics::visits_dropped(1);
            return;
        }
        state.pending.add(visit);
        state.queued += 1;
        if !state.writing {
            state.writing = true;
            runtime.spawn(write_all(self.0.clone()));
        }
    }

    /// Waits (at most [`FLUSH_WAIT`]) until every visit queued before the call is written or
    /// given up on.
    pub async fn flush(&self) {
        let target = self.0.state.lock().unwrap_or_else(|e| e.into_inner()).queued;
        let mut settled = self.0.settled.subscribe();
        let _ = tokio::time::timeout(FLUSH_WAIT, settled.wait_for(|n| *n >= target)).await;
    }
}

/// The writer: writes what is queued, batch after batch, until nothing is.
async fn write_all(shared: Arc<Shared>) {
    loop {
        let (pending, upto) = {
            let mut state = shared.state.lock().unwrap_or_else(|e| e.into_inner());
            if state.pending.total == 0 {
                state.writing = false;
                return;
            }
            (std::mem::take(&mut state.pending), state.queued)
        };
        // Each batch is one owner's, on one slot of a cluster: written side by side, so that
        // one node that fails loses only its own owners' visits.
        let writes = pending.batches.into_iter().zip(pending.visits).map(|(batch, visits)| {
            let store = shared.store.clone();
            async move {
                match store.record(Arc::new(batch)).await {
                    Ok(written) => wrench_infra::metrics::visits_recorded(if written { visits } else { 0 }),
                    Err(e) => {
                        tracing::warn!(error = %e, visits, "visits not recorded");
                        wrench_infra::metrics::visits_dropped(visits);
                    }
                }
            }
        });
        futures_util::future::join_all(writes).await;
        shared.settled.send_replace(upto);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn visit(key: &str, add: &[&str], member: Option<&str>, entry: &str) -> TallyVisit {
        TallyVisit {
            guard: "g".into(),
            key: key.into(),
            add: add.iter().map(|s| s.to_string()).collect(),
            per_group: 3,
            index: "g:days".into(),
            distinct: member.map(|m| Visitor {
                set: format!("{key}:seen"),
                ttl: Duration::from_secs(60),
                member: m.into(),
                add: vec!["u:10".into()],
            }),
            log: Some(("g:visits".into(), entry.as_bytes().to_vec(), 5)),
        }
    }

    #[test]
    fn visits_are_summed_per_tally_in_arrival_order() {
        let mut p = Pending::default();
        p.add(visit("d1", &["v:10", "r:a"], Some("alice"), "1"));
        p.add(visit("d1", &["v:10", "r:b"], Some("alice"), "2"));
        p.add(visit("d2", &["v:00"], None, "3"));
        p.add(visit("d1", &["v:10", "r:a"], Some("bob"), "4"));
        assert_eq!(p.total, 4);
        assert_eq!(p.visits, [3, 1]);
        let d1 = &p.batches[0];
        let add: Vec<(&str, u64)> = d1.add.iter().map(|(n, c)| (n.as_str(), *c)).collect();
        assert_eq!(add, [("v:10", 3), ("r:a", 2), ("r:b", 1)]);
        let members: Vec<&str> = d1.distinct.as_ref().unwrap().members.iter().map(|m| m.0.as_str()).collect();
        assert_eq!(members, ["alice", "bob"], "alice once");
        assert_eq!(d1.log.as_ref().unwrap().entries, [b"1".to_vec(), b"2".to_vec(), b"4".to_vec()]);
        assert_eq!(p.batches[1].add, [("v:00".to_string(), 1)]);
        assert!(p.batches[1].distinct.is_none());
    }
}
