//! Managing a short link with its manage token (shown once, at creation; only its digest is
//! stored): changing it (`PATCH`) and deleting it (`DELETE`), and its QR code, which anyone
//! with the slug may ask for and which is not a visit.

use crate::storage::{
    shared::fields::present,
    short_url::links::{ShortUrlCreated, Tag, check_period, check_url, instant},
    short_url::model::{LinkRecord, RedirectStatus, SlugInput, clicks_key, find, key, last_click_key},
};
use wrench_kit::qr::{self, Ecc, QrFormat, QrSpec};

use crate::storage::short_url::visit_queue::VisitQueue;
use wrench_contract::{op::Image, prelude::*};

/// The link, when `X-Manage-Token` is its token.
async fn managed(ctx: &Ctx, slug: &str) -> Result<LinkRecord, ApiError> {
    let (record, _) = find(ctx, slug).await?;
    wrench_kit::tokens::require(ctx, "X-Manage-Token", record.manage_token_sha256.as_deref(), "link")?;
    Ok(record)
}

#[derive(Debug, Deserialize, JsonSchema, Validate)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct ShortUrlUpdateInput {
    /// The link's slug.
    #[schemars(length(min = 1, max = 256))]
    slug: String,
    /// A new target (absolute http or https, at most 2,048 characters). Absent: unchanged.
    #[serde(default)]
    #[schemars(length(min = 1, max = 2048), pattern("^[\\x00-\\x20]*[Hh][Tt][Tt][Pp][Ss]?:"))]
    url: Option<String>,
    /// A new start (RFC 3339); null removes it. Absent: unchanged.
    #[serde(default, deserialize_with = "present")]
    #[schemars(length(min = 1, max = 64))]
    valid_since: Option<Option<String>>,
    /// A new end (RFC 3339); null removes it. Absent: unchanged.
    #[serde(default, deserialize_with = "present")]
    #[schemars(length(min = 1, max = 64))]
    valid_until: Option<Option<String>>,
    /// A new visit limit, counted from the link's creation (a link that has had more visits is
    /// closed); null removes it. Absent: unchanged.
    #[serde(default, deserialize_with = "present")]
    #[schemars(range(min = 1, max = 1_000_000_000))]
    max_visits: Option<Option<u64>>,
    /// Whether to append the visitor's query to the target. Absent: unchanged.
    #[serde(default)]
    forward_query: Option<bool>,
    /// The redirect's status: 301, 302, 307 or 308. Absent: unchanged.
    #[serde(default)]
    redirect_status: Option<RedirectStatus>,
    /// New tags, up to 10, replacing the old ones. Absent: unchanged.
    #[serde(default)]
    #[schemars(length(max = 10))]
    tags: Option<Vec<Tag>>,
}

/// Change a short link.
///
/// Replaces the fields given (the target, the period, the visit limit, query forwarding, the
/// redirect status, the tags; null removes a period end or the limit) and keeps the rest, the
/// slug, the clicks counted and the manage token. Needs `X-Manage-Token` set to the token the
/// creation answered: without it, or with another, 403 `TOKEN_REJECTED`. A visit limit counts
/// the visits the link has had: a limit of 10 on a link followed 4 times lets 6 more through.
/// Unknown slugs are 404 `NOT_FOUND`.
#[op(patch "/v1/short-url/{slug}" as updateShortUrl, tag = Storage,
     uses(store), errors(NOT_FOUND, TOKEN_REJECTED),
     rejects = "a URL, instant or tag the creation would refuse, or a period that ends before it starts",
     example(unknown, {"slug": "nothing-here", "maxVisits": 5}, status = 404),
     example(other_shape, {"slug": "bad slug!", "tags": []}, status = 404))]
async fn update_short_url(input: ShortUrlUpdateInput, ctx: &Ctx) -> Result<ShortUrlCreated, ApiError> {
    let mut record = managed(ctx, &input.slug).await?;
    if let Some(url) = &input.url {
        record.url = check_url(url)?;
    }
    if let Some(since) = input.valid_since {
        record.valid_since = instant("validSince", since.as_deref())?;
    }
    if let Some(until) = input.valid_until {
        record.valid_until = instant("validUntil", until.as_deref())?;
    }
    check_period(&record.valid_since, &record.valid_until)?;
    if let Some(max) = input.max_visits {
        record.max_visits = max;
    }
    if let Some(forward) = input.forward_query {
        record.forward_query = forward;
    }
    if let Some(status) = input.redirect_status {
        record.redirect_status = status.0;
    }
    if let Some(tags) = input.tags {
        record.tags = tags.into_iter().map(Tag::normalized).collect();
    }
    // The uses left follow from the clicks counted: each open is counted in the step that
    // spends its use, so limit minus clicks is what is left (less any visit in flight now).
    let clicks = ctx.store.count(&clicks_key(&input.slug)).await?.max(0) as u64;
    ctx.store.put(&key(&input.slug), &record.stored(clicks)?, None).await?;
    Ok(ShortUrlCreated::of(ctx, input.slug, record))
}

#[derive(Debug, Serialize, JsonSchema)]
struct ShortUrlDeleted {
    /// The deleted link's slug.
    slug: String,
    /// Always true.
    deleted: bool,
}

/// Delete a short link.
///
/// Removes the link, its click count, last-click time and every visit recorded (tallies and
/// recent visits), with `X-Manage-Token` set to the token the creation answered (403
/// `TOKEN_REJECTED` otherwise); the slug is free again afterwards. Unknown slugs are 404
/// `NOT_FOUND`.
#[op(delete "/v1/short-url/{slug}" as deleteShortUrl, tag = Storage,
     uses(store), errors(NOT_FOUND, TOKEN_REJECTED),
     example(unknown, {"slug": "nothing-here"}, status = 404),
     example(other_shape, {"slug": "bad slug!"}, status = 404))]
async fn delete_short_url(input: SlugInput, ctx: &Ctx) -> Result<ShortUrlDeleted, ApiError> {
    managed(ctx, &input.slug).await?;
    let slug = &input.slug;
    // The visits this instance has queued land first, so that none waits to land on a link
    // made later under the same slug.
    ctx.service::<VisitQueue>().flush().await;
    // The link first: from then on no visit is recorded, so the keys listed next are all there
    // will be.
    ctx.store.delete(&[&key(slug)]).await?;
    let mut rest = crate::storage::short_url::visits::keys_of(ctx, slug).await?;
    rest.extend([clicks_key(slug), last_click_key(slug)]);
    ctx.store.delete(&rest.iter().map(String::as_str).collect::<Vec<_>>()).await?;
    Ok(ShortUrlDeleted { slug: input.slug, deleted: true })
}

#[derive(Debug, Deserialize, JsonSchema, Validate)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct ShortUrlQrInput {
    /// The link's slug.
    #[schemars(length(min = 1, max = 256))]
    slug: String,
    /// Width and height of the image in pixels.
    #[serde(default = "qr::default_size")]
    #[schemars(range(min = 50, max = 2000))]
    size: u32,
    /// svg, png, or base64 (a PNG data URI as text).
    #[serde(default)]
    format: QrFormat,
    /// Colour of the dark modules, `#rrggbb` or `#rgb`.
    #[serde(default = "qr::default_dark")]
    #[schemars(length(max = 7), pattern("^#?(?:[0-9a-fA-F]{3}|[0-9a-fA-F]{6})$"))]
    dark_color: String,
    /// Colour of the light modules and the quiet zone.
    #[serde(default = "qr::default_light")]
    #[schemars(length(max = 7), pattern("^#?(?:[0-9a-fA-F]{3}|[0-9a-fA-F]{6})$"))]
    light_color: String,
    /// Error correction: L, M, Q or H.
    #[serde(default)]
    error_correction_level: Ecc,
    /// Quiet zone around the code, in modules (the standard asks for 4).
    #[serde(default = "qr::default_margin")]
    #[schemars(range(min = 0, max = 20))]
    margin: u32,
}

/// A short link's QR code.
///
/// The short URL as a QR code, with the options of `qr/generate` (size, format svg, png or
/// base64, colours, error correction, margin), in the query string: usable as an image source.
/// Asking for it is not a visit. Unknown slugs are 404 `NOT_FOUND`.
#[op(get "/v1/short-url/{slug}/qr" as getShortUrlQr, tag = Storage, output = image,
     uses(store), errors(NOT_FOUND),
     rejects = "a size too small for the code",
     example(unknown, {"slug": "nothing-here"}, status = 404),
     example(other_shape, {"slug": "bad slug!", "format": "png"}, status = 404))]
async fn get_short_url_qr(input: ShortUrlQrInput, ctx: &Ctx) -> Result<Image, ApiError> {
    find(ctx, &input.slug).await?;
    let text = crate::storage::short_url::model::short_url(&ctx.config, &input.slug);
    wrench_infra::cpu::run(move || {
        qr::draw(&QrSpec {
            text: &text,
            size: input.size,
            format: input.format,
            dark_color: &input.dark_color,
            light_color: &input.light_color,
            error_correction_level: input.error_correction_level,
            margin: input.margin,
        })
    })
    .await
}
