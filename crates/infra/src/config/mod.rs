//! The one typed configuration of the service.
//!
//! Every setting is a field of [`Config`], [`OutboundConfig`], [`DatasetsConfig`],
//! [`RecipeConfig`] or the provider list ([`providers`]), declared once: its doc comment says
//! what it does, the struct's `Default` gives its default, and its `deserialize_with` parser
//! validates it with a message. The file key is the field's name and the variable is `WRENCH_` and that name in
//! upper case. Sources, later ones winning: the defaults, an optional TOML file (its path in
//! `WRENCH_CONFIG` or `--config FILE`), then the `WRENCH_*` variables; both are read by the
//! same code (`read.rs`). A key no struct declares stops the start naming the closest
//! setting. The README's settings table is checked against these structs by a test.

use std::{
    net::SocketAddr,
    path::{Path, PathBuf},
    time::Duration,
};

use serde::Deserialize;

pub mod datasets;
pub mod outbound;
pub mod providers;
pub(crate) mod read;
pub mod recipes;

pub use datasets::DatasetsConfig;
pub use outbound::OutboundConfig;
use read::parser;
pub use recipes::RecipeConfig;

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

/// All settings of a running instance. The fields without `#[serde(skip)]` are the settings;
/// the others are built from them once read ([`Config::load`]).
#[derive(Debug, Clone, Deserialize)]
#[serde(default)]
pub struct Config {
    /// Address and port to listen on.
    #[serde(deserialize_with = "listen")]
    pub listen: SocketAddr,
    /// SHA-256 digests (hex) of the accepted API keys, comma-separated; see `wrench keys new`.
    #[serde(deserialize_with = "digests")]
    pub api_keys: Vec<[u8; 32]>,
    /// Largest accepted request body (`1048576`, `512KiB`, `1MiB`).
    #[serde(deserialize_with = "size")]
    pub body_limit: usize,
    /// Largest answer; larger results are refused with 400 `RESULT_TOO_LARGE` before they are
    /// built. At least 6 times the larger of the body limit and 1 MiB, plus 128 KiB.
    #[serde(deserialize_with = "size")]
    pub response_limit: usize,
    /// Log filter (`info`, `warn`, `wrench=debug`, ...).
    #[serde(deserialize_with = "read::text")]
    pub log: String,
    /// Log format: `text` or `json`.
    #[serde(deserialize_with = "log_format")]
    pub log_format: LogFormat,
    /// Seconds in-flight requests may take to finish after SIGTERM.
    #[serde(deserialize_with = "seconds")]
    pub shutdown_grace: Duration,
    /// Where the embedded store keeps its file.
    #[serde(deserialize_with = "path")]
    pub data_dir: PathBuf,
    /// Most memory the embedded store keeps of its file as a page cache (`32MiB`), at least
    /// 1 MiB; the rest of the file is read from disk when needed.
    #[serde(deserialize_with = "store_cache")]
    pub store_cache: usize,
    /// Use Redis instead of the embedded store (`redis://`, `rediss://`, `redis-cluster://`,
    /// `redis-sentinel://`); empty for the embedded store.
    #[serde(deserialize_with = "redis_url")]
    pub redis_url: Option<String>,
    /// Namespace of every key wrench writes to Redis.
    #[serde(deserialize_with = "read::text")]
    pub redis_prefix: String,
    /// How clients reach this service, for absolute URLs in answers; `http://` and the listen
    /// address when empty.
    #[serde(deserialize_with = "public_url")]
    pub public_url: String,
    /// A short base for short links (`https://go.example.com/`): `shortUrl` and QR codes
    /// become the base and the slug, and the server redirects `GET {base path}{slug}` as it
    /// redirects `/v1/short-url/r/{slug}`. Empty: the links are under `/v1/short-url/r/`.
    #[serde(deserialize_with = "short_url_base")]
    pub short_url_base: Option<String>,
    /// Most payloads one webhook inbox may keep, 1 to 10000: the largest `maxPayloads` a
    /// creator may ask for (each inbox keeps 50 unless it asks, the oldest dropped first).
    #[serde(deserialize_with = "inbox_payloads")]
    pub inbox_max_payloads: usize,
    /// Longest life a webhook inbox may ask for (`ttlSeconds`); each lives 24 hours unless it asks.
    #[serde(deserialize_with = "seconds")]
    pub inbox_max_ttl: Duration,
    /// Most bytes of payloads one webhook inbox keeps; past it the oldest are dropped (the
    /// newest always stays).
    #[serde(deserialize_with = "size")]
    pub inbox_max_bytes: usize,
    /// Deliveries one webhook inbox accepts per minute (0: no limit). Receive URLs do not count
    /// against the anonymous quota.
    #[serde(deserialize_with = "count")]
    pub inbox_rate_per_minute: u32,
    /// Requests an anonymous client IP may make per minute (0: no limit).
    #[serde(deserialize_with = "count")]
    pub rate_anon_per_minute: u32,
    /// Requests an anonymous client IP may make per UTC day (0: no limit).
    #[serde(deserialize_with = "count")]
    pub rate_anon_per_day: u32,
    /// Requests one API key may make per minute (0: no limit).
    #[serde(deserialize_with = "count")]
    pub rate_key_per_minute: u32,
    /// Requests one API key may make per UTC day (0: no limit).
    #[serde(deserialize_with = "count")]
    pub rate_key_per_day: u32,
    /// Addresses or CIDR ranges whose `X-Forwarded-For` is believed, comma-separated.
    #[serde(deserialize_with = "nets")]
    pub trusted_proxies: Vec<ipnet::IpNet>,
    /// Seconds a connection may take to send a request's headers, from its first byte or the
    /// end of the previous response.
    #[serde(deserialize_with = "seconds")]
    pub header_timeout: Duration,
    /// Seconds a request's body may take to arrive.
    #[serde(deserialize_with = "seconds")]
    pub body_timeout: Duration,
    /// Seconds a keep-alive connection may sit between requests.
    #[serde(deserialize_with = "seconds")]
    pub idle_timeout: Duration,
    /// Connections served at once (1 to 1,000,000); further ones wait in the listen queue.
    /// By default 1024, or 64 fewer than the open-file limit when that is lower.
    #[serde(deserialize_with = "connections")]
    pub max_connections: usize,
    /// The address of an HTTPS listener beside the plain one, serving the same routes (with
    /// `tls_cert` and `tls_key`; off when empty).
    #[serde(deserialize_with = "optional_text")]
    pub tls_listen: Option<String>,
    /// The HTTPS listener's certificate chain, a PEM file.
    #[serde(deserialize_with = "optional_text")]
    pub tls_cert: Option<String>,
    /// The HTTPS listener's private key, a PEM file.
    #[serde(deserialize_with = "optional_text")]
    pub tls_key: Option<String>,
    /// The web origins whose pages may call the API from a browser: `*`, or comma-separated
    /// origins (`https://app.example.com`); none when empty.
    #[serde(rename = "cors_origins", deserialize_with = "cors")]
    pub cors: CorsOrigins,
    /// The anonymous quota, from `rate_anon_per_minute` and `rate_anon_per_day`.
    #[serde(skip)]
    pub anon_quota: Quota,
    /// The keyed quota, from `rate_key_per_minute` and `rate_key_per_day`.
    #[serde(skip)]
    pub key_quota: Quota,
    /// The HTTPS listener, from `tls_listen`, `tls_cert` and `tls_key`.
    #[serde(skip)]
    pub tls: Option<TlsListener>,
    /// The outbound layer: resolvers, reachable targets, fetch bounds, providers.
    #[serde(skip)]
    pub outbound: OutboundConfig,
    /// The large data sets given as files.
    #[serde(skip)]
    pub datasets: DatasetsConfig,
    /// The bounds of recipes.
    #[serde(skip)]
    pub recipes: RecipeConfig,
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
/// The embedded store's page cache unless set: with the server's own memory (BENCHMARKS.md,
/// "Faults and a long soak") it keeps a busy instance under the 256 MiB the deployment files
/// give a container.
pub const DEFAULT_STORE_CACHE: usize = 32 << 20;

impl Default for Config {
    fn default() -> Self {
        let (anon, key) = (Quota { per_minute: 5, per_day: 100 }, Quota::UNLIMITED);
        Config {
            listen: SocketAddr::from(([127, 0, 0, 1], 8080)),
            api_keys: Vec::new(),
            body_limit: DEFAULT_BODY_LIMIT,
            response_limit: crate::bounds::DEFAULT_RESPONSE_LIMIT,
            log: "info".to_string(),
            log_format: LogFormat::Text,
            shutdown_grace: Duration::from_secs(10),
            data_dir: PathBuf::from("wrench-data"),
            store_cache: DEFAULT_STORE_CACHE,
            redis_url: None,
            redis_prefix: "wrench:".to_string(),
            public_url: String::new(),
            short_url_base: None,
            inbox_max_payloads: 1000,
            inbox_max_ttl: Duration::from_secs(7 * 24 * 3600),
            inbox_max_bytes: 64 << 20,
            inbox_rate_per_minute: 600,
            rate_anon_per_minute: anon.per_minute,
            rate_anon_per_day: anon.per_day,
            rate_key_per_minute: key.per_minute,
            rate_key_per_day: key.per_day,
            trusted_proxies: Vec::new(),
            header_timeout: Duration::from_secs(10),
            body_timeout: Duration::from_secs(30),
            idle_timeout: Duration::from_secs(60),
            max_connections: default_max_connections(),
            tls_listen: None,
            tls_cert: None,
            tls_key: None,
            cors: CorsOrigins::None,
            anon_quota: anon,
            key_quota: key,
            tls: None,
            outbound: OutboundConfig::default(),
            datasets: DatasetsConfig::default(),
            recipes: RecipeConfig::default(),
        }
    }
}

impl Config {
    /// The base of absolute URLs in answers: `public_url`, or `http://` + listen address.
    pub fn public_base(&self) -> String {
        if self.public_url.is_empty() { format!("http://{}", self.listen) } else { self.public_url.clone() }
    }

    /// The path under which short links redirect by their slug alone (`/` for
    /// `https://go.example.com/`), when `short_url_base` is set.
    pub fn short_url_path(&self) -> Option<&str> {
        let base = self.short_url_base.as_deref()?;
        let after_scheme = base.split_once("://").map_or(base, |(_, rest)| rest);
        after_scheme.find('/').map(|i| &after_scheme[i..])
    }

    /// Reads the file (`file`, else `WRENCH_CONFIG`, else none) and the environment.
    pub fn load(file: Option<&Path>) -> Result<Config, String> {
        let vars: Vec<(String, String)> = std::env::vars().filter(|(k, _)| k.starts_with("WRENCH_")).collect();
        let from_env = vars.iter().find(|(k, _)| k == "WRENCH_CONFIG").map(|(_, v)| PathBuf::from(v));
        let path = file.map(Path::to_path_buf).or(from_env);
        let text = match &path {
            Some(p) => Some(std::fs::read_to_string(p).map_err(|e| format!("config file {}: {e}", p.display()))?),
            None => None,
        };
        let shown = path.as_ref().map(|p| p.display().to_string()).unwrap_or_default();
        Config::from_sources(text.as_deref().map(|t| (shown.as_str(), t)), &vars)
    }

    /// Every setting's variable name: the fields of [`Config`], [`OutboundConfig`],
    /// [`DatasetsConfig`] and [`RecipeConfig`], then the provider settings. The README's tables
    /// list the same.
    pub fn variable_names() -> Vec<String> {
        Config::setting_keys().iter().map(|k| read::env_name(k)).collect()
    }

    /// Every setting's file key, the provider settings included: the names an unknown one is
    /// compared with.
    fn setting_keys() -> Vec<String> {
        let providers = providers::keys().into_iter().map(|n| n.trim_start_matches("WRENCH_").to_ascii_lowercase());
        Config::keys().into_iter().map(str::to_string).chain(providers).collect()
    }

    /// The file keys of the settings the structs declare (the provider keys aside).
    fn keys() -> Vec<&'static str> {
        read::field_names::<Config>()
            .iter()
            .chain(read::field_names::<OutboundConfig>())
            .chain(read::field_names::<DatasetsConfig>())
            .chain(read::field_names::<RecipeConfig>())
            .copied()
            .collect()
    }

    /// Builds a config from variables only (tests use this with their own list).
    pub fn from_vars(vars: &[(String, String)]) -> Result<Config, String> {
        Config::from_sources(None, vars)
    }

    /// Builds a config from a file's text (with the path to name it by) and variables.
    pub fn from_sources(file: Option<(&str, &str)>, vars: &[(String, String)]) -> Result<Config, String> {
        let mut values = read::gather(file, vars)?;
        let allow_unknown = vars.iter().any(|(k, v)| k == "WRENCH_ALLOW_UNKNOWN" && v == "1");
        // Provider settings follow the provider list; they are read apart.
        let provider_keys: Vec<String> =
            values.keys().filter(|k| providers::is_key(&read::env_name(k))).cloned().collect();
        let provider_values: Vec<(String, read::Given)> =
            provider_keys.iter().filter_map(|k| values.remove_entry(k)).collect();
        let known = Config::keys();
        let unknown: Vec<String> = values.keys().filter(|k| !known.contains(&k.as_str())).cloned().collect();
        for key in unknown {
            let given = values.remove(&key).expect("listed above");
            if allow_unknown {
                continue;
            }
            let all = Config::setting_keys();
            let hint = match read::closest(&key, all.iter().map(String::as_str)) {
                Some(k) => format!("; did you mean {}?", read::display(k, &given.origin)),
                None => String::new(),
            };
            return Err(format!(
                "{}: unknown setting{hint} (WRENCH_ALLOW_UNKNOWN=1 ignores unknown WRENCH_* variables)",
                read::display(&key, &given.origin)
            ));
        }
        let mut c: Config = read::read(&values)?;
        c.outbound = read::read(&values)?;
        c.datasets = read::read(&values)?;
        c.recipes = read::read(&values)?;
        for (key, given) in provider_values {
            let named = |e: String| format!("{}: {e}", read::display(&key, &given.origin));
            let text: String = read::text(given.value.clone()).map_err(|e: toml::de::Error| named(e.to_string()))?;
            c.outbound.providers.set(&read::env_name(&key), &text).map_err(named)?;
        }
        c.finish()?;
        Ok(c)
    }

    /// Builds what several settings make together, and checks what no single one can.
    fn finish(&mut self) -> Result<(), String> {
        self.anon_quota = Quota { per_minute: self.rate_anon_per_minute, per_day: self.rate_anon_per_day };
        self.key_quota = Quota { per_minute: self.rate_key_per_minute, per_day: self.rate_key_per_day };
        self.tls = tls_listener([self.tls_listen.clone(), self.tls_cert.clone(), self.tls_key.clone()])?;
        if self.public_url.is_empty() {
            self.public_url = format!("http://{}", self.listen);
        }
        // A stored paste (1 MiB of text) or webhook payload (a body of up to the body limit)
        // escapes to at most six times its size in JSON: each must fit in one answer, or it
        // could be stored and never read back.
        let least = 6 * self.body_limit.max(1 << 20) + 128 * 1024;
        if self.response_limit < least {
            return Err(format!(
                "WRENCH_RESPONSE_LIMIT: must be at least {least} bytes (6 times the larger of WRENCH_BODY_LIMIT and 1 MiB, plus 128 KiB), so that every stored paste and webhook payload can be read back"
            ));
        }
        Ok(())
    }
}

parser!(listen -> SocketAddr = parse_listen);
parser!(size -> usize = |v| {
    let n = parse_size(v)?;
    if n < 1024 { Err("must be at least 1024 bytes".to_string()) } else { Ok(n) }
});
parser!(seconds -> Duration = |v| match v.trim().parse::<u64>() {
    Ok(0) => Err("must be at least 1 second".to_string()),
    Ok(n) => Ok(Duration::from_secs(n)),
    Err(_) => Err(format!("expected whole seconds, got {v:?}")),
});
parser!(count -> u32 = |v| v.trim().parse().map_err(|_| format!("expected a whole number (0 for no limit), got {v:?}")));
parser!(inbox_payloads -> usize = |v| {
    v.trim().parse().ok().filter(|n| (1..=10_000).contains(n)).ok_or_else(|| format!("expected 1 to 10000, got {v:?}"))
});
parser!(connections -> usize = |v| {
    v.trim()
        .parse()
        .ok()
        .filter(|n| (1..=1_000_000).contains(n))
        .ok_or_else(|| format!("expected a whole number from 1 to 1000000, got {v:?}"))
});
parser!(path -> PathBuf = |v| Ok(PathBuf::from(v)));
parser!(optional_text -> Option<String> = |v| Ok(Some(v.trim().to_string()).filter(|s| !s.is_empty())));
parser!(redis_url -> Option<String> = |v| {
    let v = v.trim();
    if v.is_empty() {
        return Ok(None);
    }
    if ["redis://", "rediss://", "redis-cluster://", "redis-sentinel://"].iter().any(|p| v.starts_with(p)) {
        Ok(Some(v.to_string()))
    } else {
        Err("expected a redis://, rediss://, redis-cluster:// or redis-sentinel:// URL".to_string())
    }
});
parser!(public_url -> String = |v| {
    let v = v.trim().trim_end_matches('/');
    if v.is_empty() || v.starts_with("http://") || v.starts_with("https://") {
        Ok(v.to_string())
    } else {
        Err("expected an http:// or https:// URL".to_string())
    }
});
parser!(store_cache -> usize = |v| {
    let n = parse_size(v)?;
    if n < 1 << 20 { Err("must be at least 1MiB".to_string()) } else { Ok(n) }
});
parser!(short_url_base -> Option<String> = parse_short_url_base);
parser!(digests -> Vec<[u8; 32]> = |v| list(v).map(parse_digest).collect());
parser!(nets -> Vec<ipnet::IpNet> = |v| list(v).map(parse_net).collect());
parser!(cors -> CorsOrigins = parse_cors);
parser!(log_format -> LogFormat = |v| match v.trim() {
    "text" => Ok(LogFormat::Text),
    "json" => Ok(LogFormat::Json),
    _ => Err(format!("expected text or json, got {v:?}")),
});

/// The items of a comma-separated list, trimmed, empty ones skipped.
pub(crate) fn list(value: &str) -> impl Iterator<Item = &str> {
    value.split(',').map(str::trim).filter(|s| !s.is_empty())
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

/// An absolute http(s) URL without credentials, query or fragment, its path ending in `/`
/// (added when missing); empty for none.
fn parse_short_url_base(v: &str) -> Result<Option<String>, String> {
    let v = v.trim();
    if v.is_empty() {
        return Ok(None);
    }
    let u = url::Url::parse(v).map_err(|e| format!("expected an absolute http:// or https:// URL ({e})"))?;
    if !matches!(u.scheme(), "http" | "https") || u.host_str().is_none_or(str::is_empty) {
        return Err("expected an absolute http:// or https:// URL with a host".into());
    }
    if !u.username().is_empty() || u.password().is_some() || u.query().is_some() || u.fragment().is_some() {
        return Err("expected a URL without user name, password, query or fragment".into());
    }
    let mut base = u.to_string();
    if !base.ends_with('/') {
        base.push('/');
    }
    Ok(Some(base))
}

/// An address (`10.0.0.1`) or a range (`10.0.0.0/8`).
fn parse_net(v: &str) -> Result<ipnet::IpNet, String> {
    v.parse::<ipnet::IpNet>()
        .or_else(|_| v.parse::<std::net::IpAddr>().map(ipnet::IpNet::from))
        .map_err(|_| format!("{v:?} is neither an IP address nor a CIDR range"))
}

/// `*`, or comma-separated origins (`scheme://host[:port]`); empty for none.
fn parse_cors(v: &str) -> Result<CorsOrigins, String> {
    let v = v.trim();
    if v.is_empty() {
        return Ok(CorsOrigins::None);
    }
    if v == "*" {
        return Ok(CorsOrigins::Any);
    }
    let mut out = Vec::new();
    for origin in list(v) {
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
            Some(u) => out.push(u.origin().ascii_serialization()),
            None => {
                return Err(format!(
                    "{origin:?} is not an origin; give scheme, host and port only, such as https://app.example.com or http://localhost:3000, or * for any"
                ));
            }
        }
    }
    Ok(CorsOrigins::List(out))
}

/// The HTTPS listener from its three settings: none when none is set, else all three are
/// needed. The files are read when the server starts.
fn tls_listener([listen, cert, key]: [Option<String>; 3]) -> Result<Option<TlsListener>, String> {
    match (listen, cert, key) {
        (None, None, None) => Ok(None),
        (Some(listen), Some(cert), Some(key)) => Ok(Some(TlsListener {
            listen: parse_listen(&listen).map_err(|e| format!("WRENCH_TLS_LISTEN: {e}"))?,
            cert: cert.into(),
            key: key.into(),
        })),
        (None, ..) => {
            Err("WRENCH_TLS_CERT / WRENCH_TLS_KEY: set WRENCH_TLS_LISTEN too, or neither (the HTTPS listener needs an address)".to_string())
        }
        _ => Err("WRENCH_TLS_LISTEN: the HTTPS listener needs both WRENCH_TLS_CERT (PEM certificate chain) and WRENCH_TLS_KEY (PEM private key)".to_string()),
    }
}

fn parse_listen(v: &str) -> Result<SocketAddr, String> {
    v.trim().parse().map_err(|_| format!("expected an address such as 127.0.0.1:8080, got {v:?}"))
}

fn parse_digest(v: &str) -> Result<[u8; 32], String> {
    let mut out = [0u8; 32];
    hex::decode_to_slice(v.trim(), &mut out)
        .map_err(|_| "each entry is the 64-hex-digit SHA-256 of a key (see `wrench keys new`)".to_string())?;
    Ok(out)
}

/// Bytes, optionally with a binary suffix: `1048576`, `512KiB`, `1MiB` (K/M also accepted).
pub fn parse_size(v: &str) -> Result<usize, String> {
    let v = v.trim();
    let split = v.find(|c: char| !c.is_ascii_digit()).unwrap_or(v.len());
    let (num, unit) = v.split_at(split);
    let n: usize = num.parse().map_err(|_| format!("expected a size such as 1048576 or 1MiB, got {v:?}"))?;
    let mult = match unit.trim() {
        "" | "B" => 1,
        "K" | "KiB" | "k" => 1024,
        "M" | "MiB" => 1024 * 1024,
        _ => return Err(format!("unknown unit {unit:?}; use B, KiB or MiB")),
    };
    n.checked_mul(mult).ok_or_else(|| format!("{v:?} is too large"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vars(list: &[(&str, &str)]) -> Vec<(String, String)> {
        list.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect()
    }

    fn file(text: &str, list: &[(&str, &str)]) -> Result<Config, String> {
        Config::from_sources(Some(("wrench.toml", text)), &vars(list))
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
        assert!(e.starts_with("WRENCH_API_KEYS: "), "{e}");
        let e = Config::from_vars(&vars(&[("WRENCH_BODY_LIMIT", "1GB")])).unwrap_err();
        assert!(e.starts_with("WRENCH_BODY_LIMIT: ") && e.contains("unit"), "{e}");
        // Stored data must stay readable: the answer limit follows the body limit.
        let e = Config::from_vars(&vars(&[("WRENCH_BODY_LIMIT", "2MiB")])).unwrap_err();
        assert!(e.starts_with("WRENCH_RESPONSE_LIMIT"), "{e}");
        let c = Config::from_vars(&vars(&[("WRENCH_BODY_LIMIT", "2MiB"), ("WRENCH_RESPONSE_LIMIT", "13MiB")])).unwrap();
        assert_eq!(c.response_limit, 13 << 20);
        assert!(Config::from_vars(&vars(&[("WRENCH_RESPONSE_LIMIT", "1MiB")])).is_err());
        for (k, v) in [
            ("WRENCH_INBOX_MAX_PAYLOADS", "0"),
            ("WRENCH_MAX_CONNECTIONS", "0"),
            ("WRENCH_HEADER_TIMEOUT", "0"),
            ("WRENCH_REDIS_URL", "http://x"),
            ("WRENCH_PUBLIC_URL", "example.com"),
            ("WRENCH_LOG_FORMAT", "yaml"),
            ("WRENCH_LISTEN", "8080"),
        ] {
            let e = Config::from_vars(&vars(&[(k, v)])).unwrap_err();
            assert!(e.starts_with(&format!("{k}: ")), "{k}={v:?}: {e}");
        }
    }

    #[test]
    fn a_misspelt_setting_stops_the_start_naming_the_right_one() {
        let e = Config::from_vars(&vars(&[("WRENCH_LISTN", "127.0.0.1:9000")])).unwrap_err();
        assert!(e.starts_with("WRENCH_LISTN: unknown setting; did you mean WRENCH_LISTEN?"), "{e}");
        let e = Config::from_vars(&vars(&[("WRENCH_OUTBOUND_PORT", "80")])).unwrap_err();
        assert!(e.contains("did you mean WRENCH_OUTBOUND_PORTS?"), "{e}");
        let e = Config::from_vars(&vars(&[("WRENCH_PROVIDER_OPENPAGERANK_KYE", "k")])).unwrap_err();
        assert!(e.contains("did you mean WRENCH_PROVIDER_OPENPAGERANK_KEY?"), "{e}");
        let e = file("listn = \"x\"", &[]).unwrap_err();
        assert!(e.starts_with("listn in wrench.toml: unknown setting; did you mean listen in wrench.toml?"), "{e}");
        // The escape, and the variables that are not settings.
        let ok = [("WRENCH_LISTN", "x"), ("WRENCH_ALLOW_UNKNOWN", "1")];
        assert_eq!(Config::from_vars(&vars(&ok)).unwrap().listen.port(), 8080);
        for name in ["WRENCH_TEST_REDIS_URL", "WRENCH_BENCH_RUNS", "WRENCH_CONFIG", "WRENCH_API_KEY", "OTHER_LISTN"] {
            assert!(Config::from_vars(&vars(&[(name, "x")])).is_ok(), "{name}");
        }
    }

    #[test]
    fn outbound_settings_from_file_and_environment() {
        let text = "outbound_ports = [\"80\", \"8000-8100\"]\noutbound_redirects = 3\ndns_servers = \"system\"";
        let c = file(text, &[("WRENCH_OUTBOUND_REDIRECTS", "2")]).unwrap();
        assert!(c.outbound.ports.contains(8050) && !c.outbound.ports.contains(443));
        assert_eq!((c.outbound.redirects, &c.outbound.dns_servers), (2, &outbound::DnsServers::System));
        // Provider keys follow the provider list; one not on it is refused by name.
        let c = file("provider_hibp_url = \"off\"\nprovider_npm_url = \"https://registry.site.example\"", &[]).unwrap();
        assert!(c.outbound.providers.url(&crate::providers::HIBP).is_none());
        assert_eq!(
            c.outbound.providers.url(&crate::providers::NPM).unwrap().as_str(),
            "https://registry.site.example/"
        );
        assert!(file("provider_nope_url = \"x\"", &[]).unwrap_err().starts_with("provider_nope_url in wrench.toml"));
        let e = file("outbound_timeout = 0", &[]).unwrap_err();
        assert!(e.starts_with("outbound_timeout in wrench.toml: "), "{e}");
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
            assert!(e.starts_with("WRENCH_CORS_ORIGINS: "), "{bad}: {e}");
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
        // The file's keys, with empty values in the environment turning the listener off.
        let text = "tls_listen = \"127.0.0.1:8443\"\ntls_cert = \"c.pem\"\ntls_key = \"k.pem\"";
        let c = file(text, &[("WRENCH_TLS_LISTEN", ""), ("WRENCH_TLS_CERT", ""), ("WRENCH_TLS_KEY", "")]);
        assert_eq!(c.unwrap().tls, None);
    }

    #[test]
    fn toml_file_is_read_and_env_wins() {
        let c = file(
            "listen = \"127.0.0.1:9001\"\nbody_limit = \"64KiB\"\nrate_anon_per_day = 7",
            &[("WRENCH_LISTEN", "127.0.0.1:9002")],
        )
        .unwrap();
        assert_eq!((c.listen.port(), c.body_limit, c.anon_quota.per_day), (9002, 64 * 1024, 7));
        let c = file("api_keys = [\"{}\"]".replace("{}", &"ab".repeat(32)).as_str(), &[]).unwrap();
        assert_eq!(c.api_keys, vec![[0xab; 32]]);
        assert!(file("listen = [\"a\", [\"b\"]]", &[]).unwrap_err().starts_with("listen in wrench.toml: "));
    }
}
