//! The HTTPS listener's handshake: the ClientHello is read off the socket before rustls sees
//! it, described ([`wrench_infra::connection::client_hello`]), and then replayed into the rustls
//! acceptor byte for byte, so the handshake is the one the client started. The description
//! and what the handshake agreed travel with every request of the connection, for
//! `tls/fingerprint`.
//!
//! Bounds: at most [`MAX_PREFIX`] bytes are held while the hello is awaited, and the whole
//! handshake must finish within the header timeout, counted from the connection's opening
//! (the caller enforces it).

use std::{
    io,
    pin::Pin,
    sync::Arc,
    task::{Context, Poll},
};

use rustls_pki_types::{CertificateDer, PrivateKeyDer, pem::PemObject};
use tokio::{
    io::{AsyncRead, AsyncReadExt, AsyncWrite, ReadBuf},
    net::TcpStream,
};
use tokio_rustls::{TlsAcceptor, server::TlsStream};

use wrench_infra::{
    config::TlsListener,
    connection::{TlsConnection, client_hello, names},
};

/// Most bytes held while a ClientHello is awaited: the largest hello read, split over records
/// as small as a client may send, fits in twice its size.
pub const MAX_PREFIX: usize = 2 * client_hello::MAX_HELLO;

/// The acceptor for `WRENCH_TLS_CERT` and `WRENCH_TLS_KEY`: TLS 1.2 and 1.3, ALPN `h2` and
/// `http/1.1`. Errors name the setting at fault.
pub fn acceptor(settings: &TlsListener) -> Result<TlsAcceptor, String> {
    let cert_name = format!("WRENCH_TLS_CERT ({})", settings.cert.display());
    let chain = CertificateDer::pem_file_iter(&settings.cert)
        .map_err(|e| format!("{cert_name}: {e}"))?
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| format!("{cert_name}: {e}"))?;
    if chain.is_empty() {
        return Err(format!("{cert_name}: the file holds no PEM certificate"));
    }
    let key = PrivateKeyDer::from_pem_file(&settings.key)
        .map_err(|e| format!("WRENCH_TLS_KEY ({}): no PEM private key read: {e}", settings.key.display()))?;
    let mut config = rustls::ServerConfig::builder_with_provider(wrench_infra::outbound::crypto_provider())
        .with_safe_default_protocol_versions()
        .map_err(|e| format!("TLS: {e}"))?
        .with_no_client_auth()
        .with_single_cert(chain, key)
        .map_err(|e| format!("WRENCH_TLS_CERT / WRENCH_TLS_KEY: {e}"))?;
    config.alpn_protocols = vec![b"h2".to_vec(), b"http/1.1".to_vec()];
    Ok(TlsAcceptor::from(Arc::new(config)))
}

/// How a connection to the HTTPS listener did not become a TLS session.
pub enum Refused {
    /// The client sent a plain HTTP request; the socket is handed back for an answer.
    PlainHttp(TcpStream),
    /// It closed, sent something else, or the handshake failed.
    Failed(io::Error),
}

/// Reads the ClientHello, then completes the handshake with it.
pub async fn accept(
    mut stream: TcpStream,
    acceptor: &TlsAcceptor,
) -> Result<(TlsStream<Replay>, Arc<TlsConnection>), Refused> {
    let mut buf = Vec::with_capacity(2048);
    let mut chunk = [0u8; 4096];
    let hello = loop {
        let n = stream.read(&mut chunk).await.map_err(Refused::Failed)?;
        if n == 0 {
            return Err(Refused::Failed(io::ErrorKind::UnexpectedEof.into()));
        }
        buf.extend_from_slice(&chunk[..n]);
        match client_hello::from_records(&buf) {
            Ok(Some(message)) => break client_hello::parse(&message),
            Ok(None) if buf.len() < MAX_PREFIX => continue,
            Ok(None) => break Err(format!("no whole ClientHello in the first {MAX_PREFIX} bytes")),
            Err(_) if looks_like_http(&buf) => return Err(Refused::PlainHttp(stream)),
            // rustls is the judge; it will refuse what this reader could not read, or accept
            // what it reads differently, and the answer then says the hello is unread.
            Err(e) => break Err(e),
        }
    };
    let tls = acceptor.accept(Replay { prefix: buf, at: 0, inner: stream }).await.map_err(Refused::Failed)?;
    let (_, session) = tls.get_ref();
    let connection = TlsConnection {
        hello,
        version: session.protocol_version().and_then(|v| names::version(u16::from(v))).map(str::to_string),
        cipher_suite: session.negotiated_cipher_suite().and_then(|s| names::cipher_suite(u16::from(s.suite()))),
        alpn: session.alpn_protocol().map(|p| String::from_utf8_lossy(p).into_owned()),
    };
    Ok((tls, Arc::new(connection)))
}

/// An HTTP/1 request line's start: a method token of capitals, then a space.
fn looks_like_http(bytes: &[u8]) -> bool {
    let method = bytes.iter().take_while(|b| b.is_ascii_uppercase()).count();
    (3..=7).contains(&method) && bytes.get(method) == Some(&b' ')
}

/// The socket with the bytes already read in front of it.
pub struct Replay {
    prefix: Vec<u8>,
    at: usize,
    inner: TcpStream,
}

impl AsyncRead for Replay {
    fn poll_read(mut self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &mut ReadBuf<'_>) -> Poll<io::Result<()>> {
        if self.at < self.prefix.len() {
            let n = buf.remaining().min(self.prefix.len() - self.at);
            buf.put_slice(&self.prefix[self.at..self.at + n]);
            self.at += n;
            if self.at == self.prefix.len() {
                self.prefix = Vec::new();
                self.at = 0;
            }
            return Poll::Ready(Ok(()));
        }
        Pin::new(&mut self.inner).poll_read(cx, buf)
    }
}

impl AsyncWrite for Replay {
    fn poll_write(mut self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &[u8]) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.inner).poll_write(cx, buf)
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_shutdown(cx)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_requests_are_told_from_handshakes() {
        assert!(looks_like_http(b"GET / HTTP/1.1\r\n"));
        assert!(looks_like_http(b"OPTIONS * HTTP/1.1\r\n"));
        assert!(!looks_like_http(&[22, 3, 1, 0, 200]));
        assert!(!looks_like_http(b"G"));
        assert!(!looks_like_http(b"HELLOWORLD / x"));
    }
}
