//! How fast a page answers (`site/performance`): each phase of the request timed
//! on a connection of its own (`crates/infra/src/outbound/timed.rs`), redirects followed hop by hop through the
//! same guard as every fetch.

use std::collections::HashSet;

use wrench_contract::prelude::*;
use wrench_infra::outbound::{OutboundError, fetch::follow, timed::TimedAnswer};
use wrench_infra::time::now_rfc3339;
use wrench_kit::hosts::dns::millis;
use wrench_kit::hosts::http_fetch::url_input;

#[derive(Debug, Deserialize, JsonSchema, Validate)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct PerformanceInput {
    /// An http or https URL.
    #[schemars(length(min = 1, max = 2048), pattern("^[\\x00-\\x20]*[Hh][Tt][Tt][Pp][Ss]?:"))]
    url: String,
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct Timings {
    /// Resolving the host name (zero for an IP address).
    dns_ms: f64,
    /// Opening the TCP connection.
    connect_ms: f64,
    /// The TLS handshake; absent over plain HTTP.
    #[serde(skip_serializing_if = "Option::is_none")]
    tls_ms: Option<f64>,
    /// From sending the request to the answer's headers (server think time plus a round trip).
    wait_ms: f64,
    /// Time to first byte: resolving, connecting, TLS and waiting.
    first_byte_ms: f64,
    /// From the headers to the last byte of the body.
    download_ms: f64,
    /// Time to first byte plus download.
    total_ms: f64,
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct RedirectHop {
    url: String,
    status: u16,
    location: Option<String>,
    /// Every phase of this hop, from resolving to its answer.
    time_ms: f64,
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct Redirects {
    count: usize,
    /// The redirect hops together.
    time_ms: f64,
    hops: Vec<RedirectHop>,
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct Compression {
    /// Whether the body came content-encoded.
    compressed: bool,
    /// The `Content-Encoding` of the answer (`gzip`, `br`, `zstd`, `deflate`).
    #[serde(skip_serializing_if = "Option::is_none")]
    encoding: Option<String>,
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct PerformanceOutput {
    url: String,
    /// The URL whose answer is measured, after redirects.
    final_url: String,
    status: u16,
    /// `HTTP/1.1` or `HTTP/2`.
    http_version: String,
    /// The `Server` header, if sent.
    server: Option<String>,
    content_type: Option<String>,
    /// The address the final answer came from.
    address: String,
    /// The phases of the final request.
    timings: Timings,
    redirects: Redirects,
    /// Redirects and the final request together: what a visitor waits.
    overall_ms: f64,
    /// Body bytes as transferred (compressed when the answer was).
    body_bytes: u64,
    compression: Compression,
    checked_at: String,
}

fn header(answer: &TimedAnswer, name: &str) -> Option<String> {
    answer.headers.get(name).map(|v| String::from_utf8_lossy(v.as_bytes()).into_owned())
}

/// Measure how fast a page loads.
///
/// Fetches `url` with GET as a browser would ask for it (accepting gzip, deflate, Brotli and
/// Zstandard) and times each phase of the final request: DNS, TCP connect, TLS handshake,
/// waiting for the first byte, and download. Redirects are followed (up to the service's
/// limit, 5 by default) and timed hop by hop. Reports the status, HTTP version, `Server`
/// header, the body size as transferred and its compression. The body is counted, not
/// decoded or kept; answers over the service's byte limit (5 MiB by default) are 502. Targets
/// in private, loopback and other special-purpose ranges are refused with 403; an unreachable
/// target is 502, a slow one 504 (10 s by default for the whole measurement).
#[op(post "/v1/site/performance" as sitePerformance, tag = Lookups,
     rejects = "a URL whose host is not a valid host name or address",
     uses(network),
     redact(".data.timings.dnsMs", ".data.timings.connectMs", ".data.timings.tlsMs", ".data.timings.waitMs",
            ".data.timings.firstByteMs", ".data.timings.downloadMs", ".data.timings.totalMs", ".data.redirects.timeMs", ".data.redirects.hops[].timeMs", ".data.overallMs",
            ".data.checkedAt"),
     example(https_page, {"url": "https://www.site.example:8443/"}),
     example(compressed, {"url": "http://www.site.example:8080/compressed"}),
     example(after_redirects, {"url": "http://www.site.example:8080/chain?n=2"}),
     example(metadata_refused, {"url": "http://169.254.169.254/latest/meta-data/"}, status = 403))]
async fn site_performance(input: PerformanceInput, ctx: &Ctx) -> Result<PerformanceOutput, ApiError> {
    let first = url_input("url", &input.url)?;
    let net = &ctx.net;
    let deadline = tokio::time::Instant::now() + net.config.timeout;
    let started = std::time::Instant::now();
    let mut visited = HashSet::new();
    let mut hops = Vec::new();
    let mut url = first.clone();
    let last = loop {
        visited.insert(url.clone());
        let answer = net.timed_get(&url, deadline).await?;
        let redirect = matches!(answer.status, 301 | 302 | 303 | 307 | 308);
        let Some(location) = answer.location.clone().filter(|_| redirect) else { break answer };
        if hops.len() >= usize::from(net.config.redirects) {
            return Err(OutboundError::Unreachable(format!(
                "more than {} redirects (WRENCH_OUTBOUND_REDIRECTS)",
                net.config.redirects
            ))
            .into());
        }
        let next = follow(&url, &location)?;
        if visited.contains(&next) {
            return Err(OutboundError::Unreachable(format!("the redirects loop back to {next}")).into());
        }
        hops.push(answer);
        url = next;
    };
    let redirect_time: std::time::Duration = hops.iter().map(TimedAnswer::total).sum();
    let encoding = header(&last, "content-encoding").filter(|e| !e.eq_ignore_ascii_case("identity"));
    Ok(PerformanceOutput {
        url: first.to_string(),
        final_url: last.url.to_string(),
        status: last.status,
        http_version: last.version.clone(),
        server: header(&last, "server"),
        content_type: header(&last, "content-type"),
        address: last.address.to_string(),
        timings: Timings {
            dns_ms: millis(last.dns),
            connect_ms: millis(last.connect),
            tls_ms: last.tls.map(millis),
            wait_ms: millis(last.wait),
            first_byte_ms: millis(last.first_byte()),
            download_ms: millis(last.download),
            total_ms: millis(last.total()),
        },
        redirects: Redirects {
            count: hops.len(),
            time_ms: millis(redirect_time),
            hops: hops
                .iter()
                .map(|h| RedirectHop {
                    url: h.url.to_string(),
                    status: h.status,
                    location: h.location.clone(),
                    time_ms: millis(h.total()),
                })
                .collect(),
        },
        overall_ms: millis(started.elapsed()),
        body_bytes: last.body_bytes,
        compression: Compression { compressed: encoding.is_some(), encoding },
        checked_at: now_rfc3339(),
    })
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;
    use wrench_infra::outbound::Net;

    fn ctx() -> Ctx {
        let mut ctx = Ctx::for_tests();
        ctx.config = Arc::new(crate::testing::test_config());
        ctx.net = Arc::new(Net::new(&ctx.config.outbound, "http://test").unwrap());
        ctx
    }

    /// The phases add up: first byte is resolving, connecting, TLS and waiting; total adds the
    /// download; a page over HTTPS has a TLS phase and one over HTTP none.
    #[tokio::test]
    async fn the_phases_add_up() {
        let ctx = ctx();
        for (url, tls) in
            [("https://www.site.example:8443/slow?ms=150", true), ("http://www.site.example:8080/", false)]
        {
            let out = site_performance(PerformanceInput { url: url.into() }, &ctx).await.unwrap();
            let t = &out.timings;
            let sum = t.dns_ms + t.connect_ms + t.tls_ms.unwrap_or(0.0) + t.wait_ms;
            assert!((t.first_byte_ms - sum).abs() < 0.01, "{url}: {t:?}");
            assert!((t.total_ms - (t.first_byte_ms + t.download_ms)).abs() < 0.01, "{url}: {t:?}");
            assert_eq!(t.tls_ms.is_some(), tls, "{url}");
            assert!(out.overall_ms >= t.total_ms, "{url}");
            if tls {
                assert!(t.wait_ms >= 150.0, "the server's pause is waiting time: {t:?}");
            }
        }
    }

    /// The body is counted against the byte cap like every fetch, and not read past it.
    #[tokio::test]
    async fn a_body_over_the_cap_is_refused() {
        let ctx = ctx();
        let url = format!("http://www.site.example:8080/big?bytes={}", (5 << 20) + 1);
        let e = site_performance(PerformanceInput { url }, &ctx).await.unwrap_err();
        assert_eq!(e.code, ErrorCode::UpstreamError);
        assert!(e.message.contains("WRENCH_OUTBOUND_MAX_BYTES"), "{}", e.message);
    }
}
