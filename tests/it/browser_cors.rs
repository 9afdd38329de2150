//! Browsers calling the API from another origin, in a real browser: headless Chromium loads a
//! page from one loopback origin whose script calls wrench on another with `fetch` (a JSON POST
//! with `X-API-Key`, which needs a preflight), reads the answer and the exposed headers, and
//! writes what it saw into the page. A page from an origin not in `WRENCH_CORS_ORIGINS` must
//! be refused by the browser.
//!
//! Needs `chromium` (Debian's package); without it the test says it skipped, and fails when
//! `WRENCH_TEST_REQUIRE_BROWSER` is set (CI sets it).

use crate::common;

use std::{
    path::Path,
    process::{Child, Command, Stdio},
    time::Duration,
};

use serde_json::Value;
use sha2::{Digest, Sha256};
use tokio::{
    io::{AsyncReadExt, AsyncWriteExt},
    net::TcpListener,
};

const KEY: &str = "wr_browser_test_key_0123456789";

/// The page's script: one call to wrench, its outcome written into the body as JSON.
fn page(api: &str) -> String {
    format!(
        r#"<!doctype html><html><head><title>cors</title></head><body>running<script>
(async () => {{
  const out = {{}};
  try {{
    const r = await fetch("{api}/v1/base64/encode", {{
      method: "POST",
      headers: {{ "Content-Type": "application/json", "X-API-Key": "{KEY}" }},
      body: JSON.stringify({{ text: "from a browser" }}),
    }});
    out.status = r.status;
    out.body = await r.json();
    out.requestId = r.headers.get("X-Request-Id");
    out.rateLimit = r.headers.get("RateLimit-Limit");
    const bad = await fetch("{api}/v1/base64/encode", {{ method: "POST", headers: {{ "Content-Type": "application/json" }}, body: "{{" }});
    out.errorStatus = bad.status;
    out.errorBody = await bad.json();
  }} catch (e) {{
    out.error = String(e);
  }}
  document.body.textContent = "RESULT" + JSON.stringify(out) + "END";
}})();
</script></body></html>"#
    )
}

/// Serves `html` to every request on a loopback port; returns the port.
async fn serve_page(html: String) -> u16 {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    tokio::spawn(async move {
        while let Ok((mut s, _)) = listener.accept().await {
            let html = html.clone();
            tokio::spawn(async move {
                let mut buf = [0u8; 4096];
                let _ = s.read(&mut buf).await;
                let resp = format!(
                    "HTTP/1.1 200 OK\r\ncontent-type: text/html; charset=utf-8\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{html}",
                    html.len()
                );
                let _ = s.write_all(resp.as_bytes()).await;
            });
        }
    });
    port
}

struct Server(Child);

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// What the page wrote, after Chromium has run it.
fn visit(dir: &Path, url: &str) -> Value {
    let out = Command::new("chromium")
        .args(["--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run"])
        .arg(format!("--user-data-dir={}", dir.join("profile").display()))
        .args(["--virtual-time-budget=20000", "--timeout=30000", "--dump-dom", url])
        .stderr(Stdio::null())
        .output()
        .expect("chromium runs");
    let dom = String::from_utf8_lossy(&out.stdout);
    let json = dom
        .split_once("RESULT")
        .and_then(|(_, rest)| rest.split_once("END"))
        .unwrap_or_else(|| panic!("the page did not finish: {dom}"))
        .0;
    // The DOM escapes &, < and > in text.
    serde_json::from_str(&json.replace("&amp;", "&").replace("&lt;", "<").replace("&gt;", ">")).unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_page_of_an_allowed_origin_calls_the_api_and_others_are_refused() {
    if Command::new("chromium").arg("--version").output().is_err() {
        assert!(
            std::env::var_os("WRENCH_TEST_REQUIRE_BROWSER").is_none(),
            "no chromium; WRENCH_TEST_REQUIRE_BROWSER is set"
        );
        common::skipped("no chromium to call the API from another origin");
        return;
    }
    let dir = std::env::temp_dir().join(format!("wrench-browser-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let api_port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let api = format!("http://127.0.0.1:{api_port}");
    let allowed_port = serve_page(page(&api)).await;
    let other_port = serve_page(page(&api)).await;
    let child = Command::new(env!("CARGO_BIN_EXE_wrench"))
        .env("WRENCH_LISTEN", format!("127.0.0.1:{api_port}"))
        .env("WRENCH_CORS_ORIGINS", format!("http://127.0.0.1:{allowed_port}"))
        .env("WRENCH_API_KEYS", hex::encode(Sha256::digest(KEY.as_bytes())))
        .env("WRENCH_RATE_KEY_PER_MINUTE", "100")
        .env("WRENCH_DATA_DIR", dir.join("data"))
        .env("WRENCH_LOG", "warn")
        .stdout(Stdio::null())
        .spawn()
        .unwrap();
    let _server = Server(child);
    common::when_listening(api_port, Duration::from_secs(20)).await;

    let seen = visit(&dir, &format!("http://127.0.0.1:{allowed_port}/"));
    assert_eq!(seen["status"], 200, "{seen}");
    assert_eq!(seen["body"]["data"]["encoded"], "ZnJvbSBhIGJyb3dzZXI=", "{seen}");
    assert_eq!(seen["requestId"].as_str().map(str::len), Some(32), "X-Request-Id is exposed: {seen}");
    assert_eq!(seen["rateLimit"], "100", "RateLimit-Limit is exposed: {seen}");
    assert_eq!(seen["errorStatus"], 400, "{seen}");
    assert_eq!(seen["errorBody"]["error"]["code"], "INVALID_JSON", "error envelopes are readable too: {seen}");

    let refused = visit(&dir, &format!("http://127.0.0.1:{other_port}/"));
    assert!(refused["status"].is_null(), "{refused}");
    assert!(refused["error"].as_str().is_some_and(|e| e.contains("Failed to fetch")), "{refused}");
    let _ = std::fs::remove_dir_all(&dir);
}
