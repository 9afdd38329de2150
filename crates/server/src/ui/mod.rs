//! The face for people: pages generated from the same declarations as the document, served
//! under a policy that lets them run only their own files (no inline script, nothing from
//! another origin).
//! - The home at `/`, which a browser gets instead of the index's JSON (`wants_html`): every
//!   operation of the catalog (`GET /v1/operations`), grouped by the document's tags in their
//!   order, found by words, tags and examples as one types (`home.html`, `app.js`).
//! - A tool page for every operation at `/tools/{operationId}`: a form made from the
//!   operation's input schema in the catalog, prefilled from its first example, and its answer
//!   shown as it reads best (`tool.html`, `tool.js`).
//! - The recipe page at `/recipes` (and `/recipes/{id}` for a stored one): steps added from the
//!   recipeable operations or written as JSON, run, each step's outcome listed, and the recipe
//!   stored to share (`recipes.html`, `recipes.js`).
//!
//! The files sit beside this module and are compiled in; scripts and style are served under
//! `/ui/`, with what the scripts share in `common.js`, loaded first. The scripts write every
//! text they show as text, never as markup.

use std::sync::OnceLock;

use wrench_contract::op::{PageFile, PageKind, Tag};

/// The tool page, the pages' scripts and their style.
pub(crate) const FILES: &[PageFile] = &[
    PageFile { paths: &["/tools/:id"], kind: PageKind::Html, body: include_str!("tool.html") },
    PageFile { paths: &["/recipes", "/recipes/:id"], kind: PageKind::Html, body: include_str!("recipes.html") },
    PageFile { paths: &["/ui/recipes.js"], kind: PageKind::Script, body: include_str!("recipes.js") },
    PageFile { paths: &["/ui/common.js"], kind: PageKind::Script, body: include_str!("common.js") },
    PageFile { paths: &["/ui/app.js"], kind: PageKind::Script, body: include_str!("app.js") },
    PageFile { paths: &["/ui/tool.js"], kind: PageKind::Script, body: include_str!("tool.js") },
    PageFile { paths: &["/ui/snippets.js"], kind: PageKind::Script, body: include_str!("snippets.js") },
    PageFile { paths: &["/ui/app.css"], kind: PageKind::Style, body: include_str!("app.css") },
];

/// The home page: `home.html` with the document's tags, in order, as a JSON data block (data,
/// not a script: the policy runs none inline).
pub(crate) fn home() -> &'static str {
    static PAGE: OnceLock<String> = OnceLock::new();
    PAGE.get_or_init(|| {
        let tags: Vec<serde_json::Value> =
            Tag::ALL.iter().map(|t| serde_json::json!({"name": t.name(), "description": t.description()})).collect();
        // `<` written as an escape, so no text of a tag can close the block.
        let json = serde_json::to_string(&tags).unwrap_or_default().replace('<', "\\u003c");
        include_str!("home.html")
            .replace("<!-- tags -->", &format!("<script type=\"application/json\" id=\"tags\">{json}</script>"))
    })
}

/// Whether a request's `Accept` header asks for a page rather than JSON: it names `text/html`
/// with a weight at least that of `application/json` (or of `*/*` when JSON is not named).
/// Browsers send `text/html` first; API clients send `application/json`, `*/*` or nothing.
pub(crate) fn wants_html(accept: Option<&str>) -> bool {
    let Some(accept) = accept else { return false };
    let (mut html, mut json, mut any) = (None::<f32>, None::<f32>, None::<f32>);
    for range in accept.split(',') {
        let mut parts = range.split(';');
        let media = parts.next().unwrap_or_default().trim().to_ascii_lowercase();
        let q = parts
            .filter_map(|p| p.trim().strip_prefix("q=").and_then(|v| v.trim().parse::<f32>().ok()))
            .next()
            .unwrap_or(1.0);
        let slot = match media.as_str() {
            "text/html" => &mut html,
            "application/json" => &mut json,
            "*/*" => &mut any,
            _ => continue,
        };
        *slot = Some(slot.map_or(q, |s| s.max(q)));
    }
    match html {
        Some(h) if h > 0.0 => h >= json.or(any).unwrap_or(0.0),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn browsers_get_the_page_and_api_clients_json() {
        let chromium = "text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8";
        let firefox = "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8";
        assert!(wants_html(Some(chromium)) && wants_html(Some(firefox)));
        for api in [None, Some("*/*"), Some("application/json"), Some("application/json, text/html;q=0.5")] {
            assert!(!wants_html(api), "{api:?}");
        }
        assert!(!wants_html(Some("text/html;q=0")));
        assert!(wants_html(Some("TEXT/HTML")));
    }

    #[test]
    fn the_home_carries_every_tag_in_the_documents_order() {
        let page = home();
        let start = page.find("id=\"tags\">").unwrap() + "id=\"tags\">".len();
        let end = start + page[start..].find("</script>").unwrap();
        let tags: Vec<serde_json::Value> = serde_json::from_str(&page[start..end]).unwrap();
        let names: Vec<&str> = tags.iter().map(|t| t["name"].as_str().unwrap()).collect();
        assert_eq!(names, Tag::ALL.iter().map(|t| t.name()).collect::<Vec<_>>());
    }
}
