//! JavaScript-style regular expressions: test (all matches or the first) and replace.
//!
//! Patterns are JavaScript syntax (`/.../flags` without the slashes) run by fancy-regex: the
//! parts a plain automaton can do run in linear time on Rust's `regex`, and the rest
//! (look-around, back-references) backtracks under a step limit. Matching also stops at a
//! wall-clock deadline, and runs on the bounded CPU pool (`cpu` in its declaration), so a hostile pattern cannot hold an
//! async worker or a core for long. Every size is capped; the caps are in the schema.
//!
//! JavaScript's `\d`, `\w` and `\b` are ASCII-only; they are translated so that they stay so.
//! Indices are UTF-16 code units, as in JavaScript, so they can be used with `String.slice`.

use std::time::{Duration, Instant};

use fancy_regex::{Captures, Regex, RegexBuilder};
use serde_json::Map;

use wrench_contract::prelude::*;

/// Most matches `regex/test` lists.
const MAX_MATCHES: usize = 1_000;
/// Longest result `regex/replace` builds, in bytes.
const MAX_RESULT: usize = 1 << 20;
/// Backtracking steps allowed per search (look-around and back-references only).
const BACKTRACK_LIMIT: usize = 1_000_000;
/// Wall-clock budget for all searches of one request.
const DEADLINE: Duration = Duration::from_millis(1_000);

#[derive(Debug, Default, Clone, Copy)]
struct Flags {
    global: bool,
    sticky: bool,
}

/// JavaScript's white space and line terminators (ECMA-262 WhiteSpace and LineTerminator), the
/// members of `\s`: not Unicode's White_Space, which adds U+0085 and lacks U+FEFF.
const JS_SPACE: &str =
    "\\t\\n\\x0B\\x0C\\r \\u{A0}\\u{1680}\\u{2000}-\\u{200A}\\u{2028}\\u{2029}\\u{202F}\\u{205F}\\u{3000}\\u{FEFF}";
/// JavaScript's line terminators: what `.` does not match and where `^` and `$` match with m.
const JS_LINE_END: &str = "\\n\\r\\u{2028}\\u{2029}";

/// Translates a JavaScript pattern and flags into a fancy-regex pattern with the same
/// meaning: JavaScript's `\d`, `\w`, `\b` are ASCII (with `iu`, `\w` also takes U+017F and
/// U+212A, which fold to s and k), `\s` is its own list, `.` stops at every line terminator,
/// and with `m` `^` and `$` match around every line terminator, not only `\n`. Errors
/// JavaScript reports and Rust would not (a quantifier range out of order, a group name used
/// twice) are refused here.
///
/// JavaScript's `\b` is written as look-around, which runs on the backtracking engine; when
/// the text holds no word character outside ASCII (`only_ascii_words`), Rust's own `\b`
/// finds exactly the same boundaries in linear time and is used instead.
fn translate(pattern: &str, flags: &str, only_ascii_words: bool) -> Result<(String, Flags), ApiError> {
    let mut f = Flags::default();
    let (mut icase, mut multiline, mut dot_all, mut unicode) = (false, false, false, false);
    let mut seen = String::new();
    for c in flags.chars() {
        if seen.contains(c) {
            return Err(ApiError::invalid("flags", format!("flag {c} is given twice")));
        }
        seen.push(c);
        match c {
            'g' => f.global = true,
            'y' => f.sticky = true,
            'i' => icase = true,
            'm' => multiline = true,
            's' => dot_all = true,
            'u' | 'v' => unicode = true,
            // d (indices) changes nothing here: indices are always given.
            'd' => {}
            _ => return Err(ApiError::invalid("flags", format!("unknown flag {c:?}; use g, i, m, s, u, v, y or d"))),
        }
    }
    let word_members = if icase && unicode { "A-Za-z0-9_\\u{17F}\\u{212A}" } else { "A-Za-z0-9_" };
    let word = format!("[{word_members}]");
    let not_word = format!("[^{word_members}]");
    let (boundary, not_boundary) = if only_ascii_words {
        (r"\b".to_string(), r"\B".to_string())
    } else {
        (
            format!("(?:(?<={word})(?!{word})|(?<!{word})(?={word}))"),
            format!("(?:(?<={word})(?={word})|(?<!{word})(?!{word}))"),
        )
    };
    let mut out = String::with_capacity(pattern.len() + 16);
    if icase {
        out.push_str("(?i)");
    }
    let mut names: Vec<String> = Vec::new();
    let mut chars = pattern.chars().peekable();
    let mut in_class = false;
    while let Some(c) = chars.next() {
        match c {
            '\\' => {
                let Some(n) = chars.next() else {
                    return Err(ApiError::invalid("pattern", "ends with an unfinished escape \\"));
                };
                match (n, in_class) {
                    ('d', false) => out.push_str("[0-9]"),
                    ('D', false) => out.push_str("[^0-9]"),
                    ('w', false) => out.push_str(&word),
                    ('W', false) => out.push_str(&not_word),
                    ('s', false) => out.push_str(&format!("[{JS_SPACE}]")),
                    ('S', false) => out.push_str(&format!("[^{JS_SPACE}]")),
                    ('b', false) => out.push_str(&boundary),
                    ('B', false) => out.push_str(&not_boundary),
                    ('d', true) => out.push_str("0-9"),
                    ('w', true) => out.push_str(word_members),
                    ('s', true) => out.push_str(JS_SPACE),
                    ('D', true) => out.push_str("[^0-9]"),
                    ('W', true) => out.push_str(&not_word),
                    ('S', true) => out.push_str(&format!("[^{JS_SPACE}]")),
                    // In a class, \b is a backspace.
                    ('b', true) => out.push_str("\\x08"),
                    // JavaScript's \/ is a plain slash.
                    ('/', _) => out.push('/'),
                    _ => {
                        out.push('\\');
                        out.push(n);
                    }
                }
            }
            '[' if !in_class => {
                if chars.peek() == Some(&'^') {
                    chars.next();
                    if chars.peek() == Some(&']') {
                        // [^] matches any character in JavaScript.
                        chars.next();
                        out.push_str(r"[\s\S]");
                        continue;
                    }
                    out.push_str("[^");
                } else {
                    out.push('[');
                }
                in_class = true;
                // A leading ] in JavaScript closes an empty class, which never matches.
                if chars.peek() == Some(&']') {
                    chars.next();
                    in_class = false;
                    out.truncate(out.len() - if out.ends_with("[^") { 2 } else { 1 });
                    out.push_str(r"[^\s\S]");
                }
            }
            ']' if in_class => {
                in_class = false;
                out.push(']');
            }
            '[' if in_class => out.push_str(r"\["),
            '.' if !in_class => out.push_str(if dot_all { r"[\s\S]" } else { "[^\\n\\r\\u{2028}\\u{2029}]" }),
            '^' if !in_class && multiline => out.push_str(&format!("(?:^|(?<=[{JS_LINE_END}]))")),
            '$' if !in_class && multiline => out.push_str(&format!("(?:$|(?=[{JS_LINE_END}]))")),
            '{' if !in_class => {
                // A quantifier's bounds must be in order; anything else after { is literal
                // text in JavaScript's web-compatible grammar, and Rust reads it the same way.
                let rest: String = chars.clone().take_while(|c| *c != '}').collect();
                if let Some((lo, hi)) = rest.split_once(',')
                    && let (Ok(lo), Ok(hi)) = (lo.parse::<u64>(), hi.parse::<u64>())
                    && lo > hi
                {
                    return Err(ApiError::invalid(
                        "pattern",
                        format!("the quantifier {{{lo},{hi}}} has its bounds out of order"),
                    ));
                }
                out.push('{');
            }
            '(' if !in_class => {
                out.push('(');
                // A named group: (?<name>, but not look-behind (?<= or (?<!.
                let ahead: String = chars.clone().take(3).collect();
                if ahead.starts_with("?<") && !ahead.starts_with("?<=") && !ahead.starts_with("?<!") {
                    let name: String = chars.clone().skip(2).take_while(|c| *c != '>').collect();
                    if names.contains(&name) {
                        return Err(ApiError::invalid("pattern", format!("the group name {name:?} is used twice")));
                    }
                    names.push(name);
                }
            }
            _ => out.push(c),
        }
    }
    Ok((out, f))
}

/// Whether `text` has no word character (in Unicode's sense, which Rust's `\b` uses) outside
/// ASCII.
fn only_ascii_words(text: &str) -> bool {
    static NON_ASCII_WORD: std::sync::LazyLock<regex::Regex> =
        std::sync::LazyLock::new(|| regex::Regex::new(r"[\w&&[^\x00-\x7F]]").expect("a valid class"));
    !NON_ASCII_WORD.is_match(text)
}

fn compile(pattern: &str, flags: &str, text: &str) -> Result<(Regex, Flags), ApiError> {
    let (translated, f) = translate(pattern, flags, only_ascii_words(text))?;
    let re = RegexBuilder::new(&translated)
        .backtrack_limit(BACKTRACK_LIMIT)
        .delegate_size_limit(8 << 20)
        .delegate_dfa_size_limit(8 << 20)
        .build()
        .map_err(|e| ApiError::invalid("pattern", format!("not a valid regular expression: {e}")))?;
    Ok((re, f))
}

/// Visits matches in order (all with `g`, else the first), honouring `y` and the budgets.
fn each_match<'t>(
    re: &Regex,
    flags: Flags,
    text: &'t str,
    limit: usize,
    mut visit: impl FnMut(&Captures<'t, str>) -> Result<(), ApiError>,
) -> Result<bool, ApiError> {
    let started = Instant::now();
    let mut pos = 0;
    let mut count = 0;
    while pos <= text.len() {
        if started.elapsed() > DEADLINE {
            return Err(ApiError::invalid("pattern", "matching took longer than the time budget of 1 second"));
        }
        let caps = match re.captures_from_pos(text, pos) {
            Ok(Some(c)) => c,
            Ok(None) => break,
            Err(fancy_regex::Error::RuntimeError(e)) => {
                return Err(ApiError::invalid("pattern", format!("too expensive to run on this input: {e}")));
            }
            Err(e) => return Err(ApiError::invalid("pattern", e.to_string())),
        };
        let m = caps.get(0).expect("group 0 always matches");
        if flags.sticky && m.start() != pos {
            break;
        }
        if count == limit {
            return Ok(true);
        }
        visit(&caps)?;
        count += 1;
        if !flags.global {
            break;
        }
        pos = if m.end() == m.start() {
            // Step over one character after an empty match, as JavaScript does.
            m.end() + text[m.end()..].chars().next().map_or(1, char::len_utf8)
        } else {
            m.end()
        };
    }
    Ok(false)
}

fn utf16_index(text: &str, byte: usize) -> usize {
    text[..byte].encode_utf16().count()
}

#[derive(Debug, Deserialize, JsonSchema, Validate)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct RegexTestInput {
    /// JavaScript pattern without the surrounding slashes, at most 1,000 characters.
    #[schemars(length(max = 1000))]
    pattern: String,
    /// Text to search, at most 100,000 characters.
    #[schemars(length(max = 100000))]
    test_string: String,
    /// JavaScript flags: g (all matches), i, m, s, u, y (sticky), d.
    #[serde(default)]
    #[schemars(length(max = 8))]
    flags: String,
}

#[derive(Debug, Serialize, JsonSchema)]
struct RegexMatch {
    /// The matched text.
    #[serde(rename = "match")]
    matched: String,
    /// Start of the match in UTF-16 code units, as JavaScript counts.
    index: usize,
    /// Named groups (`(?<name>...)`); null for a group that did not take part.
    groups: Map<String, Value>,
    /// Numbered groups 1..n in order; null for a group that did not take part.
    captures: Vec<Option<String>>,
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct RegexTestOutput {
    /// The matches: all with the g flag, else at most the first.
    matches: Vec<RegexMatch>,
    /// Whether anything matched.
    matched: bool,
    /// Number of matches listed.
    match_count: usize,
    /// True when more than 1,000 matches exist and only the first 1,000 are listed.
    truncated: bool,
}

fn run_test(input: RegexTestInput, response_limit: usize) -> Result<RegexTestOutput, ApiError> {
    let (re, flags) = compile(&input.pattern, &input.flags, &input.test_string)?;
    let names: Vec<Option<String>> = re.capture_names().map(|n| n.map(str::to_string)).collect();
    let text = input.test_string.as_str();
    let mut matches = Vec::new();
    // A group can capture the rest of the text at every one of 1,000 matches: count each
    // match's text before keeping it.
    let mut budget = wrench_infra::bounds::OutputBudget::new(response_limit);
    let truncated = each_match(&re, flags, text, MAX_MATCHES, |caps| {
        budget.add(64)?;
        for g in caps.iter().flatten() {
            budget.add(2 * wrench_infra::bounds::json_escaped_len(g.as_str().as_bytes()) + 8)?;
        }
        let m = caps.get(0).expect("group 0");
        let mut groups = Map::new();
        let mut captures = Vec::new();
        for (i, name) in names.iter().enumerate().skip(1) {
            let v = caps.get(i).map(|g| g.as_str().to_string());
            if let Some(n) = name {
                groups.insert(n.clone(), v.clone().map_or(Value::Null, Value::String));
            }
            captures.push(v);
        }
        matches.push(RegexMatch {
            matched: m.as_str().to_string(),
            index: utf16_index(text, m.start()),
            groups,
            captures,
        });
        Ok(())
    })?;
    Ok(RegexTestOutput { matched: !matches.is_empty(), match_count: matches.len(), truncated, matches })
}

/// Test a regular expression against text.
///
/// JavaScript syntax and flags: without `g` only the first match is returned, with `g` all of
/// them (up to 1,000; `truncated` says when there were more). Each match gives its text, its
/// index in UTF-16 code units (as JavaScript's `match.index`), named groups and numbered
/// captures. Look-ahead, look-behind and back-references work; they run under a step limit,
/// and all matching under a one-second budget, so a catastrophic pattern gets a 400 instead of
/// a hung request. Caps: pattern 1,000 characters, text 100,000.
#[op(post "/v1/regex/test" as regexTest, tag = TextAndData,
     rejects = "a pattern that is not a valid regular expression, unknown or repeated flags, or a pattern too expensive for the step or time budget",
     example(global_named_groups, {"pattern": "(?<year>\\d{4})-(?<month>\\d{2})", "testString": "Released 2024-03, patched 2025-11.", "flags": "g"}),
     example(first_only_case_insensitive, {"pattern": "wrench", "testString": "Wrench, WRENCH, wrench", "flags": "i"}),
     example(nested_quantifier_with_backreference, {"pattern": "^(a+)+\\1$", "testString": "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaab"}),
     example(invalid_pattern, {"pattern": "(unclosed", "testString": "x"}, status = 400),
     cpu)]
async fn regex_test(ctx: &Ctx, input: RegexTestInput) -> Result<RegexTestOutput, ApiError> {
    run_test(input, ctx.config.response_limit)
}

#[derive(Debug, Deserialize, JsonSchema, Validate)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct RegexReplaceInput {
    /// JavaScript pattern without the surrounding slashes, at most 1,000 characters.
    #[schemars(length(max = 1000))]
    pattern: String,
    /// Text to search, at most 100,000 characters.
    #[schemars(length(max = 100000))]
    test_string: String,
    /// Replacement with JavaScript's `$1`, `$<name>`, `$&`, `` $` ``, `$'` and `$$`; at most
    /// 10,000 characters.
    #[schemars(length(max = 10000))]
    replacement: String,
    /// JavaScript flags: g (replace all), i, m, s, u, y (sticky), d.
    #[serde(default)]
    #[schemars(length(max = 8))]
    flags: String,
}

#[derive(Debug, Serialize, JsonSchema)]
struct RegexReplaceOutput {
    /// The text after replacement.
    result: String,
    /// How many matches were replaced.
    replacements: usize,
}

/// Expands a JavaScript replacement template for one match.
fn expand(template: &str, caps: &Captures<'_, str>, names: &[Option<String>], text: &str, out: &mut String) {
    let m = caps.get(0).expect("group 0");
    let groups = caps.len() - 1;
    let has_names = names.iter().any(Option::is_some);
    let bytes = template.as_bytes();
    let mut i = 0;
    // Each step adds at most the text's length; the caller refuses the result once it is over
    // the cap, so stopping here keeps `$'$'$'...` from building gigabytes first.
    while i < template.len() && out.len() <= MAX_RESULT {
        let rest = &template[i..];
        if bytes[i] != b'$' || rest.len() < 2 {
            let c = rest.chars().next().expect("non-empty");
            out.push(c);
            i += c.len_utf8();
            continue;
        }
        let next = bytes[i + 1];
        match next {
            b'$' => {
                out.push('$');
                i += 2;
            }
            b'&' => {
                out.push_str(m.as_str());
                i += 2;
            }
            b'`' => {
                out.push_str(&text[..m.start()]);
                i += 2;
            }
            b'\'' => {
                out.push_str(&text[m.end()..]);
                i += 2;
            }
            b'0'..=b'9' => {
                let d1 = (next - b'0') as usize;
                let two = bytes.get(i + 2).filter(|b| b.is_ascii_digit()).map(|b| d1 * 10 + (b - b'0') as usize);
                match two {
                    Some(n) if (1..=groups).contains(&n) => {
                        out.push_str(caps.get(n).map_or("", |g| g.as_str()));
                        i += 3;
                    }
                    _ if (1..=groups).contains(&d1) => {
                        out.push_str(caps.get(d1).map_or("", |g| g.as_str()));
                        i += 2;
                    }
                    _ => {
                        out.push('$');
                        i += 1;
                    }
                }
            }
            b'<' if has_names => match rest[2..].find('>') {
                Some(end) => {
                    let name = &rest[2..2 + end];
                    if let Some(idx) = names.iter().position(|n| n.as_deref() == Some(name)) {
                        out.push_str(caps.get(idx).map_or("", |g| g.as_str()));
                    }
                    i += 3 + end;
                }
                None => {
                    out.push('$');
                    i += 1;
                }
            },
            _ => {
                out.push('$');
                i += 1;
            }
        }
    }
}

fn run_replace(input: RegexReplaceInput) -> Result<RegexReplaceOutput, ApiError> {
    let (re, flags) = compile(&input.pattern, &input.flags, &input.test_string)?;
    let names: Vec<Option<String>> = re.capture_names().map(|n| n.map(str::to_string)).collect();
    let text = input.test_string.as_str();
    let mut result = String::with_capacity(text.len());
    let mut last = 0;
    let mut replacements = 0;
    each_match(&re, flags, text, usize::MAX, |caps| {
        let m = caps.get(0).expect("group 0");
        result.push_str(&text[last..m.start()]);
        expand(&input.replacement, caps, &names, text, &mut result);
        last = m.end();
        replacements += 1;
        if result.len() > MAX_RESULT {
            return Err(ApiError::invalid("replacement", "the result would be larger than 1 MiB"));
        }
        Ok(())
    })?;
    result.push_str(&text[last..]);
    Ok(RegexReplaceOutput { result, replacements })
}

/// Replace matches of a regular expression.
///
/// JavaScript semantics: without `g` only the first match is replaced, with `g` all of them.
/// The replacement understands `$1`..`$99`, `$<name>`, `$&` (the match), `` $` `` (before
/// it), `$'` (after it) and `$$`. The same step and time budgets as `regex/test` apply; the
/// result is capped at 1 MiB.
#[op(post "/v1/regex/replace" as regexReplace, tag = TextAndData, pipe(testString -> result),
     rejects = "a pattern that is not a valid regular expression, unknown or repeated flags, a pattern too expensive for the budgets, or a result over 1 MiB",
     example(swap_dates, {"pattern": "(?<y>\\d{4})-(\\d{2})-(\\d{2})", "testString": "from 2024-03-09 to 2024-12-31", "replacement": "$3/$2/$<y>", "flags": "g"}),
     example(first_only, {"pattern": "o", "testString": "foo boo", "replacement": "[$&]"}),
     cpu)]
async fn regex_replace(input: RegexReplaceInput) -> Result<RegexReplaceOutput, ApiError> {
    run_replace(input)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn test(p: &str, s: &str, f: &str) -> Result<RegexTestOutput, ApiError> {
        run_test(RegexTestInput { pattern: p.into(), test_string: s.into(), flags: f.into() }, 8 << 20)
    }

    fn replace(p: &str, s: &str, r: &str, f: &str) -> String {
        run_replace(RegexReplaceInput {
            pattern: p.into(),
            test_string: s.into(),
            replacement: r.into(),
            flags: f.into(),
        })
        .unwrap()
        .result
    }

    #[test]
    fn javascript_semantics() {
        // Values checked against JavaScript: 'aXbX'.replace(/X/, '-') etc.
        assert_eq!(replace("X", "aXbX", "-", ""), "a-bX");
        assert_eq!(replace("X", "aXbX", "-", "g"), "a-b-");
        assert_eq!(replace("(a)(b)?", "ab a", "[$2|$1|$&]", "g"), "[b|a|ab] [|a|a]");
        assert_eq!(replace("b", "abc", "$`$'$$", ""), "aac$c");
        assert_eq!(replace("(a)", "a", "$10", ""), "a0");
        assert_eq!(replace("(?<x>a)", "a", "<$<x>>", ""), "<a>");
        assert_eq!(replace("", "abc", "-", "g"), "-a-b-c-");
        assert_eq!(replace("x*", "abc", "-", "g"), "-a-b-c-");
        // \d and \w are ASCII in JavaScript.
        assert!(!test("\\d", "٣", "").unwrap().matched);
        assert!(!test("\\w", "é", "").unwrap().matched);
        assert!(test("[^]", "\n", "").unwrap().matched);
    }

    #[test]
    fn indices_are_utf16() {
        let out = test("b", "😀ab", "g").unwrap();
        assert_eq!(out.matches[0].index, 3);
    }

    #[test]
    fn sticky_flag_stops_at_a_gap() {
        let out = test("a", "aab a", "gy").unwrap();
        assert_eq!(out.match_count, 2);
    }

    #[test]
    fn bad_flags_and_patterns_are_400() {
        assert_eq!(test("a", "a", "gg").unwrap_err().code, ErrorCode::ValidationError);
        assert_eq!(test("a", "a", "x").unwrap_err().code, ErrorCode::ValidationError);
        assert_eq!(test("(a", "a", "").unwrap_err().code, ErrorCode::ValidationError);
    }

    #[test]
    fn catastrophic_backtracking_is_bounded() {
        let started = Instant::now();
        let s = "a".repeat(5000) + "b";
        let r = test("^(a+)+\\1$", &s, "");
        assert!(r.is_err() || !r.unwrap().matched);
        let r = test("(a|aa)+(?=c)", &"a".repeat(100_000), "g");
        assert!(r.is_err() || !r.unwrap().matched);
        assert!(started.elapsed() < Duration::from_secs(10), "took {:?}", started.elapsed());
    }

    #[tokio::test]
    async fn the_deepest_allowed_patterns_do_not_overflow_the_stack() {
        // 1,000 characters is the cap: about 500 levels of groups, of each kind.
        let depth = 499;
        for (open, close) in [("(", ")"), ("(?:", ")"), ("(?=", ")"), ("(?<n>", ")")] {
            let pattern = open.repeat(depth / open.len().max(1)) + "a" + &close.repeat(depth / open.len().max(1));
            let pattern: String = pattern.chars().take(1000).collect();
            let input = RegexTestInput { pattern, test_string: "aaa".into(), flags: "g".into() };
            let _ = regex_test(&Ctx::for_tests(), input).await;
        }
    }

    /// Every case of tests/fixtures/regex_js.json (what Node's RegExp answers; see the script
    /// beside it) through `regex/test` and `regex/replace`.
    #[test]
    fn javascript_engine_agrees() {
        let fixture: Value = serde_json::from_str(include_str!("../../tests/fixtures/regex_js.json")).unwrap();
        let texts = fixture["texts"].as_object().unwrap();
        let (mut compared, mut not_comparable, mut failures) = (0, 0, Vec::new());
        for case in fixture["cases"].as_array().unwrap() {
            let (pattern, flags) = (case["pattern"].as_str().unwrap(), case["flags"].as_str().unwrap());
            if case.get("error").is_some() {
                if test(pattern, "x", flags).is_ok() {
                    failures.push(format!("/{pattern}/{flags}: JavaScript refuses it, the service accepts it"));
                }
                continue;
            }
            if case.get("split_surrogates").is_some() {
                not_comparable += 1;
                continue;
            }
            let text = texts[case["text"].as_str().unwrap()].as_str().unwrap();
            let label = format!("/{pattern}/{flags} on {}", case["text"]);
            let got = match test(pattern, text, flags) {
                Ok(out) => out,
                Err(e) => {
                    failures.push(format!("{label}: refused: {}", e.message));
                    continue;
                }
            };
            let got: Vec<Value> = got
                .matches
                .iter()
                .map(|m| json!({"match": m.matched, "index": m.index, "captures": m.captures, "groups": m.groups}))
                .collect();
            if got != case["matches"].as_array().unwrap().clone() {
                failures.push(format!("{label}: matches\n  js:  {}\n  got: {}", case["matches"], Value::Array(got)));
            }
            for (template, expected) in case["replaced"].as_object().unwrap() {
                let input = RegexReplaceInput {
                    pattern: pattern.into(),
                    test_string: text.into(),
                    replacement: template.clone(),
                    flags: flags.into(),
                };
                match run_replace(input) {
                    Ok(out) if out.result == expected.as_str().unwrap() => {}
                    Ok(out) => failures
                        .push(format!("{label}: replace {template:?}\n  js:  {expected}\n  got: {:?}", out.result)),
                    Err(e) => failures.push(format!("{label}: replace {template:?} refused: {}", e.message)),
                }
            }
            compared += 1;
        }
        eprintln!(
            "{compared} cases compared with {}; {not_comparable} not comparable (JavaScript split a surrogate pair without the u flag)",
            fixture["node"]
        );
        assert!(compared > 700, "only {compared} cases compared");
        assert!(failures.is_empty(), "{} disagreements with JavaScript:\n{}", failures.len(), failures.join("\n"));
    }

    #[test]
    fn word_boundaries_run_on_the_largest_text() {
        // \b is look-around in the translation: it must still scan 100,000 characters within
        // the step and time budgets.
        let text = "dog ".repeat(24_999) + "cat";
        let started = Instant::now();
        let out = test("\\bcat\\b", &text, "g").unwrap();
        assert_eq!((out.match_count, out.matches[0].index), (1, 99_996));
        let out = test("\\b\\w+\\b", &text, "g").unwrap();
        assert_eq!((out.match_count, out.truncated), (1000, true));
        let out = test("\\Bo\\B", &text, "g").unwrap();
        assert_eq!(out.match_count, 1000);
        // With a word character outside ASCII the look-around form runs, within budget too.
        let text = "chien été ".repeat(9_999) + "chat";
        let out = test("\\bchat\\b", &text, "g").unwrap();
        assert_eq!((out.match_count, out.matches[0].index), (1, 99_990));
        // And JavaScript's ASCII boundary holds: "é" is not a word character there.
        let out = test("\\bt\\b", "été", "").unwrap();
        assert!(out.matched);
        assert!(started.elapsed() < Duration::from_secs(5), "{:?}", started.elapsed());
    }

    #[test]
    fn test_lists_at_most_1000_matches() {
        let out = test("a", &"a".repeat(1500), "g").unwrap();
        assert_eq!((out.match_count, out.truncated), (1000, true));
    }
}
