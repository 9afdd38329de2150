//! Finding indicators in text. Each kind has its own finder; a finder reports where each match
//! starts and ends, so that callers can list them (`extract.rs`) or rewrite them in place
//! (`fang.rs`). Addresses are validated, not just matched: an IPv4 or IPv6 address must parse
//! (`1.2.3.4.5` and `999.1.1.1` are not addresses), a domain must end in a suffix of the public
//! suffix list, and a hash is a whole run of hex digits of exactly its length.

use std::{
    net::{Ipv4Addr, Ipv6Addr},
    sync::LazyLock,
};

use linkify::{LinkFinder, LinkKind};
use regex::Regex;
use wrench_contract::prelude::*;

/// A kind of indicator.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Deserialize, Serialize, JsonSchema, Validate)]
#[serde(rename_all = "lowercase")]
pub(crate) enum IndicatorKind {
    /// `http`, `https` and `ftp` URLs.
    Url,
    /// E-mail addresses whose domain has a dot.
    Email,
    /// Domain names ending in a public suffix (`example.com`, `foo.co.uk`).
    Domain,
    /// IPv4 addresses in dotted-decimal form.
    Ipv4,
    /// IPv6 addresses in any RFC 4291 form.
    Ipv6,
    /// MAC-48 addresses with colons, hyphens or Cisco dots.
    Mac,
    /// 32 hex digits.
    Md5,
    /// 40 hex digits.
    Sha1,
    /// 64 hex digits.
    Sha256,
    /// 128 hex digits.
    Sha512,
    /// CVE identifiers (`CVE-2021-44228`), written in upper case.
    Cve,
}

impl IndicatorKind {
    pub(crate) const ALL: [IndicatorKind; 11] = [
        IndicatorKind::Url,
        IndicatorKind::Email,
        IndicatorKind::Domain,
        IndicatorKind::Ipv4,
        IndicatorKind::Ipv6,
        IndicatorKind::Mac,
        IndicatorKind::Md5,
        IndicatorKind::Sha1,
        IndicatorKind::Sha256,
        IndicatorKind::Sha512,
        IndicatorKind::Cve,
    ];
}

/// One match: its byte range in the text.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Found {
    pub(crate) start: usize,
    pub(crate) end: usize,
    pub(crate) kind: IndicatorKind,
}

fn pattern(p: &str) -> Regex {
    Regex::new(p).expect("valid pattern")
}

static DOMAIN: LazyLock<Regex> =
    LazyLock::new(|| pattern(r"(?i)(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z](?:[a-z0-9-]{0,61}[a-z0-9])?"));
static IPV4_RUN: LazyLock<Regex> = LazyLock::new(|| pattern(r"[0-9.]+"));
static IPV6_RUN: LazyLock<Regex> = LazyLock::new(|| pattern(r"[0-9A-Fa-f:.]+"));
static MAC: LazyLock<Regex> = LazyLock::new(|| {
    pattern(r"(?i)[0-9a-f]{2}(?::[0-9a-f]{2}){5}|[0-9a-f]{2}(?:-[0-9a-f]{2}){5}|[0-9a-f]{4}\.[0-9a-f]{4}\.[0-9a-f]{4}")
});
static HEX_RUN: LazyLock<Regex> = LazyLock::new(|| pattern(r"[0-9A-Fa-f]+"));
static CVE: LazyLock<Regex> = LazyLock::new(|| pattern(r"(?i)CVE-[0-9]{4}-[0-9]{4,7}"));

/// Whether the character before `start` and the one at `end` leave the match standing alone:
/// neither is a letter, digit or underscore, nor one of `also`.
fn alone(text: &str, start: usize, end: usize, also: &[char]) -> bool {
    let joined = |c: char| c.is_alphanumeric() || c == '_' || also.contains(&c);
    !text[..start].chars().next_back().is_some_and(joined) && !text[end..].chars().next().is_some_and(joined)
}

/// Whether a dot follows `end` and a letter or digit follows the dot: a longer dotted name or
/// number, rather than a full stop.
fn continues_with_dot(text: &str, end: usize) -> bool {
    text[end..].strip_prefix('.').is_some_and(|rest| rest.starts_with(|c: char| c.is_alphanumeric()))
}

/// Every match of `kind` in `text`, in order.
pub(crate) fn find(text: &str, kind: IndicatorKind) -> Vec<Found> {
    let found = |start: usize, end: usize| Found { start, end, kind };
    match kind {
        IndicatorKind::Url | IndicatorKind::Email => links(text, kind),
        IndicatorKind::Domain => DOMAIN
            .find_iter(text)
            // Not an address's local part (`first.last@`).
            .filter(|m| alone(text, m.start(), m.end(), &['-']) && !text[m.end()..].starts_with('@'))
            .filter(|m| psl::suffix(m.as_str().to_ascii_lowercase().as_bytes()).is_some_and(|s| s.is_known()))
            .filter(|m| !m.as_str().split('.').next_back().is_some_and(|tld| tld.bytes().all(|b| b.is_ascii_digit())))
            .map(|m| found(m.start(), m.end()))
            .collect(),
        IndicatorKind::Ipv4 | IndicatorKind::Ipv6 => if kind == IndicatorKind::Ipv4 { &IPV4_RUN } else { &IPV6_RUN }
            .find_iter(text)
            .filter_map(|m| {
                // A sentence's full stop or colon after an address is not part of it.
                let run = m.as_str().trim_end_matches('.');
                let run = if kind == IndicatorKind::Ipv4 {
                    run
                } else {
                    run.trim_end_matches(|c| c == ':' && !run.ends_with("::"))
                };
                let end = m.start() + run.len();
                let parses = match kind {
                    IndicatorKind::Ipv4 => run.parse::<Ipv4Addr>().is_ok(),
                    _ => run.contains(':') && run.parse::<Ipv6Addr>().is_ok(),
                };
                (parses && alone(text, m.start(), end, &[])).then(|| found(m.start(), end))
            })
            .collect(),
        IndicatorKind::Mac => MAC
            .find_iter(text)
            .filter(|m| alone(text, m.start(), m.end(), &[':', '-']) && !continues_with_dot(text, m.end()))
            .map(|m| found(m.start(), m.end()))
            .collect(),
        IndicatorKind::Md5 | IndicatorKind::Sha1 | IndicatorKind::Sha256 | IndicatorKind::Sha512 => {
            let length = match kind {
                IndicatorKind::Md5 => 32,
                IndicatorKind::Sha1 => 40,
                IndicatorKind::Sha256 => 64,
                _ => 128,
            };
            HEX_RUN
                .find_iter(text)
                .filter(|m| m.len() == length && alone(text, m.start(), m.end(), &[]))
                .map(|m| found(m.start(), m.end()))
                .collect()
        }
        IndicatorKind::Cve => CVE
            .find_iter(text)
            .filter(|m| alone(text, m.start(), m.end(), &[]))
            .map(|m| found(m.start(), m.end()))
            .collect(),
    }
}

/// URLs (`http`, `https`, `ftp`) and e-mail addresses, by linkify.
fn links(text: &str, kind: IndicatorKind) -> Vec<Found> {
    let mut finder = LinkFinder::new();
    if kind == IndicatorKind::Url {
        finder.kinds(&[LinkKind::Url]).url_must_have_scheme(true);
    } else {
        finder.kinds(&[LinkKind::Email]).email_domain_must_have_dot(true);
    }
    finder
        .links(text)
        .filter(|l| {
            kind == IndicatorKind::Email || {
                let lower = l.as_str().to_ascii_lowercase();
                ["http://", "https://", "ftp://"].iter().any(|s| lower.starts_with(s))
            }
        })
        .map(|l| {
            let end = if kind == IndicatorKind::Url { l.start() + trim_url(l.as_str()).len() } else { l.end() };
            Found { start: l.start(), end, kind }
        })
        .collect()
}

/// A URL without the punctuation that ends its sentence; a closing bracket stays when the URL
/// opened one.
pub(crate) fn trim_url(u: &str) -> &str {
    let mut u = u.trim_end_matches(['.', ',', ';', ':', '!', '?', '\'', '"']);
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
