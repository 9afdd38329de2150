//! The real binary: start-up from variables, one log line per request without secrets, and a
//! clean exit on SIGTERM.

use crate::common;

use std::{
    io::Read,
    process::{Command, Stdio},
    time::{Duration, Instant},
};

use sha2::{Digest, Sha256};

#[tokio::test]
async fn serves_logs_safely_and_stops_on_sigterm() {
    let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let key = "wr_process_test_key";
    let digest = hex::encode(Sha256::digest(key.as_bytes()));
    let data_dir = std::env::temp_dir().join(format!("wrench-process-test-{port}"));
    let mut child = Command::new(env!("CARGO_BIN_EXE_wrench"))
        .arg("serve")
        .env("WRENCH_LISTEN", format!("127.0.0.1:{port}"))
        .env("WRENCH_API_KEYS", &digest)
        .env("WRENCH_LOG", "info")
        .env("WRENCH_LOG_FORMAT", "json")
        .env("WRENCH_DATA_DIR", &data_dir)
        .stderr(Stdio::piped())
        .stdout(Stdio::null())
        .spawn()
        .unwrap();

    let mut stream = common::when_listening(port, Duration::from_secs(10)).await;
    let auth = format!("X-API-Key: {key}\r\n");
    let requests = [
        ("/v1/base64/encode?token=QUERY-SECRET", r#"{"text":"TOP-SECRET-BODY-VALUE"}"#),
        // A PNG whose title has a character the embedded fonts lack: the renderer would warn
        // about it, quoting the title, if its logs were not silenced.
        ("/v1/og/generate", "{\"title\":\"SECRET-TITLE \u{4e00}\",\"format\":\"png\",\"width\":200,\"height\":200}"),
        // A currency ICU4X has no symbol for: its missing-data warning would quote the request.
        ("/v1/number/format", r#"{"number":1,"style":"currency","currency":"QZX","locale":"de-DE"}"#),
    ];
    for (path, body) in &requests {
        let (status, _) = common::exchange(&mut stream, &common::json_request("POST", path, &auth, body)).await;
        assert!(status.contains("200"), "{path}: {status}");
    }
    drop(stream);

    let pid = child.id().to_string();
    assert!(Command::new("kill").args(["-TERM", &pid]).status().unwrap().success());
    let deadline = Instant::now() + Duration::from_secs(15);
    let exit = loop {
        if let Some(s) = child.try_wait().unwrap() {
            break s;
        }
        assert!(Instant::now() < deadline, "did not stop after SIGTERM");
        std::thread::sleep(Duration::from_millis(50));
    };
    assert!(exit.success(), "exit status {exit:?}");

    let mut log = String::new();
    child.stderr.take().unwrap().read_to_string(&mut log).unwrap();
    let request_line = log
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .find(|v| v["path"] == "/v1/base64/encode")
        .unwrap_or_else(|| panic!("no request line in:\n{log}"));
    assert_eq!(request_line["status"], 200);
    assert_eq!(request_line["method"], "POST");
    assert_eq!(request_line["operation"], "base64Encode");
    assert!(request_line["request_id"].as_str().is_some_and(|s| s.len() == 32));
    assert!(request_line["duration_ms"].is_number());
    for secret in ["TOP-SECRET-BODY-VALUE", "QUERY-SECRET", key, "SECRET-TITLE", "\u{4e00}", "QZX", "qzx"] {
        assert!(!log.contains(secret), "{secret} leaked into the log:\n{log}");
    }
    assert!(log.contains("shutdown signal received"), "{log}");
    assert!(data_dir.join("wrench.redb").exists(), "the embedded store lives in WRENCH_DATA_DIR");
    let _ = std::fs::remove_dir_all(&data_dir);
}

/// Utime plus stime of a process, in seconds (Linux clock ticks of 1/100 s).
fn cpu_seconds(pid: u32) -> f64 {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap();
    // Fields after the command name, which is in parentheses and may hold spaces.
    let fields: Vec<&str> = stat[stat.rfind(')').unwrap() + 2..].split_whitespace().collect();
    let ticks: f64 = fields[11].parse::<f64>().unwrap() + fields[12].parse::<f64>().unwrap();
    ticks / 100.0
}

#[tokio::test]
async fn a_flood_of_silent_sockets_under_a_small_descriptor_limit_neither_spins_nor_locks_out() {
    // 128 descriptors, and a connection cap set above that on purpose: accepting fails with
    // EMFILE, which must pause the loop instead of spinning on it.
    let settings = [("WRENCH_MAX_CONNECTIONS", "1000"), ("WRENCH_HEADER_TIMEOUT", "2")];
    let Some((mut child, port, data_dir)) =
        common::start_limited(env!("CARGO_BIN_EXE_wrench"), "--nofile=128:128", &settings).await
    else {
        return;
    };
    // The embedded tables are built in the background at start (a second or two of CPU in a
    // debug build): wait for that, so the measurement below sees only the accept loop.
    let started = Instant::now();
    loop {
        let mut stream = tokio::net::TcpStream::connect(("127.0.0.1", port)).await.unwrap();
        let (_, body) =
            common::exchange(&mut stream, "GET /health HTTP/1.1\r\nhost: x\r\nconnection: close\r\n\r\n").await;
        if body.contains("\"startup\":{\"finished\":true") {
            break;
        }
        assert!(started.elapsed() < Duration::from_secs(60), "the embedded tables were not built within a minute");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let mut silent = Vec::new();
    for _ in 0..300 {
        if let Ok(s) = tokio::net::TcpStream::connect(("127.0.0.1", port)).await {
            silent.push(s);
        }
    }
    tokio::time::sleep(Duration::from_millis(300)).await;
    let pid = child.id();
    let before = cpu_seconds(pid);
    tokio::time::sleep(Duration::from_millis(1500)).await;
    let spent = cpu_seconds(pid) - before;
    // A request made now is answered once the silent connections time out.
    let asked = Instant::now();
    let mut stream = tokio::net::TcpStream::connect(("127.0.0.1", port)).await.unwrap();
    let req = common::json_request("POST", "/v1/base64/encode", "", r#"{"text":"through"}"#);
    let (head, _) =
        tokio::time::timeout(Duration::from_secs(15), common::exchange(&mut stream, &req)).await.expect("answered");
    let waited = asked.elapsed();
    let _ = Command::new("kill").args(["-TERM", &pid.to_string()]).status();
    let _ = child.wait();
    let _ = std::fs::remove_dir_all(&data_dir);
    eprintln!("CPU while saturated: {spent:.2} s in 1.5 s; request answered after {waited:?}");
    assert!(spent < 0.5, "the accept loop spun: {spent:.2} s of CPU in 1.5 s");
    assert!(head.starts_with("http/1.1 200"), "{head}");
}

/// The binary run with `args`, listening on `listen`, its store in `data_dir`, logging only
/// warnings, to nowhere; killed when dropped, so that a failing assertion does not leave the
/// server running.
fn quiet_server(args: &[&str], listen: &str, data_dir: &std::path::Path) -> common::Killed {
    common::Killed(
        Command::new(env!("CARGO_BIN_EXE_wrench"))
            .args(args)
            .env("WRENCH_LISTEN", listen)
            .env("WRENCH_LOG", "warn")
            .env("WRENCH_DATA_DIR", data_dir)
            .stderr(Stdio::null())
            .stdout(Stdio::null())
            .spawn()
            .unwrap(),
    )
}

#[tokio::test]
async fn dev_mode_turns_the_anonymous_limits_off() {
    let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let data_dir = std::env::temp_dir().join(format!("wrench-dev-test-{port}"));
    let child = quiet_server(&["serve", "--dev"], &format!("127.0.0.1:{port}"), &data_dir);
    let mut stream = common::when_listening(port, Duration::from_secs(10)).await;
    // The default anonymous quota is 5 a minute; the 6th to 10th would be 429 without --dev.
    for i in 0..10 {
        let request = common::json_request("POST", "/v1/base64/encode", "", r#"{"text":"x"}"#);
        let (head, _) = common::exchange(&mut stream, &request).await;
        assert!(head.starts_with("http/1.1 200") && !head.contains("ratelimit-limit"), "request {i}: {head}");
    }
    drop(child);
    let _ = std::fs::remove_dir_all(&data_dir);
    // Only `serve` takes the flag.
    let out = Command::new(env!("CARGO_BIN_EXE_wrench")).args(["openapi", "--dev"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("'--dev'"), "{}", String::from_utf8_lossy(&out.stderr));
    let out = Command::new(env!("CARGO_BIN_EXE_wrench")).args(["--dev", "openapi"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--dev applies to `wrench serve` and `wrench mcp` only"));
}

#[tokio::test]
async fn the_health_subcommand_reports_a_running_server_by_its_exit_status() {
    let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let data_dir = std::env::temp_dir().join(format!("wrench-health-test-{port}"));
    // Listening on every interface: the subcommand finds it on loopback from the same setting.
    let listen = format!("0.0.0.0:{port}");
    let child = quiet_server(&["serve"], &listen, &data_dir);
    drop(common::when_listening(port, Duration::from_secs(10)).await);
    let health = |args: &[&str]| {
        Command::new(env!("CARGO_BIN_EXE_wrench"))
            .arg("health")
            .args(args)
            .env("WRENCH_LISTEN", &listen)
            .output()
            .unwrap()
    };
    let out = health(&[]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(out.stdout.is_empty() && out.stderr.is_empty(), "a passing check prints nothing");
    // /ready turns 200 once the store answers (no data sets are configured).
    let deadline = Instant::now() + Duration::from_secs(10);
    while !health(&["--ready"]).status.success() {
        assert!(Instant::now() < deadline, "never ready");
        std::thread::sleep(Duration::from_millis(50));
    }
    drop(child);
    let _ = std::fs::remove_dir_all(&data_dir);
    // The server is gone: the check fails, with the reason on stderr.
    let out = health(&["--timeout", "2"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("cannot connect"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // A server that answers something else than 200: an HTTP service that is not wrench.
    let other = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let address = other.local_addr().unwrap().to_string();
    std::thread::spawn(move || {
        use std::io::Write;
        if let Ok((mut s, _)) = other.accept() {
            let mut buf = [0u8; 512];
            let _ = std::io::Read::read(&mut s, &mut buf);
            let _ = s.write_all(b"HTTP/1.1 404 Not Found\r\ncontent-length: 0\r\n\r\n");
        }
    });
    let out = health(&["--address", &address]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("answered 404"), "{}", String::from_utf8_lossy(&out.stderr));
}
