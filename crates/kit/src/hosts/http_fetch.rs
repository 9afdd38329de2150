//! What the operations that fetch a caller's URL share: reading the URL input, and the
//! response headers as answers report them.

use std::collections::BTreeMap;

use wrench_contract::prelude::*;
use wrench_infra::outbound::{Chain, FetchOptions, Hop, Net};

/// Reads `field` as an http(s) URL, refusing anything else with the field named.
pub fn url_input(field: &str, text: &str) -> Result<url::Url, ApiError> {
    Net::parse_url(text).map_err(|e| e.into_api(field))
}

/// Fetches `url` with redirects followed (or not), reading headers only, and fails the way the
/// outbound layer says when no answer came.
pub async fn fetch_headers(ctx: &Ctx, url: url::Url, follow: bool) -> Result<Chain, ApiError> {
    let chain = ctx.net.fetch(url, FetchOptions { follow, read_body: false }).await;
    Ok(chain.into_result(ctx.net.config.redirects)?)
}

/// The header fields of an answer as an object of lower-case names. Repeated fields are
/// joined with `, ` (RFC 9110 section 5.3), except `set-cookie`, whose values may contain
/// commas and are joined with a line break.
pub fn header_map(headers: &reqwest::header::HeaderMap) -> BTreeMap<String, String> {
    let mut out: BTreeMap<String, String> = BTreeMap::new();
    for (name, value) in headers {
        let value = String::from_utf8_lossy(value.as_bytes()).into_owned();
        let sep = if name == reqwest::header::SET_COOKIE { "\n" } else { ", " };
        out.entry(name.as_str().to_string())
            .and_modify(|v| {
                v.push_str(sep);
                v.push_str(&value);
            })
            .or_insert(value);
    }
    out
}

/// A header's values as text, joined with `, `, if the answer has it.
pub fn header(hop: &Hop, name: &str) -> Option<String> {
    let values: Vec<String> =
        hop.headers.get_all(name).iter().map(|v| String::from_utf8_lossy(v.as_bytes()).into_owned()).collect();
    (!values.is_empty()).then(|| values.join(", "))
}

/// Seconds of `max-age` in a Strict-Transport-Security value, if it has a valid one
/// (RFC 6797 section 6.1.1).
pub fn hsts_max_age(value: &str) -> Option<u64> {
    value.split(';').find_map(|d| {
        let (k, v) = d.split_once('=')?;
        k.trim().eq_ignore_ascii_case("max-age").then(|| v.trim().trim_matches('"').parse().ok()).flatten()
    })
}

/// Whether a Strict-Transport-Security value holds the valueless directive `name`.
pub fn hsts_flag(value: &str, name: &str) -> bool {
    value.split(';').any(|d| d.trim().eq_ignore_ascii_case(name))
}
