//! Short links: a slug that redirects to a URL, with a click counter.
//!
//! Links do not expire. The redirect answers at once and counts the click in the background,
//! so a slow store never delays a visitor; the counter is a store counter, atomic across
//! instances. Targets are never fetched (creating a link is not a way to make this service
//! contact a host).

use crate::{prelude::*, random, store::CountedRead, time};

/// Unambiguous letters and digits for generated slugs: no 0/O, 1/l/I.
const SLUG_ALPHABET: &[u8] = b"23456789abcdefghijkmnpqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ";
const AUTO_SLUG_LEN: usize = 6;
const SLUG_MIN: usize = 3;
const SLUG_MAX: usize = 64;
/// Slugs that would read as routes or commands; refused as custom slugs, never generated
/// (generated slugs are six characters, so they cannot be any of these).
const RESERVED: &[&str] = &["r", "create", "stats", "get", "list", "new", "delete", "api", "admin", "docs", "health"];
const MAX_URL: usize = 2048;

fn key(slug: &str) -> String {
    format!("link:{{{slug}}}")
}
fn clicks_key(slug: &str) -> String {
    format!("link:{{{slug}}}:clicks")
}
fn last_click_key(slug: &str) -> String {
    format!("link:{{{slug}}}:last")
}

#[derive(Debug, Serialize, Deserialize)]
struct LinkRecord {
    url: String,
    created_at: String,
}

#[derive(Debug, Deserialize, JsonSchema, Validate)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
#[schemars(transform = wrench_contract::validate::declare_aliases::<Self>)]
struct ShortUrlCreateInput {
    /// The target: an absolute http or https URL, at most 2,048 characters, without user name
    /// or password.
    #[schemars(length(min = 1, max = 2048), pattern("^[\\x00-\\x20]*[Hh][Tt][Tt][Pp][Ss]?:"))]
    url: String,
    /// Your own slug: 3 to 64 letters, digits, `-` or `_`, not a reserved word (r, create,
    /// stats, get, list, new, delete, api, admin, docs, health). Generated (6 characters)
    /// when absent.
    /// Also accepted as `custom_slug`, the original service's spelling.
    #[serde(default, alias = "custom_slug")]
    #[schemars(length(max = 200))]
    custom_slug: Option<String>,
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct ShortUrlCreated {
    /// The slug.
    slug: String,
    /// Absolute short URL that redirects to the target.
    short_url: String,
    /// The target URL, normalised.
    url: String,
    /// When the link was created (RFC 3339, UTC).
    created_at: String,
}

fn check_url(raw: &str) -> Result<String, ApiError> {
    let bad = |why: &str| ApiError::invalid("url", why.to_string());
    if raw.len() > MAX_URL {
        return Err(bad("is longer than 2,048 characters"));
    }
    let u = url::Url::parse(raw.trim()).map_err(|e| bad(&format!("is not an absolute URL ({e})")))?;
    if !matches!(u.scheme(), "http" | "https") {
        return Err(bad("must use http or https"));
    }
    if u.host_str().is_none_or(str::is_empty) {
        return Err(bad("has no host"));
    }
    if !u.username().is_empty() || u.password().is_some() {
        return Err(bad("must not carry a user name or password"));
    }
    Ok(u.to_string())
}

/// Why a custom slug is refused, if it is.
fn slug_problem(slug: &str) -> Option<String> {
    shape_problem(slug)
        .or_else(|| RESERVED.iter().any(|r| r.eq_ignore_ascii_case(slug)).then(|| format!("{slug:?} is reserved")))
}

/// Why `slug` has a shape no link can have (length, characters), if it has.
fn shape_problem(slug: &str) -> Option<String> {
    let n = slug.chars().count();
    if !(SLUG_MIN..=SLUG_MAX).contains(&n) {
        return Some(format!("must be {SLUG_MIN} to {SLUG_MAX} characters long (got {n})"));
    }
    slug.chars()
        .find(|c| !(c.is_ascii_alphanumeric() || *c == '-' || *c == '_'))
        .map(|c| format!("may contain only letters, digits, - and _ (found {c:?})"))
}

/// Create a short link.
///
/// Stores `url` under a slug: `customSlug` if given (3 to 64 letters, digits, `-`, `_`; not
/// a reserved word), otherwise a generated 6-character slug from an alphabet without
/// look-alikes (no 0/O, 1/l/I). A custom slug that is taken is 409 `SLUG_TAKEN`; one that
/// breaks the rules is 400 `INVALID_SLUG` saying which rule. Links do not expire. The target
/// is validated but never fetched.
#[op(post "/v1/short-url/create" as createShortUrl, tag = Storage,
     uses(store), errors(INVALID_SLUG, SLUG_TAKEN),
     rejects = "a URL with a user name or password, or whose host is not a valid host name or address",
     redact(".data.slug", ".data.shortUrl", ".data.createdAt"),
     example(generated_slug, {"url": "https://example.com/a/very/long/path?with=query"}),
     example(reserved_slug, {"url": "https://example.com", "customSlug": "stats"}, status = 400),
     example(not_http, {"url": "javascript:alert(1)"}, status = 400))]
async fn create_short_url(input: ShortUrlCreateInput, ctx: &Ctx) -> Result<ShortUrlCreated, ApiError> {
    let url = check_url(&input.url)?;
    let record = LinkRecord { url, created_at: time::rfc3339(time::now()) };
    let bytes = serde_json::to_vec(&record).map_err(|e| ApiError::internal(e.to_string()))?;
    let slug = match input.custom_slug {
        Some(slug) => {
            if let Some(why) = slug_problem(&slug) {
                let mut e = ApiError::new(ErrorCode::InvalidSlug, format!("customSlug: {why}"));
                e.field = Some("customSlug".into());
                return Err(e);
            }
            if !ctx.store.put_new(&key(&slug), &bytes, None).await? {
                return Err(ApiError::new(ErrorCode::SlugTaken, format!("the slug {slug:?} is already in use")));
            }
            slug
        }
        None => random::reserve(ctx.store.as_ref(), AUTO_SLUG_LEN, SLUG_ALPHABET, key, &bytes, None, "slug").await?,
    };
    Ok(ShortUrlCreated {
        short_url: format!("{}/v1/short-url/r/{slug}", ctx.config.public_base()),
        slug,
        url: record.url,
        created_at: record.created_at,
    })
}

#[derive(Debug, Deserialize, JsonSchema, Validate)]
#[serde(deny_unknown_fields)]
struct SlugInput {
    /// The link's slug. Any slug that is not a link (of any shape) is 404 `NOT_FOUND`.
    #[schemars(length(min = 1, max = 256))]
    slug: String,
}

async fn find(ctx: &Ctx, slug: &str) -> Result<LinkRecord, ApiError> {
    lookable(slug)?;
    read(ctx.store.get(&key(slug)).await?.ok_or_else(|| missing(slug))?)
}

/// Only slugs that could have been created are looked up; any other shape is 404 at once.
/// (Reserved words are not checked here: a generated slug could in principle spell one.)
fn lookable(slug: &str) -> Result<(), ApiError> {
    match shape_problem(slug) {
        Some(_) => Err(missing(slug)),
        None => Ok(()),
    }
}

fn missing(slug: &str) -> ApiError {
    ApiError::not_found(format!("no short link {slug:?}"))
}

fn read(raw: Vec<u8>) -> Result<LinkRecord, ApiError> {
    serde_json::from_slice(&raw).map_err(|e| ApiError::internal(format!("stored link unreadable: {e}")))
}

/// Follow a short link.
///
/// Answers 302 with the target in `Location` and counts the click, in the same step as the
/// lookup (one round trip on Redis; on the embedded store the count is queued and the redirect
/// does not wait for it); every request counts, bots and link previews included. Unknown slugs
/// are 404 `NOT_FOUND`.
#[op(get "/v1/short-url/r/{slug}" as followShortUrl, tag = Storage, output = redirect,
     uses(store), errors(NOT_FOUND),
     example(unknown, {"slug": "nothing-here"}, status = 404),
     example(other_shape, {"slug": "no spaces"}, status = 404))]
async fn follow_short_url(input: SlugInput, ctx: &Ctx) -> Result<Redirect, ApiError> {
    let slug = &input.slug;
    lookable(slug)?;
    let now = time::rfc3339(time::now());
    let raw = ctx
        .store
        .get_and_count(CountedRead {
            key: &key(slug),
            stamp_key: &last_click_key(slug),
            stamp: now.as_bytes(),
            counter: &clicks_key(slug),
        })
        .await?
        .ok_or_else(|| missing(slug))?;
    Ok(Redirect { location: read(raw)?.url })
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct ShortUrlStats {
    /// The slug.
    slug: String,
    /// The target URL.
    url: String,
    /// Absolute short URL.
    short_url: String,
    /// Redirects served so far.
    clicks: i64,
    /// When the link was created (RFC 3339, UTC).
    created_at: String,
    /// When it was last followed (RFC 3339, UTC); null before the first click.
    last_click_at: Option<String>,
}

async fn stats(ctx: &Ctx, slug: String) -> Result<ShortUrlStats, ApiError> {
    let link = find(ctx, &slug).await?;
    let clicks = ctx.store.count(&clicks_key(&slug)).await?;
    let last_click_at = ctx.store.get(&last_click_key(&slug)).await?.map(|b| String::from_utf8_lossy(&b).into_owned());
    Ok(ShortUrlStats {
        short_url: format!("{}/v1/short-url/r/{slug}", ctx.config.public_base()),
        slug,
        url: link.url,
        clicks,
        created_at: link.created_at,
        last_click_at,
    })
}

/// Show a short link's statistics.
///
/// Clicks so far, target, creation time and last click. Reading statistics is not a click.
/// `POST /v1/short-url/stats` with the slug in a JSON body is the same read.
#[op(get "/v1/short-url/{slug}/stats" as getShortUrlStats,
     post "/v1/short-url/stats" as getShortUrlStatsPost,
     tag = Storage,
     uses(store), errors(NOT_FOUND),
     example(unknown, {"slug": "nothing-here"}, status = 404),
     example(other_shape, {"slug": "bad slug!"}, status = 404))]
async fn get_short_url_stats(input: SlugInput, ctx: &Ctx) -> Result<ShortUrlStats, ApiError> {
    stats(ctx, input.slug).await
}

#[cfg(test)]
mod tests {
    use std::{sync::Arc, time::Duration};

    use poem::test::TestClient;

    use super::*;
    use crate::config::Config;
    use crate::testing::json_of;

    fn client() -> TestClient<wrench::http::App> {
        let ops = vec![__op_create_short_url(), __op_follow_short_url(), __op_get_short_url_stats()];
        TestClient::new(wrench::http::app(Arc::new(Config::default()), ops).unwrap())
    }

    #[tokio::test]
    async fn create_follow_count_and_read_stats() {
        let cli = client();
        let (status, v) = json_of(
            cli.post("/v1/short-url/create").body_json(&json!({"url": "https://example.com/x?y=1"})).send().await,
        )
        .await;
        assert_eq!(status, 200, "{v}");
        let slug = v["data"]["slug"].as_str().unwrap().to_string();
        assert_eq!(slug.len(), AUTO_SLUG_LEN);
        assert!(slug.bytes().all(|b| SLUG_ALPHABET.contains(&b)));
        assert_eq!(v["data"]["shortUrl"], format!("http://127.0.0.1:8080/v1/short-url/r/{slug}"));

        for _ in 0..3 {
            let resp = cli.get(format!("/v1/short-url/r/{slug}")).send().await;
            assert_eq!(resp.0.status(), 302);
            assert_eq!(resp.0.headers()["location"], "https://example.com/x?y=1");
        }
        // Counting happens after the answer: wait for it, reading stats meanwhile (not a click).
        let mut clicks = 0;
        for _ in 0..50 {
            let (_, s) = json_of(cli.get(format!("/v1/short-url/{slug}/stats")).send().await).await;
            clicks = s["data"]["clicks"].as_i64().unwrap();
            if clicks == 3 {
                assert!(s["data"]["lastClickAt"].is_string());
                break;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        assert_eq!(clicks, 3);
        let (_, s) = json_of(cli.post("/v1/short-url/stats").body_json(&json!({"slug": slug})).send().await).await;
        assert_eq!(s["data"]["clicks"], 3, "reading stats is not a click");
        assert_eq!(s["data"]["url"], "https://example.com/x?y=1");
    }

    #[tokio::test]
    async fn custom_slugs_are_checked_and_reserved() {
        let cli = client();
        let create = |slug: &str| {
            cli.post("/v1/short-url/create").body_json(&json!({"url": "http://example.org", "customSlug": slug})).send()
        };
        // The original service's spelling is accepted too, and giving both is refused.
        let legacy = cli
            .post("/v1/short-url/create")
            .body_json(&json!({"url": "http://example.org", "custom_slug": "my-link_1"}))
            .send();
        let (status, v) = json_of(legacy.await).await;
        assert_eq!((status, v["data"]["slug"].as_str()), (200, Some("my-link_1")));
        let both = cli
            .post("/v1/short-url/create")
            .body_json(&json!({"url": "http://example.org", "custom_slug": "a-link", "customSlug": "b-link"}))
            .send();
        let (status, v) = json_of(both.await).await;
        assert_eq!((status, v["error"]["code"].as_str()), (400, Some("VALIDATION_ERROR")), "{v}");
        let (status, v) = json_of(create("my-link_1").await).await;
        assert_eq!((status, v["error"]["code"].as_str()), (409, Some("SLUG_TAKEN")));
        for (slug, why) in [("ab", "3 to 64"), ("has space", "only letters"), ("Stats", "reserved"), ("r", "3 to 64")] {
            let (status, v) = json_of(create(slug).await).await;
            assert_eq!((status, v["error"]["code"].as_str()), (400, Some("INVALID_SLUG")), "{slug}");
            assert!(v["error"]["message"].as_str().unwrap().contains(why), "{slug}: {v}");
        }
        let (status, _) = json_of(cli.get("/v1/short-url/r/unknown-slug").send().await).await;
        assert_eq!(status, 404);
    }

    #[test]
    fn urls_are_absolute_http_without_credentials() {
        assert_eq!(check_url("https://Example.com").unwrap(), "https://example.com/");
        for bad in ["ftp://example.com", "javascript:alert(1)", "/relative", "https://user:pw@example.com", "http://"] {
            assert!(check_url(bad).is_err(), "{bad}");
        }
        assert!(check_url(&format!("https://example.com/{}", "a".repeat(2100))).is_err());
    }
}
