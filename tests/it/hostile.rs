//! The real binary under a memory limit far below the machine's, against a hostile corpus sent
//! concurrently: deep JSON to every JSON-reading operation, YAML bombs, deep Markdown, XML and
//! HTML, answers that would be huge, the largest images and key derivations. Every answer must
//! be a 2xx or a 4xx, the process must stay alive with a bounded peak, and a cheap request made
//! alongside must stay fast. Prints the figures and, per request, its size in and out and its
//! time (the worst cases README.md's table summarises).

use crate::common;

use std::{
    collections::BTreeMap,
    process::Command,
    sync::{Arc, Mutex},
    time::{Duration, Instant},
};

use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

/// Address space the server may reserve. Reservations are not memory (thread stacks and
/// allocator arenas reserve far more than they touch), so the figure that matters is the
/// peak resident set, asserted separately.
const ADDRESS_SPACE: u64 = 4 << 30;
/// Most resident memory the server may reach under the whole corpus.
const PEAK_RSS_LIMIT_MB: u64 = 1024;
/// Slowest 99th percentile allowed for a cheap request served alongside. A debug build on two
/// cores shared with four hostile workers measures 45 to 53 ms; a cheap request starved by the
/// heavy ones (queued behind them, or on a runtime thread something blocks) takes hundreds of
/// milliseconds to seconds, which this bound still catches.
const CHEAP_P99_MS: f64 = 75.0;

/// Sends one JSON request on a fresh connection; returns the status (0 when the connection was
/// dropped without an answer), the answer's size and the time taken.
async fn send(port: u16, method: &str, path: &str, body: &str) -> (u16, usize, Duration) {
    let (status, out, took) = exchange(port, method, path, "Content-Type: application/json\r\n", body).await;
    (status, out.len(), took)
}

/// One request with the given header lines on a fresh connection: the status (0 when the
/// connection was dropped without an answer), the whole answer and the time taken.
async fn exchange(port: u16, method: &str, path: &str, headers: &str, body: &str) -> (u16, Vec<u8>, Duration) {
    let started = Instant::now();
    let Ok(mut s) = tokio::net::TcpStream::connect(("127.0.0.1", port)).await else {
        return (0, Vec::new(), started.elapsed());
    };
    let req = format!(
        "{method} {path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n{headers}Content-Length: {}\r\n\r\n{body}",
        body.len()
    );
    if s.write_all(req.as_bytes()).await.is_err() {
        return (0, Vec::new(), started.elapsed());
    }
    let mut out = Vec::new();
    let read = tokio::time::timeout(Duration::from_secs(120), s.read_to_end(&mut out)).await;
    let text = String::from_utf8_lossy(&out[..out.len().min(64)]).into_owned();
    let status = if read.is_ok() { text.get(9..12).and_then(|s| s.parse().ok()).unwrap_or(0) } else { 0 };
    (status, out, started.elapsed())
}

/// The JSON answer of one request (Null when there is none).
async fn stateful_json(port: u16, method: &str, path: &str, body: &str) -> Value {
    let (_, out, _) = exchange(port, method, path, "Content-Type: application/json\r\n", body).await;
    let text = String::from_utf8_lossy(&out);
    text.split_once("\r\n\r\n").and_then(|(_, b)| serde_json::from_str(b).ok()).unwrap_or(Value::Null)
}

/// A loopback HTTP server that answers every request with 16 MiB, for replays and forwards
/// whose targets answer far more than is kept; returns its port.
async fn flooding_target() -> u16 {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    tokio::spawn(async move {
        loop {
            let Ok((mut s, _)) = listener.accept().await else { return };
            tokio::spawn(async move {
                let mut buf = vec![0u8; 64 * 1024];
                // Reads the request head; a body the client still sends is left unread.
                let _ = tokio::time::timeout(Duration::from_secs(2), s.read(&mut buf)).await;
                let size = 16usize << 20;
                let _ = s.write_all(format!("HTTP/1.1 200 OK\r\nContent-Length: {size}\r\n\r\n").as_bytes()).await;
                let chunk = vec![b'z'; 64 * 1024];
                for _ in 0..size / chunk.len() {
                    if s.write_all(&chunk).await.is_err() {
                        return;
                    }
                }
            });
        }
    });
    port
}

/// The largest configured answer an inbox takes: 65,536 characters of four bytes each and 20
/// header fields of 4,096 characters.
fn largest_inbox_settings(target: u16) -> Value {
    let headers: serde_json::Map<String, Value> =
        (0..20).map(|i| (format!("x-field-{i}"), Value::String("h".repeat(4096)))).collect();
    json!({
        "ttlSeconds": 3600,
        "maxPayloads": 1000,
        "response": {"status": 201, "headers": headers, "body": "\u{1F600}".repeat(65_536),
                     "contentType": "text/plain; charset=utf-8", "delayMs": 0},
        "verify": {"scheme": "hmac-sha256", "secret": "s".repeat(512), "header": "x-signature"},
        "forwardTo": format!("http://127.0.0.1:{target}/hook"),
    })
}

fn peak_rss_mb(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
    status
        .lines()
        .find(|l| l.starts_with("VmHWM:"))
        .and_then(|l| l.split_whitespace().nth(1)?.parse::<u64>().ok())
        .map_or(0, |kb| kb / 1024)
}

fn deep(levels: usize) -> String {
    "[".repeat(levels) + &"]".repeat(levels)
}

/// The billion laughs: nine levels of ten aliases each.
fn yaml_bomb() -> String {
    let mut bomb =
        String::from("a: &a [\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\"]\n");
    for (prev, cur) in ["a", "b", "c", "d", "e", "f", "g", "h"].iter().zip(["b", "c", "d", "e", "f", "g", "h", "i"]) {
        bomb.push_str(&format!("{cur}: &{cur} [{}]\n", vec![format!("*{prev}"); 10].join(",")));
    }
    bomb
}

/// (label, path, body) of every hostile request.
fn corpus() -> Vec<(String, String, String)> {
    let mut out: Vec<(String, String, Value)> = Vec::new();
    let mut add = |label: &str, path: &str, body: Value| out.push((label.to_string(), path.to_string(), body));
    let deep_text = deep(100_000);
    for path in ["/v1/json/format", "/v1/json/minify", "/v1/json/validate"] {
        add("deep JSON text", path, json!({"json": deep_text}));
    }
    add("deep JSON text", "/v1/json/diff", json!({"a": deep_text, "b": "[]"}));
    add(
        "wide JSON at indent 8",
        "/v1/json/format",
        json!({"json": format!("{}{}{}", "[".repeat(120), vec!["1"; 100_000].join(","), "]".repeat(120)), "indent": 8}),
    );
    add("YAML bomb", "/v1/yaml/to-json", json!({"yaml": yaml_bomb()}));
    add("deep YAML", "/v1/yaml/to-json", json!({"yaml": deep(100_000)}));
    add(
        "deep YAML block",
        "/v1/yaml/to-json",
        json!({"yaml": (0..1300).map(|i| format!("{}k:\n", " ".repeat(i))).collect::<String>()}),
    );
    let nested: Value =
        serde_json::from_str(&format!("{}{}{}", "[".repeat(120), vec!["1"; 100_000].join(","), "]".repeat(120)))
            .unwrap();
    add("YAML indentation", "/v1/yaml/to-yaml", json!({"data": {"a": nested}, "indent": 8}));
    add("deep Markdown", "/v1/markdown/to-html", json!({"markdown": ">".repeat(500_000)}));
    add(
        "deep raw HTML in Markdown, sanitized",
        "/v1/markdown/to-html",
        json!({"markdown": "<div>".repeat(150_000), "sanitize": true}),
    );
    add("deep Markdown lists", "/v1/markdown/to-text", json!({"markdown": "- ".repeat(300_000) + "x"}));
    add(
        "Markdown table padding",
        "/v1/markdown/to-html",
        json!({"markdown": format!("|{}\n|{}\n{}", "a|".repeat(1000), "-|".repeat(1000), "x\n".repeat(200_000))}),
    );
    add(
        "Markdown references",
        "/v1/markdown/to-html",
        json!({"markdown": format!("[a]: /{}\n\n{}", "u".repeat(400_000), "[a]".repeat(100_000))}),
    );
    add("deep XML", "/v1/xml/to-json", json!({"xml": "<a>".repeat(200_000)}));
    add(
        "XML entity bomb",
        "/v1/xml/to-json",
        json!({"xml": "<!DOCTYPE x [<!ENTITY a \"aaaaaaaaaa\"><!ENTITY b \"&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;\">]><x>&b;</x>"}),
    );
    add("deep HTML", "/v1/html-to-text/convert", json!({"html": "<div>".repeat(200_000)}));
    add("deep HTML", "/v1/html-sanitize", json!({"html": "<b>".repeat(200_000)}));
    add("escaping HTML", "/v1/html-sanitize", json!({"html": "<".repeat(900_000)}));
    add(
        "CSV header repeated per row",
        "/v1/csv/to-json",
        json!({"csv": format!("{}\n{}", (0..100).map(|i| format!("{}{i}", "h".repeat(5000))).collect::<Vec<_>>().join(","), format!("{}\n", ",".repeat(99)).repeat(400))}),
    );
    add("CSV equal names", "/v1/csv/to-json", json!({"csv": vec!["a"; 400_000].join(",")}));
    add(
        "CSV rows x columns",
        "/v1/csv/to-csv",
        json!({"data": (0..20_000).map(|i| json!({format!("k{i}"): 1})).collect::<Vec<_>>()}),
    );
    add("diff of 1 MiB", "/v1/diff", json!({"original": "a\n".repeat(160_000), "modified": "b\n".repeat(160_000)}));
    add(
        "diff of shuffled lines",
        "/v1/diff",
        json!({"original": (0..40_000).map(|i| format!("{i}\n")).collect::<String>(), "modified": (0..40_000).rev().map(|i| format!("{i}\n")).collect::<String>()}),
    );
    add(
        "JSON diff paths",
        "/v1/json/diff",
        json!({"a": format!("{{\"{}\":[{}]}}", "k".repeat(5000), vec!["1"; 100_000].join(",")), "b": format!("{{\"{}\":[{}]}}", "k".repeat(5000), vec!["2"; 100_000].join(","))}),
    );
    add("regex catastrophic", "/v1/regex/test", json!({"pattern": "^(a+)+$", "testString": "a".repeat(50_000) + "b"}));
    add(
        "regex captures the rest",
        "/v1/regex/test",
        json!({"pattern": "(?=([\\s\\S]*))", "testString": "x".repeat(100_000), "flags": "g"}),
    );
    add(
        "regex $' replacement",
        "/v1/regex/replace",
        json!({"pattern": "x", "testString": "x".repeat(100_000), "replacement": "$'".repeat(5000), "flags": "g"}),
    );
    add(
        "regex word boundaries",
        "/v1/regex/test",
        json!({"pattern": "\\b\\w+\\b", "testString": "mot été ".repeat(12_000), "flags": "g"}),
    );
    add("lorem maximum", "/v1/lorem/generate", json!({"type": "paragraphs", "count": 100}));
    add("uuid batch maximum", "/v1/uuid/batch", json!({"count": 100}));
    add("passwords maximum", "/v1/password/generate", json!({"length": 256, "count": 50}));
    add("password strength", "/v1/password/strength", json!({"password": "aA1!".repeat(256)}));
    add("random data maximum", "/v1/random/data", json!({"count": 50}));
    add("cron far search", "/v1/cron/next", json!({"expression": "0 0 30 2 *", "count": 25}));
    add("math nesting", "/v1/math/evaluate", json!({"expression": "(".repeat(500) + "1" + &")".repeat(500)}));
    add("text case of 1 MiB", "/v1/text/case", json!({"text": "aB".repeat(400_000), "to": "snake"}));
    add("URL encode of 1 MiB", "/v1/url/encode", json!({"text": "😀".repeat(200_000)}));
    add("base64 of 1 MiB", "/v1/base64/encode", json!({"text": "x".repeat(1_000_000)}));
    add(
        "OG image largest",
        "/v1/og/generate",
        json!({"title": "W".repeat(300), "description": "M".repeat(1000), "width": 4096, "height": 4096, "format": "png"}),
    );
    add(
        "placeholder largest",
        "/v1/placeholder",
        json!({"width": 4096, "height": 4096, "format": "png", "text": "x".repeat(200)}),
    );
    add(
        "QR largest",
        "/v1/qr/generate",
        json!({"text": "9".repeat(2953), "size": 2000, "format": "png", "errorCorrectionLevel": "L"}),
    );
    add(
        "barcode largest",
        "/v1/barcode",
        json!({"data": "1".repeat(80), "width": 4096, "height": 2048, "format": "png"}),
    );
    add("avatar largest", "/v1/avatar", json!({"seed": "s".repeat(256), "size": 1024, "format": "png"}));
    add(
        "Argon2 encryption",
        "/v1/encrypt/encrypt",
        json!({"plaintext": "p".repeat(100_000), "password": "k".repeat(1024)}),
    );
    add("hash batch of 1 MiB", "/v1/hash/batch", json!({"text": "h".repeat(900_000)}));
    // The largest short-link batch: 100 links of 2,048-character URLs with 10 tags of 32.
    let link = json!({"url": format!("https://example.com/{}", "p".repeat(2028)), "maxVisits": 5,
                      "validUntil": "2999-01-01T00:00:00Z", "forwardQuery": true, "redirectStatus": 308,
                      "tags": (0..10).map(|i| format!("{i}{}", "t".repeat(31))).collect::<Vec<_>>()});
    add("short-link batch of 100, largest", "/v1/short-url/batch", json!({"links": vec![link; 100]}));
    // The largest well-formed requests the document admits for the operations that read
    // documents: about 1 MiB each, answered rather than refused.
    let flat: String = format!("[{}]", vec!["{\"k\":[1,2]}"; 70_000].join(","));
    add("largest valid JSON, validate", "/v1/json/validate", json!({"json": flat}));
    add("largest valid JSON, minify", "/v1/json/minify", json!({"json": flat}));
    add("largest valid JSON, indent 8", "/v1/json/format", json!({"json": flat, "indent": 8}));
    add(
        "largest YAML mapping",
        "/v1/yaml/to-json",
        json!({"yaml": (0..45_000).map(|i| format!("key{i}: value {i}\n")).collect::<String>()}),
    );
    add(
        "largest XML attributes",
        "/v1/xml/to-json",
        json!({"xml": format!("<r>{}</r>", "<a b=\"1\" c=\"2\" d=\"3\"/>".repeat(35_000))}),
    );
    add(
        "largest HTML, sanitized",
        "/v1/html-sanitize",
        json!({"html": "<p><b>x</b> <a href=\"/y\">y</a></p>".repeat(28_000), "allowed_tags": (0..200).map(|i| format!("t{i}")).collect::<Vec<_>>()}),
    );
    add(
        "largest HTML to text",
        "/v1/html-to-text/convert",
        json!({"html": "<p><b>x</b> <a href=\"/y\">y</a></p>".repeat(28_000)}),
    );
    add("largest CSV", "/v1/csv/to-json", json!({"csv": format!("a,b,c\n{}", "1,2,3\n".repeat(140_000))}));
    add(
        "largest regex replacement",
        "/v1/regex/replace",
        json!({"pattern": "x", "testString": "x".repeat(100_000), "replacement": "$&".repeat(5), "flags": "g"}),
    );
    let token = {
        use base64::Engine;
        let b64 = |s: &str| base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(s);
        let payload = format!("{{\"a\":{}{}{}}}", "[".repeat(127), "1,".repeat(16_000) + "1", "]".repeat(127));
        format!("{}.{}.sig", b64("{\"alg\":\"HS256\"}"), b64(&payload))
    };
    add("largest JWT, deep payload", "/v1/jwt/decode", json!({"token": token}));
    add(
        "largest Markdown",
        "/v1/markdown/to-html",
        json!({"markdown": "# T\n\n*a* **b** [c](/d) `e`\n\n".repeat(28_000), "sanitize": true}),
    );
    // The body itself nested deep, to every operation that reads a JSON body.
    let deep_body = format!("{{\"x\":{}}}", deep(100_000));
    let mut out: Vec<(String, String, String)> = out.into_iter().map(|(l, p, b)| (l, p, b.to_string())).collect();
    for route in wrench::operations().iter().flat_map(|op| op.routes) {
        if route.input == wrench_contract::op::InputKind::Body && route.method == wrench_contract::op::HttpMethod::Post
        {
            out.push(("deep JSON body".into(), route.path.to_string(), deep_body.clone()));
        }
    }
    out
}

/// One result: label, path, request size, status, answer size, time.
type Results = Arc<Mutex<Vec<(String, String, usize, u16, usize, Duration)>>>;

/// The inbox at its largest: created and changed with the largest settings, 50 form deliveries
/// of about 1 MB whose fields escape to six bytes a byte (each verified, answered with the
/// largest answer and forwarded to a target that answers 16 MiB), listed, polled as a stream
/// from the start, and one replayed to that target.
async fn largest_inbox(port: u16, target: u16, results: &Results) {
    let record = |label: &str, path: &str, request: usize, status: u16, size: usize, took: Duration| {
        results.lock().unwrap().push((label.into(), path.into(), request, status, size, took));
    };
    let settings = largest_inbox_settings(target).to_string();
    let (status, out, took) =
        exchange(port, "POST", "/v1/webhook/inbox/create", "Content-Type: application/json\r\n", &settings).await;
    record("inbox, largest settings", "/v1/webhook/inbox/create", settings.len(), status, out.len(), took);
    let created = String::from_utf8_lossy(&out);
    let created: Value =
        created.split_once("\r\n\r\n").and_then(|(_, b)| serde_json::from_str(b).ok()).unwrap_or(Value::Null);
    let (Some(id), Some(token)) = (created["data"]["id"].as_str(), created["data"]["manageToken"].as_str()) else {
        record("inbox, largest settings", "/v1/webhook/inbox/create", settings.len(), 0, 0, took);
        return;
    };
    let headers = format!("Content-Type: application/json\r\nX-Manage-Token: {token}\r\n");
    // A change takes the same settings less the lifetime, which is fixed at creation.
    let mut change = largest_inbox_settings(target);
    change.as_object_mut().unwrap().remove("ttlSeconds");
    let change = change.to_string();
    let (status, out, took) = exchange(port, "PATCH", &format!("/v1/webhook/inbox/{id}"), &headers, &change).await;
    record("inbox, largest change", "/v1/webhook/inbox/{id}", change.len(), status, out.len(), took);
    let form = format!("a={}", "%01".repeat(333_000));
    let form_headers = "Content-Type: application/x-www-form-urlencoded\r\nX-Signature: 00\r\n";
    // The slowest delivery, or the first that was not answered with the configured 201.
    let mut slowest = (201, 0, Duration::ZERO);
    for _ in 0..50 {
        let (status, out, took) =
            exchange(port, "POST", &format!("/v1/webhook/inbox/{id}/receive/a/b"), form_headers, &form).await;
        if slowest.0 == 201 && (status != 201 || took > slowest.2) {
            slowest = (status, out.len(), took);
        }
    }
    record(
        "50 form deliveries, slowest",
        "/v1/webhook/inbox/{id}/receive/{path}",
        form.len(),
        slowest.0,
        slowest.1,
        slowest.2,
    );
    let (status, size, took) = send(port, "GET", &format!("/v1/webhook/inbox/{id}/payloads?limit=50"), "").await;
    record("50 form payloads, listed", "/v1/webhook/inbox/{id}/payloads", 0, status, size, took);
    let (status, size, took) = send(port, "GET", &format!("/v1/webhook/inbox/{id}/stream?lastEventId=0"), "").await;
    record("50 form payloads, stream poll", "/v1/webhook/inbox/{id}/stream", 0, status, size, took);
    let replay = json!({"url": format!("http://127.0.0.1:{target}/again")}).to_string();
    let (status, size, took) = send(port, "POST", &format!("/v1/webhook/inbox/{id}/payloads/50/replay"), &replay).await;
    record(
        "replay, target answers 16 MiB",
        "/v1/webhook/inbox/{id}/payloads/{pid}/replay",
        replay.len(),
        status,
        size,
        took,
    );
}

/// A short link's statistics at their largest: 1,100 visits, each from a referrer host of 250
/// characters and a browser of its own (a day keeps 100 of each), read over 10,000 day
/// buckets with top lists of 100 and a page of 100 visits, and as a stream poll of every visit
/// kept.
async fn largest_link_stats(port: u16, results: &Results) {
    let record = |label: &str, path: &str, status: u16, size: usize, took: Duration| {
        results.lock().unwrap().push((label.into(), path.into(), 0, status, size, took));
    };
    let created = stateful_json(port, "POST", "/v1/short-url/create", r#"{"url":"https://example.com/"}"#).await;
    let Some(slug) = created["data"]["slug"].as_str() else {
        record("link for the largest stats", "/v1/short-url/create", 0, 0, Duration::ZERO);
        return;
    };
    let mut slowest = (302, 0, Duration::ZERO);
    for i in 0..1_100 {
        let host = format!("h{i}-{}.example", "a".repeat(250 - 12));
        let headers = format!("Referer: https://{host}/\r\nUser-Agent: Browser{i}/1.0 ({})\r\n", "x".repeat(400));
        let (status, out, took) = exchange(port, "GET", &format!("/v1/short-url/r/{slug}"), &headers, "").await;
        if slowest.0 == 302 && (status != 302 || took > slowest.2) {
            slowest = (status, out.len(), took);
        }
    }
    record("1,100 visits, slowest", "/v1/short-url/r/{slug}", slowest.0, slowest.1, slowest.2);
    let path = format!("/v1/short-url/{slug}/stats?from=2000-01-01&to=2027-05-19&top=100&visits=100");
    let (status, size, took) = send(port, "GET", &path, "").await;
    record("stats, 10,000 days, tops of 100", "/v1/short-url/{slug}/stats", status, size, took);
    let (status, size, took) =
        send(port, "GET", &format!("/v1/short-url/{slug}/visits/stream?lastEventId=0"), "").await;
    record("1,000 visits, stream poll", "/v1/short-url/{slug}/visits/stream", status, size, took);
}

#[tokio::test]
async fn a_hostile_corpus_under_a_memory_limit_leaves_the_server_up_and_fast() {
    // WRENCH_TEST_HOSTILE_BIN runs the corpus against another build (a release one, for the figures
    // in README.md).
    let binary = std::env::var("WRENCH_TEST_HOSTILE_BIN").unwrap_or_else(|_| env!("CARGO_BIN_EXE_wrench").to_string());
    // Replays and forwards go to a loopback target, which only these settings let through.
    let target = flooding_target().await;
    let port_setting = target.to_string();
    let settings = [("WRENCH_OUTBOUND_ALLOW", "127.0.0.1"), ("WRENCH_OUTBOUND_PORTS", port_setting.as_str())];
    let Some((mut child, port, data_dir)) =
        common::start_limited(&binary, &format!("--as={ADDRESS_SPACE}"), &settings).await
    else {
        return;
    };
    let pid = child.id();
    let started = Instant::now();

    // A cheap request every 20 ms, alongside, for as long as the corpus runs.
    let done = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let cheap = {
        let done = done.clone();
        tokio::spawn(async move {
            let mut stream = tokio::net::TcpStream::connect(("127.0.0.1", port)).await.unwrap();
            let req = common::json_request("POST", "/v1/base64/encode", "", r#"{"text":"cheap"}"#);
            let mut times = Vec::new();
            while !done.load(std::sync::atomic::Ordering::Acquire) {
                let t = Instant::now();
                let (head, _) = common::exchange(&mut stream, &req).await;
                assert!(head.starts_with("http/1.1 200"), "{head}");
                times.push(t.elapsed().as_secs_f64() * 1000.0);
                tokio::time::sleep(Duration::from_millis(20)).await;
            }
            times
        })
    };

    // The corpus, four requests at a time.
    let queue = Arc::new(Mutex::new(corpus()));
    let results: Results = Arc::new(Mutex::new(Vec::new()));
    let mut workers = Vec::new();
    for _ in 0..4 {
        let (queue, results) = (queue.clone(), results.clone());
        workers.push(tokio::spawn(async move {
            loop {
                let next = queue.lock().unwrap().pop();
                let Some((label, path, body)) = next else { break };
                let (status, size, took) = send(port, "POST", &path, &body).await;
                results.lock().unwrap().push((label, path, body.len(), status, size, took));
            }
        }));
    }
    for w in workers {
        w.await.unwrap();
    }
    // The largest stored things read back: a paste of 1 MiB of control characters (each
    // escapes to six bytes), and an inbox of 50 payloads of nearly 1 MiB listed.
    let paste = json!({"content": "\u{1}".repeat(1 << 20)}).to_string();
    let (status, _, took) = send(port, "POST", "/v1/paste/create", &paste).await;
    results.lock().unwrap().push((
        "largest paste, stored".into(),
        "/v1/paste/create".into(),
        paste.len(),
        status,
        0,
        took,
    ));
    let created =
        stateful_json(port, "POST", "/v1/paste/create", &json!({"content": "\u{1}".repeat(1 << 20)}).to_string()).await;
    let id = created["data"]["id"].as_str().unwrap_or_default().to_string();
    let (status, size, took) = send(port, "GET", &format!("/v1/paste/{id}"), "").await;
    results.lock().unwrap().push(("largest paste, read".into(), "/v1/paste/{id}".into(), 0, status, size, took));
    let inbox = stateful_json(port, "POST", "/v1/webhook/inbox/create", "").await;
    let inbox = inbox["data"]["id"].as_str().unwrap_or_default().to_string();
    let delivery = json!({"pad": "p".repeat(1_000_000)}).to_string();
    for _ in 0..50 {
        send(port, "POST", &format!("/v1/webhook/inbox/{inbox}/receive"), &delivery).await;
    }
    let (status, size, took) = send(port, "GET", &format!("/v1/webhook/inbox/{inbox}/payloads"), "").await;
    results.lock().unwrap().push((
        "50 payloads of 1 MB, listed".into(),
        "/v1/webhook/inbox/{id}/payloads".into(),
        0,
        status,
        size,
        took,
    ));
    largest_inbox(port, target, &results).await;
    largest_link_stats(port, &results).await;
    done.store(true, std::sync::atomic::Ordering::Release);
    let mut cheap_times = cheap.await.unwrap();
    let alive = child.try_wait().unwrap().is_none();
    let peak = peak_rss_mb(pid);
    let _ = Command::new("kill").args(["-TERM", &pid.to_string()]).status();
    let _ = child.wait();
    let _ = std::fs::remove_dir_all(&data_dir);

    let results = results.lock().unwrap();
    let mut by_status: BTreeMap<u16, usize> = BTreeMap::new();
    for (label, path, request, status, size, took) in results.iter() {
        *by_status.entry(*status).or_default() += 1;
        if label != "deep JSON body" {
            eprintln!(
                "{status} {path:<28} {label:<30} in {request:>8} B  out {size:>9} B  {:>7.0} ms",
                took.as_secs_f64() * 1000.0
            );
        }
    }
    cheap_times.sort_by(f64::total_cmp);
    let p99 = cheap_times[(cheap_times.len() * 99 / 100).min(cheap_times.len() - 1)];
    eprintln!(
        "{} hostile requests in {:.1} s; answers by status {by_status:?}; peak RSS {peak} MiB; cheap request p99 {p99:.1} ms over {} requests (max {:.1} ms)",
        results.len(),
        started.elapsed().as_secs_f64(),
        cheap_times.len(),
        cheap_times.last().copied().unwrap_or(0.0)
    );
    assert!(alive, "the server died under the corpus");
    let bad: Vec<String> =
        results.iter().filter(|r| !(200..500).contains(&r.3)).map(|r| format!("{} {} -> {}", r.0, r.1, r.3)).collect();
    assert!(bad.is_empty(), "answers that were not 2xx or 4xx: {bad:?}");
    assert!(peak > 0 && peak < PEAK_RSS_LIMIT_MB, "peak RSS {peak} MiB");
    assert!(p99 < CHEAP_P99_MS, "cheap request p99 {p99:.1} ms");
}
