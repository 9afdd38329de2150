//! What the server knows of the connection a request arrived on, beyond its addresses: for
//! the HTTPS listener, the TLS ClientHello the client opened with (read before the handshake)
//! and what the handshake settled on. The HTTP layer fills it in; operations that describe
//! the caller (`tls/fingerprint`) read it from their context.

pub mod client_hello;
pub mod names;

use client_hello::ClientHello;

/// One TLS connection terminated by wrench itself.
#[derive(Debug, Clone)]
pub struct TlsConnection {
    /// The ClientHello as sent, or why it could not be read (the handshake may still have
    /// succeeded: rustls is the judge of a hello, this reader only describes it).
    pub hello: Result<ClientHello, String>,
    /// The protocol version agreed (`TLSv1.3`).
    pub version: Option<String>,
    /// The cipher suite agreed, by its IANA name (`TLS_AES_256_GCM_SHA384`).
    pub cipher_suite: Option<String>,
    /// The application protocol agreed by ALPN (`h2`, `http/1.1`), if any.
    pub alpn: Option<String>,
}
