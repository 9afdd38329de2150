//! The links of a whole page (its `href`s, or the subresources a browser would load with it)
//! and its JSON-LD blocks, read by html5ever's tokenizer alone: linear in the page's size
//! whatever its nesting, so a page's body can be scanned where building its tree could cost
//! time in proportion to the square of its depth.
//!
//! Without a tree builder the tokenizer does not know that `<script>` and `<style>` hold raw
//! text; the sink tells it, as the tree builder would, so markup inside scripts is not taken
//! for links.

use std::cell::{Cell, RefCell};

use html5ever::{
    tendril::StrTendril,
    tokenizer::{
        BufferQueue, CharacterTokens, EndTag, StartTag, TagToken, Token, TokenSink, TokenSinkResult, Tokenizer,
        TokenizerOpts, states::RawKind,
    },
};

/// The most `href`s kept from one page.
pub const MAX_LINKS: usize = 10_000;

/// The most subresources kept from one page.
pub const MAX_RESOURCES: usize = 1_000;

/// The most JSON-LD blocks kept from one page.
pub const MAX_LD_BLOCKS: usize = 20;

/// The longest JSON-LD block kept, in bytes; a longer one is dropped whole (cut JSON would not
/// parse anyway).
pub const MAX_LD_BYTES: usize = 256 * 1024;

#[derive(Default, PartialEq)]
enum Collect {
    /// The `href`s of `<a>` and `<area>`.
    #[default]
    Hrefs,
    /// Subresources.
    Resources,
    /// The text of `<script type="application/ld+json">` blocks.
    LinkedData,
}

#[derive(Default)]
struct Links {
    collect: Collect,
    hrefs: RefCell<Vec<String>>,
    found: RefCell<Vec<(&'static str, String)>>,
    blocks: RefCell<Vec<String>>,
    /// Inside a JSON-LD script whose text is being kept.
    in_block: Cell<bool>,
}

impl Links {
    fn attr<'t>(tag: &'t html5ever::tokenizer::Tag, name: &str) -> Option<&'t str> {
        tag.attrs.iter().find(|a| &*a.name.local == name).map(|a| a.value.trim())
    }

    /// What a browser loads for `tag`: (kind, URL as written).
    fn resource(tag: &html5ever::tokenizer::Tag) -> Option<(&'static str, &str)> {
        let src = || Self::attr(tag, "src").filter(|s| !s.is_empty());
        match &*tag.name {
            "img" => src().map(|s| ("image", s)),
            "script" => src().map(|s| ("script", s)),
            "iframe" | "frame" => src().map(|s| ("frame", s)),
            "video" | "audio" | "source" | "track" | "embed" => {
                src().map(|s| ("media", s)).or_else(|| Self::attr(tag, "poster").map(|p| ("image", p)))
            }
            "input" if Self::attr(tag, "type").is_some_and(|t| t.eq_ignore_ascii_case("image")) => {
                src().map(|s| ("image", s))
            }
            "link" => {
                let rel = Self::attr(tag, "rel")?.to_ascii_lowercase();
                let href = Self::attr(tag, "href").filter(|h| !h.is_empty())?;
                let words: Vec<&str> = rel.split_ascii_whitespace().collect();
                let kind = if words.contains(&"stylesheet") {
                    "stylesheet"
                } else if words.iter().any(|w| matches!(*w, "icon" | "shortcut")) {
                    "icon"
                } else if words.iter().any(|w| matches!(*w, "preload" | "modulepreload")) {
                    "preload"
                } else {
                    return None;
                };
                Some((kind, href))
            }
            _ => None,
        }
    }
}

impl TokenSink for Links {
    type Handle = ();

    fn process_token(&self, token: Token, _line: u64) -> TokenSinkResult<()> {
        let tag = match token {
            TagToken(tag) => tag,
            CharacterTokens(text) if self.in_block.get() => {
                let mut blocks = self.blocks.borrow_mut();
                if let Some(block) = blocks.last_mut() {
                    if block.len() + text.len() > MAX_LD_BYTES {
                        blocks.pop();
                        self.in_block.set(false);
                    } else {
                        block.push_str(&text);
                    }
                }
                return TokenSinkResult::Continue;
            }
            _ => return TokenSinkResult::Continue,
        };
        if tag.kind == EndTag {
            if &*tag.name == "script" {
                self.in_block.set(false);
            }
            return TokenSinkResult::Continue;
        }
        if tag.kind != StartTag {
            return TokenSinkResult::Continue;
        }
        if self.collect == Collect::LinkedData
            && &*tag.name == "script"
            && Self::attr(&tag, "type").is_some_and(|t| t.eq_ignore_ascii_case("application/ld+json"))
        {
            let mut blocks = self.blocks.borrow_mut();
            if blocks.len() < MAX_LD_BLOCKS {
                blocks.push(String::new());
                self.in_block.set(true);
            }
        }
        if self.collect == Collect::Resources {
            let mut found = self.found.borrow_mut();
            if let Some((kind, url)) = Self::resource(&tag).filter(|_| found.len() < MAX_RESOURCES) {
                found.push((kind, url.to_string()));
            }
        }
        match &*tag.name {
            "a" | "area" if self.collect == Collect::Hrefs => {
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
pub fn hrefs(html: &str) -> Vec<String> {
    tokenize(html, Links::default()).hrefs.take()
}

/// The subresources a browser loads with `html` (images, scripts, frames, media, stylesheets,
/// icons, preloads): (kind, URL as written), in page order, at most [`MAX_RESOURCES`]. What
/// stylesheets and scripts load in turn is not known without running them.
pub fn resources(html: &str) -> Vec<(&'static str, String)> {
    tokenize(html, Links { collect: Collect::Resources, ..Links::default() }).found.take()
}

/// The text of every `<script type="application/ld+json">` in `html`, in page order: at most
/// [`MAX_LD_BLOCKS`], each at most [`MAX_LD_BYTES`] (a longer one is left out).
pub fn linked_data(html: &str) -> Vec<String> {
    tokenize(html, Links { collect: Collect::LinkedData, ..Links::default() }).blocks.take()
}

fn tokenize(html: &str, sink: Links) -> Links {
    let tokenizer = Tokenizer::new(sink, TokenizerOpts::default());
    let input = BufferQueue::default();
    input.push_back(StrTendril::from_slice(html));
    let _ = tokenizer.feed(&input);
    tokenizer.end();
    tokenizer.sink
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

    #[test]
    fn subresources_are_what_a_browser_loads() {
        let html = "<link rel=stylesheet href=/s.css><link rel='shortcut icon' href=/f.ico><link rel=canonical href=/c>\
                    <script src=/a.js></script><script>var x = '<img src=/no.png>';</script><img src=/i.png>\
                    <img alt=none><video poster=/p.jpg></video><source src=/v.mp4><input type=image src=/b.png>\
                    <a href=/page>x</a><iframe src=/frame.html></iframe>";
        let found = resources(html);
        let got: Vec<(&str, &str)> = found.iter().map(|(k, u)| (*k, u.as_str())).collect();
        assert_eq!(
            got,
            [
                ("stylesheet", "/s.css"),
                ("icon", "/f.ico"),
                ("script", "/a.js"),
                ("image", "/i.png"),
                ("image", "/p.jpg"),
                ("media", "/v.mp4"),
                ("image", "/b.png"),
                ("frame", "/frame.html"),
            ]
        );
        assert_eq!(resources(&"<img src=x>".repeat(MAX_RESOURCES + 5)).len(), MAX_RESOURCES);
    }

    #[test]
    fn json_ld_blocks_are_kept_as_written_and_bounded() {
        let html = format!(
            "<script type='Application/LD+JSON'> {{\"a\": \"<b>x</b>\"}} </script><script>var no = 1;</script>\
             <body>{}<script type=application/ld+json>[1]</script><script type=application/ld+json>{}</script>",
            "<div>".repeat(100_000),
            "x".repeat(MAX_LD_BYTES + 1)
        );
        assert_eq!(linked_data(&html), [" {\"a\": \"<b>x</b>\"} ", "[1]"]);
        let many = "<script type=application/ld+json>{}</script>".repeat(MAX_LD_BLOCKS + 3);
        assert_eq!(linked_data(&many).len(), MAX_LD_BLOCKS);
    }
}
