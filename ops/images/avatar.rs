//! Identicons: a 5 x 5 mirrored pattern and a colour, both taken from the SHA-256 of a seed,
//! so the same seed always draws the same picture.

use sha2::{Digest, Sha256};

use wrench_contract::{op::Image, prelude::*};
use wrench_kit::render::{self, Rgb, SvgOrPng};

#[derive(Debug, Deserialize, JsonSchema, Validate)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
#[schemars(transform = wrench_contract::validate::declare_aliases::<Self>)]
struct AvatarInput {
    /// Any text: a user name, an e-mail address, an id.
    #[schemars(length(min = 1, max = 256))]
    seed: String,
    /// Width and height in pixels.
    #[serde(default = "one_twenty_eight")]
    #[schemars(range(min = 16, max = 1024))]
    size: u32,
    /// Background colour, `#rrggbb` or `#rgb`.
    #[serde(default = "light", rename = "bg_color", alias = "bgColor")]
    #[schemars(length(max = 7), pattern("^#?(?:[0-9a-fA-F]{3}|[0-9a-fA-F]{6})$"))]
    bg_color: String,
    /// svg or png.
    #[serde(default)]
    format: SvgOrPng,
}

fn one_twenty_eight() -> u32 {
    128
}

fn light() -> String {
    "#f0f0f0".into()
}

/// The cells (row-major, 5 x 5, mirrored left to right) and the colour for `seed`.
fn pattern(seed: &str) -> ([bool; 25], Rgb) {
    let hash = Sha256::digest(seed.as_bytes());
    let mut cells = [false; 25];
    // Fifteen bits fill the left three columns; the right two mirror the left two.
    for row in 0..5 {
        for col in 0..3 {
            let bit = row * 3 + col;
            let on = hash[bit / 8] >> (bit % 8) & 1 == 1;
            cells[row * 5 + col] = on;
            cells[row * 5 + (4 - col)] = on;
        }
    }
    // Hue from two bytes, saturation and lightness kept in a readable band.
    let hue = u16::from_be_bytes([hash[28], hash[29]]) as f64 / 65536.0 * 360.0;
    let sat = 0.45 + hash[30] as f64 / 255.0 * 0.2;
    let lum = 0.40 + hash[31] as f64 / 255.0 * 0.15;
    let (r, g, b) = wrench_kit::color::rgb_of(hue, sat * 100.0, lum * 100.0);
    (cells, Rgb(r, g, b))
}

fn draw(input: AvatarInput) -> Result<Image, ApiError> {
    let bg = render::color("bg_color", &input.bg_color)?;
    let (cells, fg) = pattern(&input.seed);
    let size = input.size;
    // Whole-pixel cells, the pattern centred with at least half a cell of margin; the margins
    // must be equal for the mirror symmetry to hold to the pixel, so their sum must be even.
    let mut cell = size / 6;
    if (size - 5 * cell) % 2 == 1 {
        cell -= 1;
    }
    let pad = (size - 5 * cell) / 2;
    let mut rects = String::new();
    for (i, on) in cells.iter().enumerate() {
        if *on {
            let (x, y) = (pad + (i % 5) as u32 * cell, pad + (i / 5) as u32 * cell);
            rects.push_str(&format!(r#"<rect x="{x}" y="{y}" width="{cell}" height="{cell}"/>"#));
        }
    }
    let svg = format!(
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{size}" height="{size}" viewBox="0 0 {size} {size}" shape-rendering="crispEdges"><rect width="{size}" height="{size}" fill="{}"/><g fill="{}">{rects}</g></svg>"#,
        bg.hex(),
        fg.hex()
    );
    render::image(svg, size, size, input.format)
}

/// Generate an identicon avatar.
///
/// A symmetric 5 x 5 pattern in one colour, both derived from SHA-256 of `seed`: the same seed
/// always gives the same image, different seeds almost surely differ. `size` 16-1024 px
/// (default 128), background `bg_color` (#f0f0f0), SVG or PNG. Also by GET with the same
/// parameters in the query string (`/v1/avatar?seed=alice&size=64&format=png`).
#[op(post "/v1/avatar" as avatar,
     get "/v1/avatar" as avatarGet,
     tag = Images, output = image,
     example(svg, {"seed": "alice@example.com"}),
     example(png, {"seed": "bob", "size": 64, "format": "png", "bg_color": "#ffffff"}),
     example(png_default_size, {"seed": "carol", "format": "png"}),
     example(empty_seed, {"seed": ""}, status = 400),
     example(missing_seed, {}, status = 400))]
async fn avatar(input: AvatarInput) -> Result<Image, ApiError> {
    wrench_infra::cpu::run(move || draw(input)).await
}

#[cfg(test)]
mod tests {
    use super::*;
    use wrench_kit::render::decode_png;

    fn input(seed: &str, size: u32, format: SvgOrPng) -> AvatarInput {
        AvatarInput { seed: seed.into(), size, bg_color: light(), format }
    }

    #[test]
    fn the_same_seed_draws_the_same_symmetric_picture() {
        let a = draw(input("alice", 96, SvgOrPng::Png)).unwrap().bytes;
        assert_eq!(a, draw(input("alice", 96, SvgOrPng::Png)).unwrap().bytes);
        assert_ne!(a, draw(input("alicf", 96, SvgOrPng::Png)).unwrap().bytes);
        for seed in ["alice", "bob", "carol", "dave"] {
            for size in [16, 97, 128, 1024] {
                let (w, h, px) = decode_png(&draw(input(seed, size, SvgOrPng::Png)).unwrap().bytes);
                assert_eq!((w, h), (size, size));
                // Mirror symmetry about the vertical axis, pixel for pixel.
                for y in 0..h as usize {
                    for x in 0..w as usize {
                        let left = &px[(y * w as usize + x) * 4..][..3];
                        let right = &px[(y * w as usize + (w as usize - 1 - x)) * 4..][..3];
                        assert_eq!(left, right, "{seed} {size}: ({x}, {y})");
                    }
                }
            }
        }
    }

    #[test]
    fn svgs_parse_at_the_requested_size() {
        for size in [16, 128, 1024] {
            let svg = String::from_utf8(draw(input("svg", size, SvgOrPng::Svg)).unwrap().bytes).unwrap();
            let tree = resvg::usvg::Tree::from_str(&svg, &resvg::usvg::Options::default()).unwrap();
            assert_eq!((tree.size().width(), tree.size().height()), (size as f32, size as f32));
        }
    }

    #[test]
    fn patterns_vary_across_seeds() {
        let distinct: std::collections::HashSet<[bool; 25]> =
            (0..200).map(|i| pattern(&format!("user{i}")).0).collect();
        assert!(distinct.len() > 190, "{} distinct patterns of 200", distinct.len());
    }
}
