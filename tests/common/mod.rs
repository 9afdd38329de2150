//! Helpers shared by the integration tests.

use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};

/// Sends raw HTTP/1.1 requests on one connection and returns each response's status line and body.
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
                let status = head.lines().next().unwrap().to_string();
                return (status, text[head_end + 4..head_end + 4 + len].to_string());
            }
        }
    }
}
