//! Settings of the outbound layer (`outbound`): which resolvers answer, which targets may be
//! reached, and how long and how much a fetch may take.
//!
//! Every value has the same spelling in the environment and in the TOML file (where a list may
//! also be an array of strings). Nothing here weakens the address policy except
//! `outbound_allow`, which names the ranges an operator wants reachable.

use std::{net::SocketAddr, path::PathBuf, time::Duration};

use ipnet::IpNet;
use serde::Deserialize;

use super::read::parser;

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

/// All settings of the outbound layer. Each field is a setting (the file key is its serde
/// name, the variable `WRENCH_` and that name in upper case), but for the providers.
#[derive(Debug, Clone, Deserialize)]
#[serde(default)]
pub struct OutboundConfig {
    /// The resolvers every lookup asks: `ip[:port]` list, or `system` (the host's
    /// `/etc/resolv.conf`, without its search domains).
    #[serde(deserialize_with = "dns_servers")]
    pub dns_servers: DnsServers,
    /// The resolvers the propagation operations ask one by one: `name=ip[:port]` list, 1 to 10.
    #[serde(rename = "dns_propagation_resolvers", deserialize_with = "named_resolvers")]
    pub propagation_resolvers: Vec<NamedResolver>,
    /// The ports a fetched URL may name: ports and ranges (`80,443,8000-8999`), or `*`.
    #[serde(rename = "outbound_ports", deserialize_with = "ports")]
    pub ports: PortSet,
    /// CIDR ranges reachable although the address policy refuses them.
    #[serde(rename = "outbound_allow", deserialize_with = "nets")]
    pub allow: Vec<IpNet>,
    /// Redirects followed, hop by hop (0 to 20).
    #[serde(rename = "outbound_redirects", deserialize_with = "redirects")]
    pub redirects: u8,
    /// Seconds the whole of one fetch may take, redirects and body included (1 to 120).
    #[serde(rename = "outbound_timeout", deserialize_with = "timeout")]
    pub timeout: Duration,
    /// Body bytes read from one answer (1 KiB to 64 MiB).
    #[serde(rename = "outbound_max_bytes", deserialize_with = "max_bytes")]
    pub max_bytes: usize,
    /// The `User-Agent` of every outbound request; by default it names wrench and the public
    /// URL of this instance.
    #[serde(rename = "outbound_user_agent", deserialize_with = "user_agent")]
    pub user_agent: Option<String>,
    /// A PEM file of certificate authorities trusted beside the Mozilla roots (private CAs).
    #[serde(deserialize_with = "extra_roots")]
    pub tls_extra_roots: Option<PathBuf>,
    /// Where the IANA RDAP bootstrap files (`dns.json`, `ipv4.json`, `ipv6.json`, `asn.json`)
    /// are fetched from; the embedded snapshot of `dns.json` answers until a refresh succeeds.
    #[serde(deserialize_with = "bootstrap_url")]
    pub rdap_bootstrap_url: url::Url,
    /// `suffix=host[:port]` entries that take precedence over the embedded list of port-43
    /// WHOIS servers.
    #[serde(deserialize_with = "whois_servers")]
    pub whois_servers: Vec<WhoisServer>,
    /// Third-party data providers: `WRENCH_PROVIDER_*` (see `providers.rs`).
    #[serde(skip)]
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
            dns_servers: parse_dns_servers(DEFAULT_DNS_SERVERS).expect("the default parses"),
            propagation_resolvers: parse_named_resolvers(DEFAULT_PROPAGATION_RESOLVERS).expect("the default parses"),
            ports: parse_ports(DEFAULT_PORTS).expect("the default parses"),
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

parser!(dns_servers -> DnsServers = parse_dns_servers);
parser!(named_resolvers -> Vec<NamedResolver> = parse_named_resolvers);
parser!(ports -> PortSet = parse_ports);
parser!(nets -> Vec<IpNet> = |v| list(v).map(parse_net).collect());
parser!(whois_servers -> Vec<WhoisServer> = parse_whois_servers);
parser!(redirects -> u8 = |v| v.trim().parse().ok().filter(|n| *n <= 20).ok_or_else(|| format!("expected 0 to 20, got {v:?}")));
parser!(timeout -> Duration = |v| {
    v.trim()
        .parse()
        .ok()
        .filter(|n| (1..=120).contains(n))
        .map(Duration::from_secs)
        .ok_or_else(|| format!("expected whole seconds from 1 to 120, got {v:?}"))
});
parser!(max_bytes -> usize = |v| {
    let n = super::parse_size(v)?;
    if (1024..=(64 << 20)).contains(&n) { Ok(n) } else { Err("must be between 1 KiB and 64 MiB".to_string()) }
});
parser!(user_agent -> Option<String> = |v| {
    let v = v.trim();
    if v.is_empty() || v.len() > 256 || !v.chars().all(|c| c.is_ascii_graphic() || c == ' ') {
        return Err("expected printable ASCII of 1 to 256 characters".to_string());
    }
    Ok(Some(v.to_string()))
});
parser!(extra_roots -> Option<PathBuf> = |v| Ok(Some(v.trim()).filter(|v| !v.is_empty()).map(Into::into)));
parser!(bootstrap_url -> url::Url = |v| {
    let mut url = url::Url::parse(v.trim())
        .ok()
        .filter(|u| matches!(u.scheme(), "http" | "https") && u.host().is_some())
        .ok_or_else(|| format!("expected an http or https URL, got {v:?}"))?;
    if !url.path().ends_with('/') {
        url.set_path(&format!("{}/", url.path()));
    }
    Ok(url)
});

use super::list;

/// `1.1.1.1`, `1.1.1.1:5353`, `[2606:4700::1111]:53` or `2606:4700::1111`.
fn parse_socket(v: &str, default_port: u16) -> Result<SocketAddr, String> {
    if let Ok(a) = v.parse::<SocketAddr>() {
        return Ok(a);
    }
    v.parse::<std::net::IpAddr>()
        .map(|ip| SocketAddr::new(ip, default_port))
        .map_err(|_| format!("{v:?} is not an address such as 1.1.1.1 or 1.1.1.1:53"))
}

fn parse_dns_servers(value: &str) -> Result<DnsServers, String> {
    if value.trim() == "system" {
        return Ok(DnsServers::System);
    }
    let servers: Vec<SocketAddr> = list(value).map(|s| parse_socket(s, 53)).collect::<Result<_, _>>()?;
    if servers.is_empty() {
        return Err("name at least one resolver, or `system`".to_string());
    }
    Ok(DnsServers::List(servers))
}

fn parse_named_resolvers(value: &str) -> Result<Vec<NamedResolver>, String> {
    let mut out: Vec<NamedResolver> = Vec::new();
    for entry in list(value) {
        let (label, addr) = entry.split_once('=').ok_or_else(|| format!("expected name=ip[:port], got {entry:?}"))?;
        let label = label.trim();
        if label.is_empty() || label.len() > 32 || !label.chars().all(|c| c.is_ascii_alphanumeric() || c == '-') {
            return Err(format!("a resolver's name is 1 to 32 letters, digits or `-`, got {label:?}"));
        }
        if out.iter().any(|r| r.name == label) {
            return Err(format!("the name {label} is given twice"));
        }
        out.push(NamedResolver { name: label.to_string(), address: parse_socket(addr.trim(), 53)? });
    }
    if !(1..=10).contains(&out.len()) {
        return Err("name 1 to 10 resolvers".to_string());
    }
    Ok(out)
}

fn parse_whois_servers(value: &str) -> Result<Vec<WhoisServer>, String> {
    let mut out = Vec::new();
    for entry in list(value) {
        let (suffix, server) =
            entry.split_once('=').ok_or_else(|| format!("expected suffix=host[:port], got {entry:?}"))?;
        let suffix = suffix.trim().trim_matches('.').to_ascii_lowercase();
        let label_ok = |l: &str| !l.is_empty() && l.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-');
        if !suffix.split('.').all(label_ok) {
            return Err(format!("{suffix:?} is not a domain suffix such as com or co.uk"));
        }
        let server = server.trim();
        let (host, port) = match server.rsplit_once(':') {
            Some((h, p)) if !h.contains(':') || h.ends_with(']') => (
                h.trim_start_matches('[').trim_end_matches(']'),
                p.parse::<u16>().ok().filter(|p| *p > 0).ok_or_else(|| format!("{p:?} is not a port"))?,
            ),
            _ => (server.trim_start_matches('[').trim_end_matches(']'), 43),
        };
        if host.is_empty() || !host.bytes().all(|b| b.is_ascii_alphanumeric() || b".-:".contains(&b)) {
            return Err(format!("{server:?} is not a host name or address"));
        }
        out.push(WhoisServer { suffix, host: host.to_ascii_lowercase(), port });
    }
    Ok(out)
}

fn parse_ports(value: &str) -> Result<PortSet, String> {
    if value.trim() == "*" {
        return Ok(PortSet { any: true, ranges: Vec::new() });
    }
    let port = |s: &str| -> Result<u16, String> {
        s.trim().parse::<u16>().ok().filter(|p| *p > 0).ok_or_else(|| format!("{s:?} is not a port (1-65535)"))
    };
    let mut ranges = Vec::new();
    for entry in list(value) {
        let range = match entry.split_once('-') {
            Some((lo, hi)) => (port(lo)?, port(hi)?),
            None => (port(entry)?, port(entry)?),
        };
        if range.0 > range.1 {
            return Err(format!("the range {entry} runs backwards"));
        }
        ranges.push(range);
    }
    if ranges.is_empty() {
        return Err("name at least one port, or `*`".to_string());
    }
    Ok(PortSet { any: false, ranges })
}

fn parse_net(v: &str) -> Result<IpNet, String> {
    v.parse::<IpNet>()
        .or_else(|_| v.parse::<std::net::IpAddr>().map(IpNet::from))
        .map(|n| n.trunc())
        .map_err(|_| format!("{v:?} is neither an IP address nor a CIDR range"))
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

    fn with(list: &[(&str, &str)]) -> Result<OutboundConfig, String> {
        let vars: Vec<(String, String)> = list.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
        super::super::Config::from_vars(&vars).map(|c| c.outbound)
    }

    #[test]
    fn settings_parse_and_refuse_with_their_name() {
        let c = with(&[("WRENCH_OUTBOUND_PORTS", "80, 8000-8999")]).unwrap();
        assert!(c.ports.contains(8500) && !c.ports.contains(9000));
        assert!(with(&[("WRENCH_OUTBOUND_PORTS", "*")]).unwrap().ports.contains(22));
        let c = with(&[("WRENCH_DNS_SERVERS", "127.0.0.2:40053, ::1")]).unwrap();
        assert_eq!(
            c.dns_servers,
            DnsServers::List(vec!["127.0.0.2:40053".parse().unwrap(), "[::1]:53".parse().unwrap()])
        );
        assert_eq!(with(&[("WRENCH_DNS_SERVERS", "system")]).unwrap().dns_servers, DnsServers::System);
        assert_eq!(with(&[("WRENCH_OUTBOUND_ALLOW", "127.0.0.2/32, 10.1.2.3")]).unwrap().allow.len(), 2);
        let c = with(&[("WRENCH_RDAP_BOOTSTRAP_URL", "http://127.0.0.2:8080/rdap/bootstrap")]).unwrap();
        assert_eq!(c.rdap_bootstrap_url.as_str(), "http://127.0.0.2:8080/rdap/bootstrap/");
        let c = with(&[("WRENCH_WHOIS_SERVERS", "test=127.0.0.2:8043, .CO.UK=whois.nic.uk, io=[2001:db8::43]:4343")])
            .unwrap();
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
            let e = with(&[(k, v)]).unwrap_err();
            assert!(e.starts_with(&format!("{k}: ")), "{k}={v:?}: {e}");
        }
    }
}
