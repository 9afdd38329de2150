//! Registration data of a domain (spec 4.5, `whois`): RDAP first, WHOIS on port 43 when the
//! registry has no RDAP service or its service fails.
//!
//! RDAP (`rdap.rs`) answers in JSON with defined members, so it is asked first; WHOIS
//! (`whois_text.rs`) answers in free text that is read as well as its many formats allow.
//! Every answer names the protocol, the server and the time the question took; a WHOIS answer
//! also carries its text and the reason RDAP was not used.

use serde_json::Value;

use super::{
    dns_common::{millis, now, parse_domain},
    rdap, whois_text,
};
use crate::{
    net::{FetchOptions, OutboundError},
    prelude::*,
};

#[derive(Debug, Deserialize, JsonSchema, Validate)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct WhoisInput {
    /// The registered domain name (`example.com`, not `www.example.com`); Unicode names are
    /// converted to their ASCII form.
    #[schemars(length(min = 1, max = 253))]
    domain: String,
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

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct WhoisOutput {
    domain: String,
    /// Whether the registry knows the name. When false, the other fields are empty.
    registered: bool,
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

/// A date as RFC 3339 when it reads as one (or as a bare date), as written otherwise.
fn date(text: Option<String>) -> Option<String> {
    text.map(|t| match crate::time::parse_iso(&t) {
        Ok(ts) => ts.to_string(),
        Err(_) => t,
    })
}

/// What RDAP says about `domain`: `Ok(None)` when the registry has no RDAP service, an error
/// message when the service failed.
async fn ask_rdap(ctx: &Ctx, domain: &str) -> Result<Option<WhoisOutput>, String> {
    let bootstrap = rdap::bootstrap(&ctx.net).await;
    let Some(base) = bootstrap.server_for(domain) else { return Ok(None) };
    let url = url::Url::parse(&base)
        .and_then(|b| b.join(&format!("domain/{domain}")))
        .map_err(|e| format!("the bootstrap's RDAP URL {base:?} is unusable: {e}"))?;
    let started = std::time::Instant::now();
    let chain = ctx.net.fetch(url.clone(), FetchOptions { follow: true, read_body: true }).await;
    let chain = chain.into_result(ctx.net.config.redirects).map_err(|e| format!("RDAP at {url}: {e}"))?;
    let last = chain.last().ok_or("RDAP gave no answer")?;
    let source = WhoisSource {
        protocol: "rdap",
        server: url.to_string(),
        address: last.address.map(|a| a.to_string()),
        bootstrap: Some(bootstrap.source.clone()),
        query_ms: millis(started.elapsed()),
    };
    let mut out = WhoisOutput {
        domain: domain.to_string(),
        registered: false,
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
        checked_at: now(),
    };
    match last.status {
        // RFC 7480 section 5.3: 404 is the answer for an object the server does not hold.
        404 => Ok(Some(out)),
        200 => {
            let body = chain.body.as_deref().unwrap_or_default();
            let v: Value =
                serde_json::from_slice(body).map_err(|e| format!("RDAP at {url} answered with invalid JSON: {e}"))?;
            if v.get("objectClassName").and_then(Value::as_str) != Some("domain") {
                return Err(format!("RDAP at {url} answered with something other than a domain object"));
            }
            let d = rdap::parse_domain(&v);
            if let Some(name) = d.name {
                out.domain = name;
            }
            out.registered = true;
            out.registrar = d.registrar;
            out.registrar_iana_id = d.registrar_iana_id;
            out.created_at = date(d.created);
            out.updated_at = date(d.updated);
            out.expires_at = date(d.expires);
            out.status = d.status;
            out.nameservers = d.nameservers;
            out.dnssec = d.dnssec;
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
/// (`example.com`); subdomains are not registrations.
#[op(post "/v1/whois" as whoisLookup, tag = Lookups,
     rejects = "a domain that is not a DNS name of two labels or more, an IP address, or a name under a \
                suffix with no known RDAP or WHOIS server",
     errors(UPSTREAM_ERROR, UPSTREAM_TIMEOUT),
     redact(".data.source.queryMs", ".data.source.bootstrap", ".data.checkedAt"),
     example(rdap, {"domain": "site.example"}),
     example(rdap_not_registered, {"domain": "unregistered.example"}),
     example(rdap_failed_whois_answered, {"domain": "broken.example"}),
     example(whois_only, {"domain": "registered.test"}),
     example(whois_not_registered, {"domain": "unregistered.test"}),
     example(ip_address, {"domain": "192.0.2.1"}, status = 400))]
async fn whois_lookup(input: WhoisInput, ctx: &Ctx) -> Result<WhoisOutput, ApiError> {
    if input.domain.trim().trim_matches(['[', ']']).parse::<std::net::IpAddr>().is_ok() {
        return Err(ApiError::invalid(
            "domain",
            "is an IP address; this operation looks up registered domain names (an address's network is in ip/lookup)",
        ));
    }
    let name = parse_domain("domain", &input.domain)?;
    let ascii = name.to_ascii();
    let domain = ascii.trim_end_matches('.').to_string();
    if !domain.contains('.') {
        return Err(ApiError::invalid(
            "domain",
            "is a top-level domain alone; give a registered name such as example.com",
        ));
    }
    let rdap_unavailable = match ask_rdap(ctx, &domain).await {
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
    let f = whois_text::parse(&answer.text);
    Ok(WhoisOutput {
        domain,
        registered: f.registered,
        registrar: f.registrar,
        registrar_iana_id: f.registrar_iana_id,
        created_at: date(f.created),
        updated_at: date(f.updated),
        expires_at: date(f.expires),
        status: f.status,
        nameservers: f.nameservers,
        dnssec: f.dnssec,
        source: WhoisSource {
            protocol: "whois",
            server: answer.server,
            address: Some(answer.address.to_string()),
            bootstrap: None,
            query_ms: millis(answer.took),
        },
        rdap_unavailable: Some(rdap_unavailable),
        whois_text: Some(answer.text),
        checked_at: now(),
    })
}
