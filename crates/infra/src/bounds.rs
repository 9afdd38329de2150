//! Limits every operation shares: how deeply a document may nest, and how large an answer
//! may be.
//!
//! One nesting limit, [`MAX_NESTING`], applies to every operation that reads JSON, YAML, XML,
//! Markdown or HTML, and is reported with the same words everywhere. One response limit
//! (`WRENCH_RESPONSE_LIMIT`, `Config::response_limit`) applies to every answer: operations
//! whose result can outgrow their request measure it with an [`OutputBudget`] before (or
//! while) building it, and the pipeline serializes every result through [`to_json_within`],
//! which stops writing at the limit, as a net under the operations that forget. A result over
//! the limit is a 400 `RESULT_TOO_LARGE` that says how large it would be and what the limit is.
//!
//! This module does not decide which operation is heavy (see `cpu.rs`), nor limit requests
//! (that is the body limit in the pipeline).

use std::io::Write;

use serde::Serialize;

use crate::envelope::{ApiError, ErrorCode};

/// Deepest nesting of arrays and objects (JSON, YAML), elements (XML, HTML, rendered
/// Markdown) accepted anywhere.
pub const MAX_NESTING: usize = 128;

/// The default of `WRENCH_RESPONSE_LIMIT`: room for the largest paste (1 MiB of text that
/// escapes to up to 6 MiB of JSON) and the largest image.
pub const DEFAULT_RESPONSE_LIMIT: usize = 8 << 20;

/// The error for a document nested deeper than [`MAX_NESTING`].
pub fn too_deep(field: &str) -> ApiError {
    ApiError::invalid(field, format!("is nested deeper than {MAX_NESTING} levels, the limit"))
}

/// Refuses JSON text whose arrays and objects nest deeper than [`MAX_NESTING`]. Linear in the
/// text, constant memory, and indifferent to syntax errors (those are the parser's to report):
/// brackets inside strings do not count.
pub fn check_json_nesting(field: &str, text: &str) -> Result<(), ApiError> {
    if json_deeper_than(text.as_bytes(), MAX_NESTING) { Err(too_deep(field)) } else { Ok(()) }
}

/// Whether the arrays and objects of JSON text nest deeper than `max` (see
/// [`check_json_nesting`]).
pub fn json_deeper_than(text: &[u8], max: usize) -> bool {
    let mut depth = 0usize;
    let mut bytes = text.iter().copied();
    while let Some(b) = bytes.next() {
        match b {
            b'"' => {
                while let Some(s) = bytes.next() {
                    match s {
                        b'\\' => {
                            bytes.next();
                        }
                        b'"' => break,
                        _ => {}
                    }
                }
            }
            b'[' | b'{' => {
                depth += 1;
                if depth > max {
                    return true;
                }
            }
            b']' | b'}' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    false
}

/// Parses JSON text already found to nest no deeper than [`MAX_NESTING`] (by
/// [`json_deeper_than`]) into a value. serde_json's own guard, which stops one level short of
/// the shared limit, is off: the check above is the guard.
pub fn parse_checked_json(text: &[u8]) -> Result<serde_json::Value, serde_json::Error> {
    let mut de = serde_json::Deserializer::from_slice(text);
    de.disable_recursion_limit();
    let value = <serde_json::Value as serde::Deserialize>::deserialize(&mut de)?;
    de.end()?;
    Ok(value)
}

/// 400 `RESULT_TOO_LARGE`: the answer would be `size` bytes (or more, when `at_least`).
pub fn result_too_large(size: usize, at_least: bool, limit: usize) -> ApiError {
    let more = if at_least { "at least " } else { "" };
    ApiError::new(
        ErrorCode::ResultTooLarge,
        format!(
            "the result would be {more}{size} bytes, over the response limit of {limit} bytes \
             (WRENCH_RESPONSE_LIMIT); ask for less"
        ),
    )
}

/// Bytes an answer will take, counted before they are produced.
#[derive(Debug, Clone, Copy)]
pub struct OutputBudget {
    limit: usize,
    used: usize,
}

impl OutputBudget {
    pub fn new(limit: usize) -> Self {
        OutputBudget { limit, used: 0 }
    }

    /// Counts `n` more bytes; an error as soon as the total passes the limit.
    pub fn add(&mut self, n: usize) -> Result<(), ApiError> {
        self.used = self.used.saturating_add(n);
        if self.used > self.limit { Err(result_too_large(self.used, true, self.limit)) } else { Ok(()) }
    }

    /// Counts `text` as it will appear in the JSON answer: quoted and escaped.
    pub fn add_json_string(&mut self, text: &str) -> Result<(), ApiError> {
        self.add(2 + json_escaped_len(text.as_bytes()))
    }

    /// Bytes counted so far.
    pub fn used(&self) -> usize {
        self.used
    }
}

/// A `fmt::Write` for text that becomes one string of the answer: it counts the text as the
/// answer will hold it (escaped) and fails the writer once the budget is spent, so a renderer
/// stops instead of building the rest.
pub struct CappedText {
    text: String,
    budget: OutputBudget,
    over: Option<ApiError>,
}

impl CappedText {
    pub fn new(limit: usize) -> Self {
        CappedText { text: String::new(), budget: OutputBudget::new(limit), over: None }
    }

    /// The text, or the `RESULT_TOO_LARGE` error if the writer was stopped.
    pub fn finish(self) -> Result<String, ApiError> {
        match self.over {
            Some(e) => Err(e),
            None => Ok(self.text),
        }
    }
}

impl std::fmt::Write for CappedText {
    fn write_str(&mut self, s: &str) -> std::fmt::Result {
        if self.over.is_some() {
            return Err(std::fmt::Error);
        }
        if let Err(e) = self.budget.add(json_escaped_len(s.as_bytes())) {
            self.over = Some(e);
            self.text = String::new();
            return Err(std::fmt::Error);
        }
        self.text.push_str(s);
        Ok(())
    }
}

/// Bytes one byte of a string takes once serde_json has escaped it.
pub fn json_escaped_byte_len(b: u8) -> usize {
    match b {
        b'"' | b'\\' | b'\n' | b'\r' | b'\t' | 0x08 | 0x0c => 2,
        0..=0x1f => 6,
        _ => 1,
    }
}

/// Bytes `s` takes inside a JSON string once escaped (without the quotes).
pub fn json_escaped_len(s: &[u8]) -> usize {
    s.iter().map(|&b| json_escaped_byte_len(b)).sum()
}

/// Bytes `value` takes as compact JSON, counted without building the text.
pub fn json_size<T: Serialize + ?Sized>(value: &T) -> usize {
    let mut w = CappedWriter { buf: Vec::new(), limit: 0, total: 0 };
    let _ = serde_json::to_writer(&mut w, value);
    w.total
}

/// Serializes `value` as JSON, refusing once it passes `limit` bytes: the buffer never grows
/// past the limit. The size reported in the error is the whole size, counted without storing.
pub fn to_json_within<T: Serialize + ?Sized>(value: &T, limit: usize) -> Result<Vec<u8>, ApiError> {
    let mut w = CappedWriter { buf: Vec::new(), limit, total: 0 };
    serde_json::to_writer(&mut w, value)
        .map_err(|e| ApiError::internal(format!("could not serialize the result: {e}")))?;
    if w.total > limit {
        return Err(result_too_large(w.total, false, limit));
    }
    Ok(w.buf)
}

/// Keeps at most `limit` bytes and counts the rest.
struct CappedWriter {
    buf: Vec<u8>,
    limit: usize,
    total: usize,
}

impl Write for CappedWriter {
    fn write(&mut self, data: &[u8]) -> std::io::Result<usize> {
        self.total = self.total.saturating_add(data.len());
        if self.total <= self.limit {
            self.buf.extend_from_slice(data);
        } else if !self.buf.is_empty() {
            // Over the limit: what was kept is useless now.
            self.buf = Vec::new();
        }
        Ok(data.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_nesting_counts_brackets_outside_strings() {
        let at_limit = "[".repeat(MAX_NESTING) + &"]".repeat(MAX_NESTING);
        assert!(check_json_nesting("json", &at_limit).is_ok());
        let over = "[".repeat(MAX_NESTING + 1) + &"]".repeat(MAX_NESTING + 1);
        let e = check_json_nesting("json", &over).unwrap_err();
        assert_eq!(e.field.as_deref(), Some("json"));
        assert!(e.message.contains("128"), "{}", e.message);
        // Brackets in strings, escaped quotes included, are text.
        let in_string = format!("[\"\\\"{}\"]", "[".repeat(1000));
        assert!(check_json_nesting("json", &in_string).is_ok());
        // Siblings do not add up.
        assert!(check_json_nesting("json", &"[]".repeat(10_000)).is_ok());
    }

    #[test]
    fn escaped_lengths_match_serde_json() {
        let samples = ["plain", "quote \" and \\ back", "lines\n\r\ttabs", "\u{1}\u{1f}\u{7f}", "é 🙂"];
        for s in samples {
            let serialized = serde_json::to_string(s).unwrap();
            assert_eq!(json_escaped_len(s.as_bytes()) + 2, serialized.len(), "{s:?}");
        }
        let all: String = (0u8..128).map(char::from).collect();
        assert_eq!(json_escaped_len(all.as_bytes()) + 2, serde_json::to_string(&all).unwrap().len());
    }

    #[test]
    fn serialization_stops_at_the_limit_and_reports_the_whole_size() {
        let v = vec!["x".repeat(100); 100];
        let whole = serde_json::to_vec(&v).unwrap();
        assert_eq!(to_json_within(&v, whole.len()).unwrap(), whole);
        let e = to_json_within(&v, whole.len() - 1).unwrap_err();
        assert_eq!(e.code, ErrorCode::ResultTooLarge);
        assert!(e.message.contains(&format!("would be {} bytes", whole.len())), "{}", e.message);
    }

    #[test]
    fn budget_refuses_past_the_limit() {
        let mut b = OutputBudget::new(10);
        b.add(4).unwrap();
        b.add_json_string("ab\n").unwrap(); // 2 quotes + a, b, \n = 6
        assert_eq!(b.used(), 10);
        assert_eq!(b.add(1).unwrap_err().code, ErrorCode::ResultTooLarge);
    }
}
