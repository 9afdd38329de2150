//! The uap-core rules (embedded, `data/useragent/regexes.yaml`) for browser, OS and device,
//! and the short description of a visitor that a short link's visit records.
//!
//! The rules are read once (the server's warm-up does it at start), but each of their
//! regexes is compiled only when a string could match it (`lazy_set`): most processes see a
//! few dozen browsers, and compiling all 1,300 regexes would hold 25 MB. A visit's
//! description is cached by User-Agent string: most traffic comes from a few hundred
//! strings, and the cache makes a repeated one cost a hash lookup instead of the rules.

mod lazy_set;
mod rules;

use std::{
    collections::HashMap,
    sync::{Arc, Mutex, OnceLock},
};

pub use lazy_set::Figures;
pub use rules::{Device, Parsed, Rules, Versioned};

use crate::useragent::device_type;

/// The uap-core release of the embedded regexes.
pub const REGEXES_VERSION: &str = "uap-core commit e3c5e634 (2026-08-11)";

/// The embedded rule file (`data/useragent/regexes.yaml`), unpacked: the rules copy what they
/// keep, so the text is dropped once they are built.
pub fn regexes() -> String {
    wrench_infra::blobs::UAP_REGEXES.text()
}

/// The embedded rules: read once, on first use or by the warm-up when the server starts.
pub fn rules() -> &'static Rules {
    static R: OnceLock<Rules> = OnceLock::new();
    R.get_or_init(|| Rules::from_yaml(&regexes()).expect("the embedded uap-core rules load (checked by the tests)"))
}

/// Loads the rules and compiles the regexes that the commonest browsers and clients need,
/// so that their first request does not compile them: the server's warm-up runs it.
pub fn warm() {
    const COMMON: [&str; 6] = [
        "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36",
        "Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1",
        "Mozilla/5.0 (Linux; Android 14; SM-S918B) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Mobile Safari/537.36",
        "Mozilla/5.0 (Macintosh; Intel Mac OS X 10.15; rv:125.0) Gecko/20100101 Firefox/125.0",
        "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)",
        "curl/8.5.0",
    ];
    for ua in COMMON {
        let _ = rules().parse(ua);
    }
}

/// What the embedded rules say of `text`.
pub fn parse(text: &str) -> Parsed {
    rules().parse(text)
}

/// Characters of a User-Agent string a visit's description looks at: every rule matches well
/// within them, and the cache's keys stay small.
pub const VISITOR_UA_CHARS: usize = 512;
/// Descriptions cached; the cache starts again empty when full.
const CACHED: usize = 1024;
/// Characters kept of a browser or OS family (a few rules copy part of the string).
const FAMILY_CHARS: usize = 64;

/// A visitor as a short link's statistics count them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Visitor {
    /// Browser family (`Chrome`, `Googlebot`), `Other` when no rule matches.
    pub browser: String,
    /// Operating system family (`Windows`, `iOS`), `Other` when no rule matches.
    pub os: String,
    /// `desktop`, `mobile`, `tablet`, `tv`, `console`, `wearable`, `bot` or `unknown`.
    pub device: &'static str,
    /// uap-core's crawler rules call it a bot.
    pub bot: bool,
}

/// Describes the visitor that sent `user_agent` (its first [`VISITOR_UA_CHARS`] characters).
/// A string seen before costs a lookup and a reference count, no allocation.
pub fn visitor(user_agent: &str) -> Arc<Visitor> {
    let trimmed = user_agent.trim();
    let text = match trimmed.char_indices().nth(VISITOR_UA_CHARS) {
        Some((end, _)) => &trimmed[..end],
        None => trimmed,
    };
    static CACHE: OnceLock<Mutex<HashMap<String, Arc<Visitor>>>> = OnceLock::new();
    let cache = CACHE.get_or_init(Default::default);
    if let Some(v) = cache.lock().ok().and_then(|c| c.get(text).cloned()) {
        return v;
    }
    let described = Arc::new(describe(text));
    if let Ok(mut c) = cache.lock() {
        if c.len() >= CACHED {
            c.clear();
        }
        c.insert(text.to_string(), described.clone());
    }
    described
}

fn describe(text: &str) -> Visitor {
    let parsed = parse(text);
    let family = |s: Option<String>| match s {
        Some(s) if !s.is_empty() => s.chars().take(FAMILY_CHARS).collect(),
        _ => "Other".to_string(),
    };
    let browser = family(parsed.browser.map(|v| v.family));
    let os = family(parsed.os.map(|v| v.family));
    let device = family(parsed.device.map(|v| v.family));
    let bot = device == "Spider";
    Visitor { device: device_type(text, &device, &os, bot), browser, os, bot }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn visitors_are_described_by_the_same_rules_as_useragent_parse() {
        let chrome = "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36";
        assert_eq!(
            *visitor(chrome),
            Visitor { browser: "Chrome".into(), os: "Windows".into(), device: "desktop", bot: false }
        );
        let iphone = "Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1";
        let v = visitor(iphone);
        assert_eq!((v.os.as_str(), v.device, v.bot), ("iOS", "mobile", false));
        let bot = visitor("Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)");
        assert_eq!((bot.browser.as_str(), bot.device, bot.bot), ("Googlebot", "bot", true));
        // Cached: the same answer the second time.
        assert!(Arc::ptr_eq(&visitor(chrome), &visitor(chrome)));
        // Only the first 512 characters count.
        let long = format!("{chrome}{}", "x".repeat(600));
        assert!(Arc::ptr_eq(&visitor(&long), &visitor(&format!("{long}yyy"))));
        assert_eq!(visitor("").browser, "Other");
    }
}
