//! The links of a whole page, read by html5ever's tokenizer alone: linear in the page's size
//! whatever its nesting, so a page's body can be scanned where building its tree could cost
//! time in proportion to the square of its depth.
//!
//! Without a tree builder the tokenizer does not know that `<script>` and `<style>` hold raw
//! text; the sink tells it, as the tree builder would, so markup inside scripts is not taken
//! for links.

use std::cell::RefCell;

use html5ever::{
    tendril::StrTendril,
    tokenizer::{
        BufferQueue, StartTag, TagToken, Token, TokenSink, TokenSinkResult, Tokenizer, TokenizerOpts, states::RawKind,
    },
};

/// The most `href`s kept from one page.
pub(crate) const MAX_LINKS: usize = 10_000;

#[derive(Default)]
struct Links {
    hrefs: RefCell<Vec<String>>,
}

impl TokenSink for Links {
    type Handle = ();

    fn process_token(&self, token: Token, _line: u64) -> TokenSinkResult<()> {
        let TagToken(tag) = token else { return TokenSinkResult::Continue };
        if tag.kind != StartTag {
            return TokenSinkResult::Continue;
        }
        match &*tag.name {
            "a" | "area" => {
                let mut hrefs = self.hrefs.borrow_mut();
                let href = tag.attrs.iter().find(|a| &*a.name.local == "href");
                if let Some(href) = href.filter(|_| hrefs.len() < MAX_LINKS) {
                    hrefs.push(href.value.trim().to_string());
                }
                TokenSinkResult::Continue
            }
            "script" => TokenSinkResult::RawData(RawKind::ScriptData),
            "style" | "xmp" | "iframe" | "noembed" | "noframes" => TokenSinkResult::RawData(RawKind::Rawtext),
            "textarea" | "title" => TokenSinkResult::RawData(RawKind::Rcdata),
            "plaintext" => TokenSinkResult::Plaintext,
            _ => TokenSinkResult::Continue,
        }
    }
}

/// The `href` of every `<a>` and `<area>` in `html`, in page order, as written (at most
/// [`MAX_LINKS`]).
pub(crate) fn hrefs(html: &str) -> Vec<String> {
    let tokenizer = Tokenizer::new(Links::default(), TokenizerOpts::default());
    let input = BufferQueue::default();
    input.push_back(StrTendril::from_slice(html));
    let _ = tokenizer.feed(&input);
    tokenizer.end();
    tokenizer.sink.hrefs.take()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn links_are_read_outside_scripts_whatever_the_nesting() {
        let html = format!(
            "<p><a href=' /one '>1</a><script>var s = '<a href=\"/in-script\">';</script>\
             <style>a[href='/in-style']{{}}</style><textarea><a href=/in-textarea></textarea>\
             {}<AREA HREF=/two>{}<a name=x>no href</a><a href=mailto:a@b.example>",
            "<div>".repeat(200_000),
            "</div>".repeat(200_000)
        );
        let started = std::time::Instant::now();
        assert_eq!(hrefs(&html), ["/one", "/two", "mailto:a@b.example"]);
        assert!(started.elapsed() < std::time::Duration::from_secs(10), "{:?}", started.elapsed());
        assert_eq!(hrefs(&"<a href=x>".repeat(MAX_LINKS + 5)).len(), MAX_LINKS);
    }
}
