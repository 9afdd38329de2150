//! Open Graph images: a title and description laid out on one of three templates, as SVG or
//! PNG. Text is measured with the embedded DejaVu fonts' own advance widths, wrapped on word
//! boundaries (long words are broken) and ellipsised to the lines each template allows.

use std::sync::LazyLock;

use wrench_contract::{op::Image, prelude::*};
use wrench_kit::render::{self, FONT_FAMILY, Rgb, SvgOrPng, xml_escape};

/// Builds the embedded table now (the warm-up and `wrench tables` call it).
pub(crate) fn warm() {
    let _ = (&*REGULAR, &*BOLD);
}

static REGULAR: LazyLock<ttf_parser::Face<'static>> =
    LazyLock::new(|| ttf_parser::Face::parse(render::font_files().0, 0).expect("the embedded font parses"));
static BOLD: LazyLock<ttf_parser::Face<'static>> =
    LazyLock::new(|| ttf_parser::Face::parse(render::font_files().1, 0).expect("the embedded font parses"));

fn face(bold: bool) -> &'static ttf_parser::Face<'static> {
    if bold { &BOLD } else { &REGULAR }
}

/// Advance width of `c` in font units (characters the font lacks take its missing-glyph box).
fn advance(c: char, bold: bool) -> f64 {
    let face = face(bold);
    let id = face.glyph_index(c).unwrap_or(ttf_parser::GlyphId(0));
    face.glyph_hor_advance(id).unwrap_or(0) as f64
}

/// Font units to pixels at `size` px.
fn px(units: f64, size: f64, bold: bool) -> f64 {
    units * size / face(bold).units_per_em() as f64
}

/// Width of `text` at `size` px in the regular or bold face.
fn measure(text: &str, size: f64, bold: bool) -> f64 {
    px(text.chars().map(|c| advance(c, bold)).sum(), size, bold)
}

/// Greedy word wrap into at most `max_lines` lines of at most `width` px; the last line ends
/// with an ellipsis when text is left over.
fn wrap(text: &str, size: f64, bold: bool, width: f64, max_lines: usize) -> Vec<String> {
    let mut lines: Vec<String> = Vec::new();
    let mut current = String::new();
    let mut overflow = false;
    let words: Vec<&str> = text.split_whitespace().collect();
    'words: for word in words {
        let mut word = word.to_string();
        loop {
            let candidate = if current.is_empty() { word.clone() } else { format!("{current} {word}") };
            if measure(&candidate, size, bold) <= width {
                current = candidate;
                continue 'words;
            }
            if !current.is_empty() {
                lines.push(std::mem::take(&mut current));
                if lines.len() == max_lines {
                    overflow = true;
                    break 'words;
                }
                continue;
            }
            // A single word wider than the line: break it.
            let (mut head, mut units) = (String::new(), 0.0);
            for c in word.chars() {
                let next = units + advance(c, bold);
                if px(next, size, bold) > width && !head.is_empty() {
                    break;
                }
                units = next;
                head.push(c);
            }
            let rest = word[head.len()..].to_string();
            lines.push(head);
            if lines.len() == max_lines {
                overflow = !rest.is_empty();
                break 'words;
            }
            if rest.is_empty() {
                continue 'words;
            }
            word = rest;
        }
    }
    if !current.is_empty() {
        if lines.len() < max_lines {
            lines.push(current);
        } else {
            overflow = true;
        }
    }
    if overflow && let Some(last) = lines.last_mut() {
        let ellipsis = advance('…', bold);
        let mut units: f64 = last.chars().map(|c| advance(c, bold)).sum();
        while px(units + ellipsis, size, bold) > width
            && let Some(c) = last.pop()
        {
            units -= advance(c, bold);
        }
        *last = format!("{}…", last.trim_end());
    }
    lines
}

#[derive(Debug, Deserialize, Serialize, JsonSchema, Validate, Clone, Copy, PartialEq, Eq, Default)]
#[serde(rename_all = "lowercase")]
enum Template {
    /// Title and description left-aligned, accent bar along the bottom.
    #[default]
    Default,
    /// Centred title and description, a short accent rule between.
    Minimal,
    /// A large bold title beside a wide accent stripe.
    Bold,
}

#[derive(Debug, Deserialize, Serialize, JsonSchema, Validate, Clone, Copy, PartialEq, Eq, Default)]
#[serde(rename_all = "lowercase")]
enum Theme {
    #[default]
    Dark,
    Light,
}

#[derive(Debug, Deserialize, JsonSchema, Validate)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct OgInput {
    /// The title.
    #[schemars(length(min = 1, max = 300))]
    title: String,
    /// A line or two under the title.
    #[serde(default)]
    #[schemars(length(max = 1000))]
    description: Option<String>,
    /// default, minimal or bold.
    #[serde(default)]
    template: Template,
    /// dark or light: the default colours.
    #[serde(default)]
    theme: Theme,
    /// svg or png.
    #[serde(default)]
    format: SvgOrPng,
    /// Background colour (overrides the theme), `#rrggbb` or `#rgb`.
    #[serde(default)]
    #[schemars(length(max = 7), pattern("^#?(?:[0-9a-fA-F]{3}|[0-9a-fA-F]{6})$"))]
    bg_color: Option<String>,
    /// Text colour (overrides the theme).
    #[serde(default)]
    #[schemars(length(max = 7), pattern("^#?(?:[0-9a-fA-F]{3}|[0-9a-fA-F]{6})$"))]
    text_color: Option<String>,
    /// Accent colour (overrides the theme).
    #[serde(default)]
    #[schemars(length(max = 7), pattern("^#?(?:[0-9a-fA-F]{3}|[0-9a-fA-F]{6})$"))]
    accent_color: Option<String>,
    /// Width in pixels.
    #[serde(default = "twelve_hundred")]
    #[schemars(range(min = 200, max = 4096))]
    width: u32,
    /// Height in pixels.
    #[serde(default = "six_thirty")]
    #[schemars(range(min = 200, max = 4096))]
    height: u32,
}

fn twelve_hundred() -> u32 {
    1200
}

fn six_thirty() -> u32 {
    630
}

fn pick(field: &str, given: &Option<String>, theme: Rgb) -> Result<Rgb, ApiError> {
    given.as_deref().map_or(Ok(theme), |c| render::color(field, c))
}

/// How a block of text is set.
struct Style {
    size: f64,
    bold: bool,
    anchor: &'static str,
    fill: Rgb,
    opacity: f64,
}

fn text_block(lines: &[String], x: f64, y: f64, style: Style) -> String {
    let Style { size, bold, anchor, fill, opacity } = style;
    let mut out = String::new();
    for (i, line) in lines.iter().enumerate() {
        out.push_str(&format!(
            r#"<text x="{x:.1}" y="{:.1}" font-family="{FONT_FAMILY}" font-size="{size:.1}"{} text-anchor="{anchor}" fill="{}" fill-opacity="{opacity}">{}</text>"#,
            y + i as f64 * size * 1.25,
            if bold { r#" font-weight="bold""# } else { "" },
            fill.hex(),
            xml_escape(line)
        ));
    }
    out
}

fn draw(input: OgInput) -> Result<Image, ApiError> {
    let (w, h) = (input.width as f64, input.height as f64);
    let (bg0, fg0, accent0) = match input.theme {
        Theme::Dark => (Rgb(0x0f, 0x17, 0x2a), Rgb(0xf8, 0xfa, 0xfc), Rgb(0x38, 0xbd, 0xf8)),
        Theme::Light => (Rgb(0xff, 0xff, 0xff), Rgb(0x0f, 0x17, 0x2a), Rgb(0x25, 0x63, 0xeb)),
    };
    let bg = pick("bgColor", &input.bg_color, bg0)?;
    let fg = pick("textColor", &input.text_color, fg0)?;
    let accent = pick("accentColor", &input.accent_color, accent0)?;
    // Sizes are designed for 1200 x 630 and scale with the smaller ratio.
    let k = (w / 1200.0).min(h / 630.0);
    let pad = (w.min(h) * 0.08).max(16.0);
    let description = input.description.as_deref().unwrap_or("").trim();
    let mut body = format!(r#"<rect width="{w}" height="{h}" fill="{}"/>"#, bg.hex());
    match input.template {
        Template::Default => {
            let (ts, ds) = (64.0 * k, 30.0 * k);
            let avail = w - 2.0 * pad;
            let title = wrap(&input.title, ts, true, avail, 3);
            let desc = wrap(description, ds, false, avail, 3);
            let mut y = pad + ts;
            body.push_str(&text_block(
                &title,
                pad,
                y,
                Style { size: ts, bold: true, anchor: "start", fill: fg, opacity: 1.0 },
            ));
            y += title.len() as f64 * ts * 1.25 + ds * 0.6;
            body.push_str(&text_block(
                &desc,
                pad,
                y,
                Style { size: ds, bold: false, anchor: "start", fill: fg, opacity: 0.8 },
            ));
            body.push_str(&format!(
                r#"<rect x="0" y="{:.1}" width="{w}" height="{:.1}" fill="{}"/>"#,
                h - h * 0.025,
                h * 0.025,
                accent.hex()
            ));
        }
        Template::Minimal => {
            let (ts, ds) = (56.0 * k, 28.0 * k);
            let avail = w - 2.0 * pad;
            let title = wrap(&input.title, ts, true, avail, 2);
            let desc = wrap(description, ds, false, avail, 2);
            let block = title.len() as f64 * ts * 1.25
                + if desc.is_empty() { 0.0 } else { ts * 0.8 + desc.len() as f64 * ds * 1.25 };
            let mut y = (h - block) / 2.0 + ts;
            body.push_str(&text_block(
                &title,
                w / 2.0,
                y,
                Style { size: ts, bold: true, anchor: "middle", fill: fg, opacity: 1.0 },
            ));
            y += (title.len() as f64 - 1.0) * ts * 1.25 + ts * 0.5;
            if !desc.is_empty() {
                body.push_str(&format!(
                    r#"<rect x="{:.1}" y="{y:.1}" width="{:.1}" height="{:.1}" fill="{}"/>"#,
                    w / 2.0 - 40.0 * k,
                    80.0 * k,
                    (4.0 * k).max(1.0),
                    accent.hex()
                ));
                y += ts * 0.3 + ds * 1.2;
                body.push_str(&text_block(
                    &desc,
                    w / 2.0,
                    y,
                    Style { size: ds, bold: false, anchor: "middle", fill: fg, opacity: 0.8 },
                ));
            }
        }
        Template::Bold => {
            let stripe = w * 0.04;
            let (ts, ds) = (84.0 * k, 32.0 * k);
            let left = stripe + pad;
            let avail = w - left - pad;
            let title = wrap(&input.title, ts, true, avail, 3);
            let desc = wrap(description, ds, false, avail, 2);
            body.push_str(&format!(r#"<rect x="0" y="0" width="{stripe:.1}" height="{h}" fill="{}"/>"#, accent.hex()));
            let mut y = pad + ts;
            body.push_str(&text_block(
                &title,
                left,
                y,
                Style { size: ts, bold: true, anchor: "start", fill: fg, opacity: 1.0 },
            ));
            y += title.len() as f64 * ts * 1.25 + ds * 0.4;
            body.push_str(&text_block(
                &desc,
                left,
                y,
                Style { size: ds, bold: false, anchor: "start", fill: accent, opacity: 1.0 },
            ));
        }
    }
    let svg = format!(
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" viewBox="0 0 {w} {h}">{body}</svg>"#
    );
    render::image(svg, input.width, input.height, input.format)
}

/// Generate an Open Graph image.
///
/// A `width` x `height` card (200-4096 px, default 1200 x 630) with the title and an optional
/// description on one of three templates (default, minimal, bold) in a dark or light theme, any
/// colour overridable with hex. Text is measured with the embedded DejaVu Sans fonts, wrapped on
/// word boundaries and ellipsised when it would not fit (titles up to 3 lines, descriptions 2-3
/// by template). SVG by default; PNG is rendered in-process with the same fonts (Latin, Greek,
/// Cyrillic, Arabic, Hebrew and more; characters the fonts lack, such as CJK and emoji, show as
/// boxes), without touching files or the network. All text is escaped.
#[op(post "/v1/og/generate" as ogGenerate, tag = Images, output = image,
     example(default_svg, {"title": "wrench: developer utilities you can host", "description": "150 operations, one binary, no keys needed."}),
     example(bold_png_light, {"title": "Release 1.0", "template": "bold", "theme": "light", "format": "png", "width": 600, "height": 315}),
     example(bad_colour, {"title": "x", "bgColor": "navy"}, status = 400))]
async fn og_generate(input: OgInput) -> Result<Image, ApiError> {
    wrench_infra::cpu::run(move || draw(input)).await
}

#[cfg(test)]
mod tests {
    use super::*;
    use wrench_kit::render::decode_png;

    fn input(title: &str, template: Template, format: SvgOrPng) -> OgInput {
        OgInput {
            title: title.into(),
            description: Some("A description that is long enough to need a second line at the smaller sizes".into()),
            template,
            theme: Theme::Light,
            format,
            bg_color: None,
            text_color: None,
            accent_color: None,
            width: 1200,
            height: 630,
        }
    }

    #[test]
    fn wrapping_fits_the_width_and_ellipsises_the_rest() {
        let long = "word ".repeat(200);
        let lines = wrap(&long, 64.0, true, 1000.0, 3);
        assert_eq!(lines.len(), 3);
        assert!(lines[2].ends_with('…'));
        for l in &lines {
            assert!(measure(l, 64.0, true) <= 1000.0, "{l}");
        }
        let unbroken = wrap(&"x".repeat(500), 40.0, false, 300.0, 2);
        assert!(unbroken.len() == 2 && unbroken[1].ends_with('…'));
        assert_eq!(wrap("short", 40.0, false, 300.0, 2), ["short"]);
        assert!(wrap("", 40.0, false, 300.0, 2).is_empty());
    }

    #[test]
    fn every_template_renders_at_the_requested_size_inside_its_padding() {
        for template in [Template::Default, Template::Minimal, Template::Bold] {
            for (w, h) in [(1200, 630), (200, 200), (600, 1000)] {
                let mut i = input(&"Wrapping title ".repeat(20), template, SvgOrPng::Png);
                (i.width, i.height) = (w, h);
                i.accent_color = Some("#ffffff".into());
                let (pw, ph, px) = decode_png(&draw(i).unwrap().bytes);
                assert_eq!((pw, ph), (w, h));
                // Light theme, accent painted white: any dark pixel is text, and none may sit
                // in the right-hand padding.
                let pad = ((w.min(h) as f64) * 0.08).max(16.0) as u32;
                for y in 0..h {
                    for x in (w - pad + 2)..w {
                        let p = &px[((y * w + x) * 4) as usize..][..3];
                        assert!(p[0] > 200, "{template:?} {w}x{h}: text at ({x}, {y})");
                    }
                }
                let dark = px.chunks(4).filter(|p| p[0] < 100).count();
                assert!(dark > 100, "{template:?} {w}x{h}: the title drew {dark} dark pixels");
            }
        }
    }

    #[test]
    fn svg_escapes_text_and_parses_at_size() {
        let svg = draw(input("<script>alert('x')</script> & more", Template::Default, SvgOrPng::Svg)).unwrap();
        let s = String::from_utf8(svg.bytes).unwrap();
        assert!(!s.contains("<script>") && s.contains("&lt;script&gt;"));
        let tree = resvg::usvg::Tree::from_str(&s, &resvg::usvg::Options::default()).unwrap();
        assert_eq!((tree.size().width(), tree.size().height()), (1200.0, 630.0));
    }
}
