//! Stateful features across instances and restarts: two instances on one Redis serve the same
//! pastes, links and inboxes and share rate limits (run when `WRENCH_TEST_REDIS_URL` is set,
//! as in CI); an instance restarted on the embedded store keeps everything.

use crate::common;

use std::{sync::Arc, time::Duration};

use poem::listener::TcpAcceptor;
use serde_json::{Value, json};
use wrench_infra::config::{Config, Quota};
use wrench_infra::store::{Store, breaker::Breaker, redis::RedisStore};

/// Serves an app on a real socket, so callers have an address for rate limits.
async fn serve(config: Config, store: Arc<dyn Store>) -> std::net::SocketAddr {
    let app = wrench_server::http::app_with_store(Arc::new(config), store, wrench::operations()).unwrap();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(poem::Server::new_with_acceptor(TcpAcceptor::from_tokio(listener).unwrap()).run(app));
    addr
}

async fn call(addr: std::net::SocketAddr, method: &str, path: &str, body: Option<Value>) -> (String, Value) {
    let mut stream = tokio::net::TcpStream::connect(addr).await.unwrap();
    let body = body.map(|b| b.to_string()).unwrap_or_default();
    let req = common::json_request(method, path, "", &body);
    let (head, body) = common::exchange(&mut stream, &req).await;
    (head, serde_json::from_str(&body).unwrap_or(Value::Null))
}

fn quota(per_minute: u32) -> Config {
    Config { anon_quota: Quota { per_minute, per_day: 1000 }, ..Config::default() }
}

/// Creates a paste, a link and an inbox with a payload on `a`; returns their ids.
async fn create_everything(a: std::net::SocketAddr) -> (String, String, String) {
    let (_, paste) = call(a, "POST", "/v1/paste/create", Some(json!({"content": "shared"}))).await;
    let (_, link) = call(a, "POST", "/v1/short-url/create", Some(json!({"url": "https://example.com/shared"}))).await;
    let (_, inbox) = call(a, "POST", "/v1/webhook/inbox/create", None).await;
    let inbox = inbox["data"]["id"].as_str().unwrap().to_string();
    let (head, _) = call(a, "POST", &format!("/v1/webhook/inbox/{inbox}/receive"), Some(json!({"n": 1}))).await;
    assert!(head.starts_with("http/1.1 200"), "{head}");
    (paste["data"]["id"].as_str().unwrap().to_string(), link["data"]["slug"].as_str().unwrap().to_string(), inbox)
}

/// Reads all of it back from `b`.
async fn read_everything(b: std::net::SocketAddr, paste: &str, slug: &str, inbox: &str) {
    let (_, v) = call(b, "GET", &format!("/v1/paste/{paste}"), None).await;
    assert_eq!(v["data"]["content"], "shared", "{v}");
    let (head, _) = call(b, "GET", &format!("/v1/short-url/r/{slug}"), None).await;
    assert!(head.starts_with("http/1.1 302") && head.contains("location: https://example.com/shared"), "{head}");
    let (_, v) = call(b, "GET", &format!("/v1/webhook/inbox/{inbox}/payloads"), None).await;
    assert_eq!(v["data"]["payloads"][0]["body"], json!({"n": 1}), "{v}");
}

#[tokio::test]
#[cfg_attr(
    not(wrench_test_redis),
    ignore = "needs Redis: set WRENCH_TEST_REDIS_URL (for example redis://127.0.0.1:6379)"
)]
async fn two_instances_on_one_redis_share_data_and_rate_limits() {
    let url = std::env::var("WRENCH_TEST_REDIS_URL")
        .expect("WRENCH_TEST_REDIS_URL was set when the tests were built; set it again to run them");
    let prefix = share_data_and_rate_limits(&url).await;
    common::remove_redis_keys(&url, &prefix).await;
}

/// Two instances without rate limits on the Redis of `WRENCH_TEST_REDIS_URL`, under a new key
/// prefix: the URL, the prefix and their addresses.
async fn two_unlimited_instances_on_redis() -> (String, String, std::net::SocketAddr, std::net::SocketAddr) {
    let url = std::env::var("WRENCH_TEST_REDIS_URL")
        .expect("WRENCH_TEST_REDIS_URL was set when the tests were built; set it again to run them");
    let prefix = format!("wrench-test:{}:", uuid::Uuid::new_v4().simple());
    let connect = || Arc::new(RedisStore::connect(&url, &prefix).unwrap()) as Arc<dyn Store>;
    let unlimited = || Config { anon_quota: Quota::UNLIMITED, ..Config::default() };
    let (a, b) = (serve(unlimited(), connect()).await, serve(unlimited(), connect()).await);
    (url, prefix, a, b)
}

/// 100 GETs of `path` at once, alternating between `a` and `b`: how many got each status.
async fn hundred_gets(
    a: std::net::SocketAddr,
    b: std::net::SocketAddr,
    path: &str,
) -> std::collections::BTreeMap<u16, usize> {
    let calls: Vec<_> = (0..100)
        .map(|i| {
            let (addr, path) = (if i % 2 == 0 { a } else { b }, path.to_string());
            tokio::spawn(async move { call(addr, "GET", &path, None).await.0 })
        })
        .collect();
    let mut statuses = std::collections::BTreeMap::new();
    for c in calls {
        let head = c.await.unwrap();
        *statuses.entry(head.get(9..12).and_then(|s| s.parse().ok()).unwrap_or(0)).or_insert(0) += 1;
    }
    statuses
}

/// Pastes with a view limit read from two instances at once: exactly as many reads succeed as
/// there were views, and a burnt or deleted paste leaves no key behind (a scan of the test's
/// prefix finds none).
#[tokio::test]
#[cfg_attr(
    not(wrench_test_redis),
    ignore = "needs Redis: set WRENCH_TEST_REDIS_URL (for example redis://127.0.0.1:6379)"
)]
async fn burnt_and_deleted_pastes_leave_no_keys_on_redis() {
    let (url, prefix, a, b) = two_unlimited_instances_on_redis().await;
    let (_, created) = call(a, "POST", "/v1/paste/create", Some(json!({"content": "few", "maxViews": 5}))).await;
    let id = created["data"]["id"].as_str().unwrap().to_string();
    assert_eq!(common::redis_keys(&url, &prefix).await.len(), 1, "one key for one paste");
    let statuses = hundred_gets(a, b, &format!("/v1/paste/{id}")).await;
    assert_eq!(statuses, [(200, 5), (404, 95)].into(), "five views, five reads, across both instances");
    assert_eq!(common::redis_keys(&url, &prefix).await, Vec::<String>::new(), "the burnt paste left nothing");
    let (_, created) = call(b, "POST", "/v1/paste/create", Some(json!({"content": "to delete"}))).await;
    let (id, token) = (created["data"]["id"].as_str().unwrap(), created["data"]["deleteToken"].as_str().unwrap());
    let mut stream = tokio::net::TcpStream::connect(a).await.unwrap();
    let req = common::json_request("DELETE", &format!("/v1/paste/{id}"), &format!("X-Delete-Token: {token}\r\n"), "");
    let (head, _) = common::exchange(&mut stream, &req).await;
    assert!(head.starts_with("http/1.1 200"), "{head}");
    assert_eq!(common::redis_keys(&url, &prefix).await, Vec::<String>::new(), "the deleted paste left nothing");
    common::remove_redis_keys(&url, &prefix).await;
}

/// A link with a visit limit followed through two instances at once: exactly as many redirects
/// as the limit, the rest 410; deleting it leaves no key behind.
#[tokio::test]
#[cfg_attr(
    not(wrench_test_redis),
    ignore = "needs Redis: set WRENCH_TEST_REDIS_URL (for example redis://127.0.0.1:6379)"
)]
async fn visit_limits_hold_across_instances_and_deleted_links_leave_no_keys() {
    let (url, prefix, a, b) = two_unlimited_instances_on_redis().await;
    let body = json!({"url": "https://example.com/", "maxVisits": 7});
    let (_, created) = call(a, "POST", "/v1/short-url/create", Some(body)).await;
    let (slug, token) = (created["data"]["slug"].as_str().unwrap(), created["data"]["manageToken"].as_str().unwrap());
    let statuses = hundred_gets(a, b, &format!("/v1/short-url/r/{slug}")).await;
    assert_eq!(statuses, [(302, 7), (410, 93)].into());
    // Statistics wait for the visits their own instance queued: asked of `a`, then of `b`,
    // they have seen both instances' visits written.
    call(a, "GET", &format!("/v1/short-url/{slug}/stats"), None).await;
    let (_, stats) = call(b, "GET", &format!("/v1/short-url/{slug}/stats"), None).await;
    assert_eq!((stats["data"]["clicks"].as_i64(), stats["data"]["visitsLeft"].as_u64()), (Some(7), Some(0)), "{stats}");
    // 7 visits from one address and User-Agent through two instances: one visitor.
    let visits = &stats["data"]["visits"];
    assert_eq!((visits["total"].as_u64(), visits["unique"].as_u64()), (Some(7), Some(1)), "{stats}");
    assert_eq!(stats["data"]["recentVisits"].as_array().map(Vec::len), Some(7));
    let keys = || async {
        let mut keys: Vec<String> = common::redis_keys(&url, &prefix)
            .await
            .into_iter()
            .map(|k| k.trim_start_matches(prefix.as_str()).replace(slug, "S"))
            .collect();
        keys.sort();
        keys
    };
    let found = keys().await;
    let salt = found.iter().find(|k| k.starts_with("visits:salt:")).expect("the day's salt is shared").clone();
    let day = salt.trim_start_matches("visits:salt:");
    let link_keys = ["", ":clicks", ":d:DAY", ":days", ":last", ":seen:DAY", ":visits"];
    let mut expected: Vec<String> = link_keys.iter().map(|k| format!("link:{{S}}{}", k.replace("DAY", day))).collect();
    expected.push(salt.clone());
    assert_eq!(found, expected, "the link, its counters, its day's tally and visitors, its visits and the salt");
    let mut stream = tokio::net::TcpStream::connect(b).await.unwrap();
    let req =
        common::json_request("DELETE", &format!("/v1/short-url/{slug}"), &format!("X-Manage-Token: {token}\r\n"), "");
    let (head, _) = common::exchange(&mut stream, &req).await;
    assert!(head.starts_with("http/1.1 200"), "{head}");
    assert_eq!(keys().await, [salt], "the deleted link left nothing; the day's salt is no link's");
    common::remove_redis_keys(&url, &prefix).await;
}

/// A delivery decides with the inbox as its instance last read it, and stores only while the
/// store still holds that record: an inbox changed or deleted through the other instance is
/// never acted on as it was.
#[tokio::test]
#[cfg_attr(
    not(wrench_test_redis),
    ignore = "needs Redis: set WRENCH_TEST_REDIS_URL (for example redis://127.0.0.1:6379)"
)]
async fn inbox_changes_through_one_instance_apply_at_once_on_the_other() {
    let (url, prefix, a, b) = two_unlimited_instances_on_redis().await;
    let (_, created) = call(a, "POST", "/v1/webhook/inbox/create", None).await;
    let (id, token) = (created["data"]["id"].as_str().unwrap(), created["data"]["manageToken"].as_str().unwrap());
    let receive = format!("/v1/webhook/inbox/{id}/receive");
    let (head, v) = call(a, "POST", &receive, Some(json!({"n": 1}))).await;
    assert!(head.starts_with("http/1.1 200") && v["data"]["id"] == "1", "{head} {v}");
    let manage = |method: &str, body: &str| {
        common::json_request(method, &format!("/v1/webhook/inbox/{id}"), &format!("X-Manage-Token: {token}\r\n"), body)
    };
    let mut stream = tokio::net::TcpStream::connect(b).await.unwrap();
    let (head, _) =
        common::exchange(&mut stream, &manage("PATCH", r#"{"response":{"status":202,"body":"changed"}}"#)).await;
    assert!(head.starts_with("http/1.1 200"), "{head}");
    // `a` read the inbox before the change; its next delivery answers as the inbox says now.
    let mut stream = tokio::net::TcpStream::connect(a).await.unwrap();
    let (head, body) = common::exchange(&mut stream, &common::json_request("POST", &receive, "", r#"{"n":2}"#)).await;
    assert!(head.starts_with("http/1.1 202") && body == "changed", "{head} {body}");
    let (_, v) = call(b, "GET", &format!("/v1/webhook/inbox/{id}/payloads"), None).await;
    let stored: Vec<(&Value, &Value)> =
        v["data"]["payloads"].as_array().unwrap().iter().map(|p| (&p["id"], &p["body"])).collect();
    assert_eq!(stored, [(&json!("1"), &json!({"n": 1})), (&json!("2"), &json!({"n": 2}))], "stored once: {v}");
    let mut stream = tokio::net::TcpStream::connect(b).await.unwrap();
    let (head, _) = common::exchange(&mut stream, &manage("DELETE", "")).await;
    assert!(head.starts_with("http/1.1 200"), "{head}");
    let (head, _) = call(a, "POST", &receive, Some(json!({"n": 3}))).await;
    assert!(head.starts_with("http/1.1 404"), "a deleted inbox takes nothing: {head}");
    common::remove_redis_keys(&url, &prefix).await;
}

/// The same on a local Redis Cluster (see tests/it/common/cluster.rs), whose keys of one item
/// live on different nodes unless they share a hash tag; then a primary fails: requests during
/// the switch answer 503 within 2 s and then work again on both instances, with no restart.
#[tokio::test]
#[cfg_attr(
    not(wrench_test_redis),
    ignore = "needs Redis: set WRENCH_TEST_REDIS_URL (for example redis://127.0.0.1:6379)"
)]
async fn two_instances_on_a_redis_cluster_share_data_and_survive_a_failover() {
    let mut cluster = common::cluster::Cluster::start();
    let url = cluster.url();
    share_data_and_rate_limits(&url).await;

    let prefix = format!("wrench-test:{}:", uuid::Uuid::new_v4().simple());
    let connect = || Arc::new(Breaker::new(Arc::new(RedisStore::connect(&url, &prefix).unwrap()))) as Arc<dyn Store>;
    let unlimited = || Config { anon_quota: Quota::UNLIMITED, ..Config::default() };
    let (a, b) = (serve(unlimited(), connect()).await, serve(unlimited(), connect()).await);
    let (paste, slug, inbox) = create_everything(a).await;
    read_everything(b, &paste, &slug, &inbox).await;
    // Stop the primary holding the inbox (its keys share the `{id}` tag), then deliver to it.
    let victim = cluster.primary_of(&format!("{{{inbox}}}"));
    cluster.stop(victim);
    let receive = format!("/v1/webhook/inbox/{inbox}/receive");
    let started = std::time::Instant::now();
    let (mut failed, mut recovered) = (0, None);
    while started.elapsed() < Duration::from_secs(30) {
        let mut worked = 0;
        for addr in [a, b] {
            let sent = std::time::Instant::now();
            let (head, v) = call(addr, "POST", &receive, Some(json!({"n": 2}))).await;
            assert!(sent.elapsed() < Duration::from_secs(2), "a request during the failover took {:?}", sent.elapsed());
            if head.starts_with("http/1.1 200") {
                worked += 1;
            } else {
                assert!(head.starts_with("http/1.1 503") && v["error"]["code"] == "STORE_UNAVAILABLE", "{head} {v}");
                failed += 1;
            }
        }
        if worked == 2 {
            recovered = Some(started.elapsed());
            break;
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    let recovered = recovered.expect("both instances deliver again within 30 s of the failure");
    assert!(failed > 0, "the stopped primary held the inbox, so some delivery failed");
    let (_, v) = call(b, "GET", &format!("/v1/webhook/inbox/{inbox}/payloads"), None).await;
    let payloads = v["data"]["payloads"].as_array().unwrap();
    // Oldest first: the delivery from before the failure, then the two that worked at the end.
    assert_eq!(payloads[0]["body"], json!({"n": 1}), "the delivery from before the failure is kept: {v}");
    assert!(payloads.len() >= 3 && payloads.last().unwrap()["body"] == json!({"n": 2}), "{v}");
    eprintln!(
        "cluster failover of {victim}: {failed} requests answered 503, both instances deliver again {recovered:?} after"
    );
}

/// Two rate-limited instances and two unlimited ones on the store at `url` under a new key
/// prefix (returned): what one creates the other reads, a click counted on one shows on the
/// other, and the anonymous quota is one quota across both.
async fn share_data_and_rate_limits(url: &str) -> String {
    let prefix = format!("wrench-test:{}:", uuid::Uuid::new_v4().simple());
    let connect = || {
        let s = RedisStore::connect(url, &prefix).unwrap();
        Arc::new(s) as Arc<dyn Store>
    };
    let (sa, sb) = (connect(), connect());
    let a = serve(quota(4), sa).await;
    let b = serve(quota(4), sb).await;
    // Everything created on one instance is there on the other (ids from an unlimited pair).
    let unlimited = || Config { anon_quota: Quota::UNLIMITED, ..Config::default() };
    let ua = serve(unlimited(), connect()).await;
    let ub = serve(unlimited(), connect()).await;
    let (paste, slug, inbox) = create_everything(ua).await;
    read_everything(ub, &paste, &slug, &inbox).await;
    let mut clicks = 0;
    for _ in 0..50 {
        let (_, v) = call(ua, "GET", &format!("/v1/short-url/{slug}/stats"), None).await;
        clicks = v["data"]["clicks"].as_i64().unwrap();
        if clicks == 1 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert_eq!(clicks, 1, "the click counted on one instance shows on the other");

    // The quota of 4 per minute is one quota across both instances.
    common::away_from_minute_boundary().await;
    let encode = || Some(json!({"text": "x"}));
    for (i, addr) in [a, b, a, b].into_iter().enumerate() {
        let (head, _) = call(addr, "POST", "/v1/base64/encode", encode()).await;
        assert!(head.starts_with("http/1.1 200"), "request {i}: {head}");
    }
    let (head, v) = call(a, "POST", "/v1/base64/encode", encode()).await;
    assert!(head.starts_with("http/1.1 429"), "{head}");
    assert_eq!(v["error"]["code"], "RATE_LIMITED");
    let (head, _) = call(b, "POST", "/v1/base64/encode", encode()).await;
    assert!(head.starts_with("http/1.1 429"), "{head}");

    prefix
}

/// Starts the real binary on `dir`, waits until it answers, and returns it with its address.
async fn start_binary(dir: &std::path::Path) -> (std::process::Child, std::net::SocketAddr) {
    let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_wrench"))
        .env("WRENCH_LISTEN", format!("127.0.0.1:{port}"))
        .env("WRENCH_DATA_DIR", dir)
        .env("WRENCH_RATE_ANON_PER_MINUTE", "0")
        .env("WRENCH_RATE_ANON_PER_DAY", "0")
        .env("WRENCH_LOG", "warn")
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let addr: std::net::SocketAddr = format!("127.0.0.1:{port}").parse().unwrap();
    for _ in 0..200 {
        if tokio::net::TcpStream::connect(addr).await.is_ok() {
            return (child, addr);
        }
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
    let _ = child.kill();
    let _ = child.wait();
    panic!("wrench did not start");
}

fn stop(mut child: std::process::Child) {
    assert!(std::process::Command::new("kill").args(["-TERM", &child.id().to_string()]).status().unwrap().success());
    assert!(child.wait().unwrap().success());
}

#[tokio::test]
async fn a_restart_on_the_embedded_store_keeps_pastes_links_and_inboxes() {
    let dir = std::env::temp_dir().join(format!("wrench-restart-test-{}", uuid::Uuid::new_v4().simple()));
    let (first, a) = start_binary(&dir).await;
    let (paste, slug, inbox) = create_everything(a).await;
    stop(first);
    let (second, b) = start_binary(&dir).await;
    read_everything(b, &paste, &slug, &inbox).await;
    stop(second);
    let _ = std::fs::remove_dir_all(&dir);
}

/// Reads `want` `delivery` events from a Server-Sent Events answer, each within `within` of
/// the call; returns their ids and data.
async fn sse_events(
    resp: &mut reqwest::Response,
    buf: &mut String,
    want: usize,
    within: Duration,
) -> Vec<(u64, Value)> {
    let mut out = Vec::new();
    let deadline = tokio::time::Instant::now() + within;
    while out.len() < want {
        while let Some(end) = buf.find("\n\n") {
            let block: String = buf.drain(..end + 2).collect();
            let id = block.lines().find_map(|l| l.strip_prefix("id: ")).and_then(|n| n.parse().ok());
            let data = block.lines().find_map(|l| l.strip_prefix("data: "));
            if let (Some(id), Some(data), true) = (id, data, block.contains("event: delivery")) {
                out.push((id, serde_json::from_str(data).unwrap()));
            }
        }
        if out.len() >= want {
            break;
        }
        let chunk = tokio::time::timeout_at(deadline, resp.chunk())
            .await
            .unwrap_or_else(|_| panic!("only {} of {want} events arrived within {within:?}", out.len()))
            .unwrap()
            .expect("the stream stays open");
        buf.push_str(&String::from_utf8_lossy(&chunk));
    }
    out
}

/// A stream held by one instance receives what another instance stores, within a second, and
/// a reconnect with `Last-Event-ID` gets exactly what it missed.
#[tokio::test]
#[cfg_attr(
    not(wrench_test_redis),
    ignore = "needs Redis: set WRENCH_TEST_REDIS_URL (for example redis://127.0.0.1:6379)"
)]
async fn an_inbox_stream_on_one_instance_sees_deliveries_to_another() {
    let (url, prefix, a, b) = two_unlimited_instances_on_redis().await;
    let (_, inbox) = call(a, "POST", "/v1/webhook/inbox/create", None).await;
    let inbox = inbox["data"]["id"].as_str().unwrap().to_string();
    let client = reqwest::Client::new();
    let stream_url = format!("http://{a}/v1/webhook/inbox/{inbox}/stream");
    let mut stream = client.get(&stream_url).header("Accept", "text/event-stream").send().await.unwrap();
    assert_eq!(stream.headers()["content-type"], "text/event-stream");
    let mut buf = String::new();
    for n in 1..=3 {
        let sent = std::time::Instant::now();
        let (head, _) = call(b, "POST", &format!("/v1/webhook/inbox/{inbox}/receive"), Some(json!({"n": n}))).await;
        assert!(head.starts_with("http/1.1 200"), "{head}");
        let got = sse_events(&mut stream, &mut buf, 1, Duration::from_secs(1)).await;
        assert_eq!((got[0].0, got[0].1["body"].clone()), (n, json!({"n": n})));
        eprintln!("delivery {n} reached the other instance's stream after {:?}", sent.elapsed());
    }
    drop(stream);
    // Two deliveries while no one listens; the reconnect gets them, and nothing before.
    for n in 4..=5 {
        call(b, "POST", &format!("/v1/webhook/inbox/{inbox}/receive"), Some(json!({"n": n}))).await;
    }
    let mut resumed = client
        .get(&stream_url)
        .header("Accept", "text/event-stream")
        .header("Last-Event-ID", "3")
        .send()
        .await
        .unwrap();
    let mut buf = String::new();
    let got = sse_events(&mut resumed, &mut buf, 2, Duration::from_secs(2)).await;
    assert_eq!(got.iter().map(|(id, _)| *id).collect::<Vec<_>>(), [4, 5]);
    call(b, "POST", &format!("/v1/webhook/inbox/{inbox}/receive"), Some(json!({"n": 6}))).await;
    let got = sse_events(&mut resumed, &mut buf, 1, Duration::from_secs(1)).await;
    assert_eq!(got[0].0, 6, "nothing lost or repeated after the resume");
    common::remove_redis_keys(&url, &prefix).await;
}
