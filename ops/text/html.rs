//! HTML to plain text, and HTML sanitizing with an allow-list.
//!
//! Parsing is html5ever's (through scraper), so broken markup is read the way browsers read
//! it. The text walk uses the tree's open/close traversal instead of recursion, so nesting
//! depth cannot exhaust the stack.

use std::collections::HashSet;

use ego_tree::iter::Edge;
use scraper::{Html, Node};
use unicode_segmentation::UnicodeSegmentation;

use wrench_contract::prelude::*;
use wrench_kit::web::html_depth::check_depth;

/// Elements whose content is never text.
const SKIPPED: &[&str] = &["script", "style", "head", "noscript", "template", "svg", "math", "iframe", "object"];
/// Elements that end a line.
const BLOCKS: &[&str] = &[
    "address",
    "article",
    "aside",
    "blockquote",
    "dd",
    "div",
    "dl",
    "dt",
    "fieldset",
    "figcaption",
    "figure",
    "footer",
    "form",
    "header",
    "hr",
    "li",
    "main",
    "nav",
    "ol",
    "section",
    "table",
    "tr",
    "ul",
    "caption",
];
/// Elements that are separated from their neighbours by a blank line.
const PARAGRAPHS: &[&str] = &["p", "h1", "h2", "h3", "h4", "h5", "h6", "pre", "blockquote", "table", "ul", "ol"];

#[derive(Default)]
struct TextOut {
    s: String,
    space: bool,
}

impl TextOut {
    fn words(&mut self, t: &str) {
        if t.starts_with(char::is_whitespace) {
            self.space = true;
        }
        for w in t.split_whitespace() {
            if self.space && !self.s.is_empty() && !self.s.ends_with(['\n', ' ', '\t']) {
                self.s.push(' ');
            }
            self.s.push_str(w);
            self.space = true;
        }
        self.space = t.ends_with(char::is_whitespace) || (self.space && t.trim().is_empty());
        if !t.trim().is_empty() && !t.ends_with(char::is_whitespace) {
            self.space = false;
        }
    }

    fn raw(&mut self, t: &str) {
        self.s.push_str(t);
        self.space = false;
    }

    fn lines(&mut self, n: usize) {
        while self.s.ends_with(' ') {
            self.s.pop();
        }
        if !self.s.is_empty() {
            let have = self.s.chars().rev().take_while(|c| *c == '\n').count();
            for _ in have..n {
                self.s.push('\n');
            }
        }
        self.space = false;
    }
}

pub(crate) fn html_text(html: &str, links: bool, images: bool) -> String {
    let doc = Html::parse_document(html);
    let mut out = TextOut::default();
    let mut skip: Option<ego_tree::NodeId> = None;
    let mut pre = 0usize;
    // (start of link text in `out.s`, href) for open links.
    let mut open_links: Vec<(usize, Option<String>)> = Vec::new();
    let mut list_counters: Vec<Option<usize>> = Vec::new();
    for edge in doc.tree.root().traverse() {
        match edge {
            Edge::Open(node) => {
                if skip.is_some() {
                    continue;
                }
                match node.value() {
                    Node::Text(t) => {
                        if pre > 0 {
                            out.raw(t)
                        } else {
                            out.words(t)
                        }
                    }
                    Node::Element(e) => {
                        let name = e.name();
                        if SKIPPED.contains(&name) {
                            skip = Some(node.id());
                            continue;
                        }
                        if PARAGRAPHS.contains(&name) {
                            out.lines(2);
                        } else if BLOCKS.contains(&name) {
                            out.lines(1);
                        }
                        match name {
                            "pre" => pre += 1,
                            "br" => out.lines(1),
                            "ul" => list_counters.push(None),
                            "ol" => list_counters.push(Some(e.attr("start").and_then(|s| s.parse().ok()).unwrap_or(1))),
                            "li" => {
                                let marker = match list_counters.last_mut() {
                                    Some(Some(n)) => {
                                        *n += 1;
                                        format!("{}. ", *n - 1)
                                    }
                                    _ => "- ".to_string(),
                                };
                                out.raw(&marker);
                            }
                            "td" | "th" if !out.s.ends_with('\n') && !out.s.is_empty() => out.raw("\t"),
                            "a" if links => {
                                if out.space && !out.s.is_empty() && !out.s.ends_with(['\n', ' ', '\t']) {
                                    out.raw(" ");
                                }
                                open_links.push((out.s.len(), e.attr("href").map(str::to_string)));
                            }
                            "img" if images => {
                                let alt = e.attr("alt").unwrap_or("").trim();
                                let src = e.attr("src").unwrap_or("").trim();
                                if out.space && !out.s.is_empty() && !out.s.ends_with(['\n', ' ', '\t']) {
                                    out.raw(" ");
                                }
                                out.raw(&format!("[{alt}]({src})"));
                            }
                            _ => {}
                        }
                    }
                    _ => {}
                }
            }
            Edge::Close(node) => {
                if let Some(id) = skip {
                    if id == node.id() {
                        skip = None;
                    }
                    continue;
                }
                if let Node::Element(e) = node.value() {
                    let name = e.name();
                    match name {
                        "pre" => pre = pre.saturating_sub(1),
                        "ul" | "ol" => {
                            list_counters.pop();
                        }
                        "a" if links => {
                            if let Some((start, href)) = open_links.pop() {
                                let text = out.s[start..].trim().to_string();
                                out.s.truncate(start);
                                match href {
                                    Some(h) if !h.trim().is_empty() => out.raw(&format!("[{text}]({})", h.trim())),
                                    _ => out.raw(&text),
                                }
                            }
                        }
                        _ => {}
                    }
                    if PARAGRAPHS.contains(&name) {
                        out.lines(2);
                    } else if BLOCKS.contains(&name) {
                        out.lines(1);
                    }
                }
            }
        }
    }
    let lines: Vec<&str> = out.s.lines().map(|l| l.trim_end_matches([' ', '\t'])).collect();
    let mut text = lines.join("\n");
    while text.contains("\n\n\n") {
        text = text.replace("\n\n\n", "\n\n");
    }
    text.trim().to_string()
}

#[derive(Debug, Deserialize, JsonSchema, Validate)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct HtmlToTextInput {
    /// An HTML document or fragment.
    html: String,
    /// Write links as `[text](url)` instead of their text alone.
    #[serde(default)]
    preserve_links: bool,
    /// Write images as `[alt](src)`; otherwise images are left out.
    #[serde(default)]
    preserve_images: bool,
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct HtmlToTextOutput {
    /// The readable text.
    text: String,
    /// Words in the text (Unicode word boundaries).
    word_count: usize,
}

/// Convert HTML to readable plain text.
///
/// Parses like a browser (broken markup included), decodes entities, drops scripts, styles,
/// `<head>` and other non-text elements, collapses whitespace (except inside `<pre>`), puts
/// paragraphs and headings on their own lines separated by a blank line, writes list items as
/// `- item` or `1. item`, and separates table cells with tabs. Links become `[text](url)` with
/// `preserveLinks`, images `[alt](src)` with `preserveImages`.
#[op(post "/v1/html-to-text/convert" as htmlToText, tag = TextAndData, pipe(html -> text),
     rejects = "markup nested deeper than 128 elements",
     example(typical, {"html": "<html><head><title>x</title><style>p{}</style></head><body><h1>News</h1><p>Read <a href=\"https://example.com/a\">the article</a> &amp; more.</p><ul><li>one</li><li>two</li></ul></body></html>"}),
     example(links_and_images, {"html": "<p>See <a href=\"/docs\">docs</a> <img src=\"/logo.png\" alt=\"Logo\"></p><ol><li>first</li><li>second</li></ol>", "preserveLinks": true, "preserveImages": true}))]
async fn html_to_text(input: HtmlToTextInput) -> Result<HtmlToTextOutput, ApiError> {
    check_depth("html", &input.html)?;
    let text = html_text(&input.html, input.preserve_links, input.preserve_images);
    Ok(HtmlToTextOutput { word_count: text.unicode_words().count(), text })
}

/// Tags that can never be allowed: they run code, load other documents or restyle the page.
const NEVER: &[&str] = &[
    "script", "style", "iframe", "frame", "frameset", "object", "embed", "applet", "base", "meta", "link", "noscript",
    "template", "form", "input", "button", "textarea", "select", "option", "svg", "math", "param",
];

#[derive(Debug, Deserialize, JsonSchema, Validate)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
#[schemars(transform = wrench_contract::validate::declare_aliases::<Self>)]
struct HtmlSanitizeInput {
    /// The HTML to clean.
    html: String,
    /// Tags to keep (lower-case names). When absent, a safe default set of formatting, link,
    /// list, table and image tags is kept. Tags that run code or load documents (script, style,
    /// iframe, object, embed, form controls and similar) cannot be allowed.
    #[serde(default, rename = "allowed_tags", alias = "allowedTags")]
    #[schemars(length(max = 200))]
    allowed_tags: Option<Vec<TagName>>,
}

#[derive(Debug, Deserialize, JsonSchema, Validate)]
#[serde(transparent)]
struct TagName(#[schemars(pattern("^[a-z][a-z0-9]{0,15}$"))] String);

#[derive(Debug, Serialize, JsonSchema)]
struct HtmlSanitizeOutput {
    /// The cleaned HTML.
    sanitized: String,
    /// Whether anything was removed or rewritten.
    changed: bool,
}

/// Sanitize HTML.
///
/// Removes everything that can run code or leak data: scripts, styles, event-handler
/// attributes, `javascript:` and other non-web URLs, iframes, objects and embeds, forms.
/// Unknown tags are unwrapped (their text is kept); the content of script and style elements
/// is dropped. Links get `rel="noopener noreferrer"`. With `allowed_tags`, only those tags are
/// kept, with the attributes that are safe for each.
#[op(post "/v1/html-sanitize" as htmlSanitize, tag = TextAndData, pipe(html -> sanitized),
     rejects = "an `allowed_tags` entry that names a tag that can never be allowed, such as script or iframe, or markup nested deeper than 128 elements",
     example(typical, {"html": "<p onclick=\"steal()\">Hello <b>world</b><script>alert(1)</script> <a href=\"javascript:x()\">x</a> <a href=\"https://example.com\">ok</a></p>"}),
     example(allow_list, {"html": "<h1>Title</h1><p>Text with <em>emphasis</em> and <img src=\"a.png\"></p>", "allowed_tags": ["p", "em"]}),
     example(forbidden_tag, {"html": "<p>x</p>", "allowed_tags": ["p", "script"]}, status = 400))]
async fn html_sanitize(input: HtmlSanitizeInput) -> Result<HtmlSanitizeOutput, ApiError> {
    check_depth("html", &input.html)?;
    let mut builder = ammonia::Builder::default();
    if let Some(tags) = &input.allowed_tags {
        if let Some(bad) = tags.iter().find(|t| NEVER.contains(&t.0.as_str())) {
            return Err(ApiError::invalid(
                "allowed_tags",
                format!("{} can never be allowed: it can run code or load other documents", bad.0),
            ));
        }
        let set: HashSet<&str> = tags.iter().map(|t| t.0.as_str()).collect();
        builder.tags(set);
    }
    let sanitized = builder.clean(&input.html).to_string();
    Ok(HtmlSanitizeOutput { changed: sanitized != input.html, sanitized })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_structure() {
        let t = html_text(
            "<h1>T</h1><p>a  <b>b</b>\n c</p><ul><li>x</li><li>y</li></ul><pre>  keep\n  this</pre>",
            false,
            false,
        );
        assert_eq!(t, "T\n\na b c\n\n- x\n- y\n\n  keep\n  this");
        let t = html_text("<p>go <a href='/x'>here</a>!</p><img alt='A' src='s'>", true, true);
        assert_eq!(t, "go [here](/x)!\n\n[A](s)");
    }

    #[tokio::test]
    async fn sanitize_removes_active_content_even_when_allowed_tags_are_given() {
        let html = "<a href=\"javascript:x\" onclick=\"y\">a</a><img src=x onerror=z><iframe src=q></iframe>";
        for tags in [None, Some(vec![TagName("a".into()), TagName("img".into())])] {
            let out = html_sanitize(HtmlSanitizeInput { html: html.into(), allowed_tags: tags }).await.unwrap();
            for bad in ["javascript", "onclick", "onerror", "iframe"] {
                assert!(!out.sanitized.contains(bad), "{bad} in {}", out.sanitized);
            }
        }
    }
}
