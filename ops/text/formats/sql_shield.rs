//! What `sql/format` does around its formatter (the sqlformat crate) so that formatting never
//! changes what SQL means and never runs away:
//!
//! - Tokens the formatter would damage are set aside and put back after. Its tokenizer splits
//!   numbers with an exponent or a hex prefix (`1E-2` into `1 E -2`, an alias and a
//!   subtraction), reads a backslash before a closing quote as an escape in every dialect (so
//!   `'C:\'` runs on into the next string), and on one line joins a line comment to the tokens
//!   after it (commenting them out).
//! - Statements are formatted one at a time: its tokenizer rescans the rest of its input for
//!   each keyword, so the work grows with the square of a statement's length. The value
//!   keywords `NULL`, `TRUE` and `FALSE` are set aside too (cased here as the formatter would
//!   case them), so that a long `INSERT … VALUES` costs no more than its few clause keywords.
//! - A statement is refused before formatting when that rescanning (words × bytes) or its
//!   output (every token on a line of its own at its nesting depth) would pass the bounds.
//!
//! The lexer here knows each dialect's quoting and comments; it does not parse SQL.

use std::fmt::Write as _;

/// How a dialect quotes, as far as finding tokens is concerned.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Quoting {
    /// ANSI SQL and SQLite: `'…'` strings, `"…"` names, no backslash escapes.
    Standard,
    /// MySQL and MariaDB: a backslash escapes in both quotes; `#` starts a comment.
    MySql,
    /// PostgreSQL: `E'…'` strings take backslash escapes; `$tag$…$tag$` strings.
    PostgreSql,
    /// SQL Server: `[…]` names.
    SqlServer,
}

/// The bound on a statement's rescanning: the sum over its reserved words of the bytes that
/// follow each (about a second of work).
pub(crate) const MAX_SCAN: u64 = 1_000_000_000;
/// The bound on a statement's formatted size, in bytes.
pub(crate) const MAX_OUTPUT: u64 = 16 << 20;

#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    /// A string or quoted name; fragile when it holds a backslash.
    Quoted {
        fragile: bool,
    },
    LineComment,
    BlockComment,
    /// A dollar-quoted string (PostgreSQL), always set aside.
    Dollar,
    /// A number; fragile with an exponent or a hex prefix.
    Number {
        fragile: bool,
    },
    Word,
    /// Anything else: one character (an operator, a parenthesis, a semicolon, whitespace).
    Other,
}

struct Lexeme {
    start: usize,
    end: usize,
    kind: Kind,
}

fn lex(sql: &str, quoting: Quoting) -> Vec<Lexeme> {
    let bytes = sql.as_bytes();
    let word = |i: usize| i < bytes.len() && (bytes[i].is_ascii_alphanumeric() || bytes[i] == b'_' || bytes[i] >= 0x80);
    let mut lexemes = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        let start = i;
        let (end, kind) = match bytes[i] {
            b'\'' | b'"' => {
                let prefixed = start > 0 && matches!(bytes[start - 1], b'E' | b'e') && !(start > 1 && word(start - 2));
                let escapes =
                    quoting == Quoting::MySql || (quoting == Quoting::PostgreSql && prefixed && bytes[i] == b'\'');
                let end = quoted(bytes, i, bytes[i], escapes);
                (end, Kind::Quoted { fragile: sql[start..end].contains('\\') })
            }
            b'`' => (quoted(bytes, i, b'`', false), Kind::Quoted { fragile: false }),
            b'[' if quoting == Quoting::SqlServer => (quoted(bytes, i, b']', false), Kind::Quoted { fragile: false }),
            // MySQL reads `--` as a comment only when whitespace follows.
            b'-' if bytes.get(i + 1) == Some(&b'-')
                && (quoting != Quoting::MySql || bytes.get(i + 2).is_none_or(u8::is_ascii_whitespace)) =>
            {
                (line_end(bytes, i), Kind::LineComment)
            }
            b'#' if quoting == Quoting::MySql => (line_end(bytes, i), Kind::LineComment),
            b'/' if bytes.get(i + 1) == Some(&b'*') => {
                (sql[i + 2..].find("*/").map_or(bytes.len(), |e| i + 2 + e + 2), Kind::BlockComment)
            }
            b'$' if quoting == Quoting::PostgreSql => match dollar_quoted(sql, i) {
                Some(end) => (end, Kind::Dollar),
                None => (i + 1, Kind::Other),
            },
            b'0'..=b'9' | b'.'
                if !(start > 0 && word(start - 1))
                    && (bytes[i] != b'.' || bytes.get(i + 1).is_some_and(u8::is_ascii_digit)) =>
            {
                let end = number_end(bytes, i);
                (end, Kind::Number { fragile: sql[start..end].contains(['e', 'E', 'x', 'X']) })
            }
            _ if word(i) => {
                let mut end = i;
                while word(end) {
                    end += 1;
                }
                (end, Kind::Word)
            }
            _ => (i + sql[i..].chars().next().map_or(1, char::len_utf8), Kind::Other),
        };
        lexemes.push(Lexeme { start, end, kind });
        i = end.max(start + 1);
    }
    lexemes
}

/// One statement (up to and including its semicolon), its fragile tokens set aside.
pub(crate) struct Statement {
    pub(crate) sql: String,
    prefix: String,
    /// Each set-aside token, and whether it is a line comment (which must end its line).
    tokens: Vec<(String, bool)>,
}

/// Why a statement is refused: its 1-based number and what it would cost.
pub(crate) enum TooCostly {
    Scan(usize),
    Output(usize, u64),
}

/// `sql` split into statements at the semicolons outside strings and comments, each with its
/// fragile tokens set aside (line comments only when `one_line`); statements of whitespace
/// alone are left out.
pub(crate) fn statements(
    sql: &str,
    quoting: Quoting,
    one_line: bool,
    upper: Option<bool>,
    indent: u64,
    reserved: &mut dyn FnMut(&str) -> bool,
) -> Result<Vec<Statement>, TooCostly> {
    let lexemes = lex(sql, quoting);
    let mut out = Vec::new();
    let mut from = 0;
    for (i, l) in lexemes.iter().enumerate() {
        let last = i + 1 == lexemes.len();
        if (l.kind == Kind::Other && &sql[l.start..l.end] == ";") || last {
            let chunk = &lexemes[from..=i];
            from = i + 1;
            if chunk.iter().all(|l| l.kind == Kind::Other && sql[l.start..l.end].trim().is_empty()) {
                continue;
            }
            check_cost(sql, chunk, indent, out.len() + 1, reserved)?;
            out.push(shield(sql, chunk, one_line, upper));
        }
    }
    Ok(out)
}

/// Refuses a statement whose rescanning or output would pass the bounds. Each reserved word
/// (as `reserved` judges one) makes the formatter rescan the rest of the statement; each token
/// may land on a line of its own, indented one level per open parenthesis or `CASE` plus two.
fn check_cost(
    sql: &str,
    chunk: &[Lexeme],
    indent: u64,
    number: usize,
    reserved: &mut dyn FnMut(&str) -> bool,
) -> Result<(), TooCostly> {
    let end = chunk.last().map_or(0, |l| l.end) as u64;
    let (mut scan, mut output, mut depth) = (0u64, 0u64, 0u64);
    for l in chunk {
        let text = &sql[l.start..l.end];
        match l.kind {
            Kind::Word => {
                if text.bytes().all(|b| b.is_ascii_alphabetic()) && !value_keyword(text) && reserved(text) {
                    scan += end - l.start as u64;
                }
                if text.eq_ignore_ascii_case("case") {
                    depth += 1;
                } else if text.eq_ignore_ascii_case("end") {
                    depth = depth.saturating_sub(1);
                }
            }
            Kind::Other if text == "(" || text == "[" => depth += 1,
            Kind::Other if text == ")" || text == "]" => depth = depth.saturating_sub(1),
            _ => {}
        }
        if !(l.kind == Kind::Other && text.trim().is_empty()) {
            output += (depth + 2) * indent + text.len() as u64 + 2;
        }
    }
    if scan > MAX_SCAN {
        return Err(TooCostly::Scan(number));
    }
    if output > MAX_OUTPUT {
        return Err(TooCostly::Output(number, output));
    }
    Ok(())
}

/// Whether `word` is `NULL`, `TRUE` or `FALSE`, which are set aside and cased here.
fn value_keyword(word: &str) -> bool {
    ["null", "true", "false"].iter().any(|k| word.eq_ignore_ascii_case(k))
}

/// The statement of `chunk` with its fragile tokens and value keywords replaced by placeholder
/// words; `upper` cases the keywords (`None` keeps them as written).
fn shield(sql: &str, chunk: &[Lexeme], one_line: bool, upper: Option<bool>) -> Statement {
    let text = &sql[chunk[0].start..chunk[chunk.len() - 1].end];
    // A placeholder word the statement does not already contain.
    let mut prefix = String::from("wrenchsqlp");
    while text.contains(&prefix) {
        prefix.push('x');
    }
    let mut out = String::with_capacity(text.len());
    let mut tokens = Vec::new();
    let mut copied = chunk[0].start;
    for (n, l) in chunk.iter().enumerate() {
        let fragile = match l.kind {
            Kind::Quoted { fragile } | Kind::Number { fragile } => fragile,
            Kind::Dollar => true,
            Kind::LineComment => one_line,
            // Not after a dot, where the formatter takes it for a name (`t.null`).
            Kind::Word => {
                value_keyword(&sql[l.start..l.end]) && !(n > 0 && &sql[chunk[n - 1].start..chunk[n - 1].end] == ".")
            }
            _ => false,
        };
        if !fragile {
            continue;
        }
        // A string's prefix letter (`N'…'`, `E'…'`, `X'…'`) goes with it.
        let mut from = l.start;
        if let Some(before) = n.checked_sub(1).map(|b| &chunk[b])
            && before.kind == Kind::Word
            && before.end == l.start
            && before.end - before.start == 1
            && before.start >= copied
        {
            from = before.start;
        }
        out.push_str(&sql[copied..from]);
        let _ = write!(out, "{prefix}{}q", tokens.len());
        let token = &sql[from..l.end];
        let token = match (l.kind, upper) {
            (Kind::Word, Some(true)) => token.to_ascii_uppercase(),
            (Kind::Word, Some(false)) => token.to_ascii_lowercase(),
            _ => token.to_string(),
        };
        tokens.push((token, l.kind == Kind::LineComment));
        copied = l.end;
    }
    out.push_str(&sql[copied..chunk[chunk.len() - 1].end]);
    Statement { sql: out, prefix, tokens }
}

impl Statement {
    /// The formatter's output with the tokens put back. A line comment ends its line: what the
    /// formatter wrote after it on the same line moves to the next.
    pub(crate) fn restore(&self, formatted: &str) -> String {
        if self.tokens.is_empty() {
            return formatted.to_string();
        }
        let mut out = String::with_capacity(formatted.len() + self.tokens.iter().map(|t| t.0.len()).sum::<usize>());
        let mut rest = formatted;
        while let Some(at) = rest.find(&self.prefix) {
            let after = &rest[at + self.prefix.len()..];
            let digits = after.bytes().take_while(u8::is_ascii_digit).count();
            let index = after[..digits].parse::<usize>().ok().filter(|_| after[digits..].starts_with('q'));
            let Some((token, comment)) = index.and_then(|n| self.tokens.get(n)) else {
                out.push_str(&rest[..at + self.prefix.len()]);
                rest = after;
                continue;
            };
            out.push_str(&rest[..at]);
            out.push_str(token);
            rest = &after[digits + 1..];
            if *comment {
                let trimmed = rest.trim_start_matches([' ', '\t']);
                if !trimmed.is_empty() && !trimmed.starts_with('\n') {
                    out.push('\n');
                }
                rest = trimmed;
            }
        }
        out.push_str(rest);
        out
    }
}

/// The end of a token quoted by `quote` from `start`, a doubled quote standing for one, and a
/// backslash escaping the next byte when `escapes`; an unclosed one runs to the end.
fn quoted(bytes: &[u8], start: usize, quote: u8, escapes: bool) -> usize {
    let mut i = start + 1;
    while i < bytes.len() {
        match bytes[i] {
            b'\\' if escapes => i += 2,
            b if b == quote && bytes.get(i + 1) == Some(&quote) => i += 2,
            b if b == quote => return i + 1,
            _ => i += 1,
        }
    }
    bytes.len()
}

/// The end of a line comment starting at `start`, before its line break.
fn line_end(bytes: &[u8], start: usize) -> usize {
    bytes[start..].iter().position(|&b| b == b'\n' || b == b'\r').map_or(bytes.len(), |p| start + p)
}

/// The end of a PostgreSQL dollar-quoted string (`$$…$$`, `$tag$…$tag$`) at `start`, if one
/// starts there (`$1` is a parameter, not a string).
fn dollar_quoted(sql: &str, start: usize) -> Option<usize> {
    let rest = &sql[start + 1..];
    let tag_len = rest.find('$')?;
    let tag = &rest[..tag_len];
    if !tag.chars().all(|c| c.is_alphanumeric() || c == '_') || tag.starts_with(|c: char| c.is_ascii_digit()) {
        return None;
    }
    let delimiter = &sql[start..start + tag_len + 2];
    let body = start + delimiter.len();
    sql[body..].find(delimiter).map(|e| body + e + delimiter.len())
}

/// The end of a numeric literal at `start`: digits, a fraction, an exponent, or a hex prefix
/// with its digits.
fn number_end(bytes: &[u8], start: usize) -> usize {
    let mut i = start;
    if bytes[i] == b'0' && matches!(bytes.get(i + 1), Some(b'x' | b'X')) {
        i += 2;
        while i < bytes.len() && bytes[i].is_ascii_hexdigit() {
            i += 1;
        }
        return i;
    }
    while i < bytes.len() && (bytes[i].is_ascii_digit() || bytes[i] == b'_') {
        i += 1;
    }
    if bytes.get(i) == Some(&b'.') {
        i += 1;
        while i < bytes.len() && bytes[i].is_ascii_digit() {
            i += 1;
        }
    }
    if matches!(bytes.get(i), Some(b'e' | b'E')) {
        let mut j = i + 1;
        if matches!(bytes.get(j), Some(b'+' | b'-')) {
            j += 1;
        }
        if bytes.get(j).is_some_and(u8::is_ascii_digit) {
            while j < bytes.len() && bytes[j].is_ascii_digit() {
                j += 1;
            }
            i = j;
        }
    }
    i
}
