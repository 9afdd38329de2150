//! A text in another case convention (`text/case`): 19 styles, the words split as npm
//! `change-case` 5 splits them, so every style agrees with it and with each other.
//!
//! Splitting: a boundary goes between a lower-case letter or digit and an upper-case letter
//! (`fooBar`), and before the last capital of a run followed by a lower-case letter
//! (`HTTPResponse` is `HTTP` `Response`); every run of characters that are neither letters nor
//! ASCII digits separates words and is dropped. Camel and Pascal case put `_` before a word
//! that starts with a digit (`version_1_2`), so the words stay apart.

use std::sync::LazyLock;

use regex::Regex;

use wrench_contract::prelude::*;

#[derive(Debug, Deserialize, JsonSchema, Validate, Clone, Copy, Serialize)]
#[serde(rename_all = "lowercase")]
enum Case {
    /// camelCase
    Camel,
    /// snake_case
    Snake,
    /// kebab-case
    Kebab,
    /// PascalCase
    Pascal,
    /// CONSTANT_CASE
    Constant,
    /// Capital Case
    Capital,
    /// Sentence case
    Sentence,
    /// dot.case
    Dot,
    /// path/case
    Path,
    /// no case: lower-case words and spaces
    No,
    /// Train-Case (HTTP header style)
    Train,
    /// Header-Case, the same as train
    Header,
    /// Pascal_Snake_Case
    Pascalsnake,
    /// COBOL-CASE
    Cobol,
    /// the whole text in lower case, unsplit
    Lower,
    /// THE WHOLE TEXT IN UPPER CASE, UNSPLIT
    Upper,
    /// sWAP cASE: each letter's case inverted, unsplit
    Swap,
    /// aLtErNaTiNg caps (mocking), by character, unsplit
    Mocking,
}

#[derive(Debug, Deserialize, JsonSchema, Validate)]
#[serde(deny_unknown_fields)]
struct CaseInput {
    /// The text to convert.
    text: String,
    /// Target case.
    to: Case,
}

#[derive(Debug, Serialize, JsonSchema)]
struct CaseOutput {
    /// The converted text.
    converted: String,
    /// The case it was converted to.
    to: Case,
}

static LOWER_UPPER: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"([\p{Ll}0-9])(\p{Lu})").expect("valid"));
static UPPER_UPPER: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"(\p{Lu})(\p{Lu}\p{Ll})").expect("valid"));
static SEPARATORS: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"[^\p{L}0-9]+").expect("valid"));

/// The words of `text`, as change-case's `split` finds them.
fn words(text: &str) -> Vec<String> {
    let marked = LOWER_UPPER.replace_all(text.trim(), "$1\0$2");
    let marked = UPPER_UPPER.replace_all(&marked, "$1\0$2");
    let marked = SEPARATORS.replace_all(&marked, "\0");
    marked.split('\0').filter(|w| !w.is_empty()).map(str::to_string).collect()
}

/// First character upper case, the rest lower.
fn capital(word: &str) -> String {
    let mut chars = word.chars();
    chars.next().map_or_else(String::new, |c| c.to_uppercase().chain(chars.as_str().to_lowercase().chars()).collect())
}

/// Capital, but a word after the first that starts with a digit gets `_` instead.
fn pascal_word(word: &str, index: usize) -> String {
    if index > 0 && word.starts_with(|c: char| c.is_ascii_digit()) {
        format!("_{}", word.to_lowercase())
    } else {
        capital(word)
    }
}

fn joined(words: &[String], sep: &str, each: impl Fn(usize, &str) -> String) -> String {
    words.iter().enumerate().map(|(i, w)| each(i, w)).collect::<Vec<_>>().join(sep)
}

fn convert(text: &str, to: Case) -> String {
    let lower = |_: usize, w: &str| w.to_lowercase();
    let upper = |_: usize, w: &str| w.to_uppercase();
    let cap = |_: usize, w: &str| capital(w);
    match to {
        Case::Lower => return text.to_lowercase(),
        Case::Upper => return text.to_uppercase(),
        Case::Swap => {
            return text
                .chars()
                .flat_map(|c| {
                    if c.is_lowercase() { c.to_uppercase().collect::<Vec<_>>() } else { c.to_lowercase().collect() }
                })
                .collect();
        }
        Case::Mocking => {
            return text
                .chars()
                .enumerate()
                .flat_map(
                    |(i, c)| if i % 2 == 0 { c.to_uppercase().collect::<Vec<_>>() } else { c.to_lowercase().collect() },
                )
                .collect();
        }
        _ => {}
    }
    let w = words(text);
    match to {
        Case::Camel => joined(&w, "", |i, w| if i == 0 { w.to_lowercase() } else { pascal_word(w, i) }),
        Case::Pascal => joined(&w, "", |i, w| pascal_word(w, i)),
        Case::Snake => joined(&w, "_", lower),
        Case::Kebab => joined(&w, "-", lower),
        Case::Dot => joined(&w, ".", lower),
        Case::Path => joined(&w, "/", lower),
        Case::No => joined(&w, " ", lower),
        Case::Constant => joined(&w, "_", upper),
        Case::Cobol => joined(&w, "-", upper),
        Case::Capital => joined(&w, " ", cap),
        Case::Train | Case::Header => joined(&w, "-", cap),
        Case::Pascalsnake => joined(&w, "_", cap),
        Case::Sentence => joined(&w, " ", |i, w| if i == 0 { capital(w) } else { w.to_lowercase() }),
        Case::Lower | Case::Upper | Case::Swap | Case::Mocking => unreachable!("handled above"),
    }
}

/// Convert text between identifier cases.
///
/// Splits the text into words as npm `change-case` 5 does (at lower-to-upper changes, before
/// the last capital of an acronym, and at any run of characters that are not letters or
/// digits), then joins them in the style asked for: camel, snake, kebab, pascal, constant,
/// capital, sentence, dot, path, no, train (or header), pascalsnake or cobol. `lower`, `upper`,
/// `swap` and `mocking` change letters in place without splitting. Letters outside ASCII are
/// cased by Unicode rules (`ß` upper-cases to `SS`).
#[op(post "/v1/text/case" as textCase, tag = TextAndData, pipe(text -> converted),
     example(snake, {"text": "parseHTTPResponse body", "to": "snake"}),
     example(camel, {"text": "user-account_ID", "to": "camel"}),
     example(constant_unicode, {"text": "größe der Datei", "to": "constant"}),
     example(train, {"text": "content type", "to": "train"}),
     example(mocking, {"text": "no way", "to": "mocking"}),
     example(unknown_case, {"text": "x", "to": "title"}, status = 400))]
async fn text_case(input: CaseInput) -> Result<CaseOutput, ApiError> {
    Ok(CaseOutput { converted: convert(&input.text, input.to), to: input.to })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// npm change-case 5.4.4 (tests/fixtures/case.mjs) on generated texts, every style it has;
    /// the styles it lacks (lower, upper, swap, mocking, cobol) against the JavaScript that
    /// it-tools writes for them, in the same fixture.
    #[test]
    fn change_cases_styles() {
        let f = crate::testing::fixture("case.json");
        let cases = f.as_array().unwrap();
        assert!(cases.len() >= 100);
        for c in cases {
            let text = c["text"].as_str().unwrap();
            for (style, want) in c["styles"].as_object().unwrap() {
                let to: Case = serde_json::from_value(serde_json::json!(style)).unwrap();
                assert_eq!(convert(text, to), want.as_str().unwrap(), "{text:?} as {style}");
            }
        }
    }
}
