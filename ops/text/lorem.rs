//! Placeholder text.

use wrench_contract::prelude::*;

#[derive(Debug, Deserialize, JsonSchema, Validate, Clone, Copy, Serialize, PartialEq)]
#[serde(rename_all = "lowercase")]
enum LoremType {
    Paragraphs,
    Sentences,
    Words,
}

#[derive(Debug, Deserialize, JsonSchema, Validate)]
#[serde(deny_unknown_fields)]
struct LoremInput {
    /// What to count.
    #[serde(rename = "type")]
    kind: LoremType,
    /// How many paragraphs, sentences or words.
    #[serde(default = "three")]
    #[schemars(range(min = 1, max = 100))]
    count: u32,
}

fn three() -> u32 {
    3
}

#[derive(Debug, Serialize, JsonSchema)]
struct LoremOutput {
    /// The generated text; paragraphs are separated by a blank line.
    text: String,
    /// The count asked for.
    count: u32,
    /// The unit asked for.
    #[serde(rename = "type")]
    kind: LoremType,
}

fn sentence(words: usize) -> String {
    let raw = lipsum::lipsum_words(words);
    let mut text: String = raw.trim_end_matches(['.', ',', ';', ':', '?', '!']).to_string();
    if let Some(first) = text.get(..1) {
        text = first.to_uppercase() + &text[1..];
    }
    text.push('.');
    text
}

/// Length of the n-th sentence or paragraph: varied like real prose, without a random source.
fn varied(i: usize, base: usize, spread: usize) -> usize {
    base + (i * 7 + 3) % spread
}

/// Generate Lorem ipsum placeholder text.
///
/// The text always starts with the classic "Lorem ipsum dolor sit amet"; the rest is drawn at
/// random from the traditional Latin vocabulary. Sentences are 6 to 14 words, paragraphs 4 to
/// 7 sentences, separated by a blank line. With `type: words`, exactly `count` words.
#[op(post "/v1/lorem/generate" as loremGenerate, tag = TextAndData,
     redact(".data.text"),
     example(paragraphs, {"type": "paragraphs", "count": 2}),
     example(one_word, {"type": "words", "count": 1}),
     example(sentences_default_count, {"type": "sentences"}))]
async fn lorem_generate(input: LoremInput) -> Result<LoremOutput, ApiError> {
    let n = input.count as usize;
    let text = match input.kind {
        LoremType::Words => lipsum::lipsum(n).trim_end_matches(['.', ',', ';', ':', '?', '!']).to_string(),
        LoremType::Sentences => {
            let mut s: Vec<String> = (0..n).map(|i| sentence(varied(i, 6, 9))).collect();
            s[0] = lorem_start(varied(0, 6, 9));
            s.join(" ")
        }
        LoremType::Paragraphs => {
            let mut paragraphs = Vec::with_capacity(n);
            for p in 0..n {
                let mut s: Vec<String> = (0..varied(p, 4, 4)).map(|i| sentence(varied(p + i, 6, 9))).collect();
                if p == 0 {
                    s[0] = lorem_start(varied(0, 6, 9));
                }
                paragraphs.push(s.join(" "));
            }
            paragraphs.join("\n\n")
        }
    };
    Ok(LoremOutput { text, count: input.count, kind: input.kind })
}

/// The classic opening sentence, `words` long.
fn lorem_start(words: usize) -> String {
    let mut s = lipsum::lipsum(words).trim_end_matches(['.', ',', ';', ':', '?', '!']).to_string();
    s.push('.');
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn counts_are_exact() {
        for n in [1, 2, 17, 100] {
            let words = lorem_generate(LoremInput { kind: LoremType::Words, count: n }).await.unwrap();
            assert_eq!(words.text.split_whitespace().count(), n as usize);
            assert!(words.text.starts_with("Lorem"));
            let paras = lorem_generate(LoremInput { kind: LoremType::Paragraphs, count: n }).await.unwrap();
            assert_eq!(paras.text.split("\n\n").count(), n as usize);
            let sentences = lorem_generate(LoremInput { kind: LoremType::Sentences, count: n }).await.unwrap();
            assert_eq!(sentences.text.matches(". ").count() + 1, n as usize, "{}", sentences.text);
        }
    }
}
