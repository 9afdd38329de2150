//! HTML character references (`html-entities/encode`, `html-entities/decode`) with the whole
//! WHATWG table of named references (2,231 names, as html5ever carries it).
//!
//! Decoding follows the HTML standard's rules for text (the character reference states):
//! the longest name that matches wins, with or without its `;` for the legacy names that may
//! lack it; numeric references to 0, to surrogates or past U+10FFFF become U+FFFD, and those to
//! 0x80-0x9F are read as Windows-1252, as browsers do.

use std::{collections::HashMap, sync::LazyLock};

use html5ever::data::NAMED_ENTITIES;

use wrench_contract::prelude::*;
use wrench_infra::bounds::OutputBudget;

#[derive(Debug, Deserialize, Serialize, JsonSchema, Validate, Clone, Copy, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
enum EntityMode {
    /// `& < > " '` only, as `&amp; &lt; &gt; &quot; &#x27;` (safe in text and quoted
    /// attributes).
    Minimal,
    /// Those five, and every character outside ASCII as a hexadecimal reference (`&#xE9;`).
    NonAscii,
    /// Those five and every character outside ASCII by name where HTML has one (`&eacute;`),
    /// else as a hexadecimal reference.
    Named,
    /// Every character as a decimal reference (`&#72;`).
    Decimal,
    /// Every character as a hexadecimal reference (`&#x48;`).
    Hex,
}

fn minimal() -> EntityMode {
    EntityMode::Minimal
}

/// The name each character is written with in `named` mode: of the names with a `;` that
/// stand for that one character, the shortest, then the one with fewer capitals, then the
/// first in alphabetical order (`&lt;` over `&LT;`, `&nbsp;` over `&NonBreakingSpace;`).
static NAME_OF: LazyLock<HashMap<char, &'static str>> = LazyLock::new(|| {
    let mut names: HashMap<char, &'static str> = HashMap::new();
    for (name, &(first, second)) in NAMED_ENTITIES.entries() {
        let Some(bare) = name.strip_suffix(';') else { continue };
        let Some(c) = char::from_u32(first).filter(|_| second == 0 && first != 0) else { continue };
        let rank = |n: &str| (n.len(), n.chars().filter(char::is_ascii_uppercase).count(), n.to_string());
        names
            .entry(c)
            .and_modify(|best| {
                if rank(bare) < rank(best) {
                    *best = bare
                }
            })
            .or_insert(bare);
    }
    names
});

fn encode(text: &str, mode: EntityMode) -> String {
    let mut out = String::with_capacity(text.len() + text.len() / 4);
    let hex = |out: &mut String, c: char| out.push_str(&format!("&#x{:X};", c as u32));
    for c in text.chars() {
        let special = matches!(c, '&' | '<' | '>' | '"' | '\'');
        match mode {
            EntityMode::Decimal => out.push_str(&format!("&#{};", c as u32)),
            EntityMode::Hex => hex(&mut out, c),
            EntityMode::Minimal | EntityMode::NonAscii if special => out.push_str(match c {
                '&' => "&amp;",
                '<' => "&lt;",
                '>' => "&gt;",
                '"' => "&quot;",
                _ => "&#x27;",
            }),
            EntityMode::Minimal => out.push(c),
            EntityMode::NonAscii | EntityMode::Named if c.is_ascii() && !special => out.push(c),
            EntityMode::NonAscii => hex(&mut out, c),
            EntityMode::Named => match NAME_OF.get(&c) {
                Some(name) => {
                    out.push('&');
                    out.push_str(name);
                    out.push(';');
                }
                None => hex(&mut out, c),
            },
        }
    }
    out
}

/// What the HTML standard reads numeric references to 0x80-0x9F as (Windows-1252), where it
/// differs from the code point.
fn c1_replacement(n: u32) -> Option<char> {
    const TABLE: [(u32, char); 27] = [
        (0x80, '€'),
        (0x82, '‚'),
        (0x83, 'ƒ'),
        (0x84, '„'),
        (0x85, '…'),
        (0x86, '†'),
        (0x87, '‡'),
        (0x88, 'ˆ'),
        (0x89, '‰'),
        (0x8A, 'Š'),
        (0x8B, '‹'),
        (0x8C, 'Œ'),
        (0x8E, 'Ž'),
        (0x91, '‘'),
        (0x92, '’'),
        (0x93, '“'),
        (0x94, '”'),
        (0x95, '•'),
        (0x96, '–'),
        (0x97, '—'),
        (0x98, '˜'),
        (0x99, '™'),
        (0x9A, 'š'),
        (0x9B, '›'),
        (0x9C, 'œ'),
        (0x9E, 'ž'),
        (0x9F, 'Ÿ'),
    ];
    TABLE.iter().find(|(k, _)| *k == n).map(|(_, c)| *c)
}

/// The character a numeric reference stands for, by the standard's rules.
fn numeric(n: u32) -> char {
    match n {
        0 => '\u{FFFD}',
        0xD800..=0xDFFF => '\u{FFFD}',
        0x80..=0x9F => c1_replacement(n).unwrap_or_else(|| char::from_u32(n).unwrap_or('\u{FFFD}')),
        _ => char::from_u32(n).unwrap_or('\u{FFFD}'),
    }
}

/// Text with its character references replaced, as an HTML parser reads text content.
fn decode(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(amp) = rest.find('&') {
        out.push_str(&rest[..amp]);
        let after = &rest[amp + 1..];
        let (replacement, used) = reference(after);
        match replacement {
            Some(r) => {
                out.push_str(&r);
                rest = &after[used..];
            }
            None => {
                out.push('&');
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out
}

/// The reference at the start of `s` (just after its `&`): what it stands for and how many
/// bytes of `s` it took, or None when it is not one (the `&` stays as it is).
fn reference(s: &str) -> (Option<String>, usize) {
    if let Some(num) = s.strip_prefix('#') {
        let (hex, digits) = match num.strip_prefix(['x', 'X']) {
            Some(h) => (true, h),
            None => (false, num),
        };
        let len = digits
            .find(|c: char| !if hex { c.is_ascii_hexdigit() } else { c.is_ascii_digit() })
            .unwrap_or(digits.len());
        if len == 0 {
            return (None, 0);
        }
        // Past U+10FFFF the value no longer matters: it is U+FFFD whatever it is.
        let value = u32::from_str_radix(&digits[..len.min(9)], if hex { 16 } else { 10 }).unwrap_or(u32::MAX);
        let value = if len > 9 { u32::MAX } else { value };
        let mut used = 1 + usize::from(hex) + len;
        if s[used..].starts_with(';') {
            used += 1;
        }
        return (Some(numeric(value).to_string()), used);
    }
    // Named: the longest name in the table that `s` starts with; the table holds every prefix
    // of every name, so the walk stops as soon as no name can still match.
    let mut best = None;
    for (end, _) in s.char_indices().skip(1).chain(std::iter::once((s.len(), ' '))) {
        match NAMED_ENTITIES.get(&s[..end]) {
            None => break,
            Some(&(0, _)) => {}
            Some(&(first, second)) => best = Some((end, first, second)),
        }
    }
    match best {
        Some((end, first, second)) => {
            let mut r: String = char::from_u32(first).into_iter().collect();
            r.extend(char::from_u32(second).filter(|_| second != 0));
            (Some(r), end)
        }
        None => (None, 0),
    }
}

#[derive(Debug, Deserialize, JsonSchema, Validate)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct EntitiesEncodeInput {
    /// The text.
    text: String,
    /// What to replace: `minimal` (the default: `& < > " '`), `non-ascii` (also every
    /// character outside ASCII, as `&#x...;`), `named` (those by name where HTML has one),
    /// `decimal` or `hex` (every character, as a numeric reference).
    #[serde(default = "minimal")]
    mode: EntityMode,
}

#[derive(Debug, Serialize, JsonSchema)]
struct EntitiesEncodeOutput {
    /// The text with character references.
    encoded: String,
}

/// Write text with HTML character references.
///
/// `minimal` (the default) replaces what HTML needs replaced in text and quoted attribute
/// values, `& < > " '`, as Python's `html.escape` does. `non-ascii` also writes every character
/// outside ASCII as a hexadecimal reference, for an ASCII-only channel; `named` writes those by
/// their shortest name where the HTML standard has one (`&eacute;`, `&nbsp;`) and numerically
/// otherwise; `decimal` and `hex` write every character, letters too, as a numeric reference.
/// A character outside the Basic Multilingual Plane is one reference, not two.
#[op(post "/v1/html-entities/encode" as htmlEntitiesEncode, tag = TextAndData, pipe(text -> encoded),
     example(minimal, {"text": "<a href=\"x\">Tom & Jerry's</a>"}),
     example(named, {"text": "café — 3 < 5 ≤ 7", "mode": "named"}),
     example(decimal_everything, {"text": "Hi 😀", "mode": "decimal"}))]
async fn html_entities_encode(ctx: &Ctx, input: EntitiesEncodeInput) -> Result<EntitiesEncodeOutput, ApiError> {
    // At most ten bytes a character (`&#x10FFFF;`), so the text is built and then measured.
    let encoded = encode(&input.text, input.mode);
    OutputBudget::new(ctx.config.response_limit).add_json_string(&encoded)?;
    Ok(EntitiesEncodeOutput { encoded })
}

#[derive(Debug, Deserialize, JsonSchema, Validate)]
#[serde(deny_unknown_fields)]
struct EntitiesDecodeInput {
    /// Text with character references (`&amp;`, `&eacute;`, `&#233;`, `&#xE9;`).
    text: String,
}

#[derive(Debug, Serialize, JsonSchema)]
struct EntitiesDecodeOutput {
    /// The text with every reference replaced.
    decoded: String,
}

/// Replace HTML character references with their characters.
///
/// Reads references as an HTML parser reads them in text: every name of the HTML standard's
/// table (2,231, such as `&eacute;`, `&NotNestedGreaterGreater;`, and the legacy ones that may
/// lack their `;`, so `&copy 2024` reads as `© 2024`), the longest name winning; decimal and
/// hexadecimal references with or without `;`. References to 0, to surrogates or past U+10FFFF
/// become U+FFFD, and those to 0x80-0x9F are read as Windows-1252 (`&#150;` is `–`), as
/// browsers do. An `&` that starts no reference stays as it is.
#[op(post "/v1/html-entities/decode" as htmlEntitiesDecode, tag = TextAndData, pipe(text -> decoded),
     example(typical, {"text": "Tom &amp; Jerry&#39;s caf&eacute; &lt;3"}),
     example(legacy_and_windows_1252, {"text": "&copy 2024 &#150; &notit; &#x1F600;"}),
     example(no_reference, {"text": "fish & chips &unknown;"}))]
async fn html_entities_decode(input: EntitiesDecodeInput) -> Result<EntitiesDecodeOutput, ApiError> {
    Ok(EntitiesDecodeOutput { decoded: decode(&input.text) })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Python's `html.escape` and `html.unescape` (which implements the same standard, bar the
    /// numeric references it drops; see the script), and the named form built from its own
    /// copy of the table (tests/fixtures/html_entities.py).
    #[test]
    fn python_agrees() {
        let fixture = crate::testing::fixture("html_entities.json");
        assert_eq!(fixture["table_size"], NAMED_ENTITIES.entries().filter(|(_, v)| v.0 != 0).count());
        let cases = fixture["cases"].as_array().unwrap();
        assert!(cases.len() >= 50);
        for case in cases {
            let s = |k: &str| case[k].as_str().unwrap();
            let text = s("text");
            assert_eq!(decode(text), s("unescaped"), "{text:?}");
            assert_eq!(encode(text, EntityMode::Minimal), s("escaped"), "{text:?}");
            assert_eq!(encode(text, EntityMode::Named), s("named"), "{text:?}");
            assert_eq!(encode(text, EntityMode::NonAscii), s("non_ascii"), "{text:?}");
            for mode in
                [EntityMode::Minimal, EntityMode::NonAscii, EntityMode::Named, EntityMode::Decimal, EntityMode::Hex]
            {
                assert_eq!(decode(&encode(text, mode)), text, "{mode:?} round trip of {text:?}");
            }
        }
    }

    /// Where Python's `html.unescape` drops a reference, the HTML standard keeps its character
    /// (the parse error does not remove it): the standard wins.
    #[test]
    fn the_standard_keeps_controls_and_noncharacters() {
        assert_eq!(decode("a&#1;b&#xFFFF;c&#x7F;"), "a\u{1}b\u{FFFF}c\u{7F}");
        assert_eq!(decode("&#0;&#xD800;&#x110000;&#99999999999;"), "\u{FFFD}".repeat(4));
        assert_eq!(decode("&#x81;&#x80;"), "\u{81}€", "0x81 has no Windows-1252 character");
        assert_eq!(decode("&#;&#x;&"), "&#;&#x;&");
    }
}
