//! The certificate of a TLS host and when it ends (`ssl-cert/expiry`).
//!
//! The chain is recorded during the handshake whatever its state and judged afterwards
//! (`crates/infra/src/outbound/tls_inspect.rs`), so an expired, self-signed or misnamed certificate is reported
//! with its details and the reason, not as a failed connection.

use wrench_contract::prelude::*;
use wrench_infra::outbound::certificate::CertificateSummary;
use wrench_infra::time::now_rfc3339;
use wrench_kit::hosts::dns::millis;
use wrench_kit::hosts::tls::{
    ChainReport, chain_report, default_https_port, default_warn_days, host_input, host_target,
};

#[derive(Debug, Deserialize, JsonSchema, Validate)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct CertInput {
    /// The host: a domain name (Unicode names are converted) or an IP address.
    #[schemars(length(min = 1, max = 253))]
    domain: String,
    /// The TLS port.
    #[serde(default = "default_https_port")]
    #[schemars(range(min = 1, max = 65535))]
    port: u16,
    /// A certificate ending within this many days is flagged `expiringSoon`.
    #[serde(default = "default_warn_days")]
    #[schemars(range(min = 1, max = 3650))]
    warn_days: u32,
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct CertOutput {
    domain: String,
    port: u16,
    /// The address the handshake was made with.
    address: String,
    /// The server's own certificate.
    certificate: CertificateSummary,
    /// Whole days until the certificate ends, negative once it has ended.
    days_remaining: i64,
    expired: bool,
    /// Not expired, and ending within `warnDays` days.
    expiring_soon: bool,
    /// The threshold used for `expiringSoon`.
    warn_days: u32,
    chain: ChainReport,
    /// `TLS 1.3` or `TLS 1.2`.
    protocol: String,
    cipher_suite: String,
    /// The TLS handshake, after the TCP connection.
    handshake_ms: f64,
    checked_at: String,
}

/// Check a host's TLS certificate and its expiry.
///
/// Connects to `domain` on `port` (443), completes a TLS handshake and reports the certificate
/// the server presents: subject, issuer, alternative names, validity, whole days remaining,
/// whether it has expired or ends within `warnDays` (30) days, and whether the chain validates
/// for the name against the Mozilla root store (and the service's extra roots), with the reason
/// when it does not. Invalid certificates are reported, not refused. Hosts in private, loopback
/// and other special-purpose ranges are refused with 403; a host that does not answer or does
/// not speak TLS is 502, a slow one 504.
#[op(post "/v1/ssl-cert/expiry" as sslCertExpiry, tag = Lookups,
     rejects = "a domain that is not a host name or IP address (URLs included)",
     uses(network),
     redact(".data.handshakeMs", ".data.checkedAt", ".data.certificate.serialNumber",
            ".data.certificate.sha256Fingerprint", ".data.certificate.notBefore", ".data.certificate.notAfter",
            ".data.chain.certificates[].serialNumber", ".data.chain.certificates[].sha256Fingerprint",
            ".data.chain.certificates[].notBefore", ".data.chain.certificates[].notAfter"),
     example(valid, {"domain": "www.site.example", "port": 8443}),
     example(expiring, {"domain": "expiring.site.example", "port": 8443}),
     example(expired, {"domain": "expired.site.example", "port": 8443}),
     example(self_signed, {"domain": "self-signed.site.example", "port": 8443}),
     example(wrong_name, {"domain": "wrong-name.site.example", "port": 8443}),
     example(incomplete_chain, {"domain": "incomplete.site.example", "port": 8443}),
     example(loopback_refused, {"domain": "127.0.0.1"}, status = 403),
     example(url_refused, {"domain": "https://example.com/"}, status = 400))]
async fn ssl_cert_expiry(input: CertInput, ctx: &Ctx) -> Result<CertOutput, ApiError> {
    let host = host_input("domain", &input.domain)?;
    let target = host_target(ctx, "domain", "https", &host, input.port).await?;
    let inspection = ctx.net.inspect_tls(&target).await.map_err(|e| e.into_api("domain"))?;
    let chain = chain_report(&inspection)?;
    let certificate = chain
        .certificates
        .first()
        .cloned()
        .ok_or_else(|| ApiError::new(ErrorCode::UpstreamError, format!("{host} presented no certificate")))?;
    let remaining = certificate.not_after_unix - wrench_infra::time::unix_secs() as i64;
    // Whole days, truncated toward zero: 4.9 days left is 4, ended 10.2 days ago is -10.
    let days_remaining = remaining / 86_400;
    let expired = remaining < 0;
    Ok(CertOutput {
        domain: host,
        port: input.port,
        address: inspection.address.to_string(),
        days_remaining,
        expired,
        expiring_soon: !expired && remaining < i64::from(input.warn_days) * 86_400,
        warn_days: input.warn_days,
        certificate,
        chain,
        protocol: inspection.protocol,
        cipher_suite: inspection.cipher_suite,
        handshake_ms: millis(inspection.handshake_time),
        checked_at: now_rfc3339(),
    })
}
