//! `yaml/format`: YAML laid out again, with its comments, anchors, tags, block scalars and
//! key order kept. The layout is pretty_yaml's (the formatter behind dprint's and malva's YAML
//! support). Two guards stand around it:
//! - the text is first read by serde-saphyr under the same budget as `yaml/to-json` (depth,
//!   nodes, aliases, size), so only YAML that parses within bounds reaches the formatter, and a
//!   mistake is reported with its line and column;
//! - the formatted text is read again and must hold the same documents as the input (every
//!   scalar resolved by the YAML 1.2 core schema, aliases expanded): a layout that would
//!   change what the YAML means is refused, never answered.

use pretty_yaml::config::{FormatOptions, LanguageOptions, LayoutOptions, Quotes};
use serde_saphyr::{NonFiniteFloatPolicy, Options};

use wrench_contract::prelude::*;

use super::yaml_node::Node;

#[derive(Debug, Deserialize, JsonSchema, Validate)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct YamlFormatInput {
    /// The YAML text; several documents separated by `---` are allowed (at most 100).
    yaml: String,
    /// Spaces per indentation level.
    #[serde(default = "two")]
    #[schemars(range(min = 1, max = 8))]
    indent: u8,
    /// The line width flow collections (`[a, b]`, `{a: 1}`) are wrapped at.
    #[serde(default = "eighty")]
    #[schemars(range(min = 40, max = 200))]
    print_width: u16,
    /// Which quotes quoted strings get when either would do: `double` (the default) or
    /// `single`.
    #[serde(default)]
    quotes: QuoteStyle,
}

fn two() -> u8 {
    2
}

fn eighty() -> u16 {
    80
}

#[derive(Debug, Default, Clone, Copy, Deserialize, JsonSchema, Validate)]
#[serde(rename_all = "lowercase")]
enum QuoteStyle {
    /// Double quotes, unless the string holds a double quote.
    #[default]
    Double,
    /// Single quotes, unless the string holds a single quote.
    Single,
}

#[derive(Debug, Serialize, JsonSchema)]
struct YamlFormatOutput {
    /// The YAML laid out again.
    formatted: String,
    /// How many documents the text held.
    documents: usize,
}

/// Format YAML.
///
/// Lays YAML out again with `indent` spaces (1-8, default 2), flow collections wrapped at
/// `printWidth` (40-200, default 80), and quoted strings in `double` (the default) or `single`
/// quotes where either would do.
/// Comments, anchors and aliases, tags, block scalars (`|`, `>`), key order and document
/// separators are kept. The result is checked to hold the same documents as the input: the
/// rare YAML a new layout would change in meaning (block scalars with an indentation indicator
/// or indented first lines, tabs inside them, explicit `?` keys) is a 400 rather than an
/// answer that means something else. YAML that does not parse, or passes the budget of
/// `yaml/to-json` (depth 128, 200,000 nodes, 10,000 aliases, 100 documents), is a 400 with the
/// line and column.
#[op(post "/v1/yaml/format" as yamlFormat, tag = DeveloperUtilities, pipe(yaml -> formatted),
     rejects = "text that is not valid YAML, or YAML beyond the anchor, depth or size budget",
     example(messy, {"yaml": "# service settings\nname:   wrench\nports: [ 8080,8443 ]\nlimits:\n    body:  1MiB   # per request\n    list:    1000\nbase: &b {retries: 3}\nprod:\n  <<: *b\n"}),
     example(four_spaces_single_quotes, {"yaml": "a:\n  b: \"text\"\n  c:\n  - 1\n  - 2\n", "indent": 4, "quotes": "single"}),
     example(invalid, {"yaml": "key: [unclosed\n"}, status = 400),
     cpu)]
async fn yaml_format(ctx: &Ctx, input: YamlFormatInput) -> Result<YamlFormatOutput, ApiError> {
    let before = read(&input.yaml).map_err(|e| ApiError::invalid("yaml", e))?;
    let options = FormatOptions {
        layout: LayoutOptions {
            indent_width: input.indent as usize,
            print_width: input.print_width as usize,
            ..LayoutOptions::default()
        },
        language: LanguageOptions {
            quotes: match input.quotes {
                QuoteStyle::Double => Quotes::PreferDouble,
                QuoteStyle::Single => Quotes::PreferSingle,
            },
            ..LanguageOptions::default()
        },
    };
    let formatted = pretty_yaml::format_text(&input.yaml, &options).map_err(|e| {
        let message = e.to_string();
        ApiError::invalid("yaml", format!("does not parse: {}", message.lines().next().unwrap_or("")))
    })?;
    if formatted.len() > ctx.config.response_limit {
        return Err(ApiError::invalid(
            "yaml",
            format!("formatted, it would pass the response limit of {} bytes", ctx.config.response_limit),
        ));
    }
    match read(&formatted) {
        Ok(after) if after == before => Ok(YamlFormatOutput { formatted, documents: before.len() }),
        _ => Err(ApiError::invalid(
            "yaml",
            "is valid, but laid out again it would mean something else (block scalars with indented first lines or tabs, explicit keys), so it is left to be formatted by hand",
        )),
    }
}

/// The documents `yaml` holds, every scalar resolved, under `yaml/to-json`'s budget.
fn read(yaml: &str) -> Result<Vec<Node>, String> {
    let mut options = Options::default();
    options.budget = Some(crate::dev::yaml::budget());
    options.strict_booleans = true;
    options.non_finite_float_policy = NonFiniteFloatPolicy::PassThrough;
    serde_saphyr::from_multiple_with_options::<Node>(yaml, options)
        .map_err(|e| crate::dev::yaml::first_line(&e.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn format(yaml: &str, indent: u8) -> Result<YamlFormatOutput, ApiError> {
        let input = YamlFormatInput { yaml: yaml.into(), indent, print_width: 80, quotes: QuoteStyle::Double };
        tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(yaml_format(&Ctx::for_tests(), input))
    }

    /// The JSON documents `yaml` loads as, read the way `yaml/to-json` reads.
    fn as_json(yaml: &str) -> Vec<Value> {
        let mut options = Options::default();
        options.budget = Some(crate::dev::yaml::budget());
        options.strict_booleans = true;
        serde_saphyr::from_multiple_with_options::<Value>(yaml, options).unwrap_or_default()
    }

    /// JSON equality with numbers compared by value (the suite writes `1.0` where YAML's `1.0`
    /// may load as the integer-valued float 1).
    fn same_json(a: &Value, b: &Value) -> bool {
        match (a, b) {
            (Value::Number(x), Value::Number(y)) => x.as_f64() == y.as_f64(),
            (Value::Array(x), Value::Array(y)) => x.len() == y.len() && x.iter().zip(y).all(|(a, b)| same_json(a, b)),
            (Value::Object(x), Value::Object(y)) => {
                x.len() == y.len() && x.iter().all(|(k, v)| y.get(k).is_some_and(|w| same_json(v, w)))
            }
            _ => a == b,
        }
    }

    #[test]
    fn the_yaml_test_suite_formats_to_what_its_json_says() {
        // tests/fixtures/yaml_suite.json: the YAML test suite's cases (MIT). Every case with a
        // JSON form, formatted at indents 2 and 4, must load as that JSON; every invalid case is
        // refused. The cases listed below are refused whole (the reader or the formatter does
        // not take them), each for the reason given.
        let cases = crate::testing::fixture("yaml_suite.json");
        let cases = cases.as_array().expect("cases");
        assert_eq!(cases.len(), 402);
        let mut refused_valid = Vec::new();
        let mut accepted_invalid = Vec::new();
        let mut reader_differs = Vec::new();
        let mut formatted = 0;
        for case in cases {
            let id = case["id"].as_str().unwrap();
            let yaml = case["yaml"].as_str().unwrap();
            if case["error"] == true {
                if format(yaml, 2).is_ok() {
                    accepted_invalid.push(id.to_string());
                }
                continue;
            }
            let Some(want) = case["json"].as_array() else { continue };
            let equal = |got: &[Value]| got.len() == want.len() && got.iter().zip(want).all(|(g, w)| same_json(g, w));
            if !equal(&as_json(yaml)) {
                // The reader itself loads the input otherwise than the suite says (empty
                // documents, for one): what the formatter keeps cannot be judged by it.
                reader_differs.push(id.to_string());
                continue;
            }
            for indent in [2, 4] {
                match format(yaml, indent) {
                    Ok(out) => {
                        let got = as_json(&out.formatted);
                        assert!(
                            equal(&got),
                            "{id} at indent {indent}:\n{yaml}\n---\n{}\n{got:?} != {want:?}",
                            out.formatted
                        );
                        formatted += 1;
                    }
                    Err(e) => {
                        refused_valid.push(format!("{id}: {}", e.message));
                        break;
                    }
                }
            }
        }
        eprintln!(
            "formatted {formatted}; reader differs on {}: {reader_differs:?}; refused {} valid: {refused_valid:#?}; accepted {} invalid: {accepted_invalid:?}",
            reader_differs.len(),
            refused_valid.len(),
            accepted_invalid.len()
        );
        assert_eq!(formatted, 495);
        // Empty documents and a few plain scalars over several lines, which the reader loads
        // otherwise than the suite.
        assert_eq!(
            reader_differs,
            [
                "565N", "6XDY", "6ZKB", "9DXL", "DK95/07", "MUS6/02", "MUS6/03", "MUS6/04", "MUS6/05", "MUS6/06",
                "PUW8", "UT92", "W4TN"
            ]
        );
        // Layouts that would change the YAML's meaning (block scalars with leading blank or
        // indented lines, tabs, explicit keys), caught by the check and refused; and one the
        // formatter cannot parse (`- :,`).
        let refused: Vec<&str> = refused_valid.iter().map(|r| r.split(':').next().unwrap_or("")).collect();
        assert_eq!(
            refused,
            [
                "5WE3", "6FWR", "96NN/00", "96NN/01", "DE56/02", "DE56/03", "DWX9", "H2RW", "JEF9/00", "JEF9/01",
                "JEF9/02", "K858", "L24T/00", "L24T/01", "MJS9", "R4YG", "S7BG", "T26H", "Y79Y/001"
            ]
        );
        // A flow sequence indented less than its key, which the reader accepts.
        assert_eq!(accepted_invalid, ["9C9N"]);
    }

    #[test]
    fn comments_anchors_and_block_scalars_survive() {
        let yaml = "# top\nkey:   value   # trailing\nlist:\n- &a one\n- *a\ntext: |\n  line one\n    indented\nfolded: >-\n  a\n  b\n";
        let out = format(yaml, 2).unwrap();
        for kept in ["# top", "# trailing", "&a one", "*a", "  line one\n    indented\n", "folded: >-"] {
            assert!(out.formatted.contains(kept), "{kept:?} lost:\n{}", out.formatted);
        }
        assert_eq!(format(&out.formatted, 2).unwrap().formatted, out.formatted, "formatting twice changes nothing");
        let deep = "[".repeat(200) + &"]".repeat(200);
        assert!(format(&deep, 2).is_err());
    }
}
