//! TLS inspection: a handshake with a judged host that records the certificate chain it
//! presents, whether or not the chain is any good, then judges the chain separately.
//!
//! A client that validated during the handshake could only say "invalid" and stop; one that
//! never validated could not say anything. So the handshake uses a verifier that keeps what it
//! is shown and accepts it (it still checks the handshake signatures, so the server holds the
//! key of the certificate it showed), and the chain is then judged by rustls's WebPKI verifier
//! against the same authorities the HTTP client trusts: the Mozilla roots of webpki-roots and
//! `WRENCH_TLS_EXTRA_ROOTS`. Nothing is sent over the connection after the handshake.

use std::{
    sync::{Arc, Mutex},
    time::{Duration, Instant},
};

use rustls::{
    CertificateError, DigitallySignedStruct, SignatureScheme,
    client::{
        WebPkiServerVerifier,
        danger::{HandshakeSignatureValid, ServerCertVerified, ServerCertVerifier},
    },
    crypto::CryptoProvider,
    pki_types::{CertificateDer, ServerName, UnixTime},
};
use tokio::time::timeout_at;

use super::{Net, crypto_provider, error::OutboundError, target::Target};

/// What a handshake showed.
#[derive(Debug, Clone)]
pub struct Inspection {
    pub address: std::net::SocketAddr,
    /// The certificates as sent, the server's own first.
    pub chain: Vec<CertificateDer<'static>>,
    /// `TLS 1.3`, `TLS 1.2`.
    pub protocol: String,
    /// The IANA name of the cipher suite (`TLS13_AES_256_GCM_SHA384`).
    pub cipher_suite: String,
    /// The application protocol agreed (`h2`, `http/1.1`), if any.
    pub alpn: Option<String>,
    /// Why the chain does not validate for the name asked for; `None` when it does.
    pub invalid: Option<String>,
    pub connect_time: Duration,
    pub handshake_time: Duration,
}

/// Keeps the chain it is shown and accepts it; handshake signatures are still checked.
#[derive(Debug)]
struct Recorder {
    seen: Mutex<Vec<CertificateDer<'static>>>,
    provider: Arc<CryptoProvider>,
}

impl ServerCertVerifier for Recorder {
    fn verify_server_cert(
        &self,
        end_entity: &CertificateDer<'_>,
        intermediates: &[CertificateDer<'_>],
        _name: &ServerName<'_>,
        _ocsp: &[u8],
        _now: UnixTime,
    ) -> Result<ServerCertVerified, rustls::Error> {
        let mut seen = self.seen.lock().unwrap_or_else(|e| e.into_inner());
        seen.clear();
        seen.push(end_entity.clone().into_owned());
        seen.extend(intermediates.iter().map(|c| c.clone().into_owned()));
        Ok(ServerCertVerified::assertion())
    }

    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        rustls::crypto::verify_tls12_signature(message, cert, dss, &self.provider.signature_verification_algorithms)
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        rustls::crypto::verify_tls13_signature(message, cert, dss, &self.provider.signature_verification_algorithms)
    }

    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        self.provider.signature_verification_algorithms.supported_schemes()
    }
}

impl Net {
    /// Shakes hands with `target` (an `https` target judged by [`Net::target`]) and judges
    /// the chain it presents for the target's host name.
    pub async fn inspect_tls(&self, target: &Target) -> Result<Inspection, OutboundError> {
        let deadline = tokio::time::Instant::now() + self.config.timeout;
        let connected = self.connect(target, deadline).await?;
        let provider = crypto_provider();
        let recorder = Arc::new(Recorder { seen: Mutex::new(Vec::new()), provider: provider.clone() });
        let mut config = rustls::ClientConfig::builder_with_provider(provider)
            .with_safe_default_protocol_versions()
            .expect("the aws-lc-rs provider supports the default versions")
            .dangerous()
            .with_custom_certificate_verifier(recorder.clone())
            .with_no_client_auth();
        config.alpn_protocols = vec![b"h2".to_vec(), b"http/1.1".to_vec()];
        let server_name =
            ServerName::try_from(target.name.clone().unwrap_or_else(|| super::timed::bare_host(&target.host)))
                .map_err(|e| OutboundError::Invalid(format!("is not a name a certificate can be checked for: {e}")))?
                .to_owned();
        let started = Instant::now();
        let connector = tokio_rustls::TlsConnector::from(Arc::new(config));
        let tls = match timeout_at(deadline, connector.connect(server_name.clone(), connected.stream)).await {
            Ok(Ok(tls)) => tls,
            Ok(Err(e)) => {
                return Err(OutboundError::Unreachable(format!(
                    "{} did not complete a TLS handshake on port {}: {e}",
                    target.host, target.port
                )));
            }
            Err(_) => {
                return Err(OutboundError::Timeout(format!(
                    "{} did not complete a TLS handshake within {} s (WRENCH_OUTBOUND_TIMEOUT)",
                    target.host,
                    self.config.timeout.as_secs()
                )));
            }
        };
        let handshake_time = started.elapsed();
        let (_, conn) = tls.get_ref();
        let protocol = match conn.protocol_version() {
            Some(rustls::ProtocolVersion::TLSv1_3) => "TLS 1.3".to_string(),
            Some(rustls::ProtocolVersion::TLSv1_2) => "TLS 1.2".to_string(),
            Some(v) => format!("{v:?}"),
            None => "unknown".to_string(),
        };
        let cipher_suite = conn.negotiated_cipher_suite().map(|s| format!("{:?}", s.suite())).unwrap_or_default();
        let alpn = conn.alpn_protocol().map(|p| String::from_utf8_lossy(p).into_owned());
        let chain = recorder.seen.lock().unwrap_or_else(|e| e.into_inner()).clone();
        let invalid = self.judge_chain(&chain, &server_name);
        Ok(Inspection {
            address: connected.address,
            chain,
            protocol,
            cipher_suite,
            alpn,
            invalid,
            connect_time: connected.took,
            handshake_time,
        })
    }

    /// Why `chain` does not validate for `name` now, in words; `None` when it does.
    pub fn judge_chain(&self, chain: &[CertificateDer<'static>], name: &ServerName<'static>) -> Option<String> {
        let Some((leaf, intermediates)) = chain.split_first() else {
            return Some("the server presented no certificate".into());
        };
        let verifier = match WebPkiServerVerifier::builder_with_provider(self.roots.clone(), crypto_provider()).build()
        {
            Ok(v) => v,
            Err(e) => return Some(format!("the chain could not be checked: {e}")),
        };
        match verifier.verify_server_cert(leaf, intermediates, name, &[], UnixTime::now()) {
            Ok(_) => None,
            Err(rustls::Error::InvalidCertificate(e)) => Some(describe(&e, name)),
            Err(e) => Some(e.to_string()),
        }
    }
}

/// A certificate error as a person reads it.
fn describe(e: &CertificateError, name: &ServerName<'_>) -> String {
    let name = name.to_str();
    match e {
        CertificateError::Expired | CertificateError::ExpiredContext { .. } => "the certificate has expired".into(),
        CertificateError::NotValidYet | CertificateError::NotValidYetContext { .. } => {
            "the certificate is not valid yet".into()
        }
        CertificateError::UnknownIssuer => "the chain does not lead to a trusted authority (self-signed, a private \
                                            authority, or an intermediate certificate missing from the chain)"
            .into(),
        CertificateError::NotValidForName => format!("the certificate is not valid for {name}"),
        CertificateError::NotValidForNameContext { presented, .. } => {
            // rustls writes each name in its debug form, `DnsName("a.example")`.
            let names: Vec<&str> = presented
                .iter()
                .map(|p| {
                    let inner = p.split_once('(').map_or(p.as_str(), |(_, rest)| rest.trim_end_matches(')'));
                    inner.trim_matches('"')
                })
                .collect();
            format!("the certificate is not valid for {name} (it names {})", names.join(", "))
        }
        CertificateError::BadSignature => "a signature in the chain does not verify".into(),
        CertificateError::Revoked => "the certificate has been revoked".into(),
        CertificateError::InvalidPurpose | CertificateError::InvalidPurposeContext { .. } => {
            "the certificate is not for TLS servers (extended key usage)".into()
        }
        CertificateError::UnsupportedSignatureAlgorithmContext { .. }
        | CertificateError::UnsupportedSignatureAlgorithmForPublicKeyContext { .. } => {
            "the chain uses a signature algorithm that is not accepted".into()
        }
        CertificateError::BadEncoding => "a certificate of the chain is malformed".into(),
        other => format!("the chain does not validate: {other:?}"),
    }
}
