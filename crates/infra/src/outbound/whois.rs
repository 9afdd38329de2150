//! WHOIS over port 43 (RFC 3912): one query line, the server's text until it closes.
//!
//! WHOIS servers come from the operator's settings or the embedded list, and a registry's
//! answer may refer to a registrar's server; either way the server's addresses are judged by
//! the same policy as every target before anything connects, and the answer is bounded in
//! time (the outbound deadline) and size ([`MAX_WHOIS_BYTES`]).

use std::{
    net::SocketAddr,
    time::{Duration, Instant},
};

use tokio::{
    io::{AsyncReadExt, AsyncWriteExt},
    time::timeout_at,
};

use super::{Net, error::OutboundError};

/// The most text read from one WHOIS answer; real answers are a few kilobytes.
pub const MAX_WHOIS_BYTES: usize = 256 * 1024;

/// A WHOIS answer and where it came from.
#[derive(Debug, Clone)]
pub struct WhoisAnswer {
    /// `host:port` as configured or referred.
    pub server: String,
    pub address: SocketAddr,
    pub text: String,
    pub took: Duration,
}

impl Net {
    /// Sends `query` to the WHOIS server `host` on `port` and reads the answer.
    pub async fn whois_query(&self, host: &str, port: u16, query: &str) -> Result<WhoisAnswer, OutboundError> {
        let started = Instant::now();
        let deadline = tokio::time::Instant::now() + self.config.timeout;
        let server = if host.contains(':') { format!("[{host}]:{port}") } else { format!("{host}:{port}") };
        let parsed =
            url::Host::parse(if host.contains(':') { &server[..server.rfind(':').unwrap_or(0)] } else { host })
                .map_err(|e| {
                    OutboundError::Unreachable(format!("the WHOIS server {server} is not a host name: {e}"))
                })?;
        let parsed = match &parsed {
            url::Host::Domain(d) => url::Host::Domain(d.as_str()),
            url::Host::Ipv4(a) => url::Host::Ipv4(*a),
            url::Host::Ipv6(a) => url::Host::Ipv6(*a),
        };
        let (_, ips, _) = timeout_at(deadline, self.judge_host(parsed))
            .await
            .map_err(|_| OutboundError::Timeout(format!("resolving the WHOIS server {host} took too long")))??;
        let addresses: Vec<SocketAddr> = ips.into_iter().map(|ip| SocketAddr::new(ip, port)).collect();
        let connected = self.connect_to(&addresses, &server, deadline).await?;
        let slow = || {
            OutboundError::Timeout(format!(
                "the WHOIS server {server} did not answer within {} s (WRENCH_OUTBOUND_TIMEOUT)",
                self.config.timeout.as_secs()
            ))
        };
        let failed = |e: std::io::Error| OutboundError::Unreachable(format!("the WHOIS server {server}: {e}"));
        let mut stream = connected.stream;
        timeout_at(deadline, stream.write_all(format!("{query}\r\n").as_bytes()))
            .await
            .map_err(|_| slow())?
            .map_err(failed)?;
        let mut text = Vec::new();
        let mut buf = [0u8; 8192];
        loop {
            let n = timeout_at(deadline, stream.read(&mut buf)).await.map_err(|_| slow())?.map_err(failed)?;
            if n == 0 {
                break;
            }
            if text.len() + n > MAX_WHOIS_BYTES {
                return Err(OutboundError::Unreachable(format!(
                    "the WHOIS server {server} sent more than {MAX_WHOIS_BYTES} bytes"
                )));
            }
            text.extend_from_slice(&buf[..n]);
        }
        Ok(WhoisAnswer {
            server,
            address: connected.address,
            text: String::from_utf8_lossy(&text).into_owned(),
            took: started.elapsed(),
        })
    }
}
