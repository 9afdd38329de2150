//! Reaching a site from its domain, as `company` and `page-rank/check` do: the domain input
//! (a host name or address with an optional port) and the home page over HTTPS, or over plain
//! HTTP when HTTPS cannot be reached at all.

use crate::hosts::http_fetch::{fetch_headers, url_input};
use crate::hosts::tls::host_input;
use crate::web::page::{Page, fetch_page};
use wrench_contract::prelude::*;
use wrench_infra::outbound::Chain;

/// `domain` read as a host and an optional port.
pub fn host_and_port(text: &str) -> Result<(String, Option<u16>), ApiError> {
    let t = text.trim();
    if t.contains('/') {
        // A URL: the host reader says why it is not a domain.
        return Ok((host_input("domain", t)?, None));
    }
    match t.rsplit_once(':') {
        Some((host, port)) if !host.contains(':') || host.ends_with(']') => {
            let port =
                port.parse::<u16>().ok().filter(|p| *p > 0).ok_or_else(|| {
                    ApiError::invalid("domain", format!("has the port {port:?}; a port is 1 to 65535"))
                })?;
            Ok((host_input("domain", host)?, Some(port)))
        }
        _ => Ok((host_input("domain", t)?, None)),
    }
}

/// The home page of `host`: HTTPS, or plain HTTP when HTTPS cannot be reached at all; both on
/// `port` when one is given, on their default ports otherwise.
pub async fn home_page(ctx: &Ctx, host: &str, port: Option<u16>) -> Result<Page, ApiError> {
    home_page_on(ctx, host, port, port).await
}

/// [`home_page`] with a port for each scheme.
pub async fn home_page_on(
    ctx: &Ctx,
    host: &str,
    https_port: Option<u16>,
    http_port: Option<u16>,
) -> Result<Page, ApiError> {
    https_then_http(host, (https_port, http_port), |url| async move { fetch_page(ctx, &url).await }).await
}

/// The home page's answer headers (redirects followed), HTTPS first like [`home_page`].
pub async fn home_status(ctx: &Ctx, host: &str, port: Option<u16>) -> Result<Chain, ApiError> {
    let get = |url: String| async move { fetch_headers(ctx, url_input("domain", &url)?, true).await };
    https_then_http(host, (port, port), get).await
}

/// `get` of `https://host[:port]/`, then of `http://host[:port]/` when the first could not be
/// reached (a refusal or an answer, whatever its status, is final).
async fn https_then_http<T, F, Fut>(host: &str, ports: (Option<u16>, Option<u16>), get: F) -> Result<T, ApiError>
where
    F: Fn(String) -> Fut,
    Fut: std::future::Future<Output = Result<T, ApiError>>,
{
    let at = |p: Option<u16>| p.map(|p| format!(":{p}")).unwrap_or_default();
    match get(format!("https://{host}{}/", at(ports.0))).await {
        Err(e) if e.code == ErrorCode::UpstreamError || e.code == ErrorCode::UpstreamTimeout => {
            get(format!("http://{host}{}/", at(ports.1))).await.map_err(|second| {
                ApiError::new(second.code, format!("over HTTPS: {}; over HTTP: {}", e.message, second.message))
            })
        }
        other => other,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn domains_may_carry_a_port() {
        assert_eq!(host_and_port("Example.COM").unwrap(), ("example.com".into(), None));
        assert_eq!(host_and_port("example.com:8443").unwrap(), ("example.com".into(), Some(8443)));
        assert_eq!(host_and_port("[2001:db8::1]:443").unwrap(), ("[2001:db8::1]".into(), Some(443)));
        assert_eq!(host_and_port("2001:db8::1").unwrap(), ("[2001:db8::1]".into(), None));
        assert!(host_and_port("example.com:0").is_err());
        assert!(host_and_port("https://example.com/").is_err());
    }
}
