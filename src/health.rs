//! `wrench health`: asks a running server's `/health` (or `/ready`) and exits 0 when it
//! answers 200, 1 otherwise. It is what a container's `HEALTHCHECK` or an orchestrator's
//! exec probe runs, so it needs nothing in the image besides the binary: no shell, no curl.
//!
//! It speaks the least HTTP/1.1 that does the job over a plain TCP connection (a server with
//! only an HTTPS listener is probed through its plain one, which always exists), and every
//! step is bounded by one deadline so a hung server fails the check instead of hanging it.

use std::{
    io::{Read, Write},
    net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr, TcpStream},
    time::{Duration, Instant},
};

/// Longest answer read: the status line is all that counts, and a health answer is small.
const MAX_ANSWER: usize = 64 * 1024;

/// Where to reach a server listening on `listen`: an unspecified address (`0.0.0.0`, `::`)
/// means every interface, of which loopback is the one the probe can count on.
pub fn probe_address(listen: SocketAddr) -> SocketAddr {
    let ip = match listen.ip() {
        IpAddr::V4(ip) if ip.is_unspecified() => IpAddr::V4(Ipv4Addr::LOCALHOST),
        IpAddr::V6(ip) if ip.is_unspecified() => IpAddr::V6(Ipv6Addr::LOCALHOST),
        ip => ip,
    };
    SocketAddr::new(ip, listen.port())
}

/// Sends `GET path` to `address` and returns the status code, within `timeout` in all.
pub fn status(address: SocketAddr, path: &str, timeout: Duration) -> Result<u16, String> {
    let deadline = Instant::now() + timeout;
    let left = || deadline.saturating_duration_since(Instant::now()).max(Duration::from_millis(1));
    let mut stream =
        TcpStream::connect_timeout(&address, left()).map_err(|e| format!("cannot connect to {address}: {e}"))?;
    stream.set_write_timeout(Some(left())).map_err(|e| e.to_string())?;
    let request =
        format!("GET {path} HTTP/1.1\r\nHost: {address}\r\nConnection: close\r\nUser-Agent: wrench-health\r\n\r\n");
    stream.write_all(request.as_bytes()).map_err(|e| format!("cannot send to {address}: {e}"))?;
    let mut answer = Vec::with_capacity(1024);
    let mut buf = [0u8; 4096];
    // Read until the status line is complete (or the server closes, or the deadline).
    while !answer.contains(&b'\n') && answer.len() < MAX_ANSWER {
        stream.set_read_timeout(Some(left())).map_err(|e| e.to_string())?;
        match stream.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => answer.extend_from_slice(&buf[..n]),
            Err(e) => return Err(format!("no answer from {address}: {e}")),
        }
    }
    let line = answer.split(|&b| b == b'\n').next().unwrap_or_default();
    let line = String::from_utf8_lossy(line);
    let mut parts = line.split_whitespace();
    match (parts.next(), parts.next().and_then(|code| code.parse::<u16>().ok())) {
        (Some(version), Some(code)) if version.starts_with("HTTP/") => Ok(code),
        _ => Err(format!("{address} answered something other than HTTP: {:?}", line.trim())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::net::TcpListener;

    fn serve_once(answer: &'static [u8]) -> SocketAddr {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let address = listener.local_addr().unwrap();
        std::thread::spawn(move || {
            if let Ok((mut s, _)) = listener.accept() {
                let mut buf = [0u8; 1024];
                let _ = s.read(&mut buf);
                let _ = s.write_all(answer);
            }
        });
        address
    }

    #[test]
    fn reads_the_status_of_an_answer() {
        let ok = serve_once(b"HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\n{}");
        assert_eq!(status(ok, "/health", Duration::from_secs(5)), Ok(200));
        let down = serve_once(b"HTTP/1.1 503 Service Unavailable\r\n\r\n");
        assert_eq!(status(down, "/ready", Duration::from_secs(5)), Ok(503));
        let junk = serve_once(b"SSH-2.0-OpenSSH\r\n");
        assert!(status(junk, "/health", Duration::from_secs(5)).unwrap_err().contains("other than HTTP"));
    }

    #[test]
    fn a_silent_server_fails_within_the_deadline() {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let address = listener.local_addr().unwrap();
        let started = Instant::now();
        let err = status(address, "/health", Duration::from_millis(300)).unwrap_err();
        assert!(err.contains("no answer"), "{err}");
        assert!(started.elapsed() < Duration::from_secs(3));
        drop(listener);
        // Nothing listening any more: refused.
        assert!(status(address, "/health", Duration::from_secs(1)).unwrap_err().contains("cannot connect"));
    }

    #[test]
    fn unspecified_listen_addresses_are_probed_on_loopback() {
        assert_eq!(probe_address("0.0.0.0:8080".parse().unwrap()), "127.0.0.1:8080".parse().unwrap());
        assert_eq!(probe_address("[::]:80".parse().unwrap()), "[::1]:80".parse().unwrap());
        assert_eq!(probe_address("10.0.0.5:9000".parse().unwrap()), "10.0.0.5:9000".parse().unwrap());
    }
}
