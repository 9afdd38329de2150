//! Linear barcodes as SVG or PNG: Code 128 (set B), EAN-13, EAN-8, UPC-A, ITF-14 and MSI.
//! The encoders are in `wrench_kit::barcode`.

use wrench_contract::{op::Image, prelude::*};
use wrench_kit::barcode as sym;
use wrench_kit::render::{self, FONT_FAMILY, SvgOrPng, xml_escape};

#[derive(Debug, Deserialize, Serialize, JsonSchema, Validate, Clone, Copy, PartialEq, Eq, Default)]
#[serde(rename_all = "lowercase")]
enum Symbology {
    /// Code 128, code set B: ASCII 32-127.
    #[default]
    Code128,
    /// EAN-13: 12 digits, or 13 with the check digit.
    Ean13,
    /// EAN-8: 7 digits, or 8 with the check digit.
    Ean8,
    /// UPC-A: 11 digits, or 12 with the check digit.
    Upca,
    /// ITF-14 (GTIN-14 in Interleaved 2 of 5): 13 digits, or 14 with the check digit.
    Itf14,
    /// MSI Plessey with a mod 10 check digit, always added: 1-30 digits.
    Msi,
}

#[derive(Debug, Deserialize, JsonSchema, Validate)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
#[schemars(transform = wrench_contract::validate::declare_aliases::<Self>)]
struct BarcodeInput {
    /// What to encode.
    #[schemars(length(min = 1, max = 80))]
    data: String,
    /// The symbology.
    #[serde(default, rename = "type")]
    kind: Symbology,
    /// Image width in pixels (bars are whole pixels wide, centred).
    #[serde(default = "two_hundred")]
    #[schemars(range(min = 50, max = 4096))]
    width: u32,
    /// Image height in pixels, text included.
    #[serde(default = "one_hundred")]
    #[schemars(range(min = 20, max = 2048))]
    height: u32,
    /// Print the human-readable text under the bars.
    #[serde(default = "wrench_contract::decode::yes", rename = "show_text", alias = "showText")]
    show_text: bool,
    /// svg or png.
    #[serde(default)]
    format: SvgOrPng,
}

fn two_hundred() -> u32 {
    200
}

fn one_hundred() -> u32 {
    100
}

/// Modules, quiet zones (left, right) in modules, and the human-readable text.
fn encode(kind: Symbology, data: &str) -> Result<(Vec<bool>, u32, u32, String), String> {
    let digits_text = |d: &[u8]| d.iter().map(|x| (b'0' + x) as char).collect::<String>();
    Ok(match kind {
        Symbology::Code128 => (sym::code128b(data)?, 10, 10, data.to_string()),
        Symbology::Ean13 => {
            let d = sym::with_gs1_check(data, 13, "EAN-13")?;
            (sym::ean13(&d), 11, 7, digits_text(&d))
        }
        Symbology::Ean8 => {
            let d = sym::with_gs1_check(data, 8, "EAN-8")?;
            (sym::ean8(&d), 7, 7, digits_text(&d))
        }
        Symbology::Upca => {
            let d = sym::with_gs1_check(data, 12, "UPC-A")?;
            // UPC-A is EAN-13 with a leading zero.
            let mut e = vec![0];
            e.extend_from_slice(&d);
            (sym::ean13(&e), 9, 9, digits_text(&d))
        }
        Symbology::Itf14 => {
            let d = sym::with_gs1_check(data, 14, "ITF-14")?;
            (sym::itf(&d, 3), 10, 10, digits_text(&d))
        }
        Symbology::Msi => {
            let mut d =
                wrench_kit::checksum::digits(data).filter(|d| d.len() <= 30).ok_or("MSI encodes 1 to 30 digits")?;
            d.push(sym::luhn_check(&d));
            (sym::msi(&d), 12, 12, digits_text(&d))
        }
    })
}

fn draw(input: BarcodeInput) -> Result<Image, ApiError> {
    let (modules, left, right, text) = encode(input.kind, &input.data).map_err(|e| ApiError::invalid("data", e))?;
    let total = modules.len() as u32 + left + right;
    let module = input.width / total;
    if module == 0 {
        return Err(ApiError::invalid(
            "width",
            format!("{} px is too narrow: this barcode is {total} modules wide with its quiet zones", input.width),
        ));
    }
    let (w, h) = (input.width, input.height);
    let x0 = (w - module * total) / 2 + left * module;
    let font = (h as f64 * 0.15).clamp(8.0, 48.0);
    let bar_height = if input.show_text { (h as f64 - font * 1.3).max(1.0) } else { h as f64 };
    let mut bars = String::new();
    let mut i = 0;
    while i < modules.len() {
        if modules[i] {
            let start = i;
            while i < modules.len() && modules[i] {
                i += 1;
            }
            bars.push_str(&format!(
                r#"<rect x="{}" y="0" width="{}" height="{bar_height:.1}"/>"#,
                x0 + start as u32 * module,
                (i - start) as u32 * module
            ));
        } else {
            i += 1;
        }
    }
    let label = if input.show_text {
        format!(
            r#"<text x="{}" y="{:.1}" text-anchor="middle" font-family="{FONT_FAMILY}" font-size="{font:.1}">{}</text>"#,
            w / 2,
            h as f64 - font * 0.25,
            xml_escape(&text)
        )
    } else {
        String::new()
    };
    let svg = format!(
        r##"<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" viewBox="0 0 {w} {h}" shape-rendering="crispEdges"><rect width="{w}" height="{h}" fill="#ffffff"/><g fill="#000000">{bars}{label}</g></svg>"##
    );
    render::image(svg, w, h, input.format)
}

/// Generate a barcode.
///
/// Code 128 set B (default; ASCII 32-127), EAN-13, EAN-8, UPC-A, ITF-14 (wide bars 3 modules)
/// or MSI Plessey, with the standard quiet zones, in `width` x `height` pixels (bars whole
/// pixels wide and centred), the human-readable text below unless `show_text` is false. Check
/// digits are computed when omitted and verified when given (a wrong one is a 400 that gives
/// the right one); MSI always gets its mod 10 check digit appended. Data a symbology cannot
/// encode is a 400 saying why. SVG by default, or PNG.
#[op(post "/v1/barcode" as barcode, tag = Images, output = image,
     rejects = "data the symbology cannot encode, a wrong check digit, or a width too narrow for the code",
     example(code128, {"data": "wrench-0.1"}),
     example(ean13_png, {"data": "400638133393", "type": "ean13", "format": "png", "width": 300, "height": 150}),
     example(wrong_check_digit, {"data": "4006381333932", "type": "ean13"}, status = 400))]
async fn barcode(input: BarcodeInput) -> Result<Image, ApiError> {
    wrench_infra::cpu::run(move || draw(input)).await
}

#[cfg(test)]
mod tests {
    use super::*;
    use wrench_kit::render::decode_png;

    #[test]
    fn png_bars_are_the_modules_at_the_requested_size() {
        let input = BarcodeInput {
            data: "5901234123457".into(),
            kind: Symbology::Ean13,
            width: 339,
            height: 80,
            show_text: false,
            format: SvgOrPng::Png,
        };
        let (w, h, px) = decode_png(&draw(input).unwrap().bytes);
        assert_eq!((w, h), (339, 80));
        // Read the middle row back into modules: 113 modules (95 + quiet zones) of 3 px.
        let row: Vec<bool> = (0..w as usize).map(|x| px[((h as usize / 2) * w as usize + x) * 4] < 128).collect();
        let (modules, ..) = encode(Symbology::Ean13, "5901234123457").unwrap();
        let module = 339 / 113;
        let x0 = (339 - module * 113) / 2 + 11 * module;
        let read: Vec<bool> = (0..95).map(|m| row[(x0 + m * module + module / 2) as usize]).collect();
        assert_eq!(read, modules);
    }

    #[test]
    fn every_symbology_draws_an_svg_of_the_requested_size() {
        for (kind, data) in [
            (Symbology::Code128, "Hello"),
            (Symbology::Ean13, "400638133393"),
            (Symbology::Ean8, "9638507"),
            (Symbology::Upca, "03600029145"),
            (Symbology::Itf14, "1540014128876"),
            (Symbology::Msi, "1234"),
        ] {
            let input = BarcodeInput {
                data: data.into(),
                kind,
                width: 400,
                height: 120,
                show_text: true,
                format: SvgOrPng::Svg,
            };
            let svg = String::from_utf8(draw(input).unwrap().bytes).unwrap();
            let tree = resvg::usvg::Tree::from_str(&svg, &resvg::usvg::Options::default()).unwrap();
            assert_eq!((tree.size().width(), tree.size().height()), (400.0, 120.0), "{kind:?}");
        }
    }

    #[test]
    fn bad_data_says_why() {
        let e = encode(Symbology::Code128, "naïve").unwrap_err();
        assert!(e.contains("ASCII 32-127"), "{e}");
        assert!(encode(Symbology::Ean8, "12345").unwrap_err().contains("7 digits"));
        assert!(encode(Symbology::Msi, "12a").is_err());
        let narrow = BarcodeInput {
            data: "x".repeat(80),
            kind: Symbology::Code128,
            width: 50,
            height: 50,
            show_text: true,
            format: SvgOrPng::Svg,
        };
        assert_eq!(draw(narrow).unwrap_err().field.as_deref(), Some("width"));
    }
}
