//! Local stand-ins for the hosts wrench contacts, for its tests and for contract fuzzing in CI:
//! DNS servers answering from fixtures, fake web sites over HTTP and HTTPS (with a certificate
//! authority of the tests' own), a registry's RDAP and WHOIS services, and a server that counts
//! connections.
//!
//! [`shared`] runs one set on fixed loopback addresses, the ones the documentation's examples
//! name, on a runtime of its own so that it outlives any one test; the `wrench-fakes` binary
//! runs the same set for a wrench server under test. Nothing here listens beyond loopback.

pub mod counting;
pub mod dns;
pub mod geocoder;
pub mod http;
pub mod live;
pub mod npm;
pub mod providers;
pub mod tls;
pub mod whois;

use std::{net::SocketAddr, path::PathBuf, sync::OnceLock};

/// The fixed addresses of the shared set.
pub const DNS: &str = "127.0.0.2:8053";
pub const LAGGING_DNS: &str = "127.0.0.3:8053";
pub const HTTP: &str = "127.0.0.2:8080";
pub const HTTPS: &str = "127.0.0.2:8443";
pub const WHOIS: &str = "127.0.0.2:8043";

/// A running set of fakes.
pub struct Fakes {
    pub dns: dns::DnsServer,
    pub lagging_dns: dns::DnsServer,
    pub http: SocketAddr,
    pub https: SocketAddr,
    pub whois: SocketAddr,
    /// The PEM file of the tests' certificate authority, for `WRENCH_TLS_EXTRA_ROOTS`.
    pub ca_pem: PathBuf,
}

impl Fakes {
    /// The settings that point a wrench instance at these fakes.
    pub fn settings(&self) -> Vec<(String, String)> {
        [
            ("WRENCH_DNS_SERVERS", self.dns.address.to_string()),
            (
                "WRENCH_DNS_PROPAGATION_RESOLVERS",
                format!("primary={},lagging={}", self.dns.address, self.lagging_dns.address),
            ),
            ("WRENCH_OUTBOUND_ALLOW", "127.0.0.2/32".to_string()),
            ("WRENCH_TLS_EXTRA_ROOTS", self.ca_pem.display().to_string()),
            ("WRENCH_RDAP_BOOTSTRAP_URL", format!("http://{}/rdap/bootstrap/", self.http)),
            ("WRENCH_WHOIS_SERVERS", format!("example={0},test={0}", self.whois)),
            ("WRENCH_PROVIDER_OPENPAGERANK_KEY", providers::OPENPAGERANK_KEY.to_string()),
            ("WRENCH_PROVIDER_OPENPAGERANK_URL", format!("http://{}/providers/openpagerank/api/v1.0/", self.http)),
            ("WRENCH_PROVIDER_GREENWEB_URL", format!("http://{}/providers/greenweb/api/v3/greencheck/", self.http)),
            ("WRENCH_PROVIDER_BIN_URL", format!("http://{}/providers/binlist/", self.http)),
            ("WRENCH_PROVIDER_TOREXITS_URL", format!("http://{}/providers/tor/torbulkexitlist", self.http)),
            ("WRENCH_PROVIDER_GEOCODER_URL", format!("http://{}/providers/nominatim/", self.http)),
            ("WRENCH_PROVIDER_HIBP_URL", format!("http://{}/providers/hibp/", self.http)),
            ("WRENCH_PROVIDER_OPENMETEO_URL", format!("http://{}/providers/openmeteo/v1/", self.http)),
            ("WRENCH_PROVIDER_OPENMETEO_AIR_URL", format!("http://{}/providers/openmeteo-air/v1/", self.http)),
            ("WRENCH_PROVIDER_OPENMETEO_ELEVATION_URL", format!("http://{}/providers/openmeteo/v1/", self.http)),
            ("WRENCH_PROVIDER_COINGECKO_URL", format!("http://{}/providers/coingecko/api/v3/", self.http)),
            // Keys lift the free tiers' budgets, which contract fuzzing would spend in seconds;
            // the budgets themselves are tested without keys.
            ("WRENCH_PROVIDER_COINGECKO_KEY", live::COINGECKO_KEY.to_string()),
            ("WRENCH_PROVIDER_AGIFY_KEY", live::NAMES_KEY.to_string()),
            ("WRENCH_PROVIDER_GENDERIZE_KEY", live::NAMES_KEY.to_string()),
            ("WRENCH_PROVIDER_NATIONALIZE_KEY", live::NAMES_KEY.to_string()),
            ("WRENCH_PROVIDER_OPENMETEO_KEY", "fixture-open-meteo-key".to_string()),
            ("WRENCH_PROVIDER_OPENMETEO_AIR_KEY", "fixture-open-meteo-key".to_string()),
            ("WRENCH_PROVIDER_OPENMETEO_ELEVATION_KEY", "fixture-open-meteo-key".to_string()),
            ("WRENCH_PROVIDER_AGIFY_URL", format!("http://{}/providers/agify/", self.http)),
            ("WRENCH_PROVIDER_GENDERIZE_URL", format!("http://{}/providers/genderize/", self.http)),
            ("WRENCH_PROVIDER_NATIONALIZE_URL", format!("http://{}/providers/nationalize/", self.http)),
            ("WRENCH_PROVIDER_NPM_URL", format!("http://{}/providers/npm/", self.http)),
            ("WRENCH_PROVIDER_OPENPHISH_URL", format!("http://{}/providers/openphish/feed.txt", self.http)),
            ("WRENCH_PROVIDER_URLHAUS_URL", format!("http://{}/providers/urlhaus/v1/", self.http)),
            ("WRENCH_PROVIDER_URLHAUS_KEY", live::URLHAUS_KEY.to_string()),
            // The fake has no limit; a high rate keeps tests from waiting on the budget.
            ("WRENCH_PROVIDER_GEOCODER_RATE", "1000".to_string()),
            // The small IP data sets of tests/fixtures/geoip (see make.py there): both city
            // schemas, and the ASN table as CSV ranges.
            (
                "WRENCH_GEOIP_CITY_DB",
                geoip_fixtures(&["city-geoip2.mmdb", "city-flat-ipv4.mmdb", "city-flat-ipv6.mmdb"]),
            ),
            ("WRENCH_GEOIP_ASN_DB", geoip_fixtures(&["asn-ipv4.csv", "asn-ipv6.csv"])),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_string(), v))
        .collect()
    }
}

/// The paths of fixture files in tests/fixtures/geoip, comma-separated.
pub fn geoip_fixtures(names: &[&str]) -> String {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures/geoip");
    names.iter().map(|n| dir.join(n).display().to_string()).collect::<Vec<_>>().join(",")
}

/// Starts the set on the current runtime, on the fixed addresses; the authority's PEM is
/// written to `ca_pem`.
pub async fn start(ca_pem: PathBuf) -> std::io::Result<Fakes> {
    let ca = tls::TestCa::new();
    ca.write_pem(&ca_pem)?;
    let dns = dns::serve(DNS.parse().expect("fixed"), dns::ZONE).await?;
    let lagging_dns = dns::serve(LAGGING_DNS.parse().expect("fixed"), dns::LAGGING_ZONE).await?;
    let http = http::serve_http(HTTP.parse().expect("fixed")).await?;
    let https = http::serve_https(HTTPS.parse().expect("fixed"), tls::server_config(ca.site_certificates())).await?;
    let whois = whois::serve(WHOIS.parse().expect("fixed")).await?;
    Ok(Fakes { dns, lagging_dns, http, https, whois, ca_pem })
}

/// The shared set, started on first use on a runtime of its own.
pub fn shared() -> &'static Fakes {
    static FAKES: OnceLock<Fakes> = OnceLock::new();
    FAKES.get_or_init(|| {
        let dir = std::env::temp_dir().join(format!("wrench-fakes-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("a temporary directory");
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let runtime = tokio::runtime::Builder::new_multi_thread()
                .worker_threads(1)
                .enable_all()
                .build()
                .expect("a runtime for the fakes");
            runtime.block_on(async move {
                let started = start(dir.join("ca.pem")).await;
                let failed = started.is_err();
                let _ = tx.send(started);
                if !failed {
                    std::future::pending::<()>().await;
                }
            });
        });
        match rx.recv().expect("the fakes thread answers") {
            Ok(f) => f,
            Err(e) => panic!(
                "the fakes could not listen on their fixed addresses ({DNS}, {LAGGING_DNS}, {HTTP}, {HTTPS}, {WHOIS}): {e}; \
                 is another test run or a wrench-fakes process using them?"
            ),
        }
    })
}
