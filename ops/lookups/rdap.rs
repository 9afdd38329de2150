//! RDAP (RFC 9082, RFC 9083) for domains: which server to ask, from the IANA bootstrap
//! registry (RFC 9224), and what its JSON answer says.
//!
//! The bootstrap registry is embedded as a snapshot (`data/whois/rdap-dns-services.json`, the
//! `services` of IANA's `dns.json`) and refreshed from `WRENCH_RDAP_BOOTSTRAP_URL` when a lookup
//! finds it older than a day: a refresh that fails keeps the data in hand and is not tried
//! again for an hour, so an unreachable IANA costs one bounded wait per hour, not one per
//! request.

use std::{
    sync::{Arc, LazyLock},
    time::{Duration, Instant},
};

use serde_json::Value;
use tokio::sync::Mutex;

use crate::net::{FetchOptions, Net};

/// The embedded snapshot: npm package `freewhois` 1.2.6, `tlds.json` (MIT), itself a copy of
/// the `services` of IANA's RDAP bootstrap file for DNS.
const EMBEDDED: &str = include_str!("../../data/whois/rdap-dns-services.json");
pub(crate) const EMBEDDED_SOURCE: &str = "embedded snapshot of the IANA RDAP bootstrap (npm freewhois 1.2.6)";
/// How long a refreshed registry is used before the next refresh.
const FRESH_FOR: Duration = Duration::from_secs(24 * 3600);
/// How long after a failed refresh the next one is tried.
const RETRY_AFTER: Duration = Duration::from_secs(3600);

/// The bootstrap registry: suffix (TLD) to the base URLs of its RDAP servers.
#[derive(Debug, Clone)]
pub(crate) struct Bootstrap {
    services: Vec<(Vec<String>, Vec<String>)>,
    /// Where the data came from, as the answers report it.
    pub(crate) source: String,
}

impl Bootstrap {
    /// Reads a bootstrap file: IANA's object with `services`, or the bare `services` array.
    pub(crate) fn parse(text: &str, source: String) -> Result<Bootstrap, String> {
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
    pub(crate) fn server_for(&self, domain: &str) -> Option<String> {
        let labels: Vec<&str> = domain.split('.').collect();
        for start in 0..labels.len() {
            let suffix = labels[start..].join(".");
            if let Some((_, urls)) = self.services.iter().find(|(s, _)| s.contains(&suffix)) {
                let https = urls.iter().find(|u| u.starts_with("https://"));
                return https.or(urls.first()).cloned();
            }
        }
        None
    }
}

struct State {
    current: Arc<Bootstrap>,
    /// When the current data was fetched (`None`: the embedded snapshot).
    fetched: Option<Instant>,
    last_attempt: Option<Instant>,
    /// The URL the data was fetched from; a different setting refetches.
    from: Option<String>,
}

static STATE: LazyLock<Mutex<State>> = LazyLock::new(|| {
    let embedded = Bootstrap::parse(EMBEDDED, EMBEDDED_SOURCE.into()).expect("the embedded bootstrap parses");
    Mutex::new(State { current: Arc::new(embedded), fetched: None, last_attempt: None, from: None })
});

/// The bootstrap registry to use now, refreshed first when it is due.
pub(crate) async fn bootstrap(net: &Net) -> Arc<Bootstrap> {
    let url = match net.config.rdap_bootstrap_url.join("dns.json") {
        Ok(u) => u,
        Err(_) => return STATE.lock().await.current.clone(),
    };
    let mut state = STATE.lock().await;
    let same_source = state.from.as_deref() == Some(url.as_str());
    let fresh = same_source && state.fetched.is_some_and(|t| t.elapsed() < FRESH_FOR);
    let tried_lately = same_source && state.last_attempt.is_some_and(|t| t.elapsed() < RETRY_AFTER);
    if fresh || tried_lately {
        return state.current.clone();
    }
    state.last_attempt = Some(Instant::now());
    state.from = Some(url.to_string());
    let chain = net.fetch(url.clone(), FetchOptions { follow: true, read_body: true }).await;
    let fetched = chain
        .into_result(net.config.redirects)
        .map_err(|e| e.to_string())
        .and_then(|c| match (c.last().map(|h| h.status), c.body) {
            (Some(200), Some(body)) => Ok(body),
            (status, _) => Err(format!("answered {status:?}")),
        })
        .and_then(|body| {
            let at = crate::time::rfc3339(crate::time::now());
            Bootstrap::parse(&String::from_utf8_lossy(&body), format!("{url} (fetched {at})"))
        });
    match fetched {
        Ok(b) => {
            state.current = Arc::new(b);
            state.fetched = Some(Instant::now());
        }
        Err(e) => {
            tracing::warn!(%url, error = %e, "the RDAP bootstrap could not be refreshed; keeping the data in hand")
        }
    }
    state.current.clone()
}

/// What an RDAP domain answer says, in the operation's terms.
#[derive(Debug, Default)]
pub(crate) struct RdapDomain {
    pub(crate) name: Option<String>,
    pub(crate) registrar: Option<String>,
    pub(crate) registrar_iana_id: Option<String>,
    pub(crate) created: Option<String>,
    pub(crate) updated: Option<String>,
    pub(crate) expires: Option<String>,
    pub(crate) status: Vec<String>,
    pub(crate) nameservers: Vec<String>,
    pub(crate) dnssec: Option<bool>,
}

/// The text of a vCard property (`fn`) in a jCard array (RFC 7095).
fn vcard_text(entity: &Value, property: &str) -> Option<String> {
    let props = entity.get("vcardArray")?.get(1)?.as_array()?;
    props.iter().find(|p| p.get(0).and_then(Value::as_str) == Some(property))?.get(3)?.as_str().map(str::to_string)
}

/// Reads an RDAP domain object (RFC 9083 section 5.3).
pub(crate) fn parse_domain(v: &Value) -> RdapDomain {
    let mut out = RdapDomain {
        name: v.get("ldhName").and_then(Value::as_str).map(|s| s.to_ascii_lowercase()),
        ..RdapDomain::default()
    };
    for event in v.get("events").and_then(Value::as_array).into_iter().flatten() {
        let date = event.get("eventDate").and_then(Value::as_str).map(str::to_string);
        match event.get("eventAction").and_then(Value::as_str) {
            Some("registration") => out.created = date,
            Some("expiration") => out.expires = date,
            Some("last changed") => out.updated = date,
            _ => {}
        }
    }
    out.status = v
        .get("status")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .map(str::to_string)
        .collect();
    out.nameservers = v
        .get("nameservers")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|n| n.get("ldhName").and_then(Value::as_str))
        .map(|n| n.trim_end_matches('.').to_ascii_lowercase())
        .collect();
    out.dnssec = v.get("secureDNS").and_then(|s| s.get("delegationSigned")).and_then(Value::as_bool);
    let registrar = v.get("entities").and_then(Value::as_array).into_iter().flatten().find(|e| {
        e.get("roles").and_then(Value::as_array).is_some_and(|r| r.iter().any(|r| r.as_str() == Some("registrar")))
    });
    if let Some(r) = registrar {
        out.registrar = vcard_text(r, "fn");
        out.registrar_iana_id = r
            .get("publicIds")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .find(|p| p.get("type").and_then(Value::as_str) == Some("IANA Registrar ID"))
            .and_then(|p| p.get("identifier").and_then(Value::as_str))
            .map(str::to_string);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_embedded_registry_finds_servers_by_longest_suffix() {
        let b = Bootstrap::parse(EMBEDDED, "embedded".into()).unwrap();
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
