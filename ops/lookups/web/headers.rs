//! The response headers of a URL (`headers`), fetched through the outbound layer.

use std::collections::BTreeMap;

use wrench_contract::prelude::*;
use wrench_kit::hosts::http_fetch::{fetch_headers, header_map, url_input};

#[derive(Debug, Deserialize, JsonSchema, Validate)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct HeadersInput {
    /// An http or https URL.
    #[schemars(length(min = 1, max = 2048), pattern("^[\\x00-\\x20]*[Hh][Tt][Tt][Pp][Ss]?:"))]
    url: String,
    /// Follow redirects (up to the service's limit, 5 by default) and report the last answer's
    /// headers; otherwise report the first answer's, redirect or not.
    #[serde(default = "wrench_contract::decode::yes")]
    follow_redirects: bool,
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct HeadersOutput {
    /// The URL asked for, normalised.
    url: String,
    /// The URL whose answer is reported (after redirects).
    final_url: String,
    status: u16,
    http_version: String,
    /// The header fields by lower-case name; repeated fields joined with `, ` (`set-cookie`
    /// with line breaks).
    headers: BTreeMap<String, String>,
    /// Header fields in the answer, repeats counted.
    header_count: usize,
    /// Redirects followed.
    redirects: usize,
    /// The address the answer came from.
    address: Option<String>,
    /// From sending the request to the answer's headers, for the reported answer.
    time_ms: f64,
    checked_at: String,
}

/// Show the response headers of a URL.
///
/// Fetches `url` with GET through the service's guarded client (redirects followed unless
/// `followRedirects` is false) and returns the answer's status and header fields. The body is
/// not read. Targets in private, loopback, link-local and other special-purpose ranges are
/// refused with 403; an unreachable target is 502, a slow one 504 (10 s by default).
#[op(post "/v1/headers" as httpHeaders, tag = Lookups,
     rejects = "a URL whose host is not a valid host name or address",
     uses(network),
     redact(".data.timeMs", ".data.checkedAt", ".data.headers.date"),
     example(page, {"url": "http://www.site.example:8080/"}),
     example(redirect_followed, {"url": "http://www.site.example:8080/chain?n=2"}),
     example(redirect_not_followed, {"url": "http://www.site.example:8080/chain?n=2", "followRedirects": false}),
     example(loopback_refused, {"url": "http://127.0.0.1/"}, status = 403),
     example(not_http, {"url": "ftp://example.com/"}, status = 400))]
async fn http_headers(input: HeadersInput, ctx: &Ctx) -> Result<HeadersOutput, ApiError> {
    let url = url_input("url", &input.url)?;
    let chain = fetch_headers(ctx, url.clone(), input.follow_redirects).await?;
    let last = chain.last().ok_or_else(|| ApiError::internal("a fetch that ended well has an answer"))?;
    Ok(HeadersOutput {
        url: url.to_string(),
        final_url: last.url.to_string(),
        status: last.status,
        http_version: last.version.clone(),
        headers: header_map(&last.headers),
        header_count: last.headers.len(),
        redirects: chain.hops.len() - 1,
        address: last.address.map(|a| a.to_string()),
        time_ms: wrench_kit::hosts::dns::millis(last.latency),
        checked_at: wrench_infra::time::now_rfc3339(),
    })
}
