//! A domain's Open PageRank (`page-rank/check`): the 0-10 rank and the global
//! position from the Open PageRank API, which needs a free key
//! (`WRENCH_PROVIDER_OPENPAGERANK_KEY`), and the HTTP status of the domain's home page fetched
//! through the outbound layer. Ranks change slowly (the provider updates them every few
//! months), so answers are cached in the store for a day.
//!
//! The provider's format (GET `getPageRank?domains[]=D` with the key in `API-OPR`):
//! `{"status_code":200,"response":[{"status_code":200,"error":"","page_rank_integer":7,
//! "page_rank_decimal":7.53,"rank":"1024","domain":"D"}],"last_updated":"..."}`; a domain it
//! does not know has the item status 404, rank `null` and the error `Domain not found`.

use reqwest::header::{HeaderMap, HeaderValue};

use wrench_contract::prelude::*;
use wrench_infra::time::now_rfc3339;
use wrench_infra::{outbound::provider, providers::OPEN_PAGERANK};
use wrench_kit::web::site_home::{home_status, host_and_port};

#[derive(Debug, Deserialize, JsonSchema, Validate)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct PageRankInput {
    /// The domain (`example.com`), optionally with a port for the status check
    /// (`example.com:8443`); the rank is asked for the name alone.
    #[schemars(length(min = 1, max = 260))]
    domain: String,
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct HttpCheck {
    /// The home page asked for (HTTPS first, plain HTTP when HTTPS cannot be reached).
    url: Option<String>,
    /// The status of the last answer, redirects followed; `null` when none came.
    status: Option<u16>,
    /// Why no answer came (refused target, unreachable, too slow).
    error: Option<String>,
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct PageRankOutput {
    domain: String,
    /// Whether the provider knows the domain; when false the ranks are `null`.
    ranked: bool,
    /// Open PageRank, 0 to 10, with its decimals.
    page_rank: Option<f64>,
    /// The same, rounded down to a whole number as the provider gives it.
    page_rank_integer: Option<u8>,
    /// The domain's position among all the provider ranks (1 is the highest).
    global_rank: Option<u64>,
    /// When the provider last updated its ranks, as it writes the date.
    data_updated: Option<String>,
    /// `Open PageRank`.
    source: &'static str,
    /// Whether the rank came from this service's one-day cache.
    cached: bool,
    http: HttpCheck,
    checked_at: String,
}

/// What is kept of the provider's item.
#[derive(Debug, Serialize, Deserialize)]
struct Ranked {
    found: bool,
    decimal: Option<f64>,
    integer: Option<u8>,
    rank: Option<u64>,
    updated: Option<String>,
}

/// Reads the provider's answer for `domain`.
fn parse_answer(body: &[u8], domain: &str) -> Result<Ranked, ApiError> {
    let v: Value = serde_json::from_slice(body).map_err(|e| OPEN_PAGERANK.malformed(e))?;
    let items =
        v.get("response").and_then(Value::as_array).ok_or_else(|| OPEN_PAGERANK.malformed("no `response` list"))?;
    let item = items
        .iter()
        .find(|i| i.get("domain").and_then(Value::as_str).is_some_and(|d| d.eq_ignore_ascii_case(domain)))
        .or(items.first())
        .ok_or_else(|| OPEN_PAGERANK.malformed("an empty `response` list"))?;
    let updated = v.get("last_updated").and_then(Value::as_str).map(str::to_string);
    if item.get("status_code").and_then(Value::as_u64) != Some(200) {
        return Ok(Ranked { found: false, decimal: None, integer: None, rank: None, updated });
    }
    // `rank` is a string of digits in the provider's answers; a number is accepted too.
    let rank = match item.get("rank") {
        Some(Value::String(s)) => s.trim().parse().ok(),
        Some(Value::Number(n)) => n.as_u64(),
        _ => None,
    };
    let decimal = item.get("page_rank_decimal").and_then(Value::as_f64).filter(|d| (0.0..=10.0).contains(d));
    let integer = item.get("page_rank_integer").and_then(Value::as_u64).filter(|i| *i <= 10).map(|i| i as u8);
    if decimal.is_none() && integer.is_none() {
        return Err(OPEN_PAGERANK.malformed("a ranked domain without a rank from 0 to 10"));
    }
    Ok(Ranked { found: true, decimal: decimal.or(integer.map(f64::from)), integer, rank, updated })
}

/// The rank of `domain`, from the cache or the provider.
async fn rank(ctx: &Ctx, domain: &str) -> Result<(Ranked, bool), ApiError> {
    let base = OPEN_PAGERANK.url(ctx)?;
    let key = OPEN_PAGERANK.key(ctx).ok_or_else(|| ApiError::internal("a required key is checked by url()"))?;
    let cache_key = format!("cache:openpagerank:{domain}");
    if let Some(hit) = provider::cached(ctx, &cache_key).await.and_then(|b| serde_json::from_slice(&b).ok()) {
        return Ok((hit, true));
    }
    let mut url = base.join("getPageRank").map_err(|e| ApiError::internal(format!("the Open PageRank URL: {e}")))?;
    url.query_pairs_mut().append_pair("domains[]", domain);
    let mut headers = HeaderMap::new();
    let value = HeaderValue::from_str(key.expose()).map_err(|_| ApiError::internal("the Open PageRank key"))?;
    headers.insert("api-opr", value);
    let answer = OPEN_PAGERANK.get(ctx, url, &headers).await?;
    let (status, body) = (answer.status, answer.body);
    match status {
        200 => {}
        401 | 403 => {
            return Err(ApiError::new(
                ErrorCode::UpstreamError,
                format!("Open PageRank refused the key (HTTP {status}); check WRENCH_PROVIDER_OPENPAGERANK_KEY"),
            ));
        }
        429 => {
            return Err(ApiError::new(ErrorCode::UpstreamError, "Open PageRank's rate limit was reached (HTTP 429)"));
        }
        other => return Err(ApiError::new(ErrorCode::UpstreamError, format!("Open PageRank answered HTTP {other}"))),
    }
    let ranked = parse_answer(&body, domain)?;
    if let Ok(bytes) = serde_json::to_vec(&ranked) {
        OPEN_PAGERANK.remember(ctx, &cache_key, &bytes).await;
    }
    Ok((ranked, false))
}

/// Check a domain's page rank.
///
/// Asks Open PageRank for the domain's rank (0 to 10, with decimals) and global position, and
/// fetches the domain's home page through the guarded client for its HTTP status (HTTPS first,
/// redirects followed). The two run concurrently. Without `WRENCH_PROVIDER_OPENPAGERANK_KEY`
/// the answer is 503 PROVIDER_NOT_CONFIGURED; a provider failure is 502 or 504. A home page that
/// cannot be fetched (refused, unreachable, slow) does not fail the check: `http.error` says
/// why. Ranks are cached for a day.
#[op(post "/v1/page-rank/check" as pageRankCheck, tag = Lookups,
     rejects = "a domain that is not a host name (IP addresses have no page rank)",
     uses(provider),
     redact(".data.checkedAt", ".data.cached"),
     example(ranked, {"domain": "site.example:8443"}),
     example(unknown_to_the_provider, {"domain": "unranked.site.example:8080"}),
     example(ip_address, {"domain": "93.184.215.14"}, status = 400))]
async fn page_rank_check(input: PageRankInput, ctx: &Ctx) -> Result<PageRankOutput, ApiError> {
    let (host, port) = host_and_port(&input.domain)?;
    if host.starts_with('[') || host.parse::<std::net::IpAddr>().is_ok() {
        return Err(ApiError::invalid("domain", "is an IP address; page ranks are kept for domain names"));
    }
    let (ranked, status) = tokio::join!(rank(ctx, &host), home_status(ctx, &host, port));
    let (ranked, cached) = ranked?;
    let http = match status {
        Ok(chain) => HttpCheck {
            url: chain.hops.first().map(|h| h.url.to_string()),
            status: chain.last().map(|h| h.status),
            error: None,
        },
        Err(e) => HttpCheck { url: None, status: None, error: Some(e.message.to_string()) },
    };
    Ok(PageRankOutput {
        domain: host,
        ranked: ranked.found,
        page_rank: ranked.decimal,
        page_rank_integer: ranked.integer,
        global_rank: ranked.rank,
        data_updated: ranked.updated,
        source: "Open PageRank",
        cached,
        http,
        checked_at: now_rfc3339(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_providers_answers_are_read_as_documented() {
        let found = br#"{"status_code":200,"response":[{"status_code":200,"error":"","page_rank_integer":7,"page_rank_decimal":7.53,"rank":"1024","domain":"example.com"}],"last_updated":"9th Nov 2026"}"#;
        let r = parse_answer(found, "example.com").unwrap();
        assert!(r.found);
        assert_eq!((r.decimal, r.integer, r.rank), (Some(7.53), Some(7), Some(1024)));
        assert_eq!(r.updated.as_deref(), Some("9th Nov 2026"));
        let unknown = br#"{"status_code":200,"response":[{"status_code":404,"error":"Domain not found","page_rank_integer":0,"page_rank_decimal":0,"rank":null,"domain":"nope.example"}],"last_updated":"9th Nov 2026"}"#;
        let r = parse_answer(unknown, "nope.example").unwrap();
        assert!(!r.found && r.decimal.is_none() && r.rank.is_none());
        for bad in [
            &b"not json"[..],
            br#"{"status_code":200}"#,
            br#"{"response":[]}"#,
            br#"{"response":[{"status_code":200,"page_rank_decimal":11,"domain":"x.example"}]}"#,
        ] {
            assert_eq!(parse_answer(bad, "x.example").unwrap_err().code, ErrorCode::UpstreamError);
        }
    }

    async fn check(ctx: &Ctx, domain: &str) -> Result<PageRankOutput, ApiError> {
        page_rank_check(PageRankInput { domain: domain.into() }, ctx).await
    }

    #[tokio::test]
    async fn without_a_key_the_setting_is_named() {
        let ctx = crate::testing::fake_ctx(&[("WRENCH_PROVIDER_OPENPAGERANK_KEY", "")]);
        let e = check(&ctx, "site.example:8443").await.unwrap_err();
        assert_eq!(e.code, ErrorCode::ProviderNotConfigured);
        assert!(e.message.contains("WRENCH_PROVIDER_OPENPAGERANK_KEY"), "{}", e.message);
    }

    #[tokio::test]
    async fn a_refused_key_is_the_providers_failure_and_says_which_setting() {
        let ctx = crate::testing::fake_ctx(&[("WRENCH_PROVIDER_OPENPAGERANK_KEY", "wrong")]);
        let e = check(&ctx, "site.example:8443").await.unwrap_err();
        assert_eq!(e.code, ErrorCode::UpstreamError);
        assert!(e.message.contains("refused the key (HTTP 401)"), "{}", e.message);
    }

    #[tokio::test]
    async fn ranks_are_cached_and_a_dead_home_page_does_not_fail_the_check() {
        let ctx = crate::testing::fake_ctx(&[]);
        // Nothing listens on ports 443 and 80 of the fake site's address: the failed status
        // check is reported, not raised.
        let first = check(&ctx, "company.site.example").await.unwrap();
        assert!(!first.cached && first.ranked);
        assert_eq!((first.page_rank, first.global_rank), (Some(7.53), Some(1024)));
        assert!(first.http.status.is_none(), "{:?}", first.http);
        let error = first.http.error.unwrap_or_default();
        assert!(error.contains("over HTTPS") && error.contains("over HTTP"), "{error}");
        let second = check(&ctx, "company.site.example").await.unwrap();
        assert!(second.cached);
        assert_eq!(second.global_rank, Some(1024));
    }

    /// The key travels only to the provider's origin: a redirect elsewhere does not carry it.
    #[tokio::test]
    async fn the_key_never_follows_a_redirect_to_another_origin() {
        let ctx = crate::testing::fake_ctx(&[]);
        let mut headers = HeaderMap::new();
        headers.insert("api-opr", HeaderValue::from_static("k-123"));
        let p = wrench_infra::providers::Provider {
            name: "echo",
            timeout: std::time::Duration::from_secs(5),
            max_bytes: 65_536,
            budgets: &[],
            ..OPEN_PAGERANK
        };
        for (to, carried) in
            [("/echo", true), ("http://www.site.example:8080/echo", false), ("http://127.0.0.2:8080/echo", true)]
        {
            let url = url::Url::parse(&format!("http://127.0.0.2:8080/redirect?to={to}")).unwrap();
            let answer = p.get(&ctx, url, &headers).await.unwrap();
            assert_eq!(answer.status, 200);
            let echo: Value = serde_json::from_slice(&answer.body).unwrap();
            assert_eq!(echo["headers"].get("api-opr").is_some(), carried, "{to}: {echo}");
        }
    }
}
