//! Redis going away and coming back, with a Redis server this test starts and stops itself
//! (on a free port, keeping nothing on disk). Skipped, with a message, where `redis-server`
//! is not installed; CI machines have it.

use std::{
    process::{Child, Command, Stdio},
    sync::Arc,
    time::{Duration, Instant},
};

use poem::test::TestClient;
use wrench::{
    config::Config,
    store::{Store, redis::RedisStore},
};

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port()
}

fn start_redis(port: u16) -> Option<Child> {
    let child = Command::new("redis-server")
        .args(["--port", &port.to_string(), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn();
    match child {
        Ok(c) => Some(c),
        Err(e) => {
            eprintln!("redis-server not available ({e}): skipping");
            None
        }
    }
}

async fn until<F: std::future::Future<Output = bool>>(limit: Duration, mut f: impl FnMut() -> F) -> bool {
    let started = Instant::now();
    while started.elapsed() < limit {
        if f().await {
            return true;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    false
}

#[tokio::test]
async fn redis_going_away_is_503_fast_and_recovery_is_automatic() {
    let port = free_port();
    let Some(mut server) = start_redis(port) else { return };
    let url = format!("redis://127.0.0.1:{port}");
    let store = Arc::new(RedisStore::connect(&url, "wrench-fault-test:").unwrap());
    assert!(store.wait_connected(Duration::from_secs(5)).await, "the test's Redis did not start");
    store.put("k", b"v", Some(Duration::from_secs(60))).await.unwrap();

    // The app on the same store: a stateless operation and /health keep answering.
    let cli = TestClient::new(
        wrench::http::app_with_store(Arc::new(Config::default()), store.clone(), wrench::operations()).unwrap(),
    );

    server.kill().unwrap();
    server.wait().unwrap();
    let started = Instant::now();
    assert!(store.get("k").await.is_err());
    assert!(started.elapsed() < Duration::from_secs(2), "a dead Redis took {:?} to report", started.elapsed());
    let started = Instant::now();
    assert!(store.incr("n", Some(Duration::from_secs(60))).await.is_err());
    assert!(started.elapsed() < Duration::from_secs(2));
    cli.post("/v1/base64/encode")
        .body_json(&serde_json::json!({"text": "still up"}))
        .send()
        .await
        .assert_status_is_ok();
    let health: serde_json::Value =
        serde_json::from_slice(&cli.get("/health").send().await.0.into_body().into_vec().await.unwrap()).unwrap();
    assert_eq!(health["data"]["store"]["reachable"], false);

    // Redis comes back on the same port: the client reconnects by itself.
    let Some(mut server) = start_redis(port) else { return };
    let recovered = until(Duration::from_secs(15), || {
        let s = store.clone();
        async move { s.put("k2", b"v2", Some(Duration::from_secs(60))).await.is_ok() }
    })
    .await;
    assert!(recovered, "the store did not recover after Redis came back");
    assert_eq!(store.get("k2").await.unwrap().as_deref(), Some(&b"v2"[..]));
    server.kill().unwrap();
    server.wait().unwrap();
}

#[tokio::test]
async fn redis_unreachable_at_start_up_is_not_fatal() {
    let port = free_port();
    // Nothing listens yet: the store is built anyway and answers errors quickly.
    let store = Arc::new(RedisStore::connect(&format!("redis://127.0.0.1:{port}"), "wrench-fault-test:").unwrap());
    let started = Instant::now();
    assert!(store.ping().await.is_err());
    assert!(started.elapsed() < Duration::from_secs(2));
    let Some(mut server) = start_redis(port) else { return };
    let up = until(Duration::from_secs(15), || {
        let s = store.clone();
        async move { s.ping().await.is_ok() }
    })
    .await;
    assert!(up, "the store did not connect once Redis started");
    server.kill().unwrap();
    server.wait().unwrap();
}
