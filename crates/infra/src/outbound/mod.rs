//! The outbound layer: everything wrench sends to hosts a caller names goes through here.
//!
//! A service that fetches caller-supplied URLs is an SSRF proxy unless it is built not to be.
//! This layer is built not to be: one resolver ([`resolver`]), one address policy
//! ([`policy`]), one place where a target is judged and resolved ([`target`]) and one HTTP
//! client that connects only to the addresses judged ([`fetch`]). Operations never open
//! sockets of their own. What they may reach is configured in `config/outbound.rs`; the only
//! way to reach a refused range is the operator's `WRENCH_OUTBOUND_ALLOW`.

pub mod certificate;
pub mod connect;
pub mod error;
pub mod feed;
pub mod fetch;
pub mod policy;
pub mod provider;
pub mod resolver;
pub mod target;
pub mod timed;
pub mod tls_inspect;
pub mod whois;

use std::sync::Arc;

use rustls_pki_types::{CertificateDer, pem::PemObject};

pub use error::OutboundError;
pub use fetch::{Chain, ChainEnd, FetchOptions, Hop, Outgoing, Relayed};
pub use tls_inspect::Inspection;

use crate::config::OutboundConfig;

/// The outbound layer of one instance, shared by every request.
pub struct Net {
    pub config: OutboundConfig,
    pub policy: policy::Policy,
    /// The resolver of `WRENCH_DNS_SERVERS`.
    pub resolver: Arc<resolver::Resolver>,
    /// One uncached resolver per entry of `WRENCH_DNS_PROPAGATION_RESOLVERS`, in order.
    pub propagation: Vec<(String, Arc<resolver::Resolver>)>,
    /// TLS for fetches: the Mozilla roots plus `WRENCH_TLS_EXTRA_ROOTS`.
    pub tls: Arc<rustls::ClientConfig>,
    /// The certificate authorities of `tls`, for validating chains apart from a handshake.
    pub roots: Arc<rustls::RootCertStore>,
    pub user_agent: String,
}

impl Net {
    /// The layer for `config`; `public_url` names this instance in the User-Agent.
    pub fn new(config: &OutboundConfig, public_url: &str) -> Result<Net, String> {
        let resolver = Arc::new(resolver::Resolver::new(&config.dns_servers)?);
        let propagation = config
            .propagation_resolvers
            .iter()
            .map(|r| (r.name.clone(), Arc::new(resolver::Resolver::with_upstreams(&[r.address], 0))))
            .collect();
        let roots = Arc::new(root_store(config)?);
        let tls = Arc::new(client_tls(roots.clone()));
        let user_agent = config
            .user_agent
            .clone()
            .unwrap_or_else(|| format!("wrench/{} (+{public_url})", env!("CARGO_PKG_VERSION")));
        Ok(Net {
            policy: policy::Policy::new(config.allow.clone()),
            config: config.clone(),
            resolver,
            propagation,
            tls,
            roots,
            user_agent,
        })
    }
}

/// The rustls provider of the whole layer (aws-lc-rs, as reqwest's).
pub fn crypto_provider() -> Arc<rustls::crypto::CryptoProvider> {
    Arc::new(rustls::crypto::aws_lc_rs::default_provider())
}

fn root_store(config: &OutboundConfig) -> Result<rustls::RootCertStore, String> {
    let mut roots = rustls::RootCertStore::empty();
    roots.extend(webpki_roots::TLS_SERVER_ROOTS.iter().cloned());
    if let Some(path) = &config.tls_extra_roots {
        let name = format!("WRENCH_TLS_EXTRA_ROOTS ({})", path.display());
        let mut added = 0;
        for cert in CertificateDer::pem_file_iter(path).map_err(|e| format!("{name}: {e}"))? {
            let cert = cert.map_err(|e| format!("{name}: {e}"))?;
            roots.add(cert).map_err(|e| format!("{name}: a certificate is not a usable authority: {e}"))?;
            added += 1;
        }
        if added == 0 {
            return Err(format!("{name}: the file holds no PEM certificate"));
        }
    }
    Ok(roots)
}

fn client_tls(roots: Arc<rustls::RootCertStore>) -> rustls::ClientConfig {
    let mut tls = rustls::ClientConfig::builder_with_provider(crypto_provider())
        .with_safe_default_protocol_versions()
        .expect("the aws-lc-rs provider supports the default versions")
        .with_root_certificates(roots)
        .with_no_client_auth();
    tls.alpn_protocols = vec![b"h2".to_vec(), b"http/1.1".to_vec()];
    tls
}
