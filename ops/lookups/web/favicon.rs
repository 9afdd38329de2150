//! Every icon a browser would consider for a page (`favicon`), each fetched
//! through the outbound layer and checked: does it exist, what is it really (the bytes'
//! format, not the declared type), and how large is it. Then the best one is named.
//!
//! Candidates, in this order: the page's `<link rel="icon">` and Apple touch icons, the icons
//! of its web app manifest (fetched), and `/favicon.ico` at the page's origin. At most
//! [`MAX_CANDIDATES`] are checked, [`CONCURRENCY`] at a time.

use futures_util::{StreamExt, stream};
use serde_json::Value;

use wrench_contract::prelude::*;
use wrench_infra::outbound::FetchOptions;
use wrench_infra::time::now_rfc3339;
use wrench_kit::web::page::{Page, fetch_page_of, read_page};
use wrench_kit::web::site_home::{home_page, host_and_port};

/// Icons checked per page at most.
const MAX_CANDIDATES: usize = 12;
/// Icons fetched at the same time.
const CONCURRENCY: usize = 4;

#[derive(Debug, Deserialize, JsonSchema, Validate)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
#[schemars(transform = wrench_contract::validate::declare_aliases::<Self>)]
struct FaviconInput {
    /// The site: a host name, optionally with a port (`example.com`, `example.com:8443`), whose
    /// home page is read over HTTPS first and over plain HTTP when HTTPS cannot be reached; or
    /// an http or https URL, whose page is read.
    #[serde(rename = "domain", alias = "url")]
    #[schemars(length(min = 1, max = 2048))]
    domain: String,
}

/// The page a `domain` names: its home page, or the page of a URL.
async fn site_page(ctx: &Ctx, domain: &str) -> Result<Page, ApiError> {
    if domain.contains("://") {
        return fetch_page_of(ctx, "domain", domain.trim()).await;
    }
    let (host, port) = host_and_port(domain)?;
    home_page(ctx, &host, port).await
}

#[derive(Debug, Clone, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct Icon {
    /// Absolute URL, as declared.
    url: String,
    /// `link` (a `<link>` in the page), `manifest` or `default` (`/favicon.ico`).
    source: &'static str,
    /// The link's `rel` or the manifest entry's `purpose`.
    rel: Option<String>,
    /// Sizes as declared (`32x32`, `any`).
    declared_sizes: Option<String>,
    declared_type: Option<String>,
    /// Whether the icon was fetched and is an image.
    ok: bool,
    /// HTTP status of the icon's URL (after redirects).
    status: Option<u16>,
    /// The format the bytes are in: `png`, `ico`, `jpeg`, `gif`, `webp`, `bmp` or `svg`.
    format: Option<&'static str>,
    /// Pixel size read from the bytes (for ICO, its largest image); absent for SVG.
    width: Option<u32>,
    height: Option<u32>,
    bytes: Option<usize>,
    /// Why the icon is not usable.
    #[serde(skip_serializing_if = "Option::is_none")]
    error: Option<String>,
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct FaviconOutput {
    url: String,
    final_url: String,
    /// The best usable icon: an SVG first (it scales), then the raster icon with the most
    /// pixels, earlier candidates winning ties. Absent when none is usable.
    best: Option<Icon>,
    /// Every candidate checked, in the order above.
    icons: Vec<Icon>,
    /// Candidates beyond the 12 checked.
    unchecked: usize,
    /// The manifest, when the page links one, and why it could not be read.
    manifest: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    manifest_error: Option<String>,
    checked_at: String,
}

/// The format and pixel size of an image's bytes.
fn sniff(body: &[u8]) -> Option<(&'static str, Option<(u32, u32)>)> {
    let head = String::from_utf8_lossy(&body[..body.len().min(1024)]).to_ascii_lowercase();
    let text = head.trim_start_matches('\u{feff}').trim_start();
    if text.starts_with("<svg")
        || (text.starts_with("<?xml") || text.starts_with("<!doctype svg")) && head.contains("<svg")
    {
        return Some(("svg", None));
    }
    let format = match imagesize::image_type(body).ok()? {
        imagesize::ImageType::Png => "png",
        imagesize::ImageType::Ico => "ico",
        imagesize::ImageType::Jpeg => "jpeg",
        imagesize::ImageType::Gif => "gif",
        imagesize::ImageType::Webp => "webp",
        imagesize::ImageType::Bmp => "bmp",
        _ => return None,
    };
    let size = imagesize::blob_size(body).ok().map(|s| (s.width as u32, s.height as u32));
    Some((format, size))
}

fn candidate(
    url: String,
    source: &'static str,
    rel: Option<String>,
    sizes: Option<String>,
    kind: Option<String>,
) -> Icon {
    Icon {
        url,
        source,
        rel,
        declared_sizes: sizes,
        declared_type: kind,
        ok: false,
        status: None,
        format: None,
        width: None,
        height: None,
        bytes: None,
        error: None,
    }
}

/// Fetches one icon and fills in what its bytes say.
async fn check(ctx: &Ctx, mut icon: Icon) -> Icon {
    let Ok(url) = url::Url::parse(&icon.url) else {
        icon.error = Some("not a URL".into());
        return icon;
    };
    let chain = ctx.net.fetch(url, FetchOptions { follow: true, read_body: true }).await;
    icon.status = chain.last().map(|h| h.status);
    let chain = match chain.into_result(ctx.net.config.redirects) {
        Ok(c) => c,
        Err(e) => {
            icon.error = Some(e.to_string());
            return icon;
        }
    };
    let body = chain.body.unwrap_or_default();
    if !icon.status.is_some_and(|s| (200..300).contains(&s)) {
        icon.error = Some(format!("answered {}", icon.status.unwrap_or(0)));
        return icon;
    }
    icon.bytes = Some(body.len());
    match sniff(&body) {
        // A raster image whose header gives no pixel size (PNG forbids 0) is not drawable.
        Some((format, size)) if format != "svg" && !size.is_some_and(|(w, h)| w > 0 && h > 0) => {
            icon.format = Some(format);
            icon.error = Some("the image's header gives no pixel size".into());
        }
        Some((format, size)) => {
            icon.ok = true;
            icon.format = Some(format);
            icon.width = size.map(|s| s.0);
            icon.height = size.map(|s| s.1);
        }
        None => icon.error = Some("the bytes are not an image format browsers show as an icon".into()),
    }
    icon
}

/// The icons of a web app manifest, resolved against its URL.
async fn manifest_icons(ctx: &Ctx, manifest: &url::Url) -> Result<Vec<Icon>, String> {
    let chain = ctx.net.get(manifest.clone()).await.map_err(|e| e.to_string())?;
    let status = chain.last().map(|h| h.status).unwrap_or(0);
    if !(200..300).contains(&status) {
        return Err(format!("the manifest answered {status}"));
    }
    let v: Value = serde_json::from_slice(chain.body.as_deref().unwrap_or_default())
        .map_err(|e| format!("the manifest is not JSON: {e}"))?;
    let base = chain.last().map(|h| h.url.clone()).unwrap_or_else(|| manifest.clone());
    let text = |i: &Value, k: &str| i.get(k).and_then(Value::as_str).map(str::to_string);
    Ok(v.get("icons")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|i| {
            let url = base.join(i.get("src")?.as_str()?.trim()).ok()?;
            Some(candidate(url.to_string(), "manifest", text(i, "purpose"), text(i, "sizes"), text(i, "type")))
        })
        .collect())
}

/// Find and check a page's icons.
///
/// Reads the home page of `domain` (HTTPS first, plain HTTP when HTTPS cannot be reached), or
/// the page of a URL given instead (`url` is another spelling of the field), redirects
/// followed, and checks every icon a browser would consider:
/// `<link rel="icon">` and Apple touch icons, the icons of the web app manifest (fetched), and
/// `/favicon.ico`. Each is fetched through the service's guarded client and reported with its
/// status, the format its bytes are really in (PNG, ICO, JPEG, GIF, WebP, BMP or SVG), its pixel
/// size and byte size; the best one is named (SVG first, then the most pixels). At most 12
/// icons are checked, 4 at a time; each is subject to the service's byte limit. Icons that
/// point at refused addresses are reported as refused, never fetched.
#[op(post "/v1/favicon" as faviconFind, tag = Lookups,
     rejects = "text that is neither a host name (with an optional port) nor an absolute http or https URL",
     uses(network),
     redact(".data.checkedAt"),
     example(every_kind, {"domain": "http://www.site.example:8080/meta"}),
     example(default_only, {"url": "http://www.site.example:8080/bare"}),
     example(private_refused, {"domain": "192.168.1.1"}, status = 403))]
async fn favicon(input: FaviconInput, ctx: &Ctx) -> Result<FaviconOutput, ApiError> {
    let (page, meta, _) = read_page(site_page(ctx, &input.domain).await?, false).await?;
    let mut candidates: Vec<Icon> = meta
        .icons
        .iter()
        .map(|i| candidate(i.href.clone(), "link", Some(i.rel.clone()), i.sizes.clone(), i.media_type.clone()))
        .collect();
    let mut manifest_error = None;
    if let Some(m) = meta.manifest.as_deref().and_then(|m| url::Url::parse(m).ok()) {
        match manifest_icons(ctx, &m).await {
            Ok(icons) => candidates.extend(icons),
            Err(e) => manifest_error = Some(e),
        }
    }
    if let Ok(default) = page.final_url.join("/favicon.ico") {
        candidates.push(candidate(default.to_string(), "default", None, None, None));
    }
    let mut seen = std::collections::HashSet::new();
    candidates.retain(|c| seen.insert(c.url.clone()));
    let unchecked = candidates.len().saturating_sub(MAX_CANDIDATES);
    candidates.truncate(MAX_CANDIDATES);
    let icons: Vec<Icon> = stream::iter(candidates).map(|c| check(ctx, c)).buffered(CONCURRENCY).collect().await;
    let pixels = |i: &Icon| u64::from(i.width.unwrap_or(0)) * u64::from(i.height.unwrap_or(0));
    let best = icons
        .iter()
        .filter(|i| i.ok)
        .find(|i| i.format == Some("svg"))
        .or_else(|| icons.iter().filter(|i| i.ok).rev().max_by_key(|i| pixels(i)))
        .cloned();
    Ok(FaviconOutput {
        url: page.url.to_string(),
        final_url: page.final_url.to_string(),
        best,
        icons,
        unchecked,
        manifest: meta.manifest,
        manifest_error,
        checked_at: now_rfc3339(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_come_from_the_bytes() {
        let png = wrench_fakes::http::png(48, 24);
        assert_eq!(sniff(&png), Some(("png", Some((48, 24)))));
        assert_eq!(sniff(&wrench_fakes::http::ico(16)), Some(("ico", Some((16, 16)))));
        assert_eq!(sniff(b"<?xml version=\"1.0\"?>\n<svg xmlns=\"http://www.w3.org/2000/svg\"/>"), Some(("svg", None)));
        assert_eq!(sniff(b"<!doctype html><html>not an icon"), None);
        assert_eq!(sniff(b""), None);
        // Only a signature and zeros: a PNG by its first bytes, with no size to draw.
        let mut empty = b"\x89PNG\r\n\x1a\n".to_vec();
        empty.resize(64, 0);
        assert_eq!(sniff(&empty), Some(("png", Some((0, 0)))));
    }
}
