//! What the operations that read web pages share: fetching a page through the outbound layer,
//! decoding its characters, and reading the metadata of its head.
//!
//! Characters are decoded the way browsers pick an encoding (WHATWG Encoding, "decode"; HTML,
//! "determining the character encoding"): a byte order mark first, then the `charset` of the
//! Content-Type header, then a `<meta charset>` or `http-equiv` declaration in the first 1,024
//! bytes, and otherwise UTF-8 when the bytes are valid UTF-8 and windows-1252 when they are
//! not. Relative URLs are made absolute against the final URL after redirects, or the page's
//! `<base href>`. Parsing is html5ever's (through scraper), so broken markup is read the way
//! browsers read it; lists read from a page are capped ([`MAX_TAGS`]) so a hostile page cannot
//! make an answer of its size.

use encoding_rs::Encoding;
use scraper::{Html, Selector};
use url::Url;

use crate::hosts::http_fetch::{header, url_input};
use wrench_contract::prelude::*;

/// The most entries of one kind (meta tags, icons) an answer lists; the rest are counted.
pub const MAX_TAGS: usize = 200;
/// The longest text kept from one attribute or title, in characters.
const MAX_TEXT: usize = 2_000;

/// A fetched page, decoded.
pub struct Page {
    pub url: Url,
    pub final_url: Url,
    pub status: u16,
    pub content_type: Option<String>,
    /// The encoding the bytes were decoded with (`UTF-8`, `windows-1252`, `Shift_JIS`).
    pub charset: &'static str,
    /// Where the encoding came from: `bom`, `header`, `meta` or `default`.
    pub charset_source: &'static str,
    pub html: String,
    pub bytes: usize,
    /// The header fields of the answer read.
    pub headers: reqwest::header::HeaderMap,
}

/// Fetches `text` (the `url` field) with redirects followed and decodes it; an answer that is
/// not a successful HTML page is 502 naming what came instead.
pub async fn fetch_page(ctx: &Ctx, text: &str) -> Result<Page, ApiError> {
    fetch_page_of(ctx, "url", text).await
}

/// [`fetch_page`] of a URL given in the field `field`, which its refusals name.
pub async fn fetch_page_of(ctx: &Ctx, field: &str, text: &str) -> Result<Page, ApiError> {
    let url = url_input(field, text)?;
    let chain = ctx.net.get(url.clone()).await?;
    let last = chain.last().ok_or_else(|| ApiError::internal("a fetch that ended well has an answer"))?;
    let host = last.url.host_str().unwrap_or("the site").to_string();
    if !(200..300).contains(&last.status) {
        return Err(ApiError::new(
            ErrorCode::UpstreamError,
            format!("{host} answered {} for {}; there is no page to read", last.status, last.url),
        ));
    }
    let content_type = header(last, "content-type");
    let essence = content_type.as_deref().map(|c| c.split(';').next().unwrap_or("").trim().to_ascii_lowercase());
    if let Some(e) = essence.as_deref().filter(|e| !matches!(*e, "text/html" | "application/xhtml+xml" | "")) {
        return Err(ApiError::new(
            ErrorCode::UpstreamError,
            format!("{host} answered with {e}, not an HTML page ({})", last.url),
        ));
    }
    let body = chain.body.clone().unwrap_or_default();
    let (html, charset, charset_source) = decode(&body, content_type.as_deref());
    Ok(Page {
        url,
        final_url: last.url.clone(),
        status: last.status,
        content_type,
        charset,
        charset_source,
        html,
        bytes: body.len(),
        headers: last.headers.clone(),
    })
}

/// The `charset` parameter of a Content-Type value.
fn charset_param(content_type: &str) -> Option<&str> {
    content_type.split(';').skip(1).find_map(|p| {
        let (k, v) = p.split_once('=')?;
        k.trim().eq_ignore_ascii_case("charset").then(|| v.trim().trim_matches(['"', '\'']))
    })
}

/// A `<meta charset=...>` or `<meta http-equiv=content-type content="...charset=...">` in
/// the first 1,024 bytes (a simplified form of the HTML prescan).
fn meta_charset(head: &[u8]) -> Option<&'static Encoding> {
    let text = String::from_utf8_lossy(&head[..head.len().min(1024)]).to_ascii_lowercase();
    let mut rest = text.as_str();
    while let Some(i) = rest.find("<meta") {
        rest = &rest[i + 5..];
        let tag = &rest[..rest.find('>').unwrap_or(rest.len())];
        if let Some(j) = tag.find("charset") {
            let value = tag[j + 7..].trim_start().strip_prefix('=')?.trim_start();
            let value = value.trim_start_matches(['"', '\'']);
            let end = value.find(|c: char| c == '"' || c == '\'' || c == ';' || c.is_whitespace() || c == '/');
            if let Some(e) = Encoding::for_label(&value.as_bytes()[..end.unwrap_or(value.len())]) {
                // A page cannot declare itself UTF-16 in ASCII (HTML: the prescan's rule).
                return Some(if e == encoding_rs::UTF_16BE || e == encoding_rs::UTF_16LE {
                    encoding_rs::UTF_8
                } else {
                    e
                });
            }
        }
    }
    None
}

/// Decodes a page's bytes; returns the text, the encoding's name and where it came from.
pub fn decode(body: &[u8], content_type: Option<&str>) -> (String, &'static str, &'static str) {
    let (encoding, source, skip) = if let Some((e, bom)) = Encoding::for_bom(body) {
        (e, "bom", bom)
    } else if let Some(e) = content_type.and_then(charset_param).and_then(|c| Encoding::for_label(c.as_bytes())) {
        (e, "header", 0)
    } else if let Some(e) = meta_charset(body) {
        (e, "meta", 0)
    } else if std::str::from_utf8(body).is_ok() {
        (encoding_rs::UTF_8, "default", 0)
    } else {
        (encoding_rs::WINDOWS_1252, "default", 0)
    };
    let (text, _) = encoding.decode_without_bom_handling(&body[skip..]);
    (text.into_owned(), encoding.name(), source)
}

/// A meta tag as found: its key (`property` or `name`) and `content`.
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct MetaTag {
    /// `og:title`, `twitter:card`...
    pub property: String,
    pub content: String,
}

/// An icon a `<link>` declares.
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct IconLink {
    /// Absolute URL.
    pub href: String,
    /// The link's `rel` (`icon`, `apple-touch-icon`, `mask-icon`...).
    pub rel: String,
    pub sizes: Option<String>,
    #[serde(rename = "type")]
    pub media_type: Option<String>,
}

/// The metadata of a page's head.
#[derive(Debug, Default)]
pub struct HeadMeta {
    pub title: Option<String>,
    pub description: Option<String>,
    pub language: Option<String>,
    pub canonical: Option<String>,
    pub theme_color: Option<String>,
    /// `<meta name="application-name">`.
    pub application_name: Option<String>,
    pub manifest: Option<String>,
    /// `(href, type)` of the oEmbed discovery link.
    pub oembed: Option<(String, String)>,
    pub open_graph: Vec<MetaTag>,
    pub twitter: Vec<MetaTag>,
    pub icons: Vec<IconLink>,
    /// Tags beyond [`MAX_TAGS`] of any kind, not listed.
    pub omitted: usize,
    /// What relative URLs are resolved against: `<base href>`, or the page's URL.
    pub base: Option<Url>,
}

impl HeadMeta {
    /// The icon a browser shows first: the first `rel="icon"`, else the first declared icon.
    pub fn favicon(&self) -> Option<String> {
        self.icons.iter().find(|i| i.rel == "icon").or(self.icons.first()).map(|i| i.href.clone())
    }

    /// The first value of an Open Graph or Twitter property.
    pub fn first(&self, property: &str) -> Option<&str> {
        self.open_graph.iter().chain(&self.twitter).find(|t| t.property == property).map(|t| t.content.as_str())
    }
}

/// The Open Graph protocol's properties: its own (`og:`) and those of its object types
/// (ogp.me, "Object Types": `article:published_time`, `book:isbn`, `profile:username`,
/// `music:duration`, `video:release_date`...).
const OPEN_GRAPH_PREFIXES: [&str; 6] = ["og:", "article:", "book:", "profile:", "music:", "video:"];

/// Whether an Open Graph property's value is a URL, which the answer gives absolute: the
/// object's own URL, its media (`og:image`, `og:video`, `og:audio` and their `:url` and
/// `:secure_url`), and the properties whose value the protocol declares as another object
/// (a song, an album, a musician, an actor...), which are given by URL. `article:author` and
/// `book:author` are left as written: sites give names there as often as profile URLs.
fn holds_url(property: &str) -> bool {
    matches!(
        property,
        "og:url"
            | "og:image"
            | "og:image:url"
            | "og:image:secure_url"
            | "og:video"
            | "og:video:url"
            | "og:video:secure_url"
            | "og:audio"
            | "og:audio:url"
            | "og:audio:secure_url"
            | "music:song"
            | "music:album"
            | "music:musician"
            | "music:creator"
            | "video:actor"
            | "video:director"
            | "video:writer"
            | "video:series"
    )
}

/// Whitespace collapsed and trimmed, cut to [`MAX_TEXT`] characters.
pub fn clean(text: &str) -> String {
    let joined = text.split_whitespace().collect::<Vec<_>>().join(" ");
    match joined.char_indices().nth(MAX_TEXT) {
        Some((i, _)) => joined[..i].to_string(),
        None => joined,
    }
}

fn selector(css: &str) -> Selector {
    Selector::parse(css).expect("a fixed selector parses")
}

/// The part of a page that holds its head: everything before the first `<body` or `</head`.
/// Metadata lives there (tags in the body are not read, as share-card scrapers do not), and
/// parsing no further keeps a large or deeply nested body from costing anything.
pub fn head_part(html: &str) -> &str {
    let bytes = html.as_bytes();
    let starts = |i: usize, tag: &[u8]| bytes.get(i..i + tag.len()).is_some_and(|b| b.eq_ignore_ascii_case(tag));
    // Both markers are ASCII and begin with `<`, so the cut falls on a character boundary.
    let end = (0..bytes.len()).find(|&i| bytes[i] == b'<' && (starts(i, b"<body") || starts(i, b"</head")));
    &html[..end.unwrap_or(html.len())]
}

/// Refuses a head nested deeper than the document readers' limit (128 elements), whose
/// parsing would cost time in proportion to the square of its depth.
pub fn check_head(page: &Page) -> Result<(), ApiError> {
    check_nesting(page, head_part(&page.html), " before its body")
}

/// Refuses a page whose `part` (its head, or all of it) nests deeper than the document
/// readers' limit; `where_` completes the message (` before its body`).
pub fn check_nesting(page: &Page, part: &str, where_: &str) -> Result<(), ApiError> {
    crate::web::html_depth::check_depth("url", part).map_err(|_| {
        ApiError::new(
            ErrorCode::UpstreamError,
            format!(
                "the page at {} nests elements deeper than {}{where_}; it is not read",
                page.final_url,
                crate::web::html_depth::MAX_DEPTH
            ),
        )
    })
}

/// A fetched page's head checked ([`check_head`]) and read on the blocking pool (parsing a
/// large head is CPU work); with `links`, the `href`s of the whole page too (`page_links.rs`).
pub async fn read_page(page: Page, links: bool) -> Result<(Page, HeadMeta, Vec<String>), ApiError> {
    check_head(&page)?;
    wrench_infra::cpu::run(move || {
        let meta = read_head(&page.html, &page.final_url);
        let hrefs = if links { crate::web::page_links::hrefs(&page.html) } else { Vec::new() };
        Ok((page, meta, hrefs))
    })
    .await
}

/// Reads the metadata of `html`'s head (see [`head_part`]), whose URL (after redirects) is
/// `page_url`.
pub fn read_head(html: &str, page_url: &Url) -> HeadMeta {
    let doc = Html::parse_document(head_part(html));
    let mut out = HeadMeta::default();
    let base = doc
        .select(&selector("base[href]"))
        .next()
        .and_then(|b| b.value().attr("href"))
        .and_then(|h| page_url.join(h.trim()).ok())
        .unwrap_or_else(|| page_url.clone());
    let absolute = |href: &str| base.join(href.trim()).ok().map(|u| u.to_string());
    out.base = Some(base.clone());
    out.title =
        doc.select(&selector("title")).next().map(|t| clean(&t.text().collect::<String>())).filter(|t| !t.is_empty());
    out.language = doc.root_element().value().attr("lang").map(clean).filter(|l| !l.is_empty());
    for meta in doc.select(&selector("meta[content]")) {
        let el = meta.value();
        let key = el.attr("property").or_else(|| el.attr("name")).map(|k| k.trim().to_ascii_lowercase());
        let Some(key) = key else { continue };
        let mut content = clean(el.attr("content").unwrap_or_default());
        let open_graph = OPEN_GRAPH_PREFIXES.iter().any(|p| key.starts_with(p));
        if open_graph && holds_url(&key) && !content.is_empty() {
            content = absolute(&content).unwrap_or(content);
        }
        let tag = || MetaTag { property: key.clone(), content: content.clone() };
        if open_graph {
            if out.open_graph.len() < MAX_TAGS { out.open_graph.push(tag()) } else { out.omitted += 1 }
        } else if key.starts_with("twitter:") {
            if out.twitter.len() < MAX_TAGS { out.twitter.push(tag()) } else { out.omitted += 1 }
        } else if key == "description" && out.description.is_none() {
            out.description = Some(content).filter(|c| !c.is_empty());
        } else if key == "theme-color" && out.theme_color.is_none() {
            out.theme_color = Some(content).filter(|c| !c.is_empty());
        } else if key == "application-name" && out.application_name.is_none() {
            out.application_name = Some(content).filter(|c| !c.is_empty());
        }
    }
    for link in doc.select(&selector("link[href][rel]")) {
        let el = link.value();
        let rels: Vec<String> =
            el.attr("rel").unwrap_or_default().split_ascii_whitespace().map(|r| r.to_ascii_lowercase()).collect();
        let Some(href) = el.attr("href").and_then(absolute) else { continue };
        let has = |r: &str| rels.iter().any(|x| x == r);
        if has("canonical") && out.canonical.is_none() {
            out.canonical = Some(href.clone());
        }
        if has("manifest") && out.manifest.is_none() {
            out.manifest = Some(href.clone());
        }
        let kind = el.attr("type").map(|t| t.trim().to_ascii_lowercase());
        if let Some(t) = kind.as_deref().filter(|t| has("alternate") && out.oembed.is_none() && t.ends_with("+oembed"))
        {
            out.oembed = Some((href.clone(), t.to_string()));
        }
        if let Some(rel) = rels
            .iter()
            .find(|r| matches!(r.as_str(), "icon" | "apple-touch-icon" | "apple-touch-icon-precomposed" | "mask-icon"))
        {
            if out.icons.len() < MAX_TAGS {
                out.icons.push(IconLink {
                    href,
                    rel: rel.clone(),
                    sizes: el.attr("sizes").map(clean),
                    media_type: kind.clone(),
                });
            } else {
                out.omitted += 1;
            }
        }
    }
    out
}

/// The values of `properties` (in that order of preference, each in page order) made absolute,
/// without repeats: the image URLs of Open Graph and Twitter tags.
pub fn absolute_values(meta: &HeadMeta, properties: &[&str]) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let Some(base) = &meta.base else { return out };
    for p in properties {
        for t in meta.open_graph.iter().chain(&meta.twitter).filter(|t| t.property == *p) {
            if let Ok(u) = base.join(&t.content) {
                let u = u.to_string();
                if !out.contains(&u) {
                    out.push(u);
                }
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every way the HTML standard lets a page name its encoding, and the order they count in.
    #[test]
    fn encodings_are_chosen_as_browsers_choose_them() {
        // "café" in windows-1252 (é = 0xE9), in Shift_JIS ("日本" = 93 FA 96 7B) and UTF-8.
        let latin = b"<html><head><title>caf\xe9</title></head></html>";
        assert_eq!(
            decode(latin, None),
            ("<html><head><title>café</title></head></html>".into(), "windows-1252", "default")
        );
        assert_eq!(decode(latin, Some("text/html; charset=ISO-8859-1")).1, "windows-1252");
        assert_eq!(decode(latin, Some("text/html; charset=\"latin1\"")).2, "header");
        let sjis = b"<meta charset=\"shift_jis\"><title>\x93\xfa\x96\x7b</title>";
        let (text, name, source) = decode(sjis, Some("text/html"));
        assert_eq!((name, source), ("Shift_JIS", "meta"));
        assert!(text.contains("日本"));
        let equiv = b"<META HTTP-EQUIV='Content-Type' CONTENT='text/html; charset=koi8-r'><p>\xf0\xd2\xc9";
        assert_eq!(decode(equiv, None).1, "KOI8-R");
        let bom = b"\xef\xbb\xbf<meta charset=windows-1252><p>\xc3\xa9";
        assert_eq!(
            decode(bom, Some("text/html; charset=windows-1252")),
            ("<meta charset=windows-1252><p>é".into(), "UTF-8", "bom")
        );
        assert_eq!(decode(b"<meta charset=utf-16le><p>x", None).1, "UTF-8");
        assert_eq!(decode("<p>é".as_bytes(), None), ("<p>é".into(), "UTF-8", "default"));
    }

    #[test]
    fn the_head_is_read_with_urls_made_absolute() {
        let page = Url::parse("https://www.site.example/a/b/page.html").unwrap();
        let html = r##"<!doctype html><html lang=" en-GB "><head>
            <title>  A   title </title><base href="/root/">
            <meta name="description" content="First">
            <meta name="description" content="Second">
            <meta property="og:title" content="OG title"><meta property="og:image" content="img/1.png">
            <meta property="og:image" content="https://cdn.site.example/2.png">
            <meta name="twitter:card" content="summary"><meta name="twitter:image" content="//cdn.site.example/t.png">
            <meta name="theme-color" content="#336699">
            <link rel="Canonical" href="../canon">
            <link rel="shortcut icon" href="favicon.ico"><link rel="apple-touch-icon" sizes="180x180" href="/touch.png">
            <link rel="manifest" href="site.webmanifest">
            <link rel="alternate" type="application/json+oembed" href="/oembed?url=x">
            </head><body><meta property="og:description" content="in the body"></body></html>"##;
        let m = read_head(html, &page);
        assert_eq!(m.title.as_deref(), Some("A title"));
        assert_eq!(m.language.as_deref(), Some("en-GB"));
        assert_eq!(m.description.as_deref(), Some("First"));
        assert_eq!(m.theme_color.as_deref(), Some("#336699"));
        assert_eq!(m.canonical.as_deref(), Some("https://www.site.example/canon"));
        assert_eq!(m.manifest.as_deref(), Some("https://www.site.example/root/site.webmanifest"));
        assert_eq!(m.oembed, Some(("https://www.site.example/oembed?url=x".into(), "application/json+oembed".into())));
        let icons: Vec<(&str, &str)> = m.icons.iter().map(|i| (i.rel.as_str(), i.href.as_str())).collect();
        assert_eq!(
            icons,
            [
                ("icon", "https://www.site.example/root/favicon.ico"),
                ("apple-touch-icon", "https://www.site.example/touch.png")
            ]
        );
        assert_eq!(m.first("og:description"), None, "tags in the body are not read");
        assert_eq!(
            absolute_values(&m, &["og:image", "twitter:image"]),
            [
                "https://www.site.example/root/img/1.png",
                "https://cdn.site.example/2.png",
                "https://cdn.site.example/t.png"
            ]
        );
    }

    #[test]
    fn every_open_graph_property_is_read_and_urls_are_absolute() {
        let page = Url::parse("https://news.site.example/2026/story.html").unwrap();
        let html = r##"<html><head>
            <meta property="og:type" content="article"><meta property="og:url" content="/2026/story">
            <meta property="article:published_time" content="2026-11-02T08:00:00Z">
            <meta property="article:author" content="Jane Doe">
            <meta property="article:section" content="Science">
            <meta property="article:tag" content="space"><meta property="article:tag" content="physics">
            <meta property="book:isbn" content="978-3-16-148410-0"><meta property="profile:username" content="jd">
            <meta property="music:song" content="songs/1"><meta property="video:release_date" content="2026-01-01">
            <meta property="og:video" content="../clip.mp4"><meta property="fb:app_id" content="1">
            <meta name="author" content="not open graph">
            </head></html>"##;
        let m = read_head(html, &page);
        let tags: Vec<(&str, &str)> = m.open_graph.iter().map(|t| (t.property.as_str(), t.content.as_str())).collect();
        assert_eq!(
            tags,
            [
                ("og:type", "article"),
                ("og:url", "https://news.site.example/2026/story"),
                ("article:published_time", "2026-11-02T08:00:00Z"),
                ("article:author", "Jane Doe"),
                ("article:section", "Science"),
                ("article:tag", "space"),
                ("article:tag", "physics"),
                ("book:isbn", "978-3-16-148410-0"),
                ("profile:username", "jd"),
                ("music:song", "https://news.site.example/2026/songs/1"),
                ("video:release_date", "2026-01-01"),
                ("og:video", "https://news.site.example/clip.mp4"),
            ]
        );
    }

    #[test]
    fn a_hostile_page_gives_a_bounded_answer() {
        let many = "<meta property=\"og:x\" content=\"y\">".repeat(MAX_TAGS + 50);
        let deep = "<div>".repeat(100_000);
        let m = read_head(
            &format!("<html><head>{many}</head><body>{deep}</body></html>"),
            &Url::parse("http://a.example/").unwrap(),
        );
        assert_eq!((m.open_graph.len(), m.omitted), (MAX_TAGS, 50));
        let long =
            read_head(&format!("<title>{}</title>", "x".repeat(50_000)), &Url::parse("http://a.example/").unwrap());
        assert_eq!(long.title.unwrap().chars().count(), MAX_TEXT);
    }
}

/// The fake site's metadata page read by a second parser, Python's `html.parser` with
/// `urllib.parse.urljoin` for URLs: the same tags, contents and absolute URLs must come out.
#[cfg(test)]
mod second_reader {
    use super::*;

    const READER: &str = r#"
import json, sys, urllib.parse
from html.parser import HTMLParser
page, html = sys.argv[1], sys.stdin.read()
class P(HTMLParser):
    def __init__(self):
        super().__init__(); self.base = page; self.tags = []; self.links = []; self.title = None; self.in_title = False; self.body = False
    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "body": self.body = True
        if self.body: return
        if tag == "base" and "href" in a: self.base = urllib.parse.urljoin(page, a["href"])
        if tag == "meta" and "content" in a:
            key = (a.get("property") or a.get("name") or "").lower()
            value = " ".join(a["content"].split())
            if key in ("og:url", "og:image", "og:image:url", "og:image:secure_url", "og:video", "og:audio", "music:song"):
                value = urllib.parse.urljoin(self.base, value)
            if key.startswith(("og:", "article:", "book:", "profile:", "music:", "video:", "twitter:")): self.tags.append([key, value])
        if tag == "link" and "href" in a and "rel" in a:
            self.links.append([a["rel"].lower(), urllib.parse.urljoin(self.base, a["href"].strip())])
        if tag == "title": self.in_title = True
    def handle_endtag(self, tag):
        if tag == "title": self.in_title = False
    def handle_data(self, data):
        if self.in_title: self.title = " ".join(data.split())
p = P(); p.feed(html)
print(json.dumps({"tags": p.tags, "links": p.links, "title": p.title}))
"#;

    #[test]
    fn python_reads_the_same_head() {
        use std::io::Write;
        let page = "http://www.site.example:8080/meta";
        let child = std::process::Command::new("python3")
            .args(["-c", READER, page])
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .spawn();
        let Ok(mut child) = child else {
            eprintln!("SKIPPED: no python3 to read the page a second time");
            return;
        };
        child.stdin.take().unwrap().write_all(wrench_fakes::http::META_PAGE.as_bytes()).unwrap();
        let out = child.wait_with_output().unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        let theirs: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        let ours = read_head(wrench_fakes::http::META_PAGE, &Url::parse(page).unwrap());
        let tags: Vec<[String; 2]> =
            ours.open_graph.iter().chain(&ours.twitter).map(|t| [t.property.clone(), t.content.clone()]).collect();
        let mut theirs_tags: Vec<[String; 2]> = serde_json::from_value(theirs["tags"].clone()).unwrap();
        // Ours lists Open Graph tags, then Twitter tags, each in page order.
        theirs_tags.sort_by_key(|t| t[0].starts_with("twitter:"));
        assert_eq!(tags, theirs_tags);
        assert_eq!(ours.title.as_deref(), theirs["title"].as_str());
        let links: Vec<[String; 2]> = serde_json::from_value(theirs["links"].clone()).unwrap();
        let href = |rel: &str| links.iter().find(|l| l[0] == rel).map(|l| l[1].clone());
        assert_eq!(ours.canonical, href("canonical"));
        assert_eq!(ours.manifest, href("manifest"));
        assert_eq!(ours.oembed.as_ref().map(|o| o.0.clone()), href("alternate"));
        let icons: Vec<String> = links.iter().filter(|l| l[0].contains("icon")).map(|l| l[1].clone()).collect();
        assert_eq!(ours.icons.iter().map(|i| i.href.clone()).collect::<Vec<_>>(), icons);
        assert!(tags.len() >= 15 && icons.len() == 3, "the fixture shrank");
        assert!(tags.iter().any(|t| t[0] == "article:tag"), "the fixture lost its article properties");
    }
}
