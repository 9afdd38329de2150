//! Connections are never held forever: header, body and idle timeouts, the connection cap,
//! and the JSON envelope on 414 and 431, with real sockets against the real server loop (short
//! limits, so the tests take seconds).

use crate::common;

use std::{
    net::SocketAddr,
    sync::Arc,
    time::{Duration, Instant},
};

use serde_json::Value;
use tokio::{
    io::{AsyncReadExt, AsyncWriteExt},
    net::TcpStream,
};
use wrench_infra::config::Config;

fn config() -> Config {
    Config {
        header_timeout: Duration::from_secs(1),
        body_timeout: Duration::from_secs(1),
        idle_timeout: Duration::from_secs(2),
        max_connections: 8,
        anon_quota: wrench_infra::config::Quota::UNLIMITED,
        ..Config::default()
    }
}

async fn start(config: Config) -> (SocketAddr, tokio::task::JoinHandle<()>) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let config = Arc::new(config);
    let app = wrench_server::http::app(config.clone(), wrench::operations()).unwrap();
    let handle = tokio::spawn(async move {
        wrench_server::http::server::serve(listener, None, app, &config, std::future::pending()).await.unwrap();
    });
    (addr, handle)
}

/// Reads until the server closes the connection; returns what it sent and how long it took.
async fn read_until_closed(stream: &mut TcpStream, limit: Duration) -> (String, Duration) {
    let started = Instant::now();
    let mut out = Vec::new();
    let mut buf = [0u8; 4096];
    loop {
        match tokio::time::timeout(limit.saturating_sub(started.elapsed()), stream.read(&mut buf)).await {
            Ok(Ok(0)) | Ok(Err(_)) => return (String::from_utf8_lossy(&out).into_owned(), started.elapsed()),
            Ok(Ok(n)) => out.extend_from_slice(&buf[..n]),
            Err(_) => panic!("still open after {limit:?}; received {:?}", String::from_utf8_lossy(&out)),
        }
    }
}

fn body_of(response: &str) -> Value {
    let start = response.find("\r\n\r\n").map_or(response.len(), |i| i + 4);
    serde_json::from_str(&response[start..]).unwrap_or(Value::Null)
}

#[tokio::test]
async fn a_connection_that_sends_nothing_is_closed_after_the_header_timeout() {
    let (addr, server) = start(config()).await;
    let mut s = TcpStream::connect(addr).await.unwrap();
    let (sent, took) = read_until_closed(&mut s, Duration::from_secs(5)).await;
    assert!(sent.is_empty(), "{sent}");
    assert!(took >= Duration::from_millis(900) && took < Duration::from_secs(3), "{took:?}");
    server.abort();
}

#[tokio::test]
async fn slowloris_headers_are_cut_at_the_header_timeout() {
    let (addr, server) = start(config()).await;
    let mut s = TcpStream::connect(addr).await.unwrap();
    let started = Instant::now();
    // One byte every 200 ms: each byte is activity, but the headers never end.
    let trickle = async {
        for b in b"POST /v1/base64/encode HTTP/1.1\r\nHost: x\r\nX-Slow: " {
            if s.write_all(&[*b]).await.is_err() {
                return;
            }
            tokio::time::sleep(Duration::from_millis(200)).await;
        }
    };
    let _ = tokio::time::timeout(Duration::from_secs(5), trickle).await;
    let (_, _) = read_until_closed(&mut s, Duration::from_secs(5)).await;
    assert!(started.elapsed() < Duration::from_secs(3), "cut after {:?}", started.elapsed());
    server.abort();
}

#[tokio::test]
async fn a_slow_or_short_body_gets_408_and_the_connection_closes() {
    let (addr, server) = start(config()).await;
    for (declared, sent) in [(1_000_000usize, 10usize), (100, 5)] {
        let mut s = TcpStream::connect(addr).await.unwrap();
        let head = format!(
            "POST /v1/base64/encode HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: {declared}\r\n\r\n"
        );
        s.write_all(head.as_bytes()).await.unwrap();
        s.write_all(&b"{\"text\":\"".repeat(2)[..sent]).await.unwrap();
        let (response, took) = read_until_closed(&mut s, Duration::from_secs(5)).await;
        assert!(response.starts_with("HTTP/1.1 408"), "{response}");
        assert_eq!(body_of(&response)["error"]["code"], "REQUEST_TIMEOUT", "{response}");
        assert!(took < Duration::from_secs(3), "{took:?}");
    }
    server.abort();
}

#[tokio::test]
async fn idle_keep_alive_connections_are_closed_but_busy_ones_are_not() {
    let (addr, server) = start(config()).await;
    let mut s = TcpStream::connect(addr).await.unwrap();
    let req = common::json_request("POST", "/v1/base64/encode", "", r#"{"text":"a"}"#);
    // Requests closer together than the idle timeout keep the connection.
    for _ in 0..3 {
        let (head, _) = common::exchange(&mut s, &req).await;
        assert!(head.starts_with("http/1.1 200"), "{head}");
        tokio::time::sleep(Duration::from_millis(1200)).await;
    }
    let (sent, took) = read_until_closed(&mut s, Duration::from_secs(5)).await;
    assert!(sent.is_empty());
    assert!(took < Duration::from_secs(2), "closed {took:?} after the last wait");
    server.abort();
}

#[tokio::test]
async fn connections_past_the_cap_wait_and_are_served_when_one_closes() {
    let (addr, server) = start(Config { max_connections: 3, ..config() }).await;
    let mut idle = Vec::new();
    for _ in 0..3 {
        idle.push(TcpStream::connect(addr).await.unwrap());
    }
    tokio::time::sleep(Duration::from_millis(100)).await;
    let started = Instant::now();
    let mut s = TcpStream::connect(addr).await.unwrap();
    let req = common::json_request("POST", "/v1/base64/encode", "", r#"{"text":"a"}"#);
    let (head, _) = common::exchange(&mut s, &req).await;
    // Served once the header timeout (1 s) frees the slots the silent connections held.
    assert!(head.starts_with("http/1.1 200"), "{head}");
    let waited = started.elapsed();
    assert!(waited >= Duration::from_millis(700) && waited < Duration::from_secs(3), "{waited:?}");
    server.abort();
}

#[tokio::test]
async fn long_targets_and_large_headers_get_the_envelope() {
    let (addr, server) = start(config()).await;
    let cases = [
        // Refused by the app.
        (format!("GET /health HTTP/1.1\r\nHost: x\r\n{}\r\n", "X-H: v\r\n".repeat(150)), "431", "HEADERS_TOO_LARGE"),
        (
            format!("GET /health HTTP/1.1\r\nHost: x\r\nX-Big: {}\r\n\r\n", "v".repeat(40_000)),
            "431",
            "HEADERS_TOO_LARGE",
        ),
        // Beyond what hyper buffers: its own bare answers, rewritten.
        (format!("GET /v1/{} HTTP/1.1\r\nHost: x\r\n\r\n", "a".repeat(70_000)), "414", "URI_TOO_LONG"),
        (
            format!("GET /health HTTP/1.1\r\nHost: x\r\nX-Big: {}\r\n\r\n", "v".repeat(300_000)),
            "431",
            "HEADERS_TOO_LARGE",
        ),
        (format!("GET /health HTTP/1.1\r\nHost: x\r\n{}\r\n", "X-H: v\r\n".repeat(1500)), "431", "HEADERS_TOO_LARGE"),
    ];
    for (request, status, code) in cases {
        let mut s = TcpStream::connect(addr).await.unwrap();
        let _ = s.write_all(request.as_bytes()).await;
        let (response, _) = read_until_closed(&mut s, Duration::from_secs(5)).await;
        assert!(response.starts_with(&format!("HTTP/1.1 {status}")), "{}", &response[..response.len().min(300)]);
        let v = body_of(&response);
        assert_eq!(v["error"]["code"], code, "{response}");
        assert_eq!(v["success"], false);
        assert!(v["meta"]["requestId"].is_string(), "{response}");
        assert!(response.to_ascii_lowercase().contains("content-type: application/json"), "{response}");
    }
    server.abort();
}

/// Sends `head` and then `body_len` bytes in 16 KiB writes, and only then reads the answer, as
/// Python's http.client and many other clients do: a write that fails because the server
/// closed the connection early is the failure the test looks for.
async fn send_then_read(addr: SocketAddr, head: String, body_len: usize) -> Result<String, String> {
    let mut stream = TcpStream::connect(addr).await.unwrap();
    let chunk = vec![b'a'; 16 * 1024];
    let send = async {
        stream.write_all(head.as_bytes()).await?;
        let mut sent = 0;
        while sent < body_len {
            let n = chunk.len().min(body_len - sent);
            stream.write_all(&chunk[..n]).await?;
            sent += n;
        }
        Ok::<_, std::io::Error>(())
    };
    match tokio::time::timeout(Duration::from_secs(10), send).await {
        Err(_) => return Err("the body could not be sent within 10 s".into()),
        Ok(Err(e)) => return Err(format!("sending the body failed: {e}")),
        Ok(Ok(())) => {}
    }
    let mut out = Vec::new();
    let mut buf = [0u8; 4096];
    loop {
        match tokio::time::timeout(Duration::from_secs(10), stream.read(&mut buf)).await {
            Ok(Ok(0)) => return Ok(String::from_utf8_lossy(&out).into_owned()),
            Ok(Ok(n)) => out.extend_from_slice(&buf[..n]),
            Ok(Err(e)) => return Err(format!("reading the answer failed: {e}")),
            Err(_) => return Err("no end of the answer within 10 s".into()),
        }
    }
}

#[tokio::test]
async fn a_client_still_sending_an_oversized_body_reads_the_413() {
    // Bodies of a few MiB outgrow what the two sockets buffer (about 2 MiB on loopback here),
    // so the server's early close meets bytes still in flight, as real uploads do.
    let limit = 2 * 1024 * 1024;
    let (addr, server) = start(Config { body_limit: limit, body_timeout: Duration::from_secs(5), ..config() }).await;
    // Declared by Content-Length, and found out while reading a chunked body; each body is
    // over the limit and within twice it, which the server reads and drops after answering.
    let declared = |n: usize| {
        format!(
            "POST /v1/base64/encode HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: {n}\r\n\r\n"
        )
    };
    let mut failures = Vec::new();
    for round in 0..10 {
        let len = limit + 1800 * 1024;
        match send_then_read(addr, declared(len), len).await {
            Ok(answer) => {
                assert!(answer.starts_with("HTTP/1.1 413"), "{answer}");
                assert_eq!(body_of(&answer)["error"]["code"], "PAYLOAD_TOO_LARGE", "{answer}");
                assert!(answer.to_ascii_lowercase().contains("connection: close"), "{answer}");
            }
            Err(e) => failures.push(format!("round {round}, declared: {e}")),
        }
    }
    let chunked = "POST /v1/base64/encode HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n\
                   Transfer-Encoding: chunked\r\n\r\n";
    for round in 0..5 {
        // One chunk of 3.8 MiB: its size line, then the bytes (the end is never sent; the
        // server has answered by then).
        let len = limit + 1800 * 1024;
        let head = format!("{chunked}{len:x}\r\n");
        match send_then_read(addr, head, len).await {
            Ok(answer) => assert!(answer.starts_with("HTTP/1.1 413"), "{answer}"),
            Err(e) => failures.push(format!("round {round}, chunked: {e}")),
        }
    }
    assert!(failures.is_empty(), "the answer was lost to a reset:\n{}", failures.join("\n"));
    // A client that waits for 100 Continue is answered at once and sends nothing.
    let mut s = TcpStream::connect(addr).await.unwrap();
    let head = format!(
        "POST /v1/base64/encode HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\nContent-Length: {}\r\n\r\n",
        10 * limit
    );
    s.write_all(head.as_bytes()).await.unwrap();
    let (answer, took) = read_until_closed(&mut s, Duration::from_secs(5)).await;
    assert!(answer.starts_with("HTTP/1.1 413") && took < Duration::from_secs(2), "{took:?} {answer}");
    server.abort();
}
