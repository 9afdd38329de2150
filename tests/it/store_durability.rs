//! Everything acknowledged survives a kill -9 of the server: 32 concurrent writers create
//! pastes and deliver webhooks while the server is killed mid-stream; after a restart on the
//! same store, every acknowledged paste reads back with its content and every acknowledged
//! delivery is in its inbox. On the embedded store group commit (one fsync for many writes)
//! must not weaken this: a write is answered only after its batch is on disk. On Redis and on
//! a Redis Cluster (run when `WRENCH_TEST_REDIS_URL` is set) a write is answered only after
//! Redis has answered it.

use crate::common;

use std::{
    process::{Child, Command, Stdio},
    sync::{Arc, Mutex},
    time::Duration,
};

use serde_json::{Value, json};

/// An inbox and the bodies delivered to it that the server acknowledged, oldest first.
type Delivered = (String, Vec<Value>);

/// Where the server keeps its data: settings for the process.
type Backing = Vec<(&'static str, String)>;

fn start(port: u16, backing: &Backing) -> Child {
    Command::new(env!("CARGO_BIN_EXE_wrench"))
        .env("WRENCH_LISTEN", format!("127.0.0.1:{port}"))
        .env("WRENCH_LOG", "warn")
        .envs(backing.iter().map(|(k, v)| (k, v)))
        .env("WRENCH_RATE_ANON_PER_MINUTE", "0")
        .env("WRENCH_RATE_ANON_PER_DAY", "0")
        .stdout(Stdio::null())
        .spawn()
        .unwrap()
}

async fn post(client: &reqwest::Client, url: String, body: String) -> Option<Value> {
    let response = client.post(url).header("Content-Type", "application/json").body(body).send().await.ok()?;
    if response.status() != 200 {
        return None;
    }
    serde_json::from_str(&response.text().await.ok()?).ok()
}

#[tokio::test]
async fn every_acknowledged_write_survives_kill_9() {
    let data = std::env::temp_dir().join(format!("wrench-durability-test-{}", uuid::Uuid::new_v4().simple()));
    survives_kill_9(vec![("WRENCH_DATA_DIR", data.display().to_string())]).await;
    let _ = std::fs::remove_dir_all(&data);
}

/// A fresh key prefix on the Redis at `url`.
fn on_redis(url: &str) -> Backing {
    let prefix = format!("wrench-test:{}:", uuid::Uuid::new_v4().simple());
    vec![("WRENCH_REDIS_URL", url.to_string()), ("WRENCH_REDIS_PREFIX", prefix)]
}

#[tokio::test]
#[cfg_attr(
    not(wrench_test_redis),
    ignore = "needs Redis: set WRENCH_TEST_REDIS_URL (for example redis://127.0.0.1:6379)"
)]
async fn every_acknowledged_write_survives_kill_9_on_redis() {
    let url = std::env::var("WRENCH_TEST_REDIS_URL").unwrap();
    let backing = on_redis(&url);
    survives_kill_9(backing.clone()).await;
    common::remove_redis_keys(&url, &backing[1].1).await;
}

#[tokio::test]
#[cfg_attr(
    not(wrench_test_redis),
    ignore = "needs Redis: set WRENCH_TEST_REDIS_URL (for example redis://127.0.0.1:6379)"
)]
async fn every_acknowledged_write_survives_kill_9_on_a_redis_cluster() {
    let cluster = common::cluster::Cluster::start();
    survives_kill_9(on_redis(&cluster.url())).await;
}

async fn survives_kill_9(backing: Backing) {
    let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let base = format!("http://127.0.0.1:{port}");
    let mut server = start(port, &backing);
    common::when_listening(port, Duration::from_secs(10)).await;
    let client = reqwest::Client::new();

    // (paste id, content), and per delivering writer its inbox and the bodies the server
    // answered 200 for, in the order it sent them.
    let pastes: Arc<Mutex<Vec<(String, String)>>> = Arc::default();
    let deliveries: Arc<Mutex<Vec<Delivered>>> = Arc::default();
    let mut writers = Vec::new();
    for w in 0..32 {
        let (client, base) = (client.clone(), base.clone());
        let (pastes, deliveries) = (pastes.clone(), deliveries.clone());
        let inbox = if w % 4 == 0 {
            let created = post(&client, format!("{base}/v1/webhook/inbox/create"), String::new()).await.unwrap();
            Some(created["data"]["id"].as_str().unwrap().to_string())
        } else {
            None
        };
        writers.push(tokio::spawn(async move {
            let mut sent = Vec::new();
            for i in 0.. {
                let content = format!("writer {w} paste {i}");
                let body = json!({"content": content}).to_string();
                match post(&client, format!("{base}/v1/paste/create"), body).await {
                    Some(v) => pastes.lock().unwrap().push((v["data"]["id"].as_str().unwrap().to_string(), content)),
                    None => break,
                }
                if let Some(inbox) = &inbox {
                    let body = json!({"writer": w, "n": i});
                    let url = format!("{base}/v1/webhook/inbox/{inbox}/receive");
                    match post(&client, url, body.to_string()).await {
                        Some(_) => sent.push(body),
                        None => break,
                    }
                }
            }
            if let Some(inbox) = inbox {
                deliveries.lock().unwrap().push((inbox, sent));
            }
        }));
    }
    tokio::time::sleep(Duration::from_millis(1500)).await;
    server.kill().unwrap(); // SIGKILL
    server.wait().unwrap();
    for w in writers {
        let _ = w.await;
    }
    let pastes = pastes.lock().unwrap().clone();
    let deliveries = deliveries.lock().unwrap().clone();
    assert!(pastes.len() > 100, "too few writes before the kill to prove anything: {}", pastes.len());

    let mut server = start(port, &backing);
    common::when_listening(port, Duration::from_secs(10)).await;
    let mut lost = Vec::new();
    for (id, content) in &pastes {
        let answer = client.get(format!("{base}/v1/paste/{id}")).send().await.unwrap();
        let v: Value = serde_json::from_str(&answer.text().await.unwrap()).unwrap_or(Value::Null);
        if v["data"]["content"] != content.as_str() {
            lost.push(id.clone());
        }
    }
    // An inbox keeps its newest 50 payloads; a delivery in flight at the kill may have been
    // kept without being acknowledged, so each writer's newest 49 acknowledged ones must be there.
    let mut missing = Vec::new();
    for (inbox, sent) in &deliveries {
        let url = format!("{base}/v1/webhook/inbox/{inbox}/payloads?limit=50");
        let listed: Value = serde_json::from_str(&client.get(url).send().await.unwrap().text().await.unwrap()).unwrap();
        let kept: Vec<&Value> = listed["data"]["payloads"].as_array().unwrap().iter().map(|p| &p["body"]).collect();
        missing.extend(sent.iter().rev().take(49).filter(|d| !kept.contains(d)).cloned());
    }
    let _ = server.kill();
    let _ = server.wait();
    assert!(
        lost.is_empty(),
        "{} of {} acknowledged pastes lost: {:?}",
        lost.len(),
        pastes.len(),
        &lost[..lost.len().min(5)]
    );
    assert!(missing.is_empty(), "acknowledged deliveries missing: {missing:?}");
    let delivered: usize = deliveries.iter().map(|(_, sent)| sent.len()).sum();
    eprintln!("{} pastes and {delivered} deliveries acknowledged before kill -9; all read back", pastes.len());
}
