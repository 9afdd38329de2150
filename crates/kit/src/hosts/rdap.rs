//! RDAP (RFC 9082, RFC 9083) for domains, IP addresses and AS numbers: which server to ask,
//! from the IANA bootstrap registries (RFC 9224), and what its JSON answer says.
//!
//! Each registry (`dns.json`, `ipv4.json`, `ipv6.json`, `asn.json` under
//! `WRENCH_RDAP_BOOTSTRAP_URL`) is refreshed when a lookup finds it older than a day; a refresh
//! that fails keeps the data in hand and is not tried again for an hour, so an unreachable IANA
//! costs one bounded wait per hour and registry, not one per request. The domain registry is
//! also embedded as a snapshot (`data/whois/rdap-dns-services.json`, the `services` of IANA's
//! `dns.json`), so domains are answered before any refresh succeeds; the address and AS number
//! registries are not embedded, and until one has been fetched those lookups fail saying so.

use std::{
    collections::HashMap,
    net::IpAddr,
    sync::{Arc, LazyLock},
    time::{Duration, Instant},
};

use ipnet::IpNet;

use serde_json::Value;
use tokio::sync::Mutex;

use crate::hosts::whois_text::DomainRecord;
use wrench_infra::outbound::Net;

/// The embedded snapshot (`wrench_infra::blobs::RDAP_DNS`): npm package `freewhois` 1.2.6,
/// `tlds.json` (MIT), itself a copy of the `services` of IANA's RDAP bootstrap file for DNS.
fn embedded() -> String {
    wrench_infra::blobs::RDAP_DNS.text()
}
pub const EMBEDDED_SOURCE: &str = "embedded snapshot of the IANA RDAP bootstrap (npm freewhois 1.2.6)";
/// How long a refreshed registry is used before the next refresh.
const FRESH_FOR: Duration = Duration::from_secs(24 * 3600);
/// How long after a failed refresh the next one is tried.
const RETRY_AFTER: Duration = Duration::from_secs(3600);

/// The four IANA bootstrap registries.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Registry {
    Dns,
    Ipv4,
    Ipv6,
    Asn,
}

impl Registry {
    fn file(self) -> &'static str {
        match self {
            Registry::Dns => "dns.json",
            Registry::Ipv4 => "ipv4.json",
            Registry::Ipv6 => "ipv6.json",
            Registry::Asn => "asn.json",
        }
    }
}

/// A bootstrap registry: entries (TLDs, CIDR blocks or AS number ranges) to the base URLs of
/// their RDAP servers.
#[derive(Debug, Clone)]
pub struct Bootstrap {
    services: Vec<(Vec<String>, Vec<String>)>,
    /// Where the data came from, as the answers report it.
    pub source: String,
}

impl Bootstrap {
    /// Reads a bootstrap file: IANA's object with `services`, or the bare `services` array.
    pub fn parse(text: &str, source: String) -> Result<Bootstrap, String> {
        let value: Value = serde_json::from_str(text).map_err(|e| format!("not JSON: {e}"))?;
        let services = match &value {
            Value::Array(_) => &value,
            Value::Object(o) => o.get("services").ok_or("no `services` member")?,
            _ => return Err("neither an object nor an array".into()),
        };
        let services: Vec<(Vec<String>, Vec<String>)> =
            serde_json::from_value(services.clone()).map_err(|e| format!("`services` is not a bootstrap list: {e}"))?;
        if services.is_empty() {
            return Err("no services".into());
        }
        let services = services
            .into_iter()
            .map(|(suffixes, urls)| (suffixes.into_iter().map(|s| s.to_ascii_lowercase()).collect(), urls))
            .collect();
        Ok(Bootstrap { services, source })
    }

    /// The RDAP base URL for `domain` (ASCII, no final dot): the longest matching suffix wins
    /// (RFC 9224 section 4), https preferred over http.
    pub fn server_for(&self, domain: &str) -> Option<String> {
        let labels: Vec<&str> = domain.split('.').collect();
        for start in 0..labels.len() {
            let suffix = labels[start..].join(".");
            if let Some((_, urls)) = self.services.iter().find(|(s, _)| s.contains(&suffix)) {
                return pick(urls);
            }
        }
        None
    }

    /// The RDAP base URL for `ip`: the longest matching prefix wins (RFC 9224 section 5).
    pub fn server_for_ip(&self, ip: IpAddr) -> Option<String> {
        let mut best: Option<(u8, &Vec<String>)> = None;
        for (entries, urls) in &self.services {
            for net in entries.iter().filter_map(|e| e.parse::<IpNet>().ok()) {
                if net.contains(&ip) && best.is_none_or(|(len, _)| net.prefix_len() > len) {
                    best = Some((net.prefix_len(), urls));
                }
            }
        }
        best.and_then(|(_, urls)| pick(urls))
    }

    /// The RDAP base URL for AS number `asn`: the range that holds it (RFC 9224 section 5.3).
    pub fn server_for_asn(&self, asn: u32) -> Option<String> {
        let holds = |entry: &str| {
            let (lo, hi) = entry.split_once('-').unwrap_or((entry, entry));
            matches!((lo.trim().parse::<u32>(), hi.trim().parse::<u32>()), (Ok(lo), Ok(hi)) if (lo..=hi).contains(&asn))
        };
        self.services.iter().find(|(entries, _)| entries.iter().any(|e| holds(e))).and_then(|(_, urls)| pick(urls))
    }
}

/// The first https URL of a service, or its first URL.
fn pick(urls: &[String]) -> Option<String> {
    urls.iter().find(|u| u.starts_with("https://")).or(urls.first()).cloned()
}

struct State {
    current: Option<Arc<Bootstrap>>,
    /// When the current data was fetched (`None`: the embedded snapshot).
    fetched: Option<Instant>,
    last_attempt: Option<Instant>,
    /// The URL the data was fetched from; a different setting refetches.
    from: Option<String>,
}

static STATES: LazyLock<Mutex<HashMap<Registry, State>>> = LazyLock::new(|| Mutex::new(HashMap::new()));

/// The data a registry starts from: the embedded snapshot for domains, nothing for the others.
fn initial(registry: Registry) -> State {
    let current = (registry == Registry::Dns).then(|| {
        Arc::new(Bootstrap::parse(&embedded(), EMBEDDED_SOURCE.into()).expect("the embedded bootstrap parses"))
    });
    State { current, fetched: None, last_attempt: None, from: None }
}

/// The bootstrap registry to use now, refreshed first when it is due; `None` when it has never
/// been fetched and has no embedded snapshot.
pub async fn bootstrap(net: &Net, registry: Registry) -> Option<Arc<Bootstrap>> {
    let mut states = STATES.lock().await;
    let state = states.entry(registry).or_insert_with(|| initial(registry));
    let Ok(url) = net.config.rdap_bootstrap_url.join(registry.file()) else { return state.current.clone() };
    let same_source = state.from.as_deref() == Some(url.as_str());
    let fresh = same_source && state.fetched.is_some_and(|t| t.elapsed() < FRESH_FOR);
    let tried_lately = same_source && state.last_attempt.is_some_and(|t| t.elapsed() < RETRY_AFTER);
    if fresh || tried_lately {
        return state.current.clone();
    }
    if !same_source && state.fetched.is_some() {
        // The setting changed: data fetched from elsewhere no longer applies.
        *state = initial(registry);
    }
    state.last_attempt = Some(Instant::now());
    state.from = Some(url.to_string());
    let fetched = net
        .get(url.clone())
        .await
        .map_err(|e| e.to_string())
        .and_then(|c| match (c.last().map(|h| h.status), c.body) {
            (Some(200), Some(body)) => Ok(body),
            (status, _) => Err(format!("answered {status:?}")),
        })
        .and_then(|body| {
            let at = wrench_infra::time::rfc3339(wrench_infra::time::now());
            Bootstrap::parse(&String::from_utf8_lossy(&body), format!("{url} (fetched {at})"))
        });
    match fetched {
        Ok(b) => {
            state.current = Some(Arc::new(b));
            state.fetched = Some(Instant::now());
        }
        Err(e) => {
            tracing::warn!(%url, error = %e, "an RDAP bootstrap registry could not be refreshed; keeping the data in hand")
        }
    }
    state.current.clone()
}

/// The text of a vCard property (`fn`) in a jCard array (RFC 7095).
fn vcard_text(entity: &Value, property: &str) -> Option<String> {
    let props = entity.get("vcardArray")?.get(1)?.as_array()?;
    props.iter().find(|p| p.get(0).and_then(Value::as_str) == Some(property))?.get(3)?.as_str().map(str::to_string)
}

/// The date of the object's event `action` (`registration`, `expiration`, `last changed`).
fn event(v: &Value, action: &str) -> Option<String> {
    let events = v.get("events")?.as_array()?;
    let e = events.iter().find(|e| e.get("eventAction").and_then(Value::as_str) == Some(action))?;
    e.get("eventDate").and_then(Value::as_str).map(str::to_string)
}

/// The strings of the array member `key` (`status`).
fn strings(v: &Value, key: &str) -> Vec<String> {
    v.get(key).and_then(Value::as_array).into_iter().flatten().filter_map(Value::as_str).map(str::to_string).collect()
}

/// The first entity of the object with `role` (`registrar`, `registrant`).
fn entity<'a>(v: &'a Value, role: &str) -> Option<&'a Value> {
    v.get("entities")?
        .as_array()?
        .iter()
        .find(|e| e.get("roles").and_then(Value::as_array).is_some_and(|r| r.iter().any(|r| r.as_str() == Some(role))))
}

/// Reads an RDAP domain object (RFC 9083 section 5.3).
pub fn parse_domain(v: &Value) -> DomainRecord {
    let registrar = entity(v, "registrar");
    DomainRecord {
        registered: true,
        name: v.get("ldhName").and_then(Value::as_str).map(|s| s.to_ascii_lowercase()),
        registrar: registrar.and_then(|r| vcard_text(r, "fn")),
        registrar_iana_id: registrar
            .and_then(|r| r.get("publicIds")?.as_array())
            .into_iter()
            .flatten()
            .find(|p| p.get("type").and_then(Value::as_str) == Some("IANA Registrar ID"))
            .and_then(|p| p.get("identifier").and_then(Value::as_str))
            .map(str::to_string),
        created: event(v, "registration"),
        updated: event(v, "last changed"),
        expires: event(v, "expiration"),
        status: strings(v, "status"),
        nameservers: v
            .get("nameservers")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(|n| n.get("ldhName").and_then(Value::as_str))
            .map(|n| n.trim_end_matches('.').to_ascii_lowercase())
            .collect(),
        dnssec: v.get("secureDNS").and_then(|s| s.get("delegationSigned")).and_then(Value::as_bool),
    }
}

/// What an RDAP IP network (RFC 9083 section 5.4) or autnum (section 5.5) answer says.
#[derive(Debug)]
pub struct RdapNetwork {
    pub handle: Option<String>,
    pub name: Option<String>,
    pub kind: Option<String>,
    pub country: Option<String>,
    /// First and last address, or first and last AS number.
    pub start: Option<String>,
    pub end: Option<String>,
    pub parent_handle: Option<String>,
    /// The registrant's name (the entity with the `registrant` role).
    pub registrant: Option<String>,
    /// The abuse contact's e-mail address.
    pub abuse_email: Option<String>,
    pub created: Option<String>,
    pub updated: Option<String>,
    pub status: Vec<String>,
}

fn text(v: &Value, key: &str) -> Option<String> {
    match v.get(key)? {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        _ => None,
    }
}

/// Reads an RDAP IP network or autnum object.
pub fn parse_network(v: &Value) -> RdapNetwork {
    let (start, end) = if v.get("startAutnum").is_some() {
        (text(v, "startAutnum"), text(v, "endAutnum"))
    } else {
        (text(v, "startAddress"), text(v, "endAddress"))
    };
    RdapNetwork {
        handle: text(v, "handle"),
        name: text(v, "name"),
        kind: text(v, "type"),
        country: text(v, "country"),
        start,
        end,
        parent_handle: text(v, "parentHandle"),
        registrant: entity(v, "registrant").and_then(|e| vcard_text(e, "fn")),
        // RIPE lists the abuse contact at the top; ARIN and others nest it in the holder.
        abuse_email: entity(v, "abuse")
            .or_else(|| v.get("entities")?.as_array()?.iter().find_map(|outer| entity(outer, "abuse")))
            .and_then(|e| vcard_text(e, "email")),
        created: event(v, "registration"),
        updated: event(v, "last changed"),
        status: strings(v, "status"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_embedded_registry_finds_servers_by_longest_suffix() {
        let b = Bootstrap::parse(&embedded(), "embedded".into()).unwrap();
        assert_eq!(b.server_for("example.com").as_deref(), Some("https://rdap.verisign.com/com/v1/"));
        assert_eq!(b.server_for("nothing.invalid"), None);
        let local = Bootstrap::parse(
            r#"{"services":[[["uk"],["https://uk.example/"]],[["co.uk"],["http://co.example/","https://co.example/"]]]}"#,
            "test".into(),
        )
        .unwrap();
        assert_eq!(local.server_for("a.co.uk").as_deref(), Some("https://co.example/"));
        assert_eq!(local.server_for("a.org.uk").as_deref(), Some("https://uk.example/"));
    }

    #[test]
    fn address_and_as_number_registries_match_by_prefix_and_range() {
        // The shape of IANA's ipv4.json, ipv6.json and asn.json (RFC 9224 sections 5.1-5.3).
        let v4 = Bootstrap::parse(
            r#"{"services":[[["192.0.0.0/8"],["https://a.example/"]],[["192.0.2.0/24","198.51.100.0/24"],["https://b.example/"]]]}"#,
            "t".into(),
        )
        .unwrap();
        assert_eq!(v4.server_for_ip("192.0.2.1".parse().unwrap()).as_deref(), Some("https://b.example/"));
        assert_eq!(v4.server_for_ip("192.0.3.1".parse().unwrap()).as_deref(), Some("https://a.example/"));
        assert_eq!(v4.server_for_ip("10.0.0.1".parse().unwrap()), None);
        let v6 = Bootstrap::parse(r#"{"services":[[["2001:db8::/32"],["https://c.example/"]]]}"#, "t".into()).unwrap();
        assert_eq!(v6.server_for_ip("2001:db8::1".parse().unwrap()).as_deref(), Some("https://c.example/"));
        let asn =
            Bootstrap::parse(r#"{"services":[[["64496-64511","65536"],["https://d.example/"]]]}"#, "t".into()).unwrap();
        assert_eq!(asn.server_for_asn(64500).as_deref(), Some("https://d.example/"));
        assert_eq!(asn.server_for_asn(65536).as_deref(), Some("https://d.example/"));
        assert_eq!(asn.server_for_asn(64512), None);
    }

    /// The IP network example of RFC 9083 section 5.4, abridged.
    #[test]
    fn a_network_answer_reads_as_rfc_9083_describes_it() {
        let v: Value = serde_json::from_str(
            r#"{"objectClassName":"ip network","handle":"XXXX-RIR","startAddress":"2001:db8::",
                "endAddress":"2001:db8:0:ffff:ffff:ffff:ffff:ffff","ipVersion":"v6","name":"NET-RTR-1",
                "type":"DIRECT ALLOCATION","country":"AU","parentHandle":"YYYY-RIR","status":["active"],
                "events":[{"eventAction":"registration","eventDate":"1990-12-31T23:59:59Z"},
                          {"eventAction":"last changed","eventDate":"1991-12-31T23:59:59Z"}],
                "entities":[{"objectClassName":"entity","roles":["registrant"],
                             "vcardArray":["vcard",[["version",{},"text","4.0"],["fn",{},"text","Joe User"]]]}]}"#,
        )
        .unwrap();
        let n = parse_network(&v);
        assert_eq!(n.handle.as_deref(), Some("XXXX-RIR"));
        assert_eq!(n.start.as_deref(), Some("2001:db8::"));
        assert_eq!(n.end.as_deref(), Some("2001:db8:0:ffff:ffff:ffff:ffff:ffff"));
        assert_eq!(
            (n.name.as_deref(), n.kind.as_deref(), n.country.as_deref()),
            (Some("NET-RTR-1"), Some("DIRECT ALLOCATION"), Some("AU"))
        );
        assert_eq!(n.parent_handle.as_deref(), Some("YYYY-RIR"));
        assert_eq!(n.registrant.as_deref(), Some("Joe User"));
        assert_eq!(n.created.as_deref(), Some("1990-12-31T23:59:59Z"));
        assert_eq!(n.status, ["active"]);
        let autnum: Value = serde_json::from_str(
            r#"{"objectClassName":"autnum","startAutnum":64496,"endAutnum":64511,"name":"AS-RTR-1"}"#,
        )
        .unwrap();
        let a = parse_network(&autnum);
        assert_eq!((a.start.as_deref(), a.end.as_deref()), (Some("64496"), Some("64511")));
    }

    /// The domain object of RFC 9083 appendix C's example, abridged to the members read here.
    #[test]
    fn a_domain_answer_reads_as_rfc_9083_describes_it() {
        let v: Value = serde_json::from_str(
            r#"{"objectClassName":"domain","ldhName":"XN--FO-5JA.EXAMPLE",
                "status":["locked","transfer prohibited"],
                "nameservers":[{"objectClassName":"nameserver","ldhName":"ns1.example.com"},
                               {"objectClassName":"nameserver","ldhName":"ns2.example.com."}],
                "secureDNS":{"zoneSigned":true,"delegationSigned":true},
                "events":[{"eventAction":"registration","eventDate":"1990-12-31T23:59:59Z"},
                          {"eventAction":"last changed","eventDate":"1991-12-31T23:59:59Z"},
                          {"eventAction":"expiration","eventDate":"2031-12-31T23:59:59Z"}],
                "entities":[{"objectClassName":"entity","handle":"XXXX","roles":["registrant"],
                             "vcardArray":["vcard",[["version",{},"text","4.0"],["fn",{},"text","Joe User"]]]},
                            {"objectClassName":"entity","roles":["registrar"],
                             "publicIds":[{"type":"IANA Registrar ID","identifier":"1"}],
                             "vcardArray":["vcard",[["version",{},"text","4.0"],["fn",{},"text","Example Registrar"]]]}]}"#,
        )
        .unwrap();
        let d = parse_domain(&v);
        assert_eq!(d.name.as_deref(), Some("xn--fo-5ja.example"));
        assert_eq!(d.registrar.as_deref(), Some("Example Registrar"));
        assert_eq!(d.registrar_iana_id.as_deref(), Some("1"));
        assert_eq!(d.created.as_deref(), Some("1990-12-31T23:59:59Z"));
        assert_eq!(d.updated.as_deref(), Some("1991-12-31T23:59:59Z"));
        assert_eq!(d.expires.as_deref(), Some("2031-12-31T23:59:59Z"));
        assert_eq!(d.status, ["locked", "transfer prohibited"]);
        assert_eq!(d.nameservers, ["ns1.example.com", "ns2.example.com"]);
        assert_eq!(d.dnssec, Some(true));
    }
}
