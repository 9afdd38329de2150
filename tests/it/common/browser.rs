//! A real browser for the page tests: headless Chromium watched through its debugging port.
//! The plain-HTTP target list reports each page's title, which the pages use to say where
//! they are; one DevTools call over a WebSocket (a few lines below, enough for one text
//! message each way) evaluates an expression in a page. Needs `chromium` and `curl` (Debian's
//! packages): [`available`] says whether they are here, and fails when
//! `WRENCH_TEST_REQUIRE_BROWSER` is set (CI sets it) and they are not.
#![allow(dead_code)]

use std::{
    path::Path,
    process::{Command, Stdio},
    time::{Duration, Instant},
};

use serde_json::Value;

/// Whether `chromium` and `curl` are here; says the test skipped when they are not.
pub fn available(what: &str) -> bool {
    let have = |tool: &str| Command::new(tool).arg("--version").output().is_ok();
    if have("chromium") && have("curl") {
        return true;
    }
    assert!(
        std::env::var_os("WRENCH_TEST_REQUIRE_BROWSER").is_none(),
        "no chromium or curl; WRENCH_TEST_REQUIRE_BROWSER is set"
    );
    super::skipped(&format!("no chromium or curl to open {what}"));
    false
}

pub fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port()
}

pub fn curl(args: &[&str]) -> String {
    let out = Command::new("curl").arg("-s").args(args).output().expect("curl runs");
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// The title of the browser's page at `url`, from its debugging port.
pub fn title(debug_port: u16, url: &str) -> Option<String> {
    let list: Value = serde_json::from_str(&curl(&[&format!("http://127.0.0.1:{debug_port}/json/list")])).ok()?;
    list.as_array()?.iter().find(|t| t["url"] == url).and_then(|t| t["title"].as_str()).map(str::to_string)
}

/// Waits up to `limit` for the page's title to start with `prefix`; how long it took.
pub fn wait_title(debug_port: u16, url: &str, prefix: &str, limit: Duration) -> Duration {
    let started = Instant::now();
    loop {
        let seen = title(debug_port, url);
        if seen.as_deref().is_some_and(|t| t.starts_with(prefix)) {
            return started.elapsed();
        }
        assert!(started.elapsed() < limit, "the title did not become {prefix:?} within {limit:?}: {seen:?}");
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Evaluates `expression` in the page at `url` through the DevTools protocol; its value as text.
pub async fn evaluate(debug_port: u16, url: &str, expression: &str) -> String {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let list: Value = serde_json::from_str(&curl(&[&format!("http://127.0.0.1:{debug_port}/json/list")])).unwrap();
    let targets = list.as_array().unwrap();
    let target = targets.iter().find(|t| t["url"] == url).unwrap_or_else(|| {
        let open: Vec<&Value> = targets.iter().map(|t| &t["url"]).collect();
        panic!("no page is open at {url}; open: {open:?}")
    });
    let ws = target["webSocketDebuggerUrl"].as_str().unwrap();
    let path = &ws[ws.find("/devtools").unwrap()..];
    let mut s = tokio::net::TcpStream::connect(("127.0.0.1", debug_port)).await.unwrap();
    let handshake = format!(
        "GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{debug_port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\
         Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n"
    );
    s.write_all(handshake.as_bytes()).await.unwrap();
    let mut head = Vec::new();
    while !head.ends_with(b"\r\n\r\n") {
        head.push(s.read_u8().await.unwrap());
    }
    assert!(head.starts_with(b"HTTP/1.1 101"), "{}", String::from_utf8_lossy(&head));
    // One masked text frame (RFC 6455, 5.2); the mask is all zeros, which is allowed.
    // A promise is awaited, and its value answered (a value that is not one is answered as is).
    let message = serde_json::json!({"id": 1, "method": "Runtime.evaluate",
        "params": {"expression": expression, "returnByValue": true, "awaitPromise": true}})
    .to_string();
    let mut frame = vec![0x81u8];
    match message.len() {
        n if n < 126 => frame.push(0x80 | n as u8),
        n if n <= usize::from(u16::MAX) => {
            frame.push(0x80 | 126);
            frame.extend_from_slice(&(n as u16).to_be_bytes());
        }
        // A script sent whole, such as axe-core's (half a megabyte).
        n => {
            frame.push(0x80 | 127);
            frame.extend_from_slice(&(n as u64).to_be_bytes());
        }
    }
    frame.extend_from_slice(&[0, 0, 0, 0]);
    frame.extend_from_slice(message.as_bytes());
    s.write_all(&frame).await.unwrap();
    // Frames until the answer to id 1 (events may come first); the server does not mask.
    loop {
        let mut h = [0u8; 2];
        s.read_exact(&mut h).await.unwrap();
        let len = match h[1] & 0x7f {
            126 => s.read_u16().await.unwrap() as usize,
            127 => s.read_u64().await.unwrap() as usize,
            n => n as usize,
        };
        let mut payload = vec![0u8; len];
        s.read_exact(&mut payload).await.unwrap();
        let Ok(answer) = serde_json::from_slice::<Value>(&payload) else { continue };
        if answer["id"] == 1 {
            let value = &answer["result"]["result"]["value"];
            return value.as_str().map_or_else(|| value.to_string(), str::to_string);
        }
    }
}

pub fn chromium(dir: &Path, profile: &str) -> Command {
    let mut c = Command::new("chromium");
    c.args(["--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run"])
        .arg(format!("--user-data-dir={}", dir.join(profile).display()))
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    c
}

/// axe-core's script, from the npm package installed at `WRENCH_TEST_AXE`; `None` (said as a
/// skip) when it is not set, and a failure when `WRENCH_TEST_REQUIRE_AXE=1` (CI sets both).
pub fn axe_script() -> Option<String> {
    let required = std::env::var("WRENCH_TEST_REQUIRE_AXE").is_ok_and(|v| v == "1");
    let Some(dir) = std::env::var_os("WRENCH_TEST_AXE") else {
        assert!(!required, "WRENCH_TEST_REQUIRE_AXE is set and WRENCH_TEST_AXE is not");
        super::skipped("axe-core is not installed (WRENCH_TEST_AXE): the page's accessibility not checked");
        return None;
    };
    let path = Path::new(&dir).join("node_modules/axe-core/axe.min.js");
    Some(std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display())))
}

/// The serious and critical violations axe-core finds in the page at `url` (its rule id,
/// impact and how many elements), as JSON: `[]` when there are none.
pub async fn axe_violations(debug_port: u16, url: &str, script: &str) -> String {
    let loaded = evaluate(debug_port, url, &format!("{script}\n;typeof axe")).await;
    assert_eq!(loaded, "object", "axe-core did not load");
    evaluate(
        debug_port,
        url,
        "axe.run(document, {resultTypes: ['violations']}).then(r => JSON.stringify(r.violations \
         .filter(v => v.impact === 'serious' || v.impact === 'critical') \
         .map(v => ({id: v.id, impact: v.impact, nodes: v.nodes.map(n => n.target.join(' '))}))))",
    )
    .await
}

/// Goes from the page at `from` to `url`, and waits for its title to start with `prefix`.
pub async fn go(debug_port: u16, from: &str, url: &str, prefix: &str) {
    evaluate(debug_port, from, &format!("location.assign({}), 'ok'", serde_json::to_string(url).unwrap())).await;
    wait_title(debug_port, url, prefix, Duration::from_secs(20));
}

/// A wrench server for a page's test, on a free loopback port with its data under `dir`, `warn`
/// logs, no anonymous rate limit (a page test makes many calls), and `env` on top: the server
/// (stopped when dropped) and its base URL, once it listens.
pub async fn serve(dir: &Path, env: Vec<(String, String)>) -> (super::Killed, String) {
    let port = free_port();
    let server = super::Killed(
        Command::new(env!("CARGO_BIN_EXE_wrench"))
            .envs(env)
            .env("WRENCH_LISTEN", format!("127.0.0.1:{port}"))
            .env("WRENCH_DATA_DIR", dir.join("data"))
            .env("WRENCH_RATE_ANON_PER_MINUTE", "0")
            .env("WRENCH_RATE_ANON_PER_DAY", "0")
            .env("WRENCH_LOG", "warn")
            .spawn()
            .unwrap(),
    );
    super::when_listening(port, Duration::from_secs(20)).await;
    (server, format!("http://127.0.0.1:{port}"))
}
