//! Helpers shared by the integration tests.

use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};

/// Sends a raw HTTP/1.1 request on a connection and returns the response's head (status line
/// and headers, lower-cased) and body.
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
