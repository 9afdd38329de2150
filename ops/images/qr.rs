//! QR codes (ISO/IEC 18004) as SVG, PNG or a PNG data URI, by POST with a JSON body or by GET
//! with the same parameters in the query string (so a code can be an `<img src>`).

use wrench_contract::{op::Image, prelude::*};
use wrench_kit::qr::{self, Ecc, QrFormat, QrSpec};

#[derive(Debug, Deserialize, JsonSchema, Validate)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct QrInput {
    /// What the code holds (UTF-8, up to 2,953 bytes at level L, fewer at higher levels).
    #[schemars(length(min = 1, max = 2953))]
    text: String,
    /// Width and height of the image in pixels.
    #[serde(default = "three_hundred")]
    #[schemars(range(min = 50, max = 2000))]
    size: u32,
    /// svg, png, or base64 (a PNG data URI as text).
    #[serde(default)]
    format: QrFormat,
    /// Colour of the dark modules, `#rrggbb` or `#rgb`.
    #[serde(default = "black")]
    #[schemars(length(max = 7), pattern("^#?(?:[0-9a-fA-F]{3}|[0-9a-fA-F]{6})$"))]
    dark_color: String,
    /// Colour of the light modules and the quiet zone.
    #[serde(default = "white")]
    #[schemars(length(max = 7), pattern("^#?(?:[0-9a-fA-F]{3}|[0-9a-fA-F]{6})$"))]
    light_color: String,
    /// Error correction: L, M, Q or H.
    #[serde(default)]
    error_correction_level: Ecc,
    /// Quiet zone around the code, in modules (the standard asks for 4).
    #[serde(default = "four")]
    #[schemars(range(min = 0, max = 20))]
    margin: u32,
}

fn three_hundred() -> u32 {
    qr::default_size()
}

fn four() -> u32 {
    qr::default_margin()
}

fn black() -> String {
    qr::default_dark()
}

fn white() -> String {
    qr::default_light()
}

fn generate(input: QrInput) -> Result<Image, ApiError> {
    qr::draw(&QrSpec {
        text: &input.text,
        size: input.size,
        format: input.format,
        dark_color: &input.dark_color,
        light_color: &input.light_color,
        error_correction_level: input.error_correction_level,
        margin: input.margin,
    })
}

/// Generate a QR code.
///
/// Byte-mode QR code (any UTF-8 text) with error correction L, M, Q or H (default M) and a quiet
/// zone of `margin` modules (0-20, default 4), drawn in exactly `size` x `size` pixels (50-2000,
/// default 300) with whole-pixel modules, centred. `format`: svg (default), png, or base64 (a
/// `data:image/png;base64,...` URI as text/plain). Colours are hex. Text too long for the level
/// or a size too small for the code is a 400. Also by GET with the same parameters in the query
/// string (`/v1/qr/generate?text=hello&format=png&size=200`), for use as an image source.
#[op(post "/v1/qr/generate" as qrGenerate,
     get "/v1/qr/generate" as qrGenerateGet,
     tag = Images, output = image,
     rejects = "text too long for the error-correction level, or a size too small for the code",
     example(svg, {"text": "https://example.com", "size": 200}),
     example(png_high_ecc, {"text": "WIFI:T:WPA;S:home;P:secret;;", "format": "png", "errorCorrectionLevel": "H", "size": 256}),
     example(png, {"text": "hello", "format": "png", "size": 120}),
     example(too_small, {"text": "x", "size": 50, "margin": 20}, status = 400),
     example(missing_text, {}, status = 400))]
async fn qr_generate(input: QrInput) -> Result<Image, ApiError> {
    wrench_infra::cpu::run(move || generate(input)).await
}

#[cfg(test)]
mod tests {
    use super::*;
    use base64::{Engine, engine::general_purpose::STANDARD};
    use wrench_kit::render::{self, decode_png};

    fn input(text: &str, format: QrFormat, ecc: Ecc, size: u32) -> QrInput {
        QrInput {
            text: text.into(),
            size,
            format,
            dark_color: black(),
            light_color: white(),
            error_correction_level: ecc,
            margin: 4,
        }
    }

    /// Reads a QR code from RGBA pixels with rqrr, an independent decoder.
    fn decode(width: u32, height: u32, rgba: &[u8]) -> String {
        let mut img = rqrr::PreparedImage::prepare_from_greyscale(width as usize, height as usize, |x, y| {
            let i = (y * width as usize + x) * 4;
            ((rgba[i] as u32 + rgba[i + 1] as u32 + rgba[i + 2] as u32) / 3) as u8
        });
        let grids = img.detect_grids();
        assert_eq!(grids.len(), 1, "one code found");
        grids[0].decode().unwrap().1
    }

    #[test]
    fn every_format_and_level_decodes_back_with_an_independent_decoder() {
        let texts = ["https://example.com/a?b=c", "Grüße, 世界 🎉", &"0123456789".repeat(40)];
        for text in texts {
            for ecc in [Ecc::L, Ecc::M, Ecc::Q, Ecc::H] {
                let png = generate(input(text, QrFormat::Png, ecc, 400)).unwrap();
                let (w, h, px) = decode_png(&png.bytes);
                assert_eq!((w, h), (400, 400));
                assert_eq!(decode(w, h, &px), text, "png {ecc:?}");

                let svg = generate(input(text, QrFormat::Svg, ecc, 400)).unwrap();
                let (w, h, px) =
                    decode_png(&render::svg_to_png(std::str::from_utf8(&svg.bytes).unwrap(), 400, 400).unwrap());
                assert_eq!(decode(w, h, &px), text, "svg {ecc:?}");

                let uri = generate(input(text, QrFormat::Base64, ecc, 400)).unwrap();
                let b64 = std::str::from_utf8(&uri.bytes).unwrap().strip_prefix("data:image/png;base64,").unwrap();
                let (w, h, px) = decode_png(&STANDARD.decode(b64).unwrap());
                assert_eq!(decode(w, h, &px), text, "base64 {ecc:?}");
            }
        }
    }

    #[test]
    fn sizes_are_exact_and_limits_explained() {
        for size in [50, 77, 301, 2000] {
            let png = generate(input("size test", QrFormat::Png, Ecc::M, size)).unwrap();
            let (w, h, _) = decode_png(&png.bytes);
            assert_eq!((w, h), (size, size));
        }
        let e = generate(QrInput { margin: 20, ..input("x", QrFormat::Png, Ecc::M, 50) }).unwrap_err();
        assert!(e.message.contains("too small"), "{}", e.message);
        let e = generate(input(&"x".repeat(2953), QrFormat::Svg, Ecc::H, 300)).unwrap_err();
        assert!(e.message.contains("does not fit") && e.field.as_deref() == Some("text"));
        let e = generate(QrInput { dark_color: "black".into(), ..input("x", QrFormat::Svg, Ecc::M, 300) }).unwrap_err();
        assert_eq!(e.field.as_deref(), Some("darkColor"));
    }
}
