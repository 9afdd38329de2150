//! Markdown to HTML (CommonMark, GitHub-flavoured by default) and to plain text.
//!
//! Rendering is comrak's; sanitizing is ammonia's allow-list cleaner, never a blocklist of
//! our own. The plain-text walk is iterative, so deeply nested input cannot exhaust the stack.
//! Documents whose blocks and inlines nest deeper than the shared limit (128) are refused once
//! parsed, before anything is rendered, and HTML is rendered into a writer that stops at the
//! response limit. comrak itself bounds the two known amplifiers of Markdown: reference links
//! expand to at most 100,000 bytes in all, and GFM tables pad at most 500,000 missing cells.

use comrak::{
    Arena, Options,
    nodes::{AstNode, NodeValue},
};

use wrench_contract::prelude::*;

fn options(gfm: bool) -> Options<'static> {
    let mut o = Options::default();
    if gfm {
        o.extension.strikethrough = true;
        o.extension.table = true;
        o.extension.autolink = true;
        o.extension.tasklist = true;
        o.extension.footnotes = true;
    }
    // Raw HTML is passed through (CommonMark behaviour); `sanitize` is the safety switch.
    o.render.r#unsafe = true;
    o
}

/// Parses `md` and refuses a tree deeper than [`wrench_infra::bounds::MAX_NESTING`] (the document
/// node itself not counted).
fn parse<'a>(arena: &'a Arena<'a>, md: &str, options: &Options) -> Result<&'a AstNode<'a>, ApiError> {
    let root = comrak::parse_document(arena, md, options);
    let mut stack = vec![(root, 0usize)];
    while let Some((node, depth)) = stack.pop() {
        if depth > wrench_infra::bounds::MAX_NESTING {
            return Err(wrench_infra::bounds::too_deep("markdown"));
        }
        stack.extend(node.children().map(|c| (c, depth + 1)));
    }
    Ok(root)
}

/// The cleaner used for `sanitize: true`: ammonia's defaults (no scripts, event handlers,
/// iframes, objects, embeds, styles or `javascript:` URLs) plus what GFM itself emits.
fn sanitizer() -> ammonia::Builder<'static> {
    let mut b = ammonia::Builder::default();
    b.add_tags(["input"])
        .add_tag_attributes("input", ["type", "checked", "disabled"])
        .add_tag_attributes("code", ["class"])
        .add_tag_attributes("th", ["align"])
        .add_tag_attributes("td", ["align"]);
    b
}

#[derive(Debug, Deserialize, JsonSchema, Validate)]
#[serde(deny_unknown_fields)]
struct MarkdownToHtmlInput {
    /// Markdown text.
    markdown: String,
    /// GitHub-flavoured extensions: tables, strikethrough, autolinks, task lists and
    /// footnotes. Plain CommonMark when false.
    #[serde(default = "wrench_contract::decode::yes")]
    gfm: bool,
    /// Clean the HTML with an allow-list: removes scripts, event handlers, iframes, objects,
    /// embeds, styles and `javascript:` links.
    #[serde(default)]
    sanitize: bool,
}

#[derive(Debug, Serialize, JsonSchema)]
struct MarkdownToHtmlOutput {
    /// The rendered HTML fragment.
    html: String,
}

/// Render Markdown to HTML.
///
/// CommonMark with GitHub's extensions by default (tables, strikethrough, autolinks, task
/// lists, footnotes). Raw HTML in the Markdown is passed through as CommonMark specifies, so
/// the output of untrusted input is only safe to embed with `sanitize: true`, which runs an
/// allow-list cleaner over the result (no scripts, event handlers, iframes, objects, embeds,
/// styles or `javascript:` links).
#[op(post "/v1/markdown/to-html" as markdownToHtml, tag = TextAndData, pipe(markdown -> html),
     rejects = "Markdown nested deeper than 128 levels, or with `sanitize` HTML nested deeper than 128 elements",
     example(typical, {"markdown": "# Title\n\nSome *emphasis*, a [link](https://example.com) and ~~old~~ text.\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n- [x] done\n- [ ] todo"}),
     example(sanitized, {"markdown": "Hi <img src=x onerror=alert(1)> <script>alert(2)</script>\n\n[click](javascript:alert(3))", "sanitize": true}),
     example(commonmark_only, {"markdown": "~~not struck~~ and www.example.com", "gfm": false}),
     example(too_deep, {"markdown": ">>>>>>>>>>>>>>>>>>>>>>>>>>>>>>>>>>>>>>>>>>>>>>>>>>>>>>>>>>>>>>>>>>>>>>>>>>>>>>>>>>>>>>>>>>>>>>>>>>>>>>>>>>>>>>>>>>>>>>>>>>>>>>>>>>>> deep"}, status = 400),
     cpu)]
async fn markdown_to_html(ctx: &Ctx, input: MarkdownToHtmlInput) -> Result<MarkdownToHtmlOutput, ApiError> {
    let arena = Arena::new();
    let opts = options(input.gfm);
    let root = parse(&arena, &input.markdown, &opts)?;
    let mut out = wrench_infra::bounds::CappedText::new(ctx.config.response_limit);
    let rendered = comrak::format_html(root, &opts, &mut out);
    let html = out.finish()?;
    rendered.map_err(|_| ApiError::internal("rendering the Markdown failed"))?;
    // The cleaner parses the HTML, raw HTML blocks included, whose nesting the Markdown tree
    // does not see: bound it first, as html-sanitize does. The cleaner only removes; its
    // output is never larger than what it was given.
    let html = if input.sanitize {
        wrench_kit::web::html_depth::check_depth("markdown", &html)?;
        sanitizer().clean(&html).to_string()
    } else {
        html
    };
    Ok(MarkdownToHtmlOutput { html })
}

#[derive(Debug, Deserialize, JsonSchema, Validate)]
#[serde(deny_unknown_fields)]
struct MarkdownToTextInput {
    /// Markdown text.
    markdown: String,
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct MarkdownToTextOutput {
    /// The text without Markdown syntax.
    text: String,
    /// Words in the text (Unicode word boundaries).
    word_count: usize,
}

/// Blocks end with a blank line; list items and table rows with a single line break.
fn break_lines(out: &mut String, n: usize) {
    while out.ends_with(' ') {
        out.pop();
    }
    if out.is_empty() {
        return;
    }
    let have = out.chars().rev().take_while(|c| *c == '\n').count();
    for _ in have..n {
        out.push('\n');
    }
}

/// Plain text of a Markdown document.
fn markdown_text(md: &str) -> Result<String, ApiError> {
    let arena = Arena::new();
    let root = parse(&arena, md, &options(true))?;
    let mut out = String::new();
    // Iterative depth-first walk: (node, children already visited).
    let mut stack = vec![(root, false)];
    while let Some((node, done)) = stack.pop() {
        let value = node.data().value.clone();
        if done {
            let in_item =
                node.parent().is_some_and(|p| matches!(p.data().value, NodeValue::Item(_) | NodeValue::TaskItem(_)));
            match value {
                // A paragraph inside a list item ends the item's line, not a block.
                NodeValue::Paragraph if in_item => break_lines(&mut out, 1),
                NodeValue::Paragraph
                | NodeValue::Heading(_)
                | NodeValue::CodeBlock(_)
                | NodeValue::BlockQuote
                | NodeValue::List(_)
                | NodeValue::Table(_)
                | NodeValue::HtmlBlock(_)
                | NodeValue::ThematicBreak => break_lines(&mut out, 2),
                NodeValue::Item(_) | NodeValue::TableRow(_) | NodeValue::TaskItem(_) => break_lines(&mut out, 1),
                NodeValue::TableCell => out.push('\t'),
                _ => {}
            }
            continue;
        }
        match &value {
            NodeValue::Text(t) => out.push_str(t),
            NodeValue::Code(c) => out.push_str(&c.literal),
            NodeValue::CodeBlock(c) => out.push_str(c.literal.trim_end_matches('\n')),
            NodeValue::SoftBreak => out.push(' '),
            NodeValue::LineBreak => out.push('\n'),
            NodeValue::Item(_) | NodeValue::TaskItem(_) => {
                break_lines(&mut out, 1);
                out.push_str("- ");
            }
            NodeValue::TableRow(_) => break_lines(&mut out, 1),
            // Raw HTML and front matter are not text.
            NodeValue::HtmlInline(_) | NodeValue::HtmlBlock(_) | NodeValue::FrontMatter(_) => {}
            _ => {}
        }
        stack.push((node, true));
        let children: Vec<_> = node.children().collect();
        for child in children.into_iter().rev() {
            stack.push((child, false));
        }
    }
    let lines: Vec<&str> = out.lines().map(|l| l.trim_end_matches(['\t', ' '])).collect();
    Ok(lines.join("\n").trim().to_string())
}

/// Convert Markdown to plain text.
///
/// Removes the syntax and keeps the words: headings, paragraphs and code as text separated by
/// blank lines, list items as `- item` lines, links and images as their text, table cells
/// separated by tabs. Raw HTML is dropped.
#[op(post "/v1/markdown/to-text" as markdownToText, tag = TextAndData, pipe(markdown -> text),
     example(typical, {"markdown": "# Release notes\n\nThe **fast** path is [documented](https://example.com).\n\n- one\n- two\n\n```\ncode stays\n```"}),
     example(html_and_table, {"markdown": "<div>raw html</div>\n\n| a | b |\n|---|---|\n| 1 | 2 |"}),
     rejects = "Markdown nested deeper than 128 levels",
     cpu)]
async fn markdown_to_text(input: MarkdownToTextInput) -> Result<MarkdownToTextOutput, ApiError> {
    use unicode_segmentation::UnicodeSegmentation;
    let text = markdown_text(&input.markdown)?;
    Ok(MarkdownToTextOutput { word_count: text.unicode_words().count(), text })
}

#[cfg(test)]
mod tests {
    use super::*;

    async fn render(markdown: &str, gfm: bool, sanitize: bool) -> Result<String, ApiError> {
        let input = MarkdownToHtmlInput { markdown: markdown.into(), gfm, sanitize };
        Ok(markdown_to_html(&Ctx::for_tests(), input).await?.html)
    }

    #[tokio::test]
    async fn gfm_features_render() {
        let md = "| a |\n|---|\n| 1 |\n\n~~x~~ https://example.com\n\n- [x] done";
        let html = render(md, true, false).await.unwrap();
        for needle in ["<table>", "<del>x</del>", "<a href=\"https://example.com\">", "type=\"checkbox\""] {
            assert!(html.contains(needle), "{needle} missing in {html}");
        }
        let plain = render(md, false, false).await.unwrap();
        assert!(!plain.contains("<table>") && !plain.contains("<del>"));
    }

    #[tokio::test]
    async fn sanitize_strips_active_content() {
        let md = "<script>alert(1)</script><iframe src=x></iframe><object data=x></object><embed src=x>\
                  <a href=\"javascript:alert(1)\" onclick=\"x()\">a</a><img src=y onerror=\"z()\">\n\n- [x] kept";
        let html = render(md, true, true).await.unwrap();
        let lower = html.to_lowercase();
        for bad in ["<script", "<iframe", "<object", "<embed", "onclick", "onerror", "javascript:"] {
            assert!(!lower.contains(bad), "{bad} survived: {html}");
        }
        assert!(html.contains("checkbox"), "{html}");
    }

    #[tokio::test]
    async fn deep_nesting_renders_without_overflowing_the_stack() {
        // The request body limit bounds nesting at about half a million levels; these are far
        // past anything legitimate and must still render (or be refused), never abort.
        for md in [
            ">".repeat(100_000) + " deep",
            "- ".repeat(50_000) + "deep",
            "*".repeat(50_000) + "x" + &"*".repeat(50_000),
        ] {
            for sanitize in [false, true] {
                let r = render(&md, true, sanitize).await;
                assert!(r.is_ok() || r.unwrap_err().code == ErrorCode::ValidationError);
            }
        }
    }

    #[test]
    fn nesting_is_refused_past_the_shared_limit() {
        // 127 block quotes hold a paragraph holding text: 129 levels below the document.
        let limit = wrench_infra::bounds::MAX_NESTING;
        assert_eq!(markdown_text(&(">".repeat(limit - 2) + " deep")).unwrap(), "deep");
        let e = markdown_text(&(">".repeat(limit - 1) + " deep")).unwrap_err();
        assert_eq!(e.field.as_deref(), Some("markdown"));
        let e = markdown_text(&(">".repeat(50_000) + " deep")).unwrap_err();
        assert!(e.message.contains("nested deeper than 128"), "{}", e.message);
    }
}
