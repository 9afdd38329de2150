//! One request with every phase timed: resolving, connecting, the TLS handshake, waiting for
//! the first byte of the answer and reading the body. For `site/performance`.
//!
//! The HTTP client of `fetch.rs` cannot say how long each phase took, so this module opens the
//! connection itself (to the judged addresses only, like everything in the layer), makes the
//! TLS handshake with the same trusted roots, and speaks HTTP/1.1 or HTTP/2 (whichever the
//! handshake agreed) over it with hyper's connection-level client. It asks for compressed
//! answers the way browsers do and counts the bytes as they arrive, without decompressing
//! them: the size reported is what crossed the network. The body is capped like every fetch.

use std::{
    net::SocketAddr,
    time::{Duration, Instant},
};

use bytes::Bytes;
use http_body_util::{BodyExt, Empty};
use hyper::{Request, header::HeaderMap};
use hyper_util::rt::{TokioExecutor, TokioIo};
use rustls::pki_types::ServerName;
use tokio::{
    io::{AsyncRead, AsyncWrite},
    time::timeout_at,
};
use url::Url;

use super::{Net, error::OutboundError, target::Target};

/// What browsers send; the answer's own encoding is reported, not decoded.
const ACCEPT_ENCODING: &str = "gzip, deflate, br, zstd";

/// One answer and how long each phase took.
#[derive(Debug, Clone)]
pub struct TimedAnswer {
    pub url: Url,
    pub address: SocketAddr,
    pub status: u16,
    /// `HTTP/1.1` or `HTTP/2`.
    pub version: String,
    pub headers: HeaderMap,
    pub location: Option<String>,
    pub dns: Duration,
    pub connect: Duration,
    /// The TLS handshake; `None` over plain HTTP.
    pub tls: Option<Duration>,
    /// From the request being sent to the answer's headers.
    pub wait: Duration,
    /// From the headers to the last byte of the body.
    pub download: Duration,
    /// Body bytes as received (compressed, if the answer was).
    pub body_bytes: u64,
}

impl TimedAnswer {
    /// From the start of resolving to the first byte of the answer.
    pub fn first_byte(&self) -> Duration {
        self.dns + self.connect + self.tls.unwrap_or_default() + self.wait
    }

    /// From the start of resolving to the last byte of the body.
    pub fn total(&self) -> Duration {
        self.first_byte() + self.download
    }
}

impl Net {
    /// Judges `url`, then fetches it once on a connection of its own, timing each phase; the
    /// body is read (and counted) unless the answer is a redirect.
    pub async fn timed_get(&self, url: &Url, deadline: tokio::time::Instant) -> Result<TimedAnswer, OutboundError> {
        let slow = || {
            OutboundError::Timeout(format!(
                "{} did not answer within {} s (WRENCH_OUTBOUND_TIMEOUT)",
                url.host_str().unwrap_or("the target"),
                self.config.timeout.as_secs()
            ))
        };
        let target = timeout_at(deadline, self.target(url)).await.map_err(|_| slow())??;
        let connected = self.connect(&target, deadline).await?;
        let address = connected.address;
        let mut answer = if url.scheme() == "https" {
            let started = Instant::now();
            let name = ServerName::try_from(target.name.clone().unwrap_or_else(|| bare_host(&target.host)))
                .map_err(|e| OutboundError::Invalid(format!("is not a name a certificate can be checked for: {e}")))?
                .to_owned();
            let connector = tokio_rustls::TlsConnector::from(self.tls.clone());
            let tls = timeout_at(deadline, connector.connect(name, connected.stream))
                .await
                .map_err(|_| slow())?
                .map_err(|e| OutboundError::Unreachable(format!("TLS with {} failed: {e}", target.host)))?;
            let handshake = started.elapsed();
            let h2 = tls.get_ref().1.alpn_protocol() == Some(b"h2");
            let mut answer = timeout_at(deadline, self.exchange(tls, h2, &target)).await.map_err(|_| slow())??;
            answer.tls = Some(handshake);
            answer
        } else {
            timeout_at(deadline, self.exchange(connected.stream, false, &target)).await.map_err(|_| slow())??
        };
        answer.address = address;
        answer.dns = target.dns_time;
        answer.connect = connected.took;
        Ok(answer)
    }

    /// Sends `GET` over `io` and reads the answer, counting the body against the byte cap.
    async fn exchange<I>(&self, io: I, h2: bool, target: &Target) -> Result<TimedAnswer, OutboundError>
    where
        I: AsyncRead + AsyncWrite + Unpin + Send + 'static,
    {
        let failed = |e: hyper::Error| OutboundError::Unreachable(format!("{} failed answering: {e}", target.host));
        let url = &target.url;
        let authority = match url.port() {
            Some(p) => format!("{}:{p}", target.host),
            None => target.host.clone(),
        };
        let path = &url[url::Position::BeforePath..url::Position::AfterQuery];
        let builder = if h2 {
            Request::get(format!("{}://{authority}{path}", url.scheme()))
        } else {
            Request::get(if path.is_empty() { "/" } else { path }).header(hyper::header::HOST, &authority)
        };
        let request = builder
            .header(hyper::header::USER_AGENT, self.user_agent.as_str())
            .header(hyper::header::ACCEPT, "*/*")
            .header(hyper::header::ACCEPT_ENCODING, ACCEPT_ENCODING)
            .body(Empty::<Bytes>::new())
            .map_err(|e| OutboundError::Invalid(format!("cannot be requested: {e}")))?;
        let io = TokioIo::new(io);
        let sent = Instant::now();
        let response = if h2 {
            let (mut sender, conn) =
                hyper::client::conn::http2::handshake(TokioExecutor::new(), io).await.map_err(failed)?;
            tokio::spawn(conn);
            sender.send_request(request).await.map_err(failed)?
        } else {
            let (mut sender, conn) = hyper::client::conn::http1::handshake(io).await.map_err(failed)?;
            tokio::spawn(conn);
            sender.send_request(request).await.map_err(failed)?
        };
        let wait = sent.elapsed();
        let status = response.status().as_u16();
        let version = match response.version() {
            hyper::Version::HTTP_2 => "HTTP/2".to_string(),
            v => format!("{v:?}"),
        };
        let headers = response.headers().clone();
        let location = headers.get(hyper::header::LOCATION).map(|v| String::from_utf8_lossy(v.as_bytes()).into_owned());
        let started = Instant::now();
        let mut body_bytes = 0u64;
        if !(300..400).contains(&status) {
            let limit = self.config.max_bytes as u64;
            let mut body = response.into_body();
            while let Some(frame) = body.frame().await {
                if let Ok(data) = frame.map_err(failed)?.into_data() {
                    body_bytes += data.len() as u64;
                    if body_bytes > limit {
                        return Err(OutboundError::Unreachable(format!(
                            "{} answered with more than {limit} bytes (WRENCH_OUTBOUND_MAX_BYTES)",
                            target.host
                        )));
                    }
                }
            }
        }
        Ok(TimedAnswer {
            url: url.clone(),
            address: target.addresses.first().copied().unwrap_or_else(|| SocketAddr::from(([0, 0, 0, 0], 0))),
            status,
            version,
            headers,
            location,
            dns: Duration::ZERO,
            connect: Duration::ZERO,
            tls: None,
            wait,
            download: started.elapsed(),
            body_bytes,
        })
    }
}

/// A host as a certificate names it: IPv6 literals without their brackets.
pub(super) fn bare_host(host: &str) -> String {
    host.trim_start_matches('[').trim_end_matches(']').to_string()
}
