//! WHOIS over port 43, the fallback when a domain's registry has no RDAP service: which
//! server to ask and how, and what the free-form answer says.
//!
//! Servers come from `WRENCH_WHOIS_SERVERS` first, then from the embedded list
//! (`data/whois/whois-servers.json`, the server list of the npm package `whois` 2.16.2,
//! BSD-2-Clause), by the longest matching suffix. Answers have no standard form; the fields
//! read here are the `Key: value` spellings of the ICANN registry and registrar agreements and
//! the common ccTLD variants. A field not found is reported absent, never guessed, and the
//! whole answer is returned beside what was read from it.

use std::{collections::HashMap, sync::LazyLock};

use serde_json::Value;

use wrench_infra::config::outbound::WhoisServer;

/// A server and the query it expects (`$addr` stands for the domain).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct QueryPlan {
    pub host: String,
    pub port: u16,
    pub query: String,
}

/// A listed server: host, query template, and whether the name is sent in its ASCII form.
type Listed = (String, String, bool);

/// Builds the embedded table now (the warm-up and `wrench tables` call it).
pub fn warm() {
    let _ = &*SERVERS;
}

/// Suffix to its server; `None` where the list says there is no server.
static SERVERS: LazyLock<HashMap<String, Option<Listed>>> = LazyLock::new(|| {
    let v: HashMap<String, Value> =
        serde_json::from_slice(&wrench_infra::blobs::WHOIS_SERVERS.bytes()).expect("the embedded WHOIS list parses");
    v.into_iter()
        .filter(|(k, _)| k != "_")
        .map(|(k, v)| {
            let entry = match v {
                Value::String(host) => Some((host, "$addr".to_string(), true)),
                Value::Object(o) => o.get("host").and_then(Value::as_str).map(|host| {
                    let query = o.get("query").and_then(Value::as_str).unwrap_or("$addr").trim_end().to_string();
                    (host.to_string(), query, o.get("punycode").and_then(Value::as_bool).unwrap_or(true))
                }),
                _ => None,
            };
            (k.to_ascii_lowercase(), entry)
        })
        .collect()
});

/// The server for `domain` (ASCII), or why there is none.
pub fn plan(domain: &str, overrides: &[WhoisServer]) -> Result<QueryPlan, String> {
    let labels: Vec<&str> = domain.split('.').collect();
    for start in 0..labels.len() {
        let suffix = labels[start..].join(".");
        if let Some(s) = overrides.iter().find(|s| s.suffix == suffix) {
            return Ok(QueryPlan { host: s.host.clone(), port: s.port, query: domain.to_string() });
        }
        match SERVERS.get(&suffix) {
            Some(Some((host, template, punycode))) => {
                let name = if *punycode { domain.to_string() } else { idna::domain_to_unicode(domain).0 };
                return Ok(QueryPlan { host: host.clone(), port: 43, query: template.replace("$addr", &name) });
            }
            Some(None) => return Err(format!("the .{suffix} registry runs no public WHOIS server")),
            None => {}
        }
    }
    Err(format!("no RDAP service and no WHOIS server is known for .{}", labels.last().copied().unwrap_or(domain)))
}

/// What a registry says of a domain, from a WHOIS answer or an RDAP one (`rdap.rs`).
#[derive(Debug, Default, PartialEq)]
pub struct DomainRecord {
    /// `false` when the answer says the name is not registered.
    pub registered: bool,
    /// The name as the registry spells it, when it says.
    pub name: Option<String>,
    pub registrar: Option<String>,
    pub registrar_iana_id: Option<String>,
    pub created: Option<String>,
    pub updated: Option<String>,
    pub expires: Option<String>,
    pub status: Vec<String>,
    pub nameservers: Vec<String>,
    pub dnssec: Option<bool>,
}

const REGISTRAR: &[&str] = &["registrar", "sponsoring registrar", "registrar name", "registrar organization"];
const IANA_ID: &[&str] = &["registrar iana id"];
const CREATED: &[&str] =
    &["creation date", "created on", "created", "registered on", "registration time", "domain registration date"];
const UPDATED: &[&str] =
    &["updated date", "last updated on", "last-modified", "last modified", "changed", "last updated"];
const EXPIRES: &[&str] = &[
    "registry expiry date",
    "registrar registration expiration date",
    "expiration date",
    "expiry date",
    "paid-till",
    "expires on",
    "expires",
    "expire",
];
const STATUS: &[&str] = &["domain status", "status", "state"];
const NAMESERVER: &[&str] = &["name server", "nameserver", "nserver", "name servers", "nameservers"];
const DNSSEC: &[&str] = &["dnssec"];
/// Phrases registries use for a name that is not registered.
const NOT_FOUND: &[&str] = &[
    "no match for",
    "not found",
    "no data found",
    "no entries found",
    "status: free",
    "status: available",
    "is available for registration",
    "no object found",
];

/// Reads the fields of a WHOIS answer. For a field given several times under different keys,
/// the earliest key in its list wins (the registry's `Registry Expiry Date` over a registrar's).
pub fn parse(text: &str) -> DomainRecord {
    let lines: Vec<(String, String)> = text
        .lines()
        .filter(|l| !l.trim_start().starts_with(['%', '#', '>']))
        .filter_map(|l| {
            let (k, v) = l.split_once(':')?;
            let v = v.trim();
            (!v.is_empty()).then(|| (k.trim().to_ascii_lowercase(), v.to_string()))
        })
        .collect();
    let first = |keys: &[&str]| -> Option<String> {
        keys.iter().find_map(|k| lines.iter().find(|(key, _)| key == k).map(|(_, v)| v.clone()))
    };
    let all = |keys: &[&str]| -> Vec<String> {
        lines.iter().filter(|(key, _)| keys.contains(&key.as_str())).map(|(_, v)| v.clone()).collect()
    };
    let lower = text.to_ascii_lowercase();
    let has_fields = first(CREATED).is_some() || first(REGISTRAR).is_some() || !all(NAMESERVER).is_empty();
    let mut nameservers: Vec<String> = Vec::new();
    for v in all(NAMESERVER) {
        // `ns1.example.com 192.0.2.1` and `ns1.example.com.` both name ns1.example.com.
        let name = v.split_whitespace().next().unwrap_or("").trim_end_matches('.').to_ascii_lowercase();
        if !name.is_empty() && !nameservers.contains(&name) {
            nameservers.push(name);
        }
    }
    let mut status: Vec<String> = Vec::new();
    for v in all(STATUS) {
        // `clientTransferProhibited https://icann.org/epp#clientTransferProhibited` is one
        // code and its explanation; `REGISTERED, DELEGATED` is two codes.
        let codes: Vec<String> = if v.contains("://") {
            v.split_whitespace().next().map(str::to_string).into_iter().collect()
        } else {
            v.split(',').map(|c| c.trim().to_string()).collect()
        };
        for code in codes {
            if !code.is_empty() && !status.contains(&code) {
                status.push(code);
            }
        }
    }
    DomainRecord {
        registered: has_fields || !NOT_FOUND.iter().any(|p| lower.contains(p)),
        name: None,
        registrar: first(REGISTRAR),
        registrar_iana_id: first(IANA_ID),
        created: first(CREATED),
        updated: first(UPDATED),
        expires: first(EXPIRES),
        status,
        nameservers,
        dnssec: first(DNSSEC).map(|v| {
            let v = v.to_ascii_lowercase();
            v.starts_with("signed") || v == "yes" || v.contains("signeddelegation")
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn servers_come_from_overrides_then_the_list_by_longest_suffix() {
        let com = plan("example.com", &[]).unwrap();
        assert_eq!(
            (com.host.as_str(), com.port, com.query.as_str()),
            ("whois.verisign-grs.com", 43, "DOMAIN example.com")
        );
        assert_eq!(plan("example.co.uk", &[]).unwrap().host, "whois.nic.uk");
        assert_eq!(plan("example.uk.com", &[]).unwrap().host, "whois.centralnic.net");
        let de = plan("xn--mller-kva.de", &[]).unwrap();
        assert_eq!(de.query, "-T dn müller.de");
        let over = [WhoisServer { suffix: "com".into(), host: "127.0.0.2".into(), port: 8043 }];
        assert_eq!(
            plan("example.com", &over).unwrap(),
            QueryPlan { host: "127.0.0.2".into(), port: 8043, query: "example.com".into() }
        );
        assert!(plan("example.mil", &[]).unwrap_err().contains("no public WHOIS"));
        assert!(plan("example.invalid", &[]).is_err());
    }

    /// The registry answer format of the ICANN Registry Agreement (specification 4, 1.4.2).
    #[test]
    fn an_icann_registry_answer_is_read() {
        let text = "Domain Name: EXAMPLE.TLD\r\nRegistry Domain ID: D1234567-TLD\r\n\
            Registrar WHOIS Server: whois.example-registrar.tld\r\nUpdated Date: 2009-05-29T20:13:00Z\r\n\
            Creation Date: 2000-10-08T00:45:00Z\r\nRegistry Expiry Date: 2010-10-08T00:44:59Z\r\n\
            Registrar: EXAMPLE REGISTRAR LLC\r\nRegistrar IANA ID: 5555555\r\n\
            Domain Status: clientDeleteProhibited https://icann.org/epp#clientDeleteProhibited\r\n\
            Domain Status: clientRenewProhibited https://icann.org/epp#clientRenewProhibited\r\n\
            Name Server: NS01.EXAMPLE-REGISTRAR.TLD\r\nName Server: NS02.EXAMPLE-REGISTRAR.TLD\r\n\
            DNSSEC: signedDelegation\r\n>>> Last update of WHOIS database: 2009-05-29T20:15:00Z <<<\r\n";
        let f = parse(text);
        assert!(f.registered);
        assert_eq!(f.registrar.as_deref(), Some("EXAMPLE REGISTRAR LLC"));
        assert_eq!(f.registrar_iana_id.as_deref(), Some("5555555"));
        assert_eq!(f.created.as_deref(), Some("2000-10-08T00:45:00Z"));
        assert_eq!(f.updated.as_deref(), Some("2009-05-29T20:13:00Z"));
        assert_eq!(f.expires.as_deref(), Some("2010-10-08T00:44:59Z"));
        assert_eq!(f.status, ["clientDeleteProhibited", "clientRenewProhibited"]);
        assert_eq!(f.nameservers, ["ns01.example-registrar.tld", "ns02.example-registrar.tld"]);
        assert_eq!(f.dnssec, Some(true));
    }

    #[test]
    fn ripe_style_answers_and_absent_names_are_read() {
        let f = parse(
            "% comment\ndomain: example.ru\nnserver: a.dns.example. 192.0.2.1\nstate: REGISTERED, DELEGATED\n\
                       created: 2004-01-01T00:00:00Z\npaid-till: 2030-01-01T00:00:00Z\n",
        );
        assert_eq!(f.nameservers, ["a.dns.example"]);
        assert_eq!(f.status, ["REGISTERED", "DELEGATED"]);
        assert_eq!(f.expires.as_deref(), Some("2030-01-01T00:00:00Z"));
        let absent =
            parse("No match for \"NOPE.COM\".\r\n>>> Last update of whois database: 2026-11-25T00:00:00Z <<<\r\n");
        assert!(!absent.registered);
        assert_eq!(absent, DomainRecord { registered: false, ..DomainRecord::default() });
    }
}
