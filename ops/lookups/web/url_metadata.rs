//! The metadata of a web page (`url-metadata`) and the share card it makes (`social-preview/extract`), both read by one parser (`page.rs`) from a page fetched
//! through the outbound layer. Nothing the page names (images, icons, manifest) is fetched.

use wrench_contract::prelude::*;
use wrench_infra::time::now_rfc3339;
use wrench_kit::web::page::{HeadMeta, IconLink, MetaTag, Page, absolute_values, fetch_page, read_page};

#[derive(Debug, Deserialize, JsonSchema, Validate)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct PageInput {
    /// An http or https URL of an HTML page. Redirects are followed.
    #[schemars(length(min = 1, max = 2048), pattern("^[\\x00-\\x20]*[Hh][Tt][Tt][Pp][Ss]?:"))]
    url: String,
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct Fetched {
    /// The URL asked for, normalised.
    url: String,
    /// The page's URL after redirects, which relative URLs are resolved against (with the
    /// page's `<base href>`, when it has one).
    final_url: String,
    status: u16,
    content_type: Option<String>,
    /// The character encoding the page was decoded with.
    charset: &'static str,
    /// Where it came from: `bom`, `header`, `meta`, or `default` (UTF-8, or windows-1252 for
    /// bytes that are not UTF-8).
    charset_source: &'static str,
    /// Body bytes read.
    bytes: usize,
}

impl Fetched {
    fn of(page: &Page) -> Fetched {
        Fetched {
            url: page.url.to_string(),
            final_url: page.final_url.to_string(),
            status: page.status,
            content_type: page.content_type.clone(),
            charset: page.charset,
            charset_source: page.charset_source,
            bytes: page.bytes,
        }
    }
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct OembedLink {
    href: String,
    /// `application/json+oembed` or `text/xml+oembed`.
    #[serde(rename = "type")]
    media_type: String,
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct MetadataOutput {
    #[serde(flatten)]
    fetched: Fetched,
    /// The `<title>`, whitespace collapsed.
    title: Option<String>,
    /// `<meta name="description">`.
    description: Option<String>,
    /// The `lang` of `<html>`.
    language: Option<String>,
    /// `<link rel="canonical">`, absolute.
    canonical_url: Option<String>,
    /// `<meta name="theme-color">` (the first).
    theme_color: Option<String>,
    /// The first icon the page declares (`rel="icon"` before Apple touch icons), absolute; not
    /// fetched. Absent when the page declares none (browsers then try `/favicon.ico`).
    favicon: Option<String>,
    /// Every icon the page declares, in page order.
    icons: Vec<IconLink>,
    /// `<link rel="manifest">`, absolute.
    manifest: Option<String>,
    /// The oEmbed discovery link.
    oembed: Option<OembedLink>,
    /// Every Open Graph property of the page: `og:` and the object types' `article:`, `book:`,
    /// `profile:`, `music:` and `video:`, in page order, a property given several times listed
    /// each time (`article:tag`, `og:image` with its `og:image:width`...), at most 200. Values
    /// that are URLs (`og:url`, `og:image`, `og:video`, `og:audio`, `music:song`...) are made
    /// absolute like every other URL of the answer.
    open_graph: Vec<MetaTag>,
    /// Every `twitter:` meta tag, in page order (at most 200).
    twitter_card: Vec<MetaTag>,
    /// The images of `og:image`, `og:image:url`, `og:image:secure_url`, `twitter:image` and
    /// `twitter:image:src`, absolute and without repeats.
    images: Vec<String>,
    /// Tags and icons beyond the 200 listed of a kind.
    omitted_tags: usize,
    checked_at: String,
}

const IMAGE_PROPERTIES: [&str; 5] =
    ["og:image", "og:image:url", "og:image:secure_url", "twitter:image", "twitter:image:src"];

/// Fetches and reads a page's head.
async fn read(ctx: &Ctx, url: &str) -> Result<(Page, HeadMeta), ApiError> {
    let (page, meta, _) = read_page(fetch_page(ctx, url).await?, false).await?;
    Ok((page, meta))
}

/// Read a web page's metadata.
///
/// Fetches `url` (redirects followed) and reads its head: title, description, language,
/// canonical URL, theme colour, declared icons and the first of them as the favicon, web
/// manifest, oEmbed link, every Open Graph and Twitter Card tag, and the images they name.
/// Relative URLs are made absolute against the final URL (or `<base href>`); character sets
/// other than UTF-8 are decoded from the header, a byte order mark or `<meta charset>`. Only
/// the head is read (tags after `<body>` are not), and nothing the page names is fetched. A
/// head nested deeper than 128 elements is not read (502). An answer that is not a successful HTML page is 502; targets in
/// private, loopback and other special-purpose ranges are refused with 403; a slow site is 504.
#[op(post "/v1/url-metadata" as urlMetadata, tag = Lookups,
     rejects = "a URL whose host is not a valid host name or address",
     uses(network),
     redact(".data.checkedAt"),
     example(every_tag, {"url": "http://www.site.example:8080/meta"}),
     example(latin1_page, {"url": "http://www.site.example:8080/latin1"}),
     example(not_html, {"url": "http://www.site.example:8080/big?bytes=10"}, status = 502),
     example(metadata_refused, {"url": "http://169.254.169.254/latest/meta-data/"}, status = 403))]
async fn url_metadata(input: PageInput, ctx: &Ctx) -> Result<MetadataOutput, ApiError> {
    let (page, meta) = read(ctx, &input.url).await?;
    let favicon = meta.favicon();
    Ok(MetadataOutput {
        fetched: Fetched::of(&page),
        images: absolute_values(&meta, &IMAGE_PROPERTIES),
        favicon,
        title: meta.title,
        description: meta.description,
        language: meta.language,
        canonical_url: meta.canonical,
        theme_color: meta.theme_color,
        icons: meta.icons,
        manifest: meta.manifest,
        oembed: meta.oembed.map(|(href, media_type)| OembedLink { href, media_type }),
        open_graph: meta.open_graph,
        twitter_card: meta.twitter,
        omitted_tags: meta.omitted,
        checked_at: now_rfc3339(),
    })
}

/// One field of a share card and the tag it was taken from.
#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct CardField {
    value: String,
    /// `og:title`, `twitter:title`, `title` (the `<title>`), `description` (the meta tag) or
    /// `canonical` (the canonical link) or `url` (the page's final URL).
    source: String,
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct Preview {
    title: Option<CardField>,
    description: Option<CardField>,
    /// Absolute URL of the card's image.
    image: Option<CardField>,
    image_alt: Option<CardField>,
    /// The URL the card links to.
    url: Option<CardField>,
    site_name: Option<CardField>,
    /// `og:type` (`website`, `article`...).
    #[serde(rename = "type")]
    kind: Option<CardField>,
    /// The Twitter Card type (`summary`, `summary_large_image`, `player`, `app`).
    card: Option<CardField>,
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct SocialOutput {
    #[serde(flatten)]
    fetched: Fetched,
    /// What a share card shows, each field with the tag it came from: Open Graph first, then
    /// Twitter Card, then the page's own title, description and canonical link.
    preview: Preview,
    /// The Open Graph and Twitter Card properties the page lacks for a complete card.
    missing: Vec<&'static str>,
    /// Every Open Graph property of the page: `og:` and the object types' `article:`, `book:`,
    /// `profile:`, `music:` and `video:`, in page order, a property given several times listed
    /// each time (`article:tag`, `og:image` with its `og:image:width`...), at most 200. Values
    /// that are URLs (`og:url`, `og:image`, `og:video`, `og:audio`, `music:song`...) are made
    /// absolute like every other URL of the answer.
    open_graph: Vec<MetaTag>,
    /// Every `twitter:` meta tag, in page order (at most 200).
    twitter_card: Vec<MetaTag>,
    /// The images of the Open Graph and Twitter tags, absolute and without repeats.
    images: Vec<String>,
    checked_at: String,
}

/// The first of `candidates` that the page has: `(property, fallback text)`.
fn pick(meta: &HeadMeta, candidates: &[&str], fallbacks: &[(&str, Option<&String>)]) -> Option<CardField> {
    candidates
        .iter()
        .find_map(|p| {
            meta.first(p).filter(|v| !v.is_empty()).map(|v| CardField { value: v.to_string(), source: p.to_string() })
        })
        .or_else(|| {
            fallbacks.iter().find_map(|(s, v)| v.map(|v| CardField { value: v.clone(), source: s.to_string() }))
        })
}

/// Extract a page's social preview (Open Graph and Twitter Card).
///
/// Fetches `url` (redirects followed) and builds the share card social networks would show:
/// title, description, image (absolute), image description, link, site name, type and Twitter
/// card type, each with the tag it came from (Open Graph first, then Twitter Card, then the
/// page's own title, description and canonical link), the Open Graph and Twitter properties a
/// complete card lacks, and every tag as found. The image is not fetched. Errors as for
/// `url-metadata`.
#[op(post "/v1/social-preview/extract" as socialPreviewExtract, tag = Lookups,
     rejects = "a URL whose host is not a valid host name or address",
     uses(network),
     redact(".data.checkedAt"),
     example(complete_card, {"url": "http://www.site.example:8080/meta"}),
     example(fallbacks_only, {"url": "http://www.site.example:8080/bare"}),
     example(loopback_refused, {"url": "http://127.0.0.1/"}, status = 403))]
async fn social_preview(input: PageInput, ctx: &Ctx) -> Result<SocialOutput, ApiError> {
    let (page, meta) = read(ctx, &input.url).await?;
    let images = absolute_values(&meta, &IMAGE_PROPERTIES);
    let first_image = IMAGE_PROPERTIES.iter().find(|p| meta.first(p).is_some_and(|v| !v.is_empty())).and_then(|p| {
        absolute_values(&meta, &[p]).into_iter().next().map(|v| CardField { value: v, source: p.to_string() })
    });
    let final_url = page.final_url.to_string();
    let og_url = meta.first("og:url").and_then(|u| meta.base.as_ref()?.join(u).ok()).map(|u| u.to_string());
    let preview = Preview {
        title: pick(&meta, &["og:title", "twitter:title"], &[("title", meta.title.as_ref())]),
        description: pick(
            &meta,
            &["og:description", "twitter:description"],
            &[("description", meta.description.as_ref())],
        ),
        image: first_image,
        image_alt: pick(&meta, &["og:image:alt", "twitter:image:alt"], &[]),
        url: og_url
            .map(|v| CardField { value: v, source: "og:url".into() })
            .or_else(|| pick(&meta, &[], &[("canonical", meta.canonical.as_ref()), ("url", Some(&final_url))])),
        site_name: pick(&meta, &["og:site_name"], &[]),
        kind: pick(&meta, &["og:type"], &[]),
        card: pick(&meta, &["twitter:card"], &[]),
    };
    let missing = ["og:title", "og:description", "og:image", "og:url", "og:type", "twitter:card"]
        .into_iter()
        .filter(|p| meta.first(p).is_none_or(str::is_empty))
        .collect();
    Ok(SocialOutput {
        fetched: Fetched::of(&page),
        preview,
        missing,
        open_graph: meta.open_graph,
        twitter_card: meta.twitter,
        images,
        checked_at: now_rfc3339(),
    })
}
