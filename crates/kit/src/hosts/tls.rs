//! What the TLS operations (`ssl`, `ssl-cert/expiry`) share: reading the host to check, and
//! the certificate report built from a handshake's chain.

use std::net::IpAddr;

use crate::hosts::dns::parse_domain;
use wrench_contract::prelude::*;
use wrench_infra::outbound::{Inspection, Net, certificate::CertificateSummary, target::Target};

/// The days before its end at which a certificate counts as expiring soon, unless asked.
pub const DEFAULT_WARN_DAYS: u32 = 30;

pub fn default_https_port() -> u16 {
    443
}

pub fn default_http_port() -> u16 {
    80
}

pub fn default_warn_days() -> u32 {
    DEFAULT_WARN_DAYS
}

/// `field` read as a host to connect to: a domain name (IDNA folded, final dot dropped) or an
/// IP address, bracketed or not. URLs are refused with the reason.
pub fn host_input(field: &str, text: &str) -> Result<String, ApiError> {
    let t = text.trim();
    let bare = t.strip_prefix('[').and_then(|s| s.strip_suffix(']')).unwrap_or(t);
    if let Ok(ip) = bare.parse::<IpAddr>() {
        return Ok(match ip {
            IpAddr::V4(v4) => v4.to_string(),
            IpAddr::V6(v6) => format!("[{v6}]"),
        });
    }
    let name = parse_domain(field, t)?;
    let ascii = name.to_ascii();
    Ok(ascii.strip_suffix('.').unwrap_or(&ascii).to_string())
}

/// The judged target of `scheme://host:port/`.
pub async fn host_target(ctx: &Ctx, field: &str, scheme: &str, host: &str, port: u16) -> Result<Target, ApiError> {
    let url = Net::parse_url(&format!("{scheme}://{host}:{port}/")).map_err(|e| e.into_api(field))?;
    ctx.net.target(&url).await.map_err(|e| e.into_api(field))
}

/// Whether the chain a server presented validates, and the certificates in it.
#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ChainReport {
    /// Whether the chain leads from the certificate to a trusted authority (the Mozilla roots
    /// and the service's extra roots), every certificate in it is within its validity, and the
    /// certificate names the host.
    pub valid: bool,
    /// Why it is not valid; absent when it is.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// Certificates the server sent, its own first.
    pub length: usize,
    /// Each certificate sent, its own first.
    pub certificates: Vec<CertificateSummary>,
}

/// The chain of `inspection`, summarised; certificates that cannot be parsed are reported as
/// a reason, never dropped silently.
pub fn chain_report(inspection: &Inspection) -> Result<ChainReport, ApiError> {
    let mut certificates = Vec::with_capacity(inspection.chain.len());
    for (i, der) in inspection.chain.iter().enumerate() {
        let summary = wrench_infra::outbound::certificate::summarize(der).map_err(|e| {
            ApiError::new(ErrorCode::UpstreamError, format!("certificate {} of the chain the server sent: {e}", i + 1))
        })?;
        certificates.push(summary);
    }
    Ok(ChainReport {
        valid: inspection.invalid.is_none(),
        reason: inspection.invalid.clone(),
        length: certificates.len(),
        certificates,
    })
}
