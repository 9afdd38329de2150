//! `phishing/check`: a URL against two threat sources, matched on the normalised URL and on its
//! host:
//! - an OpenPhish-style feed (`WRENCH_PROVIDER_OPENPHISH_URL`, one URL a line; by default
//!   OpenPhish's free community feed), held in memory and refreshed hourly in the background
//!   (`outbound::feed`);
//! - URLhaus (`WRENCH_PROVIDER_URLHAUS_URL`, its free key in `WRENCH_PROVIDER_URLHAUS_KEY`,
//!   sent as `Auth-Key`), asked per URL and per host through its documented `url/` and `host/`
//!   lookups; answers reused for an hour.
//!
//! Normalisation is the WHATWG URL parser's (scheme and host lower-cased, default port and
//! fragment dropped, an empty path made `/`); a feed's lines are normalised the same way. A
//! source that is off or failing is listed with the reason; the check fails only when no
//! source could be asked.

use std::collections::{HashMap, HashSet};

use reqwest::header::{HeaderMap, HeaderValue};

use wrench_contract::prelude::*;
use wrench_infra::{
    outbound::{
        feed::{Feed, FeedSpec},
        provider,
    },
    providers::{OPENPHISH, URLHAUS},
};

/// Most lines of a feed; OpenPhish's community feed holds a few hundred to a few thousand.
const MAX_FEED_LINES: usize = 500_000;

/// The feed's URLs and the hosts they are on (with how many URLs each).
struct PhishFeed {
    urls: HashSet<String>,
    hosts: HashMap<String, usize>,
}

static PHISH_FEED: Feed<PhishFeed> = Feed::new();
static PHISH_FEED_SPEC: FeedSpec<PhishFeed> = FeedSpec { provider: &OPENPHISH, parse: parse_feed };

/// The normalised form of a URL and its host, or `None` for what is not an http(s) URL.
fn normalise(text: &str) -> Option<(String, String)> {
    let mut url = url::Url::parse(text.trim()).ok()?;
    if !matches!(url.scheme(), "http" | "https") {
        return None;
    }
    url.set_fragment(None);
    let host = url.host_str()?.trim_end_matches('.').to_ascii_lowercase();
    Some((url.to_string(), host))
}

fn parse_feed(body: &[u8]) -> Result<PhishFeed, String> {
    let text = std::str::from_utf8(body).map_err(|_| "the feed is not UTF-8 text".to_string())?;
    let mut feed = PhishFeed { urls: HashSet::new(), hosts: HashMap::new() };
    for (n, line) in text.lines().map(str::trim).filter(|l| !l.is_empty() && !l.starts_with('#')).enumerate() {
        if n >= MAX_FEED_LINES {
            return Err(format!("more than {MAX_FEED_LINES} lines; it is not used"));
        }
        if let Some((url, host)) = normalise(line)
            && feed.urls.insert(url)
        {
            *feed.hosts.entry(host).or_default() += 1;
        }
    }
    if feed.urls.is_empty() && !text.trim().is_empty() {
        return Err("no line is an http or https URL".to_string());
    }
    Ok(feed)
}

#[derive(Debug, Deserialize, JsonSchema, Validate)]
#[serde(deny_unknown_fields)]
struct PhishingInput {
    /// The http or https URL to check.
    #[schemars(length(min = 1, max = 2048))]
    url: String,
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct Threat {
    /// `OpenPhish` or `URLhaus`.
    source: &'static str,
    /// `phishing`, `malware_download`, ...: the source's own word.
    threat_type: String,
    /// `url` (this very URL is listed) or `host` (other URLs on its host are).
    matched: &'static str,
    /// The source's page about it, where it has one.
    reference: Option<String>,
    /// `online`, `offline` or `unknown`, where the source tracks it.
    status: Option<String>,
    /// When the source first listed it, as the source writes it.
    listed_since: Option<String>,
    tags: Vec<String>,
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct SourceState {
    source: &'static str,
    /// The source was asked (or its feed read).
    checked: bool,
    /// Why it was not.
    reason: Option<String>,
    /// When its data was fetched (RFC 3339).
    fetched_at: Option<String>,
    /// Age of the feed in seconds (the feed is refreshed hourly).
    age_seconds: Option<u64>,
    /// It is not configured (rather than failing), which decides the error when no source
    /// could be asked.
    #[serde(skip)]
    off: bool,
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct PhishingOutput {
    url: String,
    /// The form matched against the sources.
    normalized_url: String,
    host: String,
    /// This URL is listed by a source.
    malicious: bool,
    /// `malicious` (the URL is listed), `suspicious` (only other URLs on its host are) or
    /// `not listed` (no source that could be asked lists it).
    verdict: &'static str,
    threats: Vec<Threat>,
    sources: Vec<SourceState>,
}

/// The OpenPhish part: threats found, and the source's state.
async fn openphish(ctx: &Ctx, url: &str, host: &str) -> (Vec<Threat>, SourceState) {
    let mut state = SourceState {
        source: "OpenPhish",
        checked: false,
        reason: None,
        fetched_at: None,
        age_seconds: None,
        off: false,
    };
    let Some(feed_url) = ctx.config.outbound.providers.url(&OPENPHISH).cloned() else {
        state.reason = Some("off (WRENCH_PROVIDER_OPENPHISH_URL)".into());
        state.off = true;
        return (Vec::new(), state);
    };
    let feed = match PHISH_FEED.get(&ctx.net, &PHISH_FEED_SPEC, &feed_url, HeaderMap::new()).await {
        Ok(f) => f,
        Err(e) => {
            state.reason = Some(e);
            return (Vec::new(), state);
        }
    };
    state.checked = true;
    state.fetched_at = Some(feed.fetched_at.clone());
    state.age_seconds = Some(feed.age_seconds());
    let threat = |matched| Threat {
        source: "OpenPhish",
        threat_type: "phishing".into(),
        matched,
        reference: None,
        status: None,
        listed_since: None,
        tags: Vec::new(),
    };
    let threats = if feed.data.urls.contains(url) {
        vec![threat("url")]
    } else if feed.data.hosts.contains_key(host) {
        vec![threat("host")]
    } else {
        Vec::new()
    };
    (threats, state)
}

/// One URLhaus lookup (`url/` or `host/`): its JSON when it knows the thing, `None` when not.
async fn urlhaus_lookup(ctx: &Ctx, endpoint: &str, field: &str, value: &str) -> Result<Option<Value>, ApiError> {
    let base = URLHAUS.url(ctx)?;
    let key = URLHAUS.key(ctx).ok_or_else(|| ApiError::internal("a required key is checked by url()"))?;
    let url = base.join(endpoint).map_err(|e| URLHAUS.malformed(e))?;
    let cache_key = format!("cache:urlhaus:{endpoint}{}", hex::encode(<sha2::Sha256 as sha2::Digest>::digest(value)));
    let body = match provider::cached(ctx, &cache_key).await {
        Some(body) => body,
        None => {
            let mut headers = HeaderMap::new();
            let value_header =
                HeaderValue::from_str(key.expose()).map_err(|_| ApiError::internal("the URLhaus key"))?;
            headers.insert("auth-key", value_header);
            let answer = URLHAUS.post_form(ctx, url, &headers, &[(field, value)]).await?;
            if answer.status != 200 {
                return Err(URLHAUS.failed(answer.status));
            }
            URLHAUS.remember(ctx, &cache_key, &answer.body).await;
            answer.body
        }
    };
    let v: Value = serde_json::from_slice(&body).map_err(|e| URLHAUS.malformed(format!("not JSON ({e})")))?;
    match v["query_status"].as_str() {
        Some("ok") => Ok(Some(v)),
        Some("no_results") | Some("invalid_url") | Some("invalid_host") => Ok(None),
        Some(other) => Err(URLHAUS.malformed(format!("query_status {other:?}"))),
        None => Err(URLHAUS.malformed("no query_status")),
    }
}

/// The URLhaus part.
async fn urlhaus(ctx: &Ctx, url: &str, host: &str) -> (Vec<Threat>, SourceState) {
    let mut state = SourceState {
        source: "URLhaus",
        checked: false,
        reason: None,
        fetched_at: None,
        age_seconds: None,
        off: false,
    };
    if let Err(e) = URLHAUS.url(ctx) {
        state.off = e.code == ErrorCode::ProviderNotConfigured;
        state.reason = Some(e.message.to_string());
        return (Vec::new(), state);
    }
    let (by_url, by_host) =
        tokio::join!(urlhaus_lookup(ctx, "url/", "url", url), urlhaus_lookup(ctx, "host/", "host", host));
    let (by_url, by_host) = match (by_url, by_host) {
        (Ok(u), Ok(h)) => (u, h),
        (Err(e), _) | (_, Err(e)) => {
            state.reason = Some(e.message.to_string());
            return (Vec::new(), state);
        }
    };
    state.checked = true;
    state.fetched_at = Some(jiff::Timestamp::now().to_string());
    let text = |v: &Value| v.as_str().map(str::trim).filter(|s| !s.is_empty()).map(str::to_string);
    let mut threats = Vec::new();
    if let Some(v) = by_url {
        threats.push(Threat {
            source: "URLhaus",
            threat_type: text(&v["threat"]).unwrap_or_else(|| "malware_download".into()),
            matched: "url",
            reference: text(&v["urlhaus_reference"]),
            status: text(&v["url_status"]),
            listed_since: text(&v["date_added"]),
            tags: v["tags"].as_array().map(|t| t.iter().filter_map(text).collect()).unwrap_or_default(),
        });
    } else if let Some(v) = by_host
        && v["url_count"].as_str().and_then(|c| c.parse::<u64>().ok()).or(v["url_count"].as_u64()).unwrap_or(0) > 0
    {
        threats.push(Threat {
            source: "URLhaus",
            threat_type: "malware_download".into(),
            matched: "host",
            reference: text(&v["urlhaus_reference"]),
            status: None,
            listed_since: text(&v["firstseen"]),
            tags: Vec::new(),
        });
    }
    (threats, state)
}

/// Check a URL against phishing and malware feeds.
///
/// Whether `url` (normalised: scheme and host lower-cased, default port and fragment dropped)
/// or its host is listed by OpenPhish's feed (`WRENCH_PROVIDER_OPENPHISH_URL`, refreshed
/// hourly) or by URLhaus (`WRENCH_PROVIDER_URLHAUS_URL` with its free key), with each threat's
/// type, source, status, first listing and tags, and each source's state and data age.
/// `verdict` is `malicious` when the URL itself is listed, `suspicious` when only other URLs on
/// its host are, `not listed` otherwise; absence from the lists is not proof of safety. A
/// source that is off or failing is listed with the reason; when none could be asked the answer
/// is 503 or 502 naming them.
#[op(post "/v1/phishing/check" as phishingCheck, tag = SecurityAndValidation,
     rejects = "a URL that is not http or https",
     uses(provider),
     redact(".data.sources[].fetchedAt", ".data.sources[].ageSeconds"),
     example(listed, {"url": "http://login-verify.phish.site.example/account/"}),
     example(clean, {"url": "https://www.site.example/"}),
     example(not_http, {"url": "ftp://files.site.example/"}, status = 400))]
async fn phishing_check(ctx: &Ctx, input: PhishingInput) -> Result<PhishingOutput, ApiError> {
    let Some((normalized, host)) = normalise(&input.url) else {
        return Err(ApiError::invalid("url", "an http or https URL"));
    };
    let ((mut threats, phish), (more, haus)) =
        tokio::join!(openphish(ctx, &normalized, &host), urlhaus(ctx, &normalized, &host));
    threats.extend(more);
    if !phish.checked && !haus.checked {
        let reasons = format!(
            "no threat source could be asked: OpenPhish: {}; URLhaus: {}",
            phish.reason.as_deref().unwrap_or_default(),
            haus.reason.as_deref().unwrap_or_default()
        );
        let code = if phish.off && haus.off { ErrorCode::ProviderNotConfigured } else { ErrorCode::UpstreamError };
        return Err(ApiError::new(code, reasons));
    }
    let malicious = threats.iter().any(|t| t.matched == "url");
    let verdict = if malicious {
        "malicious"
    } else if threats.is_empty() {
        "not listed"
    } else {
        "suspicious"
    };
    Ok(PhishingOutput {
        url: input.url,
        normalized_url: normalized,
        host,
        malicious,
        verdict,
        threats,
        sources: vec![phish, haus],
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(ctx: &Ctx, url: &str) -> impl std::future::Future<Output = Result<PhishingOutput, ApiError>> {
        phishing_check(ctx, PhishingInput { url: url.into() })
    }

    #[test]
    fn urls_normalise_like_browsers() {
        let n = |u: &str| normalise(u).map(|(url, _)| url);
        assert_eq!(
            n("HTTP://Login.Phish.SITE.example:80/a#frag").as_deref(),
            Some("http://login.phish.site.example/a")
        );
        assert_eq!(n("https://x.site.example").as_deref(), Some("https://x.site.example/"));
        assert_eq!(normalise("https://x.site.example./p").map(|(_, h)| h).as_deref(), Some("x.site.example"));
        assert_eq!(n("javascript:alert(1)"), None);
        let feed = parse_feed(b"# comment\nhttp://A.site.example/x\nnot a url\nhttp://a.site.example/y\n").unwrap();
        assert_eq!((feed.urls.len(), feed.hosts.get("a.site.example")), (2, Some(&2)));
    }

    #[tokio::test]
    async fn listed_urls_hosts_and_clean_ones() {
        let ctx = crate::testing::fake_ctx(&[]);
        let listed = check(&ctx, "HTTP://LOGIN-VERIFY.phish.site.example/account/#x").await.unwrap();
        assert_eq!((listed.verdict, listed.malicious), ("malicious", true));
        assert!(listed.threats.iter().any(|t| t.source == "OpenPhish" && t.matched == "url"));
        let host_only = check(&ctx, "http://login-verify.phish.site.example/other").await.unwrap();
        assert_eq!(host_only.verdict, "suspicious");
        let malware = check(&ctx, "http://malware.site.example/bins/x86").await.unwrap();
        let t = malware.threats.iter().find(|t| t.source == "URLhaus").unwrap();
        assert_eq!(
            (t.threat_type.as_str(), t.status.as_deref(), t.matched),
            ("malware_download", Some("online"), "url")
        );
        assert_eq!(t.tags, ["elf", "mirai"]);
        let clean = check(&ctx, "https://www.site.example/").await.unwrap();
        assert_eq!(clean.verdict, "not listed");
        assert!(clean.sources.iter().all(|s| s.checked), "{:?}", clean.sources);
        // URLhaus received the key and the URL as a form, nothing else.
        let sent = wrench_fakes::live::requests("/urlhaus/v1/url/");
        assert!(sent.iter().all(|r| r.header("auth-key") == Some(wrench_fakes::live::URLHAUS_KEY)));
    }

    #[tokio::test]
    async fn a_source_that_is_off_is_listed_and_none_is_an_error() {
        let ctx = crate::testing::fake_ctx(&[("WRENCH_PROVIDER_URLHAUS_KEY", "")]);
        let out = check(&ctx, "http://login-verify.phish.site.example/account/").await.unwrap();
        assert!(out.malicious);
        let haus = out.sources.iter().find(|s| s.source == "URLhaus").unwrap();
        assert!(!haus.checked && haus.reason.as_deref().unwrap().contains("WRENCH_PROVIDER_URLHAUS_KEY"));
        let none =
            crate::testing::fake_ctx(&[("WRENCH_PROVIDER_URLHAUS_KEY", ""), ("WRENCH_PROVIDER_OPENPHISH_URL", "")]);
        let e = check(&none, "https://www.site.example/").await.unwrap_err();
        assert_eq!(e.code, ErrorCode::ProviderNotConfigured);
    }
}
