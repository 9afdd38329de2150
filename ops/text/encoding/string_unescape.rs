//! String literals read back (`string/unescape`): the escapes of each syntax of
//! `string_escape.rs`, with or without the literal's quotes, to the bytes they stand for.
//! Errors name the position (in characters) of the escape at fault.

use wrench_contract::prelude::*;
use wrench_kit::byte_encoding::{self, OutputEncoding, UsedEncoding};

use super::string_escape::StringSyntax;

/// A reader over the characters of a literal, keeping positions for errors.
struct Chars {
    chars: Vec<char>,
    at: usize,
}

impl Chars {
    fn new(text: &str) -> Chars {
        Chars { chars: text.chars().collect(), at: 0 }
    }

    fn next(&mut self) -> Option<char> {
        let c = self.chars.get(self.at).copied();
        self.at += usize::from(c.is_some());
        c
    }

    fn peek(&self) -> Option<char> {
        self.chars.get(self.at).copied()
    }

    /// Up to `max` digits of `radix`, as a number, and how many there were.
    fn digits(&mut self, radix: u32, max: usize) -> (u32, usize) {
        let (mut value, mut n) = (0u32, 0);
        while n < max {
            let Some(d) = self.peek().and_then(|c| c.to_digit(radix)) else { break };
            value = value.saturating_mul(radix).saturating_add(d);
            self.at += 1;
            n += 1;
        }
        (value, n)
    }

    /// Exactly `n` hex digits, or an error naming the escape that began at `start`.
    fn hex(&mut self, n: usize, start: usize) -> Result<u32, String> {
        let (value, got) = self.digits(16, n);
        if got < n {
            return Err(format!("the escape at position {start} needs {n} hex digits"));
        }
        Ok(value)
    }
}

/// Appends the UTF-8 bytes of code point `n`, refusing what is not a scalar value.
fn push_char(out: &mut Vec<u8>, n: u32, start: usize) -> Result<(), String> {
    let c = char::from_u32(n).ok_or_else(|| format!("the escape at position {start} is U+{n:X}, not a character"))?;
    out.extend_from_slice(c.encode_utf8(&mut [0; 4]).as_bytes());
    Ok(())
}

/// `text` without one pair of the given surrounding quotes, if it has them.
fn unquoted(text: &str, quotes: &[char]) -> (String, usize) {
    let mut cs = text.chars();
    match (cs.next(), text.chars().last()) {
        (Some(a), Some(b)) if text.chars().count() >= 2 && a == b && quotes.contains(&a) => {
            (text[a.len_utf8()..text.len() - b.len_utf8()].to_string(), 1)
        }
        _ => (text.to_string(), 0),
    }
}

/// JSON, JavaScript, Java and Python escapes; `\u` surrogate pairs are joined.
fn backslashes(text: &str, syntax: StringSyntax, offset: usize) -> Result<Vec<u8>, String> {
    let mut s = Chars::new(text);
    let mut out = Vec::with_capacity(text.len());
    let mut high: Option<(u32, usize)> = None;
    while let Some(c) = s.next() {
        let start = s.at - 1 + offset;
        if c != '\\' {
            if let Some((_, at)) = high.take() {
                return Err(format!("the escape at position {at} is half of a surrogate pair"));
            }
            out.extend_from_slice(c.encode_utf8(&mut [0; 4]).as_bytes());
            continue;
        }
        let Some(e) = s.next() else {
            return Err(format!("the backslash at position {start} ends the text"));
        };
        let simple = match (e, syntax) {
            ('"' | '\\', _) | ('/', StringSyntax::Json) => Some(e),
            ('\'', StringSyntax::Javascript | StringSyntax::Java | StringSyntax::Python) => Some(e),
            ('b', _) => Some('\u{8}'),
            ('f', _) => Some('\u{c}'),
            ('n', _) => Some('\n'),
            ('r', _) => Some('\r'),
            ('t', _) => Some('\t'),
            ('v', StringSyntax::Javascript | StringSyntax::Python) => Some('\u{b}'),
            ('a', StringSyntax::Python) => Some('\u{7}'),
            ('s', StringSyntax::Java) => Some(' '),
            _ => None,
        };
        let code = if let Some(ch) = simple {
            ch as u32
        } else {
            match (e, syntax) {
                ('u', StringSyntax::Java) => {
                    // Java allows any number of `u`s in a Unicode escape.
                    while s.peek() == Some('u') {
                        s.at += 1;
                    }
                    s.hex(4, start)?
                }
                ('u', StringSyntax::Javascript) if s.peek() == Some('{') => {
                    s.at += 1;
                    let (value, n) = s.digits(16, 8);
                    if n == 0 || s.next() != Some('}') || value > 0x10FFFF {
                        return Err(format!("the escape at position {start} is not \\u{{...}} of at most 10FFFF"));
                    }
                    value
                }
                ('u', _) => s.hex(4, start)?,
                ('U', StringSyntax::Python) => s.hex(8, start)?,
                ('x', StringSyntax::Javascript | StringSyntax::Python) => s.hex(2, start)?,
                ('0'..='7', StringSyntax::Javascript | StringSyntax::Java | StringSyntax::Python) => {
                    s.at -= 1;
                    // Octal: Python reads up to three digits; JavaScript's legacy escapes and
                    // Java's stop at 0o377.
                    let max = if e <= '3' || syntax == StringSyntax::Python { 3 } else { 2 };
                    s.digits(8, max).0
                }
                ('\n' | '\u{2028}' | '\u{2029}', StringSyntax::Javascript) | ('\n', StringSyntax::Python) => continue,
                ('\r', StringSyntax::Javascript) => {
                    if s.peek() == Some('\n') {
                        s.at += 1;
                    }
                    continue;
                }
                ('N', StringSyntax::Python) => {
                    return Err(format!(
                        "the \\N{{...}} escape at position {start} names a character; give the character or \\U instead"
                    ));
                }
                (other, StringSyntax::Javascript) => other as u32,
                (other, StringSyntax::Python) => {
                    // Python keeps an unknown escape as it is, backslash included.
                    out.push(b'\\');
                    other as u32
                }
                (other, _) => return Err(format!("\\{other} at position {start} is not an escape of this syntax")),
            }
        };
        // UTF-16 escapes come in pairs above U+FFFF (Python's \u does not pair).
        let pairs = syntax != StringSyntax::Python;
        match (code, high.take()) {
            (0xDC00..=0xDFFF, Some((h, _))) if pairs => {
                push_char(&mut out, 0x10000 + ((h - 0xD800) << 10) + (code - 0xDC00), start)?;
            }
            (_, Some((_, at))) => return Err(format!("the escape at position {at} is half of a surrogate pair")),
            (0xD800..=0xDBFF, None) if pairs => high = Some((code, start)),
            (code, None) => push_char(&mut out, code, start)?,
        }
    }
    if let Some((_, at)) = high {
        return Err(format!("the escape at position {at} is half of a surrogate pair"));
    }
    Ok(out)
}

/// C: simple escapes, octal (1-3 digits) and hex (as many digits as follow, one byte) as
/// bytes, `\u` and `\U` as UTF-8.
fn c(text: &str, offset: usize) -> Result<Vec<u8>, String> {
    let mut s = Chars::new(text);
    let mut out = Vec::with_capacity(text.len());
    while let Some(ch) = s.next() {
        let start = s.at - 1 + offset;
        if ch != '\\' {
            out.extend_from_slice(ch.encode_utf8(&mut [0; 4]).as_bytes());
            continue;
        }
        let e = s.next().ok_or_else(|| format!("the backslash at position {start} ends the text"))?;
        let byte = match e {
            'a' => 7,
            'b' => 8,
            'f' => 0x0c,
            'n' => b'\n',
            'r' => b'\r',
            't' => b'\t',
            'v' => 0x0b,
            '\\' | '\'' | '"' | '?' => e as u8,
            '0'..='7' => {
                s.at -= 1;
                let value = s.digits(8, 3).0;
                u8::try_from(value).map_err(|_| format!("the octal escape at position {start} is over 0377"))?
            }
            'x' => {
                let (value, n) = s.digits(16, usize::MAX);
                if n == 0 {
                    return Err(format!("the escape at position {start} has no hex digits"));
                }
                u8::try_from(value).map_err(|_| format!("the hex escape at position {start} is over one byte"))?
            }
            'u' | 'U' => {
                let n = s.hex(if e == 'u' { 4 } else { 8 }, start)?;
                push_char(&mut out, n, start)?;
                continue;
            }
            other => return Err(format!("\\{other} at position {start} is not a C escape")),
        };
        out.push(byte);
    }
    Ok(out)
}

/// One POSIX shell word: single quotes, double quotes (where `\` escapes only `$ \` " \\` and a
/// line break) and backslashes outside quotes. More than one word is an error.
fn shell(text: &str) -> Result<Vec<u8>, String> {
    let mut s = Chars::new(text);
    let mut out = String::with_capacity(text.len());
    let mut seen = false;
    while let Some(c) = s.next() {
        let start = s.at - 1;
        match c {
            '\'' => {
                loop {
                    match s.next() {
                        Some('\'') => break,
                        Some(x) => out.push(x),
                        None => return Err(format!("the quote at position {start} is not closed")),
                    }
                }
                seen = true;
            }
            '"' => {
                loop {
                    match s.next() {
                        Some('"') => break,
                        Some('\\') if matches!(s.peek(), Some('$' | '`' | '"' | '\\' | '\n')) => {
                            let x = s.next().unwrap_or('\\');
                            if x != '\n' {
                                out.push(x);
                            }
                        }
                        Some(x) => out.push(x),
                        None => return Err(format!("the quote at position {start} is not closed")),
                    }
                }
                seen = true;
            }
            '\\' => match s.next() {
                Some('\n') => {}
                Some(x) => {
                    out.push(x);
                    seen = true;
                }
                None => return Err(format!("the backslash at position {start} ends the text")),
            },
            c if c == ' ' || c == '\t' || c == '\n' => {
                if seen && s.chars[s.at..].iter().any(|c| !c.is_ascii_whitespace()) {
                    return Err(format!("a second word starts after position {start}; give one word"));
                }
            }
            c => {
                out.push(c);
                seen = true;
            }
        }
    }
    Ok(out.into_bytes())
}

/// A backslash before a character that is not a letter or digit stands for that character;
/// before a letter or digit it is a class or reference, which is not literal text.
fn regex(text: &str) -> Result<Vec<u8>, String> {
    let mut s = Chars::new(text);
    let mut out = String::with_capacity(text.len());
    while let Some(c) = s.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match s.next() {
            Some(x) if !x.is_alphanumeric() => out.push(x),
            Some(x) => return Err(format!("\\{x} at position {} is a class or reference, not escaped text", s.at - 2)),
            None => return Err(format!("the backslash at position {} ends the text", s.at - 1)),
        }
    }
    Ok(out.into_bytes())
}

/// One CSV field: as it is, or in double quotes with `""` for each `"`.
fn csv(text: &str) -> Result<Vec<u8>, String> {
    let Some(inner) = text.strip_prefix('"') else {
        if let Some(i) = text.find(['"', '\n', '\r', ',']) {
            let at = text[..i].chars().count();
            return Err(format!("an unquoted field cannot hold {:?} (position {at})", &text[i..i + 1]));
        }
        return Ok(text.as_bytes().to_vec());
    };
    let mut out = String::with_capacity(inner.len());
    let mut chars = inner.chars().enumerate().peekable();
    while let Some((i, c)) = chars.next() {
        if c != '"' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some((_, '"')) => out.push('"'),
            None => return Ok(out.into_bytes()),
            Some(_) => return Err(format!("the quote at position {} ends the field before its end", i + 1)),
        }
    }
    Err("the field's opening quote is not closed".into())
}

/// A standard SQL literal: in single quotes, `''` for each `'`.
fn sql(text: &str) -> Result<Vec<u8>, String> {
    let inner = text
        .strip_prefix('\'')
        .and_then(|t| t.strip_suffix('\''))
        .filter(|_| text.len() >= 2)
        .ok_or("a SQL string literal is in single quotes")?;
    let mut out = String::with_capacity(inner.len());
    let mut chars = inner.chars().enumerate();
    while let Some((i, c)) = chars.next() {
        if c == '\'' && chars.next().map(|(_, n)| n) != Some('\'') {
            return Err(format!("the quote at position {} is not doubled", i + 1));
        }
        out.push(c);
    }
    Ok(out.into_bytes())
}

/// XML: the five predefined entities and numeric references (to characters XML can hold).
fn xml(text: &str) -> Result<Vec<u8>, String> {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    let mut consumed = 0;
    while let Some(amp) = rest.find('&') {
        out.push_str(&rest[..amp]);
        let at = consumed + rest[..amp].chars().count();
        let after = &rest[amp + 1..];
        let semi = after.find(';').ok_or_else(|| format!("the reference at position {at} has no ;"))?;
        let name = &after[..semi];
        let c = match name {
            "amp" => '&',
            "lt" => '<',
            "gt" => '>',
            "quot" => '"',
            "apos" => '\'',
            _ => {
                let n = if let Some(h) = name.strip_prefix("#x") {
                    u32::from_str_radix(h, 16).ok()
                } else if let Some(d) = name.strip_prefix('#') {
                    d.parse().ok()
                } else {
                    return Err(format!("&{name}; at position {at} is not one of XML's five entities"));
                };
                let allowed = |c: &char| {
                    matches!(*c, '\t' | '\n' | '\r') || (*c >= ' ' && !matches!(*c, '\u{FFFE}' | '\u{FFFF}'))
                };
                n.and_then(char::from_u32)
                    .filter(allowed)
                    .ok_or_else(|| format!("&{name}; at position {at} is not a character XML can hold"))?
            }
        };
        out.push(c);
        consumed = at + name.chars().count() + 2;
        rest = &after[semi + 1..];
    }
    out.push_str(rest);
    Ok(out.into_bytes())
}

/// The bytes the literal or escaped `text` of `syntax` stands for.
pub(crate) fn unescape(text: &str, syntax: StringSyntax) -> Result<Vec<u8>, String> {
    match syntax {
        StringSyntax::Json | StringSyntax::Javascript | StringSyntax::Java => {
            let quotes: &[char] = if syntax == StringSyntax::Javascript { &['"', '\''] } else { &['"'] };
            let (inner, offset) = unquoted(text, quotes);
            if syntax == StringSyntax::Json
                && let Some((i, c)) = inner.chars().enumerate().find(|(_, c)| (*c as u32) < 0x20)
            {
                return Err(format!("U+{:04X} at position {} must be escaped in JSON", c as u32, i + offset));
            }
            backslashes(&inner, syntax, offset)
        }
        StringSyntax::Python => {
            let (inner, offset) = unquoted(text, &['"', '\'']);
            backslashes(&inner, syntax, offset)
        }
        StringSyntax::C => {
            let (inner, offset) = unquoted(text, &['"']);
            c(&inner, offset)
        }
        StringSyntax::Shell => shell(text),
        StringSyntax::Regex => regex(text),
        StringSyntax::Csv => csv(text),
        StringSyntax::Sql => sql(text),
        StringSyntax::Xml => xml(text),
    }
}

#[derive(Debug, Deserialize, JsonSchema, Validate)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct UnescapeInput {
    /// The literal (its quotes may be left off where the syntax has them) or escaped text.
    text: String,
    /// The language or format: `json`, `javascript`, `python`, `java`, `c`, `shell`, `regex`,
    /// `csv`, `sql` or `xml`.
    syntax: StringSyntax,
    /// How to write the result: `auto` (the default: text when it is UTF-8 text without
    /// control characters other than tab and line breaks, else standard Base64), `utf-8`
    /// (text, refused when it is not UTF-8), `hex`, `base64` or `base64url`.
    #[serde(default)]
    output_encoding: OutputEncoding,
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct UnescapeOutput {
    /// What the literal stands for, written as `outputEncoding` says.
    unescaped: String,
    /// How `unescaped` is written: `utf-8`, `hex`, `base64` or `base64url`.
    output_encoding: UsedEncoding,
    /// How many bytes it is.
    bytes: usize,
}

/// Read a string literal back to its text or bytes.
///
/// Reads the escapes of the syntax `string/escape` writes, and the rest each language allows:
/// JSON's, JavaScript's (`\x`, `\u{...}`, legacy octal, line continuations; single or double
/// quotes), Python's (`\x`, `\u`, `\U`, octal; an unknown escape kept as it is), Java's (`\s`,
/// octal, `\uuuu`), C's (octal and hex as bytes, `\u` as UTF-8), one POSIX shell word (single
/// and double quotes, backslashes), a regex-escaped text, one CSV field, a SQL literal, or XML
/// text with its five entities and numeric references. The quotes around a literal may be left
/// off. The result comes back as text when it is text, else in the encoding the answer's
/// `outputEncoding` names (C literals can hold any bytes).
#[op(post "/v1/string/unescape" as stringUnescape, tag = TextAndData, pipe(text -> unescaped),
     rejects = "an escape the syntax does not have, or a literal that is not closed, naming the position",
     example(json, {"text": "\"line 1\\nsaid \\\"hi\\\"\\u00e9\"", "syntax": "json"}),
     example(c_bytes_as_hex, {"text": "\"hi\\n\\377\\x00\"", "syntax": "c", "outputEncoding": "hex"}),
     example(shell, {"text": "'it'\"'\"'s $HOME'", "syntax": "shell"}),
     example(unknown_escape, {"text": "\"\\q\"", "syntax": "java"}, status = 400))]
async fn string_unescape(input: UnescapeInput) -> Result<UnescapeOutput, ApiError> {
    let bytes = unescape(&input.text, input.syntax).map_err(|e| ApiError::invalid("text", e))?;
    let (unescaped, output_encoding) = byte_encoding::encode(&bytes, input.output_encoding, "outputEncoding")?;
    Ok(UnescapeOutput { unescaped, output_encoding, bytes: bytes.len() })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::text::encoding::string_escape::escape;

    /// What each reference reads the literals of tests/fixtures/string_escapes.py as: Python's
    /// `json.loads`, `ast.literal_eval` (Python literals, and C literals as `b"..."`),
    /// `shlex.split`, `csv`, SQLite's `SELECT`, ElementTree, and Node evaluating JavaScript
    /// literals. Every escaped form of every text also reads back to it.
    #[test]
    fn the_references_agree() {
        let fixture = crate::testing::fixture("string_escapes.json");
        let cases = fixture["unescape"].as_array().unwrap();
        assert!(cases.len() >= 50);
        for case in cases {
            let syntax: StringSyntax = serde_json::from_value(case["syntax"].clone()).unwrap();
            let text = case["text"].as_str().unwrap();
            let want = case["hex"].as_str().map(|h| ::hex::decode(h).unwrap());
            assert_eq!(unescape(text, syntax).ok(), want, "{syntax:?} {text:?}");
        }
        for case in fixture["escape"].as_array().unwrap() {
            let bytes = ::hex::decode(case["hex"].as_str().unwrap()).unwrap();
            for syntax in [
                StringSyntax::Json,
                StringSyntax::Javascript,
                StringSyntax::Python,
                StringSyntax::Java,
                StringSyntax::C,
                StringSyntax::Shell,
                StringSyntax::Regex,
                StringSyntax::Csv,
                StringSyntax::Sql,
                StringSyntax::Xml,
            ] {
                if let Ok(escaped) = escape(&bytes, syntax) {
                    assert_eq!(unescape(&escaped, syntax).unwrap(), bytes, "{syntax:?} {escaped:?}");
                }
            }
        }
    }

    /// The Java Language Specification's escapes (section 3.10.7), by hand: there is no Java
    /// here to ask.
    #[test]
    fn java_escapes_follow_the_jls() {
        assert_eq!(unescape(r#""\s\t\0\377\uuu00e9\'""#, StringSyntax::Java).unwrap(), " \t\0ÿé'".as_bytes());
        assert_eq!(unescape(r#""\uD83D\uDE00""#, StringSyntax::Java).unwrap(), "😀".as_bytes());
        assert!(unescape(r#""\x41""#, StringSyntax::Java).unwrap_err().contains("position 1"));
        assert!(unescape(r#""\uD83D""#, StringSyntax::Java).unwrap_err().contains("surrogate"));
    }
}
