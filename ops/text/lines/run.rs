//! `text/lines`: a text's lines through a list of steps (sort, unique, filter, head, wrap…),
//! each applied to what the one before left, as a shell pipeline of coreutils would.

use wrench_contract::prelude::*;

use super::steps::Step;

/// The largest text any step may leave, in bytes: prefixes, numbers, padding and wrapping
/// can grow a text, and the answer stays bounded like the request.
const MAX_OUTPUT: usize = 4 << 20;

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize, Serialize, JsonSchema, Validate)]
#[serde(rename_all = "lowercase")]
enum LineBreak {
    /// CRLF when the text's first line break is one, else LF.
    #[default]
    Auto,
    Lf,
    Crlf,
}

#[derive(Debug, Deserialize, JsonSchema, Validate)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct LinesInput {
    /// The text. Lines end at LF or CRLF; a final line break ends the last line rather than
    /// starting an empty one.
    text: String,
    /// The steps, applied in order (1 to 32).
    #[schemars(length(min = 1, max = 32))]
    steps: Vec<Step>,
    /// The line break of the answer (default `auto`: the text's own).
    #[serde(default)]
    line_break: LineBreak,
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct LinesOutput {
    /// The lines left, joined by the line break, with a final one when the text had one.
    text: String,
    /// How many lines are left.
    lines: usize,
    /// The line break used: `lf` or `crlf`.
    line_break: LineBreak,
}

/// A text's lines, ended by LF or CRLF; a final line break ends the last line rather than
/// starting an empty one, and an empty text has no lines.
pub(super) fn split_lines(text: &str) -> Vec<&str> {
    if text.is_empty() {
        return Vec::new();
    }
    let body = text.strip_suffix('\n').unwrap_or(text);
    body.split('\n').map(|l| l.strip_suffix('\r').unwrap_or(l)).collect()
}

/// Sort, deduplicate, filter and reshape the lines of a text.
///
/// Applies `steps` in order to the text's lines: `sort` (lexical, natural, numeric, length or
/// random, either way), `unique`, `reverse`, `trim`, `removeEmpty`, `head`, `tail`, `filter`
/// (a regular expression, or its inverse), `prefix`, `suffix`, `number`, `wrap` and `pad`.
/// Sorting, `head`, `tail`, `number` and `wrap` give the bytes GNU coreutils give in the C
/// locale (`sort`, `sort -V`, `sort -n`, `head`, `tail`, `tac`, `nl -ba`, `fold`). An answer is at
/// most 4 MiB.
#[op(post "/v1/text/lines" as textLines, tag = TextAndData, pipe(text -> text),
     rejects = "a filter that is not a regular expression, a field of another step, or an answer past 4 MiB",
     example(sort_unique, {"text": "pear\napple\npear\nfig\n", "steps": [{"step": "sort"}, {"step": "unique"}]}),
     example(natural_desc, {"text": "file10\nfile2\nfile1", "steps": [{"step": "sort", "order": "natural", "descending": true}]}),
     example(filter_number, {"text": "GET /a 200\nPOST /b 500\nGET /c 404", "steps": [{"step": "filter", "pattern": " [45]\\d\\d$"}, {"step": "number", "width": 3, "separator": ". "}]}),
     example(wrap, {"text": "the quick brown fox jumps over the lazy dog", "steps": [{"step": "wrap", "width": 12, "atSpaces": true}]}),
     example(bad_pattern, {"text": "a", "steps": [{"step": "filter", "pattern": "("}]}, status = 400))]
async fn text_lines(input: LinesInput) -> Result<LinesOutput, ApiError> {
    let text = input.text.as_str();
    let line_break = match input.line_break {
        LineBreak::Auto => match text.find('\n') {
            Some(i) if i > 0 && text.as_bytes()[i - 1] == b'\r' => LineBreak::Crlf,
            _ => LineBreak::Lf,
        },
        chosen => chosen,
    };
    let ends_with_break = text.ends_with('\n');
    let mut lines: Vec<String> = split_lines(text).into_iter().map(str::to_string).collect();
    let sep = if line_break == LineBreak::Crlf { "\r\n" } else { "\n" };
    for (i, step) in input.steps.iter().enumerate() {
        let path = format!("steps[{i}]");
        step.apply(&mut lines, &path)?;
        let size: usize = lines.iter().map(|l| l.len() + sep.len()).sum();
        if size > MAX_OUTPUT {
            return Err(ApiError::invalid(&path, format!("makes the text larger than {MAX_OUTPUT} bytes")));
        }
    }
    let mut out = lines.join(sep);
    if ends_with_break && !lines.is_empty() {
        out.push_str(sep);
    }
    Ok(LinesOutput { text: out, lines: lines.len(), line_break })
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    pub(crate) async fn run(text: &str, steps: serde_json::Value) -> Result<LinesOutput, ApiError> {
        let input: LinesInput = serde_json::from_value(json!({"text": text, "steps": steps})).unwrap();
        text_lines(input).await
    }

    #[tokio::test]
    async fn line_breaks_and_empty_text() {
        let out = run("b\r\na\r\n", json!([{"step": "sort"}])).await.unwrap();
        assert_eq!((out.text.as_str(), out.lines, out.line_break), ("a\r\nb\r\n", 2, LineBreak::Crlf));
        let out = run("", json!([{"step": "reverse"}])).await.unwrap();
        assert_eq!((out.text.as_str(), out.lines), ("", 0));
        let out = run("\n", json!([{"step": "reverse"}])).await.unwrap();
        assert_eq!((out.text.as_str(), out.lines), ("\n", 1));
        let out = run("x\ny", json!([{"step": "head", "n": 0}])).await.unwrap();
        assert_eq!((out.text.as_str(), out.lines), ("", 0));
    }

    #[tokio::test]
    async fn refusals_name_the_step() {
        let e = run("a", json!([{"step": "trim"}, {"step": "filter", "pattern": "(a"}])).await.unwrap_err();
        assert_eq!(e.field.as_deref(), Some("steps[1].pattern"));
        let e = run("a", json!([{"step": "sort", "seed": 4}])).await.unwrap_err();
        assert_eq!(e.field.as_deref(), Some("steps[0].seed"));
        // One line of 1 MiB wrapped at width 1: two bytes a character, past 4 MiB? No: 2 MiB.
        // Padding 1,000 lines to 10,000 characters of a 4-byte character is 40 MB: refused.
        let e = run(&"x\n".repeat(1000), json!([{"step": "pad", "width": 10000, "char": "😀"}])).await.unwrap_err();
        assert_eq!(e.field.as_deref(), Some("steps[0]"));
        assert!(
            serde_json::from_value::<LinesInput>(json!({"text": "a", "steps": [{"step": "reverse", "n": 1}]})).is_err()
        );
        assert!(serde_json::from_value::<LinesInput>(json!({"text": "a", "steps": [{"step": "shout"}]})).is_err());
    }

    #[tokio::test]
    async fn random_order_is_a_permutation_and_the_seed_reproduces_it() {
        let text: String = (0..500).map(|i| format!("{i}\n")).collect();
        let a = run(&text, json!([{"step": "sort", "order": "random", "seed": 7}])).await.unwrap();
        let b = run(&text, json!([{"step": "sort", "order": "random", "seed": 7}])).await.unwrap();
        let c = run(&text, json!([{"step": "sort", "order": "random", "seed": 8}])).await.unwrap();
        assert_eq!(a.text, b.text);
        assert_ne!(a.text, c.text);
        assert_ne!(a.text, text);
        let back = run(&a.text, json!([{"step": "sort", "order": "numeric"}])).await.unwrap();
        assert_eq!(back.text, text);
    }
}
