//! Colour space conversions shared by the colour operation and the image generators.

/// 8-bit sRGB from HSL (CSS Color 4, section 7.1 `hslToRgb`); saturation and lightness in
/// percent.
pub fn rgb_of(h: f64, s: f64, l: f64) -> (u8, u8, u8) {
    let (s, l) = (s / 100.0, l / 100.0);
    let h = h.rem_euclid(360.0);
    let f = |n: f64| {
        let k = (n + h / 30.0) % 12.0;
        let a = s * l.min(1.0 - l);
        l - a * (k - 3.0).min(9.0 - k).clamp(-1.0, 1.0)
    };
    let to8 = |x: f64| (x * 255.0).round().clamp(0.0, 255.0) as u8;
    (to8(f(0.0)), to8(f(8.0)), to8(f(4.0)))
}
