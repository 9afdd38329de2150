//! Statistics of a text (`text/stats`): characters, graphemes, words, sentences, paragraphs and
//! reading time, by Unicode's segmentation rules (UAX #29), so text in any script counts sensibly.

use unicode_segmentation::UnicodeSegmentation;

use wrench_contract::prelude::*;

#[derive(Debug, Deserialize, JsonSchema, Validate)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct TextStatsInput {
    /// The text to measure.
    text: String,
    /// Reading speed used for the reading time.
    #[serde(default = "default_wpm")]
    #[schemars(range(min = 50, max = 1000))]
    words_per_minute: u32,
}

fn default_wpm() -> u32 {
    200
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct TextStatsOutput {
    /// Unicode code points.
    characters: usize,
    /// Code points that are not whitespace.
    characters_no_spaces: usize,
    /// User-perceived characters (extended grapheme clusters): what a person would count.
    graphemes: usize,
    /// Words, by Unicode word boundaries (each CJK ideograph counts as one).
    words: usize,
    /// Sentences that contain at least one word.
    sentences: usize,
    /// Blocks of text separated by blank lines.
    paragraphs: usize,
    /// Lines (a final line break does not start a new line).
    lines: usize,
    /// Size in UTF-8 bytes.
    bytes: usize,
    /// The reading speed used.
    words_per_minute: u32,
    /// words / wordsPerMinute, rounded to two decimals.
    reading_time_minutes: f64,
    /// Reading time rounded up to whole seconds.
    reading_time_seconds: u64,
    /// Human-readable reading time, e.g. "3 min read" (never less than 1 minute when there are words).
    reading_time: String,
}

/// Count characters, words, sentences and paragraphs, and estimate reading time.
///
/// Counting follows Unicode text segmentation (UAX #29): words and sentences are found the
/// same way in every script, and `graphemes` counts what a reader sees as characters (an emoji
/// with modifiers is one). Reading time assumes `wordsPerMinute` (default 200, a common
/// figure for adult silent reading of screen text).
#[op(post "/v1/text/stats" as textStats, tag = TextAndData,
     example(typical, {"text": "Hello world. This is wrench!\n\nIt counts words, sentences and paragraphs."}),
     example(unicode, {"text": "Crème brûlée 👩‍👩‍👧 — 東京へ行きます。", "wordsPerMinute": 120}),
     example(empty, {"text": ""}))]
async fn text_stats(input: TextStatsInput) -> Result<TextStatsOutput, ApiError> {
    let t = &input.text;
    let words = t.unicode_words().count();
    let wpm = input.words_per_minute;
    let minutes = words as f64 / wpm as f64;
    let seconds = (words as u64 * 60).div_ceil(wpm as u64);
    let paragraphs = paragraphs(t);
    Ok(TextStatsOutput {
        characters: t.chars().count(),
        characters_no_spaces: t.chars().filter(|c| !c.is_whitespace()).count(),
        graphemes: t.graphemes(true).count(),
        words,
        sentences: sentences(t),
        paragraphs,
        lines: t.lines().count(),
        bytes: t.len(),
        words_per_minute: wpm,
        reading_time_minutes: (minutes * 100.0).round() / 100.0,
        reading_time_seconds: seconds,
        reading_time: if words == 0 {
            "0 min read".into()
        } else {
            format!("{} min read", (seconds.div_ceil(60)).max(1))
        },
    })
}

/// Sentences with at least one word. A plain loop: unicode-segmentation's sentence iterator
/// underflows in `size_hint` on empty input, which adapters such as `count` may call.
fn sentences(t: &str) -> usize {
    let mut n = 0;
    if t.is_empty() {
        return 0;
    }
    for s in t.unicode_sentences() {
        if s.unicode_words().next().is_some() {
            n += 1;
        }
    }
    n
}

fn paragraphs(t: &str) -> usize {
    let mut count = 0;
    let mut in_para = false;
    for line in t.lines() {
        if line.trim().is_empty() {
            in_para = false;
        } else if !in_para {
            count += 1;
            in_para = true;
        }
    }
    count
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stats_count_by_unicode_rules() {
        assert_eq!(paragraphs("a\n\n\nb\nc\n \nd"), 3);
        assert_eq!(sentences("Hello world. Bye! ..."), 2);
        assert_eq!(sentences(""), 0);
        assert_eq!(sentences("   "), 0);
    }
}
