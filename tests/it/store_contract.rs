//! One contract, two backends: the embedded store always, Redis whenever
//! `WRENCH_TEST_REDIS_URL` is set (CI sets it and fails if Redis does not answer). Every test
//! uses a key prefix of its own, so it never touches other data, and removes its keys after.

use std::{
    sync::Arc,
    time::{Duration, Instant, SystemTime},
};

use crate::common;

use common::cluster::Cluster;
use wrench_infra::store::{
    Appended, Counted, CountedRead, DistinctBatch, GuardedPush, LogAppend, LogBatch, LogState, Pushed, Store,
    StoreError, TallyBatch, embedded::EmbeddedStore, redis::RedisStore,
};

/// A store to test, and how to clean up after it.
struct Backend {
    store: Arc<dyn Store>,
    _dir: Option<TempDir>,
    redis_prefix: Option<(String, String)>,
}

/// A directory removed when dropped.
struct TempDir(std::path::PathBuf);

impl TempDir {
    fn new() -> TempDir {
        let p = std::env::temp_dir().join(format!("wrench-store-test-{}", uuid::Uuid::new_v4().simple()));
        std::fs::create_dir_all(&p).unwrap();
        TempDir(p)
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn embedded() -> Backend {
    let dir = TempDir::new();
    let store = EmbeddedStore::open(&dir.0, wrench_infra::config::DEFAULT_STORE_CACHE).unwrap();
    Backend { store: Arc::new(store), _dir: Some(dir), redis_prefix: None }
}

async fn redis() -> Backend {
    let url = std::env::var("WRENCH_TEST_REDIS_URL")
        .expect("WRENCH_TEST_REDIS_URL was set when the tests were built; set it again to run them");
    let prefix = format!("wrench-test:{}:", uuid::Uuid::new_v4().simple());
    let store = RedisStore::connect(&url, &prefix).unwrap();
    assert!(store.wait_connected(Duration::from_secs(5)).await, "WRENCH_TEST_REDIS_URL={url} does not answer");
    Backend { store: Arc::new(store), _dir: None, redis_prefix: Some((url, prefix)) }
}

impl Backend {
    async fn cleanup(self) {
        if let Some((url, prefix)) = self.redis_prefix {
            common::remove_redis_keys(&url, &prefix).await;
        }
    }
}

/// Runs `$check` against every configured backend.
macro_rules! contract {
    ($name:ident, $check:ident) => {
        mod $name {
            #[tokio::test]
            async fn embedded() {
                let b = super::embedded();
                super::$check(b.store.clone()).await;
                b.cleanup().await;
            }

            #[tokio::test]
            #[cfg_attr(
                not(wrench_test_redis),
                ignore = "needs Redis: set WRENCH_TEST_REDIS_URL (for example redis://127.0.0.1:6379)"
            )]
            async fn redis() {
                let b = super::redis().await;
                super::$check(b.store.clone()).await;
                b.cleanup().await;
            }
        }
    };
}

contract!(values, values_and_reservation);
contract!(ttl, values_expire);
contract!(counters, counters_count_and_keep_their_window);
contract!(counters_atomic, counters_are_atomic_under_concurrency);
contract!(counters_together, counters_counted_together_keep_their_own_windows);
contract!(lists, lists_are_capped_newest_first_and_expire);
contract!(binary, values_are_binary_safe);
contract!(guarded, guarded_pushes_need_their_guard_and_respect_their_window);
contract!(guarded_atomic, guarded_pushes_are_counted_atomically);
contract!(counted_reads, reads_that_count_stamp_then_count_only_what_exists);
contract!(logs, logs_number_trim_by_count_and_bytes_and_expire);
contract!(logs_atomic, log_appends_are_numbered_atomically);
contract!(logs_cleared, cleared_and_deleted_logs_hold_nothing);
contract!(logs_guard_value, appends_that_expect_a_guard_value_need_exactly_it);
contract!(gated_reads, gated_reads_count_only_inside_their_period_and_uses);
contract!(gated_reads_atomic, gated_reads_give_exactly_their_uses_under_concurrency);
contract!(counted_values, counted_values_are_spent_read_by_read);
contract!(counted_values_atomic, counted_values_give_exactly_their_reads_under_concurrency);
contract!(tallies, tallies_are_recorded_with_the_count_and_deleted_whole);
contract!(tallies_atomic, tallies_are_exact_under_concurrency);
contract!(tally_batches, batches_record_as_their_visits_would);

fn append<'a>(log: &'a str, value: &'a [u8], max_entries: usize, max_bytes: usize) -> LogAppend<'a> {
    LogAppend { guard: "lg{7}", log, value, max_entries, max_bytes, window: None, guard_is: None }
}

async fn logs_number_trim_by_count_and_bytes_and_expire(s: Arc<dyn Store>) {
    let log = "lg{7}:log";
    assert_eq!(s.log_append(append(log, b"x", 3, 100)).await.unwrap(), Appended::NoGuard);
    assert_eq!(s.log_state(log).await.unwrap(), LogState::EMPTY, "nothing is written without the guard");
    s.put("lg{7}", b"meta", Some(Duration::from_millis(900))).await.unwrap();
    for i in 1..=5u8 {
        let Appended::Done { seq, log: state } = s.log_append(append(log, &[i; 10], 3, 100)).await.unwrap() else {
            panic!("append {i}")
        };
        assert_eq!((seq, state.len()), (u64::from(i), u64::from(i).min(3)));
    }
    assert_eq!(s.log_state(log).await.unwrap(), LogState { first: 3, last: 5, bytes: 30 });
    let all = s.log_read(log, 1, 10).await.unwrap();
    assert_eq!(all, vec![(3, vec![3; 10]), (4, vec![4; 10]), (5, vec![5; 10])], "trimmed by count, oldest first");
    assert_eq!(s.log_read(log, 4, 4).await.unwrap(), vec![(4, vec![4; 10])]);
    assert_eq!(s.log_read(log, 5, 4).await.unwrap(), vec![]);
    // A 25-byte entry under a 40-byte cap leaves room for one 10-byte entry beside it.
    let Appended::Done { log: state, .. } = s.log_append(append(log, &[6; 25], 3, 40)).await.unwrap() else {
        panic!("append 6")
    };
    assert_eq!(state, LogState { first: 5, last: 6, bytes: 35 });
    // An entry over the byte cap on its own is kept, alone.
    let big = vec![0u8; 64];
    let Appended::Done { log: state, .. } = s.log_append(append(log, &big, 3, 40)).await.unwrap() else {
        panic!("append 7")
    };
    assert_eq!(state, LogState { first: 7, last: 7, bytes: 64 });
    assert_eq!(s.log_read(log, 1, 7).await.unwrap(), vec![(7, big)]);
    // The log expires with its guard.
    tokio::time::sleep(Duration::from_millis(1100)).await;
    assert_eq!(s.log_read(log, 1, 7).await.unwrap(), vec![], "entries expired with the guard");
    assert!(s.log_state(log).await.unwrap().is_empty());
}

async fn log_appends_are_numbered_atomically(s: Arc<dyn Store>) {
    s.put("la{8}", b"meta", Some(Duration::from_secs(30))).await.unwrap();
    let tasks: Vec<_> = (0..40u8)
        .map(|i| {
            let s = s.clone();
            tokio::spawn(async move {
                let window = Some(("la{8}:w", 30, Duration::from_secs(30)));
                let a = LogAppend {
                    guard: "la{8}",
                    log: "la{8}:log",
                    value: &[i],
                    max_entries: 20,
                    max_bytes: 1 << 20,
                    window,
                    guard_is: None,
                };
                s.log_append(a).await.unwrap()
            })
        })
        .collect();
    let mut seqs = Vec::new();
    for t in tasks {
        if let Appended::Done { seq, .. } = t.await.unwrap() {
            seqs.push(seq);
        }
    }
    seqs.sort();
    assert_eq!(seqs, (1..=30).collect::<Vec<u64>>(), "the window's limit got through, each with its own number");
    assert_eq!(s.log_state("la{8}:log").await.unwrap(), LogState { first: 11, last: 30, bytes: 20 });
    assert_eq!(s.log_read("la{8}:log", 1, 100).await.unwrap().len(), 20);
}

/// An append that names the guard's value happens only while the guard holds exactly it, and
/// otherwise answers what the guard holds, counting nothing in its window.
async fn appends_that_expect_a_guard_value_need_exactly_it(s: Arc<dyn Store>) {
    let a = |value: &'static [u8], guard_is: Option<&'static [u8]>| LogAppend {
        guard: "lv{3}",
        log: "lv{3}:log",
        value,
        max_entries: 10,
        max_bytes: 1000,
        window: Some(("lv{3}:w", 2, Duration::from_secs(30))),
        guard_is,
    };
    assert_eq!(s.log_append(a(b"x", Some(b"v1"))).await.unwrap(), Appended::NoGuard);
    s.put("lv{3}", b"v1\0\xff", Some(Duration::from_secs(30))).await.unwrap();
    assert!(matches!(s.log_append(a(b"1", Some(b"v1\0\xff"))).await.unwrap(), Appended::Done { seq: 1, .. }));
    s.put("lv{3}", b"v2", Some(Duration::from_secs(30))).await.unwrap();
    assert_eq!(s.log_append(a(b"2", Some(b"v1\0\xff"))).await.unwrap(), Appended::Changed(b"v2".to_vec()));
    assert_eq!(
        s.log_append(a(b"2", Some(b"v"))).await.unwrap(),
        Appended::Changed(b"v2".to_vec()),
        "a prefix is not it"
    );
    assert!(matches!(s.log_append(a(b"2", Some(b"v2"))).await.unwrap(), Appended::Done { seq: 2, .. }));
    assert_eq!(s.count("lv{3}:w").await.unwrap(), 2, "refused appends counted nothing");
    assert!(matches!(s.log_append(a(b"3", None)).await.unwrap(), Appended::Limited(_)), "without a value, as before");
    let held: Vec<Vec<u8>> = s.log_read("lv{3}:log", 1, 9).await.unwrap().into_iter().map(|e| e.1).collect();
    assert_eq!(held, [b"1".to_vec(), b"2".to_vec()]);
}

async fn cleared_and_deleted_logs_hold_nothing(s: Arc<dyn Store>) {
    s.put("lc{9}", b"meta", Some(Duration::from_secs(30))).await.unwrap();
    let a = |v: &'static [u8]| LogAppend {
        guard: "lc{9}",
        log: "lc{9}:log",
        value: v,
        max_entries: 10,
        max_bytes: 1000,
        window: None,
        guard_is: None,
    };
    for v in [b"a", b"b", b"c"] {
        s.log_append(a(v)).await.unwrap();
    }
    assert!(s.log_update("lc{9}:log", 2, b"BB").await.unwrap(), "a held entry is replaced");
    assert!(!s.log_update("lc{9}:log", 9, b"x").await.unwrap(), "an entry never written is not made");
    assert_eq!(s.log_read("lc{9}:log", 2, 2).await.unwrap(), vec![(2, b"BB".to_vec())]);
    assert_eq!(s.log_state("lc{9}:log").await.unwrap().bytes, 4, "the byte count follows the replacement");
    s.log_clear("lc{9}:log").await.unwrap();
    assert_eq!(s.log_state("lc{9}:log").await.unwrap(), LogState { first: 4, last: 3, bytes: 0 });
    assert_eq!(s.log_read("lc{9}:log", 1, 10).await.unwrap(), vec![]);
    let Appended::Done { seq, .. } = s.log_append(a(b"d")).await.unwrap() else { panic!("append after clear") };
    assert_eq!(seq, 4, "numbering goes on after a clear");
    s.delete(&["lc{9}", "lc{9}:log"]).await.unwrap();
    assert_eq!(s.get("lc{9}").await.unwrap(), None);
    assert!(s.log_state("lc{9}:log").await.unwrap().is_empty());
    assert_eq!(s.log_read("lc{9}:log", 1, 10).await.unwrap(), vec![]);
    assert_eq!(s.log_append(a(b"e")).await.unwrap(), Appended::NoGuard);
}

async fn guarded_pushes_need_their_guard_and_respect_their_window(s: Arc<dyn Store>) {
    let push = |value: &'static [u8], window| GuardedPush { guard: "g{1}", list: "g{1}:l", value, cap: 3, window };
    assert_eq!(s.push_guarded(push(b"a", None)).await.unwrap(), Pushed::NoGuard);
    assert_eq!(s.list_len("g{1}:l").await.unwrap(), 0, "nothing is pushed without the guard");
    s.put("g{1}", b"meta", Some(Duration::from_millis(700))).await.unwrap();
    for (i, v) in [b"1", b"2", b"3", b"4"].iter().enumerate() {
        assert_eq!(s.push_guarded(push(*v, None)).await.unwrap(), Pushed::Done((i + 1).min(3)));
    }
    assert_eq!(s.list("g{1}:l").await.unwrap(), vec![b"4".to_vec(), b"3".to_vec(), b"2".to_vec()]);
    let window = Some(("g{1}:w", 2, Duration::from_secs(30)));
    assert_eq!(s.push_guarded(push(b"5", window)).await.unwrap(), Pushed::Done(3));
    assert_eq!(s.push_guarded(push(b"6", window)).await.unwrap(), Pushed::Done(3));
    let Pushed::Limited(left) = s.push_guarded(push(b"7", window)).await.unwrap() else {
        panic!("the third is refused")
    };
    assert!(left.is_some_and(|l| l <= Duration::from_secs(30) && l > Duration::from_secs(25)), "{left:?}");
    assert_eq!(s.list("g{1}:l").await.unwrap()[0], b"6".to_vec(), "the refused value was not pushed");
    // The list expires with its guard.
    tokio::time::sleep(Duration::from_millis(900)).await;
    assert_eq!(s.list_len("g{1}:l").await.unwrap(), 0, "the list expired when the guard did");
    assert_eq!(s.push_guarded(push(b"8", None)).await.unwrap(), Pushed::NoGuard);
}

async fn guarded_pushes_are_counted_atomically(s: Arc<dyn Store>) {
    s.put("h{2}", b"meta", Some(Duration::from_secs(30))).await.unwrap();
    let tasks: Vec<_> = (0..40u8)
        .map(|i| {
            let s = s.clone();
            tokio::spawn(async move {
                let window = Some(("h{2}:w", 25, Duration::from_secs(30)));
                s.push_guarded(GuardedPush { guard: "h{2}", list: "h{2}:l", value: &[i], cap: 100, window })
                    .await
                    .unwrap()
            })
        })
        .collect();
    let mut done = 0;
    for t in tasks {
        if matches!(t.await.unwrap(), Pushed::Done(_)) {
            done += 1;
        }
    }
    assert_eq!(done, 25, "exactly the window's limit got through");
    assert_eq!(s.list_len("h{2}:l").await.unwrap(), 25);
}

async fn reads_that_count_stamp_then_count_only_what_exists(s: Arc<dyn Store>) {
    assert_eq!(
        s.get_and_count(CountedRead { key: "k{3}", stamp_key: "k{3}:t", stamp: b"t0", counter: "k{3}:n", now_ms: 0 })
            .await
            .unwrap(),
        None
    );
    s.put("k{3}", b"target", None).await.unwrap();
    for i in 1..=3 {
        let stamp = format!("t{i}");
        assert_eq!(
            s.get_and_count(CountedRead {
                key: "k{3}",
                stamp_key: "k{3}:t",
                stamp: stamp.as_bytes(),
                counter: "k{3}:n",
                now_ms: 0,
            })
            .await
            .unwrap(),
            Some(Counted::Open(b"target".to_vec()))
        );
    }
    // The embedded store queues the count behind the answer: wait for it to land.
    let deadline = Instant::now() + Duration::from_secs(2);
    while s.count("k{3}:n").await.unwrap() < 3 && Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    assert_eq!(s.count("k{3}:n").await.unwrap(), 3, "a read of a missing key counted nothing");
    assert_eq!(s.get("k{3}:t").await.unwrap(), Some(b"t3".to_vec()));
}

/// A counted read of the gated value at `key` (counter `key:n`) at `now_ms`.
async fn gated_read(s: &Arc<dyn Store>, key: &str, now_ms: u64) -> Option<Counted> {
    let (stamp_key, counter) = (format!("{key}:t"), format!("{key}:n"));
    s.get_and_count(CountedRead { key, stamp_key: &stamp_key, stamp: b"t", counter: &counter, now_ms }).await.unwrap()
}

async fn gated_reads_count_only_inside_their_period_and_uses(s: Arc<dyn Store>) {
    use wrench_infra::store::gated::{Gate, gated, split};
    let value = b"\0{\"url\":\"x\"}\xff".to_vec();
    let period = Gate { since_ms: 1_000, until_ms: 2_000, left: None };
    s.put("g{1}", &gated(&period, &value), None).await.unwrap();
    assert_eq!(gated_read(&s, "g{1}", 999).await, Some(Counted::Closed(value.clone())), "not yet open");
    assert_eq!(gated_read(&s, "g{1}", 1_000).await, Some(Counted::Open(value.clone())));
    assert_eq!(gated_read(&s, "g{1}", 2_000).await, Some(Counted::Closed(value.clone())), "closed at its end");
    let limited = Gate { since_ms: 0, until_ms: 0, left: Some(2) };
    s.put("g{2}", &gated(&limited, &value), Some(Duration::from_secs(60))).await.unwrap();
    for expected in [Counted::Open(value.clone()), Counted::Open(value.clone()), Counted::Closed(value.clone())] {
        assert_eq!(gated_read(&s, "g{2}", 5).await, Some(expected));
    }
    let stored = s.get("g{2}").await.unwrap().unwrap();
    assert_eq!(split(&stored), (Some(Gate { left: Some(0), ..limited }), &value[..]), "the value stays, spent");
    // Opens are counted; closed reads are not. The embedded store queues counts of reads
    // without a limit: wait for them to land.
    let deadline = Instant::now() + Duration::from_secs(2);
    while s.count("g{1}:n").await.unwrap() < 1 && Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    assert_eq!((s.count("g{1}:n").await.unwrap(), s.count("g{2}:n").await.unwrap()), (1, 2));
}

async fn gated_reads_give_exactly_their_uses_under_concurrency(s: Arc<dyn Store>) {
    use wrench_infra::store::gated::{Gate, gated};
    s.put("u{1}", &gated(&Gate { since_ms: 0, until_ms: 0, left: Some(9) }, b"v"), None).await.unwrap();
    let readers: Vec<_> = (0..100)
        .map(|_| {
            let s = s.clone();
            tokio::spawn(async move { gated_read(&s, "u{1}", 1).await })
        })
        .collect();
    let mut open = 0;
    for r in readers {
        match r.await.unwrap() {
            Some(Counted::Open(_)) => open += 1,
            Some(Counted::Closed(_)) => {}
            None => panic!("the value is never removed"),
        }
    }
    assert_eq!(open, 9);
    assert_eq!(s.count("u{1}:n").await.unwrap(), 9);
}

/// A visit of the value at `key` that, when it counts, records a batch of one visit: `add` in
/// `tally`, `member` once in `tally:seen` (adding `u:10`) and `entry` in the log, which keeps 3
/// entries.
async fn visit(s: &Arc<dyn Store>, key: &str, tally: &str, add: &[&str], member: &str, entry: &str) -> Option<Counted> {
    let (stamp_key, counter) = (format!("{key}:t"), format!("{key}:n"));
    let counted = s
        .get_and_count(CountedRead { key, stamp_key: &stamp_key, stamp: b"t", counter: &counter, now_ms: 1 })
        .await
        .unwrap();
    if let Some(Counted::Open(_)) = counted {
        let names = add.iter().map(|n| (n.to_string(), 1)).collect();
        let batch = batch(key, tally, names, &[(member, &["u:10"])], &[entry]);
        assert!(s.record(Arc::new(batch)).await.unwrap(), "the guard is there");
    }
    counted
}

/// A batch on `tally` guarded by `key`, its index `key:days`, its set `tally:seen` and its
/// log `key:visits` (3 entries kept); groups hold 3 values.
fn batch(key: &str, tally: &str, add: Vec<(String, u64)>, members: &[(&str, &[&str])], entries: &[&str]) -> TallyBatch {
    TallyBatch {
        guard: key.to_string(),
        key: tally.to_string(),
        add,
        per_group: 3,
        index: format!("{key}:days"),
        distinct: Some(DistinctBatch {
            set: format!("{tally}:seen"),
            ttl: Duration::from_secs(60),
            members: members.iter().map(|(m, n)| (m.to_string(), n.iter().map(|s| s.to_string()).collect())).collect(),
        }),
        log: Some(LogBatch {
            log: format!("{key}:visits"),
            entries: entries.iter().map(|e| e.as_bytes().to_vec()).collect(),
            keep: 3,
        }),
    }
}

/// A batch sums many visits: amounts, members and entries are applied as one visit at a time
/// would apply them, the log numbers every entry and keeps the newest, and a batch whose guard
/// is gone writes nothing.
async fn batches_record_as_their_visits_would(s: Arc<dyn Store>) {
    let names = |n: &[(&str, u64)]| n.iter().map(|(k, v)| (k.to_string(), *v)).collect::<Vec<_>>();
    let lost = batch("b{1}", "b{1}:d:1", names(&[("v:10", 5)]), &[("alice", &["u:10"])], &["lost"]);
    assert!(!s.record(Arc::new(lost)).await.unwrap(), "no guard, no record");
    assert_eq!(s.tallies(&["b{1}:d:1"]).await.unwrap(), vec![Vec::new()]);
    assert_eq!(s.log_state("b{1}:visits").await.unwrap(), LogState::EMPTY);
    s.put("b{1}", b"link", None).await.unwrap();
    let first = batch(
        "b{1}",
        "b{1}:d:1",
        names(&[("v:10", 4), ("r:a", 2), ("r:b", 1), ("r:c", 1)]),
        &[("alice", &["u:10"]), ("bob", &["u:11"])],
        &["1", "2", "3", "4"],
    );
    assert!(s.record(Arc::new(first)).await.unwrap());
    // Bob again (not new), carol new; two more referrers past the group's three values.
    let second = batch(
        "b{1}",
        "b{1}:d:1",
        names(&[("v:11", 3), ("r:d", 2), ("r:a", 1)]),
        &[("bob", &["u:11"]), ("carol", &["u:11"])],
        &["5", "6", "7"],
    );
    assert!(s.record(Arc::new(second)).await.unwrap());
    let expected = [("r:", 2), ("r:a", 3), ("r:b", 1), ("r:c", 1), ("u:10", 1), ("u:11", 2), ("v:10", 4), ("v:11", 3)];
    let expected: Vec<(String, i64)> = expected.iter().map(|(k, v)| (k.to_string(), *v)).collect();
    assert_eq!(sorted(s.tallies(&["b{1}:d:1"]).await.unwrap().remove(0)), expected);
    let mut members = s.members("b{1}:d:1:seen").await.unwrap();
    members.sort();
    assert_eq!(members, ["alice", "bob", "carol"]);
    assert_eq!(s.members("b{1}:days").await.unwrap(), ["b{1}:d:1"]);
    let state = s.log_state("b{1}:visits").await.unwrap();
    assert_eq!((state.first, state.last, state.bytes), (5, 7, 3), "seven numbered, the newest three kept");
    let entries: Vec<(u64, Vec<u8>)> = s.log_read("b{1}:visits", 1, 7).await.unwrap();
    assert_eq!(entries, [(5, b"5".to_vec()), (6, b"6".to_vec()), (7, b"7".to_vec())]);
    // A batch larger than the log keeps numbering on.
    let big: Vec<String> = (8..=20).map(|n| n.to_string()).collect();
    let big: Vec<&str> = big.iter().map(String::as_str).collect();
    assert!(s.record(Arc::new(batch("b{1}", "b{1}:d:1", Vec::new(), &[], &big))).await.unwrap());
    let state = s.log_state("b{1}:visits").await.unwrap();
    assert_eq!((state.first, state.last, state.bytes), (18, 20, 6));
    let entries: Vec<u64> = s.log_read("b{1}:visits", 1, 20).await.unwrap().into_iter().map(|e| e.0).collect();
    assert_eq!(entries, [18, 19, 20]);
}

/// Waits (up to 2 s) for the embedded store's queued counts to land.
async fn counted(s: &Arc<dyn Store>, counter: &str, n: i64) -> i64 {
    let deadline = Instant::now() + Duration::from_secs(2);
    while s.count(counter).await.unwrap() < n && Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    s.count(counter).await.unwrap()
}

fn sorted(mut v: Vec<(String, i64)>) -> Vec<(String, i64)> {
    v.sort();
    v
}

async fn tallies_are_recorded_with_the_count_and_deleted_whole(s: Arc<dyn Store>) {
    assert_eq!(visit(&s, "t{1}", "t{1}:d:1", &["v:10"], "alice", "lost").await, None, "no value, no tally");
    s.put("t{1}", b"link", None).await.unwrap();
    for i in 0..5 {
        // Five referrers where a group keeps three; alice twice, then bob three times.
        let referrer = format!("r:host{i}");
        let member = if i < 2 { "alice" } else { "bob" };
        let answer = visit(&s, "t{1}", "t{1}:d:1", &["v:10", &referrer], member, &format!("visit {i}")).await;
        assert_eq!(answer, Some(Counted::Open(b"link".to_vec())));
    }
    // A gate that is closed records nothing.
    use wrench_infra::store::gated::{Gate, gated};
    s.put("t{1}:closed", &gated(&Gate { since_ms: 0, until_ms: 0, left: Some(0) }, b"x"), None).await.unwrap();
    assert_eq!(
        visit(&s, "t{1}:closed", "t{1}:d:2", &["v:10"], "carol", "closed").await,
        Some(Counted::Closed(b"x".to_vec()))
    );
    assert_eq!(counted(&s, "t{1}:n", 5).await, 5);
    let expected = [("r:", 2), ("r:host0", 1), ("r:host1", 1), ("r:host2", 1), ("u:10", 2), ("v:10", 5)];
    let expected: Vec<(String, i64)> = expected.iter().map(|(k, v)| (k.to_string(), *v)).collect();
    let read = s.tallies(&["t{1}:d:1", "t{1}:d:2", "t{1}:d:3"]).await.unwrap();
    assert_eq!(read.len(), 3);
    assert_eq!(sorted(read[0].clone()), expected, "groups hold 3 values, bookkeeping hidden");
    assert!(read[1].is_empty() && read[2].is_empty(), "a closed gate and an unknown day tally nothing");
    assert_eq!(s.members("t{1}:days").await.unwrap(), vec!["t{1}:d:1".to_string()]);
    assert_eq!(s.members("t{1}:closed:days").await.unwrap(), Vec::<String>::new());
    let state = s.log_state("t{1}:visits").await.unwrap();
    assert_eq!((state.first, state.last), (3, 5), "the newest three are kept");
    let entries: Vec<Vec<u8>> = s.log_read("t{1}:visits", 1, 5).await.unwrap().into_iter().map(|e| e.1).collect();
    assert_eq!(entries, [b"visit 2".to_vec(), b"visit 3".to_vec(), b"visit 4".to_vec()]);
    assert_eq!(s.log_state("t{1}:closed:visits").await.unwrap(), LogState::EMPTY);

    s.delete(&["t{1}", "t{1}:d:1", "t{1}:d:1:seen", "t{1}:days", "t{1}:visits"]).await.unwrap();
    assert_eq!(s.tallies(&["t{1}:d:1"]).await.unwrap(), vec![Vec::new()]);
    assert!(s.members("t{1}:days").await.unwrap().is_empty());
    assert!(s.members("t{1}:d:1:seen").await.unwrap().is_empty());
    assert_eq!(s.log_state("t{1}:visits").await.unwrap(), LogState::EMPTY);
    // Gone for good: a visit now finds no value and records nothing.
    assert_eq!(visit(&s, "t{1}", "t{1}:d:1", &["v:10"], "dave", "late").await, None);
    assert_eq!(s.tallies(&["t{1}:d:1"]).await.unwrap(), vec![Vec::new()]);
}

async fn tallies_are_exact_under_concurrency(s: Arc<dyn Store>) {
    s.put("c{1}", b"link", None).await.unwrap();
    let visits: Vec<_> = (0..100)
        .map(|i| {
            let s = s.clone();
            tokio::spawn(async move {
                let (member, referrer) = (format!("m{}", i % 10), format!("r:h{}", i % 5));
                visit(&s, "c{1}", "c{1}:d:1", &["v:10", &referrer], &member, &format!("{i}")).await
            })
        })
        .collect();
    for v in visits {
        assert!(matches!(v.await.unwrap(), Some(Counted::Open(_))));
    }
    assert_eq!(counted(&s, "c{1}:n", 100).await, 100);
    let read = sorted(s.tallies(&["c{1}:d:1"]).await.unwrap().remove(0));
    let v = |name: &str| read.iter().find(|(n, _)| n == name).map_or(0, |(_, c)| *c);
    assert_eq!((v("v:10"), v("u:10")), (100, 10), "100 visits by 10 visitors");
    let referrers: i64 = read.iter().filter(|(n, _)| n.starts_with("r:")).map(|(_, c)| c).sum();
    assert_eq!(referrers, 100);
    assert_eq!(read.iter().filter(|(n, _)| n.starts_with("r:h")).count(), 3, "three values, the rest as r:");
    assert_eq!(v("r:"), 40);
    let state = s.log_state("c{1}:visits").await.unwrap();
    assert_eq!((state.first, state.last), (98, 100));
}

async fn counted_values_are_spent_read_by_read(s: Arc<dyn Store>) {
    use wrench_infra::store::counted::{Taken, counted};
    assert_eq!(s.take("c{1}").await.unwrap(), None);
    s.put("c{1}", b"plain", None).await.unwrap();
    for _ in 0..3 {
        assert_eq!(s.take("c{1}").await.unwrap(), Some(Taken { value: b"plain".to_vec(), left: None }));
    }
    // Binary bytes after the header come back exactly; the last read removes the value.
    let bytes = b"\0\x01{\xff}\0".to_vec();
    s.put("c{2}", &counted(3, &bytes), Some(Duration::from_secs(60))).await.unwrap();
    for left in [2, 1, 0] {
        assert_eq!(s.take("c{2}").await.unwrap(), Some(Taken { value: bytes.clone(), left: Some(left) }));
    }
    assert_eq!(s.take("c{2}").await.unwrap(), None);
    assert_eq!(s.get("c{2}").await.unwrap(), None, "nothing is left once the last read is spent");
    // A spent read keeps the value's expiry.
    s.put("c{3}", &counted(5, b"v"), Some(Duration::from_millis(400))).await.unwrap();
    assert_eq!(s.take("c{3}").await.unwrap().and_then(|t| t.left), Some(4));
    tokio::time::sleep(Duration::from_millis(600)).await;
    assert_eq!(s.take("c{3}").await.unwrap(), None, "expired");
}

async fn counted_values_give_exactly_their_reads_under_concurrency(s: Arc<dyn Store>) {
    use wrench_infra::store::counted::counted;
    s.put("r{1}", &counted(7, b"secret"), None).await.unwrap();
    let readers: Vec<_> = (0..100)
        .map(|_| {
            let s = s.clone();
            tokio::spawn(async move { s.take("r{1}").await.unwrap() })
        })
        .collect();
    let mut lefts = Vec::new();
    for r in readers {
        if let Some(t) = r.await.unwrap() {
            assert_eq!(t.value, b"secret");
            lefts.push(t.left.unwrap());
        }
    }
    lefts.sort_unstable();
    assert_eq!(lefts, [0, 1, 2, 3, 4, 5, 6], "each read left a different count, and only seven got through");
    assert_eq!(s.get("r{1}").await.unwrap(), None);
}

async fn values_and_reservation(s: Arc<dyn Store>) {
    assert_eq!(s.get("a").await.unwrap(), None);
    assert!(s.put_new("a", b"one", None).await.unwrap());
    assert!(!s.put_new("a", b"two", None).await.unwrap(), "a live key is not overwritten");
    assert_eq!(s.get("a").await.unwrap().as_deref(), Some(&b"one"[..]));
    s.put("a", b"three", None).await.unwrap();
    assert_eq!(s.get("a").await.unwrap().as_deref(), Some(&b"three"[..]));
    s.ping().await.unwrap();
}

async fn values_expire(s: Arc<dyn Store>) {
    assert!(s.put_new("t", b"x", Some(Duration::from_millis(300))).await.unwrap());
    s.put("u", b"y", Some(Duration::from_millis(300))).await.unwrap();
    assert!(s.get("t").await.unwrap().is_some());
    tokio::time::sleep(Duration::from_millis(450)).await;
    assert_eq!(s.get("t").await.unwrap(), None, "expired values are never returned");
    assert_eq!(s.get("u").await.unwrap(), None);
    assert!(s.put_new("t", b"z", None).await.unwrap(), "an expired key can be reserved again");
}

async fn counters_count_and_keep_their_window(s: Arc<dyn Store>) {
    let window = Duration::from_millis(600);
    let (n, left) = s.incr("c", Some(window)).await.unwrap();
    assert_eq!(n, 1);
    let left = left.expect("a windowed counter has a TTL");
    assert!(left <= window && left > Duration::from_millis(300), "{left:?}");
    tokio::time::sleep(Duration::from_millis(200)).await;
    let (n, left2) = s.incr("c", Some(window)).await.unwrap();
    assert_eq!(n, 2);
    assert!(left2.unwrap() < left, "the window is not extended by later counts");
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert_eq!(s.incr("c", Some(window)).await.unwrap().0, 1, "a new window starts from one");
    assert_eq!(s.count("clicks").await.unwrap(), 0);
    let (n, left) = s.incr("clicks", None).await.unwrap();
    assert_eq!((n, left), (1, None));
    assert_eq!(s.incr("clicks", None).await.unwrap().0, 2);
    assert_eq!(s.count("clicks").await.unwrap(), 2, "reading a counter does not change it");
    assert_eq!(s.count("clicks").await.unwrap(), 2);
}

/// Several counters in one step (a rate limit's windows), each with its own window; concurrent
/// steps count every counter exactly once each.
async fn counters_counted_together_keep_their_own_windows(s: Arc<dyn Store>) {
    let (short, long) = (Duration::from_millis(500), Duration::from_secs(30));
    let both = [("w{7}:m", Some(short)), ("w{7}:d", Some(long)), ("w{7}:total", None)];
    let counted = s.incr_each(&both).await.unwrap();
    assert_eq!(counted.iter().map(|c| c.0).collect::<Vec<_>>(), [1, 1, 1]);
    assert!(counted[0].1.unwrap() <= short && counted[1].1.unwrap() > short, "{counted:?}");
    assert_eq!(counted[2].1, None);
    let tasks: Vec<_> = (0..20)
        .map(|_| {
            let s = s.clone();
            tokio::spawn(async move { s.incr_each(&both).await.unwrap() })
        })
        .collect();
    for t in tasks {
        let c = t.await.unwrap();
        assert!(c[0].0 == c[1].0 && c[1].0 == c[2].0, "the counters move together: {c:?}");
    }
    assert_eq!(s.count("w{7}:d").await.unwrap(), 21);
    tokio::time::sleep(Duration::from_millis(600)).await;
    let counted = s.incr_each(&both).await.unwrap();
    assert_eq!(counted.iter().map(|c| c.0).collect::<Vec<_>>(), [1, 22, 22], "only the short window restarted");
    assert!(s.incr_each(&[]).await.unwrap().is_empty());
}

async fn counters_are_atomic_under_concurrency(s: Arc<dyn Store>) {
    let tasks: Vec<_> = (0..40)
        .map(|_| {
            let s = s.clone();
            tokio::spawn(async move { s.incr("n", Some(Duration::from_secs(30))).await.unwrap().0 })
        })
        .collect();
    let mut seen = Vec::new();
    for t in tasks {
        seen.push(t.await.unwrap());
    }
    seen.sort();
    assert_eq!(seen, (1..=40).collect::<Vec<i64>>(), "every increment got its own value");
}

async fn lists_are_capped_newest_first_and_expire(s: Arc<dyn Store>) {
    let later = SystemTime::now() + Duration::from_secs(30);
    assert_eq!(s.list("l").await.unwrap(), Vec::<Vec<u8>>::new());
    assert_eq!(s.list_len("l").await.unwrap(), 0);
    for i in 1..=5u8 {
        let len = s.push_capped("l", &[i], 3, later).await.unwrap();
        assert_eq!(len, usize::from(i).min(3));
    }
    assert_eq!(s.list("l").await.unwrap(), vec![vec![5], vec![4], vec![3]]);
    assert_eq!(s.list_len("l").await.unwrap(), 3);
    let soon = SystemTime::now() + Duration::from_millis(300);
    s.push_capped("m", b"x", 50, soon).await.unwrap();
    assert_eq!(s.list_len("m").await.unwrap(), 1);
    tokio::time::sleep(Duration::from_millis(450)).await;
    assert_eq!(s.list("m").await.unwrap(), Vec::<Vec<u8>>::new(), "the list expired at its time");
}

async fn values_are_binary_safe(s: Arc<dyn Store>) {
    let bytes: Vec<u8> = (0..=255).collect();
    s.put("bin", &bytes, None).await.unwrap();
    assert_eq!(s.get("bin").await.unwrap(), Some(bytes.clone()));
    s.push_capped("binl", &bytes, 2, SystemTime::now() + Duration::from_secs(30)).await.unwrap();
    s.push_capped("binl", b"", 2, SystemTime::now() + Duration::from_secs(30)).await.unwrap();
    assert_eq!(s.list("binl").await.unwrap(), vec![vec![], bytes]);
}

#[tokio::test]
async fn embedded_data_survives_a_restart_and_expired_data_is_swept() {
    let dir = TempDir::new();
    {
        let s = EmbeddedStore::open(&dir.0, wrench_infra::config::DEFAULT_STORE_CACHE).unwrap();
        s.put("paste", b"kept", Some(Duration::from_secs(3600))).await.unwrap();
        s.incr("clicks", None).await.unwrap();
        s.push_capped("inbox", b"p1", 50, SystemTime::now() + Duration::from_secs(3600)).await.unwrap();
        s.put("gone", b"x", Some(Duration::from_millis(50))).await.unwrap();
    }
    let s = EmbeddedStore::open(&dir.0, wrench_infra::config::DEFAULT_STORE_CACHE).unwrap();
    assert_eq!(s.get("paste").await.unwrap().as_deref(), Some(&b"kept"[..]));
    assert_eq!(s.incr("clicks", None).await.unwrap().0, 2);
    assert_eq!(s.list("inbox").await.unwrap(), vec![b"p1".to_vec()]);
    tokio::time::sleep(Duration::from_millis(100)).await;
    assert_eq!(s.sweep().await.unwrap(), 1, "exactly the expired entry is removed");
    assert_eq!(s.get("paste").await.unwrap().as_deref(), Some(&b"kept"[..]));
}

#[tokio::test]
async fn unreachable_redis_fails_fast_with_store_unavailable() {
    // Nothing listens on port 1 here; every operation must give up well within two seconds.
    let s = RedisStore::connect("redis://127.0.0.1:1", "wrench-test:").unwrap();
    let started = Instant::now();
    let r = s.get("anything").await;
    let took = started.elapsed();
    assert!(matches!(r, Err(StoreError::Unavailable(_))), "{r:?}");
    assert!(took < Duration::from_secs(2), "took {took:?}");
    let started = Instant::now();
    assert!(s.incr("n", Some(Duration::from_secs(60))).await.is_err());
    assert!(started.elapsed() < Duration::from_secs(2));
}

/// A client's first calls, made before it has connected (a process that has just started),
/// wait for the connection instead of failing. A clustered client has no slot map then, and
/// refused transactions outright: rate limits went uncounted for the first half second.
async fn first_calls_wait_for_the_connection(url: &str) -> String {
    let prefix = format!("wrench-test:{}:", uuid::Uuid::new_v4().simple());
    let s = RedisStore::connect(url, &prefix).unwrap();
    assert_eq!(s.incr("n", Some(Duration::from_secs(30))).await.unwrap().0, 1);
    assert_eq!(s.push_capped("l", b"v", 5, SystemTime::now() + Duration::from_secs(30)).await.unwrap(), 1);
    s.put("g{1}", b"meta", Some(Duration::from_secs(30))).await.unwrap();
    let push = GuardedPush { guard: "g{1}", list: "g{1}:l", value: b"x", cap: 10, window: None };
    assert_eq!(s.push_guarded(push).await.unwrap(), Pushed::Done(1));
    prefix
}

#[tokio::test]
#[cfg_attr(
    not(wrench_test_redis),
    ignore = "needs Redis: set WRENCH_TEST_REDIS_URL (for example redis://127.0.0.1:6379)"
)]
async fn first_calls_of_a_new_client_wait_for_redis() {
    let url = std::env::var("WRENCH_TEST_REDIS_URL").unwrap();
    let prefix = first_calls_wait_for_the_connection(&url).await;
    common::remove_redis_keys(&url, &prefix).await;
}

/// The scripts are run by hash; a Redis that lost them (a restart, a failover to a replica that
/// never loaded them; here SCRIPT FLUSH) gets them again on the NOSCRIPT answer.
#[tokio::test]
#[cfg_attr(
    not(wrench_test_redis),
    ignore = "needs Redis: set WRENCH_TEST_REDIS_URL (for example redis://127.0.0.1:6379)"
)]
async fn scripts_are_loaded_again_after_redis_forgets_them() {
    use fred::prelude::*;
    let b = redis().await;
    let s = b.store.clone();
    s.put("f{4}", b"meta", Some(Duration::from_secs(30))).await.unwrap();
    let push = GuardedPush { guard: "f{4}", list: "f{4}:l", value: b"x", cap: 10, window: None };
    assert_eq!(s.push_guarded(push).await.unwrap(), Pushed::Done(1));
    let url = std::env::var("WRENCH_TEST_REDIS_URL").unwrap();
    let admin = Builder::from_config(Config::from_url(&url).unwrap()).build().unwrap();
    admin.init().await.unwrap();
    let _: () = admin.script_flush(false).await.unwrap();
    assert_eq!(s.push_guarded(push).await.unwrap(), Pushed::Done(2));
    assert_eq!(
        s.get_and_count(CountedRead { key: "f{4}", stamp_key: "f{4}:t", stamp: b"t", counter: "f{4}:n", now_ms: 0 })
            .await
            .unwrap(),
        Some(Counted::Open(b"meta".to_vec()))
    );
    b.cleanup().await;
}

/// The whole contract on a real cluster (keys of one operation share a hash tag, so the
/// scripts run on one node), then a failover: the primary holding a key is stopped, calls on
/// its slots during the switch fail within 2 s (503 for a request) and work again without a
/// new client once a replica has taken over, while calls on the other primaries' slots
/// succeed throughout.
#[tokio::test]
#[cfg_attr(
    not(wrench_test_redis),
    ignore = "needs Redis: set WRENCH_TEST_REDIS_URL (for example redis://127.0.0.1:6379)"
)]
async fn redis_cluster_passes_the_contract_and_survives_a_failover() {
    let mut cluster = Cluster::start();
    let url = cluster.url();
    first_calls_wait_for_the_connection(&url).await;
    let open = || {
        let prefix = format!("wrench-test:{}:", uuid::Uuid::new_v4().simple());
        RedisStore::connect(&url, &prefix).unwrap()
    };
    macro_rules! check {
        ($($f:ident),*) => {$({
            let store = open();
            assert!(store.wait_connected(Duration::from_secs(5)).await, "the cluster does not answer");
            $f(Arc::new(store)).await;
        })*};
    }
    check!(
        values_and_reservation,
        values_expire,
        counters_count_and_keep_their_window,
        counters_are_atomic_under_concurrency,
        counters_counted_together_keep_their_own_windows,
        lists_are_capped_newest_first_and_expire,
        values_are_binary_safe,
        guarded_pushes_need_their_guard_and_respect_their_window,
        guarded_pushes_are_counted_atomically,
        reads_that_count_stamp_then_count_only_what_exists,
        logs_number_trim_by_count_and_bytes_and_expire,
        log_appends_are_numbered_atomically,
        cleared_and_deleted_logs_hold_nothing,
        appends_that_expect_a_guard_value_need_exactly_it,
        counted_values_are_spent_read_by_read,
        counted_values_give_exactly_their_reads_under_concurrency,
        gated_reads_count_only_inside_their_period_and_uses,
        gated_reads_give_exactly_their_uses_under_concurrency,
        tallies_are_recorded_with_the_count_and_deleted_whole,
        tallies_are_exact_under_concurrency,
        batches_record_as_their_visits_would
    );

    // Failovers with one client: first of the node the client was seeded with, then of another
    // primary (the cluster still has a majority of primaries to elect its replica). Only the
    // stopped primary's slots may fail: keys on the other primaries are written throughout.
    let breaker = Arc::new(wrench_infra::store::breaker::Breaker::new(Arc::new(open())));
    let store: Arc<dyn Store> = breaker.clone();
    assert!(store.ping().await.is_ok());
    let seed = cluster.seed();
    let other = cluster.primaries().into_iter().find(|&p| p != seed).unwrap();
    for victim in [seed, other] {
        let key = format!("x{{{}}}", cluster.tag_on(victim));
        let healthy: Vec<String> = cluster
            .primaries()
            .into_iter()
            .filter(|&p| p != victim)
            .map(|p| format!("y{{{}}}", cluster.tag_on(p)))
            .collect();
        assert_eq!(healthy.len(), 2, "two other primaries");
        store.put(&key, b"before", None).await.unwrap();
        cluster.stop(victim);
        let started = Instant::now();
        let (mut recovered, mut healthy_calls, mut failed_calls) = (None, 0, 0);
        while started.elapsed() < Duration::from_secs(30) {
            for k in &healthy {
                let call = Instant::now();
                let answer = store.put(k, b"on", None).await;
                assert!(
                    answer.is_ok(),
                    "{:?} after {victim} stopped, a key on a healthy primary failed: {answer:?}",
                    started.elapsed()
                );
                assert!(call.elapsed() < Duration::from_secs(2), "a healthy call took {:?}", call.elapsed());
                healthy_calls += 1;
            }
            let call = Instant::now();
            let answer = store.put(&key, b"after", None).await;
            assert!(call.elapsed() < Duration::from_secs(2), "a call during the failover took {:?}", call.elapsed());
            if answer.is_ok() {
                recovered = Some(started.elapsed());
                break;
            }
            failed_calls += 1;
            tokio::time::sleep(Duration::from_millis(200)).await;
        }
        let recovered = recovered.expect("a replica took over and calls work again within 30 s");
        assert!(failed_calls > 0, "the stopped primary's key never failed: the test stopped nothing");
        assert_eq!(store.get(&key).await.unwrap(), Some(b"after".to_vec()));
        eprintln!(
            "cluster failover of {victim}: its key works again {recovered:?} after the primary stopped \
             ({failed_calls} refused calls); {healthy_calls} calls on the other primaries, none failed; \
             open parts now {:?}",
            breaker.open_parts()
        );
    }
}
