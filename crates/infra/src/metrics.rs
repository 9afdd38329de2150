//! Process-wide counters for `/metrics`, written in the Prometheus text format (version 0.0.4).
//!
//! Recording must cost a request next to nothing: each operation gets its counters the first
//! time it is seen (one write lock, once), and from then on a request takes a read lock and
//! does a few relaxed atomic additions. Statuses are counted in a fixed table of the statuses
//! wrench sends (anything else counts as `other`), and latencies in fixed buckets, so memory
//! is bounded by the number of operations and nothing a caller sends becomes a label.

use std::{
    collections::BTreeMap,
    fmt::Write,
    sync::{
        Arc, LazyLock, RwLock,
        atomic::{AtomicU64, Ordering::Relaxed},
    },
    time::Duration,
};

/// The statuses counted one by one; the rest count as `other`.
const STATUSES: [u16; 21] =
    [200, 302, 400, 401, 403, 404, 405, 408, 409, 410, 413, 414, 415, 429, 431, 500, 502, 503, 504, 507, 0];

/// Upper bounds of the latency buckets, in seconds.
const BUCKETS: [f64; 12] = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 10.0];

/// The counters of one operation (or `none`: requests that matched no operation).
struct OpStats {
    by_status: [AtomicU64; STATUSES.len()],
    buckets: [AtomicU64; BUCKETS.len()],
    count: AtomicU64,
    /// Sum of latencies in microseconds.
    sum_micros: AtomicU64,
}

impl OpStats {
    fn new() -> Self {
        OpStats {
            by_status: std::array::from_fn(|_| AtomicU64::new(0)),
            buckets: std::array::from_fn(|_| AtomicU64::new(0)),
            count: AtomicU64::new(0),
            sum_micros: AtomicU64::new(0),
        }
    }
}

static OPS: LazyLock<RwLock<BTreeMap<&'static str, Arc<OpStats>>>> = LazyLock::new(Default::default);
/// Rate-limit refusals: anonymous callers, key holders.
static RATE_LIMITED: [AtomicU64; 2] = [AtomicU64::new(0), AtomicU64::new(0)];
static STORE_ERRORS: AtomicU64 = AtomicU64::new(0);
/// Store writes refused for lack of room.
static STORE_FULL: AtomicU64 = AtomicU64::new(0);
/// Times the embedded store's file was opened again after a disk error.
static STORE_REOPENED: AtomicU64 = AtomicU64::new(0);
/// Embedded store transactions committed, and the writes they carried.
static COMMITS: [AtomicU64; 2] = [AtomicU64::new(0), AtomicU64::new(0)];
/// Short-link visits described in the store, and those given up on (the short links' visit queue).
static VISITS: [AtomicU64; 2] = [AtomicU64::new(0), AtomicU64::new(0)];
/// Outbound addresses judged: public, in the operator's allowed ranges, refused.
static OUTBOUND: [AtomicU64; 3] = [AtomicU64::new(0), AtomicU64::new(0), AtomicU64::new(0)];

/// How the outbound policy judged an address.
#[derive(Debug, Clone, Copy)]
pub enum HostClass {
    Public = 0,
    Allowed = 1,
    Refused = 2,
}

/// Counts one answered request of `operation` (`None`: no operation matched).
pub fn request(operation: Option<&'static str>, status: u16, took: Duration) {
    let name = operation.unwrap_or("none");
    let stats = {
        let known = OPS.read().unwrap_or_else(|e| e.into_inner()).get(name).cloned();
        match known {
            Some(s) => s,
            None => OPS
                .write()
                .unwrap_or_else(|e| e.into_inner())
                .entry(name)
                .or_insert_with(|| Arc::new(OpStats::new()))
                .clone(),
        }
    };
    let slot = STATUSES.iter().position(|s| *s == status).unwrap_or(STATUSES.len() - 1);
    stats.by_status[slot].fetch_add(1, Relaxed);
    let seconds = took.as_secs_f64();
    if let Some(b) = BUCKETS.iter().position(|b| seconds <= *b) {
        stats.buckets[b].fetch_add(1, Relaxed);
    }
    stats.count.fetch_add(1, Relaxed);
    stats.sum_micros.fetch_add(u64::try_from(took.as_micros()).unwrap_or(u64::MAX), Relaxed);
}

/// Counts a request refused by the rate limiter.
pub fn rate_limited(key_holder: bool) {
    RATE_LIMITED[usize::from(key_holder)].fetch_add(1, Relaxed);
}

/// Counts a failed store command.
pub fn store_error() {
    STORE_ERRORS.fetch_add(1, Relaxed);
}

/// Counts a store write refused for lack of room (a full disk, Redis at `maxmemory`).
pub fn store_full() {
    STORE_FULL.fetch_add(1, Relaxed);
}

/// Counts the embedded store's file opened again after a disk error.
pub fn store_reopened() {
    STORE_REOPENED.fetch_add(1, Relaxed);
}

/// Counts an embedded-store transaction that carried `writes` writes.
pub fn store_commit(writes: usize) {
    COMMITS[0].fetch_add(1, Relaxed);
    COMMITS[1].fetch_add(writes as u64, Relaxed);
}

/// Counts visits whose description was written to the store.
pub fn visits_recorded(n: usize) {
    VISITS[0].fetch_add(n as u64, Relaxed);
}

/// Counts visits whose description was given up on (the queue full, or the store failing).
pub fn visits_dropped(n: usize) {
    VISITS[1].fetch_add(n as u64, Relaxed);
}

/// Counts an address judged before an outbound connection.
pub fn outbound(class: HostClass) {
    OUTBOUND[class as usize].fetch_add(1, Relaxed);
}

/// Everything, in the Prometheus text exposition format; `circuits_open` is the serving
/// store's own count of open breakers (`Store::circuits_open` of the store it serves).
pub fn render(circuits_open: usize) -> String {
    let mut out = String::new();
    let ops = OPS.read().unwrap_or_else(|e| e.into_inner()).clone();
    out.push_str("# HELP wrench_requests_total Requests answered, by operation (operationId; none: no operation matched) and status.\n");
    out.push_str("# TYPE wrench_requests_total counter\n");
    for (name, s) in &ops {
        for (i, status) in STATUSES.iter().enumerate() {
            let n = s.by_status[i].load(Relaxed);
            if n > 0 {
                let label = if *status == 0 { "other".to_string() } else { status.to_string() };
                let _ = writeln!(out, "wrench_requests_total{{operation=\"{name}\",status=\"{label}\"}} {n}");
            }
        }
    }
    out.push_str("# HELP wrench_request_duration_seconds Time from a request's arrival to its answer, by operation.\n");
    out.push_str("# TYPE wrench_request_duration_seconds histogram\n");
    for (name, s) in &ops {
        let mut cumulative = 0;
        for (i, bound) in BUCKETS.iter().enumerate() {
            cumulative += s.buckets[i].load(Relaxed);
            let _ = writeln!(
                out,
                "wrench_request_duration_seconds_bucket{{operation=\"{name}\",le=\"{bound}\"}} {cumulative}"
            );
        }
        let count = s.count.load(Relaxed);
        let _ = writeln!(out, "wrench_request_duration_seconds_bucket{{operation=\"{name}\",le=\"+Inf\"}} {count}");
        let sum = s.sum_micros.load(Relaxed) as f64 / 1e6;
        let _ = writeln!(out, "wrench_request_duration_seconds_sum{{operation=\"{name}\"}} {sum}");
        let _ = writeln!(out, "wrench_request_duration_seconds_count{{operation=\"{name}\"}} {count}");
    }
    out.push_str("# HELP wrench_rate_limited_total Requests refused by the rate limiter, by caller.\n");
    out.push_str("# TYPE wrench_rate_limited_total counter\n");
    for (i, caller) in ["anonymous", "key"].iter().enumerate() {
        let _ = writeln!(out, "wrench_rate_limited_total{{caller=\"{caller}\"}} {}", RATE_LIMITED[i].load(Relaxed));
    }
    out.push_str(
        "# HELP wrench_store_errors_total Store commands that failed (including those refused by an open circuit).\n",
    );
    out.push_str("# TYPE wrench_store_errors_total counter\n");
    let _ = writeln!(out, "wrench_store_errors_total {}", STORE_ERRORS.load(Relaxed));
    out.push_str(
        "# HELP wrench_store_full_total Store writes refused for lack of room (a full disk, Redis at maxmemory), answered 507.\n",
    );
    out.push_str("# TYPE wrench_store_full_total counter\n");
    let _ = writeln!(out, "wrench_store_full_total {}", STORE_FULL.load(Relaxed));
    out.push_str(
        "# HELP wrench_store_reopened_total Times the embedded store's file was opened again after a disk error (a full disk, say).\n",
    );
    out.push_str("# TYPE wrench_store_reopened_total counter\n");
    let _ = writeln!(out, "wrench_store_reopened_total {}", STORE_REOPENED.load(Relaxed));
    out.push_str(
        "# HELP wrench_store_circuit_open 1 while the store's circuit breaker is open (Redis unreachable), else 0.\n",
    );
    out.push_str("# TYPE wrench_store_circuit_open gauge\n");
    let _ = writeln!(out, "wrench_store_circuit_open {circuits_open}");
    out.push_str("# HELP wrench_store_commits_total Embedded store transactions committed (each one fsync).\n");
    out.push_str("# TYPE wrench_store_commits_total counter\n");
    let _ = writeln!(out, "wrench_store_commits_total {}", COMMITS[0].load(Relaxed));
    out.push_str("# HELP wrench_store_committed_writes_total Writes those transactions carried (many per fsync).\n");
    out.push_str("# TYPE wrench_store_committed_writes_total counter\n");
    let _ = writeln!(out, "wrench_store_committed_writes_total {}", COMMITS[1].load(Relaxed));
    out.push_str("# HELP wrench_visits_recorded_total Short-link visits whose description was written to the store.\n");
    out.push_str("# TYPE wrench_visits_recorded_total counter\n");
    let _ = writeln!(out, "wrench_visits_recorded_total {}", VISITS[0].load(Relaxed));
    out.push_str("# HELP wrench_visits_dropped_total Short-link visits counted but not described (queue full or store failing).\n");
    out.push_str("# TYPE wrench_visits_dropped_total counter\n");
    let _ = writeln!(out, "wrench_visits_dropped_total {}", VISITS[1].load(Relaxed));
    out.push_str(
        "# HELP wrench_outbound_addresses_total Addresses judged before an outbound connection, by host class.\n",
    );
    out.push_str("# TYPE wrench_outbound_addresses_total counter\n");
    for (i, class) in ["public", "allowed", "refused"].iter().enumerate() {
        let _ = writeln!(out, "wrench_outbound_addresses_total{{class=\"{class}\"}} {}", OUTBOUND[i].load(Relaxed));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn requests_are_counted_by_status_and_bucket() {
        request(Some("metricsTestOp"), 200, Duration::from_millis(3));
        request(Some("metricsTestOp"), 200, Duration::from_millis(300));
        request(Some("metricsTestOp"), 418, Duration::from_secs(20));
        let text = render(2);
        assert!(text.contains("wrench_requests_total{operation=\"metricsTestOp\",status=\"200\"} 2\n"), "{text}");
        assert!(text.contains("\nwrench_store_circuit_open 2\n"), "{text}");
        assert!(text.contains("wrench_requests_total{operation=\"metricsTestOp\",status=\"other\"} 1\n"));
        assert!(text.contains("wrench_request_duration_seconds_bucket{operation=\"metricsTestOp\",le=\"0.005\"} 1\n"));
        assert!(text.contains("wrench_request_duration_seconds_bucket{operation=\"metricsTestOp\",le=\"0.5\"} 2\n"));
        assert!(text.contains("wrench_request_duration_seconds_bucket{operation=\"metricsTestOp\",le=\"10\"} 2\n"));
        assert!(text.contains("wrench_request_duration_seconds_bucket{operation=\"metricsTestOp\",le=\"+Inf\"} 3\n"));
        assert!(text.contains("wrench_request_duration_seconds_count{operation=\"metricsTestOp\"} 3\n"));
    }
}
