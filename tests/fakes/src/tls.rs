//! A certificate authority of the tests' own, and the certificates the fake HTTPS sites show.
//!
//! Keys are made fresh in every process; wrench trusts the authority through
//! `WRENCH_TLS_EXTRA_ROOTS`, pointed at the PEM file [`TestCa::write_pem`] writes. Like a public
//! authority, the root signs an intermediate, and the intermediate signs the sites.
//!
//! The HTTPS server chooses the certificate by the name the client asks for (SNI), so one
//! listener shows every case a certificate check must tell apart:
//!
//! | name | certificate |
//! |---|---|
//! | `expired.site.example` | ended ten and a half days ago |
//! | `expiring.site.example` | ends in five and a half days |
//! | `self-signed.site.example` | signed by its own key |
//! | `wrong-name.site.example` | valid, but for `other.example` only |
//! | `incomplete.site.example` | valid, sent without its intermediate |
//! | anything else | valid for `site.example` and `*.site.example`, for a year and a half day |

use std::{
    collections::HashMap,
    path::Path,
    sync::Arc,
    time::{Duration, SystemTime},
};

use rcgen::{BasicConstraints, CertificateParams, DnType, IsCa, Issuer, KeyPair, KeyUsagePurpose};
use rustls::{
    pki_types::{CertificateDer, PrivateKeyDer, PrivatePkcs8KeyDer},
    server::{ClientHello, ResolvesServerCert},
    sign::CertifiedKey,
};

const DAY: Duration = Duration::from_secs(86_400);
/// Added to every end of validity so that whole days remaining (365, 5, -10) do not depend on
/// when in a second or a day a test runs.
const HALF_DAY: Duration = Duration::from_secs(43_200);

pub struct TestCa {
    pem: String,
    intermediate: Issuer<'static, KeyPair>,
    intermediate_der: CertificateDer<'static>,
}

fn ca_params(name: &str) -> CertificateParams {
    let mut params = CertificateParams::new(Vec::<String>::new()).expect("empty names");
    params.distinguished_name.push(DnType::CommonName, name);
    params.distinguished_name.push(DnType::OrganizationName, "wrench tests");
    params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
    params.key_usages = vec![KeyUsagePurpose::KeyCertSign, KeyUsagePurpose::CrlSign];
    params
}

impl TestCa {
    pub fn new() -> TestCa {
        let root_params = ca_params("wrench test root CA");
        let root_key = KeyPair::generate().expect("a key");
        let root_pem = root_params.self_signed(&root_key).expect("a CA certificate").pem();
        let root = Issuer::new(root_params, root_key);
        let params = ca_params("wrench test intermediate CA");
        let key = KeyPair::generate().expect("a key");
        let intermediate = params.signed_by(&key, &root).expect("an intermediate certificate");
        TestCa { pem: root_pem, intermediate_der: intermediate.der().clone(), intermediate: Issuer::new(params, key) }
    }

    /// The root's certificate, PEM.
    pub fn pem(&self) -> &str {
        &self.pem
    }

    pub fn write_pem(&self, path: &Path) -> std::io::Result<()> {
        std::fs::write(path, &self.pem)
    }

    /// A certificate for `names` valid from `from` to `until`, signed by the intermediate;
    /// the chain sent with it includes the intermediate.
    pub fn leaf_between(&self, names: &[&str], from: SystemTime, until: SystemTime) -> CertifiedKey {
        let (params, key) = leaf_params(names, from, until);
        let cert = params.signed_by(&key, &self.intermediate).expect("a leaf certificate");
        certified(vec![cert.der().clone(), self.intermediate_der.clone()], &key)
    }

    /// A certificate for `names`, valid from yesterday until a year and half a day from now.
    pub fn leaf(&self, names: &[&str]) -> CertifiedKey {
        let now = SystemTime::now();
        self.leaf_between(names, now - DAY, now + 365 * DAY + HALF_DAY)
    }

    /// The certificates of every case in the table above.
    pub fn site_certificates(&self) -> SiteCertificates {
        let now = SystemTime::now();
        let mut by_name = HashMap::new();
        by_name.insert(
            "expired.site.example",
            self.leaf_between(&["expired.site.example"], now - 100 * DAY, now - 10 * DAY - HALF_DAY),
        );
        by_name.insert(
            "expiring.site.example",
            self.leaf_between(&["expiring.site.example"], now - 80 * DAY, now + 5 * DAY + HALF_DAY),
        );
        by_name.insert("wrong-name.site.example", self.leaf(&["other.example"]));
        let complete = self.leaf(&["incomplete.site.example"]);
        by_name
            .insert("incomplete.site.example", CertifiedKey::new(vec![complete.cert[0].clone()], complete.key.clone()));
        let (params, key) = leaf_params(&["self-signed.site.example"], now - DAY, now + 365 * DAY + HALF_DAY);
        let cert = params.self_signed(&key).expect("a self-signed certificate");
        by_name.insert("self-signed.site.example", certified(vec![cert.der().clone()], &key));
        let by_name = by_name.into_iter().map(|(k, v)| (k.to_string(), Arc::new(v))).collect();
        SiteCertificates { by_name, default: Arc::new(self.leaf(&["site.example", "*.site.example"])) }
    }
}

fn leaf_params(names: &[&str], from: SystemTime, until: SystemTime) -> (CertificateParams, KeyPair) {
    let mut params = CertificateParams::new(names.iter().map(|n| n.to_string()).collect::<Vec<_>>()).expect("names");
    params.distinguished_name.push(DnType::CommonName, names.first().copied().unwrap_or("fixture"));
    params.not_before = from.into();
    params.not_after = until.into();
    (params, KeyPair::generate().expect("a key"))
}

fn certified(chain: Vec<CertificateDer<'static>>, key: &KeyPair) -> CertifiedKey {
    let der = PrivateKeyDer::Pkcs8(PrivatePkcs8KeyDer::from(key.serialize_der()));
    let provider = rustls::crypto::aws_lc_rs::default_provider();
    let signer = provider.key_provider.load_private_key(der).expect("a usable key");
    CertifiedKey::new(chain, signer)
}

impl Default for TestCa {
    fn default() -> Self {
        TestCa::new()
    }
}

/// The certificate the fake HTTPS server shows for each name.
#[derive(Debug)]
pub struct SiteCertificates {
    by_name: HashMap<String, Arc<CertifiedKey>>,
    default: Arc<CertifiedKey>,
}

impl SiteCertificates {
    /// Every chain the server can show, by the name that selects it (`*` for the default).
    pub fn chains(&self) -> Vec<(String, Vec<CertificateDer<'static>>)> {
        let mut out: Vec<_> = self.by_name.iter().map(|(k, v)| (k.clone(), v.cert.clone())).collect();
        out.push(("*".into(), self.default.cert.clone()));
        out.sort_by(|a, b| a.0.cmp(&b.0));
        out
    }
}

impl ResolvesServerCert for SiteCertificates {
    fn resolve(&self, hello: ClientHello<'_>) -> Option<Arc<CertifiedKey>> {
        let name = hello.server_name().map(|n| n.to_ascii_lowercase());
        Some(name.and_then(|n| self.by_name.get(&n).cloned()).unwrap_or_else(|| self.default.clone()))
    }
}

/// A server configuration choosing among `certificates` by name, offering HTTP/2 and HTTP/1.1.
pub fn server_config(certificates: SiteCertificates) -> Arc<rustls::ServerConfig> {
    let mut config =
        rustls::ServerConfig::builder_with_provider(Arc::new(rustls::crypto::aws_lc_rs::default_provider()))
            .with_safe_default_protocol_versions()
            .expect("default versions")
            .with_no_client_auth()
            .with_cert_resolver(Arc::new(certificates));
    config.alpn_protocols = vec![b"h2".to_vec(), b"http/1.1".to_vec()];
    Arc::new(config)
}
