//! The accessibility rules of `accessibility/check`, applied to a parsed page: what each
//! checks, its name (axe-core's, so people recognise it), its impact and its WCAG success
//! criterion, and the CSS selector that finds each failing element again.
//!
//! Only what the HTML itself says is judged: there is no CSS cascade, no script and no
//! layout, so contrast is checked only where an element's own `style` gives both its text
//! and background colours, and elements hidden by CSS are not known to be hidden.

use std::collections::{HashMap, HashSet};

use scraper::{ElementRef, Html};

/// One rule: axe-core's name, impact and WCAG criterion.
pub struct Rule {
    pub id: &'static str,
    pub impact: &'static str,
    pub wcag: &'static str,
    pub description: &'static str,
}

pub const RULES: &[Rule] = &[
    Rule {
        id: "image-alt",
        impact: "critical",
        wcag: "1.1.1 Non-text Content (A)",
        description: "Images have alternative text (alt, aria-label, aria-labelledby or title; alt=\"\" marks decoration)",
    },
    Rule {
        id: "label",
        impact: "critical",
        wcag: "4.1.2 Name, Role, Value (A)",
        description: "Form inputs and text areas have labels (a <label>, aria-label, aria-labelledby or title)",
    },
    Rule {
        id: "select-name",
        impact: "critical",
        wcag: "4.1.2 Name, Role, Value (A)",
        description: "Select elements have labels",
    },
    Rule {
        id: "html-has-lang",
        impact: "serious",
        wcag: "3.1.1 Language of Page (A)",
        description: "The <html> element has a lang attribute",
    },
    Rule {
        id: "html-lang-valid",
        impact: "serious",
        wcag: "3.1.1 Language of Page (A)",
        description: "The lang attribute of <html> is a well-formed BCP 47 language tag",
    },
    Rule {
        id: "document-title",
        impact: "serious",
        wcag: "2.4.2 Page Titled (A)",
        description: "The document has a non-empty <title>",
    },
    Rule {
        id: "heading-order",
        impact: "moderate",
        wcag: "1.3.1 Info and Relationships (A)",
        description: "Heading levels increase by one at a time",
    },
    Rule {
        id: "link-name",
        impact: "serious",
        wcag: "2.4.4 Link Purpose (In Context) (A)",
        description: "Links have discernible text",
    },
    Rule {
        id: "button-name",
        impact: "critical",
        wcag: "4.1.2 Name, Role, Value (A)",
        description: "Buttons have discernible text",
    },
    Rule {
        id: "input-button-name",
        impact: "critical",
        wcag: "4.1.2 Name, Role, Value (A)",
        description: "Input buttons (type=button) have discernible text",
    },
    Rule {
        id: "duplicate-id",
        impact: "minor",
        wcag: "4.1.1 Parsing (A, WCAG 2.0 and 2.1)",
        description: "id attribute values are unique",
    },
    Rule {
        id: "tabindex",
        impact: "serious",
        wcag: "2.4.3 Focus Order (A)",
        description: "No element has a tabindex greater than 0",
    },
    Rule {
        id: "td-has-header",
        impact: "critical",
        wcag: "1.3.1 Info and Relationships (A)",
        description: "Data tables of at least 3 rows and 3 columns have header cells (<th>)",
    },
    Rule {
        id: "aria-roles",
        impact: "critical",
        wcag: "4.1.2 Name, Role, Value (A)",
        description: "role attributes name valid WAI-ARIA 1.2 roles",
    },
    Rule {
        id: "aria-valid-attr",
        impact: "critical",
        wcag: "4.1.2 Name, Role, Value (A)",
        description: "aria-* attributes are WAI-ARIA 1.2 attributes",
    },
    Rule {
        id: "color-contrast",
        impact: "serious",
        wcag: "1.4.3 Contrast (Minimum) (AA)",
        description: "Text has a contrast ratio of at least 4.5:1 (3:1 for large text), where inline styles give both colours",
    },
];

/// WAI-ARIA 1.2 roles, the DPUB-ARIA roles and the graphics roles.
const ROLES: &[&str] = &[
    "alert",
    "alertdialog",
    "application",
    "article",
    "banner",
    "blockquote",
    "button",
    "caption",
    "cell",
    "checkbox",
    "code",
    "columnheader",
    "combobox",
    "complementary",
    "contentinfo",
    "definition",
    "deletion",
    "dialog",
    "directory",
    "document",
    "emphasis",
    "feed",
    "figure",
    "form",
    "generic",
    "grid",
    "gridcell",
    "group",
    "heading",
    "img",
    "insertion",
    "link",
    "list",
    "listbox",
    "listitem",
    "log",
    "main",
    "marquee",
    "math",
    "meter",
    "menu",
    "menubar",
    "menuitem",
    "menuitemcheckbox",
    "menuitemradio",
    "navigation",
    "none",
    "note",
    "option",
    "paragraph",
    "presentation",
    "progressbar",
    "radio",
    "radiogroup",
    "region",
    "row",
    "rowgroup",
    "rowheader",
    "scrollbar",
    "search",
    "searchbox",
    "separator",
    "slider",
    "spinbutton",
    "status",
    "strong",
    "subscript",
    "superscript",
    "switch",
    "tab",
    "table",
    "tablist",
    "tabpanel",
    "term",
    "textbox",
    "time",
    "timer",
    "toolbar",
    "tooltip",
    "tree",
    "treegrid",
    "treeitem",
    "graphics-document",
    "graphics-object",
    "graphics-symbol",
    "doc-abstract",
    "doc-acknowledgments",
    "doc-afterword",
    "doc-appendix",
    "doc-backlink",
    "doc-biblioentry",
    "doc-bibliography",
    "doc-biblioref",
    "doc-chapter",
    "doc-colophon",
    "doc-conclusion",
    "doc-cover",
    "doc-credit",
    "doc-credits",
    "doc-dedication",
    "doc-endnote",
    "doc-endnotes",
    "doc-epigraph",
    "doc-epilogue",
    "doc-errata",
    "doc-example",
    "doc-footnote",
    "doc-foreword",
    "doc-glossary",
    "doc-glossref",
    "doc-index",
    "doc-introduction",
    "doc-noteref",
    "doc-notice",
    "doc-pagebreak",
    "doc-pagefooter",
    "doc-pageheader",
    "doc-pagelist",
    "doc-part",
    "doc-preface",
    "doc-prologue",
    "doc-pullquote",
    "doc-qna",
    "doc-subtitle",
    "doc-tip",
    "doc-toc",
];

/// WAI-ARIA 1.2 states and properties (with the 1.3 drafts' braille and description ones
/// that browsers already support).
const ARIA_ATTRIBUTES: &[&str] = &[
    "aria-activedescendant",
    "aria-atomic",
    "aria-autocomplete",
    "aria-braillelabel",
    "aria-brailleroledescription",
    "aria-busy",
    "aria-checked",
    "aria-colcount",
    "aria-colindex",
    "aria-colindextext",
    "aria-colspan",
    "aria-controls",
    "aria-current",
    "aria-describedby",
    "aria-description",
    "aria-details",
    "aria-disabled",
    "aria-dropeffect",
    "aria-errormessage",
    "aria-expanded",
    "aria-flowto",
    "aria-grabbed",
    "aria-haspopup",
    "aria-hidden",
    "aria-invalid",
    "aria-keyshortcuts",
    "aria-label",
    "aria-labelledby",
    "aria-level",
    "aria-live",
    "aria-modal",
    "aria-multiline",
    "aria-multiselectable",
    "aria-orientation",
    "aria-owns",
    "aria-placeholder",
    "aria-posinset",
    "aria-pressed",
    "aria-readonly",
    "aria-relevant",
    "aria-required",
    "aria-roledescription",
    "aria-rowcount",
    "aria-rowindex",
    "aria-rowindextext",
    "aria-rowspan",
    "aria-selected",
    "aria-setsize",
    "aria-sort",
    "aria-valuemax",
    "aria-valuemin",
    "aria-valuenow",
    "aria-valuetext",
];

/// A failing element.
pub struct Finding {
    pub rule: &'static str,
    pub selector: String,
    /// The element's start tag, shortened.
    pub html: String,
    pub detail: String,
}

/// Failing elements described (selector and tag) at most; the rest are only counted, so a
/// page of a million unnamed links costs a count, not a million selectors.
pub const MAX_FINDINGS: usize = 200;

/// What the rules found: failures (the first [`MAX_FINDINGS`] described), and for each rule
/// how many elements it applied to and how many failed.
#[derive(Default)]
pub struct Outcome {
    pub findings: Vec<Finding>,
    pub applicable: HashMap<&'static str, usize>,
    pub failed: HashMap<&'static str, usize>,
}

fn attr<'a>(e: &ElementRef<'a>, name: &str) -> Option<&'a str> {
    e.value().attr(name)
}

fn non_empty(v: Option<&str>) -> bool {
    v.is_some_and(|v| !v.trim().is_empty())
}

/// Whether `e` has a name from its text, its images' alt text, or its ARIA or title
/// attributes.
fn has_name(e: &ElementRef) -> bool {
    non_empty(attr(e, "aria-label"))
        || non_empty(attr(e, "aria-labelledby"))
        || non_empty(attr(e, "title"))
        || e.text().any(|t| !t.trim().is_empty())
        || e.descendants()
            .filter_map(ElementRef::wrap)
            .any(|d| (d.value().name() == "img" && non_empty(attr(&d, "alt"))) || non_empty(attr(&d, "aria-label")))
}

/// The start tag of `e`, at most 200 characters.
fn start_tag(e: &ElementRef) -> String {
    let mut s = format!("<{}", e.value().name());
    for (k, v) in e.value().attrs() {
        s.push_str(&format!(" {k}=\"{}\"", v.replace('"', "&quot;")));
        if s.len() > 200 {
            break;
        }
    }
    s.push('>');
    if s.len() > 200 {
        let cut = (0..=197).rev().find(|i| s.is_char_boundary(*i)).unwrap_or(0);
        s.truncate(cut);
        s.push_str("...");
    }
    s
}

/// A CSS selector that finds `e` alone: the nearest ancestor with a unique, plain id, then
/// tag names with `:nth-of-type` where siblings share the tag.
pub fn css_path(e: &ElementRef, unique_ids: &HashSet<&str>) -> String {
    let plain = |id: &str| {
        id.chars().next().is_some_and(|c| c.is_ascii_alphabetic())
            && id.chars().all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
    };
    let mut parts = Vec::new();
    let mut current = Some(*e);
    while let Some(el) = current {
        let name = el.value().name();
        if let Some(id) = el.value().id().filter(|id| plain(id) && unique_ids.contains(id)) {
            parts.push(format!("#{id}"));
            break;
        }
        let same = |s: &ElementRef| s.value().name() == name;
        let before = el.prev_siblings().filter_map(ElementRef::wrap).filter(same).count();
        let after = el.next_siblings().filter_map(ElementRef::wrap).filter(same).count();
        parts.push(if before + after == 0 { name.to_string() } else { format!("{name}:nth-of-type({})", before + 1) });
        if name == "html" {
            break;
        }
        current = el.parent().and_then(ElementRef::wrap);
    }
    parts.reverse();
    parts.join(" > ")
}

/// A BCP 47 tag's shape (RFC 5646): a 2- or 3-letter primary language subtag (ISO 639; the
/// 5-to-8-letter form is reserved and unused), or `x`/`i`, then subtags of 1 to 8 letters and
/// digits.
fn lang_tag_ok(tag: &str) -> bool {
    let mut parts = tag.split('-');
    let primary = parts.next().unwrap_or("");
    let primary_ok =
        (2..=3).contains(&primary.len()) || primary.eq_ignore_ascii_case("i") || primary.eq_ignore_ascii_case("x");
    primary_ok
        && primary.chars().all(|c| c.is_ascii_alphabetic())
        && parts.all(|p| (1..=8).contains(&p.len()) && p.chars().all(|c| c.is_ascii_alphanumeric()))
}

/// WCAG 2 relative luminance of an sRGB colour.
pub fn luminance([r, g, b]: [u8; 3]) -> f64 {
    let channel = |c: u8| {
        let c = f64::from(c) / 255.0;
        if c <= 0.04045 { c / 12.92 } else { ((c + 0.055) / 1.055).powf(2.4) }
    };
    0.2126 * channel(r) + 0.7152 * channel(g) + 0.0722 * channel(b)
}

/// The WCAG 2 contrast ratio of two colours, 1 to 21.
pub fn contrast(a: [u8; 3], b: [u8; 3]) -> f64 {
    let (la, lb) = (luminance(a), luminance(b));
    (la.max(lb) + 0.05) / (la.min(lb) + 0.05)
}

/// The declarations of an inline style, property names lower-cased.
fn declarations(style: &str) -> HashMap<String, String> {
    style
        .split(';')
        .filter_map(|d| d.split_once(':'))
        .map(|(k, v)| (k.trim().to_ascii_lowercase(), v.trim().trim_end_matches("!important").trim().to_string()))
        .collect()
}

/// An opaque colour, or `None` (translucent or not a colour).
fn opaque(text: &str) -> Option<[u8; 3]> {
    let c = csscolorparser::parse(text).ok()?;
    (c.a >= 1.0).then(|| {
        let [r, g, b, _] = c.to_rgba8();
        [r, g, b]
    })
}

/// The inline-style contrast finding of `e`, if its own style gives both colours.
fn contrast_issue(e: &ElementRef) -> Option<Option<String>> {
    let style = declarations(attr(e, "style")?);
    let fg = opaque(style.get("color")?)?;
    let bg = style.get("background-color").or_else(|| style.get("background")).and_then(|b| opaque(b))?;
    let has_text = e.children().any(|c| c.value().as_text().is_some_and(|t| !t.trim().is_empty()));
    if !has_text {
        return None;
    }
    let px = style.get("font-size").and_then(|s| s.strip_suffix("px")).and_then(|n| n.trim().parse::<f64>().ok());
    let bold = style
        .get("font-weight")
        .is_some_and(|w| w == "bold" || w == "bolder" || w.parse::<u32>().is_ok_and(|n| n >= 700));
    let large = px.is_some_and(|p| p >= 24.0 || (bold && p >= 18.66));
    let need = if large { 3.0 } else { 4.5 };
    let ratio = contrast(fg, bg);
    Some(
        (ratio < need).then(|| {
            format!("contrast {ratio:.2}:1, below {need}:1 for {} text", if large { "large" } else { "normal" })
        }),
    )
}

/// Rows of a table and cells in its widest row.
fn table_size(table: &ElementRef) -> (usize, usize) {
    let rows: Vec<ElementRef> =
        table.descendants().filter_map(ElementRef::wrap).filter(|d| d.value().name() == "tr").collect();
    let widest = rows
        .iter()
        .map(|r| r.children().filter_map(ElementRef::wrap).filter(|c| matches!(c.value().name(), "td" | "th")).count())
        .max()
        .unwrap_or(0);
    (rows.len(), widest)
}

/// Whether a table holds data rather than layout, by the markup signs axe-core's
/// `isDataTable` reads: a caption, summary, head, foot or column group; header cells or cells
/// that name their headers; at least 5 columns or 20 rows. A table holding another table is
/// layout.
fn is_data_table(table: &ElementRef, rows: usize, columns: usize) -> bool {
    let inside: Vec<ElementRef> = table.descendants().filter_map(ElementRef::wrap).skip(1).collect();
    if inside.iter().any(|d| d.value().name() == "table") {
        return false;
    }
    non_empty(attr(table, "summary"))
        || inside.iter().any(|d| {
            matches!(d.value().name(), "caption" | "thead" | "tfoot" | "colgroup" | "col" | "th")
                || (d.value().name() == "td" && ["headers", "scope", "abbr"].iter().any(|a| attr(d, a).is_some()))
        })
        || columns >= 5
        || rows >= 20
}

/// Applies every rule to `doc`.
pub fn check(doc: &Html) -> Outcome {
    let mut out = Outcome::default();
    let mut id_counts: HashMap<&str, usize> = HashMap::new();
    let mut label_for: HashSet<&str> = HashSet::new();
    for e in doc.root_element().descendants().filter_map(ElementRef::wrap) {
        if let Some(id) = e.value().id() {
            *id_counts.entry(id).or_default() += 1;
        }
        if e.value().name() == "label"
            && let Some(f) = attr(&e, "for")
        {
            label_for.insert(f);
        }
    }
    let unique: HashSet<&str> = id_counts.iter().filter(|(_, n)| **n == 1).map(|(id, _)| *id).collect();
    let fail = |out: &mut Outcome, rule: &'static str, e: &ElementRef, detail: String| {
        *out.failed.entry(rule).or_default() += 1;
        if out.findings.len() < MAX_FINDINGS {
            out.findings.push(Finding { rule, selector: css_path(e, &unique), html: start_tag(e), detail });
        }
    };
    let applies = |out: &mut Outcome, rule: &'static str| *out.applicable.entry(rule).or_default() += 1;

    let root = doc.root_element();
    applies(&mut out, "html-has-lang");
    match attr(&root, "lang").map(str::trim) {
        None | Some("") => fail(&mut out, "html-has-lang", &root, "the <html> element has no lang attribute".into()),
        Some(lang) => {
            applies(&mut out, "html-lang-valid");
            if !lang_tag_ok(lang) {
                fail(&mut out, "html-lang-valid", &root, format!("lang={lang:?} is not a BCP 47 language tag"));
            }
        }
    }
    applies(&mut out, "document-title");
    let title = doc.root_element().descendants().filter_map(ElementRef::wrap).find(|e| e.value().name() == "title");
    if !title.is_some_and(|t| t.text().any(|s| !s.trim().is_empty())) {
        fail(&mut out, "document-title", &root, "the document has no non-empty <title>".into());
    }

    let mut seen_duplicate: HashSet<&str> = HashSet::new();
    let mut last_heading: Option<u8> = None;
    // Depth first, in document order, knowing whether an ancestor hides the subtree from
    // assistive technology (aria-hidden="true" or hidden) or is a <label>.
    let mut stack: Vec<(ElementRef, bool, bool)> = vec![(root, false, false)];
    while let Some((e, hidden_above, in_label)) = stack.pop() {
        let name = e.value().name();
        let hidden =
            hidden_above || attr(&e, "aria-hidden").is_some_and(|v| v.trim() == "true") || attr(&e, "hidden").is_some();
        let in_label_here = in_label || name == "label";
        let children: Vec<ElementRef> = e.children().filter_map(ElementRef::wrap).collect();
        for c in children.into_iter().rev() {
            stack.push((c, hidden, in_label_here));
        }
        if let Some(id) = e.value().id() {
            applies(&mut out, "duplicate-id");
            if id_counts.get(id).is_some_and(|n| *n > 1) && seen_duplicate.insert(id) {
                fail(&mut out, "duplicate-id", &e, format!("the id {id:?} is used {} times", id_counts[id]));
            }
        }
        if let Some(t) = attr(&e, "tabindex") {
            applies(&mut out, "tabindex");
            if t.trim().parse::<i64>().is_ok_and(|n| n > 0) {
                fail(
                    &mut out,
                    "tabindex",
                    &e,
                    format!("tabindex={} takes the element out of the page's focus order", t.trim()),
                );
            }
        }
        if let Some(role) = attr(&e, "role") {
            applies(&mut out, "aria-roles");
            let bad: Vec<&str> =
                role.split_ascii_whitespace().filter(|r| !ROLES.contains(&r.to_ascii_lowercase().as_str())).collect();
            if !bad.is_empty() || role.trim().is_empty() {
                fail(&mut out, "aria-roles", &e, format!("role={role:?} is not a WAI-ARIA role"));
            }
        }
        let aria: Vec<&str> = e.value().attrs().map(|(k, _)| k).filter(|k| k.starts_with("aria-")).collect();
        if !aria.is_empty() {
            applies(&mut out, "aria-valid-attr");
            let bad: Vec<&str> = aria.into_iter().filter(|a| !ARIA_ATTRIBUTES.contains(a)).collect();
            if !bad.is_empty() {
                fail(
                    &mut out,
                    "aria-valid-attr",
                    &e,
                    format!("{} not a WAI-ARIA attribute", bad.join(", ") + if bad.len() > 1 { " are" } else { " is" }),
                );
            }
        }
        if let Some(finding) = contrast_issue(&e) {
            applies(&mut out, "color-contrast");
            if let Some(detail) = finding {
                fail(&mut out, "color-contrast", &e, detail);
            }
        }
        if let Some(level) = name.strip_prefix('h').and_then(|l| l.parse::<u8>().ok()).filter(|l| (1..=6).contains(l)) {
            applies(&mut out, "heading-order");
            if let Some(prev) = last_heading.filter(|p| level > p + 1) {
                fail(&mut out, "heading-order", &e, format!("an h{level} follows an h{prev}"));
            }
            last_heading = Some(level);
        }
        if hidden {
            continue;
        }
        let presentational = attr(&e, "role").is_some_and(|r| matches!(r.trim(), "presentation" | "none"));
        match name {
            "img" if !presentational => {
                applies(&mut out, "image-alt");
                if attr(&e, "alt").is_none()
                    && !non_empty(attr(&e, "aria-label"))
                    && !non_empty(attr(&e, "aria-labelledby"))
                    && !non_empty(attr(&e, "title"))
                {
                    fail(&mut out, "image-alt", &e, "the image has no alt attribute".into());
                }
            }
            "input" | "select" | "textarea" => {
                let kind = attr(&e, "type").unwrap_or("text").to_ascii_lowercase();
                if name == "input" && matches!(kind.as_str(), "hidden" | "submit" | "reset" | "button" | "image") {
                    if kind == "button" {
                        applies(&mut out, "input-button-name");
                        if !non_empty(attr(&e, "value"))
                            && !non_empty(attr(&e, "aria-label"))
                            && !non_empty(attr(&e, "title"))
                        {
                            fail(&mut out, "input-button-name", &e, "the button has no value or label".into());
                        }
                    }
                    continue;
                }
                let rule = if name == "select" { "select-name" } else { "label" };
                applies(&mut out, rule);
                let labelled = in_label
                    || e.value().id().is_some_and(|id| label_for.contains(id))
                    || non_empty(attr(&e, "aria-label"))
                    || non_empty(attr(&e, "aria-labelledby"))
                    || non_empty(attr(&e, "title"));
                if !labelled {
                    fail(&mut out, rule, &e, format!("the {name} has no label"));
                }
            }
            "a" if attr(&e, "href").is_some() => {
                applies(&mut out, "link-name");
                if !has_name(&e) {
                    fail(&mut out, "link-name", &e, "the link has no text, alt text or label".into());
                }
            }
            "button" => {
                applies(&mut out, "button-name");
                if !has_name(&e) {
                    fail(&mut out, "button-name", &e, "the button has no text or label".into());
                }
            }
            "table" if !presentational => {
                // As axe-core judges it: a data table (`is_data_table`) of at least 3 rows and 3
                // columns needs header cells.
                let (rows, columns) = table_size(&e);
                if rows >= 3 && columns >= 3 && is_data_table(&e, rows, columns) {
                    applies(&mut out, "td-has-header");
                    let headed = e.descendants().filter_map(ElementRef::wrap).any(|d| {
                        d.value().name() == "th" || (d.value().name() == "td" && attr(&d, "headers").is_some())
                    });
                    if !headed {
                        fail(
                            &mut out,
                            "td-has-header",
                            &e,
                            format!("a data table of {rows} rows and {columns} columns has no header cells"),
                        );
                    }
                }
            }
            _ => {}
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A page of many failing elements is counted in full and described in part.
    #[test]
    fn failures_past_the_listed_ones_are_counted() {
        let html = format!("<html lang=en><title>t</title>{}</html>", "<a href=x></a>".repeat(50_000));
        let out = check(&Html::parse_document(&html));
        assert_eq!(out.failed["link-name"], 50_000);
        assert_eq!(out.applicable["link-name"], 50_000);
        assert_eq!(out.findings.len(), MAX_FINDINGS);
        assert_eq!(out.findings[0].selector, "html > body > a:nth-of-type(1)");
    }

    #[test]
    fn language_tags_are_shaped_like_bcp_47() {
        for ok in ["en", "en-GB", "zh-Hant-TW", "sgn-BE-FR", "x-private", "es-419"] {
            assert!(lang_tag_ok(ok), "{ok}");
        }
        for bad in ["english", "e", "en_GB", "en--GB", "123", ""] {
            assert!(!lang_tag_ok(bad), "{bad}");
        }
    }
}
