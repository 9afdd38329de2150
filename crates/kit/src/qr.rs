//! QR codes (ISO/IEC 18004) drawn as SVG, PNG or a PNG data URI: the drawing behind
//! `qr/generate` and a short link's QR code. Byte mode (any UTF-8 text), error correction
//! L, M, Q or H, whole-pixel modules centred in exactly the size asked for.

use base64::{Engine, engine::general_purpose::STANDARD};
use qrcode::{Color, EcLevel, QrCode};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use wrench_contract::{op::Image, prelude::Validate};
use wrench_infra::envelope::ApiError;

use crate::render::{self, Rgb};

#[derive(Debug, Deserialize, Serialize, JsonSchema, Validate, Clone, Copy, PartialEq, Eq, Default)]
#[serde(rename_all = "lowercase")]
pub enum QrFormat {
    /// `image/svg+xml`.
    #[default]
    Svg,
    /// `image/png`.
    Png,
    /// `text/plain`: a `data:image/png;base64,...` URI.
    Base64,
}

#[derive(Debug, Deserialize, Serialize, JsonSchema, Validate, Clone, Copy, PartialEq, Eq, Default)]
pub enum Ecc {
    /// Recovers about 7% of damaged modules.
    L,
    /// About 15%.
    #[default]
    M,
    /// About 25%.
    Q,
    /// About 30%.
    H,
}

/// What to draw and how.
#[derive(Debug, Clone, Copy)]
pub struct QrSpec<'a> {
    pub text: &'a str,
    /// Width and height in pixels.
    pub size: u32,
    pub format: QrFormat,
    /// `#rrggbb` or `#rgb`, for the dark modules.
    pub dark_color: &'a str,
    /// The same, for the light modules and the quiet zone.
    pub light_color: &'a str,
    pub error_correction_level: Ecc,
    /// Quiet zone, in modules.
    pub margin: u32,
}

/// The default size, in pixels.
pub fn default_size() -> u32 {
    300
}

/// The default quiet zone, in modules (the standard asks for 4).
pub fn default_margin() -> u32 {
    4
}

/// The default colour of the dark modules.
pub fn default_dark() -> String {
    "#000000".into()
}

/// The default colour of the light modules.
pub fn default_light() -> String {
    "#ffffff".into()
}

/// The modules (true = dark) of the code for `input`, row by row, and the side in modules.
fn modules(input: &QrSpec) -> Result<(Vec<bool>, usize), ApiError> {
    let level = match input.error_correction_level {
        Ecc::L => EcLevel::L,
        Ecc::M => EcLevel::M,
        Ecc::Q => EcLevel::Q,
        Ecc::H => EcLevel::H,
    };
    let code = QrCode::with_error_correction_level(input.text.as_bytes(), level).map_err(|e| {
        ApiError::invalid(
            "text",
            format!(
                "does not fit in a QR code at level {:?} ({e}); shorten it or lower errorCorrectionLevel",
                input.error_correction_level
            ),
        )
    })?;
    let width = code.width();
    Ok((code.to_colors().into_iter().map(|c| c == Color::Dark).collect(), width))
}

/// Module size in pixels and the offset of the first module, so that the code with its quiet
/// zone is centred in exactly `size` pixels.
fn layout(size: u32, width: usize, margin: u32) -> Result<(u32, u32), ApiError> {
    let total = width as u32 + 2 * margin;
    let scale = size / total;
    if scale == 0 {
        return Err(ApiError::invalid(
            "size",
            format!(
                "{size} px is too small for this code: it is {total} modules wide with its margin, so it needs at least {total} px"
            ),
        ));
    }
    Ok((scale, (size - scale * total) / 2 + margin * scale))
}

fn svg(dark: &[bool], width: usize, size: u32, scale: u32, offset: u32, fg: Rgb, bg: Rgb) -> String {
    let mut path = String::new();
    for y in 0..width {
        let mut x = 0;
        while x < width {
            if dark[y * width + x] {
                let start = x;
                while x < width && dark[y * width + x] {
                    x += 1;
                }
                let (px, py) = (offset + start as u32 * scale, offset + y as u32 * scale);
                path.push_str(&format!(
                    "M{px} {py}h{}v{scale}h-{}z",
                    (x - start) as u32 * scale,
                    (x - start) as u32 * scale
                ));
            } else {
                x += 1;
            }
        }
    }
    format!(
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{size}" height="{size}" viewBox="0 0 {size} {size}" shape-rendering="crispEdges"><rect width="{size}" height="{size}" fill="{}"/><path fill="{}" d="{path}"/></svg>"#,
        bg.hex(),
        fg.hex()
    )
}

fn png(dark: &[bool], width: usize, size: u32, scale: u32, offset: u32, fg: Rgb, bg: Rgb) -> Result<Vec<u8>, ApiError> {
    // The module a pixel coordinate falls in; None in the quiet zone.
    let module = |p: u32| p.checked_sub(offset).map(|q| (q / scale) as usize).filter(|m| *m < width);
    let mut rgba = Vec::with_capacity((size * size * 4) as usize);
    for y in 0..size {
        let row = module(y);
        for x in 0..size {
            let on = matches!((row, module(x)), (Some(my), Some(mx)) if dark[my * width + mx]);
            let c = if on { fg } else { bg };
            rgba.extend_from_slice(&[c.0, c.1, c.2, 255]);
        }
    }
    render::png(size, size, &rgba)
}

/// The code for `input`, drawn.
pub fn draw(input: &QrSpec) -> Result<Image, ApiError> {
    let fg = render::color("darkColor", input.dark_color)?;
    let bg = render::color("lightColor", input.light_color)?;
    let (dark, width) = modules(input)?;
    let (scale, offset) = layout(input.size, width, input.margin)?;
    Ok(match input.format {
        QrFormat::Svg => Image {
            content_type: "image/svg+xml",
            bytes: svg(&dark, width, input.size, scale, offset, fg, bg).into_bytes(),
        },
        QrFormat::Png => {
            Image { content_type: "image/png", bytes: png(&dark, width, input.size, scale, offset, fg, bg)? }
        }
        QrFormat::Base64 => {
            let bytes = png(&dark, width, input.size, scale, offset, fg, bg)?;
            Image {
                content_type: "text/plain",
                bytes: format!("data:image/png;base64,{}", STANDARD.encode(bytes)).into_bytes(),
            }
        }
    })
}
