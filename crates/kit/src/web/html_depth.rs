//! How deeply markup nests, measured before any parser sees it.
//!
//! HTML parsers spend time proportional to the depth of the open-element stack for each tag,
//! so unbounded nesting is a cheap way to burn CPU. Every reader of HTML (html/to-text, the
//! Markdown renderer, the page reader behind the lookups) checks the depth first with this
//! linear scan of start and end tags.

use wrench_infra::envelope::ApiError;

/// Deepest element nesting accepted: the limit shared by every document reader. HTML parsers
/// spend time proportional to the depth of the open-element stack for each tag, so unbounded
/// nesting is a cheap way to burn CPU.
pub const MAX_DEPTH: usize = wrench_infra::bounds::MAX_NESTING;

/// Elements that never nest (void) or whose end tag is usually implied: they do not count.
const FLAT: &[&str] = &[
    "area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr", "p", "li",
    "dt", "dd", "option", "optgroup", "tr", "td", "th", "thead", "tbody", "tfoot", "colgroup", "rb", "rt", "rp",
];

/// Refuses markup nested deeper than [`MAX_DEPTH`], estimated from start and end tags before
/// any parsing (a linear scan).
pub fn check_depth(field: &str, html: &str) -> Result<(), ApiError> {
    let bytes = html.as_bytes();
    let mut depth: usize = 0;
    let mut i = 0;
    while let Some(off) = memchr_lt(&bytes[i..]) {
        i += off + 1;
        let closing = bytes.get(i) == Some(&b'/');
        let start = if closing { i + 1 } else { i };
        let len = bytes[start..].iter().take_while(|b| b.is_ascii_alphanumeric()).count();
        if len == 0 || !bytes[start].is_ascii_alphabetic() {
            continue;
        }
        let name = html[start..start + len].to_ascii_lowercase();
        if FLAT.contains(&name.as_str()) {
            continue;
        }
        let self_closing = bytes[start + len..]
            .iter()
            .position(|b| *b == b'>')
            .is_some_and(|p| p > 0 && bytes[start + len + p - 1] == b'/');
        if closing {
            depth = depth.saturating_sub(1);
        } else if !self_closing {
            depth += 1;
            if depth > MAX_DEPTH {
                return Err(wrench_infra::bounds::too_deep(field));
            }
        }
    }
    Ok(())
}

fn memchr_lt(b: &[u8]) -> Option<usize> {
    b.iter().position(|c| *c == b'<')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nesting_is_bounded_before_parsing() {
        let deep = "<div>".repeat(MAX_DEPTH + 1) + "deep";
        assert!(check_depth("html", &deep).is_err());
        let ok = "<div>".repeat(MAX_DEPTH) + "deep";
        assert!(check_depth("html", &ok).is_ok());
        // Flat siblings and implied end tags do not add up.
        let list = "<ul>".to_string() + &"<li>x".repeat(10_000) + "</ul>" + &"<span>a</span>".repeat(10_000);
        assert!(check_depth("html", &list).is_ok());
        assert!(check_depth("html", &"<br/><x/>".repeat(10_000)).is_ok());
    }
}
