//! Letter rotations (`rot`): ROT13, ROT18 (ROT13 and ROT5 on digits), ROT47 (all printable
//! ASCII) and Caesar shifts of any distance. Each is its own inverse but Caesar, which a shift
//! of 26 minus the distance undoes.

use wrench_contract::prelude::*;

#[derive(Debug, Deserialize, Serialize, JsonSchema, Validate, Clone, Copy, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
enum Rotation {
    /// Letters by 13.
    Rot13,
    /// Letters by 13 and digits by 5.
    Rot18,
    /// The 94 printable ASCII characters from `!` to `~` by 47.
    Rot47,
    /// Letters by `shift`.
    Caesar,
}

#[derive(Debug, Deserialize, JsonSchema, Validate)]
#[serde(deny_unknown_fields)]
struct RotInput {
    /// The text.
    text: String,
    /// `rot13`, `rot18`, `rot47` or `caesar`.
    variant: Rotation,
    /// How far `caesar` moves each letter (0-25; 3 by default, Caesar's own). Only for
    /// `caesar`.
    #[serde(default)]
    #[schemars(range(min = 0, max = 25))]
    shift: Option<u8>,
}

#[derive(Debug, Serialize, JsonSchema)]
struct RotOutput {
    /// The rotated text; everything the rotation does not cover is left as it is.
    text: String,
}

fn letters(c: char, by: u8) -> char {
    match c {
        'a'..='z' => ((c as u8 - b'a' + by) % 26 + b'a') as char,
        'A'..='Z' => ((c as u8 - b'A' + by) % 26 + b'A') as char,
        _ => c,
    }
}

fn rotate(text: &str, variant: Rotation, shift: u8) -> String {
    text.chars()
        .map(|c| match variant {
            Rotation::Rot13 => letters(c, 13),
            Rotation::Caesar => letters(c, shift),
            Rotation::Rot18 if c.is_ascii_digit() => ((c as u8 - b'0' + 5) % 10 + b'0') as char,
            Rotation::Rot18 => letters(c, 13),
            Rotation::Rot47 if ('!'..='~').contains(&c) => (33 + (c as u8 - 33 + 47) % 94) as char,
            Rotation::Rot47 => c,
        })
        .collect()
}

/// Rotate letters: ROT13, ROT18, ROT47 or a Caesar shift.
///
/// ROT13 moves ASCII letters 13 places (so applying it twice gives the text back); ROT18 also
/// moves digits 5 places; ROT47 moves every printable ASCII character from `!` to `~` 47
/// places; `caesar` moves letters `shift` places (3 by default), which a shift of 26 minus it
/// undoes. Case is kept, and every other character is left as it is.
#[op(post "/v1/rot" as rot, tag = TextAndData, pipe(text -> text),
     rejects = "a `shift` for a variant other than `caesar`",
     example(rot13, {"text": "Hello, World!", "variant": "rot13"}),
     example(rot47, {"text": "Hello, World! 123", "variant": "rot47"}),
     example(caesar, {"text": "Veni, vidi, vici", "variant": "caesar", "shift": 3}),
     example(shift_without_caesar, {"text": "x", "variant": "rot13", "shift": 4}, status = 400))]
async fn rot(input: RotInput) -> Result<RotOutput, ApiError> {
    if input.shift.is_some() && input.variant != Rotation::Caesar {
        return Err(ApiError::invalid("shift", "only the caesar variant takes a shift"));
    }
    Ok(RotOutput { text: rotate(&input.text, input.variant, input.shift.unwrap_or(3)) })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Python's `codecs.encode(text, "rot_13")` and the ROT47, ROT18 and Caesar formulas
    /// applied by Python to the same texts (tests/fixtures/text_transforms.py).
    #[test]
    fn python_agrees() {
        let fixture = crate::testing::fixture("text_transforms.json");
        let cases = fixture["rot"].as_array().unwrap();
        assert!(cases.len() >= 10);
        for case in cases {
            let text = case["text"].as_str().unwrap();
            assert_eq!(rotate(text, Rotation::Rot13, 0), case["rot13"].as_str().unwrap());
            assert_eq!(rotate(text, Rotation::Rot18, 0), case["rot18"].as_str().unwrap());
            assert_eq!(rotate(text, Rotation::Rot47, 0), case["rot47"].as_str().unwrap());
            assert_eq!(rotate(text, Rotation::Caesar, 3), case["caesar3"].as_str().unwrap());
            for variant in [Rotation::Rot13, Rotation::Rot18, Rotation::Rot47] {
                assert_eq!(rotate(&rotate(text, variant, 0), variant, 0), text);
            }
            assert_eq!(rotate(&rotate(text, Rotation::Caesar, 3), Rotation::Caesar, 23), text);
        }
    }
}
