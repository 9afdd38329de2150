//! JSON formatting, minifying, validation and structural diff.
//!
//! Formatting and minifying work on tokens, not on a parsed value: numbers keep their exact
//! spelling (`1.0`, `1e400`, 20-digit integers), strings keep their escapes, and object keys
//! keep their order and even their duplicates. The text is first checked with a real parser,
//! so only valid JSON is ever reformatted. Nesting deeper than 128 levels is refused, and the
//! size of a formatted answer is computed before it is built (indentation grows with depth
//! times lines, so a small document can ask for a very large answer).

use wrench_kit::json_diff::{Difference, diff};

use wrench_contract::prelude::*;
use wrench_infra::bounds::OutputBudget;

/// Checks `text` is one JSON value; on failure, a message and the position of the error.
/// Nesting is checked first (see [`wrench_infra::bounds::check_json_nesting`]): parsing into
/// `IgnoredAny` does not count levels.
fn check(field: &str, text: &str) -> Result<Result<(), JsonProblem>, ApiError> {
    wrench_infra::bounds::check_json_nesting(field, text)?;
    Ok(serde_json::from_str::<serde::de::IgnoredAny>(text).map(|_| ()).map_err(|e| problem(text, &e)))
}

#[derive(Debug, Serialize, JsonSchema, PartialEq)]
struct JsonProblem {
    /// What is wrong.
    message: String,
    /// 0-based index of the offending character, counted in Unicode code points.
    position: usize,
    /// 1-based line of the error.
    line: usize,
    /// 1-based column of the error, counted in Unicode code points.
    column: usize,
}

fn problem(text: &str, e: &serde_json::Error) -> JsonProblem {
    let msg = e.to_string();
    let message = match msg.rfind(" at line ") {
        Some(i) => msg[..i].to_string(),
        None => msg,
    };
    // serde_json reports a 1-based line and a byte column; turn that into code points.
    let line_start: usize = text.split_inclusive('\n').take(e.line().saturating_sub(1)).map(str::len).sum();
    let mut byte = (line_start + e.column().saturating_sub(1)).min(text.len());
    while !text.is_char_boundary(byte) {
        byte -= 1;
    }
    let position = text[..byte].chars().count();
    let column = text[line_start.min(byte)..byte].chars().count() + 1;
    JsonProblem { message, position, line: e.line().max(1), column }
}

fn invalid(field: &str, p: &JsonProblem) -> ApiError {
    ApiError::invalid(field, format!("not valid JSON: {} at line {} column {}", p.message, p.line, p.column))
}

/// Where [`reformat_into`] writes: the text itself, or a count of what it would take.
trait Sink {
    fn byte(&mut self, b: u8);
    fn spaces(&mut self, n: usize);
}

impl Sink for Vec<u8> {
    fn byte(&mut self, b: u8) {
        self.push(b);
    }

    fn spaces(&mut self, n: usize) {
        self.extend(std::iter::repeat_n(b' ', n));
    }
}

/// Counts the bytes the text takes once escaped inside the JSON answer, so the size of a
/// formatted document is known before a byte of it is built.
struct EscapedSize(usize);

impl Sink for EscapedSize {
    fn byte(&mut self, b: u8) {
        self.0 += wrench_infra::bounds::json_escaped_byte_len(b);
    }

    fn spaces(&mut self, n: usize) {
        self.0 += n;
    }
}

/// Re-emits valid JSON with `indent` spaces per level (0: on one line, without spaces). Works
/// on bytes: every structural character is ASCII, and string contents are copied unchanged.
fn reformat_into(src: &str, indent: usize, out: &mut impl Sink) {
    let bytes = src.as_bytes();
    let is_ws = |b: u8| matches!(b, b' ' | b'\t' | b'\n' | b'\r');
    let newline = |out: &mut _, depth: usize| {
        if indent > 0 {
            Sink::byte(out, b'\n');
            Sink::spaces(out, depth * indent);
        }
    };
    let mut depth = 0usize;
    let mut i = 0;
    while i < bytes.len() {
        let c = bytes[i];
        i += 1;
        match c {
            b'"' => {
                out.byte(c);
                while i < bytes.len() {
                    let s = bytes[i];
                    i += 1;
                    out.byte(s);
                    if s == b'\\' && i < bytes.len() {
                        out.byte(bytes[i]);
                        i += 1;
                    } else if s == b'"' {
                        break;
                    }
                }
            }
            b'{' | b'[' => {
                while i < bytes.len() && is_ws(bytes[i]) {
                    i += 1;
                }
                let close = if c == b'{' { b'}' } else { b']' };
                out.byte(c);
                if bytes.get(i) == Some(&close) {
                    i += 1;
                    out.byte(close);
                } else {
                    depth += 1;
                    newline(out, depth);
                }
            }
            b'}' | b']' => {
                depth = depth.saturating_sub(1);
                newline(out, depth);
                out.byte(c);
            }
            b',' => {
                out.byte(c);
                newline(out, depth);
            }
            b':' => {
                out.byte(c);
                out.spaces(usize::from(indent > 0));
            }
            c if is_ws(c) => {}
            other => out.byte(other),
        }
    }
}

/// [`reformat_into`] as a string.
fn reformat(src: &str, indent: usize) -> String {
    let mut out = Vec::with_capacity(src.len() + src.len() / 4);
    reformat_into(src, indent, &mut out);
    // Only ASCII was added and every multi-byte sequence of the input was copied whole.
    String::from_utf8(out).unwrap_or_default()
}

/// Bytes the formatted text will take in the answer, escaped and quoted.
fn formatted_size(src: &str, indent: usize) -> usize {
    let mut size = EscapedSize(2);
    reformat_into(src, indent, &mut size);
    size.0
}

#[derive(Debug, Deserialize, JsonSchema, Validate)]
#[serde(deny_unknown_fields)]
struct JsonFormatInput {
    /// The JSON text to format.
    json: String,
    /// Spaces per nesting level; 0 puts everything on one line.
    #[serde(default = "two")]
    #[schemars(range(min = 0, max = 8))]
    indent: u8,
}

fn two() -> u8 {
    2
}

#[derive(Debug, Serialize, JsonSchema)]
struct JsonFormatOutput {
    /// The formatted JSON.
    formatted: String,
    /// Always true: invalid JSON is answered with 400 and the position of the error.
    valid: bool,
}

/// Pretty-print JSON.
///
/// Indents with `indent` spaces per level (default 2; 0 gives one line). Numbers, string
/// escapes, key order and duplicate keys are kept exactly as written. Invalid JSON is a 400
/// whose message gives the line and column of the first error; use `/v1/json/validate` to get
/// the error as data instead.
#[op(post "/v1/json/format" as jsonFormat, tag = TextAndData, pipe(json -> formatted),
     rejects = "text that is not valid JSON",
     example(typical, {"json": "{\"name\":\"wrench\",\"tags\":[\"api\",\"tools\"],\"version\":1.0}"}),
     example(four_spaces_nested, {"json": "[{\"a\":{}},[],{\"b\":[1e400,12345678901234567890]}]", "indent": 4}),
     example(invalid, {"json": "{\"a\": 1,}"}, status = 400),
     cpu)]
async fn json_format(ctx: &Ctx, input: JsonFormatInput) -> Result<JsonFormatOutput, ApiError> {
    check("json", &input.json)?.map_err(|p| invalid("json", &p))?;
    let indent = input.indent as usize;
    wrench_infra::bounds::OutputBudget::new(ctx.config.response_limit).add(formatted_size(&input.json, indent))?;
    Ok(JsonFormatOutput { formatted: reformat(&input.json, indent), valid: true })
}

#[derive(Debug, Deserialize, JsonSchema, Validate)]
#[serde(deny_unknown_fields)]
struct JsonMinifyInput {
    /// The JSON text to minify.
    json: String,
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct JsonMinifyOutput {
    /// The JSON without insignificant whitespace.
    minified: String,
    /// Size of the input in bytes (UTF-8).
    original_size: usize,
    /// Size of the result in bytes (UTF-8).
    minified_size: usize,
    /// Share of bytes saved, as text with two decimals, e.g. "23.08%".
    savings: String,
}

/// Minify JSON.
///
/// Removes all whitespace outside strings and reports sizes in UTF-8 bytes and the saving as
/// a percentage. Numbers, escapes and key order are kept exactly. Invalid JSON is a 400 with
/// line and column.
#[op(post "/v1/json/minify" as jsonMinify, tag = TextAndData, pipe(json -> minified),
     rejects = "text that is not valid JSON",
     example(typical, {"json": "{\n  \"name\": \"wrench\",\n  \"tags\": [ \"api\", \"tools\" ]\n}"}),
     example(already_minimal, {"json": "[1,2,3]"}),
     cpu)]
async fn json_minify(input: JsonMinifyInput) -> Result<JsonMinifyOutput, ApiError> {
    check("json", &input.json)?.map_err(|p| invalid("json", &p))?;
    let minified = reformat(&input.json, 0);
    let (before, after) = (input.json.len(), minified.len());
    let savings = if before == 0 { 0.0 } else { (before - after) as f64 * 100.0 / before as f64 };
    Ok(JsonMinifyOutput { original_size: before, minified_size: after, savings: format!("{savings:.2}%"), minified })
}

#[derive(Debug, Deserialize, JsonSchema, Validate)]
#[serde(deny_unknown_fields)]
struct JsonValidateInput {
    /// The text to check.
    json: String,
}

#[derive(Debug, Serialize, JsonSchema)]
struct JsonValidateOutput {
    /// Whether the text is exactly one valid JSON value (RFC 8259).
    valid: bool,
    /// The first error, when not valid.
    #[serde(skip_serializing_if = "Option::is_none")]
    error: Option<JsonProblem>,
}

/// Validate JSON.
///
/// Answers 200 either way: `valid` says whether the text is one JSON value (RFC 8259, with
/// nothing but whitespace after it), and `error` gives the first problem with its position
/// (0-based, in Unicode code points), line and column. Text nested deeper than 128 levels is
/// refused with 400 (the service does not read it), whether or not it is valid.
#[op(post "/v1/json/validate" as jsonValidate, tag = TextAndData,
     rejects = "text nested deeper than 128 levels",
     example(valid, {"json": "{\"ok\": [true, null, 1.5]}"}),
     example(trailing_comma, {"json": "{\n  \"a\": 1,\n}"}),
     example(empty, {"json": ""}),
     cpu)]
async fn json_validate(input: JsonValidateInput) -> Result<JsonValidateOutput, ApiError> {
    Ok(match check("json", &input.json)? {
        Ok(()) => JsonValidateOutput { valid: true, error: None },
        Err(p) => JsonValidateOutput { valid: false, error: Some(p) },
    })
}

#[derive(Debug, Deserialize, JsonSchema, Validate)]
#[serde(deny_unknown_fields)]
struct JsonDiffInput {
    /// The original JSON text.
    a: String,
    /// The JSON text to compare with it.
    b: String,
}

#[derive(Debug, Serialize, JsonSchema)]
struct JsonDiffOutput {
    /// Whether the two documents are equal as JSON values.
    equal: bool,
    /// Each difference, in document order.
    differences: Vec<Difference>,
}

/// Parses a document already checked to nest at most [`wrench_infra::bounds::MAX_NESTING`] levels;
/// serde_json's own guard (which stops one level short of that) is off so that the one limit
/// holds.
fn parse_value(field: &str, text: &str) -> Result<Value, ApiError> {
    wrench_infra::bounds::parse_checked_json(text.as_bytes()).map_err(|e| invalid(field, &problem(text, &e)))
}

/// Compare two JSON documents.
///
/// Walks both documents and lists every difference with a JSONPath-like path from `$`
/// (`$.a.b[0]`; keys that are not identifiers as `$['a key']`). Objects are compared by key
/// (order does not matter); arrays by index, so an insertion in the middle shows as changes
/// followed by an addition. A value whose type differs is `changed`. Numbers compare by value
/// (`1` equals `1.0`).
#[op(post "/v1/json/diff" as jsonDiff, tag = TextAndData,
     rejects = "`a` or `b` that is not valid JSON",
     example(typical, {"a": "{\"name\":\"wrench\",\"tags\":[\"api\"],\"old\":true}", "b": "{\"name\":\"wrench 2\",\"tags\":[\"api\",\"tools\"],\"new\":1}"}),
     example(equal_with_key_order, {"a": "{\"x\":1,\"y\":[1.0]}", "b": "{\"y\":[1],\"x\":1}"}),
     example(type_change, {"a": "{\"weird key\":\"1\"}", "b": "{\"weird key\":1}"}),
     cpu)]
async fn json_diff(ctx: &Ctx, input: JsonDiffInput) -> Result<JsonDiffOutput, ApiError> {
    wrench_infra::bounds::check_json_nesting("a", &input.a)?;
    wrench_infra::bounds::check_json_nesting("b", &input.b)?;
    let a = parse_value("a", &input.a)?;
    let b = parse_value("b", &input.b)?;
    let mut differences = Vec::new();
    diff("$", &a, &b, &mut differences, &mut OutputBudget::new(ctx.config.response_limit))?;
    Ok(JsonDiffOutput { equal: differences.is_empty(), differences })
}

#[cfg(test)]
mod tests {
    use wrench_kit::json_diff::ChangeType;

    use super::*;

    #[test]
    fn reformat_round_trips_through_a_parser() {
        let samples = [
            r#"{"a":[1,2,{"b":null}],"c":"x\"y\\z","d":{},"e":[]}"#,
            r#"  [ 1e400 , -0.0 , 12345678901234567890123 , "tab\tand \u00e9" ]  "#,
            r#""just a string with { and [ inside""#,
            "{\"dup\":1,\"dup\":2}",
        ];
        for s in samples {
            for indent in [0, 2, 4] {
                let out = reformat(s, indent);
                // Same tokens: minifying the output gives the minified input.
                assert_eq!(reformat(&out, 0), reformat(s, 0));
                check("json", &out).unwrap().unwrap();
                assert_eq!(formatted_size(s, indent), serde_json::to_string(&out).unwrap().len());
            }
        }
        assert_eq!(reformat(samples[1], 0), r#"[1e400,-0.0,12345678901234567890123,"tab\tand \u00e9"]"#);
        assert_eq!(reformat("{\"a\":[1,{}]}", 2), "{\n  \"a\": [\n    1,\n    {}\n  ]\n}");
    }

    #[test]
    fn positions_are_in_code_points() {
        let check = |t: &str| check("json", t).unwrap();
        let p = check("{\"é\": tru}").unwrap_err();
        // The error is detected at the closing brace, the 10th code point (byte 11).
        assert_eq!((p.line, p.column, p.position), (1, 10, 9), "{p:?}");
        let p = check("{\n  \"a\": 1,\n}").unwrap_err();
        assert_eq!((p.line, p.column), (3, 1));
        assert_eq!(p.position, 12);
        let p = check("").unwrap_err();
        assert_eq!(p.position, 0);
    }

    #[test]
    fn formatted_size_grows_with_depth_times_indent() {
        // 128 levels with 8 spaces: line k holds 8k spaces, both ways down and up.
        let deep = "[".repeat(128) + &"]".repeat(128);
        let out = reformat(&deep, 8);
        let spaces: usize = (1..=127).map(|k| 8 * k).sum::<usize>() + (0..=126).map(|k| 8 * k).sum::<usize>();
        assert_eq!(out.len(), 256 + 254 + spaces);
        assert_eq!(formatted_size(&deep, 8), serde_json::to_string(&out).unwrap().len());
    }

    #[tokio::test]
    async fn minify_reports_savings() {
        let out = json_minify(JsonMinifyInput { json: "{ \"a\" : 1 }".into() }).await.unwrap();
        assert_eq!((out.minified.as_str(), out.original_size, out.minified_size), ("{\"a\":1}", 11, 7));
        assert_eq!(out.savings, "36.36%");
    }

    #[tokio::test]
    async fn diff_paths_and_kinds() {
        let out = json_diff(
            &Ctx::for_tests(),
            JsonDiffInput {
                a: r#"{"a":{"b":[1,2,3]},"k":"v","x y":1}"#.into(),
                b: r#"{"a":{"b":[1,5]},"x y":1.0,"n":null}"#.into(),
            },
        )
        .await
        .unwrap();
        let got: Vec<(String, ChangeType)> = out.differences.iter().map(|d| (d.path.clone(), d.kind)).collect();
        assert_eq!(
            got,
            vec![
                ("$.a.b[1]".to_string(), ChangeType::Changed),
                ("$.a.b[2]".to_string(), ChangeType::Removed),
                ("$.k".to_string(), ChangeType::Removed),
                ("$.n".to_string(), ChangeType::Added),
            ]
        );
        assert!(!out.equal);
    }
}
