//! The language of a text (`text/language`), by whatlang's trigram model, with its confidence,
//! its script and the other candidates.

use super::extract::ExtractInput;
use wrench_contract::prelude::*;

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
#[op(post "/v1/text/language" as textLanguage, tag = TextAndData, pipe(text -> language),
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

#[cfg(test)]
mod tests {
    use super::*;

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
