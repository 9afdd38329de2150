//! Everything about a domain in one answer (`domain/report`): its DNS records, its
//! registration (the `whois` operation: RDAP, then WHOIS), its TLS and security headers (the
//! `ssl` operation), its home page's answer, and the technologies the answer reveals
//! (`tech_rules.rs`). The parts run concurrently within one outbound timeout; a part that
//! fails or runs out of time says why, and the others still answer.

use std::collections::BTreeMap;

use crate::lookups::{
    registration::whois::{WhoisInput, WhoisOutput, whois_lookup},
    tls::ssl::{SslInput, SslOutput, ssl_check},
};
use wrench_contract::prelude::*;
use wrench_infra::time::now_rfc3339;
use wrench_kit::hosts::dns::{DnsType, TypeAnswer, ask_all, parse_domain};
use wrench_kit::hosts::http_fetch::header_map;
use wrench_kit::hosts::tls::{default_http_port, default_https_port};
use wrench_kit::web::site_home::home_page_on;
use wrench_kit::web::tech_rules::{self, Technology};

#[derive(Debug, Deserialize, JsonSchema, Validate)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct DomainReportInput {
    /// The domain (`example.com` or `www.example.com`); registration is looked up for its
    /// registrable domain.
    #[schemars(length(min = 1, max = 253))]
    domain: String,
    /// The HTTPS port of the TLS check and the home page.
    #[serde(default = "default_https_port")]
    #[schemars(range(min = 1, max = 65535))]
    https_port: u16,
    /// The plain HTTP port, for the redirect check and the home page when HTTPS fails.
    #[serde(default = "default_http_port")]
    #[schemars(range(min = 1, max = 65535))]
    http_port: u16,
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct DnsPart {
    resolver: String,
    /// A, AAAA, CNAME, MX, NS, TXT, CAA and SOA, each with its status and records.
    records: Vec<TypeAnswer>,
    /// Why there are no records, when the time budget ran out.
    error: Option<String>,
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct Part<T> {
    /// The part's answer, as its own operation gives it; `null` when it failed.
    result: Option<T>,
    /// Why it failed.
    error: Option<String>,
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct HomePage {
    url: String,
    final_url: String,
    status: u16,
    headers: BTreeMap<String, String>,
    bytes: usize,
    title_found: bool,
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct DomainReportOutput {
    domain: String,
    /// The domain registration is looked up for (the public suffix plus one label).
    registrable_domain: String,
    dns: DnsPart,
    whois: Part<WhoisOutput>,
    ssl: Part<SslOutput>,
    http: Part<HomePage>,
    /// What the home page's headers and HTML reveal, with the evidence and the fact each
    /// rests on.
    technologies: Vec<Technology>,
    checked_at: String,
}

/// A part's answer, its failure, or `late` when it ran out of time (`None`).
fn part<T>(r: Option<Result<T, ApiError>>, late: &str) -> Part<T> {
    match r {
        Some(Ok(v)) => Part { result: Some(v), error: None },
        Some(Err(e)) => Part { result: None, error: Some(e.message.to_string()) },
        None => Part { result: None, error: Some(late.to_string()) },
    }
}

/// Report on a domain: DNS, registration, TLS, headers and technologies.
///
/// Runs, concurrently and within one outbound timeout: DNS (A, AAAA, CNAME, MX, NS, TXT, CAA,
/// SOA), the `whois` lookup of the registrable domain (RDAP first, WHOIS on port 43), the
/// `ssl` check (certificate, HTTP to HTTPS redirect, HSTS and security headers) and a fetch of
/// the home page (HTTPS, or HTTP when HTTPS cannot be reached) through the guarded client. The
/// technologies the page's headers, cookies and HTML reveal (server, CDN, hosting, framework,
/// CMS, language, analytics, libraries) are listed with their evidence and the fact each rule
/// rests on. A part that fails says why; the others still answer. Hosts in refused ranges are
/// refused for the network parts like everywhere.
#[op(post "/v1/domain/report" as domainReport, tag = Lookups,
     rejects = "a domain that is not a DNS name",
     errors(TARGET_FORBIDDEN),
     redact(".data.checkedAt", ".data.dns.records[].queryTimeMs", ".data.whois.result.source.queryMs",
            ".data.whois.result.source.bootstrap", ".data.whois.result.checkedAt", ".data.ssl.result.checkedAt",
            ".data.ssl.result.https.handshakeMs", ".data.ssl.result.certificate.notBefore",
            ".data.ssl.result.certificate.notAfter", ".data.ssl.result.certificate.daysRemaining",
            ".data.http.result.headers.date"),
     example(site, {"domain": "site.example", "httpsPort": 8443, "httpPort": 8080}),
     example(technologies, {"domain": "tech.site.example", "httpsPort": 8443, "httpPort": 8080}),
     example(private_refused, {"domain": "private.evil.example"}, status = 403),
     example(unknown_domain, {"domain": "nowhere.site.example", "httpsPort": 8443, "httpPort": 8080}),
     example(not_a_domain, {"domain": "http://example.com/"}, status = 400))]
async fn domain_report(input: DomainReportInput, ctx: &Ctx) -> Result<DomainReportOutput, ApiError> {
    let name = parse_domain("domain", &input.domain)?;
    let domain = name.to_ascii().trim_end_matches('.').to_ascii_lowercase();
    let registrable = psl::domain_str(&domain).unwrap_or(&domain).to_string();
    // The layer refuses a domain that leads to a refused address before anything else is done.
    let probe = url::Url::parse(&format!("https://{domain}:{}/", input.https_port))
        .map_err(|e| ApiError::invalid("domain", e.to_string()))?;
    // A name that does not resolve is not refused: the parts report what they find.
    if let Err(e @ wrench_infra::outbound::OutboundError::Forbidden(_)) = ctx.net.target(&probe).await {
        return Err(e.into_api("domain"));
    }
    let timeout = ctx.net.config.timeout;
    let deadline = tokio::time::Instant::now() + timeout;
    let types =
        [DnsType::A, DnsType::Aaaa, DnsType::Cname, DnsType::Mx, DnsType::Ns, DnsType::Txt, DnsType::Caa, DnsType::Soa];
    let ssl_input = SslInput { domain: domain.clone(), port: input.https_port, http_port: input.http_port };
    let (records, whois, ssl, page) = tokio::join!(
        tokio::time::timeout_at(deadline, ask_all(&ctx.net.resolver, &name, &types)),
        tokio::time::timeout_at(deadline, whois_lookup(WhoisInput { domain: registrable.clone() }, ctx)),
        tokio::time::timeout_at(deadline, ssl_check(ssl_input, ctx)),
        tokio::time::timeout_at(deadline, home_page_on(ctx, &domain, Some(input.https_port), Some(input.http_port))),
    );
    let budget = timeout.as_secs();
    let late = format!("no answer within the time budget ({budget} s, WRENCH_OUTBOUND_TIMEOUT)");
    let (http, technologies) = match page {
        Ok(Ok(page)) => {
            let headers = page.headers.clone();
            let html = page.html.clone();
            let technologies =
                wrench_infra::cpu::run(move || Ok(tech_rules::detect(&headers, &html))).await.unwrap_or_default();
            let home = HomePage {
                url: page.url.to_string(),
                final_url: page.final_url.to_string(),
                status: page.status,
                headers: header_map(&page.headers),
                bytes: page.bytes,
                title_found: page.html.to_ascii_lowercase().contains("<title"),
            };
            (Part { result: Some(home), error: None }, technologies)
        }
        Ok(Err(e)) => (part::<HomePage>(Some(Err(e)), &late), Vec::new()),
        Err(_) => (part::<HomePage>(None, &late), Vec::new()),
    };
    Ok(DomainReportOutput {
        domain,
        registrable_domain: registrable,
        dns: DnsPart {
            resolver: ctx.net.resolver.upstreams().to_string(),
            error: records.is_err().then(|| late.clone()),
            records: records.unwrap_or_default(),
        },
        whois: part(whois.ok(), &late),
        ssl: part(ssl.ok(), &late),
        http,
        technologies,
        checked_at: now_rfc3339(),
    })
}
