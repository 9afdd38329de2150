//! Plain-text utilities: statistics, slugs, truncation, URL and e-mail extraction, language
//! detection and case conversion.
//!
//! Words, sentences and graphemes follow Unicode's segmentation rules (UAX #29), so text in
//! any script is counted sensibly; lengths given to and by clients are in Unicode code points.

use std::collections::HashSet;

use heck::{ToKebabCase, ToLowerCamelCase, ToShoutySnakeCase, ToSnakeCase, ToUpperCamelCase};
use linkify::{LinkFinder, LinkKind};
use unicode_segmentation::UnicodeSegmentation;

use crate::prelude::*;

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

#[derive(Debug, Deserialize, Serialize, JsonSchema, Validate, Clone, Copy, PartialEq)]
enum Separator {
    #[serde(rename = "-")]
    #[schemars(rename = "-")]
    Dash,
    #[serde(rename = "_")]
    #[schemars(rename = "_")]
    Underscore,
}

#[derive(Debug, Deserialize, JsonSchema, Validate)]
#[serde(deny_unknown_fields)]
struct SlugifyInput {
    /// The text to turn into a slug.
    text: String,
    /// Character between words.
    #[serde(default = "dash")]
    separator: Separator,
}

fn dash() -> Separator {
    Separator::Dash
}

#[derive(Debug, Serialize, JsonSchema)]
struct SlugifyOutput {
    /// Lower-case ASCII letters and digits joined by the separator; empty when the text has none.
    slug: String,
}

pub(crate) fn slugify(text: &str, sep: char) -> String {
    let ascii = deunicode::deunicode(text);
    let mut out = String::with_capacity(ascii.len());
    let mut pending = false;
    for c in ascii.chars() {
        if c.is_ascii_alphanumeric() {
            if pending && !out.is_empty() {
                out.push(sep);
            }
            pending = false;
            out.push(c.to_ascii_lowercase());
        } else if c != '\'' {
            // Apostrophes join ("don't" -> "dont"); everything else separates.
            pending = true;
        }
    }
    out
}

/// Turn text into a URL slug.
///
/// Transliterates to ASCII first ("Crème Brûlée" becomes "creme-brulee", "Straße" becomes
/// "strasse", "北京" becomes "bei-jing"), lower-cases, and joins the runs of letters and digits
/// with the separator. Apostrophes are dropped without a break ("don't" becomes "dont").
#[op(post "/v1/text/slugify" as textSlugify, tag = TextAndData,
     example(accents, {"text": "Crème Brûlée: the recipe!"}),
     example(underscore_and_scripts, {"text": "Straße nach 北京 — don't stop", "separator": "_"}),
     example(nothing_left, {"text": "!!! ???"}))]
async fn text_slugify(input: SlugifyInput) -> Result<SlugifyOutput, ApiError> {
    let sep = if input.separator == Separator::Dash { '-' } else { '_' };
    Ok(SlugifyOutput { slug: slugify(&input.text, sep) })
}

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
#[op(post "/v1/text/truncate" as textTruncate, tag = TextAndData,
     example(word, {"text": "The quick brown fox jumps over the lazy dog", "max_length": 20}),
     example(sentence, {"text": "First sentence. Second one is longer! Third?", "max_length": 40, "boundary": "sentence"}),
     example(custom_suffix_fits_already, {"text": "Short enough", "max_length": 50, "suffix": " [more]"}))]
async fn text_truncate(input: TruncateInput) -> Result<TruncateOutput, ApiError> {
    let original_length = input.text.chars().count();
    let truncated = truncate(&input.text, input.max_length as usize, input.boundary, &input.suffix);
    let truncated_length = truncated.chars().count();
    Ok(TruncateOutput { was_truncated: truncated != input.text, truncated, original_length, truncated_length })
}

#[derive(Debug, Deserialize, JsonSchema, Validate)]
#[serde(deny_unknown_fields)]
struct ExtractInput {
    /// The text to search.
    text: String,
}

#[derive(Debug, Serialize, JsonSchema)]
struct ExtractUrlsOutput {
    /// Distinct URLs in order of first appearance.
    urls: Vec<String>,
    /// Number of distinct URLs.
    count: usize,
}

/// Trailing characters that end a sentence rather than a URL.
fn trim_url(u: &str) -> &str {
    let mut u = u.trim_end_matches(['.', ',', ';', ':', '!', '?', '\'', '"']);
    // Keep a closing bracket only when the URL opened one (Wikipedia-style links).
    while let Some(last) = u.chars().last().filter(|c| matches!(c, ')' | ']' | '}')) {
        let open = match last {
            ')' => '(',
            ']' => '[',
            _ => '{',
        };
        if u.matches(open).count() >= u.matches(last).count() {
            break;
        }
        u = &u[..u.len() - 1];
        u = u.trim_end_matches(['.', ',', ';', ':', '!', '?']);
    }
    u
}

fn protocol_relative(text: &str) -> Vec<(usize, String)> {
    static RE: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| {
        regex::Regex::new(
            r#"(?:^|[\s(\[<"'=])(//[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?)*\.[A-Za-z]{2,63}(?::[0-9]{1,5})?(?:[/?#][^\s<>"'`]*)?)"#,
        )
        .expect("valid pattern")
    });
    RE.captures_iter(text).filter_map(|c| c.get(1)).map(|m| (m.start(), trim_url(m.as_str()).to_string())).collect()
}

/// Find the URLs in text.
///
/// Finds `http://` and `https://` URLs (any letter case in the scheme) and protocol-relative
/// ones (`//cdn.example.com/x.js`), in order of first appearance and without duplicates.
/// Punctuation that ends the surrounding sentence is not part of a URL; a closing bracket is
/// kept when the URL itself opened one. Bare domains such as `example.com` are not URLs here.
#[op(post "/v1/text/extract-urls" as textExtractUrls, tag = TextAndData,
     example(typical, {"text": "See https://example.com/docs?page=2, then http://wiki.example.org/Rust_(language). Assets: //cdn.example.net/app.js and https://example.com/docs?page=2 again."}),
     example(none, {"text": "No links here, just example.com and ftp://old.example.org"}))]
async fn text_extract_urls(input: ExtractInput) -> Result<ExtractUrlsOutput, ApiError> {
    let mut finder = LinkFinder::new();
    finder.kinds(&[LinkKind::Url]).url_must_have_scheme(true);
    let mut found: Vec<(usize, String)> = finder
        .links(&input.text)
        .filter(|l| {
            let s = l.as_str().to_ascii_lowercase();
            s.starts_with("http://") || s.starts_with("https://")
        })
        .map(|l| (l.start(), trim_url(l.as_str()).to_string()))
        .collect();
    found.extend(protocol_relative(&input.text));
    found.sort_by_key(|(pos, _)| *pos);
    let mut seen = HashSet::new();
    let urls: Vec<String> = found.into_iter().map(|(_, u)| u).filter(|u| seen.insert(u.clone())).collect();
    Ok(ExtractUrlsOutput { count: urls.len(), urls })
}

#[derive(Debug, Serialize, JsonSchema)]
struct ExtractEmailsOutput {
    /// Distinct addresses in order of first appearance, as first written.
    emails: Vec<String>,
    /// Number of distinct addresses.
    count: usize,
}

/// Find the e-mail addresses in text.
///
/// Returns each address once, in order of first appearance, as it was first written;
/// duplicates are recognised regardless of letter case. The domain must contain a dot, so
/// `user@localhost` is not reported.
#[op(post "/v1/text/extract-emails" as textExtractEmails, tag = TextAndData,
     example(typical, {"text": "Contact sales@example.com or Support <support+eu@example.co.uk>; cc SALES@EXAMPLE.COM."}),
     example(none, {"text": "No addresses: user@localhost, @handle, a@b"}))]
async fn text_extract_emails(input: ExtractInput) -> Result<ExtractEmailsOutput, ApiError> {
    let mut finder = LinkFinder::new();
    finder.kinds(&[LinkKind::Email]).email_domain_must_have_dot(true);
    let mut seen = HashSet::new();
    let emails: Vec<String> =
        finder.links(&input.text).map(|l| l.as_str().to_string()).filter(|e| seen.insert(e.to_lowercase())).collect();
    Ok(ExtractEmailsOutput { count: emails.len(), emails })
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct LanguageGuess {
    /// ISO 639-3 code.
    code: String,
    /// English name.
    name: String,
    /// The language's own name for itself.
    native_name: String,
    /// Relative score among the candidates, 0 to 1.
    score: f64,
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct LanguageOutput {
    /// Whether a language could be detected at all (text without letters cannot).
    detected: bool,
    /// ISO 639-3 code of the most likely language.
    #[serde(skip_serializing_if = "Option::is_none")]
    language: Option<String>,
    /// English name of the most likely language.
    #[serde(skip_serializing_if = "Option::is_none")]
    name: Option<String>,
    /// Writing system of the text.
    #[serde(skip_serializing_if = "Option::is_none")]
    script: Option<String>,
    /// Confidence in the top language, 0 to 1.
    confidence: f64,
    /// Whether the detector considers the answer reliable (enough text, clear margin).
    reliable: bool,
    /// Up to five most likely languages with scores, best first.
    candidates: Vec<LanguageGuess>,
}

fn guess(lang: whatlang::Lang, score: f64) -> LanguageGuess {
    LanguageGuess {
        code: lang.code().to_string(),
        name: lang.eng_name().to_string(),
        native_name: lang.name().to_string(),
        score: (score * 1000.0).round() / 1000.0,
    }
}

/// Detect the language of text.
///
/// Recognises 70 languages in 24 scripts (whatlang's trigram and alphabet models) and returns
/// the most likely one as an ISO 639-3 code with a confidence, the script, and up to five
/// candidates with relative scores. Short texts are hard: `reliable` is false when the margin
/// or the amount of text is too small to trust. Text without letters gives `detected: false`.
#[op(post "/v1/text/language" as textLanguage, tag = TextAndData,
     example(french, {"text": "Le vif renard brun saute par-dessus le chien paresseux. C'est une phrase assez longue pour être fiable."}),
     example(cyrillic, {"text": "Быстрая коричневая лиса прыгает через ленивую собаку."}),
     example(no_letters, {"text": "1234 !!! 5678"}))]
async fn text_language(input: ExtractInput) -> Result<LanguageOutput, ApiError> {
    let Some(info) = whatlang::detect(&input.text) else {
        return Ok(LanguageOutput {
            detected: false,
            language: None,
            name: None,
            script: None,
            confidence: 0.0,
            reliable: false,
            candidates: Vec::new(),
        });
    };
    let mut candidates = match whatlang::dev::raw_detect(&input.text).lang_info {
        Some(whatlang::dev::RawLangInfo::MultiScript(raw)) => {
            let mut scores: Vec<(whatlang::Lang, f64)> = raw.scores.into_iter().filter(|(_, s)| *s > 0.0).collect();
            scores.sort_by(|a, b| b.1.total_cmp(&a.1));
            scores.truncate(5);
            let total: f64 = scores.iter().map(|(_, s)| s).sum();
            scores.into_iter().map(|(l, s)| guess(l, if total > 0.0 { s / total } else { 0.0 })).collect()
        }
        _ => vec![guess(info.lang(), 1.0)],
    };
    if candidates.is_empty() {
        candidates.push(guess(info.lang(), 1.0));
    }
    Ok(LanguageOutput {
        detected: true,
        language: Some(info.lang().code().to_string()),
        name: Some(info.lang().eng_name().to_string()),
        script: Some(info.script().name().to_string()),
        confidence: (info.confidence() * 1000.0).round() / 1000.0,
        reliable: info.is_reliable(),
        candidates,
    })
}

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

/// Convert text between identifier cases.
///
/// Splits the text into words at spaces, punctuation, underscores, hyphens and lower-to-upper
/// transitions (so `parseHTTPResponse`, `parse_http_response` and `Parse HTTP response` are all
/// three words), then joins them as camelCase, snake_case, kebab-case, PascalCase or
/// CONSTANT_CASE. Letters outside ASCII are kept and cased by Unicode rules.
#[op(post "/v1/text/case" as textCase, tag = TextAndData,
     example(snake, {"text": "parseHTTPResponse body", "to": "snake"}),
     example(camel, {"text": "user-account_ID", "to": "camel"}),
     example(constant_unicode, {"text": "größe der Datei", "to": "constant"}))]
async fn text_case(input: CaseInput) -> Result<CaseOutput, ApiError> {
    let t = &input.text;
    let converted = match input.to {
        Case::Camel => t.to_lower_camel_case(),
        Case::Snake => t.to_snake_case(),
        Case::Kebab => t.to_kebab_case(),
        Case::Pascal => t.to_upper_camel_case(),
        Case::Constant => t.to_shouty_snake_case(),
    };
    Ok(CaseOutput { converted, to: input.to })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slugs() {
        assert_eq!(slugify("Crème Brûlée", '-'), "creme-brulee");
        assert_eq!(slugify("  Hello,   World!  ", '_'), "hello_world");
        assert_eq!(slugify("don't stop", '-'), "dont-stop");
        assert_eq!(slugify("Straße", '-'), "strasse");
    }

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

    #[test]
    fn stats_count_by_unicode_rules() {
        assert_eq!(paragraphs("a\n\n\nb\nc\n \nd"), 3);
        assert_eq!(sentences("Hello world. Bye! ..."), 2);
        assert_eq!(sentences(""), 0);
        assert_eq!(sentences("   "), 0);
    }

    #[tokio::test]
    async fn url_extraction() {
        let out = text_extract_urls(ExtractInput {
            text: "x https://a.example/p. (see https://b.example/q) //c.example/r, HTTPS://A.example/p".into(),
        })
        .await
        .unwrap();
        assert_eq!(
            out.urls,
            vec!["https://a.example/p", "https://b.example/q", "//c.example/r", "HTTPS://A.example/p"]
        );
    }

    #[tokio::test]
    async fn language_detection_knows_common_languages() {
        let cases = [
            ("eng", "This is a sentence written in English, long enough for the detector to be sure of it."),
            ("deu", "Der schnelle braune Fuchs springt über den faulen Hund und läuft weit weg."),
            ("spa", "El rápido zorro marrón salta sobre el perro perezoso y sigue corriendo lejos."),
            ("rus", "Быстрая коричневая лиса прыгает через ленивую собаку и убегает далеко."),
            ("jpn", "素早い茶色の狐がのろまな犬を飛び越えて、遠くへ走っていきます。"),
        ];
        for (code, text) in cases {
            let out = text_language(ExtractInput { text: text.into() }).await.unwrap();
            assert_eq!(out.language.as_deref(), Some(code), "{text}");
        }
        assert!(whatlang::Lang::all().len() >= 50);
    }
}
