//! Characters as escapes (`unicode/escape`, `unicode/unescape`) in the forms code and
//! documents use: `\uXXXX` (JSON, JavaScript, Java, C#: UTF-16 units, so pairs above U+FFFF),
//! `\u{...}` (JavaScript since 2015, Rust, Swift), `U+XXXX` (the Unicode standard's way of
//! naming a code point), `&#x...;` (HTML and XML) and `%uXXXX` (JavaScript's old `escape()`).

use std::fmt::Write as _;

use wrench_contract::prelude::*;

/// The styles are named in words, not by their look (`\u`, `%u`): generated SDKs make
/// identifiers of these names, and `\u` and `%u` would both become `U`.
#[derive(Debug, Deserialize, Serialize, JsonSchema, Validate, Clone, Copy, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
enum EscapeStyle {
    /// `\u00e9`, `\ud83d\ude00`: UTF-16 units, as JSON and JavaScript write them.
    Utf16,
    /// `\u{e9}`, `\u{1f600}`: one code point each.
    Braced,
    /// `U+0063 U+00E9`: the standard's notation, every character (ASCII too), separated by
    /// spaces.
    Codepoint,
    /// `&#xE9;`, `&#x1F600;`: a numeric character reference.
    Html,
    /// `%u00E9`, `%uD83D%uDE00`: UTF-16 units, as JavaScript's `escape()` writes them.
    Percent,
}

fn utf16() -> EscapeStyle {
    EscapeStyle::Utf16
}

fn escape(text: &str, style: EscapeStyle, non_ascii_only: bool) -> String {
    let mut out = String::with_capacity(text.len() * 2);
    let mut first = true;
    // `U+` lists code points: every character, so that the list reads back without doubt.
    let non_ascii_only = non_ascii_only && style != EscapeStyle::Codepoint;
    for c in text.chars() {
        if non_ascii_only && c.is_ascii() {
            out.push(c);
            first = true;
            continue;
        }
        let n = c as u32;
        match style {
            EscapeStyle::Utf16 | EscapeStyle::Percent => {
                let prefix = if style == EscapeStyle::Utf16 { "\\u" } else { "%u" };
                for unit in c.encode_utf16(&mut [0; 2]) {
                    let _ = if style == EscapeStyle::Utf16 {
                        write!(out, "{prefix}{unit:04x}")
                    } else {
                        write!(out, "{prefix}{unit:04X}")
                    };
                }
            }
            EscapeStyle::Braced => {
                let _ = write!(out, "\\u{{{n:x}}}");
            }
            EscapeStyle::Codepoint => {
                if !first {
                    out.push(' ');
                }
                let _ = write!(out, "U+{n:04X}");
            }
            EscapeStyle::Html => {
                let _ = write!(out, "&#x{n:X};");
            }
        }
        first = false;
    }
    out
}

/// Every escape of every style replaced by its character; what is not an escape stays.
fn unescape(text: &str) -> Result<String, String> {
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    let mut pending_high: Option<(u32, usize)> = None;
    let mut i = 0;
    let hex_at = |from: usize, n: usize| -> Option<u32> {
        let s: String = chars.get(from..from + n)?.iter().collect();
        if s.len() == n && s.chars().all(|c| c.is_ascii_hexdigit()) { u32::from_str_radix(&s, 16).ok() } else { None }
    };
    while i < chars.len() {
        let start = i;
        // Each form: the code it stands for, whether it is a UTF-16 unit, and its length.
        let found: Option<(u32, bool, usize)> = match chars[i] {
            '\\' if chars.get(i + 1) == Some(&'u') && chars.get(i + 2) == Some(&'{') => {
                let close = chars[i + 3..].iter().position(|&c| c == '}').map(|p| i + 3 + p);
                close.and_then(|end| {
                    let digits: String = chars[i + 3..end].iter().collect();
                    (1..=6)
                        .contains(&digits.len())
                        .then(|| u32::from_str_radix(&digits, 16).ok())
                        .flatten()
                        .map(|n| (n, false, end + 1 - i))
                })
            }
            '\\' if chars.get(i + 1) == Some(&'u') => hex_at(i + 2, 4).map(|n| (n, true, 6)),
            '%' if chars.get(i + 1) == Some(&'u') => hex_at(i + 2, 4).map(|n| (n, true, 6)),
            'U' if chars.get(i + 1) == Some(&'+') => {
                let len = chars[i + 2..].iter().take(6).take_while(|c| c.is_ascii_hexdigit()).count();
                (len >= 4).then(|| hex_at(i + 2, len).map(|n| (n, false, 2 + len))).flatten()
            }
            '&' if chars.get(i + 1) == Some(&'#') => {
                let (hex, from) =
                    if matches!(chars.get(i + 2), Some('x' | 'X')) { (true, i + 3) } else { (false, i + 2) };
                let len = chars[from..]
                    .iter()
                    .take_while(|c| if hex { c.is_ascii_hexdigit() } else { c.is_ascii_digit() })
                    .count();
                (len > 0 && len <= 7 && chars.get(from + len) == Some(&';'))
                    .then(|| {
                        let digits: String = chars[from..from + len].iter().collect();
                        u32::from_str_radix(&digits, if hex { 16 } else { 10 }).ok()
                    })
                    .flatten()
                    .map(|n| (n, false, from + len + 1 - i))
            }
            _ => None,
        };
        let Some((n, unit, len)) = found else {
            if let Some((_, at)) = pending_high.take() {
                return Err(format!(
                    "the escape at position {at} is the first half of a surrogate pair without its second"
                ));
            }
            out.push(chars[i]);
            i += 1;
            continue;
        };
        i += len;
        // `U+` escapes are written with a space between them: it is part of the notation.
        let code_point = chars[start] == 'U';
        if code_point && chars.get(i) == Some(&' ') && chars.get(i + 1) == Some(&'U') && chars.get(i + 2) == Some(&'+')
        {
            i += 1;
        }
        match (unit, n, pending_high.take()) {
            (true, 0xDC00..=0xDFFF, Some((high, _))) => {
                out.push(char::from_u32(0x10000 + ((high - 0xD800) << 10) + (n - 0xDC00)).expect("a valid pair"));
            }
            (_, _, Some((_, at))) => {
                return Err(format!(
                    "the escape at position {at} is the first half of a surrogate pair without its second"
                ));
            }
            (true, 0xD800..=0xDBFF, None) => pending_high = Some((n, start)),
            (_, n, None) => match char::from_u32(n) {
                Some(c) => out.push(c),
                None => {
                    return Err(format!("the escape at position {start} stands for U+{n:X}, which is not a character"));
                }
            },
        }
    }
    if let Some((_, at)) = pending_high {
        return Err(format!("the escape at position {at} is the first half of a surrogate pair without its second"));
    }
    Ok(out)
}

#[derive(Debug, Deserialize, JsonSchema, Validate)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct UnicodeEscapeInput {
    /// The text.
    text: String,
    /// `utf16` (the default: `\u00e9`), `braced` (`\u{e9}`), `codepoint` (`U+00E9`), `html`
    /// (`&#xE9;`) or `percent` (`%u00E9`).
    #[serde(default = "utf16")]
    style: EscapeStyle,
    /// Leave ASCII characters as they are (the default); false escapes every character.
    #[serde(default = "wrench_contract::decode::yes")]
    non_ascii_only: bool,
}

#[derive(Debug, Serialize, JsonSchema)]
struct UnicodeEscapeOutput {
    /// The text with its characters escaped.
    escaped: String,
}

/// Write characters as Unicode escapes.
///
/// Writes each character outside ASCII (or every character, with `nonAsciiOnly` false) as
/// `\uXXXX` (UTF-16 units, so `\ud83d\ude00` for 😀, as JSON and JavaScript have it),
/// `\u{...}` (one code point), `U+XXXX` (every character, ASCII too, separated by spaces, as
/// the standard lists code points), `&#x...;` or `%uXXXX` (JavaScript's old `escape()`).
#[op(post "/v1/unicode/escape" as unicodeEscape, tag = TextAndData, pipe(text -> escaped),
     example(json_style, {"text": "café 😀"}),
     example(code_points, {"text": "Añ😀", "style": "codepoint"}),
     example(braced, {"text": "naïve ☕", "style": "braced"}))]
async fn unicode_escape(ctx: &Ctx, input: UnicodeEscapeInput) -> Result<UnicodeEscapeOutput, ApiError> {
    // At most 14 bytes a character (two `\uXXXX`, backslashes doubled in JSON), so the text is
    // built and then measured: 14 for every character refused answers that fit.
    let escaped = escape(&input.text, input.style, input.non_ascii_only);
    wrench_infra::bounds::OutputBudget::new(ctx.config.response_limit).add_json_string(&escaped)?;
    Ok(UnicodeEscapeOutput { escaped })
}

#[derive(Debug, Deserialize, JsonSchema, Validate)]
#[serde(deny_unknown_fields)]
struct UnicodeUnescapeInput {
    /// Text with escapes of any of the forms, mixed as they come.
    text: String,
}

#[derive(Debug, Serialize, JsonSchema)]
struct UnicodeUnescapeOutput {
    /// The text with every escape replaced by its character.
    unescaped: String,
}

/// Replace Unicode escapes with their characters.
///
/// Reads every form `unicode/escape` writes, mixed: `\uXXXX` and `%uXXXX` (with their surrogate
/// pairs joined), `\u{...}`, `U+XXXX` (four to six digits) and `&#x...;` or `&#...;`. Anything
/// that is not an escape stays as it is. A surrogate without its other half, or a value that is
/// not a character, is a 400 naming the position.
#[op(post "/v1/unicode/unescape" as unicodeUnescape, tag = TextAndData, pipe(text -> unescaped),
     rejects = "a surrogate without its other half, or an escape of a value that is not a character",
     example(mixed, {"text": "caf\\u00e9 \\ud83d\\ude00 U+2615 &#x1F600; %u00E9 \\u{1f44d}"}),
     example(lone_surrogate, {"text": "\\ud83d!"}, status = 400))]
async fn unicode_unescape(input: UnicodeUnescapeInput) -> Result<UnicodeUnescapeOutput, ApiError> {
    unescape(&input.text).map(|unescaped| UnicodeUnescapeOutput { unescaped }).map_err(|e| ApiError::invalid("text", e))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Python's `json.dumps(ensure_ascii=True)` for `\u`, `ascii()`-like formatting by Python
    /// for the other forms, and `codecs.decode(..., "unicode_escape")` reading `\u` back
    /// (tests/fixtures/text_transforms.py).
    #[test]
    fn python_agrees() {
        let fixture = crate::testing::fixture("text_transforms.json");
        let cases = fixture["unicode"].as_array().unwrap();
        assert!(cases.len() >= 10);
        for case in cases {
            let text = case["text"].as_str().unwrap();
            for (name, style) in [
                ("utf16", EscapeStyle::Utf16),
                ("braced", EscapeStyle::Braced),
                ("code_point", EscapeStyle::Codepoint),
                ("html", EscapeStyle::Html),
                ("percent", EscapeStyle::Percent),
            ] {
                let want = case[name].as_str().unwrap();
                assert_eq!(escape(text, style, true), want, "{name} of {text:?}");
                assert_eq!(unescape(want).unwrap(), text, "{name} back");
                assert_eq!(unescape(&escape(text, style, false)).unwrap(), text, "{name}, all characters");
            }
        }
    }
}
