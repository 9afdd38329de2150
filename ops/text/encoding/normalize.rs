//! Unicode normalization (`text/normalize`): the four forms of UAX #15, and two clean-ups
//! that are usually wanted with them: marks stripped from letters, typographic punctuation
//! made ASCII.

use unicode_normalization::{UnicodeNormalization, char::canonical_combining_class};

use wrench_contract::prelude::*;

#[derive(Debug, Deserialize, Serialize, JsonSchema, Validate, Clone, Copy, PartialEq, Eq)]
enum NormalForm {
    /// Canonical composition: `é` as one character (what the web and most systems store).
    #[serde(rename = "NFC")]
    Nfc,
    /// Canonical decomposition: `e` and a combining acute accent (what macOS file names use).
    #[serde(rename = "NFD")]
    Nfd,
    /// Compatibility composition: also `ﬁ` to `fi`, `²` to `2`, full-width to ASCII.
    #[serde(rename = "NFKC")]
    Nfkc,
    /// Compatibility decomposition.
    #[serde(rename = "NFKD")]
    Nfkd,
}

fn nfc() -> NormalForm {
    NormalForm::Nfc
}

#[derive(Debug, Deserialize, JsonSchema, Validate)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct NormalizeInput {
    /// The text.
    text: String,
    /// `NFC` (the default), `NFD`, `NFKC` or `NFKD`.
    #[serde(default = "nfc")]
    form: NormalForm,
    /// Remove the combining marks that decomposition separates from letters (`é` to `e`,
    /// `ñ` to `n`), before the form is applied.
    #[serde(default)]
    strip_diacritics: bool,
    /// Replace typographic quotes, dashes and the ellipsis with ASCII (`‘’` to `'`, `“”` to
    /// `"`, `–—` to `-`, `…` to `...`).
    #[serde(default)]
    ascii_punctuation: bool,
}

#[derive(Debug, Serialize, JsonSchema)]
struct NormalizeOutput {
    /// The normalized text.
    text: String,
    /// Whether it differs from the input.
    changed: bool,
}

fn ascii_punctuation(c: char) -> Option<&'static str> {
    Some(match c {
        '\u{2018}' | '\u{2019}' | '\u{201A}' | '\u{201B}' | '\u{2032}' => "'",
        '\u{201C}' | '\u{201D}' | '\u{201E}' | '\u{201F}' | '\u{2033}' | '\u{00AB}' | '\u{00BB}' => "\"",
        '\u{2010}' | '\u{2011}' | '\u{2012}' | '\u{2013}' | '\u{2014}' | '\u{2015}' | '\u{2212}' => "-",
        '\u{2026}' => "...",
        _ => return None,
    })
}

fn normalize(text: &str, form: NormalForm, strip: bool, punctuation: bool) -> String {
    let mut text: String =
        if strip { text.nfd().filter(|c| canonical_combining_class(*c) == 0).collect() } else { text.to_string() };
    if punctuation {
        text = text.chars().fold(String::with_capacity(text.len()), |mut out, c| {
            match ascii_punctuation(c) {
                Some(r) => out.push_str(r),
                None => out.push(c),
            }
            out
        });
    }
    match form {
        NormalForm::Nfc => text.nfc().collect(),
        NormalForm::Nfd => text.nfd().collect(),
        NormalForm::Nfkc => text.nfkc().collect(),
        NormalForm::Nfkd => text.nfkd().collect(),
    }
}

/// Normalize Unicode text (NFC, NFD, NFKC, NFKD), optionally without diacritics.
///
/// Applies one of the four normalization forms of Unicode Standard Annex #15, so that text
/// that looks the same compares the same: NFC (the default) composes `e` and an accent into
/// `é`, NFD takes them apart, and the compatibility forms NFKC and NFKD also fold ligatures,
/// superscripts, full-width letters and the like to their plain forms. `stripDiacritics`
/// removes the combining marks decomposition separates (`Crème brûlée` to `Creme brulee`;
/// letters such as `ø` or `ł` have no decomposition and stay). `asciiPunctuation` replaces
/// curly quotes, dashes and the ellipsis with ASCII. `changed` says whether anything moved.
#[op(post "/v1/text/normalize" as textNormalize, tag = TextAndData, pipe(text -> text),
     example(nfc, {"text": "Cafe\u{301}"}),
     example(nfkc, {"text": "ﬁle² ＡＢＣ", "form": "NFKC"}),
     example(strip_and_ascii, {"text": "“Crème brûlée” — naïve…", "stripDiacritics": true, "asciiPunctuation": true}))]
async fn text_normalize(ctx: &Ctx, input: NormalizeInput) -> Result<NormalizeOutput, ApiError> {
    // Decomposition grows a character into at most 18 (U+FDFA in NFKD), so the result is
    // bounded by the request; it is measured against the response limit before it is sent.
    let text = normalize(&input.text, input.form, input.strip_diacritics, input.ascii_punctuation);
    wrench_infra::bounds::OutputBudget::new(ctx.config.response_limit).add_json_string(&text)?;
    Ok(NormalizeOutput { changed: text != input.text, text })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Python's `unicodedata.normalize` in the four forms, and the same marks stripped
    /// (`unicodedata.combining`), on texts of characters older than both Unicode versions
    /// (tests/fixtures/text_transforms.py).
    #[test]
    fn python_agrees() {
        let fixture = crate::testing::fixture("text_transforms.json");
        let cases = fixture["normalize"].as_array().unwrap();
        assert!(cases.len() >= 10);
        for case in cases {
            let text = case["text"].as_str().unwrap();
            for (name, form) in [
                ("NFC", NormalForm::Nfc),
                ("NFD", NormalForm::Nfd),
                ("NFKC", NormalForm::Nfkc),
                ("NFKD", NormalForm::Nfkd),
            ] {
                assert_eq!(normalize(text, form, false, false), case[name].as_str().unwrap(), "{name} of {text:?}");
            }
            assert_eq!(normalize(text, NormalForm::Nfc, true, false), case["stripped"].as_str().unwrap(), "{text:?}");
        }
    }
}
