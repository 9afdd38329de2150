//! Colours: conversion between CSS notations and harmony palettes.
//!
//! Input is anything CSS Color Level 4 accepts (hex with 3, 4, 6 or 8 digits, `rgb()`,
//! `hsl()`, `hwb()`, `lab()`, `oklch()` ..., the 148 named colours, `transparent`), parsed
//! by csscolorparser. Output is sRGB in hex, RGB and HSL, computed here from the 8-bit
//! channels with the formulas of CSS Color 4 section 7 (HSL), so hex and RGB round-trip
//! exactly.

use wrench_kit::color::rgb_of;

use wrench_contract::prelude::*;

#[derive(Debug, Deserialize, JsonSchema, Validate)]
#[serde(deny_unknown_fields)]
struct ColorConvertInput {
    /// A CSS colour: `#1e90ff`, `#fff`, `rgb(30 144 255)`, `rgb(30, 144, 255, 0.5)`,
    /// `hsl(210deg 100% 56%)`, `dodgerblue`, ...
    #[schemars(length(max = 200))]
    color: String,
}

#[derive(Debug, Serialize, JsonSchema, Clone)]
struct Rgb {
    /// Red, 0-255.
    r: u8,
    /// Green, 0-255.
    g: u8,
    /// Blue, 0-255.
    b: u8,
    /// Alpha, 0-1.
    a: f64,
}

#[derive(Debug, Serialize, JsonSchema, Clone)]
struct Hsl {
    /// Hue in degrees, 0-360 (one decimal).
    h: f64,
    /// Saturation in percent, 0-100 (one decimal).
    s: f64,
    /// Lightness in percent, 0-100 (one decimal).
    l: f64,
    /// Alpha, 0-1.
    a: f64,
}

#[derive(Debug, Serialize, JsonSchema, Clone)]
#[serde(rename_all = "camelCase")]
struct ColorForms {
    /// `#rrggbb`, or `#rrggbbaa` when not opaque; lower case.
    hex: String,
    /// The channels.
    rgb: Rgb,
    /// Hue, saturation and lightness.
    hsl: Hsl,
    /// `rgb(r, g, b)` or `rgba(r, g, b, a)`.
    rgb_string: String,
    /// `hsl(h, s%, l%)` or `hsla(h, s%, l%, a)`.
    hsl_string: String,
    /// The CSS named colour with exactly these channels, if any (opaque colours only).
    name: Option<&'static str>,
}

fn round1(x: f64) -> f64 {
    (x * 10.0).round() / 10.0
}

/// HSL from 8-bit sRGB (CSS Color 4, section 7.1, the reverse direction).
fn hsl_of(r: u8, g: u8, b: u8) -> (f64, f64, f64) {
    let (r, g, b) = (r as f64 / 255.0, g as f64 / 255.0, b as f64 / 255.0);
    let max = r.max(g).max(b);
    let min = r.min(g).min(b);
    let l = (max + min) / 2.0;
    let d = max - min;
    if d == 0.0 {
        return (0.0, 0.0, l * 100.0);
    }
    let s = if l == 0.0 || l == 1.0 { 0.0 } else { (max - l) / l.min(1.0 - l) };
    let h = if max == r {
        (g - b) / d + if g < b { 6.0 } else { 0.0 }
    } else if max == g {
        (b - r) / d + 2.0
    } else {
        (r - g) / d + 4.0
    };
    (h * 60.0, s * 100.0, l * 100.0)
}

fn forms(r: u8, g: u8, b: u8, alpha: f64) -> ColorForms {
    let a = (alpha * 1000.0).round() / 1000.0;
    let (h, s, l) = hsl_of(r, g, b);
    let (h, s, l) = (round1(h) % 360.0, round1(s), round1(l));
    let opaque = a >= 1.0;
    let hex = if opaque {
        format!("#{r:02x}{g:02x}{b:02x}")
    } else {
        format!("#{r:02x}{g:02x}{b:02x}{:02x}", (a * 255.0).round() as u8)
    };
    let name = if opaque { csscolorparser::Color::from_rgba8(r, g, b, 255).name() } else { None };
    ColorForms {
        rgb_string: if opaque { format!("rgb({r}, {g}, {b})") } else { format!("rgba({r}, {g}, {b}, {a})") },
        hsl_string: if opaque { format!("hsl({h}, {s}%, {l}%)") } else { format!("hsla({h}, {s}%, {l}%, {a})") },
        hex,
        rgb: Rgb { r, g, b, a },
        hsl: Hsl { h, s, l, a },
        name,
    }
}

fn parse(text: &str) -> Result<([u8; 3], f64), ApiError> {
    let c = csscolorparser::parse(text.trim()).map_err(|e| {
        ApiError::invalid("color", format!("{text:?} is not a CSS colour ({e}); try #1e90ff, rgb(30 144 255), hsl(210 100% 56%) or a name such as dodgerblue"))
    })?;
    let [r, g, b, _] = c.to_rgba8();
    Ok(([r, g, b], c.a.clamp(0.0, 1.0) as f64))
}

/// Convert a CSS colour to HEX, RGB and HSL.
///
/// Accepts every CSS Color 4 notation (hex, `rgb()`/`rgba()`, `hsl()`/`hsla()`, `hwb()`,
/// `lab()`, `lch()`, `oklab()`, `oklch()`, named colours). The result is sRGB rounded to 8-bit
/// channels; HSL has one decimal. Alpha below 1 adds the 8-digit hex and the `rgba()`/`hsla()`
/// strings. Text that is not a colour is a 400.
#[op(post "/v1/color/convert" as colorConvert, tag = DeveloperUtilities, pipe(color -> hex),
     rejects = "text that is not a CSS colour",
     example(hex, {"color": "#1e90ff"}),
     example(hsl_with_alpha, {"color": "hsl(270 50% 40% / 0.5)"}),
     example(named, {"color": "RebeccaPurple"}),
     example(not_a_color, {"color": "blurple"}, status = 400))]
async fn color_convert(input: ColorConvertInput) -> Result<ColorForms, ApiError> {
    let ([r, g, b], a) = parse(&input.color)?;
    Ok(forms(r, g, b, a))
}

#[derive(Debug, Deserialize, Serialize, JsonSchema, Validate, Clone, Copy, PartialEq, Eq, Default)]
#[serde(rename_all = "kebab-case")]
enum PaletteType {
    /// The base and the hue opposite (180 degrees).
    #[default]
    Complementary,
    /// The base and its neighbours 30 degrees either side.
    Analogous,
    /// Three hues 120 degrees apart.
    Triadic,
    /// Four hues 90 degrees apart.
    Tetradic,
    /// The base and the two hues 30 degrees either side of its complement.
    SplitComplementary,
    /// One hue, five lightness steps (two shades, the base, two tints).
    Monochromatic,
}

#[derive(Debug, Deserialize, JsonSchema, Validate)]
#[serde(deny_unknown_fields)]
struct ColorPaletteInput {
    /// The base colour, in any CSS notation.
    #[schemars(length(max = 200))]
    color: String,
    /// The harmony.
    #[serde(default, rename = "type")]
    kind: PaletteType,
}

#[derive(Debug, Serialize, JsonSchema)]
struct Swatch {
    /// What this swatch is: `base`, `hue +180`, `lightness 27.5%`, ...
    role: String,
    #[serde(flatten)]
    color: ColorForms,
}

#[derive(Debug, Serialize, JsonSchema)]
struct ColorPaletteOutput {
    /// The base colour.
    base: ColorForms,
    /// The harmony used.
    #[serde(rename = "type")]
    kind: &'static str,
    /// The palette, base first.
    colors: Vec<Swatch>,
}

/// Build a colour-harmony palette.
///
/// Hues are rotated on the HSL colour wheel keeping saturation and lightness: complementary
/// (+180), analogous (-30, +30), triadic (+120, +240), tetradic (+90, +180, +270),
/// split-complementary (+150, +210). Monochromatic keeps the hue and saturation and gives two
/// shades and two tints at thirds of the way to black and to white. The base comes first.
#[op(post "/v1/color/palette" as colorPalette, tag = DeveloperUtilities,
     rejects = "text that is not a CSS colour",
     example(complementary, {"color": "#1e90ff"}),
     example(triadic, {"color": "rgb(255 0 0)", "type": "triadic"}),
     example(monochromatic, {"color": "teal", "type": "monochromatic"}),
     example(unknown_type, {"color": "red", "type": "pastel"}, status = 400))]
async fn color_palette(input: ColorPaletteInput) -> Result<ColorPaletteOutput, ApiError> {
    let ([r, g, b], a) = parse(&input.color)?;
    let (h, s, l) = hsl_of(r, g, b);
    let base = forms(r, g, b, a);
    let rotate = |deg: f64| {
        let (r2, g2, b2) = rgb_of(h + deg, s, l);
        Swatch { role: format!("hue {deg:+}"), color: forms(r2, g2, b2, a) }
    };
    let mut colors = vec![Swatch { role: "base".into(), color: base.clone() }];
    let (name, turns): (&'static str, &[f64]) = match input.kind {
        PaletteType::Complementary => ("complementary", &[180.0]),
        PaletteType::Analogous => ("analogous", &[-30.0, 30.0]),
        PaletteType::Triadic => ("triadic", &[120.0, 240.0]),
        PaletteType::Tetradic => ("tetradic", &[90.0, 180.0, 270.0]),
        PaletteType::SplitComplementary => ("split-complementary", &[150.0, 210.0]),
        PaletteType::Monochromatic => ("monochromatic", &[]),
    };
    colors.extend(turns.iter().map(|d| rotate(*d)));
    if input.kind == PaletteType::Monochromatic {
        for lightness in [l / 3.0, l * 2.0 / 3.0, l + (100.0 - l) / 3.0, l + (100.0 - l) * 2.0 / 3.0] {
            let (r2, g2, b2) = rgb_of(h, s, lightness);
            colors.push(Swatch { role: format!("lightness {}%", round1(lightness)), color: forms(r2, g2, b2, a) });
        }
    }
    Ok(ColorPaletteOutput { base, kind: name, colors })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hsl_matches_the_css_color_4_examples() {
        // CSS Color 4, section 7 and the named-colour table: name, hex, HSL.
        let table = [
            ("red", "#ff0000", (0.0, 100.0, 50.0)),
            ("green", "#008000", (120.0, 100.0, 25.1)),
            ("rebeccapurple", "#663399", (270.0, 50.0, 40.0)),
            ("dodgerblue", "#1e90ff", (209.6, 100.0, 55.9)),
            ("gray", "#808080", (0.0, 0.0, 50.2)),
            ("white", "#ffffff", (0.0, 0.0, 100.0)),
            ("black", "#000000", (0.0, 0.0, 0.0)),
            ("teal", "#008080", (180.0, 100.0, 25.1)),
        ];
        for (name, hex, (h, s, l)) in table {
            let ([r, g, b], a) = parse(name).unwrap();
            let f = forms(r, g, b, a);
            assert_eq!(f.hex, hex, "{name}");
            assert_eq!((f.hsl.h, f.hsl.s, f.hsl.l), (h, s, l), "{name}");
            assert_eq!(f.name, Some(name));
            // And the HSL string parses back (by csscolorparser) to the same channels.
            let ([r2, g2, b2], _) = parse(&f.hsl_string).unwrap();
            assert_eq!((r2, g2, b2), (r, g, b), "{name} via {}", f.hsl_string);
        }
    }

    #[test]
    fn every_notation_reads_the_same_colour() {
        for text in [
            "#1e90ff",
            "#1E90FF",
            "rgb(30, 144, 255)",
            "rgb(30 144 255)",
            "rgba(30,144,255,1)",
            "DodgerBlue",
            "hsl(209.6 100% 55.9%)",
        ] {
            assert_eq!(parse(text).unwrap().0, [30, 144, 255], "{text}");
        }
        assert_eq!(parse("#0f08").unwrap(), ([0, 255, 0], 0.5333333611488342));
        assert!(parse("blurple").is_err());
        assert!(parse("rgb(300 0)").is_err());
    }

    #[test]
    fn hsl_to_rgb_round_trips_over_the_whole_cube() {
        // Our own two directions against each other, and against csscolorparser's parser of
        // the HSL text, every 7th value of each channel.
        for r in (0..=255u8).step_by(7) {
            for g in (0..=255u8).step_by(7) {
                for b in (0..=255u8).step_by(7) {
                    let (h, s, l) = hsl_of(r, g, b);
                    assert_eq!(rgb_of(h, s, l), (r, g, b));
                    let theirs = csscolorparser::parse(&format!("hsl({h}deg {s}% {l}%)")).unwrap().to_rgba8();
                    assert_eq!([theirs[0], theirs[1], theirs[2]], [r, g, b]);
                }
            }
        }
    }

    #[tokio::test]
    async fn palettes_rotate_hue_and_keep_the_rest() {
        let p = color_palette(ColorPaletteInput { color: "red".into(), kind: PaletteType::Triadic }).await.unwrap();
        let hexes: Vec<&str> = p.colors.iter().map(|s| s.color.hex.as_str()).collect();
        assert_eq!(hexes, ["#ff0000", "#00ff00", "#0000ff"]);
        let p = color_palette(ColorPaletteInput { color: "#ff0000".into(), kind: PaletteType::Complementary })
            .await
            .unwrap();
        assert_eq!(p.colors[1].color.hex, "#00ffff");
        let p = color_palette(ColorPaletteInput { color: "red".into(), kind: PaletteType::Tetradic }).await.unwrap();
        // 8-bit channels quantize the rotated hues (hsl(90, 100%, 50%) is rgb(127.5, 255, 0)).
        let hues: Vec<f64> = p.colors.iter().map(|s| s.color.hsl.h).collect();
        for (h, want) in hues.iter().zip([0.0, 90.0, 180.0, 270.0]) {
            assert!((h - want).abs() <= 0.5, "{hues:?}");
        }
        let p = color_palette(ColorPaletteInput { color: "red".into(), kind: PaletteType::SplitComplementary })
            .await
            .unwrap();
        for (s, want) in p.colors.iter().zip([0.0, 150.0, 210.0]) {
            assert!((s.color.hsl.h - want).abs() <= 0.5, "{} for {want}", s.color.hsl.h);
        }
        let p =
            color_palette(ColorPaletteInput { color: "red".into(), kind: PaletteType::Monochromatic }).await.unwrap();
        assert_eq!(p.colors.len(), 5);
        assert!(p.colors.iter().all(|s| s.color.hsl.h == 0.0 && s.color.hsl.s == 100.0));
        let ls: Vec<f64> = p.colors[1..].iter().map(|s| s.color.hsl.l).collect();
        assert!(ls.windows(2).all(|w| w[0] < w[1]), "{ls:?}");
    }
}
