//! Short links: a slug that redirects to a URL, with a click counter.
//!
//! A link may open and close at given instants (`validSince`, `validUntil`) and stop after a
//! number of visits (`maxVisits`); both live in the stored value's gate (`store::gated`), which
//! the redirect checks and spends in the same store step that counts the click, so the visit
//! that reaches `maxVisits` is the last one redirected however many arrive at once. A closed
//! link answers 410 `LINK_EXPIRED`. Links without a gate count their clicks in the background,
//! so a slow store never delays a visitor. Targets are never fetched (creating a link is not a
//! way to make this service contact a host). Changing, deleting and the QR code are in
//! `manage.rs`; the stored record in `model.rs`.

use std::time::SystemTime;

use crate::storage::short_url::model::{
    LinkRecord, RedirectStatus, SLUG_MAX, SLUG_MIN, SlugInput, clicks_key, key, last_click_key, lookable, missing,
    read, shape_problem, short_url,
};
use crate::storage::short_url::visit_queue::VisitQueue;
use crate::storage::short_url::visits;
use wrench_contract::{op, prelude::*};
use wrench_infra::{
    config::Config,
    random,
    store::{Counted, CountedRead},
    time,
};

/// Unambiguous letters and digits for generated slugs: no 0/O, 1/l/I.
const SLUG_ALPHABET: &[u8] = b"23456789abcdefghijkmnpqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ";
const AUTO_SLUG_LEN: usize = 6;
/// Slugs that would read as routes or commands; refused as custom slugs, never generated
/// (generated slugs are six characters, so they cannot be any of these).
const RESERVED: &[&str] =
    &["r", "create", "stats", "get", "list", "new", "delete", "api", "admin", "docs", "health", "batch"];
const MAX_URL: usize = 2048;
/// Most links one batch creates.
const MAX_BATCH: usize = 100;

/// Short links at their own base (`WRENCH_SHORT_URL_BASE`): the server redirects
/// `{base path}{slug}` as it redirects `/v1/short-url/r/{slug}`.
pub(crate) const MOUNT: op::Mount =
    op::Mount { operation: "followShortUrl", prefix: Config::short_url_path, setting: "WRENCH_SHORT_URL_BASE" };

/// Most characters of a tag.
const MAX_TAG: usize = 32;
/// What a tag is made of: a letter or digit of any script, then letters, combining marks (the
/// vowel signs of Devanagari, say, or an accent typed apart), digits, spaces, `.`, `_` or `-`.
const TAG_RULE: &str = r"^[\p{L}\p{N}][\p{L}\p{M}\p{N} ._-]*$";
/// The rule as the document declares it. Unicode property classes (`\p{L}`) are not read alike
/// by the regular expressions of the tools that read the document (Python's, ECMA-262's
/// without its Unicode flag), so the declared pattern is exact for ASCII, where it admits what
/// [`TAG_RULE`] admits, and admits every other character; the rest of the rule (a character
/// beyond ASCII must be a letter, mark or digit) is stated in the operation's rejections.
const TAG_PATTERN: &str =
    r"^[^\x00-\x2F\x3A-\x40\x5B-\x60\x7B-\x7F][^\x00-\x1F\x21-\x2C\x2F\x3A-\x40\x5B-\x5E\x60\x7B-\x7F]*$";

/// A tag: 1 to 32 characters as [`TAG_RULE`] allows, kept in Unicode normalisation form C
/// (so `café` typed with a combining accent is the same tag as `café` typed whole).
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
#[serde(transparent)]
pub(in crate::storage) struct Tag(pub String);

impl Tag {
    /// The tag as kept: NFC.
    pub(in crate::storage) fn normalized(self) -> String {
        use unicode_normalization::UnicodeNormalization;
        self.0.nfc().collect()
    }
}

impl JsonSchema for Tag {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "LinkTag".into()
    }

    fn inline_schema() -> bool {
        true
    }

    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({"type": "string", "minLength": 1, "maxLength": MAX_TAG, "pattern": TAG_PATTERN})
    }
}

impl Validate for Tag {
    fn validate(&self, path: &str) -> Result<(), wrench_contract::validate::FieldError> {
        static SHAPE: std::sync::LazyLock<regex::Regex> =
            std::sync::LazyLock::new(|| regex::Regex::new(TAG_RULE).expect("the tag rule compiles"));
        let t = &self.0;
        if (1..=MAX_TAG).contains(&t.chars().count()) && SHAPE.is_match(t) {
            return Ok(());
        }
        Err(wrench_contract::validate::FieldError {
            path: path.to_string(),
            message: format!(
                "{t:?} is not a tag: 1 to {MAX_TAG} letters (of any script), digits, combining marks, spaces, ., _ or -, starting with a letter or digit"
            ),
        })
    }
}

/// A custom slug as given. Its shape is declared in the document (length and characters) and
/// checked by the operation, which answers 400 `INVALID_SLUG` (the original service's code)
/// rather than `VALIDATION_ERROR` for a slug that breaks it.
#[derive(Debug, Clone, Deserialize)]
#[serde(transparent)]
struct CustomSlug(String);

impl JsonSchema for CustomSlug {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "CustomSlug".into()
    }

    fn inline_schema() -> bool {
        true
    }

    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({"type": "string", "minLength": SLUG_MIN, "maxLength": SLUG_MAX, "pattern": "^[A-Za-z0-9_-]+$"})
    }
}

impl Validate for CustomSlug {
    /// Checked by the operation, with its own code (`slug_problem`).
    fn validate(&self, _: &str) -> Result<(), wrench_contract::validate::FieldError> {
        Ok(())
    }
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
    /// stats, get, list, new, delete, api, admin, docs, health, batch) nor, when short links
    /// have a base of their own at the server's root (`WRENCH_SHORT_URL_BASE`), one of the
    /// server's own top-level paths. Generated (6 characters) when absent. A slug that breaks
    /// these rules is 400 `INVALID_SLUG`, naming the rule.
    /// Also accepted as `custom_slug`, the original service's spelling.
    #[serde(default, alias = "custom_slug")]
    custom_slug: Option<CustomSlug>,
    /// The link redirects from this instant on (RFC 3339); before it, 410 `LINK_EXPIRED`.
    #[serde(default)]
    #[schemars(length(min = 1, max = 64))]
    valid_since: Option<String>,
    /// The link redirects until this instant (RFC 3339); from it on, 410 `LINK_EXPIRED`.
    #[serde(default)]
    #[schemars(length(min = 1, max = 64))]
    valid_until: Option<String>,
    /// Visits redirected at most, 1 to 1,000,000,000; the visit that reaches it is the last.
    #[serde(default)]
    #[schemars(range(min = 1, max = 1_000_000_000))]
    max_visits: Option<u64>,
    /// Append the query of the short URL as followed to the target's (`?utm_source=...`).
    #[serde(default)]
    forward_query: bool,
    /// The redirect's status: 301, 302 (default), 307 or 308.
    #[serde(default)]
    redirect_status: Option<RedirectStatus>,
    /// Up to 10 tags, for your own bookkeeping.
    #[serde(default)]
    #[schemars(length(max = 10))]
    tags: Vec<Tag>,
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub(in crate::storage) struct ShortUrlCreated {
    /// The slug.
    pub slug: String,
    /// Absolute short URL that redirects to the target.
    pub short_url: String,
    /// The target URL, normalised.
    pub url: String,
    /// When the link was created (RFC 3339, UTC).
    pub created_at: String,
    /// From when it redirects (RFC 3339), if limited.
    pub valid_since: Option<String>,
    /// Until when it redirects (RFC 3339), if limited.
    pub valid_until: Option<String>,
    /// Visits it redirects at most, if limited.
    pub max_visits: Option<u64>,
    /// Whether the short URL's query is appended to the target.
    pub forward_query: bool,
    /// The redirect's status.
    pub redirect_status: u16,
    /// Its tags.
    pub tags: Vec<String>,
    /// Absolute URL of the short URL as a QR code (`GET /v1/short-url/{slug}/qr`).
    pub qr_url: String,
    /// The token that changes or deletes the link (`X-Manage-Token`). Shown only here.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub manage_token: Option<String>,
}

impl ShortUrlCreated {
    pub(in crate::storage) fn of(ctx: &Ctx, slug: String, r: LinkRecord) -> ShortUrlCreated {
        ShortUrlCreated {
            short_url: short_url(&ctx.config, &slug),
            qr_url: format!("{}/v1/short-url/{slug}/qr", ctx.config.public_base()),
            slug,
            url: r.url,
            created_at: r.created_at,
            valid_since: r.valid_since,
            valid_until: r.valid_until,
            max_visits: r.max_visits,
            forward_query: r.forward_query,
            redirect_status: r.redirect_status,
            tags: r.tags,
            manage_token: None,
        }
    }
}

pub(in crate::storage) fn check_url(raw: &str) -> Result<String, ApiError> {
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

/// An RFC 3339 instant, normalised (UTC, milliseconds), or the 400 naming `field`.
pub(in crate::storage) fn instant(field: &str, text: Option<&str>) -> Result<Option<String>, ApiError> {
    text.map(|t| {
        time::parse_iso(t)
            .map(|ts| {
                time::rfc3339(
                    SystemTime::UNIX_EPOCH + std::time::Duration::from_millis(ts.as_millisecond().max(0) as u64),
                )
            })
            .map_err(|e| ApiError::invalid(field, format!("is not an RFC 3339 instant: {e}")))
    })
    .transpose()
}

/// Checks that a period, if both ends are given, is not empty.
pub(in crate::storage) fn check_period(since: &Option<String>, until: &Option<String>) -> Result<(), ApiError> {
    if let (Some(s), Some(u)) = (since, until)
        && time::parse_iso(s).ok() >= time::parse_iso(u).ok()
    {
        return Err(ApiError::invalid("validUntil", "must come after validSince"));
    }
    Ok(())
}

/// Why a custom slug is refused, if it is.
fn slug_problem(config: &Config, slug: &str) -> Option<String> {
    shape_problem(slug)
        .or_else(|| RESERVED.iter().any(|r| r.eq_ignore_ascii_case(slug)).then(|| format!("{slug:?} is reserved")))
        .or_else(|| shadows(config, slug))
}

/// Why `slug` would shadow one of the server's own paths, if it would: only when short links
/// sit at the root of the server (a base path of `/`).
fn shadows(config: &Config, slug: &str) -> Option<String> {
    (config.short_url_path() == Some("/") && op::is_server_path(slug)).then(|| {
        format!("{slug:?} would shadow the server's own path /{slug}, since short links sit at the root of this server (WRENCH_SHORT_URL_BASE)")
    })
}

/// Creates one link.
async fn create(ctx: &Ctx, input: ShortUrlCreateInput) -> Result<ShortUrlCreated, ApiError> {
    let url = check_url(&input.url)?;
    let valid_since = instant("validSince", input.valid_since.as_deref())?;
    let valid_until = instant("validUntil", input.valid_until.as_deref())?;
    check_period(&valid_since, &valid_until)?;
    let (token, digest) = wrench_kit::tokens::issue()?;
    let record = LinkRecord {
        url,
        created_at: time::rfc3339(time::now()),
        valid_since,
        valid_until,
        max_visits: input.max_visits,
        forward_query: input.forward_query,
        redirect_status: input.redirect_status.map_or(302, |s| s.0),
        tags: input.tags.into_iter().map(Tag::normalized).collect(),
        manage_token_sha256: Some(digest),
    };
    let bytes = record.stored(0)?;
    let slug = match input.custom_slug {
        Some(CustomSlug(slug)) => {
            if let Some(why) = slug_problem(&ctx.config, &slug) {
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
    let mut created = ShortUrlCreated::of(ctx, slug, record);
    created.manage_token = Some(token);
    Ok(created)
}

/// Create a short link.
///
/// Stores `url` under a slug: `customSlug` if given (3 to 64 letters, digits, `-`, `_`; not
/// a reserved word), otherwise a generated 6-character slug from an alphabet without
/// look-alikes (no 0/O, 1/l/I). A custom slug that is taken is 409 `SLUG_TAKEN`; one that
/// breaks the rules is 400 `INVALID_SLUG` saying which rule. A link may redirect only from
/// `validSince` and until `validUntil`, and at most `maxVisits` times (exactly, however many
/// visitors arrive at once); outside those it answers 410 `LINK_EXPIRED`. `forwardQuery`
/// appends the query a visitor's URL carries to the target's, `redirectStatus` picks 301, 302
/// (default), 307 or 308, and `tags` (up to 10) are kept for you. The answer's `manageToken`,
/// shown only here, changes (`PATCH`) or deletes the link. The target is validated but never
/// fetched.
#[op(post "/v1/short-url/create" as createShortUrl, tag = Storage,
     uses(store), errors(INVALID_SLUG, SLUG_TAKEN),
     rejects = "a URL with a user name or password, or whose host is not a valid host name or address, or a validSince or validUntil that is not RFC 3339, or a period that ends before it starts, or a tag with a character beyond ASCII that is not a letter, combining mark or digit",
     redact(".data.slug", ".data.shortUrl", ".data.createdAt", ".data.qrUrl", ".data.manageToken"),
     example(generated_slug, {"url": "https://example.com/a/very/long/path?with=query"}),
     example(campaign, {"url": "https://example.com/launch", "validUntil": "2030-01-01T00:00:00Z", "maxVisits": 1000,
                        "forwardQuery": true, "redirectStatus": 307, "tags": ["launch", "newsletter"]}),
     example(reserved_slug, {"url": "https://example.com", "customSlug": "stats"}, status = 400),
     example(empty_period, {"url": "https://example.com", "validSince": "2030-01-02T00:00:00Z", "validUntil": "2030-01-01T00:00:00Z"}, status = 400),
     example(not_http, {"url": "javascript:alert(1)"}, status = 400))]
async fn create_short_url(input: ShortUrlCreateInput, ctx: &Ctx) -> Result<ShortUrlCreated, ApiError> {
    create(ctx, input).await
}

#[derive(Debug, Deserialize, JsonSchema, Validate)]
#[serde(deny_unknown_fields)]
struct ShortUrlBatchInput {
    /// The links to create, 1 to 100, each as `short-url/create` takes it.
    #[schemars(length(min = 1, max = 100))]
    links: Vec<ShortUrlCreateInput>,
}

#[derive(Debug, Serialize, JsonSchema)]
struct BatchItemError {
    /// The error code, as a single create would answer it.
    code: String,
    /// What went wrong.
    message: String,
    /// The field at fault, when one is.
    #[serde(skip_serializing_if = "Option::is_none")]
    field: Option<String>,
}

#[derive(Debug, Serialize, JsonSchema)]
struct BatchItem {
    /// Position in the request, from 0.
    index: usize,
    /// The link, when it was created.
    created: Option<ShortUrlCreated>,
    /// Why it was not, when it was not.
    error: Option<BatchItemError>,
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct ShortUrlBatch {
    /// One result per link asked for, in the request's order.
    results: Vec<BatchItem>,
    /// How many were created.
    created_count: usize,
    /// How many were not.
    failed_count: usize,
}

/// Create up to 100 short links.
///
/// Each link is created as `short-url/create` would create it, on its own: one that fails (a
/// taken or invalid slug, a bad URL) does not stop the others, and its result says why with
/// the code a single create would answer. Results come in the request's order. A request whose
/// shape is wrong (more than 100 links, a field of the wrong type, a `customSlug` of a length
/// or characters the document does not admit) is refused whole with 400, `INVALID_SLUG` for
/// the slug, naming the link.
#[op(post "/v1/short-url/batch" as createShortUrlBatch, tag = Storage,
     uses(store), errors(INVALID_SLUG),
     rejects = "a link with a tag that has a character beyond ASCII that is not a letter, combining mark or digit",
     redact(".data.results[].created.slug", ".data.results[].created.shortUrl", ".data.results[].created.createdAt",
            ".data.results[].created.qrUrl", ".data.results[].created.manageToken"),
     example(two_and_a_bad_one, {"links": [{"url": "https://example.com/a"}, {"url": "https://user:pw@example.com/"},
                                           {"url": "https://example.com/b", "tags": ["b"]}]}),
     example(too_many, {"links": []}, status = 400),
     example(slug_of_no_shape, {"links": [{"url": "https://example.com/a"}, {"url": "https://example.com/b", "customSlug": "no spaces"}]}, status = 400))]
async fn create_short_url_batch(input: ShortUrlBatchInput, ctx: &Ctx) -> Result<ShortUrlBatch, ApiError> {
    use futures_util::StreamExt;
    debug_assert!(input.links.len() <= MAX_BATCH);
    // A slug's shape is part of the document's schema, so it refuses the whole request, as
    // any other break of the schema does; what depends on the rest (a reserved word, a taken
    // slug) is the link's own result.
    for (index, link) in input.links.iter().enumerate() {
        if let Some(why) = link.custom_slug.as_ref().and_then(|CustomSlug(slug)| shape_problem(slug)) {
            let field = format!("links[{index}].customSlug");
            let mut e = ApiError::new(ErrorCode::InvalidSlug, format!("{field}: {why}"));
            e.field = Some(field);
            return Err(e);
        }
    }
    // A few at a time, in order: creates share the store's writes without flooding it.
    let results: Vec<BatchItem> = futures_util::stream::iter(input.links.into_iter().enumerate())
        .map(|(index, link)| async move {
            match create(ctx, link).await {
                Ok(created) => BatchItem { index, created: Some(created), error: None },
                Err(e) => BatchItem {
                    index,
                    created: None,
                    error: Some(BatchItemError {
                        code: e.code.as_str().to_string(),
                        message: e.message.into_owned(),
                        field: e.field,
                    }),
                },
            }
        })
        .buffered(8)
        .collect()
        .await;
    let created_count = results.iter().filter(|r| r.created.is_some()).count();
    Ok(ShortUrlBatch { failed_count: results.len() - created_count, created_count, results })
}

/// Follow a short link.
///
/// Redirects to the target in `Location` (302, or the link's `redirectStatus`), with the
/// visitor's own query appended when the link forwards queries, and counts the click in the
/// same step as the lookup (one round trip on Redis; on the embedded store the count of a link
/// without limits is queued and the redirect does not wait for it); every request counts, bots
/// and link previews included. The visit is described for the link's statistics right after
/// the redirect, in batches: its time, referrer host, browser, operating system, device type,
/// whether it is a bot, and its country when a geolocation data set is configured; never the
/// visitor's address. A link before its
/// `validSince`, from its `validUntil` on, or past its `maxVisits` answers 410 `LINK_EXPIRED`
/// and counts nothing. Unknown slugs are 404 `NOT_FOUND`.
#[op(get "/v1/short-url/r/{slug}" as followShortUrl, tag = Storage, output = redirect,
     uses(store), errors(NOT_FOUND, LINK_EXPIRED),
     example(unknown, {"slug": "nothing-here"}, status = 404),
     example(other_shape, {"slug": "no spaces"}, status = 404))]
async fn follow_short_url(input: SlugInput, ctx: &Ctx) -> Result<Redirect, ApiError> {
    follow(ctx, &input.slug, time::now()).await
}

/// A visit at `now`: the redirect, or why there is none.
pub(in crate::storage) async fn follow(ctx: &Ctx, slug: &str, now: SystemTime) -> Result<Redirect, ApiError> {
    lookable(slug)?;
    let stamp = time::rfc3339(now);
    let counted = ctx
        .store
        .get_and_count(CountedRead {
            key: &key(slug),
            stamp_key: &last_click_key(slug),
            stamp: stamp.as_bytes(),
            counter: &clicks_key(slug),
            now_ms: time::unix_ms(now),
        })
        .await?
        .ok_or_else(|| missing(slug))?;
    match counted {
        Counted::Open(raw) => {
            let link = read(&raw)?;
            // The visit is counted; its description waits for the store (the day's salt).
            // A store that cannot give it now (full, failing) loses the description, never
            // the redirect.
            if let Err(e) = visits::record(ctx, slug, now).await {
                ctx.service::<VisitQueue>().undescribed(&e);
            }
            Ok(Redirect { location: link.url, status: link.redirect_status, forward_query: link.forward_query })
        }
        Counted::Closed(raw) => {
            let link = read(&raw)?;
            let now = jiff::Timestamp::from_millisecond(time::unix_ms(now) as i64).unwrap_or_default();
            Err(ApiError::new(ErrorCode::LinkExpired, link.closed_because(now)))
        }
    }
}

#[cfg(test)]
mod tests {
    use std::{sync::Arc, time::Duration};

    use poem::test::TestClient;

    use super::*;
    use crate::testing::json_of;
    use wrench_infra::config::Config;

    fn client() -> TestClient<wrench_server::http::App> {
        client_with(Config::default())
    }

    /// The short-link operations, on `config`, with the server's mount of short links at their
    /// own base as the registry declares it.
    fn client_with(config: Config) -> TestClient<wrench_server::http::App> {
        use crate::storage::short_url::manage;
        let ops = vec![
            __op_create_short_url(),
            __op_create_short_url_batch(),
            __op_follow_short_url(),
            crate::storage::short_url::stats::__op_get_short_url_stats(),
            manage::__op_update_short_url(),
            manage::__op_delete_short_url(),
            manage::__op_get_short_url_qr(),
        ];
        let registry = wrench_contract::op::Registry {
            operations: ops,
            startup: vec![],
            tables: vec![],
            mounts: vec![MOUNT],
            pages: vec![],
        };
        let store = Arc::new(wrench_infra::store::embedded::EmbeddedStore::in_memory().unwrap());
        TestClient::new(wrench_server::http::app_from_registry(Arc::new(config), store, &registry).unwrap())
    }

    fn at_base(base: &str) -> Config {
        let vars = [("WRENCH_SHORT_URL_BASE".to_string(), base.to_string())];
        Config::from_vars(&vars).unwrap()
    }

    #[tokio::test]
    async fn tags_take_letters_and_digits_of_any_script_kept_in_nfc() {
        let cli = client();
        let (status, v) = json_of(
            cli.post("/v1/short-url/create")
                .body_json(&json!({"url": "https://example.com/", "tags": ["café", "Ünïcode", "東京", "हिन्दी", "٣٤", "cafe\u{301} 2.0"]}))
                .send()
                .await,
        )
        .await;
        assert_eq!(status, 200, "{v}");
        // The tag typed with a combining accent is kept composed, as the first one was typed.
        assert_eq!(v["data"]["tags"], json!(["café", "Ünïcode", "東京", "हिन्दी", "٣٤", "café 2.0"]));
        for bad in ["\u{301}accent first", "-dash", "tab\there", "emoji😀", "a/b", "", &"x".repeat(33)] {
            let (status, v) = json_of(
                cli.post("/v1/short-url/create")
                    .body_json(&json!({"url": "https://example.com/", "tags": [bad]}))
                    .send()
                    .await,
            )
            .await;
            assert_eq!((status, v["error"]["code"].as_str()), (400, Some("VALIDATION_ERROR")), "{bad:?}: {v}");
        }
    }

    #[test]
    fn the_declared_tag_pattern_is_the_rule_in_ascii_and_admits_all_it_admits() {
        let (declared, rule) = (regex::Regex::new(TAG_PATTERN).unwrap(), regex::Regex::new(TAG_RULE).unwrap());
        for c in (0u8..128).map(char::from) {
            for tag in [format!("{c}"), format!("a{c}"), format!("a{c}b")] {
                assert_eq!(declared.is_match(&tag), rule.is_match(&tag), "{tag:?}");
            }
        }
        for tag in ["café", "東京", "हिन्दी", "٣٤", "cafe\u{301}", "Ünïcode 2.0", "𝒳𝒴", "ﬁ"]
        {
            assert!(rule.is_match(tag) && declared.is_match(tag), "{tag:?}");
        }
        // Beyond ASCII the rest of the rule is the operation's: symbols and marks first.
        for tag in ["😀", "a😀", "\u{301}a", "a\u{200b}b"] {
            assert!(declared.is_match(tag) && !rule.is_match(tag), "{tag:?}");
        }
    }

    #[tokio::test]
    async fn custom_slugs_are_declared_as_the_operation_checks_them() {
        let doc = wrench_server::openapi::document(&crate::operations());
        let input = &doc["components"]["schemas"]["ShortUrlCreateInput"]["properties"]["customSlug"];
        let declared = input
            .get("anyOf")
            .and_then(|a| a.as_array())
            .and_then(|a| a.iter().find(|s| s["type"] == "string"))
            .unwrap_or(input);
        assert_eq!((declared["minLength"].as_u64(), declared["maxLength"].as_u64()), (Some(3), Some(64)), "{input}");
        let pattern = regex::Regex::new(declared["pattern"].as_str().unwrap()).unwrap();
        let cli = client();
        for (slug, ok) in [
            ("abc", true),
            (&*"a".repeat(64), true),
            ("A_b-9", true),
            ("ab", false),
            (&*"a".repeat(65), false),
            ("a b", false),
            ("é-slug", false),
        ] {
            let declared_ok = pattern.is_match(slug) && (3..=64).contains(&slug.chars().count());
            assert_eq!(declared_ok, ok, "the document on {slug:?}");
            let (status, v) = json_of(
                cli.post("/v1/short-url/create")
                    .body_json(&json!({"url": "https://example.com/", "customSlug": slug}))
                    .send()
                    .await,
            )
            .await;
            assert_eq!(status == 200, ok, "{slug:?}: {v}");
            if !ok {
                assert_eq!(v["error"]["code"], "INVALID_SLUG", "{slug:?}");
            }
        }
    }

    #[tokio::test]
    async fn a_short_base_of_their_own_gives_short_urls_and_redirects_them() {
        let cli = client_with(at_base("https://go.example.com"));
        let (status, v) = json_of(
            cli.post("/v1/short-url/create")
                .body_json(&json!({"url": "https://example.com/target", "customSlug": "launch", "forwardQuery": true}))
                .send()
                .await,
        )
        .await;
        assert_eq!(status, 200, "{v}");
        assert_eq!(v["data"]["shortUrl"], "https://go.example.com/launch");
        // The base's own path redirects as /v1/short-url/r/ does, and counts the same.
        assert_eq!(
            follow(&cli, "/launch?utm_source=mail").await,
            (302, "https://example.com/target?utm_source=mail".into())
        );
        let head = cli.head("/launch").send().await;
        assert_eq!(head.0.status().as_u16(), 302);
        assert_eq!(follow(&cli, "/v1/short-url/r/launch").await.0, 302);
        let (_, stats) = json_of(cli.get("/v1/short-url/launch/stats").send().await).await;
        assert_eq!(stats["data"]["shortUrl"], "https://go.example.com/launch");
        assert_eq!(stats["data"]["clicks"], 3, "{stats}");
        // Other paths at the root are left alone: the server's own, and deeper ones.
        assert_eq!(cli.get("/health").send().await.0.status().as_u16(), 200);
        assert_eq!(follow(&cli, "/launch/more").await.0, 404);
        assert_eq!(follow(&cli, "/nothing-here").await.0, 404);
        // A custom slug that would shadow one of the server's own paths is refused, saying so.
        // (`docs` and `health` are reserved words anyway.)
        for slug in ["metrics", "Metrics", "inbox-assets", "paste-assets", "ready", "inbox"] {
            let (status, v) = json_of(
                cli.post("/v1/short-url/create")
                    .body_json(&json!({"url": "https://example.com/", "customSlug": slug}))
                    .send()
                    .await,
            )
            .await;
            assert_eq!((status, v["error"]["code"].as_str()), (400, Some("INVALID_SLUG")), "{slug}: {v}");
            assert!(v["error"]["message"].as_str().unwrap().contains("shadow"), "{v}");
        }

        // Under a path of its own the base shadows nothing.
        let cli = client_with(at_base("https://example.com/s/"));
        let (status, v) = json_of(
            cli.post("/v1/short-url/create")
                .body_json(&json!({"url": "https://example.com/t", "customSlug": "metrics"}))
                .send()
                .await,
        )
        .await;
        assert_eq!((status, v["data"]["shortUrl"].as_str()), (200, Some("https://example.com/s/metrics")), "{v}");
        assert_eq!(follow(&cli, "/s/metrics").await, (302, "https://example.com/t".into()));
        assert_eq!(follow(&cli, "/metrics").await.0, 200, "the server's own page");
    }

    #[test]
    fn a_short_base_is_an_http_url_with_a_free_path_and_generated_slugs_never_shadow() {
        assert_eq!(at_base("https://go.example.com").short_url_base.as_deref(), Some("https://go.example.com/"));
        assert_eq!(at_base("https://go.example.com").short_url_path(), Some("/"));
        assert_eq!(at_base("http://example.com:8080/s").short_url_path(), Some("/s/"));
        for bad in [
            "go.example.com",
            "ftp://example.com/",
            "https://example.com/?q=1",
            "https://u:p@example.com/",
            "https://example.com/#f",
        ] {
            let vars = [("WRENCH_SHORT_URL_BASE".to_string(), bad.to_string())];
            assert!(Config::from_vars(&vars).is_err(), "{bad}");
        }
        // A base under the server's own paths would hide them: the server refuses to start.
        let registry = wrench_contract::op::Registry {
            operations: vec![__op_follow_short_url()],
            startup: vec![],
            tables: vec![],
            mounts: vec![MOUNT],
            pages: vec![],
        };
        let store = Arc::new(wrench_infra::store::embedded::EmbeddedStore::in_memory().unwrap());
        let refused =
            wrench_server::http::app_from_registry(Arc::new(at_base("https://example.com/v1/")), store, &registry);
        assert!(refused.err().is_some_and(|e| e.starts_with("WRENCH_SHORT_URL_BASE")));
        // Generated slugs are six characters of the alphabet: none can be a server path.
        assert!(
            !wrench_contract::op::SERVER_PATHS
                .iter()
                .any(|p| p.len() == AUTO_SLUG_LEN && p.bytes().all(|b| SLUG_ALPHABET.contains(&b)))
        );
    }

    async fn create(cli: &TestClient<wrench_server::http::App>, body: Value) -> (String, String) {
        let (status, v) = json_of(cli.post("/v1/short-url/create").body_json(&body).send().await).await;
        assert_eq!(status, 200, "{v}");
        (v["data"]["slug"].as_str().unwrap().to_string(), v["data"]["manageToken"].as_str().unwrap().to_string())
    }

    /// The status of a follow and its Location (or error code).
    async fn follow(cli: &TestClient<wrench_server::http::App>, path: &str) -> (u16, String) {
        let resp = cli.get(path).send().await;
        let status = resp.0.status().as_u16();
        if let Some(loc) = resp.0.headers().get("location") {
            return (status, loc.to_str().unwrap().to_string());
        }
        let (_, v) = json_of(resp).await;
        (
            status,
            format!("{} {}", v["error"]["code"].as_str().unwrap_or(""), v["error"]["message"].as_str().unwrap_or("")),
        )
    }

    #[tokio::test]
    async fn periods_and_visit_limits_close_a_link_with_410() {
        let cli = client();
        let (early, _) =
            create(&cli, json!({"url": "https://example.com/", "validSince": "2999-01-01T00:00:00Z"})).await;
        let (status, why) = follow(&cli, &format!("/v1/short-url/r/{early}")).await;
        assert_eq!(status, 410);
        assert!(why.starts_with("LINK_EXPIRED this link opens at 2999-01-01T00:00:00Z"), "{why}");
        let (late, _) =
            create(&cli, json!({"url": "https://example.com/", "validUntil": "2001-01-01T00:00:00+02:00"})).await;
        let (status, why) = follow(&cli, &format!("/v1/short-url/r/{late}")).await;
        assert_eq!((status, why.contains("expired at 2000-12-31T22:00:00Z")), (410, true), "{why}");
        let (open, _) = create(
            &cli,
            json!({"url": "https://example.com/", "validSince": "2001-01-01T00:00:00Z", "validUntil": "2999-01-01T00:00:00Z", "maxVisits": 3}),
        )
        .await;
        for _ in 0..3 {
            assert_eq!(follow(&cli, &format!("/v1/short-url/r/{open}")).await.0, 302);
        }
        let (status, why) = follow(&cli, &format!("/v1/short-url/r/{open}")).await;
        assert_eq!((status, why.as_str()), (410, "LINK_EXPIRED this link has had its 3 visits"));
        let (_, s) = json_of(cli.get(format!("/v1/short-url/{open}/stats")).send().await).await;
        assert_eq!((s["data"]["clicks"].as_i64(), s["data"]["visitsLeft"].as_u64()), (Some(3), Some(0)), "{s}");
    }

    #[tokio::test]
    async fn the_visit_that_reaches_max_visits_is_the_last_under_concurrency() {
        let cli = Arc::new(client());
        let (slug, _) = create(&cli, json!({"url": "https://example.com/", "maxVisits": 10})).await;
        let followers: Vec<_> = (0..100)
            .map(|_| {
                let (cli, slug) = (cli.clone(), slug.clone());
                tokio::spawn(async move { cli.get(format!("/v1/short-url/r/{slug}")).send().await.0.status().as_u16() })
            })
            .collect();
        let mut statuses = std::collections::BTreeMap::new();
        for f in followers {
            *statuses.entry(f.await.unwrap()).or_insert(0) += 1;
        }
        assert_eq!(statuses, [(302, 10), (410, 90)].into_iter().collect());
    }

    #[tokio::test]
    async fn forwarded_queries_and_chosen_statuses() {
        let cli = client();
        let (slug, _) =
            create(&cli, json!({"url": "https://example.com/p?a=1#top", "forwardQuery": true, "redirectStatus": 308}))
                .await;
        assert_eq!(
            follow(&cli, &format!("/v1/short-url/r/{slug}?utm_source=news&x=%20")).await,
            (308, "https://example.com/p?a=1&utm_source=news&x=%20#top".to_string())
        );
        assert_eq!(
            follow(&cli, &format!("/v1/short-url/r/{slug}")).await,
            (308, "https://example.com/p?a=1#top".into())
        );
        let (plain, _) = create(&cli, json!({"url": "https://example.com/q", "redirectStatus": 301})).await;
        assert_eq!(
            follow(&cli, &format!("/v1/short-url/r/{plain}?utm_source=x")).await,
            (301, "https://example.com/q".into())
        );
        for bad in [json!(303), json!(200), json!("302")] {
            let (status, v) = json_of(
                cli.post("/v1/short-url/create")
                    .body_json(&json!({"url": "https://e.com", "redirectStatus": bad}))
                    .send()
                    .await,
            )
            .await;
            assert_eq!(status, 400, "{bad}: {v}");
        }
    }

    #[tokio::test]
    async fn a_batch_answers_each_link_in_order() {
        let cli = client();
        create(&cli, json!({"url": "https://example.com/", "customSlug": "taken-one"})).await;
        let links = json!({"links": [
            {"url": "https://example.com/a", "tags": ["x"]},
            {"url": "https://user:pw@example.com/"},
            {"url": "https://example.com/b", "customSlug": "taken-one"},
            {"url": "https://example.com/c", "customSlug": "fresh-one"},
        ]});
        let (status, v) = json_of(cli.post("/v1/short-url/batch").body_json(&links).send().await).await;
        assert_eq!(status, 200, "{v}");
        let r = &v["data"]["results"];
        assert_eq!((v["data"]["createdCount"].as_u64(), v["data"]["failedCount"].as_u64()), (Some(2), Some(2)));
        assert_eq!(r[0]["created"]["tags"], json!(["x"]));
        assert_eq!(
            (r[1]["error"]["code"].as_str(), r[1]["error"]["field"].as_str()),
            (Some("VALIDATION_ERROR"), Some("url"))
        );
        assert_eq!(r[2]["error"]["code"], "SLUG_TAKEN");
        assert_eq!(r[3]["created"]["slug"], "fresh-one");
        assert_eq!((0..4).map(|i| r[i]["index"].as_u64().unwrap()).collect::<Vec<_>>(), [0, 1, 2, 3]);
        let too_many = json!({"links": vec![json!({"url": "https://example.com/"}); 101]});
        let (status, _) = json_of(cli.post("/v1/short-url/batch").body_json(&too_many).send().await).await;
        assert_eq!(status, 400);
    }

    #[tokio::test]
    async fn the_manage_token_changes_and_deletes_a_link() {
        let cli = client();
        let (slug, token) = create(&cli, json!({"url": "https://example.com/old", "maxVisits": 2})).await;
        assert_eq!(follow(&cli, &format!("/v1/short-url/r/{slug}")).await.0, 302);
        for wrong in [None, Some("nope")] {
            let mut req =
                cli.patch(format!("/v1/short-url/{slug}")).body_json(&json!({"url": "https://evil.example/"}));
            if let Some(t) = wrong {
                req = req.header("X-Manage-Token", t);
            }
            let (status, v) = json_of(req.send().await).await;
            assert_eq!((status, v["error"]["code"].as_str()), (403, Some("TOKEN_REJECTED")));
        }
        let change =
            json!({"url": "https://example.com/new", "maxVisits": 3, "tags": ["moved"], "redirectStatus": 307});
        let (status, v) = json_of(
            cli.patch(format!("/v1/short-url/{slug}")).header("X-Manage-Token", &token).body_json(&change).send().await,
        )
        .await;
        assert_eq!(status, 200, "{v}");
        assert!(v["data"].get("manageToken").is_none(), "the token is shown only at creation");
        // One visit so far, a limit of three: two more.
        assert_eq!(follow(&cli, &format!("/v1/short-url/r/{slug}")).await, (307, "https://example.com/new".into()));
        assert_eq!(follow(&cli, &format!("/v1/short-url/r/{slug}")).await.0, 307);
        assert_eq!(follow(&cli, &format!("/v1/short-url/r/{slug}")).await.0, 410);
        let (status, _) = json_of(
            cli.patch(format!("/v1/short-url/{slug}"))
                .header("X-Manage-Token", &token)
                .body_json(&json!({"maxVisits": null}))
                .send()
                .await,
        )
        .await;
        assert_eq!(status, 200);
        assert_eq!(follow(&cli, &format!("/v1/short-url/r/{slug}")).await.0, 307, "no limit any more");
        let (status, v) =
            json_of(cli.delete(format!("/v1/short-url/{slug}")).header("X-Manage-Token", &token).send().await).await;
        assert_eq!((status, v["data"]["deleted"].as_bool()), (200, Some(true)));
        assert_eq!(follow(&cli, &format!("/v1/short-url/r/{slug}")).await.0, 404);
        create(&cli, json!({"url": "https://example.com/", "customSlug": slug})).await;
    }

    #[tokio::test]
    async fn the_qr_code_decodes_to_the_short_url_and_is_no_visit() {
        let cli = client();
        let (slug, _) = create(&cli, json!({"url": "https://example.com/"})).await;
        let resp = cli.get(format!("/v1/short-url/{slug}/qr?format=png&size=240&errorCorrectionLevel=H")).send().await;
        resp.assert_status_is_ok();
        resp.assert_header("content-type", "image/png");
        let png = resp.0.into_body().into_vec().await.unwrap();
        let (w, h, px) = wrench_kit::render::decode_png(&png);
        let mut img =
            rqrr::PreparedImage::prepare_from_greyscale(w as usize, h as usize, |x, y| px[(y * w as usize + x) * 4]);
        let grids = img.detect_grids();
        assert_eq!(grids.len(), 1);
        assert_eq!(grids[0].decode().unwrap().1, format!("http://127.0.0.1:8080/v1/short-url/r/{slug}"));
        let svg = cli.get(format!("/v1/short-url/{slug}/qr")).send().await;
        svg.assert_header("content-type", "image/svg+xml");
        let (_, s) = json_of(cli.get(format!("/v1/short-url/{slug}/stats")).send().await).await;
        assert_eq!(s["data"]["clicks"], 0);
        assert_eq!(cli.get("/v1/short-url/nothing-here/qr").send().await.0.status(), 404);
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
        for (slug, why) in [
            ("ab", "3 to 64"),
            ("has space", "only letters"),
            ("Stats", "reserved"),
            ("r", "3 to 64"),
            ("batch", "reserved"),
        ] {
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
