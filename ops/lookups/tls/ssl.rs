//! HTTPS support of a host (`ssl`): whether it speaks TLS and with which
//! certificate, whether plain HTTP sends visitors to HTTPS, and the security headers of its
//! HTTPS answer, with HSTS read out.
//!
//! Three contacts, all through the outbound layer: a TLS handshake that records the chain
//! whatever its state, a GET of `/` over HTTPS (headers only, not following redirects) and a
//! GET of `/` over HTTP. A host that answers on neither is 502; one that answers on one of
//! them gets a report saying what failed on the other.

use wrench_contract::prelude::*;
use wrench_infra::outbound::{FetchOptions, Hop, Net, OutboundError};
use wrench_infra::time::now_rfc3339;
use wrench_kit::hosts::dns::millis;
use wrench_kit::hosts::http_fetch::{header, hsts_flag, hsts_max_age};
use wrench_kit::hosts::tls::{chain_report, default_http_port, default_https_port, host_input, host_target};

#[derive(Debug, Deserialize, JsonSchema, Validate)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub(crate) struct SslInput {
    /// The host: a domain name (Unicode names are converted) or an IP address.
    #[schemars(length(min = 1, max = 253))]
    pub(crate) domain: String,
    /// The HTTPS port.
    #[serde(default = "default_https_port")]
    #[schemars(range(min = 1, max = 65535))]
    pub(crate) port: u16,
    /// The plain HTTP port, checked for a redirect to HTTPS.
    #[serde(default = "default_http_port")]
    #[schemars(range(min = 1, max = 65535))]
    pub(crate) http_port: u16,
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct HttpsReport {
    /// Whether a TLS handshake completed on the port.
    supported: bool,
    port: u16,
    /// The address the handshake was made with.
    #[serde(skip_serializing_if = "Option::is_none")]
    address: Option<String>,
    /// `TLS 1.3` or `TLS 1.2`.
    #[serde(skip_serializing_if = "Option::is_none")]
    protocol: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    cipher_suite: Option<String>,
    /// The application protocol agreed in the handshake (`h2`, `http/1.1`).
    #[serde(skip_serializing_if = "Option::is_none")]
    alpn: Option<String>,
    /// The status of `GET /` over HTTPS.
    #[serde(skip_serializing_if = "Option::is_none")]
    status: Option<u16>,
    /// What failed: the handshake, or the request after it.
    #[serde(skip_serializing_if = "Option::is_none")]
    error: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    handshake_ms: Option<f64>,
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct CertificateBrief {
    /// Whether the chain validates for the host now (trusted authority, validity, name).
    valid: bool,
    /// Why it does not.
    #[serde(skip_serializing_if = "Option::is_none")]
    reason: Option<String>,
    subject: Option<String>,
    issuer: Option<String>,
    subject_alt_names: Vec<String>,
    not_before: String,
    not_after: String,
    /// Whole days until the end of validity, negative once past.
    days_remaining: i64,
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct RedirectReport {
    port: u16,
    /// The status of `GET /` over plain HTTP.
    #[serde(skip_serializing_if = "Option::is_none")]
    status: Option<u16>,
    #[serde(skip_serializing_if = "Option::is_none")]
    location: Option<String>,
    /// Whether that answer is a redirect to an https URL.
    redirects_to_https: bool,
    /// Why plain HTTP could not be checked.
    #[serde(skip_serializing_if = "Option::is_none")]
    error: Option<String>,
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct HstsReport {
    /// Whether the HTTPS answer carries Strict-Transport-Security.
    present: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    value: Option<String>,
    /// Seconds browsers keep to HTTPS; absent when the value has no valid `max-age`.
    #[serde(skip_serializing_if = "Option::is_none")]
    max_age: Option<u64>,
    include_sub_domains: bool,
    preload: bool,
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct SecurityHeader {
    header: &'static str,
    present: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    value: Option<String>,
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub(crate) struct SslOutput {
    domain: String,
    https: HttpsReport,
    /// The certificate presented, when a handshake completed.
    #[serde(skip_serializing_if = "Option::is_none")]
    certificate: Option<CertificateBrief>,
    http_redirect: RedirectReport,
    hsts: HstsReport,
    /// The other security headers of the HTTPS answer (all absent when there was none).
    security_headers: Vec<SecurityHeader>,
    checked_at: String,
}

const OTHER_HEADERS: [&str; 5] =
    ["Content-Security-Policy", "X-Content-Type-Options", "X-Frame-Options", "Referrer-Policy", "Permissions-Policy"];

/// The first answer to `GET url` (no redirects followed), or why there is none.
async fn first_answer(ctx: &Ctx, url: url::Url) -> Result<Hop, OutboundError> {
    let chain = ctx.net.fetch(url, FetchOptions { follow: false, read_body: false }).await;
    let chain = chain.into_result(ctx.net.config.redirects)?;
    chain.hops.into_iter().next().ok_or_else(|| OutboundError::Unreachable("no answer".into()))
}

/// Check a host's HTTPS support and security headers.
///
/// Makes a TLS handshake with `domain` on `port` (443) and reports the protocol, cipher suite
/// and certificate (valid or not, and why); requests `/` over HTTPS and reports HSTS and the
/// other security headers (Content-Security-Policy, X-Content-Type-Options, X-Frame-Options,
/// Referrer-Policy, Permissions-Policy); requests `/` over plain HTTP on `httpPort` (80) and
/// reports whether it redirects to HTTPS. Redirects are not followed. Hosts in private,
/// loopback and other special-purpose ranges are refused with 403; a host reachable over
/// neither protocol is 502, a slow one 504.
#[op(post "/v1/ssl" as sslCheck, tag = Lookups,
     rejects = "a domain that is not a host name or IP address (URLs included)",
     uses(network),
     redact(".data.checkedAt", ".data.https.handshakeMs", ".data.certificate.notBefore",
            ".data.certificate.notAfter"),
     example(enforced, {"domain": "secure.site.example", "port": 8443, "httpPort": 8080}),
     example(not_enforced, {"domain": "www.site.example", "port": 8443, "httpPort": 8080}),
     example(expired_certificate, {"domain": "expired.site.example", "port": 8443, "httpPort": 8080}),
     example(no_https, {"domain": "bare.site.example", "port": 8080, "httpPort": 8080}),
     example(private_refused, {"domain": "10.1.2.3"}, status = 403))]
pub(crate) async fn ssl_check(input: SslInput, ctx: &Ctx) -> Result<SslOutput, ApiError> {
    let host = host_input("domain", &input.domain)?;
    let https_target = host_target(ctx, "domain", "https", &host, input.port).await?;
    let mut https = HttpsReport {
        supported: false,
        port: input.port,
        address: None,
        protocol: None,
        cipher_suite: None,
        alpn: None,
        status: None,
        error: None,
        handshake_ms: None,
    };
    let mut certificate = None;
    let mut https_answer = None;
    let mut https_failure = None;
    match ctx.net.inspect_tls(&https_target).await {
        Ok(inspection) => {
            https.supported = true;
            https.address = Some(inspection.address.to_string());
            https.protocol = Some(inspection.protocol.clone());
            https.cipher_suite = Some(inspection.cipher_suite.clone());
            https.alpn = inspection.alpn.clone();
            https.handshake_ms = Some(millis(inspection.handshake_time));
            let chain = chain_report(&inspection)?;
            if let Some(leaf) = chain.certificates.first() {
                certificate = Some(CertificateBrief {
                    valid: chain.valid,
                    reason: chain.reason.clone(),
                    subject: leaf.common_name.clone(),
                    issuer: leaf.issuer_common_name.clone().or_else(|| Some(leaf.issuer.clone())),
                    subject_alt_names: leaf.subject_alt_names.clone(),
                    not_before: leaf.not_before.clone(),
                    not_after: leaf.not_after.clone(),
                    days_remaining: (leaf.not_after_unix - wrench_infra::time::unix_secs() as i64) / 86_400,
                });
            }
            if chain.valid {
                match first_answer(ctx, https_target.url.clone()).await {
                    Ok(hop) => {
                        https.status = Some(hop.status);
                        https_answer = Some(hop);
                    }
                    Err(e) => https.error = Some(format!("the request after the handshake failed: {e}")),
                }
            } else {
                https.error = Some("headers not read: browsers would refuse this certificate".into());
            }
        }
        Err(e @ OutboundError::Forbidden(_)) => return Err(e.into_api("domain")),
        Err(e) => {
            https.error = Some(e.to_string());
            https_failure = Some(e);
        }
    }

    let mut http_redirect =
        RedirectReport { port: input.http_port, status: None, location: None, redirects_to_https: false, error: None };
    let http_url = Net::parse_url(&format!("http://{host}:{}/", input.http_port)).map_err(|e| e.into_api("domain"))?;
    match first_answer(ctx, http_url.clone()).await {
        Ok(hop) => {
            http_redirect.status = Some(hop.status);
            if let Some(location) = &hop.location {
                let next = http_url.join(location.trim()).ok();
                http_redirect.redirects_to_https =
                    (300..400).contains(&hop.status) && next.is_some_and(|u| u.scheme() == "https");
                http_redirect.location = Some(location.clone());
            }
        }
        Err(e) => match https_failure {
            // Neither protocol answered: there is nothing to report.
            Some(first) => {
                let both = format!("{first}; over plain HTTP: {e}");
                let timed_out = matches!(first, OutboundError::Timeout(_)) && matches!(e, OutboundError::Timeout(_));
                return Err(if timed_out { OutboundError::Timeout(both) } else { OutboundError::Unreachable(both) }
                    .into_api("domain"));
            }
            None => http_redirect.error = Some(e.to_string()),
        },
    }

    let hsts_value = https_answer.as_ref().and_then(|h| header(h, "strict-transport-security"));
    let hsts = HstsReport {
        present: hsts_value.is_some(),
        max_age: hsts_value.as_deref().and_then(hsts_max_age),
        include_sub_domains: hsts_value.as_deref().is_some_and(|v| hsts_flag(v, "includeSubDomains")),
        preload: hsts_value.as_deref().is_some_and(|v| hsts_flag(v, "preload")),
        value: hsts_value,
    };
    let security_headers = OTHER_HEADERS
        .iter()
        .map(|name| {
            let value = https_answer.as_ref().and_then(|h| header(h, name));
            SecurityHeader { header: name, present: value.is_some(), value }
        })
        .collect();
    Ok(SslOutput { domain: host, https, certificate, http_redirect, hsts, security_headers, checked_at: now_rfc3339() })
}
