//! The uap-core rules as `wrench_kit::uap` runs them (regexes compiled on demand behind a
//! literal prefilter) against the Rust `ua-parser` crate running the same file (every regex
//! compiled up front): both must say the same of every string of a corpus of real
//! User-Agent strings (uap-core's own test strings, `tests/fixtures/uap-core`) and of a few
//! hostile ones.

use serde::Deserialize;
use wrench_kit::uap::{self, Device, Figures, Parsed, Rules, Versioned};

#[derive(Deserialize)]
struct Cases {
    test_cases: Vec<Case>,
}

#[derive(Deserialize)]
struct Case {
    user_agent_string: String,
}

fn corpus() -> Vec<String> {
    let mut all = Vec::new();
    for text in [
        include_str!("../../../tests/fixtures/uap-core/test_ua.yaml"),
        include_str!("../../../tests/fixtures/uap-core/test_os.yaml"),
        include_str!("../../../tests/fixtures/uap-core/test_device.yaml"),
    ] {
        let cases: Cases = serde_saphyr::from_str(text).unwrap();
        all.extend(cases.test_cases.into_iter().map(|c| c.user_agent_string));
    }
    all.sort();
    all.dedup();
    let chrome = "Mozilla/5.0 (Linux; Android 14; SM-S918B) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Mobile Safari/537.36";
    all.extend([
        String::new(),
        " ".into(),
        format!("{chrome}{}", "; Build/".repeat(300)),
        format!("{}{chrome}", "ÄÖÜ😀 ".repeat(200)),
        "Mozilla/5.0 (compatible; ΜΝΟΠ/1.0; +https://example.test/bot)".into(),
        "x".repeat(2048),
    ]);
    all
}

fn oracle_parse(e: &ua_parser::Extractor<'_>, s: &str) -> Parsed {
    let (ua, os, dev) = e.extract(s);
    Parsed {
        browser: ua.map(|v| {
            let v = v.into_owned();
            Versioned { family: v.family, major: v.major, minor: v.minor, patch: v.patch, patch_minor: v.patch_minor }
        }),
        os: os.map(|v| {
            let v = v.into_owned();
            Versioned { family: v.os, major: v.major, minor: v.minor, patch: v.patch, patch_minor: v.patch_minor }
        }),
        device: dev.map(|v| {
            let v = v.into_owned();
            Device { family: v.device, brand: v.brand, model: v.model }
        }),
    }
}

#[test]
fn lazy_rules_agree_with_the_ua_parser_crate_on_every_corpus_string() {
    let yaml = uap::regexes();
    let regexes: ua_parser::Regexes<'_> = serde_saphyr::from_str(&yaml).unwrap();
    let oracle = ua_parser::Extractor::try_from(regexes).unwrap();
    let ours = Rules::from_yaml(&yaml).unwrap();
    let corpus = corpus();
    assert!(corpus.len() > 3800, "corpus of {} strings", corpus.len());
    let mut differ = Vec::new();
    for s in &corpus {
        let (a, b) = (ours.parse(s), oracle_parse(&oracle, s));
        if a != b {
            differ.push(format!("{s:?}\n  ours:   {a:?}\n  oracle: {b:?}"));
        }
    }
    let Figures { patterns, compiled, unfiltered, automaton_bytes: automaton, .. } = ours.figures("");
    println!("automaton: {automaton} bytes");
    println!(
        "{} strings; {compiled} of {patterns} patterns compiled ({unfiltered} tried on every string)",
        corpus.len()
    );
    assert!(
        differ.is_empty(),
        "{} of {} strings differ:\n{}",
        differ.len(),
        corpus.len(),
        differ[..differ.len().min(10)].join("\n")
    );
    // Matched strings were found: the comparison is not between two empty answers.
    let matched = corpus.iter().filter(|s| ours.parse(s).browser.is_some_and(|b| b.family != "Other")).count();
    assert!(matched > 3000, "{matched} browsers recognised");
}

#[test]
fn one_common_browser_compiles_only_a_few_patterns() {
    let ours = Rules::from_yaml(&uap::regexes()).unwrap();
    let chrome = "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36";
    let parsed = ours.parse(chrome);
    assert_eq!(parsed.browser.unwrap().family, "Chrome");
    let Figures { patterns, compiled, unfiltered, candidates, .. } = ours.figures(chrome);
    println!("{candidates} candidates, {compiled} of {patterns} compiled, {unfiltered} unfiltered");
    // A desktop browser matches no device rule, so every device rule its string could
    // match is tried: about 20 of the 1,270 (the 4 without literals among them).
    assert!(patterns > 1200 && compiled < 32, "{compiled} of {patterns} compiled for one string");
}

#[test]
fn every_embedded_pattern_compiles() {
    let ours = Rules::from_yaml(&uap::regexes()).unwrap();
    ours.compile_all().unwrap();
    assert_eq!(uap::parse("curl/8.5.0").browser.unwrap().family, "curl");
}
