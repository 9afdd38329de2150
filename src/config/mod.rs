//! The one typed configuration of the service.
//!
//! Sources, later ones winning: built-in defaults, an optional TOML file (its path in
//! `WRENCH_CONFIG` or `wrench serve --config FILE`), then `WRENCH_*` environment variables.
//! Every setting is validated at start-up with a message that names it, so a typo never
//! becomes a silently ignored setting. The README documents each one; keep the two in step.

use std::{
    net::SocketAddr,
    path::{Path, PathBuf},
    time::Duration,
};

use serde::Deserialize;

pub mod datasets;
pub mod outbound;
pub mod providers;

pub use outbound::OutboundConfig;

/// Requests allowed per window; 0 means no limit for that window.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Quota {
    pub per_minute: u32,
    pub per_day: u32,
}

impl Quota {
    pub const UNLIMITED: Quota = Quota { per_minute: 0, per_day: 0 };

    pub fn is_unlimited(self) -> bool {
        self.per_minute == 0 && self.per_day == 0
    }
}

/// All settings of a running instance.
#[derive(Debug, Clone)]
pub struct Config {
    /// `WRENCH_LISTEN`: address and port to listen on.
    pub listen: SocketAddr,
    /// `WRENCH_API_KEYS`: SHA-256 digests of the accepted API keys.
    pub api_keys: Vec<[u8; 32]>,
    /// `WRENCH_BODY_LIMIT`: largest accepted request body, in bytes.
    pub body_limit: usize,
    /// `WRENCH_LOG`: log filter (`info`, `wrench=debug`, ...).
    pub log: String,
    /// `WRENCH_LOG_FORMAT`: `text` or `json`.
    pub log_format: LogFormat,
    /// `WRENCH_SHUTDOWN_GRACE`: how long in-flight requests may finish after SIGTERM.
    pub shutdown_grace: Duration,
    /// `WRENCH_DATA_DIR`: where the embedded store keeps its file.
    pub data_dir: PathBuf,
    /// `WRENCH_REDIS_URL`: use Redis instead of the embedded store (`redis://`, `rediss://`,
    /// `redis-cluster://`).
    pub redis_url: Option<String>,
    /// `WRENCH_REDIS_PREFIX`: namespace of every key wrench writes to Redis.
    pub redis_prefix: String,
    /// `WRENCH_PUBLIC_URL`: how clients reach this service, for absolute URLs in answers
    /// (no trailing slash). Defaults to `http://` and the listen address.
    pub public_url: String,
    /// `WRENCH_INBOX_MAX_PAYLOADS`: payloads a webhook inbox keeps (the oldest are dropped).
    pub inbox_max_payloads: usize,
    /// `WRENCH_RATE_ANON_PER_MINUTE` / `WRENCH_RATE_ANON_PER_DAY`: anonymous quota per client
    /// IP (0: no limit for that window).
    pub anon_quota: Quota,
    /// `WRENCH_RATE_KEY_PER_MINUTE` / `WRENCH_RATE_KEY_PER_DAY`: quota per API key (default
    /// unlimited).
    pub key_quota: Quota,
    /// `WRENCH_TRUSTED_PROXIES`: addresses or CIDR ranges whose `X-Forwarded-For` is believed.
    pub trusted_proxies: Vec<ipnet::IpNet>,
    /// `WRENCH_RESPONSE_LIMIT`: largest answer, in bytes; larger results are refused with 400
    /// `RESULT_TOO_LARGE` before they are built.
    pub response_limit: usize,
    /// `WRENCH_HEADER_TIMEOUT`: how long a connection may take to send a request's headers,
    /// counted from the connection's first byte or from the end of the previous response.
    pub header_timeout: Duration,
    /// `WRENCH_BODY_TIMEOUT`: how long a request's body may take to arrive.
    pub body_timeout: Duration,
    /// `WRENCH_IDLE_TIMEOUT`: how long a keep-alive connection may sit between requests.
    pub idle_timeout: Duration,
    /// `WRENCH_MAX_CONNECTIONS`: connections served at once; further ones wait in the
    /// listen queue.
    pub max_connections: usize,
    /// `WRENCH_INBOX_RATE_PER_MINUTE`: deliveries one webhook inbox accepts per minute (0: no
    /// limit). Receive URLs do not count against the anonymous per-IP quota.
    pub inbox_rate_per_minute: u32,
    /// The outbound layer: resolvers, reachable targets, fetch bounds (see `outbound.rs`).
    pub outbound: OutboundConfig,
    /// The large data sets given as files (see `datasets.rs`).
    pub datasets: datasets::DatasetsConfig,
    /// `WRENCH_TLS_LISTEN`, `WRENCH_TLS_CERT`, `WRENCH_TLS_KEY`: an HTTPS listener beside the
    /// plain one, serving the same routes (off unless all three are set).
    pub tls: Option<TlsListener>,
    /// `WRENCH_CORS_ORIGINS`: the web origins whose pages may call the API from a browser.
    pub cors: CorsOrigins,
}

/// Which browser origins may call the API (the CORS protocol of the Fetch standard).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub enum CorsOrigins {
    /// None: no CORS headers are sent, so browsers keep pages of other origins out.
    #[default]
    None,
    /// `*`: any origin (for keyless public deployments; credentials are never allowed).
    Any,
    /// These origins exactly (`https://app.example.com`, lower case, no path).
    List(Vec<String>),
}

/// Where the HTTPS listener listens and the PEM files of its certificate chain and key.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TlsListener {
    pub listen: SocketAddr,
    pub cert: PathBuf,
    pub key: PathBuf,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LogFormat {
    Text,
    Json,
}

pub const DEFAULT_BODY_LIMIT: usize = 1024 * 1024;

impl Default for Config {
    fn default() -> Self {
        Config {
            listen: SocketAddr::from(([127, 0, 0, 1], 8080)),
            api_keys: Vec::new(),
            body_limit: DEFAULT_BODY_LIMIT,
            log: "info".to_string(),
            log_format: LogFormat::Text,
            shutdown_grace: Duration::from_secs(10),
            data_dir: PathBuf::from("wrench-data"),
            redis_url: None,
            redis_prefix: "wrench:".to_string(),
            public_url: String::new(),
            inbox_max_payloads: 50,
            anon_quota: Quota { per_minute: 5, per_day: 100 },
            key_quota: Quota::UNLIMITED,
            trusted_proxies: Vec::new(),
            response_limit: crate::bounds::DEFAULT_RESPONSE_LIMIT,
            header_timeout: Duration::from_secs(10),
            body_timeout: Duration::from_secs(30),
            idle_timeout: Duration::from_secs(60),
            max_connections: default_max_connections(),
            inbox_rate_per_minute: 600,
            outbound: OutboundConfig::default(),
            datasets: Default::default(),
            tls: None,
            cors: CorsOrigins::None,
        }
    }
}

/// The TOML file: every key optional, same names as the variables without `WRENCH_`, lower case.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct FileConfig {
    listen: Option<String>,
    tls_listen: Option<String>,
    tls_cert: Option<String>,
    tls_key: Option<String>,
    cors_origins: Option<String>,
    api_keys: Option<Vec<String>>,
    body_limit: Option<toml::Value>,
    log: Option<String>,
    log_format: Option<String>,
    shutdown_grace: Option<u64>,
    data_dir: Option<String>,
    redis_url: Option<String>,
    redis_prefix: Option<String>,
    public_url: Option<String>,
    inbox_max_payloads: Option<usize>,
    rate_anon_per_minute: Option<u32>,
    rate_anon_per_day: Option<u32>,
    rate_key_per_minute: Option<u32>,
    rate_key_per_day: Option<u32>,
    trusted_proxies: Option<Vec<String>>,
    response_limit: Option<toml::Value>,
    header_timeout: Option<u64>,
    body_timeout: Option<u64>,
    idle_timeout: Option<u64>,
    max_connections: Option<usize>,
    inbox_rate_per_minute: Option<u32>,
    dns_servers: Option<toml::Value>,
    dns_propagation_resolvers: Option<toml::Value>,
    outbound_ports: Option<toml::Value>,
    outbound_allow: Option<toml::Value>,
    outbound_redirects: Option<toml::Value>,
    outbound_timeout: Option<toml::Value>,
    outbound_max_bytes: Option<toml::Value>,
    outbound_user_agent: Option<toml::Value>,
    tls_extra_roots: Option<toml::Value>,
    rdap_bootstrap_url: Option<toml::Value>,
    whois_servers: Option<toml::Value>,
    geoip_city_db: Option<toml::Value>,
    geoip_asn_db: Option<toml::Value>,
    dataset_recheck_seconds: Option<toml::Value>,
    /// The `provider_*` keys, taken out of the table before the rest is read (their names
    /// follow the provider list, `providers::PROVIDERS`).
    #[serde(skip)]
    providers: Vec<(String, toml::Value)>,
}

impl FileConfig {
    /// Reads the file's text: `provider_*` keys are set apart, every other key must be one of
    /// the struct's.
    fn parse(text: &str) -> Result<FileConfig, String> {
        let mut table: toml::Table = toml::from_str(text).map_err(|e| e.to_string())?;
        let names: Vec<String> = table.keys().filter(|k| k.starts_with("provider_")).cloned().collect();
        let mut providers = Vec::new();
        for name in names {
            if let Some(v) = table.remove(&name) {
                if !providers::is_key(&format!("WRENCH_{}", name.to_ascii_uppercase())) {
                    return Err(format!("{name}: not a provider setting"));
                }
                providers.push((name, v));
            }
        }
        let mut file: FileConfig = table.try_into().map_err(|e: toml::de::Error| e.to_string())?;
        file.providers = providers;
        Ok(file)
    }

    /// The outbound settings of the file, as (variable name, text in the variable's syntax).
    fn outbound(&self) -> Result<Vec<(String, String)>, String> {
        let values = [
            ("WRENCH_DNS_SERVERS", &self.dns_servers),
            ("WRENCH_DNS_PROPAGATION_RESOLVERS", &self.dns_propagation_resolvers),
            ("WRENCH_OUTBOUND_PORTS", &self.outbound_ports),
            ("WRENCH_OUTBOUND_ALLOW", &self.outbound_allow),
            ("WRENCH_OUTBOUND_REDIRECTS", &self.outbound_redirects),
            ("WRENCH_OUTBOUND_TIMEOUT", &self.outbound_timeout),
            ("WRENCH_OUTBOUND_MAX_BYTES", &self.outbound_max_bytes),
            ("WRENCH_OUTBOUND_USER_AGENT", &self.outbound_user_agent),
            ("WRENCH_TLS_EXTRA_ROOTS", &self.tls_extra_roots),
            ("WRENCH_RDAP_BOOTSTRAP_URL", &self.rdap_bootstrap_url),
            ("WRENCH_WHOIS_SERVERS", &self.whois_servers),
            ("WRENCH_GEOIP_CITY_DB", &self.geoip_city_db),
            ("WRENCH_GEOIP_ASN_DB", &self.geoip_asn_db),
            ("WRENCH_DATASET_RECHECK_SECONDS", &self.dataset_recheck_seconds),
        ];
        let providers: Vec<(String, Option<&toml::Value>)> =
            self.providers.iter().map(|(k, v)| (format!("WRENCH_{}", k.to_ascii_uppercase()), Some(v))).collect();
        let named = values.into_iter().map(|(name, value)| (name.to_string(), value.as_ref()));
        let mut out = Vec::new();
        for (name, value) in named.chain(providers) {
            let key = name.trim_start_matches("WRENCH_").to_ascii_lowercase();
            let text = match value {
                None => continue,
                Some(toml::Value::String(s)) => s.clone(),
                Some(toml::Value::Integer(i)) => i.to_string(),
                Some(toml::Value::Array(items)) => items
                    .iter()
                    .map(|i| {
                        i.as_str().map(str::to_string).ok_or_else(|| format!("{key}: expected strings in the list"))
                    })
                    .collect::<Result<Vec<_>, _>>()?
                    .join(","),
                Some(other) => return Err(format!("{key}: expected a string, a number or a list, got {other}")),
            };
            out.push((name, text));
        }
        Ok(out)
    }
}

impl Config {
    /// The base of absolute URLs in answers: `WRENCH_PUBLIC_URL`, or `http://` + listen address.
    pub fn public_base(&self) -> String {
        if self.public_url.is_empty() { format!("http://{}", self.listen) } else { self.public_url.clone() }
    }

    /// Reads the file (if any) and the environment.
    pub fn load(file: Option<&Path>) -> Result<Config, String> {
        let vars: Vec<(String, String)> = std::env::vars().filter(|(k, _)| k.starts_with("WRENCH_")).collect();
        let from_env = vars.iter().find(|(k, _)| k == "WRENCH_CONFIG").map(|(_, v)| v.clone());
        let file = file.map(Path::to_path_buf).or_else(|| from_env.map(Into::into));
        let file_config = match file {
            Some(path) => {
                let text =
                    std::fs::read_to_string(&path).map_err(|e| format!("config file {}: {e}", path.display()))?;
                FileConfig::parse(&text).map_err(|e| format!("config file {}: {e}", path.display()))?
            }
            None => FileConfig::default(),
        };
        Config::from_parts(file_config, &vars)
    }

    /// Builds a config from variables only (tests use this with their own list).
    pub fn from_vars(vars: &[(String, String)]) -> Result<Config, String> {
        Config::from_parts(FileConfig::default(), vars)
    }

    fn from_parts(file: FileConfig, vars: &[(String, String)]) -> Result<Config, String> {
        let mut c = Config::default();
        for (name, text) in file.outbound()? {
            let name = name.as_str();
            let applied =
                if datasets::KEYS.contains(&name) { c.datasets.set(name, &text) } else { c.outbound.set(name, &text) };
            applied.map_err(|e| e.replacen(name, &name.trim_start_matches("WRENCH_").to_ascii_lowercase(), 1))?;
        }
        if let Some(v) = file.listen {
            c.listen = parse_listen("listen", &v)?;
        }
        // The HTTPS listener's three settings, file first, the environment over it.
        let mut tls = [file.tls_listen, file.tls_cert, file.tls_key];
        if let Some(v) = file.cors_origins {
            c.cors = parse_cors("cors_origins", &v)?;
        }
        if let Some(keys) = file.api_keys {
            c.api_keys = keys.iter().map(|k| parse_digest("api_keys", k)).collect::<Result<_, _>>()?;
        }
        if let Some(v) = file.body_limit {
            c.body_limit = toml_size("body_limit", v)?;
        }
        if let Some(v) = file.response_limit {
            c.response_limit = toml_size("response_limit", v)?;
        }
        for (value, slot) in [
            (file.header_timeout, &mut c.header_timeout),
            (file.body_timeout, &mut c.body_timeout),
            (file.idle_timeout, &mut c.idle_timeout),
        ] {
            if let Some(v) = value {
                *slot = Duration::from_secs(v);
            }
        }
        if let Some(v) = file.max_connections {
            c.max_connections = v;
        }
        if let Some(v) = file.inbox_rate_per_minute {
            c.inbox_rate_per_minute = v;
        }
        if let Some(v) = file.log {
            c.log = v;
        }
        if let Some(v) = file.log_format {
            c.log_format = parse_log_format("log_format", &v)?;
        }
        if let Some(v) = file.shutdown_grace {
            c.shutdown_grace = Duration::from_secs(v);
        }
        if let Some(v) = file.data_dir {
            c.data_dir = v.into();
        }
        if let Some(v) = file.redis_url {
            c.redis_url = Some(v).filter(|s| !s.is_empty());
        }
        if let Some(v) = file.redis_prefix {
            c.redis_prefix = v;
        }
        if let Some(v) = file.public_url {
            c.public_url = v;
        }
        if let Some(v) = file.inbox_max_payloads {
            c.inbox_max_payloads = v;
        }
        if let Some(v) = file.rate_anon_per_minute {
            c.anon_quota.per_minute = v;
        }
        if let Some(v) = file.rate_anon_per_day {
            c.anon_quota.per_day = v;
        }
        if let Some(v) = file.rate_key_per_minute {
            c.key_quota.per_minute = v;
        }
        if let Some(v) = file.rate_key_per_day {
            c.key_quota.per_day = v;
        }
        if let Some(list) = file.trusted_proxies {
            c.trusted_proxies = list.iter().map(|s| parse_net("trusted_proxies", s)).collect::<Result<_, _>>()?;
        }
        for (k, v) in vars {
            if outbound::KEYS.contains(&k.as_str()) || providers::is_key(k) {
                c.outbound.set(k, v)?;
                continue;
            }
            if datasets::KEYS.contains(&k.as_str()) {
                c.datasets.set(k, v)?;
                continue;
            }
            match k.as_str() {
                "WRENCH_LISTEN" => c.listen = parse_listen(k, v)?,
                "WRENCH_CORS_ORIGINS" => c.cors = parse_cors(k, v)?,
                "WRENCH_TLS_LISTEN" => tls[0] = Some(v.clone()),
                "WRENCH_TLS_CERT" => tls[1] = Some(v.clone()),
                "WRENCH_TLS_KEY" => tls[2] = Some(v.clone()),
                "WRENCH_API_KEYS" => {
                    c.api_keys = v
                        .split(',')
                        .map(str::trim)
                        .filter(|s| !s.is_empty())
                        .map(|s| parse_digest(k, s))
                        .collect::<Result<_, _>>()?
                }
                "WRENCH_BODY_LIMIT" => c.body_limit = parse_size(k, v)?,
                "WRENCH_RESPONSE_LIMIT" => c.response_limit = parse_size(k, v)?,
                "WRENCH_HEADER_TIMEOUT" => c.header_timeout = parse_secs(k, v)?,
                "WRENCH_BODY_TIMEOUT" => c.body_timeout = parse_secs(k, v)?,
                "WRENCH_IDLE_TIMEOUT" => c.idle_timeout = parse_secs(k, v)?,
                "WRENCH_MAX_CONNECTIONS" => {
                    c.max_connections =
                        v.trim().parse().map_err(|_| format!("{k}: expected a whole number, got {v:?}"))?
                }
                "WRENCH_INBOX_RATE_PER_MINUTE" => c.inbox_rate_per_minute = parse_count(k, v)?,
                "WRENCH_LOG" => c.log = v.clone(),
                "WRENCH_LOG_FORMAT" => c.log_format = parse_log_format(k, v)?,
                "WRENCH_SHUTDOWN_GRACE" => c.shutdown_grace = parse_secs(k, v)?,
                "WRENCH_DATA_DIR" => c.data_dir = v.into(),
                "WRENCH_REDIS_URL" => c.redis_url = Some(v.clone()).filter(|s| !s.is_empty()),
                "WRENCH_REDIS_PREFIX" => c.redis_prefix = v.clone(),
                "WRENCH_PUBLIC_URL" => c.public_url = v.clone(),
                "WRENCH_RATE_ANON_PER_MINUTE" => c.anon_quota.per_minute = parse_count(k, v)?,
                "WRENCH_RATE_ANON_PER_DAY" => c.anon_quota.per_day = parse_count(k, v)?,
                "WRENCH_RATE_KEY_PER_MINUTE" => c.key_quota.per_minute = parse_count(k, v)?,
                "WRENCH_RATE_KEY_PER_DAY" => c.key_quota.per_day = parse_count(k, v)?,
                "WRENCH_TRUSTED_PROXIES" => {
                    c.trusted_proxies = v
                        .split(',')
                        .map(str::trim)
                        .filter(|s| !s.is_empty())
                        .map(|s| parse_net(k, s))
                        .collect::<Result<_, _>>()?
                }
                "WRENCH_INBOX_MAX_PAYLOADS" => {
                    c.inbox_max_payloads = v.parse().map_err(|_| format!("{k}: expected a whole number, got {v:?}"))?
                }
                _ => {}
            }
        }
        c.tls = tls_listener(tls)?;
        if let Some(url) = &c.redis_url
            && !["redis://", "rediss://", "redis-cluster://", "redis-sentinel://"].iter().any(|p| url.starts_with(p))
        {
            return Err("WRENCH_REDIS_URL: expected a redis://, rediss:// or redis-cluster:// URL".to_string());
        }
        c.public_url = c.public_url.trim_end_matches('/').to_string();
        if c.public_url.is_empty() {
            c.public_url = format!("http://{}", c.listen);
        } else if !(c.public_url.starts_with("http://") || c.public_url.starts_with("https://")) {
            return Err("WRENCH_PUBLIC_URL: expected an http:// or https:// URL".to_string());
        }
        if !(1..=1000).contains(&c.inbox_max_payloads) {
            return Err("inbox max payloads: must be between 1 and 1000".to_string());
        }
        if c.body_limit < 1024 {
            return Err("body limit: must be at least 1024 bytes".to_string());
        }
        // A stored paste (1 MiB of text) or webhook payload (a body of up to the body limit)
        // escapes to at most six times its size in JSON: each must fit in one answer, or it
        // could be stored and never read back.
        let least = 6 * c.body_limit.max(1 << 20) + 128 * 1024;
        if c.response_limit < least {
            return Err(format!(
                "response limit: must be at least {least} bytes (6 times the larger of the body limit and 1 MiB, plus 128 KiB), so that every stored paste and webhook payload can be read back"
            ));
        }
        for (name, t) in [("header", c.header_timeout), ("body", c.body_timeout), ("idle", c.idle_timeout)] {
            if t.is_zero() {
                return Err(format!("{name} timeout: must be at least 1 second"));
            }
        }
        if !(1..=1_000_000).contains(&c.max_connections) {
            return Err("max connections: must be between 1 and 1000000".to_string());
        }
        Ok(c)
    }
}

/// 1024, or fewer when the process may open fewer files: 64 descriptors stay free for the
/// store, logs and data files, so a flood of connections never leaves the server unable to
/// open anything else.
fn default_max_connections() -> usize {
    let soft = std::fs::read_to_string("/proc/self/limits").ok().and_then(|limits| {
        let line = limits.lines().find(|l| l.starts_with("Max open files"))?;
        line.split_whitespace().nth(3)?.parse::<usize>().ok()
    });
    soft.map_or(1024, |n| n.saturating_sub(64).clamp(16, 1024))
}

fn parse_secs(name: &str, v: &str) -> Result<Duration, String> {
    v.trim().parse().map(Duration::from_secs).map_err(|_| format!("{name}: expected whole seconds, got {v:?}"))
}

/// A size in the file: bytes as a number, or text with a unit.
fn toml_size(name: &str, v: toml::Value) -> Result<usize, String> {
    match v {
        toml::Value::Integer(i) => parse_size(name, &i.to_string()),
        toml::Value::String(s) => parse_size(name, &s),
        other => Err(format!("{name}: expected bytes such as 1048576 or \"1MiB\", got {other}")),
    }
}

fn parse_count(name: &str, v: &str) -> Result<u32, String> {
    v.trim().parse().map_err(|_| format!("{name}: expected a whole number (0 for no limit), got {v:?}"))
}

/// An address (`10.0.0.1`) or a range (`10.0.0.0/8`).
fn parse_net(name: &str, v: &str) -> Result<ipnet::IpNet, String> {
    v.parse::<ipnet::IpNet>()
        .or_else(|_| v.parse::<std::net::IpAddr>().map(ipnet::IpNet::from))
        .map_err(|_| format!("{name}: {v:?} is neither an IP address nor a CIDR range"))
}

/// `*`, or comma-separated origins (`scheme://host[:port]`); empty for none.
fn parse_cors(name: &str, v: &str) -> Result<CorsOrigins, String> {
    let v = v.trim();
    if v.is_empty() {
        return Ok(CorsOrigins::None);
    }
    if v == "*" {
        return Ok(CorsOrigins::Any);
    }
    let mut list = Vec::new();
    for origin in v.split(',').map(str::trim).filter(|s| !s.is_empty()) {
        // Stored as browsers send it: lower case, no default port, no trailing slash.
        let serialized = url::Url::parse(origin).ok().filter(|u| {
            matches!(u.scheme(), "http" | "https")
                && u.host().is_some()
                && u.path() == "/"
                && u.query().is_none()
                && u.fragment().is_none()
                && u.username().is_empty()
        });
        match serialized {
            Some(u) => list.push(u.origin().ascii_serialization()),
            None => {
                return Err(format!(
                    "{name}: {origin:?} is not an origin; give scheme, host and port only, such as https://app.example.com or http://localhost:3000, or * for any"
                ));
            }
        }
    }
    Ok(CorsOrigins::List(list))
}

/// The HTTPS listener from its three settings: none when none is set (or the address is
/// empty), else all three are needed. The files are read when the server starts.
fn tls_listener([listen, cert, key]: [Option<String>; 3]) -> Result<Option<TlsListener>, String> {
    let given = |v: Option<String>| v.filter(|s| !s.trim().is_empty());
    match (given(listen), given(cert), given(key)) {
        (None, None, None) => Ok(None),
        (Some(listen), Some(cert), Some(key)) => Ok(Some(TlsListener {
            listen: parse_listen("WRENCH_TLS_LISTEN", &listen)?,
            cert: cert.into(),
            key: key.into(),
        })),
        (None, ..) => {
            Err("WRENCH_TLS_CERT / WRENCH_TLS_KEY: set WRENCH_TLS_LISTEN too, or neither (the HTTPS listener needs an address)".to_string())
        }
        _ => Err("WRENCH_TLS_LISTEN: the HTTPS listener needs both WRENCH_TLS_CERT (PEM certificate chain) and WRENCH_TLS_KEY (PEM private key)".to_string()),
    }
}

fn parse_listen(name: &str, v: &str) -> Result<SocketAddr, String> {
    v.parse().map_err(|_| format!("{name}: expected an address such as 127.0.0.1:8080, got {v:?}"))
}

fn parse_digest(name: &str, v: &str) -> Result<[u8; 32], String> {
    let mut out = [0u8; 32];
    hex::decode_to_slice(v.trim(), &mut out)
        .map_err(|_| format!("{name}: each entry is the 64-hex-digit SHA-256 of a key (see `wrench keys new`)"))?;
    Ok(out)
}

fn parse_log_format(name: &str, v: &str) -> Result<LogFormat, String> {
    match v {
        "text" => Ok(LogFormat::Text),
        "json" => Ok(LogFormat::Json),
        _ => Err(format!("{name}: expected text or json, got {v:?}")),
    }
}

/// Bytes, optionally with a binary suffix: `1048576`, `512KiB`, `1MiB` (K/M also accepted).
pub fn parse_size(name: &str, v: &str) -> Result<usize, String> {
    let v = v.trim();
    let split = v.find(|c: char| !c.is_ascii_digit()).unwrap_or(v.len());
    let (num, unit) = v.split_at(split);
    let n: usize = num.parse().map_err(|_| format!("{name}: expected a size such as 1048576 or 1MiB, got {v:?}"))?;
    let mult = match unit.trim() {
        "" | "B" => 1,
        "K" | "KiB" | "k" => 1024,
        "M" | "MiB" => 1024 * 1024,
        _ => return Err(format!("{name}: unknown unit {unit:?}; use B, KiB or MiB")),
    };
    n.checked_mul(mult).ok_or_else(|| format!("{name}: {v:?} is too large"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vars(list: &[(&str, &str)]) -> Vec<(String, String)> {
        list.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect()
    }

    #[test]
    fn defaults_and_overrides() {
        let c = Config::from_vars(&[]).unwrap();
        assert_eq!(c.listen.to_string(), "127.0.0.1:8080");
        assert_eq!(c.body_limit, 1 << 20);
        let c = Config::from_vars(&vars(&[
            ("WRENCH_BODY_LIMIT", "2MiB"),
            ("WRENCH_RESPONSE_LIMIT", "13MiB"),
            ("WRENCH_LISTEN", "0.0.0.0:9000"),
        ]))
        .unwrap();
        assert_eq!((c.body_limit, c.listen.port()), (2 << 20, 9000));
    }

    #[test]
    fn rate_limits_and_proxies() {
        let c = Config::from_vars(&[]).unwrap();
        assert_eq!((c.anon_quota.per_minute, c.anon_quota.per_day), (5, 100));
        assert_eq!(c.key_quota, Quota::UNLIMITED);
        let c = Config::from_vars(&vars(&[
            ("WRENCH_RATE_ANON_PER_MINUTE", "0"),
            ("WRENCH_RATE_KEY_PER_DAY", "1000"),
            ("WRENCH_TRUSTED_PROXIES", "10.0.0.0/8, 192.0.2.1,::1"),
        ]))
        .unwrap();
        assert_eq!((c.anon_quota.per_minute, c.key_quota.per_day), (0, 1000));
        assert_eq!(c.trusted_proxies.len(), 3);
        assert!(Config::from_vars(&vars(&[("WRENCH_TRUSTED_PROXIES", "proxy.local")])).is_err());
    }

    #[test]
    fn bad_values_name_the_setting() {
        let e = Config::from_vars(&vars(&[("WRENCH_API_KEYS", "nothex")])).unwrap_err();
        assert!(e.starts_with("WRENCH_API_KEYS"), "{e}");
        let e = Config::from_vars(&vars(&[("WRENCH_BODY_LIMIT", "1GB")])).unwrap_err();
        assert!(e.contains("unit"), "{e}");
        // Stored data must stay readable: the answer limit follows the body limit.
        let e = Config::from_vars(&vars(&[("WRENCH_BODY_LIMIT", "2MiB")])).unwrap_err();
        assert!(e.starts_with("response limit"), "{e}");
        let c = Config::from_vars(&vars(&[("WRENCH_BODY_LIMIT", "2MiB"), ("WRENCH_RESPONSE_LIMIT", "13MiB")])).unwrap();
        assert_eq!(c.response_limit, 13 << 20);
        assert!(Config::from_vars(&vars(&[("WRENCH_RESPONSE_LIMIT", "1MiB")])).is_err());
    }

    #[test]
    fn outbound_settings_from_file_and_environment() {
        let file: FileConfig = toml::from_str(
            "outbound_ports = [\"80\", \"8000-8100\"]\noutbound_redirects = 3\ndns_servers = \"system\"",
        )
        .unwrap();
        let c = Config::from_parts(file, &vars(&[("WRENCH_OUTBOUND_REDIRECTS", "2")])).unwrap();
        assert!(c.outbound.ports.contains(8050) && !c.outbound.ports.contains(443));
        assert_eq!((c.outbound.redirects, &c.outbound.dns_servers), (2, &outbound::DnsServers::System));
        // Provider keys follow the provider list; one not on it is refused by name.
        let file =
            FileConfig::parse("provider_hibp_url = \"off\"\nprovider_npm_url = \"https://registry.site.example\"")
                .unwrap();
        let c = Config::from_parts(file, &[]).unwrap();
        assert!(c.outbound.providers.url("HIBP").is_none());
        assert_eq!(c.outbound.providers.url("NPM").unwrap().as_str(), "https://registry.site.example/");
        assert!(FileConfig::parse("provider_nope_url = \"x\"").unwrap_err().contains("provider_nope_url"));
        let file: FileConfig = toml::from_str("outbound_timeout = 0").unwrap();
        let e = Config::from_parts(file, &[]).unwrap_err();
        assert!(e.starts_with("outbound_timeout"), "{e}");
    }

    #[test]
    fn cors_origins() {
        assert_eq!(Config::from_vars(&[]).unwrap().cors, CorsOrigins::None);
        let c = Config::from_vars(&vars(&[("WRENCH_CORS_ORIGINS", "*")])).unwrap();
        assert_eq!(c.cors, CorsOrigins::Any);
        let c =
            Config::from_vars(&vars(&[("WRENCH_CORS_ORIGINS", "https://App.example.com:443/, http://localhost:3000")]))
                .unwrap();
        assert_eq!(c.cors, CorsOrigins::List(vec!["https://app.example.com".into(), "http://localhost:3000".into()]));
        for bad in [
            "https://app.example.com/path",
            "app.example.com",
            "ftp://x.example",
            "https://u@x.example",
            "https://x.example?q",
        ] {
            let e = Config::from_vars(&vars(&[("WRENCH_CORS_ORIGINS", bad)])).unwrap_err();
            assert!(e.starts_with("WRENCH_CORS_ORIGINS"), "{bad}: {e}");
        }
    }

    #[test]
    fn https_listener_needs_all_three_settings() {
        assert_eq!(Config::from_vars(&[]).unwrap().tls, None);
        let all = [("WRENCH_TLS_LISTEN", "127.0.0.1:8443"), ("WRENCH_TLS_CERT", "c.pem"), ("WRENCH_TLS_KEY", "k.pem")];
        let c = Config::from_vars(&vars(&all)).unwrap();
        let tls = c.tls.unwrap();
        assert_eq!((tls.listen.port(), tls.cert.to_str(), tls.key.to_str()), (8443, Some("c.pem"), Some("k.pem")));
        let e = Config::from_vars(&vars(&all[..2])).unwrap_err();
        assert!(e.contains("WRENCH_TLS_KEY"), "{e}");
        let e = Config::from_vars(&vars(&all[1..])).unwrap_err();
        assert!(e.contains("set WRENCH_TLS_LISTEN"), "{e}");
        let e = Config::from_vars(&vars(&[all[0], all[1], all[2], ("WRENCH_TLS_LISTEN", "8443")])).unwrap_err();
        assert!(e.starts_with("WRENCH_TLS_LISTEN"), "{e}");
        // The file's keys, with an empty address in the environment turning the listener off.
        let file: FileConfig =
            toml::from_str("tls_listen = \"127.0.0.1:8443\"\ntls_cert = \"c.pem\"\ntls_key = \"k.pem\"").unwrap();
        let c = Config::from_parts(
            file,
            &vars(&[("WRENCH_TLS_LISTEN", ""), ("WRENCH_TLS_CERT", ""), ("WRENCH_TLS_KEY", "")]),
        );
        assert_eq!(c.unwrap().tls, None);
    }

    #[test]
    fn toml_file_is_read_and_env_wins() {
        let file: FileConfig = toml::from_str("listen = \"127.0.0.1:9001\"\nbody_limit = \"64KiB\"").unwrap();
        let c = Config::from_parts(file, &vars(&[("WRENCH_LISTEN", "127.0.0.1:9002")])).unwrap();
        assert_eq!((c.listen.port(), c.body_limit), (9002, 64 * 1024));
        assert!(toml::from_str::<FileConfig>("listn = \"x\"").is_err());
    }
}
