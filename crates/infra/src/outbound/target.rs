//! From a URL to the addresses wrench may connect to: the one place where a caller-named
//! target is judged.
//!
//! The host is taken from the parsed `Url` that will be sent (the url crate has already folded
//! every IPv4 spelling, IDNA and percent-encoding into one form), never from the caller's text.
//! An IP literal is judged as it is; a name must not be `localhost`, and every address it
//! resolves to must pass: one refused address refuses the name, because the connection could
//! go to any of them. The addresses judged are the addresses connected to, so a name whose
//! answer changes between two lookups (DNS rebinding) cannot slip past.

use std::{
    net::{IpAddr, SocketAddr},
    time::Duration,
};

use url::{Host, Url};

use super::{Net, error::OutboundError, policy};

/// A target that passed the policy.
#[derive(Debug, Clone)]
pub struct Target {
    pub url: Url,
    /// The host as written in the URL (`example.com`, `[2001:db8::1]`).
    pub host: String,
    /// The name, when the host is not an IP literal; its addresses are `addresses`.
    pub name: Option<String>,
    pub port: u16,
    /// Every address connected to may be one of these; all passed the policy.
    pub addresses: Vec<SocketAddr>,
    /// Time spent resolving the name (zero for a literal).
    pub dns_time: Duration,
}

impl Net {
    /// Parses a caller's URL text: only absolute http and https URLs.
    pub fn parse_url(text: &str) -> Result<Url, OutboundError> {
        let url = Url::parse(text.trim()).map_err(|e| OutboundError::Invalid(format!("is not a URL: {e}")))?;
        if !matches!(url.scheme(), "http" | "https") {
            return Err(OutboundError::Invalid(format!(
                "uses the {} scheme; only http and https URLs are fetched",
                url.scheme()
            )));
        }
        if url.host().is_none() {
            return Err(OutboundError::Invalid("has no host".into()));
        }
        Ok(url)
    }

    /// Judges the target of `url` and resolves it.
    pub async fn target(&self, url: &Url) -> Result<Target, OutboundError> {
        if !matches!(url.scheme(), "http" | "https") {
            return Err(OutboundError::Forbidden(format!(
                "{url} uses the {} scheme; only http and https are fetched",
                url.scheme()
            )));
        }
        let host = url.host_str().unwrap_or_default().to_string();
        let port = url.port_or_known_default().unwrap_or(80);
        if !self.config.ports.contains(port) {
            return Err(OutboundError::Forbidden(format!(
                "port {port} of {host} is not one wrench connects to (allowed: {}; WRENCH_OUTBOUND_PORTS)",
                self.config.ports.describe()
            )));
        }
        let host_ref = url.host().ok_or_else(|| OutboundError::Invalid("has no host".into()))?;
        let (name, ips, dns_time) = self.judge_host(host_ref).await?;
        let addresses = ips.into_iter().map(|ip| SocketAddr::new(ip, port)).collect();
        Ok(Target { url: url.clone(), host, name, port, addresses, dns_time })
    }

    /// The addresses of a host (as the url crate parsed it), every one judged: an IP literal as
    /// it is, a name by the addresses it resolves to. Returns the name (for a name), the
    /// addresses and the time resolving took.
    pub async fn judge_host(&self, host: Host<&str>) -> Result<(Option<String>, Vec<IpAddr>, Duration), OutboundError> {
        let (name, ips, dns_time) = match host {
            Host::Ipv4(v4) => (None, vec![IpAddr::V4(v4)], Duration::ZERO),
            Host::Ipv6(v6) => (None, vec![IpAddr::V6(v6)], Duration::ZERO),
            Host::Domain(d) => {
                if let Some(r) = policy::classify_name(d) {
                    return Err(OutboundError::Forbidden(format!("{d} is {} ({}, {})", r.what, r.range, r.reference)));
                }
                let (ips, took) = self.resolve_host(d).await?;
                (Some(d.to_string()), ips, took)
            }
        };
        for ip in &ips {
            if let Err(r) = self.policy.check(*ip) {
                let subject = match &name {
                    Some(n) => format!("{n} resolves to {}", r.describe(*ip)),
                    None => format!("{ip} is {}", r.reason()),
                };
                return Err(OutboundError::Forbidden(subject));
            }
        }
        Ok((name, ips, dns_time))
    }

    /// Every address of `name`, or why there is none, as an outbound error.
    pub(super) async fn resolve_host(&self, name: &str) -> Result<(Vec<IpAddr>, Duration), OutboundError> {
        match self.resolver.addresses(name).await {
            Ok((Some(ips), took)) => Ok((ips, took)),
            Ok((None, _)) => {
                Err(OutboundError::Unreachable(format!("{name} does not exist in DNS (no address records)")))
            }
            Err(super::resolver::DnsFailure::Timeout) => {
                Err(OutboundError::Timeout(format!("resolving {name}: no resolver answered in time")))
            }
            Err(e) => Err(OutboundError::Unreachable(format!("resolving {name}: {e}"))),
        }
    }
}
