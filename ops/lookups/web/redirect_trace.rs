//! Every hop of a URL's redirects (`redirect/trace`), each judged and fetched
//! through the outbound layer.

use wrench_contract::prelude::*;
use wrench_infra::outbound::{ChainEnd, FetchOptions, OutboundError};
use wrench_kit::hosts::http_fetch::{header, url_input};

#[derive(Debug, Deserialize, JsonSchema, Validate)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct TraceInput {
    /// An http or https URL.
    #[schemars(length(min = 1, max = 2048), pattern("^[\\x00-\\x20]*[Hh][Tt][Tt][Pp][Ss]?:"))]
    url: String,
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct TraceHop {
    url: String,
    status: u16,
    /// From sending the request to the answer's headers.
    latency_ms: f64,
    /// Resolving the host, for this hop.
    dns_ms: f64,
    /// The `Server` header, if any.
    server: Option<String>,
    /// The `Location` header of a redirect, as sent.
    location: Option<String>,
    /// The address the answer came from.
    address: Option<String>,
    http_version: String,
}

/// How a trace ended.
#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
enum TraceEnd {
    /// An answer that is not a redirect.
    Final,
    /// A redirect back to a URL already visited.
    Loop,
    /// More redirects than the service follows.
    Limit,
    /// A redirect to a target the service may not contact.
    Refused,
    /// A hop could not be fetched.
    Unreachable,
    /// A hop did not answer in time.
    Timeout,
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct TraceOutput {
    url: String,
    hops: Vec<TraceHop>,
    /// Redirects followed.
    redirects: usize,
    /// The last URL answered.
    final_url: String,
    final_status: u16,
    ended: TraceEnd,
    /// Why the trace ended before a final answer, in words.
    reason: Option<String>,
    total_time_ms: f64,
    checked_at: String,
}

/// Trace the redirects of a URL.
///
/// Follows the redirects of `url` one hop at a time (at most 5 by default), each hop judged by
/// the service's address policy, and reports every hop: URL, status, latency, `Server` and
/// `Location` headers, address. The trace ends at an answer that is not a redirect, at a loop,
/// at the redirect limit, or at a hop that is refused, unreachable or slow; `ended` and
/// `reason` say which. Only the first URL being refused or unreachable is an error.
#[op(post "/v1/redirect/trace" as redirectTrace, tag = Lookups,
     rejects = "a URL whose host is not a valid host name or address",
     uses(network),
     redact(".data.hops[].latencyMs", ".data.hops[].dnsMs", ".data.totalTimeMs", ".data.checkedAt"),
     example(two_redirects, {"url": "http://www.site.example:8080/chain?n=2"}),
     example(redirect_loop, {"url": "http://www.site.example:8080/loop-a"}),
     example(redirect_to_loopback, {"url": "http://www.site.example:8080/redirect?to=http://127.0.0.1:8080/"}),
     example(metadata_address, {"url": "http://169.254.169.254/latest/meta-data/"}, status = 403))]
async fn redirect_trace(input: TraceInput, ctx: &Ctx) -> Result<TraceOutput, ApiError> {
    let url = url_input("url", &input.url)?;
    let chain = ctx.net.fetch(url.clone(), FetchOptions { follow: true, read_body: false }).await;
    let (ended, reason) = match &chain.end {
        ChainEnd::Done => (TraceEnd::Final, None),
        ChainEnd::Loop(back) => (TraceEnd::Loop, Some(format!("redirects back to {back}"))),
        ChainEnd::TooManyRedirects(n) => {
            (TraceEnd::Limit, Some(format!("more than {n} redirects (WRENCH_OUTBOUND_REDIRECTS)")))
        }
        ChainEnd::Stopped(e) if chain.hops.is_empty() => return Err(e.clone().into()),
        ChainEnd::Stopped(e) => (
            match e {
                OutboundError::Forbidden(_) | OutboundError::Invalid(_) => TraceEnd::Refused,
                OutboundError::Timeout(_) => TraceEnd::Timeout,
                OutboundError::Unreachable(_) | OutboundError::TooLarge(_) => TraceEnd::Unreachable,
            },
            Some(e.message().to_string()),
        ),
    };
    let hops: Vec<TraceHop> = chain
        .hops
        .iter()
        .map(|h| TraceHop {
            url: h.url.to_string(),
            status: h.status,
            latency_ms: wrench_kit::hosts::dns::millis(h.latency),
            dns_ms: wrench_kit::hosts::dns::millis(h.dns_time),
            server: header(h, "server"),
            location: h.location.clone(),
            address: h.address.map(|a| a.to_string()),
            http_version: h.version.clone(),
        })
        .collect();
    let last = chain.last().ok_or_else(|| ApiError::internal("a trace with hops has a last hop"))?;
    Ok(TraceOutput {
        url: url.to_string(),
        redirects: hops.len() - 1,
        final_url: last.url.to_string(),
        final_status: last.status,
        hops,
        ended,
        reason,
        total_time_ms: wrench_kit::hosts::dns::millis(chain.elapsed),
        checked_at: wrench_infra::time::now_rfc3339(),
    })
}
