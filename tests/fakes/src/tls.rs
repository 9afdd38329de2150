//! A certificate authority of the tests' own, and the certificates the fake HTTPS sites show.
//!
//! Keys are made fresh in every process; wrench trusts the authority through
//! `WRENCH_TLS_EXTRA_ROOTS`, pointed at the PEM file [`TestCa::write_pem`] writes.

use std::{path::Path, sync::Arc};

use rcgen::{BasicConstraints, CertificateParams, DnType, IsCa, Issuer, KeyPair, KeyUsagePurpose};
use rustls::pki_types::{CertificateDer, PrivateKeyDer, PrivatePkcs8KeyDer};

pub struct TestCa {
    pem: String,
    issuer: Issuer<'static, KeyPair>,
}

impl TestCa {
    pub fn new() -> TestCa {
        let mut params = CertificateParams::new(Vec::<String>::new()).expect("empty names");
        params.distinguished_name.push(DnType::CommonName, "wrench test CA");
        params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
        params.key_usages = vec![KeyUsagePurpose::KeyCertSign, KeyUsagePurpose::CrlSign];
        let key = KeyPair::generate().expect("a key");
        let cert = params.self_signed(&key).expect("a CA certificate");
        TestCa { pem: cert.pem(), issuer: Issuer::new(params, key) }
    }

    /// The authority's certificate, PEM.
    pub fn pem(&self) -> &str {
        &self.pem
    }

    pub fn write_pem(&self, path: &Path) -> std::io::Result<()> {
        std::fs::write(path, &self.pem)
    }

    /// A certificate for `names`, valid from yesterday for a year, signed by this authority.
    pub fn leaf(&self, names: &[&str]) -> (Vec<CertificateDer<'static>>, PrivateKeyDer<'static>) {
        let mut params =
            CertificateParams::new(names.iter().map(|n| n.to_string()).collect::<Vec<_>>()).expect("names");
        params.distinguished_name.push(DnType::CommonName, names.first().copied().unwrap_or("fixture"));
        let now = std::time::SystemTime::now();
        params.not_before = (now - std::time::Duration::from_secs(86_400)).into();
        params.not_after = (now + std::time::Duration::from_secs(365 * 86_400)).into();
        let key = KeyPair::generate().expect("a key");
        let cert = params.signed_by(&key, &self.issuer).expect("a leaf certificate");
        let key = PrivateKeyDer::Pkcs8(PrivatePkcs8KeyDer::from(key.serialize_der()));
        (vec![cert.der().clone()], key)
    }
}

impl Default for TestCa {
    fn default() -> Self {
        TestCa::new()
    }
}

/// A server configuration presenting `chain`.
pub fn server_config(chain: Vec<CertificateDer<'static>>, key: PrivateKeyDer<'static>) -> Arc<rustls::ServerConfig> {
    let config = rustls::ServerConfig::builder_with_provider(Arc::new(rustls::crypto::aws_lc_rs::default_provider()))
        .with_safe_default_protocol_versions()
        .expect("default versions")
        .with_no_client_auth()
        .with_single_cert(chain, key)
        .expect("a usable certificate");
    Arc::new(config)
}
