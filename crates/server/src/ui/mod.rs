//! The face for people: pages generated from the same declarations as the document, served
//! under a policy that lets them run only their own files (no inline script, nothing from
//! another origin).
//! - The home at `/`, which a browser gets instead of the index's JSON (the choice is the http
//!   module's, by the `Accept` header): every operation of the catalog (`GET /v1/operations`),
//!   grouped by the document's tags in their order, found by words, tags and examples as one
//!   types (`home.html`, `app.js`).
//! - A tool page for every operation at `/tools/{operationId}`: a form made from the
//!   operation's input schema in the catalog, prefilled from its first example, and its answer
//!   shown as it reads best (`tool.html`, `tool.js`).
//! - The recipe page at `/recipes` (and `/recipes/{id}` for a stored one): steps added from the
//!   recipeable operations or written as JSON, run, each step's outcome listed, and the recipe
//!   stored to share (`recipes.html`, `recipes.js`).
//!
//! The files sit beside this module and are compiled in; scripts and style are served under
//! `/ui/`, with what the scripts share in `common.js`, loaded first. Every page, the registry's
//! too, gets its head lines from one file, `head.html`, and its header and navigation from
//! another, `header.html` ([`with_shared_parts`]). The scripts write every text they show as
//! text, never as markup.

use std::{
    collections::HashMap,
    sync::{Mutex, OnceLock},
};

use wrench_contract::op::{PageFile, PageKind, Tag};

/// The tool page, the recipe page, the pages' scripts, their style and their icon.
pub(crate) const FILES: &[PageFile] = &[
    PageFile { paths: &["/tools/:id"], kind: PageKind::Html, body: include_str!("tool.html") },
    PageFile { paths: &["/recipes", "/recipes/:id"], kind: PageKind::Html, body: include_str!("recipes.html") },
    PageFile { paths: &["/ui/recipes.js"], kind: PageKind::Script, body: include_str!("recipes.js") },
    PageFile { paths: &["/ui/common.js"], kind: PageKind::Script, body: include_str!("common.js") },
    PageFile { paths: &["/ui/app.js"], kind: PageKind::Script, body: include_str!("app.js") },
    PageFile { paths: &["/ui/tool.js"], kind: PageKind::Script, body: include_str!("tool.js") },
    PageFile { paths: &["/ui/snippets.js"], kind: PageKind::Script, body: include_str!("snippets.js") },
    PageFile { paths: &["/ui/app.css"], kind: PageKind::Style, body: include_str!("app.css") },
    PageFile { paths: &["/ui/icon.svg"], kind: PageKind::Svg, body: include_str!("icon.svg") },
];

/// The home page: `home.html` with its header and the document's tags, in order, as a JSON data
/// block (data, not a script: the policy runs none inline).
pub(crate) fn home() -> &'static str {
    static PAGE: OnceLock<String> = OnceLock::new();
    PAGE.get_or_init(|| {
        let tags: Vec<serde_json::Value> =
            Tag::ALL.iter().map(|t| serde_json::json!({"name": t.name(), "description": t.description()})).collect();
        // `<` written as an escape, so no text of a tag can close the block.
        let json = serde_json::to_string(&tags).unwrap_or_default().replace('<', "\\u003c");
        headed(include_str!("home.html"))
            .replace("<!-- tags -->", &format!("<script type=\"application/json\" id=\"tags\">{json}</script>"))
    })
}

/// A page for people (any page file's HTML, the registry's too) with what every page shares
/// in place of its marker lines: the head lines (`head.html`: encoding, viewport, referrer
/// policy, icon, style sheet and `common.js`) for `<!-- head -->`, and the header (`header.html`)
/// for `<!-- header DOCS -->`, where `DOCS` is where its "API reference" link leads. Made once
/// per page and kept: the pages are a fixed set compiled in.
pub(crate) fn with_shared_parts(html: &'static str) -> &'static str {
    static PAGES: OnceLock<Mutex<HashMap<usize, &'static str>>> = OnceLock::new();
    let mut pages = PAGES.get_or_init(Mutex::default).lock().unwrap_or_else(|e| e.into_inner());
    pages.entry(html.as_ptr() as usize).or_insert_with(|| Box::leak(headed(html).into_boxed_str()))
}

/// `html` with its head line and header line replaced by the shared parts.
fn headed(html: &str) -> String {
    const MARK: &str = "<!-- header ";
    let html = html.replacen("<!-- head -->", include_str!("head.html").trim_end(), 1);
    let Some(start) = html.find(MARK) else { return html };
    let Some(len) = html[start..].find("-->") else { return html };
    let docs = html[start + MARK.len()..start + len].trim();
    format!(
        "{}{}{}",
        &html[..start],
        include_str!("header.html").trim_end().replace("{docs}", docs),
        &html[start + len + 3..]
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_home_carries_every_tag_in_the_documents_order() {
        let page = home();
        let start = page.find("id=\"tags\">").unwrap() + "id=\"tags\">".len();
        let end = start + page[start..].find("</script>").unwrap();
        let tags: Vec<serde_json::Value> = serde_json::from_str(&page[start..end]).unwrap();
        let names: Vec<&str> = tags.iter().map(|t| t["name"].as_str().unwrap()).collect();
        assert_eq!(names, Tag::ALL.iter().map(|t| t.name()).collect::<Vec<_>>());
    }

    #[test]
    fn every_page_gets_the_shared_head_and_header_with_its_own_reference_link() {
        let pages: Vec<&str> = FILES
            .iter()
            .filter(|f| f.kind == PageKind::Html)
            .map(|f| with_shared_parts(f.body))
            .chain([home()])
            .collect();
        assert_eq!(pages.len(), 3);
        for page in &pages {
            assert_eq!(page.matches("<nav aria-label=\"Elsewhere\">").count(), 1, "{page}");
            assert!(!page.contains("<!-- head") && !page.contains("{docs}"), "{page}");
            assert_eq!(page.matches("<link rel=\"icon\" href=\"/ui/icon.svg\"").count(), 1, "{page}");
            assert_eq!(page.matches("<meta charset=\"utf-8\">").count(), 1, "{page}");
            assert_eq!(page.matches("<script src=\"/ui/common.js\" defer>").count(), 1, "{page}");
        }
        assert!(with_shared_parts(FILES[1].body).contains("<a id=\"docs-link\" href=\"/docs/#/Recipes\">"));
        // Made once per page: the same text again.
        assert!(std::ptr::eq(with_shared_parts(FILES[0].body), with_shared_parts(FILES[0].body)));
        assert_eq!(headed("<p>no header</p>"), "<p>no header</p>");
    }
}
