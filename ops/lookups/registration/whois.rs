//! Registration data of a domain (`whois`): RDAP first, WHOIS on port 43 when the
//! registry has no RDAP service or its service fails. IP addresses and AS numbers are looked
//! up over RDAP too (the regional registries' services; there is no WHOIS fallback for them).
//!
//! RDAP (`rdap.rs`) answers in JSON with defined members, so it is asked first; WHOIS
//! (`whois_text.rs`) answers in free text that is read as well as its many formats allow.
//! Every answer names the protocol, the server and the time the question took; a WHOIS answer
//! also carries its text and the reason RDAP was not used.

use serde_json::Value;

use wrench_contract::prelude::*;
use wrench_infra::outbound::OutboundError;
use wrench_infra::time::now_rfc3339;
use wrench_kit::hosts::dns::{millis, parse_domain};
use wrench_kit::hosts::rdap;
use wrench_kit::hosts::whois_text;

#[derive(Debug, Deserialize, JsonSchema, Validate)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub(crate) struct WhoisInput {
    /// The registered domain name (`example.com`, not `www.example.com`; Unicode names are
    /// converted to their ASCII form), or a public IP address, or an AS number (`AS64500`).
    #[schemars(length(min = 1, max = 253))]
    pub(crate) domain: String,
}

/// What is looked up.
enum Query {
    Domain(String),
    Ip(std::net::IpAddr),
    Asn(u32),
}

impl Query {
    fn kind(&self) -> &'static str {
        match self {
            Query::Domain(_) => "domain",
            Query::Ip(_) => "ip",
            Query::Asn(_) => "asn",
        }
    }

    fn text(&self) -> String {
        match self {
            Query::Domain(d) => d.clone(),
            Query::Ip(ip) => ip.to_string(),
            Query::Asn(n) => format!("AS{n}"),
        }
    }
}

/// Reads the input as an AS number (`AS64500`), an IP address or a domain name.
fn parse_query(ctx: &Ctx, text: &str) -> Result<Query, ApiError> {
    let t = text.trim();
    if let Some(digits) = t
        .strip_prefix("AS")
        .or_else(|| t.strip_prefix("as"))
        .filter(|d| !d.is_empty() && d.bytes().all(|b| b.is_ascii_digit()))
    {
        let n =
            digits.parse::<u32>().map_err(|_| ApiError::invalid("domain", "is an AS number larger than 4294967295"))?;
        return Ok(Query::Asn(n));
    }
    if let Ok(ip) = t.trim_matches(['[', ']']).parse::<std::net::IpAddr>() {
        if let Err(r) = ctx.net.policy.check(ip) {
            return Err(ApiError::invalid(
                "domain",
                format!("is {}; registries hold no records for such addresses", r.describe(ip)),
            ));
        }
        return Ok(Query::Ip(ip));
    }
    let name = parse_domain("domain", t)?;
    let ascii = name.to_ascii();
    let domain = ascii.trim_end_matches('.').to_string();
    if !domain.contains('.') {
        return Err(ApiError::invalid(
            "domain",
            "is a top-level domain alone; give a registered name such as example.com",
        ));
    }
    Ok(Query::Domain(domain))
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct WhoisSource {
    /// `rdap` or `whois`.
    protocol: &'static str,
    /// The RDAP URL asked, or the WHOIS server as `host:port`.
    server: String,
    /// The address the answer came from.
    #[serde(skip_serializing_if = "Option::is_none")]
    address: Option<String>,
    /// The RDAP bootstrap registry the server was chosen from (RDAP only).
    #[serde(skip_serializing_if = "Option::is_none")]
    bootstrap: Option<String>,
    query_ms: f64,
}

/// The network or AS number range an IP address or AS number belongs to.
#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub(crate) struct NetworkOutput {
    /// The registry's identifier of the network or range (`NET-192-0-2-0-1`).
    handle: Option<String>,
    name: Option<String>,
    /// The registry's type (`DIRECT ALLOCATION`, `ASSIGNED PA`...).
    #[serde(rename = "type")]
    kind: Option<String>,
    /// ISO 3166-1 alpha-2 code, when the registry gives one.
    country: Option<String>,
    /// First address or AS number of the range.
    start: Option<String>,
    /// Last address or AS number of the range.
    end: Option<String>,
    /// The handle of the enclosing network.
    parent_handle: Option<String>,
    /// The holder's name (the entity with the registrant role).
    registrant: Option<String>,
    /// Where to report abuse: the e-mail address of the entity with the abuse role (at the
    /// top or inside another entity, as the registries nest it).
    abuse_email: Option<String>,
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub(crate) struct WhoisOutput {
    /// The name, address or AS number looked up, normalised (`AS64500`).
    domain: String,
    /// `domain`, `ip` or `asn`.
    kind: &'static str,
    /// Whether the registry holds the name, address or number. When false, the other fields
    /// are empty.
    registered: bool,
    /// For an IP address or AS number: the registered network or range.
    #[serde(skip_serializing_if = "Option::is_none")]
    network: Option<NetworkOutput>,
    registrar: Option<String>,
    /// The registrar's IANA ID.
    registrar_iana_id: Option<String>,
    /// RFC 3339 when the source's date could be read as a date, as written otherwise.
    created_at: Option<String>,
    updated_at: Option<String>,
    expires_at: Option<String>,
    /// EPP status codes (`clientTransferProhibited`) or RDAP statuses (`client transfer
    /// prohibited`), as the source gives them.
    status: Vec<String>,
    nameservers: Vec<String>,
    /// Whether the delegation is signed (DNSSEC), when the source says.
    dnssec: Option<bool>,
    source: WhoisSource,
    /// Why RDAP was not used, when the answer came from WHOIS.
    #[serde(skip_serializing_if = "Option::is_none")]
    rdap_unavailable: Option<String>,
    /// The WHOIS server's whole answer (WHOIS only; at most 256 KiB).
    #[serde(skip_serializing_if = "Option::is_none")]
    whois_text: Option<String>,
    checked_at: String,
}

impl WhoisOutput {
    /// The answer for `query` before anything the registry said is taken in.
    fn unregistered(query: &Query, source: WhoisSource) -> WhoisOutput {
        WhoisOutput {
            domain: query.text(),
            kind: query.kind(),
            registered: false,
            network: None,
            registrar: None,
            registrar_iana_id: None,
            created_at: None,
            updated_at: None,
            expires_at: None,
            status: Vec::new(),
            nameservers: Vec::new(),
            dnssec: None,
            source,
            rdap_unavailable: None,
            whois_text: None,
            checked_at: now_rfc3339(),
        }
    }

    /// Takes what a registry said of a domain.
    fn fill(&mut self, r: whois_text::DomainRecord) {
        if let Some(name) = r.name {
            self.domain = name;
        }
        self.registered = r.registered;
        self.registrar = r.registrar;
        self.registrar_iana_id = r.registrar_iana_id;
        self.created_at = date(r.created);
        self.updated_at = date(r.updated);
        self.expires_at = date(r.expires);
        self.status = r.status;
        self.nameservers = r.nameservers;
        self.dnssec = r.dnssec;
    }
}

/// A date as RFC 3339 when it reads as one (or as a bare date), as written otherwise.
fn date(text: Option<String>) -> Option<String> {
    text.map(|t| match wrench_infra::time::parse_iso(&t) {
        Ok(ts) => ts.to_string(),
        Err(_) => t,
    })
}

/// What RDAP says: `Ok(None)` when the bootstrap registry names no RDAP service, an error
/// message when the service (or the bootstrap registry itself) cannot be had.
async fn ask_rdap(ctx: &Ctx, query: &Query) -> Result<Option<WhoisOutput>, String> {
    let registry = match query {
        Query::Domain(_) => rdap::Registry::Dns,
        Query::Ip(std::net::IpAddr::V4(_)) => rdap::Registry::Ipv4,
        Query::Ip(std::net::IpAddr::V6(_)) => rdap::Registry::Ipv6,
        Query::Asn(_) => rdap::Registry::Asn,
    };
    let Some(bootstrap) = rdap::bootstrap(&ctx.net, registry).await else {
        return Err(format!(
            "the IANA RDAP bootstrap registry for {} is not embedded and could not be fetched from {} \
             (WRENCH_RDAP_BOOTSTRAP_URL); it is tried again within the hour",
            if registry == rdap::Registry::Asn { "AS numbers" } else { "IP addresses" },
            ctx.net.config.rdap_bootstrap_url
        ));
    };
    let (base, path) = match query {
        Query::Domain(d) => (bootstrap.server_for(d), format!("domain/{d}")),
        Query::Ip(ip) => (bootstrap.server_for_ip(*ip), format!("ip/{ip}")),
        Query::Asn(n) => (bootstrap.server_for_asn(*n), format!("autnum/{n}")),
    };
    let Some(base) = base else { return Ok(None) };
    let url = url::Url::parse(&base)
        .and_then(|b| b.join(&path))
        .map_err(|e| format!("the bootstrap's RDAP URL {base:?} is unusable: {e}"))?;
    let started = std::time::Instant::now();
    let chain = ctx.net.get(url.clone()).await.map_err(|e| format!("RDAP at {url}: {e}"))?;
    let last = chain.last().ok_or("RDAP gave no answer")?;
    let source = WhoisSource {
        protocol: "rdap",
        server: url.to_string(),
        address: last.address.map(|a| a.to_string()),
        bootstrap: Some(bootstrap.source.clone()),
        query_ms: millis(started.elapsed()),
    };
    let mut out = WhoisOutput::unregistered(query, source);
    match last.status {
        // RFC 7480 section 5.3: 404 is the answer for an object the server does not hold.
        404 => Ok(Some(out)),
        200 => {
            let body = chain.body.as_deref().unwrap_or_default();
            let v: Value =
                serde_json::from_slice(body).map_err(|e| format!("RDAP at {url} answered with invalid JSON: {e}"))?;
            let class = v.get("objectClassName").and_then(Value::as_str).unwrap_or_default();
            let expected = match query {
                Query::Domain(_) => "domain",
                Query::Ip(_) => "ip network",
                Query::Asn(_) => "autnum",
            };
            if class != expected {
                return Err(format!("RDAP at {url} answered with a {class:?} object instead of a {expected:?} one"));
            }
            out.registered = true;
            if let Query::Domain(_) = query {
                out.fill(rdap::parse_domain(&v));
            } else {
                let n = rdap::parse_network(&v);
                out.created_at = date(n.created);
                out.updated_at = date(n.updated);
                out.status = n.status;
                out.network = Some(NetworkOutput {
                    handle: n.handle,
                    name: n.name,
                    kind: n.kind,
                    country: n.country,
                    start: n.start,
                    end: n.end,
                    parent_handle: n.parent_handle,
                    registrant: n.registrant,
                    abuse_email: n.abuse_email,
                });
            }
            Ok(Some(out))
        }
        status => Err(format!("RDAP at {url} answered with status {status}")),
    }
}

/// Look up the registration of a domain (RDAP, then WHOIS).
///
/// Asks the domain's registry over RDAP, the server chosen from the IANA bootstrap registry
/// (an embedded snapshot, refreshed daily when the bootstrap URL is reachable). When the
/// registry has no RDAP service or it fails, asks the registry's WHOIS server on port 43 (an
/// embedded list of servers, overridable per suffix) and reads the usual fields from its text,
/// which is returned too. Reports the registrar, creation, update and expiry dates, status
/// codes, nameservers and DNSSEC, with the protocol, server and timing of the answer. A name
/// the registry does not hold is `registered: false`. Give the registered name itself
/// (`example.com`); subdomains are not registrations. A public IP address or an AS number
/// (`AS64500`) is looked up over RDAP at its regional registry and answered with the network
/// or range it belongs to; the bootstrap registries for them are fetched, not embedded.
#[op(post "/v1/whois" as whoisLookup, tag = Lookups,
     rejects = "a domain that is not a DNS name of two labels or more, a public IP address or an AS number, \
                or one no RDAP or WHOIS server is known for",
     errors(UPSTREAM_ERROR, UPSTREAM_TIMEOUT),
     redact(".data.source.queryMs", ".data.source.bootstrap", ".data.checkedAt"),
     example(rdap, {"domain": "site.example"}),
     example(rdap_not_registered, {"domain": "unregistered.example"}),
     example(rdap_failed_whois_answered, {"domain": "broken.example"}),
     example(whois_only, {"domain": "registered.test"}),
     example(whois_not_registered, {"domain": "unregistered.test"}),
     example(ip_network, {"domain": "8.8.8.8"}),
     example(as_number, {"domain": "AS64500"}),
     example(private_address, {"domain": "10.1.2.3"}, status = 400),
     example(top_level_domain, {"domain": "com"}, status = 400))]
pub(crate) async fn whois_lookup(input: WhoisInput, ctx: &Ctx) -> Result<WhoisOutput, ApiError> {
    let query = parse_query(ctx, &input.domain)?;
    let domain = match &query {
        Query::Domain(d) => d.clone(),
        // Addresses and AS numbers: RDAP alone.
        other => {
            return match ask_rdap(ctx, other).await {
                Ok(Some(answer)) => Ok(answer),
                Ok(None) => Err(ApiError::invalid(
                    "domain",
                    format!("{} is in no range of the IANA RDAP bootstrap registry", other.text()),
                )),
                Err(e) => Err(ApiError::new(ErrorCode::UpstreamError, e)),
            };
        }
    };
    let rdap_unavailable = match ask_rdap(ctx, &query).await {
        Ok(Some(answer)) => return Ok(answer),
        Ok(None) => {
            format!("the IANA RDAP bootstrap names no RDAP service for .{}", domain.rsplit('.').next().unwrap_or(""))
        }
        Err(e) => e,
    };
    let plan = whois_text::plan(&domain, &ctx.net.config.whois_servers)
        .map_err(|e| ApiError::invalid("domain", format!("cannot be looked up: {rdap_unavailable}, and {e}")))?;
    let answer = ctx.net.whois_query(&plan.host, plan.port, &plan.query).await.map_err(|e| {
        let both = format!("{rdap_unavailable}; WHOIS: {e}");
        match e {
            OutboundError::Timeout(_) => ApiError::new(ErrorCode::UpstreamTimeout, both),
            _ => ApiError::new(ErrorCode::UpstreamError, both),
        }
    })?;
    let source = WhoisSource {
        protocol: "whois",
        server: answer.server,
        address: Some(answer.address.to_string()),
        bootstrap: None,
        query_ms: millis(answer.took),
    };
    let mut out = WhoisOutput::unregistered(&query, source);
    out.rdap_unavailable = Some(rdap_unavailable);
    out.fill(whois_text::parse(&answer.text));
    out.whois_text = Some(answer.text);
    Ok(out)
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;
    use wrench_infra::{config::Config, outbound::Net};

    /// With nothing at the bootstrap URL, domains are still routed by the embedded snapshot
    /// (IANA's data has no RDAP service for `.example`, so the fake WHOIS server answers), while
    /// addresses, whose registries are not embedded, fail saying why.
    #[tokio::test]
    async fn an_unreachable_bootstrap_leaves_the_embedded_snapshot_for_domains_only() {
        let mut vars = wrench_fakes::shared().settings();
        vars.retain(|(k, _)| k != "WRENCH_RDAP_BOOTSTRAP_URL");
        vars.push(("WRENCH_RDAP_BOOTSTRAP_URL".into(), format!("http://{}/no-bootstrap-here/", wrench_fakes::HTTP)));
        let mut ctx = Ctx::for_tests();
        ctx.config = Arc::new(Config::from_vars(&vars).unwrap());
        ctx.net = Arc::new(Net::new(&ctx.config.outbound, "http://test").unwrap());

        let domain = whois_lookup(WhoisInput { domain: "broken.example".into() }, &ctx).await.unwrap();
        assert_eq!((domain.source.protocol, domain.registered), ("whois", true));
        let why = domain.rdap_unavailable.unwrap();
        assert_eq!(why, "the IANA RDAP bootstrap names no RDAP service for .example");

        let address = whois_lookup(WhoisInput { domain: "8.8.8.8".into() }, &ctx).await.unwrap_err();
        assert_eq!(address.code, ErrorCode::UpstreamError);
        assert!(address.message.contains("is not embedded and could not be fetched"), "{}", address.message);
    }
}
