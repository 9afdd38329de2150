//! The webhook inbox page in a real browser: headless Chromium opens `/inbox/{id}`, which lists
//! what the inbox holds and adds new deliveries from its event stream; a delivery sent with
//! `curl` must show within a second, and a body of hostile HTML must be shown as text and run
//! nothing.
//!
//! The browser is watched through its debugging port: the plain-HTTP target list reports the
//! page's title, where the page writes its delivery count and where the hostile body would
//! write if any of it ran; one DevTools call over a WebSocket (a few lines below, enough for
//! one text message each way) reads the list's markup to check how the body was written.
//!
//! Needs `chromium` and `curl` (Debian's packages); without them the test says it skipped, and
//! fails when `WRENCH_TEST_REQUIRE_BROWSER` is set (CI sets it).

mod common;

use std::{
    path::Path,
    process::{Child, Command, Stdio},
    time::{Duration, Instant},
};

use serde_json::Value;

/// A body that would change the title if the page ever treated it as markup.
const HOSTILE: &str = "<script>document.title='pwned by script'</script>\
     <img src=x onerror=\"document.title='pwned by img'\"><b>bold?</b>";

struct Killed(Child);

impl Drop for Killed {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port()
}

fn curl(args: &[&str]) -> String {
    let out = Command::new("curl").arg("-s").args(args).output().expect("curl runs");
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// The title of the browser's page at `url`, from its debugging port.
fn title(debug_port: u16, url: &str) -> Option<String> {
    let list: Value = serde_json::from_str(&curl(&[&format!("http://127.0.0.1:{debug_port}/json/list")])).ok()?;
    list.as_array()?.iter().find(|t| t["url"] == url).and_then(|t| t["title"].as_str()).map(str::to_string)
}

/// Waits up to `limit` for the page's title to start with `prefix`; how long it took.
fn wait_title(debug_port: u16, url: &str, prefix: &str, limit: Duration) -> Duration {
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
async fn evaluate(debug_port: u16, url: &str, expression: &str) -> String {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let list: Value = serde_json::from_str(&curl(&[&format!("http://127.0.0.1:{debug_port}/json/list")])).unwrap();
    let target = list.as_array().unwrap().iter().find(|t| t["url"] == url).expect("the page is open");
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
    let message = serde_json::json!({"id": 1, "method": "Runtime.evaluate",
        "params": {"expression": expression, "returnByValue": true}})
    .to_string();
    let mut frame = vec![0x81u8];
    match message.len() {
        n if n < 126 => frame.push(0x80 | n as u8),
        n => {
            frame.push(0x80 | 126);
            frame.extend_from_slice(&(n as u16).to_be_bytes());
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

fn chromium(dir: &Path, profile: &str) -> Command {
    let mut c = Command::new("chromium");
    c.args(["--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run"])
        .arg(format!("--user-data-dir={}", dir.join(profile).display()))
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    c
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_inbox_page_shows_deliveries_live_and_runs_none_of_them() {
    let have = |tool: &str| Command::new(tool).arg("--version").output().is_ok();
    if !have("chromium") || !have("curl") {
        assert!(
            std::env::var_os("WRENCH_TEST_REQUIRE_BROWSER").is_none(),
            "no chromium or curl; WRENCH_TEST_REQUIRE_BROWSER is set"
        );
        common::skipped("no chromium or curl to open the inbox page");
        return;
    }
    let dir = std::env::temp_dir().join(format!("wrench-inbox-page-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let port = free_port();
    let base = format!("http://127.0.0.1:{port}");
    let _server = Killed(
        Command::new(env!("CARGO_BIN_EXE_wrench"))
            .env("WRENCH_LISTEN", format!("127.0.0.1:{port}"))
            .env("WRENCH_DATA_DIR", dir.join("data"))
            .env("WRENCH_RATE_ANON_PER_MINUTE", "0")
            .env("WRENCH_LOG", "warn")
            .stdout(Stdio::null())
            .spawn()
            .unwrap(),
    );
    common::when_listening(port, Duration::from_secs(20)).await;

    let created: Value =
        serde_json::from_str(&curl(&["-X", "POST", &format!("{base}/v1/webhook/inbox/create")])).unwrap();
    let id = created["data"]["id"].as_str().unwrap().to_string();
    let page = created["data"]["viewUrl"].as_str().unwrap().to_string();
    assert_eq!(page, format!("{base}/inbox/{id}"));
    let receive = created["data"]["receiveUrl"].as_str().unwrap().to_string();
    curl(&["-X", "POST", "-H", "Content-Type: text/html", "--data-binary", HOSTILE, &receive]);

    let debug_port = free_port();
    let _browser =
        Killed(chromium(&dir, "live").arg(format!("--remote-debugging-port={debug_port}")).arg(&page).spawn().unwrap());
    // The listing is shown: the hostile delivery, counted in the title.
    wait_title(debug_port, &page, "(1) Webhook inbox", Duration::from_secs(20));
    // The stream is open once the page says so; give it a moment to connect.
    tokio::time::sleep(Duration::from_millis(700)).await;
    for (n, sub) in [(2, "/orders/1"), (3, "/orders/2")] {
        let sent = Instant::now();
        curl(&[
            "-X",
            "PUT",
            "-H",
            "Content-Type: application/json",
            "--data-binary",
            r#"{"ok":true}"#,
            &format!("{receive}{sub}"),
        ]);
        let took = wait_title(debug_port, &page, &format!("({n}) Webhook inbox"), Duration::from_secs(5));
        let total = sent.elapsed();
        eprintln!("delivery {n} shown {took:?} after curl returned ({total:?} after it started)");
        assert!(total < Duration::from_secs(1), "delivery {n} took {total:?} to show");
    }
    std::thread::sleep(Duration::from_millis(500));
    let final_title = title(debug_port, &page).unwrap();
    assert_eq!(final_title, "(3) Webhook inbox · wrench", "nothing of a delivery ran");

    // How the hostile body was written: as text in the body block, never as elements.
    let list = evaluate(debug_port, &page, "document.getElementById('deliveries').innerHTML").await;
    assert!(list.contains("&lt;script&gt;document.title='pwned by script'&lt;/script&gt;"), "{list}");
    assert!(list.contains("&lt;img src=x onerror="), "{list}");
    assert!(!list.contains("<img") && !list.contains("<b>") && !list.contains("<script"), "{list}");
    let shown = evaluate(debug_port, &page, "document.querySelectorAll('#deliveries > li').length").await;
    assert_eq!(shown, "3");
    let csp = curl(&["-sI", &page]).to_ascii_lowercase();
    assert!(csp.contains("content-security-policy: default-src 'none'; script-src 'self'"), "{csp}");
    let _ = std::fs::remove_dir_all(&dir);
}
