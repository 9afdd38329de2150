//! String literals of ten languages and formats, written (`string/escape`) and read back
//! (`string/unescape`, in `string_unescape.rs`). Each syntax is one rule, named after the
//! implementation it matches:
//!
//! | syntax | written as | matches |
//! |---|---|---|
//! | `json` | a JSON string | Python's `json.dumps(ensure_ascii=False)` |
//! | `javascript` | a double-quoted literal, also escaping U+2028 and U+2029 | `JSON.stringify`, read back by Node |
//! | `python` | an ASCII-only literal | Python's `ascii()` |
//! | `java` | a double-quoted literal, controls as `\uXXXX` | the JLS escapes |
//! | `c` | a double-quoted literal of bytes, others in octal | a C compiler; Python's `b"..."` |
//! | `shell` | a POSIX shell word, quoted only when needed | Python's `shlex.quote` |
//! | `regex` | the text with regex syntax escaped | Python's `re.escape` |
//! | `csv` | one CSV field, quoted only when needed | Python's `csv` (excel dialect) |
//! | `sql` | a standard SQL string literal | SQLite |
//! | `xml` | text with the five predefined entities | Python's `xml.sax.saxutils.escape` |

use std::fmt::Write as _;

use wrench_contract::prelude::*;
use wrench_infra::bounds::OutputBudget;
use wrench_kit::byte_encoding::{self, InputEncoding};

#[derive(Debug, Deserialize, Serialize, JsonSchema, Validate, Clone, Copy, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub(crate) enum StringSyntax {
    /// A JSON string, quotes included.
    Json,
    /// A JavaScript string literal in double quotes.
    Javascript,
    /// A Python string literal, ASCII only (as `ascii()` writes it).
    Python,
    /// A Java string literal.
    Java,
    /// A C string literal; the text's UTF-8 bytes, those outside printable ASCII in octal.
    C,
    /// One POSIX shell word, single-quoted when it needs quoting.
    Shell,
    /// Text matched literally by a regular expression (Python's, JavaScript's and PCRE's).
    Regex,
    /// One CSV field, double-quoted when it needs quoting.
    Csv,
    /// A standard SQL string literal in single quotes.
    Sql,
    /// XML text or attribute value with `& < > " '` as entities.
    Xml,
}

/// `\uXXXX` for a character of the Basic Multilingual Plane (callers pass those only).
fn u4(out: &mut String, c: char) {
    let _ = write!(out, "\\u{:04x}", c as u32);
}

/// A double-quoted literal with the escapes JSON, JavaScript and Java share (`\"`, `\\`, `\b`,
/// `\f`, `\n`, `\r`, `\t`), and `\uXXXX` for the other characters `as_u` picks.
fn double_quoted(text: &str, as_u: impl Fn(char) -> bool) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    out.push('"');
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if as_u(c) => u4(&mut out, c),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// JSON escapes the controls below U+0020; JavaScript also U+2028 and U+2029, which older
/// engines took for line ends inside a string.
fn json_like(text: &str, javascript: bool) -> String {
    double_quoted(text, |c| (c as u32) < 0x20 || (javascript && matches!(c, '\u{2028}' | '\u{2029}')))
}

/// Python's `ascii()`: single quotes unless the text holds `'` and no `"`.
fn python(text: &str) -> String {
    let quote = if text.contains('\'') && !text.contains('"') { '"' } else { '\'' };
    let mut out = String::with_capacity(text.len() + 2);
    out.push(quote);
    for c in text.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\t' => out.push_str("\\t"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            c if c == quote => {
                out.push('\\');
                out.push(c);
            }
            ' '..='~' => out.push(c),
            c if (c as u32) < 0x100 => {
                let _ = write!(out, "\\x{:02x}", c as u32);
            }
            c if (c as u32) < 0x10000 => u4(&mut out, c),
            c => {
                let _ = write!(out, "\\U{:08x}", c as u32);
            }
        }
    }
    out.push(quote);
    out
}

/// Java writes every control character (C0, DEL and C1) as `\uXXXX`.
fn java(text: &str) -> String {
    double_quoted(text, char::is_control)
}

/// A C literal of `bytes`. Octal escapes are always three digits, so a digit after one is
/// never read into it (hex escapes in C have no such end).
fn c(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len() + 2);
    out.push('"');
    for &b in bytes {
        match b {
            b'"' => out.push_str("\\\""),
            b'\\' => out.push_str("\\\\"),
            0x07 => out.push_str("\\a"),
            0x08 => out.push_str("\\b"),
            0x0c => out.push_str("\\f"),
            b'\n' => out.push_str("\\n"),
            b'\r' => out.push_str("\\r"),
            b'\t' => out.push_str("\\t"),
            0x0b => out.push_str("\\v"),
            b' '..=b'~' => out.push(b as char),
            b => {
                let _ = write!(out, "\\{b:03o}");
            }
        }
    }
    out.push('"');
    out
}

/// `shlex.quote`: as it is when every character is safe, else in single quotes with each `'`
/// written as `'"'"'`.
fn shell(text: &str) -> String {
    let safe = |c: char| c.is_ascii_alphanumeric() || "_@%+=:,./-".contains(c);
    if text.is_empty() {
        return "''".into();
    }
    if text.chars().all(safe) {
        return text.into();
    }
    format!("'{}'", text.replace('\'', "'\"'\"'"))
}

/// `re.escape`: a backslash before each character that means something in a pattern.
fn regex(text: &str) -> String {
    let mut out = String::with_capacity(text.len() * 2);
    for c in text.chars() {
        if "()[]{}?*+-|^$\\.&~# \t\n\r\u{b}\u{c}".contains(c) {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

/// A field as the excel dialect writes it: quoted when it holds `,`, `"`, a line break, or is
/// the empty field alone on its row (which would otherwise read as no field).
fn csv(text: &str) -> String {
    if text.is_empty() {
        return "\"\"".into();
    }
    if text.contains([',', '"', '\n', '\r']) {
        return format!("\"{}\"", text.replace('"', "\"\""));
    }
    text.into()
}

fn sql(text: &str) -> String {
    format!("'{}'", text.replace('\'', "''"))
}

/// XML 1.0 cannot hold most controls at all, escaped or not: those are an error, with the
/// position of the first.
fn xml(text: &str) -> Result<String, String> {
    let mut out = String::with_capacity(text.len() + text.len() / 8);
    for (i, c) in text.chars().enumerate() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            '\t' | '\n' | '\r' => out.push(c),
            c if (c as u32) < 0x20 || c == '\u{FFFE}' || c == '\u{FFFF}' => {
                return Err(format!(
                    "U+{:04X} at position {i} cannot appear in XML 1.0, even as a reference",
                    c as u32
                ));
            }
            c => out.push(c),
        }
    }
    Ok(out)
}

/// `bytes` written in `syntax`; every syntax but C needs them to be UTF-8 text.
pub(crate) fn escape(bytes: &[u8], syntax: StringSyntax) -> Result<String, String> {
    if syntax == StringSyntax::C {
        return Ok(c(bytes));
    }
    let text = std::str::from_utf8(bytes)
        .map_err(|e| format!("is not UTF-8 text (at byte {}); only the c syntax escapes bytes", e.valid_up_to()))?;
    Ok(match syntax {
        StringSyntax::Json => json_like(text, false),
        StringSyntax::Javascript => json_like(text, true),
        StringSyntax::Python => python(text),
        StringSyntax::Java => java(text),
        StringSyntax::Shell => shell(text),
        StringSyntax::Regex => regex(text),
        StringSyntax::Csv => csv(text),
        StringSyntax::Sql => sql(text),
        StringSyntax::Xml => xml(text)?,
        StringSyntax::C => unreachable!("handled above"),
    })
}

#[derive(Debug, Deserialize, JsonSchema, Validate)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct EscapeInput {
    /// What to escape: text (its UTF-8 bytes), or bytes written as `inputEncoding` says (bytes
    /// that are not UTF-8 only for the `c` syntax).
    text: String,
    /// How `text` carries its bytes: `utf-8` (the default), `hex`, `base64` or `base64url`.
    #[serde(default)]
    input_encoding: InputEncoding,
    /// The language or format: `json`, `javascript`, `python`, `java`, `c`, `shell`, `regex`,
    /// `csv`, `sql` or `xml`.
    syntax: StringSyntax,
}

#[derive(Debug, Serialize, JsonSchema)]
struct EscapeOutput {
    /// The literal (quotes included where the syntax has them), or the escaped text (`regex`,
    /// `xml`).
    escaped: String,
    /// The syntax used.
    syntax: StringSyntax,
}

/// Write text as a string literal of a language or format.
///
/// `json` writes a JSON string (as Python's `json.dumps` with `ensure_ascii` off);
/// `javascript` the same, with U+2028 and U+2029 escaped too; `python` an ASCII-only literal as
/// `ascii()` writes it; `java` a literal with controls as `\uXXXX`; `c` a literal of the bytes
/// with those outside printable ASCII as three-digit octal escapes; `shell` one POSIX word,
/// single-quoted only when needed (`shlex.quote`); `regex` the text with every character that
/// means something in a pattern escaped (`re.escape`); `csv` one field, quoted only when needed;
/// `sql` a standard literal with `'` doubled; `xml` text with `& < > " '` as entities (controls
/// XML cannot hold are refused). `string/unescape` reads each back.
#[op(post "/v1/string/escape" as stringEscape, tag = TextAndData, pipe(text -> escaped),
     rejects = "`text` that is not in its `inputEncoding`, bytes that are not UTF-8 for a syntax other than `c`, or a control character XML cannot hold",
     example(json, {"text": "line 1\nsaid \"hi\"\t\\o/", "syntax": "json"}),
     example(shell, {"text": "it's $HOME", "syntax": "shell"}),
     example(c_bytes, {"text": "68690aff00", "inputEncoding": "hex", "syntax": "c"}),
     example(python, {"text": "café ☕ 'n' 😀", "syntax": "python"}),
     example(xml_control, {"text": "bell \u{7}", "syntax": "xml"}, status = 400))]
async fn string_escape(ctx: &Ctx, input: EscapeInput) -> Result<EscapeOutput, ApiError> {
    let bytes = byte_encoding::decode(&input.text, input.input_encoding, "text")?;
    // The longest escape is Python's `\U0001f600`, ten characters for four bytes; a C octal
    // escape is four characters for one byte, and a JSON answer may double backslashes.
    OutputBudget::new(ctx.config.response_limit).add(bytes.len().saturating_mul(8).saturating_add(16))?;
    let escaped = escape(&bytes, input.syntax).map_err(|e| ApiError::invalid("text", e))?;
    Ok(EscapeOutput { escaped, syntax: input.syntax })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each syntax against its reference, on texts of every kind (tests/fixtures/string_escapes.py):
    /// Python's `json.dumps`, `ascii`, `shlex.quote`, `re.escape`, `csv` and
    /// `xml.sax.saxutils.escape`, and Node's `JSON.stringify` for JavaScript; the C, Java and
    /// SQL literals are checked by reading them back with Python's `b"..."`, the JLS rules and
    /// SQLite (in `string_unescape.rs`).
    #[test]
    fn the_references_agree() {
        let fixture = crate::testing::fixture("string_escapes.json");
        let cases = fixture["escape"].as_array().unwrap();
        assert!(cases.len() >= 50);
        for case in cases {
            let bytes = ::hex::decode(case["hex"].as_str().unwrap()).unwrap();
            for (name, syntax) in [
                ("json", StringSyntax::Json),
                ("javascript", StringSyntax::Javascript),
                ("python", StringSyntax::Python),
                ("shell", StringSyntax::Shell),
                ("regex", StringSyntax::Regex),
                ("csv", StringSyntax::Csv),
                ("xml", StringSyntax::Xml),
            ] {
                let want = case[name].as_str();
                assert_eq!(escape(&bytes, syntax).ok().as_deref(), want, "{name} of {}", case["hex"]);
            }
        }
    }
}
