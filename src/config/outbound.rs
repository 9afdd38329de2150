//! Settings of the outbound layer (`src/net/`): which resolvers answer, which targets may be
//! reached, and how long and how much a fetch may take.
//!
//! Every value has the same spelling in the environment and in the TOML file (where a list may
//! also be an array of strings). Nothing here weakens the address policy except
//! `WRENCH_OUTBOUND_ALLOW`, which names the ranges an operator wants reachable.

use std::{net::SocketAddr, path::PathBuf, time::Duration};

use ipnet::IpNet;

/// The resolvers every lookup goes to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DnsServers {
    /// The host's configured resolvers (`/etc/resolv.conf`), without its search domains.
    System,
    /// These addresses, in order.
    List(Vec<SocketAddr>),
}

/// A resolver asked on its own by the propagation and comparison operations.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NamedResolver {
    pub name: String,
    pub address: SocketAddr,
}

/// The ports a fetched URL may name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PortSet {
    any: bool,
    ranges: Vec<(u16, u16)>,
}

impl PortSet {
    pub fn contains(&self, port: u16) -> bool {
        self.any || self.ranges.iter().any(|&(lo, hi)| (lo..=hi).contains(&port))
    }

    /// The set as it is written in the setting, for messages.
    pub fn describe(&self) -> String {
        if self.any {
            return "*".into();
        }
        let parts: Vec<String> =
            self.ranges.iter().map(|&(lo, hi)| if lo == hi { lo.to_string() } else { format!("{lo}-{hi}") }).collect();
        parts.join(", ")
    }
}

/// All settings of the outbound layer.
#[derive(Debug, Clone)]
pub struct OutboundConfig {
    /// `WRENCH_DNS_SERVERS`: `ip[:port]` list, or `system`.
    pub dns_servers: DnsServers,
    /// `WRENCH_DNS_PROPAGATION_RESOLVERS`: `name=ip[:port]` list.
    pub propagation_resolvers: Vec<NamedResolver>,
    /// `WRENCH_OUTBOUND_PORTS`: ports and ranges (`80,443,8000-8999`), or `*`.
    pub ports: PortSet,
    /// `WRENCH_OUTBOUND_ALLOW`: CIDR ranges reachable although the policy refuses them.
    pub allow: Vec<IpNet>,
    /// `WRENCH_OUTBOUND_REDIRECTS`: redirects followed, hop by hop.
    pub redirects: u8,
    /// `WRENCH_OUTBOUND_TIMEOUT`: the whole of one fetch, redirects and body included.
    pub timeout: Duration,
    /// `WRENCH_OUTBOUND_MAX_BYTES`: body bytes read from one answer.
    pub max_bytes: usize,
    /// `WRENCH_OUTBOUND_USER_AGENT`: sent with every request; by default it names wrench and
    /// the public URL of this instance.
    pub user_agent: Option<String>,
    /// `WRENCH_TLS_EXTRA_ROOTS`: a PEM file of certificate authorities trusted beside the
    /// Mozilla roots (private CAs).
    pub tls_extra_roots: Option<PathBuf>,
    /// `WRENCH_RDAP_BOOTSTRAP_URL`: where the IANA RDAP bootstrap files (`dns.json`,
    /// `ipv4.json`, `ipv6.json`, `asn.json`) are fetched from; the embedded snapshot of
    /// `dns.json` answers until a refresh succeeds.
    pub rdap_bootstrap_url: url::Url,
    /// `WRENCH_WHOIS_SERVERS`: `suffix=host[:port]` entries that take precedence over the
    /// embedded list of port-43 WHOIS servers.
    pub whois_servers: Vec<WhoisServer>,
    /// `WRENCH_PROVIDER_*`: third-party data providers (see `providers.rs`).
    pub providers: super::providers::ProvidersConfig,
}

/// A port-43 WHOIS server for the names under a suffix (`com`, `co.uk`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WhoisServer {
    pub suffix: String,
    pub host: String,
    pub port: u16,
}

pub const DEFAULT_DNS_SERVERS: &str = "1.1.1.1,8.8.8.8";
pub const DEFAULT_PROPAGATION_RESOLVERS: &str =
    "cloudflare=1.1.1.1,google=8.8.8.8,quad9=9.9.9.9,opendns=208.67.222.222,adguard=94.140.14.14";
pub const DEFAULT_PORTS: &str = "80,443,8080,8443";
pub const DEFAULT_RDAP_BOOTSTRAP_URL: &str = "https://data.iana.org/rdap/";

impl Default for OutboundConfig {
    fn default() -> Self {
        OutboundConfig {
            dns_servers: parse_dns_servers("", DEFAULT_DNS_SERVERS).expect("the default parses"),
            propagation_resolvers: parse_named_resolvers("", DEFAULT_PROPAGATION_RESOLVERS)
                .expect("the default parses"),
            ports: parse_ports("", DEFAULT_PORTS).expect("the default parses"),
            allow: Vec::new(),
            redirects: 5,
            timeout: Duration::from_secs(10),
            max_bytes: 5 << 20,
            user_agent: None,
            tls_extra_roots: None,
            rdap_bootstrap_url: url::Url::parse(DEFAULT_RDAP_BOOTSTRAP_URL).expect("the default parses"),
            whois_servers: Vec::new(),
            providers: Default::default(),
        }
    }
}

/// The variables (and, lower case without the prefix, file keys) read here.
pub const KEYS: &[&str] = &[
    "WRENCH_DNS_SERVERS",
    "WRENCH_DNS_PROPAGATION_RESOLVERS",
    "WRENCH_OUTBOUND_PORTS",
    "WRENCH_OUTBOUND_ALLOW",
    "WRENCH_OUTBOUND_REDIRECTS",
    "WRENCH_OUTBOUND_TIMEOUT",
    "WRENCH_OUTBOUND_MAX_BYTES",
    "WRENCH_OUTBOUND_USER_AGENT",
    "WRENCH_TLS_EXTRA_ROOTS",
    "WRENCH_RDAP_BOOTSTRAP_URL",
    "WRENCH_WHOIS_SERVERS",
];

impl OutboundConfig {
    /// Applies one setting; `name` is the variable's name, for messages.
    pub fn set(&mut self, name: &str, value: &str) -> Result<(), String> {
        match name {
            "WRENCH_DNS_SERVERS" => self.dns_servers = parse_dns_servers(name, value)?,
            "WRENCH_DNS_PROPAGATION_RESOLVERS" => self.propagation_resolvers = parse_named_resolvers(name, value)?,
            "WRENCH_OUTBOUND_PORTS" => self.ports = parse_ports(name, value)?,
            "WRENCH_OUTBOUND_ALLOW" => {
                self.allow = list(value).map(|s| parse_net(name, s)).collect::<Result<_, _>>()?;
            }
            "WRENCH_OUTBOUND_REDIRECTS" => {
                self.redirects = value
                    .trim()
                    .parse()
                    .ok()
                    .filter(|n| *n <= 20)
                    .ok_or_else(|| format!("{name}: expected 0 to 20, got {value:?}"))?;
            }
            "WRENCH_OUTBOUND_TIMEOUT" => {
                self.timeout = value
                    .trim()
                    .parse()
                    .ok()
                    .filter(|n| (1..=120).contains(n))
                    .map(Duration::from_secs)
                    .ok_or_else(|| format!("{name}: expected whole seconds from 1 to 120, got {value:?}"))?;
            }
            "WRENCH_OUTBOUND_MAX_BYTES" => {
                let n = super::parse_size(name, value)?;
                if !(1024..=(64 << 20)).contains(&n) {
                    return Err(format!("{name}: must be between 1 KiB and 64 MiB"));
                }
                self.max_bytes = n;
            }
            "WRENCH_OUTBOUND_USER_AGENT" => {
                let v = value.trim();
                if v.is_empty() || v.len() > 256 || !v.chars().all(|c| c.is_ascii_graphic() || c == ' ') {
                    return Err(format!("{name}: expected printable ASCII of 1 to 256 characters"));
                }
                self.user_agent = Some(v.to_string());
            }
            "WRENCH_TLS_EXTRA_ROOTS" => {
                self.tls_extra_roots = Some(value.trim()).filter(|v| !v.is_empty()).map(Into::into)
            }
            "WRENCH_RDAP_BOOTSTRAP_URL" => {
                let mut url = url::Url::parse(value.trim())
                    .ok()
                    .filter(|u| matches!(u.scheme(), "http" | "https") && u.host().is_some())
                    .ok_or_else(|| format!("{name}: expected an http or https URL, got {value:?}"))?;
                if !url.path().ends_with('/') {
                    url.set_path(&format!("{}/", url.path()));
                }
                self.rdap_bootstrap_url = url;
            }
            "WRENCH_WHOIS_SERVERS" => self.whois_servers = parse_whois_servers(name, value)?,
            _ if super::providers::is_key(name) => self.providers.set(name, value)?,
            _ => return Err(format!("{name}: not an outbound setting")),
        }
        Ok(())
    }
}

fn list(value: &str) -> impl Iterator<Item = &str> {
    value.split(',').map(str::trim).filter(|s| !s.is_empty())
}

/// `1.1.1.1`, `1.1.1.1:5353`, `[2606:4700::1111]:53` or `2606:4700::1111`.
fn parse_socket(name: &str, v: &str, default_port: u16) -> Result<SocketAddr, String> {
    if let Ok(a) = v.parse::<SocketAddr>() {
        return Ok(a);
    }
    v.parse::<std::net::IpAddr>()
        .map(|ip| SocketAddr::new(ip, default_port))
        .map_err(|_| format!("{name}: {v:?} is not an address such as 1.1.1.1 or 1.1.1.1:53"))
}

fn parse_dns_servers(name: &str, value: &str) -> Result<DnsServers, String> {
    if value.trim() == "system" {
        return Ok(DnsServers::System);
    }
    let servers: Vec<SocketAddr> = list(value).map(|s| parse_socket(name, s, 53)).collect::<Result<_, _>>()?;
    if servers.is_empty() {
        return Err(format!("{name}: name at least one resolver, or `system`"));
    }
    Ok(DnsServers::List(servers))
}

fn parse_named_resolvers(name: &str, value: &str) -> Result<Vec<NamedResolver>, String> {
    let mut out: Vec<NamedResolver> = Vec::new();
    for entry in list(value) {
        let (label, addr) =
            entry.split_once('=').ok_or_else(|| format!("{name}: expected name=ip[:port], got {entry:?}"))?;
        let label = label.trim();
        if label.is_empty() || label.len() > 32 || !label.chars().all(|c| c.is_ascii_alphanumeric() || c == '-') {
            return Err(format!("{name}: a resolver's name is 1 to 32 letters, digits or `-`, got {label:?}"));
        }
        if out.iter().any(|r| r.name == label) {
            return Err(format!("{name}: the name {label} is given twice"));
        }
        out.push(NamedResolver { name: label.to_string(), address: parse_socket(name, addr.trim(), 53)? });
    }
    if !(1..=10).contains(&out.len()) {
        return Err(format!("{name}: name 1 to 10 resolvers"));
    }
    Ok(out)
}

fn parse_whois_servers(name: &str, value: &str) -> Result<Vec<WhoisServer>, String> {
    let mut out = Vec::new();
    for entry in list(value) {
        let (suffix, server) =
            entry.split_once('=').ok_or_else(|| format!("{name}: expected suffix=host[:port], got {entry:?}"))?;
        let suffix = suffix.trim().trim_matches('.').to_ascii_lowercase();
        let label_ok = |l: &str| !l.is_empty() && l.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-');
        if !suffix.split('.').all(label_ok) {
            return Err(format!("{name}: {suffix:?} is not a domain suffix such as com or co.uk"));
        }
        let server = server.trim();
        let (host, port) = match server.rsplit_once(':') {
            Some((h, p)) if !h.contains(':') || h.ends_with(']') => (
                h.trim_start_matches('[').trim_end_matches(']'),
                p.parse::<u16>().ok().filter(|p| *p > 0).ok_or_else(|| format!("{name}: {p:?} is not a port"))?,
            ),
            _ => (server.trim_start_matches('[').trim_end_matches(']'), 43),
        };
        if host.is_empty() || !host.bytes().all(|b| b.is_ascii_alphanumeric() || b".-:".contains(&b)) {
            return Err(format!("{name}: {server:?} is not a host name or address"));
        }
        out.push(WhoisServer { suffix, host: host.to_ascii_lowercase(), port });
    }
    Ok(out)
}

fn parse_ports(name: &str, value: &str) -> Result<PortSet, String> {
    if value.trim() == "*" {
        return Ok(PortSet { any: true, ranges: Vec::new() });
    }
    let port = |s: &str| -> Result<u16, String> {
        s.trim().parse::<u16>().ok().filter(|p| *p > 0).ok_or_else(|| format!("{name}: {s:?} is not a port (1-65535)"))
    };
    let mut ranges = Vec::new();
    for entry in list(value) {
        let range = match entry.split_once('-') {
            Some((lo, hi)) => (port(lo)?, port(hi)?),
            None => (port(entry)?, port(entry)?),
        };
        if range.0 > range.1 {
            return Err(format!("{name}: the range {entry} runs backwards"));
        }
        ranges.push(range);
    }
    if ranges.is_empty() {
        return Err(format!("{name}: name at least one port, or `*`"));
    }
    Ok(PortSet { any: false, ranges })
}

fn parse_net(name: &str, v: &str) -> Result<IpNet, String> {
    v.parse::<IpNet>()
        .or_else(|_| v.parse::<std::net::IpAddr>().map(IpNet::from))
        .map(|n| n.trunc())
        .map_err(|_| format!("{name}: {v:?} is neither an IP address nor a CIDR range"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_parse_and_describe_themselves() {
        let c = OutboundConfig::default();
        assert_eq!(c.ports.describe(), "80, 443, 8080, 8443");
        assert!(c.ports.contains(8443) && !c.ports.contains(22));
        assert_eq!(c.propagation_resolvers.len(), 5);
        assert_eq!(c.dns_servers, DnsServers::List(vec!["1.1.1.1:53".parse().unwrap(), "8.8.8.8:53".parse().unwrap()]));
    }

    #[test]
    fn settings_parse_and_refuse_with_their_name() {
        let mut c = OutboundConfig::default();
        c.set("WRENCH_OUTBOUND_PORTS", "80, 8000-8999").unwrap();
        assert!(c.ports.contains(8500) && !c.ports.contains(9000));
        c.set("WRENCH_OUTBOUND_PORTS", "*").unwrap();
        assert!(c.ports.contains(22));
        c.set("WRENCH_DNS_SERVERS", "127.0.0.2:40053, ::1").unwrap();
        assert_eq!(
            c.dns_servers,
            DnsServers::List(vec!["127.0.0.2:40053".parse().unwrap(), "[::1]:53".parse().unwrap()])
        );
        c.set("WRENCH_DNS_SERVERS", "system").unwrap();
        assert_eq!(c.dns_servers, DnsServers::System);
        c.set("WRENCH_OUTBOUND_ALLOW", "127.0.0.2/32, 10.1.2.3").unwrap();
        assert_eq!(c.allow.len(), 2);
        c.set("WRENCH_RDAP_BOOTSTRAP_URL", "http://127.0.0.2:8080/rdap/bootstrap").unwrap();
        assert_eq!(c.rdap_bootstrap_url.as_str(), "http://127.0.0.2:8080/rdap/bootstrap/");
        c.set("WRENCH_WHOIS_SERVERS", "test=127.0.0.2:8043, .CO.UK=whois.nic.uk, io=[2001:db8::43]:4343").unwrap();
        assert_eq!(
            c.whois_servers,
            vec![
                WhoisServer { suffix: "test".into(), host: "127.0.0.2".into(), port: 8043 },
                WhoisServer { suffix: "co.uk".into(), host: "whois.nic.uk".into(), port: 43 },
                WhoisServer { suffix: "io".into(), host: "2001:db8::43".into(), port: 4343 },
            ]
        );
        for (k, v) in [
            ("WRENCH_OUTBOUND_PORTS", "0"),
            ("WRENCH_OUTBOUND_PORTS", "90-80"),
            ("WRENCH_DNS_SERVERS", "dns.google"),
            ("WRENCH_DNS_SERVERS", ""),
            ("WRENCH_DNS_PROPAGATION_RESOLVERS", "1.1.1.1"),
            ("WRENCH_DNS_PROPAGATION_RESOLVERS", "a=1.1.1.1,a=8.8.8.8"),
            ("WRENCH_OUTBOUND_ALLOW", "intranet"),
            ("WRENCH_OUTBOUND_REDIRECTS", "50"),
            ("WRENCH_OUTBOUND_TIMEOUT", "0"),
            ("WRENCH_OUTBOUND_MAX_BYTES", "1GiB"),
            ("WRENCH_OUTBOUND_USER_AGENT", "bad\nagent"),
            ("WRENCH_RDAP_BOOTSTRAP_URL", "ftp://example.com/"),
            ("WRENCH_WHOIS_SERVERS", "com"),
            ("WRENCH_WHOIS_SERVERS", "com=whois.example:0"),
            ("WRENCH_WHOIS_SERVERS", "c m=whois.example"),
        ] {
            let e = c.set(k, v).unwrap_err();
            assert!(e.starts_with(k), "{k}={v:?}: {e}");
        }
    }
}
