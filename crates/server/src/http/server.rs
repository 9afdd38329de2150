//! The listening loop: accepting connections and keeping each one within its time limits.
//!
//! poem's own server has no header timeout, no connection cap and retries a failing `accept`
//! at once (a busy loop when the process is out of file descriptors), so wrench runs the app
//! on hyper directly:
//!
//! - at most `WRENCH_MAX_CONNECTIONS` connections are served at once; further ones wait in the
//!   kernel's listen queue until one closes;
//! - an `accept` that fails for want of resources (file descriptors, memory) backs off for
//!   100 ms instead of spinning;
//! - a connection must deliver a request's headers within `WRENCH_HEADER_TIMEOUT` of its
//!   opening or of the request's first byte; between requests a keep-alive connection may sit
//!   idle for `WRENCH_IDLE_TIMEOUT`; either way it is then closed. Request bodies have their
//!   own deadline, enforced where they are read (the pipeline's 408);
//! - the bare 414 and 431 answers hyper gives for request targets over 65,534 bytes, more
//!   than 100 header fields or header sections beyond its buffer are rewritten into the JSON
//!   envelope, like every other error; header sections over 32 KiB that hyper accepts are
//!   refused by the app itself ([`super::App`]).
//!
//! The optional HTTPS listener (`WRENCH_TLS_LISTEN`) shares the connection cap and the limits;
//! its handshake (see [`super::tls`]) counts against the header timeout, and a plain HTTP
//! request sent to it is answered with a 400 envelope saying to use `https://`.
//!
//! Graceful shutdown: on the signal the loop stops accepting, idle connections close, and
//! requests in flight get `WRENCH_SHUTDOWN_GRACE` to finish.

use std::{
    convert::Infallible,
    future::Future,
    io,
    net::SocketAddr,
    pin::Pin,
    sync::{
        Arc,
        atomic::{AtomicU64, AtomicUsize, Ordering},
    },
    task::{Context, Poll},
    time::{Duration, Instant},
};

use hyper_util::{
    rt::{TokioExecutor, TokioIo},
    server::conn::auto,
};
use poem::{Endpoint, web::LocalAddr};
use tokio::{
    io::{AsyncRead, AsyncWrite, AsyncWriteExt, ReadBuf},
    net::{TcpListener, TcpStream},
    sync::{Notify, Semaphore},
};
use tokio_rustls::TlsAcceptor;

use super::App;
use wrench_infra::{config::Config, connection::TlsConnection};

/// Longest header section hyper buffers; beyond it hyper answers 431 itself (rewritten into
/// the envelope). The app refuses far smaller sections first (see `MAX_HEADER_BYTES`).
const HYPER_MAX_BUF: usize = 256 * 1024;
/// Header fields hyper parses; more are its own 431, rewritten into the envelope. (hyper sets
/// aside room for this many on every request, so it stays at the common default.)
const HYPER_MAX_HEADERS: usize = super::MAX_HEADER_FIELDS;

/// The time limits of one connection.
#[derive(Debug, Clone, Copy)]
pub struct Timeouts {
    pub header: Duration,
    pub idle: Duration,
}

/// Serves `app` on `listener` (and on the HTTPS listener `tls`, if any) until `shutdown`
/// completes, then lets requests in flight finish within `grace`.
pub async fn serve(
    listener: TcpListener,
    tls: Option<(TcpListener, TlsAcceptor)>,
    app: App,
    config: &Config,
    shutdown: impl Future<Output = ()>,
) -> io::Result<()> {
    let app = Arc::new(app);
    let timeouts = Timeouts { header: config.header_timeout, idle: config.idle_timeout };
    // One permit per live connection: the semaphore is both the cap and the count of what is
    // still open at shutdown.
    let slots = Arc::new(Semaphore::new(config.max_connections));
    let stopping = Arc::new(Notify::new());
    let local = listener.local_addr()?;
    let tls = match tls {
        Some((l, acceptor)) => Some((l.local_addr()?, l, Arc::new(acceptor))),
        None => None,
    };
    tokio::pin!(shutdown);
    loop {
        let permit = tokio::select! {
            _ = &mut shutdown => break,
            p = slots.clone().acquire_owned() => match p {
                Ok(p) => p,
                Err(_) => break,
            },
        };
        let (accepted, secure) = tokio::select! {
            _ = &mut shutdown => break,
            accepted = listener.accept() => (accepted, false),
            accepted = accept_on(tls.as_ref().map(|t| &t.1)) => (accepted, true),
        };
        let (stream, peer) = match accepted {
            Ok(pair) => pair,
            Err(e) => {
                back_off(&e).await;
                continue;
            }
        };
        let _ = stream.set_nodelay(true);
        let mut conn = Conn { local, peer, app: app.clone(), limits: timeouts, stopping: stopping.clone() };
        let acceptor = match (secure, &tls) {
            (true, Some((tls_local, _, acceptor))) => {
                conn.local = *tls_local;
                Some(acceptor.clone())
            }
            _ => None,
        };
        tokio::spawn(async move {
            match acceptor {
                None => serve_with(stream, Activity::new(), None, conn).await,
                Some(acceptor) => serve_tls_connection(stream, &acceptor, conn).await,
            }
            drop(permit);
        });
    }
    drop(listener);
    drop(tls);
    // Idle connections close now; the others after their request. All permits back means
    // every connection has closed.
    stopping.notify_waiters();
    // At most a million (the configuration says so), well within u32.
    let all = config.max_connections as u32;
    if tokio::time::timeout(config.shutdown_grace, slots.acquire_many(all)).await.is_err() {
        let open = config.max_connections - slots.available_permits();
        tracing::warn!(connections = open, "shutdown grace over; closing what is left");
    }
    Ok(())
}

/// The next connection on `listener`; never, without one.
async fn accept_on(listener: Option<&TcpListener>) -> io::Result<(TcpStream, SocketAddr)> {
    match listener {
        Some(l) => l.accept().await,
        None => std::future::pending().await,
    }
}

/// A connection to the HTTPS listener: the ClientHello read and the handshake completed within
/// the header timeout from the connection's opening, then served like any other.
async fn serve_tls_connection(stream: TcpStream, acceptor: &TlsAcceptor, conn: Conn) {
    let activity = Activity::new();
    let limits = conn.limits;
    match tokio::time::timeout(limits.header, super::tls::accept(stream, acceptor)).await {
        Ok(Ok((tls, connection))) => serve_with(tls, activity, Some(connection), conn).await,
        Ok(Err(super::tls::Refused::PlainHttp(mut stream))) => {
            use wrench_infra::envelope::{ApiError, ErrorCode};
            let err = ApiError::new(
                ErrorCode::HttpsRequired,
                "this port speaks HTTPS (TLS); a plain HTTP request was sent to it: use an https:// URL",
            );
            // Best effort: the client may already be gone.
            let _ = tokio::time::timeout(limits.header, stream.write_all(&raw_envelope(&err))).await;
            let _ = stream.shutdown().await;
            // Closing with the rest of the request unread would reset the connection, and a
            // reset can reach the client before the answer does: read what it still sends,
            // within bounds, until it closes its side.
            let _ = tokio::time::timeout(limits.header, discard(&mut stream, REFUSED_READ_CAP)).await;
        }
        Ok(Err(super::tls::Refused::Failed(e))) => tracing::debug!(error = %e, "TLS handshake failed"),
        Err(_) => tracing::debug!("TLS handshake not finished within the header timeout"),
    }
}

/// The most a plain HTTP request refused on the HTTPS port may still send (within the header
/// timeout) before its connection is dropped anyway: enough for a header section at hyper's
/// limit and a few bodies at the default limit of 1 MiB, which a client may have queued.
const REFUSED_READ_CAP: usize = 8 * 1024 * 1024;

/// Reads and drops what `stream` sends until it closes, fails, or `cap` bytes have come.
async fn discard(stream: &mut TcpStream, cap: usize) {
    use tokio::io::AsyncReadExt;
    let mut buf = vec![0u8; 16 * 1024];
    let mut seen = 0;
    while seen < cap {
        match stream.read(&mut buf).await {
            Ok(0) | Err(_) => return,
            Ok(n) => seen += n,
        }
    }
}

/// After a failed `accept`: resource exhaustion waits 100 ms (the condition lasts, and retrying
/// at once only burns a core); a connection that died before it was accepted does not.
async fn back_off(e: &io::Error) {
    let exhausted =
        matches!(e.raw_os_error(), Some(23 /* ENFILE */ | 24 /* EMFILE */ | 105 /* ENOBUFS */ | 12 /* ENOMEM */));
    if exhausted {
        tracing::warn!(error = %e, "cannot accept connections: out of resources; pausing 100 ms");
        tokio::time::sleep(Duration::from_millis(100)).await;
    } else {
        tracing::debug!(error = %e, "accept failed");
    }
}

/// What a connection's watchdog needs to know. Atomics only: reads and requests update it on
/// the hot path.
struct Activity {
    /// When the connection opened; the times below count from it.
    opened: Instant,
    /// Requests handed to the app and not yet answered.
    in_flight: AtomicUsize,
    /// Nanoseconds after `opened`, plus one, at which the current request's first byte arrived
    /// (or the connection opened) while its headers are awaited; 0 when none is awaited.
    head_started: AtomicU64,
    /// Nanoseconds after `opened` at which the connection last became idle.
    idle_since: AtomicU64,
}

impl Activity {
    fn new() -> Self {
        Activity {
            opened: Instant::now(),
            in_flight: AtomicUsize::new(0),
            head_started: AtomicU64::new(1),
            idle_since: AtomicU64::new(0),
        }
    }

    fn now(&self) -> u64 {
        self.opened.elapsed().as_nanos() as u64
    }

    fn at(&self, nanos: u64) -> Instant {
        self.opened + Duration::from_nanos(nanos)
    }

    fn bytes_read(&self) {
        if self.in_flight.load(Ordering::Acquire) == 0 && self.head_started.load(Ordering::Acquire) == 0 {
            // Only the first byte after an idle spell starts the header clock.
            let _ = self.head_started.compare_exchange(0, self.now() + 1, Ordering::AcqRel, Ordering::Acquire);
        }
    }

    fn request_started(&self) {
        self.in_flight.fetch_add(1, Ordering::AcqRel);
        self.head_started.store(0, Ordering::Release);
    }

    fn request_done(&self) {
        if self.in_flight.fetch_sub(1, Ordering::AcqRel) == 1 {
            self.idle_since.store(self.now(), Ordering::Release);
        }
    }

    /// When the connection must be closed, if nothing happens before; `None` while a request
    /// is in flight.
    fn deadline(&self, limits: Timeouts) -> Option<Instant> {
        if self.in_flight.load(Ordering::Acquire) > 0 {
            return None;
        }
        Some(match self.head_started.load(Ordering::Acquire) {
            0 => self.at(self.idle_since.load(Ordering::Acquire)) + limits.idle,
            started => self.at(started - 1) + limits.header,
        })
    }
}

/// What serving one connection needs besides its stream.
struct Conn {
    /// The address of the listener it arrived on.
    local: SocketAddr,
    peer: SocketAddr,
    app: Arc<App>,
    limits: Timeouts,
    stopping: Arc<Notify>,
}

/// Serves HTTP on `stream` (a socket, or a TLS session on one) until it closes or its limits
/// pass; `activity` was started when the connection opened; `tls` describes the session.
async fn serve_with<S: AsyncRead + AsyncWrite + Unpin + Send + 'static>(
    stream: S,
    activity: Activity,
    tls: Option<Arc<TlsConnection>>,
    conn: Conn,
) {
    let Conn { local, peer, app, limits, stopping } = conn;
    let activity = Arc::new(activity);
    let scheme = if tls.is_some() { poem::http::uri::Scheme::HTTPS } else { poem::http::uri::Scheme::HTTP };
    let io = Watched { inner: stream, activity: activity.clone(), rewrite: Vec::new(), rewritten: 0 };
    let service = {
        let activity = activity.clone();
        hyper::service::service_fn(move |mut req: hyper::Request<hyper::body::Incoming>| {
            let (app, activity, scheme) = (app.clone(), activity.clone(), scheme.clone());
            if let Some(tls) = &tls {
                req.extensions_mut().insert(tls.clone());
            }
            async move {
                activity.request_started();
                let req: poem::Request = (
                    req,
                    LocalAddr(poem::Addr::SocketAddr(local)),
                    poem::web::RemoteAddr(poem::Addr::SocketAddr(peer)),
                    scheme,
                )
                    .into();
                let resp = app.get_response(req).await;
                activity.request_done();
                Ok::<hyper::Response<http_body_util::combinators::BoxBody<bytes::Bytes, io::Error>>, Infallible>(
                    resp.into(),
                )
            }
        })
    };
    let mut builder = auto::Builder::new(TokioExecutor::new());
    builder.http1().keep_alive(true).max_headers(HYPER_MAX_HEADERS).max_buf_size(HYPER_MAX_BUF);
    let conn = builder.serve_connection(TokioIo::new(io), service);
    tokio::pin!(conn);
    // The watchdog runs beside the connection, so serving a request costs nothing but the
    // atomics above; it wakes at least every 250 ms because reads move the deadline (an idle
    // connection that starts a request has its header limit from then on).
    let expired = Arc::new(Notify::new());
    let watchdog = tokio::spawn({
        let (activity, expired) = (activity.clone(), expired.clone());
        async move {
            loop {
                let now = Instant::now();
                let soon = now + Duration::from_millis(250);
                match activity.deadline(limits) {
                    Some(at) if now >= at => {
                        expired.notify_one();
                        return;
                    }
                    Some(at) => tokio::time::sleep_until(at.min(soon).into()).await,
                    None => tokio::time::sleep_until(soon.into()).await,
                }
            }
        }
    });
    let stop = stopping.notified();
    tokio::pin!(stop);
    let mut stopping_now = false;
    loop {
        tokio::select! {
            _ = conn.as_mut() => break,
            // Nothing in flight and the limit passed: close without an answer.
            _ = expired.notified() => break,
            _ = &mut stop, if !stopping_now => {
                stopping_now = true;
                conn.as_mut().graceful_shutdown();
            }
        }
    }
    watchdog.abort();
}

/// The socket, telling the watchdog about reads, and rewriting hyper's own bare error answers.
struct Watched<S> {
    inner: S,
    activity: Arc<Activity>,
    /// An envelope answer being written in place of hyper's bare one.
    rewrite: Vec<u8>,
    rewritten: usize,
}

impl<S: AsyncRead + Unpin> AsyncRead for Watched<S> {
    fn poll_read(mut self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &mut ReadBuf<'_>) -> Poll<io::Result<()>> {
        let before = buf.filled().len();
        let polled = Pin::new(&mut self.inner).poll_read(cx, buf);
        if matches!(polled, Poll::Ready(Ok(()))) && buf.filled().len() > before {
            self.activity.bytes_read();
        }
        polled
    }
}

impl<S: AsyncWrite + Unpin> AsyncWrite for Watched<S> {
    fn poll_write(mut self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &[u8]) -> Poll<io::Result<usize>> {
        // A response written while no request is with the app is hyper's own answer to a
        // request it could not parse.
        if self.rewrite.is_empty()
            && self.activity.in_flight.load(Ordering::Acquire) == 0
            && let Some(envelope) = envelope_for(buf)
        {
            self.rewrite = envelope;
            self.rewritten = 0;
        }
        if self.rewrite.is_empty() {
            return Pin::new(&mut self.inner).poll_write(cx, buf);
        }
        while self.rewritten < self.rewrite.len() {
            let this = &mut *self;
            match Pin::new(&mut this.inner).poll_write(cx, &this.rewrite[this.rewritten..]) {
                Poll::Ready(Ok(n)) => this.rewritten += n,
                Poll::Ready(Err(e)) => return Poll::Ready(Err(e)),
                Poll::Pending => return Poll::Pending,
            }
        }
        // Hyper's bytes are taken as written; the connection closes after such an answer.
        Poll::Ready(Ok(buf.len()))
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_shutdown(cx)
    }
}

/// The envelope for hyper's bare `414` or `431`, as a whole HTTP/1.1 response.
fn envelope_for(head: &[u8]) -> Option<Vec<u8>> {
    use wrench_infra::envelope::{ApiError, ErrorCode};
    let err = if head.starts_with(b"HTTP/1.1 431 ") {
        ApiError::new(
            ErrorCode::HeadersTooLarge,
            format!(
                "the header section is larger than {HYPER_MAX_BUF} bytes or has more than {HYPER_MAX_HEADERS} fields"
            ),
        )
    } else if head.starts_with(b"HTTP/1.1 414 ") {
        ApiError::new(ErrorCode::UriTooLong, "the request target is longer than 65,534 bytes")
    } else {
        return None;
    };
    Some(raw_envelope(&err))
}

/// `err` as a whole HTTP/1.1 response that closes the connection, for answers written
/// outside hyper.
fn raw_envelope(err: &wrench_infra::envelope::ApiError) -> Vec<u8> {
    let meta = super::RequestMeta::new();
    let id = &meta.id;
    let body = super::envelope::error_bytes(err, &meta.envelope_meta().as_meta());
    let status = err.status();
    let mut out = format!(
        "HTTP/1.1 {} {}\r\ncontent-type: application/json\r\ncontent-length: {}\r\nx-request-id: {id}\r\nx-content-type-options: nosniff\r\ncache-control: no-store\r\nconnection: close\r\n\r\n",
        status.as_u16(),
        status.canonical_reason().unwrap_or(""),
        body.len()
    )
    .into_bytes();
    out.extend_from_slice(&body);
    out
}
