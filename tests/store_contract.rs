//! One contract, two backends: the embedded store always, Redis whenever
//! `WRENCH_TEST_REDIS_URL` is set (CI sets it and fails if Redis does not answer). Every test
//! uses a key prefix of its own, so it never touches other data, and removes its keys after.

use std::{
    sync::Arc,
    time::{Duration, Instant, SystemTime},
};

use wrench::store::{Store, StoreError, embedded::EmbeddedStore, redis::RedisStore};

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
    let store = EmbeddedStore::open(&dir.0).unwrap();
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
            use fred::prelude::*;
            let client = Builder::from_config(Config::from_url(&url).unwrap()).build().unwrap();
            client.init().await.unwrap();
            let keys: Vec<String> = client.custom(fred::cmd!("KEYS"), vec![format!("{prefix}*")]).await.unwrap();
            if !keys.is_empty() {
                let _: i64 = client.del(keys).await.unwrap();
            }
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
contract!(lists, lists_are_capped_newest_first_and_expire);
contract!(binary, values_are_binary_safe);

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
        let s = EmbeddedStore::open(&dir.0).unwrap();
        s.put("paste", b"kept", Some(Duration::from_secs(3600))).await.unwrap();
        s.incr("clicks", None).await.unwrap();
        s.push_capped("inbox", b"p1", 50, SystemTime::now() + Duration::from_secs(3600)).await.unwrap();
        s.put("gone", b"x", Some(Duration::from_millis(50))).await.unwrap();
    }
    let s = EmbeddedStore::open(&dir.0).unwrap();
    assert_eq!(s.get("paste").await.unwrap().as_deref(), Some(&b"kept"[..]));
    assert_eq!(s.incr("clicks", None).await.unwrap().0, 2);
    assert_eq!(s.list("inbox").await.unwrap(), vec![b"p1".to_vec()]);
    tokio::time::sleep(Duration::from_millis(100)).await;
    assert_eq!(s.sweep().unwrap(), 1, "exactly the expired entry is removed");
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
