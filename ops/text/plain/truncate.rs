//! Shortening a text to a length in code points (`text/truncate`), at a word or sentence
//! boundary when asked, with a suffix that counts toward the length.

use wrench_contract::prelude::*;

#[derive(Debug, Deserialize, Serialize, JsonSchema, Validate, Clone, Copy, PartialEq)]
#[serde(rename_all = "lowercase")]
enum Boundary {
    Word,
    Sentence,
}

#[derive(Debug, Deserialize, JsonSchema, Validate)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
#[schemars(transform = wrench_contract::validate::declare_aliases::<Self>)]
struct TruncateInput {
    /// The text to shorten.
    text: String,
    /// Longest result, suffix included, in Unicode code points.
    #[schemars(range(min = 1, max = 1000000))]
    #[serde(rename = "max_length", alias = "maxLength")]
    max_length: u32,
    /// Where to cut: after the last whole word, or after the last whole sentence.
    #[serde(default = "word")]
    boundary: Boundary,
    /// Appended when the text is cut at a word boundary.
    #[serde(default = "ellipsis")]
    #[schemars(length(max = 100))]
    suffix: String,
}

fn word() -> Boundary {
    Boundary::Word
}

fn ellipsis() -> String {
    "...".to_string()
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct TruncateOutput {
    /// The shortened text (the original when it already fits).
    truncated: String,
    /// Whether anything was cut.
    was_truncated: bool,
    /// Length of the input in code points.
    original_length: usize,
    /// Length of the result in code points.
    truncated_length: usize,
}

fn truncate(text: &str, max: usize, boundary: Boundary, suffix: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    if chars.len() <= max {
        return text.to_string();
    }
    let suffix_len = suffix.chars().count();
    if suffix_len >= max {
        // No room for text and suffix: a hard cut is the only honest answer.
        return chars[..max].iter().collect();
    }
    let budget = max - suffix_len;
    let head = &chars[..budget];
    let next_is_space = chars[budget].is_whitespace();
    if boundary == Boundary::Sentence {
        let full = &chars[..max];
        let end = (0..full.len()).rev().find(|&i| {
            matches!(full[i], '.' | '!' | '?' | '…' | '。' | '！' | '？')
                && chars.get(i + 1).is_none_or(|c| c.is_whitespace() || matches!(c, '"' | '\'' | ')' | '”'))
        });
        if let Some(i) = end {
            return full[..=i].iter().collect();
        }
    }
    let cut = if next_is_space {
        budget
    } else {
        match head.iter().rposition(|c| c.is_whitespace()) {
            Some(i) if i > 0 => i,
            _ => budget,
        }
    };
    let kept: String = head[..cut].iter().collect();
    let kept = kept.trim_end().trim_end_matches([',', ';', ':', '-', '–', '—']).trim_end();
    format!("{kept}{suffix}")
}

/// Shorten text at a word or sentence boundary.
///
/// The result is at most `max_length` code points. At a word boundary the text is cut after
/// the last whole word that fits with the suffix (default "...") and trailing punctuation such
/// as commas is dropped before the suffix. At a sentence boundary it ends after the last whole
/// sentence that fits, with that sentence's own punctuation and no suffix; when not even one
/// sentence fits, it falls back to a word boundary. A single word longer than the room left is
/// cut inside the word. If the suffix alone is as long as `max_length`, the text is cut hard
/// without a suffix.
#[op(post "/v1/text/truncate" as textTruncate, tag = TextAndData, pipe(text -> truncated),
     example(word, {"text": "The quick brown fox jumps over the lazy dog", "max_length": 20}),
     example(sentence, {"text": "First sentence. Second one is longer! Third?", "max_length": 40, "boundary": "sentence"}),
     example(custom_suffix_fits_already, {"text": "Short enough", "max_length": 50, "suffix": " [more]"}))]
async fn text_truncate(input: TruncateInput) -> Result<TruncateOutput, ApiError> {
    let original_length = input.text.chars().count();
    let truncated = truncate(&input.text, input.max_length as usize, input.boundary, &input.suffix);
    let truncated_length = truncated.chars().count();
    Ok(TruncateOutput { was_truncated: truncated != input.text, truncated, original_length, truncated_length })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn truncation_rules() {
        let t = "The quick brown fox jumps over the lazy dog";
        assert_eq!(truncate(t, 20, Boundary::Word, "..."), "The quick brown...");
        assert_eq!(truncate(t, 100, Boundary::Word, "..."), t);
        assert_eq!(
            truncate("Supercalifragilistic", 10, Boundary::Word, "..."),
            "Supercal...".chars().take(7).collect::<String>() + "..."
        );
        assert_eq!(truncate("A. B c d e f", 6, Boundary::Sentence, "..."), "A.");
        assert_eq!(truncate("abcdef", 2, Boundary::Word, "..."), "ab");
        for max in 1..50 {
            assert!(truncate(t, max, Boundary::Word, "...").chars().count() <= max);
            assert!(truncate(t, max, Boundary::Sentence, "…").chars().count() <= max);
        }
    }
}
