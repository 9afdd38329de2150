//! Helpers shared by the integration tests.

pub mod browser;
pub mod cluster;
pub mod tools;

use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};

/// Says that a test, or part of one, did not run, and why, where `cargo test` shows it: the
/// harness captures `eprintln!` of passing tests, not writes to the process's standard error.
#[allow(dead_code)]
pub fn skipped(why: &str) {
    use std::io::Write;
    let test = std::thread::current().name().unwrap_or("a test").to_string();
    let _ = writeln!(std::io::stderr().lock(), "SKIPPED in {test}: {why}");
}

/// Runs a command-line tool with `input` on its standard input (written from another thread,
/// so a tool that answers while still reading cannot deadlock), or None when it is not
/// installed.
#[allow(dead_code)]
pub fn tool(args: &[&str], input: &[u8]) -> Option<std::process::Output> {
    use std::io::Write;
    let mut child = std::process::Command::new(args[0])
        .args(&args[1..])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .ok()?;
    let mut stdin = child.stdin.take().unwrap();
    let input = input.to_vec();
    let writer = std::thread::spawn(move || stdin.write_all(&input));
    let out = child.wait_with_output().unwrap();
    // A tool that exits before reading all of its input breaks the pipe: its answer counts.
    let _ = writer.join().unwrap();
    Some(out)
}

/// A child process killed (and reaped) when dropped, so that a failing test does not leave
/// its server or browser running.
#[allow(dead_code)]
pub struct Killed(pub std::process::Child);

impl Drop for Killed {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// The first connection to a server started on a loopback `port`, retried every 50 ms until it
/// accepts; fails the test if it does not within `limit`.
#[allow(dead_code)]
pub async fn when_listening(port: u16, limit: Duration) -> tokio::net::TcpStream {
    let started = std::time::Instant::now();
    loop {
        match tokio::net::TcpStream::connect(("127.0.0.1", port)).await {
            Ok(s) => return s,
            Err(_) if started.elapsed() < limit => tokio::time::sleep(Duration::from_millis(50)).await,
            Err(e) => panic!("the server on port {port} did not start within {limit:?}: {e}"),
        }
    }
}

/// Sends a raw HTTP/1.1 request on a connection and returns the response's head (status line
/// and headers, lower-cased) and body.
#[allow(dead_code)]
pub async fn exchange(stream: &mut tokio::net::TcpStream, request: &str) -> (String, String) {
    stream.write_all(request.as_bytes()).await.unwrap();
    let mut buf = Vec::new();
    let mut chunk = [0u8; 8192];
    loop {
        let n = tokio::time::timeout(Duration::from_secs(5), stream.read(&mut chunk)).await.unwrap().unwrap();
        assert!(n > 0, "connection closed by the server");
        buf.extend_from_slice(&chunk[..n]);
        let text = String::from_utf8_lossy(&buf).into_owned();
        if let Some(head_end) = text.find("\r\n\r\n") {
            let head = &text[..head_end];
            let len: usize = head
                .lines()
                .find_map(|l| l.to_ascii_lowercase().strip_prefix("content-length:").map(|v| v.trim().parse().unwrap()))
                .unwrap_or(0);
            if buf.len() >= head_end + 4 + len {
                return (head.to_ascii_lowercase(), text[head_end + 4..head_end + 4 + len].to_string());
            }
        }
    }
}

/// A raw HTTP/1.1 request with a JSON body; `extra_headers` are whole lines, each ending in
/// `\r\n` (empty for none).
#[allow(dead_code)]
pub fn json_request(method: &str, path: &str, extra_headers: &str, body: &str) -> String {
    format!(
        "{method} {path} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n{extra_headers}Content-Length: {}\r\n\r\n{body}",
        body.len()
    )
}

/// Rate windows are whole clock minutes; a test that counts within one waits out the last two
/// seconds of a minute, so its requests cannot straddle a window boundary.
#[allow(dead_code)]
pub async fn away_from_minute_boundary() {
    let secs = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_secs() % 60;
    if secs >= 58 {
        tokio::time::sleep(Duration::from_secs(61 - secs)).await;
    }
}

/// The real binary started under `prlimit` with the given limit (`--nofile=128:128`,
/// `--as=...`) and settings, listening on a free loopback port with an anonymous quota of
/// none; returns it once it accepts connections, with its port and data directory. `None`
/// (after saying so) where `prlimit` is not installed.
#[allow(dead_code)]
pub async fn start_limited(
    binary: &str,
    limit: &str,
    settings: &[(&str, &str)],
) -> Option<(std::process::Child, u16, std::path::PathBuf)> {
    use std::process::{Command, Stdio};
    if Command::new("prlimit").arg("--version").output().is_err() {
        skipped("no `prlimit` on this machine");
        return None;
    }
    let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let data_dir = std::env::temp_dir().join(format!("wrench-limited-test-{port}"));
    let child = Command::new("prlimit")
        .args([limit, "--", binary])
        .env("WRENCH_LISTEN", format!("127.0.0.1:{port}"))
        .env("WRENCH_LOG", "warn")
        .env("WRENCH_DATA_DIR", &data_dir)
        .env("WRENCH_RATE_ANON_PER_MINUTE", "0")
        .env("WRENCH_RATE_ANON_PER_DAY", "0")
        .envs(settings.iter().copied())
        .stderr(Stdio::null())
        .stdout(Stdio::null())
        .spawn()
        .unwrap();
    when_listening(port, Duration::from_secs(10)).await;
    Some((child, port, data_dir))
}

/// POSTs `body` as JSON to the in-process app; the status and the JSON answer (Null when the
/// answer is not JSON).
#[allow(dead_code)]
pub async fn post_json(
    cli: &poem::test::TestClient<wrench_server::http::App>,
    path: &str,
    body: &serde_json::Value,
) -> (u16, serde_json::Value) {
    let resp = cli.post(path).body_json(body).send().await;
    let status = resp.0.status().as_u16();
    let bytes = resp.0.into_body().into_vec().await.unwrap();
    (status, serde_json::from_slice(&bytes).unwrap_or(serde_json::Value::Null))
}

/// The keys under `prefix` on the Redis at `url`.
#[allow(dead_code)]
pub async fn redis_keys(url: &str, prefix: &str) -> Vec<String> {
    use fred::prelude::*;
    let client = Builder::from_config(Config::from_url(url).unwrap()).build().unwrap();
    client.init().await.unwrap();
    let keys: Vec<String> = client.custom(fred::cmd!("KEYS"), vec![format!("{prefix}*")]).await.unwrap();
    let _ = client.quit().await;
    keys
}

/// Deletes every key under `prefix` (a test's own) on the Redis at `url`.
#[allow(dead_code)]
pub async fn remove_redis_keys(url: &str, prefix: &str) {
    use fred::prelude::*;
    let client = Builder::from_config(Config::from_url(url).unwrap()).build().unwrap();
    client.init().await.unwrap();
    let keys: Vec<String> = client.custom(fred::cmd!("KEYS"), vec![format!("{prefix}*")]).await.unwrap();
    if !keys.is_empty() {
        let _: i64 = client.del(keys).await.unwrap();
    }
}

/// The whole service on a free loopback port, on the Redis at `port` under `prefix`, counting
/// anonymous callers in the store as by default (with a quota far above what a test sends);
/// returns the store, the address and the serving task once the store answers (or after 5 s).
#[allow(dead_code)]
pub async fn serve_on_redis(
    port: u16,
    prefix: &str,
) -> (std::sync::Arc<dyn wrench_infra::store::Store>, std::net::SocketAddr, tokio::task::JoinHandle<std::io::Result<()>>)
{
    let config = wrench_infra::config::Config {
        redis_url: Some(format!("redis://127.0.0.1:{port}")),
        redis_prefix: prefix.into(),
        anon_quota: wrench_infra::config::Quota { per_minute: 1_000_000, per_day: 10_000_000 },
        ..wrench_infra::config::Config::default()
    };
    let store = wrench_infra::store::open(&config).unwrap();
    let app =
        wrench_server::http::app_with_store(std::sync::Arc::new(config), store.clone(), wrench::operations()).unwrap();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let serving = tokio::spawn(
        poem::Server::new_with_acceptor(poem::listener::TcpAcceptor::from_tokio(listener).unwrap()).run(app),
    );
    let started = std::time::Instant::now();
    while store.ping().await.is_err() && started.elapsed() < Duration::from_secs(5) {
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    (store, addr, serving)
}
