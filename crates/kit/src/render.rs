//! Shared image plumbing: colours from hex, XML escaping, PNG encoding of pixel buffers, and
//! SVG rasterisation with the embedded DejaVu fonts.
//!
//! Rasterising never touches the file system or the network: the font database holds only the
//! two embedded fonts (no system fonts), there is no resources directory, and every image
//! reference in an SVG is refused. Our SVGs contain none; the refusal is the guarantee.

use std::sync::{Arc, LazyLock};

use resvg::{tiny_skia, usvg};

use wrench_contract::{op::Image, prelude::*};

/// An sRGB colour.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Rgb(pub u8, pub u8, pub u8);

impl Rgb {
    /// `#rrggbb`.
    pub fn hex(self) -> String {
        format!("#{:02x}{:02x}{:02x}", self.0, self.1, self.2)
    }
}

/// Reads `#rgb` or `#rrggbb` (the `#` optional, any case) into a colour, or a 400 naming
/// `field`.
pub fn color(field: &str, text: &str) -> Result<Rgb, ApiError> {
    let t = text.trim();
    let h = t.strip_prefix('#').unwrap_or(t);
    let bad = || ApiError::invalid(field, format!("{text:?} is not a hex colour; write #rrggbb or #rgb"));
    if !h.bytes().all(|b| b.is_ascii_hexdigit()) {
        return Err(bad());
    }
    let expand = |s: &str| u8::from_str_radix(s, 16).map_err(|_| bad());
    match h.len() {
        3 => {
            let c: Vec<String> = h.chars().map(|c| format!("{c}{c}")).collect();
            Ok(Rgb(expand(&c[0])?, expand(&c[1])?, expand(&c[2])?))
        }
        6 => Ok(Rgb(expand(&h[0..2])?, expand(&h[2..4])?, expand(&h[4..6])?)),
        _ => Err(bad()),
    }
}

/// Text made safe for SVG element content and attribute values.
pub fn xml_escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            // Characters XML 1.0 forbids would make the SVG unreadable: drop them.
            c if (c as u32) < 0x20 && !matches!(c, '\t' | '\n' | '\r') => {}
            '\u{FFFE}' | '\u{FFFF}' => {}
            c => out.push(c),
        }
    }
    out
}

/// PNG of an RGBA buffer (`width * height * 4` bytes).
pub fn png(width: u32, height: u32, rgba: &[u8]) -> Result<Vec<u8>, ApiError> {
    let mut out = Vec::new();
    let mut encoder = ::png::Encoder::new(&mut out, width, height);
    encoder.set_color(::png::ColorType::Rgba);
    encoder.set_depth(::png::BitDepth::Eight);
    let mut writer = encoder.write_header().map_err(|e| ApiError::internal(format!("PNG header: {e}")))?;
    writer.write_image_data(rgba).map_err(|e| ApiError::internal(format!("PNG data: {e}")))?;
    writer.finish().map_err(|e| ApiError::internal(format!("PNG end: {e}")))?;
    Ok(out)
}

/// The embedded DejaVu Sans faces, regular and bold: unpacked once, for the life of the
/// process, and shared by the SVG renderer and the text measurer of Open Graph images.
pub fn font_files() -> (&'static [u8], &'static [u8]) {
    use wrench_infra::blobs::{DEJAVU_SANS, DEJAVU_SANS_BOLD};
    static FILES: LazyLock<(&'static [u8], &'static [u8])> =
        LazyLock::new(|| (DEJAVU_SANS.leak_bytes(), DEJAVU_SANS_BOLD.leak_bytes()));
    *FILES
}

static FONTS: LazyLock<Arc<usvg::fontdb::Database>> = LazyLock::new(|| {
    let mut db = usvg::fontdb::Database::new();
    let (regular, bold) = font_files();
    db.load_font_source(usvg::fontdb::Source::Binary(Arc::new(regular)));
    db.load_font_source(usvg::fontdb::Source::Binary(Arc::new(bold)));
    db.set_sans_serif_family("DejaVu Sans");
    Arc::new(db)
});

/// Builds the embedded table now (the warm-up and `wrench tables` call it).
pub fn warm() {
    let _ = &*FONTS;
}

/// The font family name to use in SVG `font-family`.
pub const FONT_FAMILY: &str = "DejaVu Sans";

/// Rasterises our own SVG text to a PNG of `width` x `height`.
pub fn svg_to_png(svg: &str, width: u32, height: u32) -> Result<Vec<u8>, ApiError> {
    let options = usvg::Options {
        resources_dir: None,
        fontdb: FONTS.clone(),
        image_href_resolver: usvg::ImageHrefResolver {
            resolve_data: Box::new(|_, _, _| None),
            resolve_string: Box::new(|_, _| None),
        },
        ..usvg::Options::default()
    };
    let tree = usvg::Tree::from_str(svg, &options)
        .map_err(|e| ApiError::internal(format!("the generated SVG did not parse: {e}")))?;
    let mut pixmap =
        tiny_skia::Pixmap::new(width, height).ok_or_else(|| ApiError::internal("could not allocate the image"))?;
    let size = tree.size();
    let transform = tiny_skia::Transform::from_scale(width as f32 / size.width(), height as f32 / size.height());
    resvg::render(&tree, transform, &mut pixmap.as_mut());
    pixmap.encode_png().map_err(|e| ApiError::internal(format!("PNG encoding failed: {e}")))
}

/// SVG or PNG, as the caller asked.
#[derive(Debug, Deserialize, Serialize, JsonSchema, Validate, Clone, Copy, PartialEq, Eq, Default)]
#[serde(rename_all = "lowercase")]
pub enum SvgOrPng {
    #[default]
    Svg,
    Png,
}

/// The image in the format asked for.
pub fn image(svg: String, width: u32, height: u32, format: SvgOrPng) -> Result<Image, ApiError> {
    Ok(match format {
        SvgOrPng::Svg => Image { content_type: "image/svg+xml", bytes: svg.into_bytes() },
        SvgOrPng::Png => Image { content_type: "image/png", bytes: svg_to_png(&svg, width, height)? },
    })
}

/// Decodes a PNG into (width, height, RGBA pixels), for the tests of whatever draws one.
#[cfg(any(test, feature = "testing"))]
pub fn decode_png(bytes: &[u8]) -> (u32, u32, Vec<u8>) {
    let decoder = ::png::Decoder::new(std::io::Cursor::new(bytes));
    let mut reader = decoder.read_info().unwrap();
    let mut buf = vec![0; reader.output_buffer_size().unwrap()];
    let info = reader.next_frame(&mut buf).unwrap();
    buf.truncate(info.buffer_size());
    let rgba = match info.color_type {
        ::png::ColorType::Rgba => buf,
        ::png::ColorType::Rgb => buf.chunks(3).flat_map(|c| [c[0], c[1], c[2], 255]).collect(),
        other => panic!("unexpected colour type {other:?}"),
    };
    (info.width, info.height, rgba)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn colours_parse_in_both_lengths_and_refuse_the_rest() {
        assert_eq!(color("c", "#1E90ff").unwrap(), Rgb(30, 144, 255));
        assert_eq!(color("c", "fff").unwrap(), Rgb(255, 255, 255));
        for bad in ["#12", "#gggggg", "red", "#1234567", ""] {
            assert_eq!(color("c", bad).unwrap_err().field.as_deref(), Some("c"), "{bad}");
        }
    }

    #[test]
    fn escaping_keeps_markup_out() {
        assert_eq!(xml_escape("<script>&\"'\u{0}"), "&lt;script&gt;&amp;&quot;&apos;");
    }

    #[test]
    fn text_renders_with_the_embedded_font_and_images_are_refused() {
        let svg = format!(
            r##"<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" width="200" height="100"><rect width="200" height="100" fill="#ffffff"/><text x="10" y="60" font-family="{FONT_FAMILY}" font-size="40" fill="#000000">Ab</text><image href="file:///etc/passwd" width="10" height="10"/><image xlink:href="https://example.com/x.png" width="10" height="10"/></svg>"##
        );
        let (w, h, px) = decode_png(&svg_to_png(&svg, 200, 100).unwrap());
        assert_eq!((w, h), (200, 100));
        let dark = px.chunks(4).filter(|p| p[0] < 128).count();
        assert!(dark > 200, "the text drew {dark} dark pixels");
    }
}
