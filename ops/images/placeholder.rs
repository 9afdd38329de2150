//! Placeholder images: a coloured box with its dimensions (or any text) in the middle.

use wrench_contract::{op::Image, prelude::*};
use wrench_kit::render::{self, FONT_FAMILY, SvgOrPng, xml_escape};

#[derive(Debug, Deserialize, JsonSchema, Validate)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
#[schemars(transform = wrench_contract::validate::declare_aliases::<Self>)]
struct PlaceholderInput {
    /// Width in pixels.
    #[schemars(range(min = 1, max = 4096))]
    width: u32,
    /// Height in pixels; the width when absent.
    #[serde(default)]
    #[schemars(range(min = 1, max = 4096))]
    height: Option<u32>,
    /// Background colour, `#rrggbb` or `#rgb`.
    #[serde(default = "grey", rename = "bg_color", alias = "bgColor")]
    #[schemars(length(max = 7), pattern("^#?(?:[0-9a-fA-F]{3}|[0-9a-fA-F]{6})$"))]
    bg_color: String,
    /// Text colour.
    #[serde(default = "dark_grey", rename = "text_color", alias = "textColor")]
    #[schemars(length(max = 7), pattern("^#?(?:[0-9a-fA-F]{3}|[0-9a-fA-F]{6})$"))]
    text_color: String,
    /// The text; `WxH` (e.g. `600x400`) when absent. An empty text draws none.
    #[serde(default)]
    #[schemars(length(max = 200))]
    text: Option<String>,
    /// svg or png.
    #[serde(default)]
    format: SvgOrPng,
}

fn grey() -> String {
    "#cccccc".into()
}

fn dark_grey() -> String {
    "#333333".into()
}

fn draw(input: PlaceholderInput) -> Result<Image, ApiError> {
    let (w, h) = (input.width, input.height.unwrap_or(input.width));
    let bg = render::color("bg_color", &input.bg_color)?;
    let fg = render::color("text_color", &input.text_color)?;
    let text = input.text.unwrap_or_else(|| format!("{w}x{h}"));
    // DejaVu Sans averages about 0.6 em per character: fit the text in 80% of the width and at
    // most a quarter of the height.
    let chars = text.chars().count().max(1) as f64;
    let font = (w as f64 * 0.8 / (chars * 0.6)).min(h as f64 * 0.25).max(1.0);
    // Text smaller than 6 px is unreadable: leave it out.
    let label = if text.is_empty() || font < 6.0 {
        String::new()
    } else {
        format!(
            r#"<text x="50%" y="50%" dy="0.35em" text-anchor="middle" font-family="{FONT_FAMILY}" font-size="{font:.1}" fill="{}">{}</text>"#,
            fg.hex(),
            xml_escape(&text)
        )
    };
    let svg = format!(
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" viewBox="0 0 {w} {h}"><rect width="{w}" height="{h}" fill="{}"/>{label}</svg>"#,
        bg.hex()
    );
    render::image(svg, w, h, input.format)
}

/// Generate a placeholder image.
///
/// A `width` x `height` box (1-4096 px each; height defaults to the width) in `bg_color`
/// (#cccccc) with `text` (default `WxH`) centred in `text_color` (#333333), sized to fit (left
/// out when it would be under 6 px). SVG by
/// default, or PNG rendered with the embedded DejaVu Sans font. Also by GET with the same
/// parameters in the query string (`/v1/placeholder?width=600&height=400&format=png`).
#[op(post "/v1/placeholder" as placeholder,
     get "/v1/placeholder" as placeholderGet,
     tag = Images, output = image,
     example(default_text, {"width": 600, "height": 400}),
     example(png_custom, {"width": 300, "text": "Logo", "bg_color": "#1e90ff", "text_color": "#fff", "format": "png"}),
     example(square, {"width": 128}),
     example(too_wide, {"width": 5000}, status = 400),
     example(missing_width, {}, status = 400))]
async fn placeholder(input: PlaceholderInput) -> Result<Image, ApiError> {
    wrench_infra::cpu::run(move || draw(input)).await
}

#[cfg(test)]
mod tests {
    use super::*;
    use wrench_kit::render::decode_png;

    fn input(width: u32, height: Option<u32>, format: SvgOrPng) -> PlaceholderInput {
        PlaceholderInput { width, height, bg_color: grey(), text_color: dark_grey(), text: None, format }
    }

    #[test]
    fn pngs_have_the_size_asked_with_background_and_text() {
        for (w, h) in [(1, None), (600, Some(400)), (97, Some(1200)), (4096, Some(16))] {
            let png = draw(input(w, h, SvgOrPng::Png)).unwrap();
            let (pw, ph, px) = decode_png(&png.bytes);
            assert_eq!((pw, ph), (w, h.unwrap_or(w)));
            assert_eq!(&px[..3], &[0xcc, 0xcc, 0xcc], "corner is background");
        }
        let png = draw(input(600, Some(400), SvgOrPng::Png)).unwrap();
        let (_, _, px) = decode_png(&png.bytes);
        let text_pixels = px.chunks(4).filter(|p| p[0] < 0x80).count();
        assert!(text_pixels > 500, "the label drew {text_pixels} dark pixels");
    }

    #[test]
    fn svg_text_is_escaped_and_parses() {
        let svg =
            draw(PlaceholderInput { text: Some("<b>&\"x\"</b>".into()), ..input(300, None, SvgOrPng::Svg) }).unwrap();
        let s = String::from_utf8(svg.bytes).unwrap();
        assert!(s.contains("&lt;b&gt;&amp;&quot;x&quot;&lt;/b&gt;"));
        let tree = resvg::usvg::Tree::from_str(&s, &resvg::usvg::Options::default()).unwrap();
        assert_eq!((tree.size().width(), tree.size().height()), (300.0, 300.0));
    }
}
