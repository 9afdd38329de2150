//! YAML to JSON and back, with serde-saphyr (a pure-Rust YAML 1.2 parser without unsafe
//! code).
//!
//! Untrusted YAML is parsed under an explicit budget, so alias bombs ("billion laughs"), deep
//! nesting and huge documents are refused with a 400 instead of exhausting memory: see
//! [`budget`] for the figures. Nothing is ever read from files or the network (`!include` is
//! not enabled).

use serde_saphyr::{Budget, Options, SerializerOptions};

use wrench_contract::prelude::*;

use super::yaml_node::Node;

/// The limits one request's YAML is parsed under.
pub(crate) fn budget() -> Budget {
    let mut b = Budget::default();
    b.max_events = 500_000;
    b.max_nodes = 200_000;
    b.max_aliases = 10_000;
    b.max_anchors = 10_000;
    b.max_recorded_anchor_events = 200_000;
    b.max_depth = wrench_infra::bounds::MAX_NESTING;
    b.max_documents = 100;
    b.max_total_scalar_bytes = 4 << 20;
    b
}

#[derive(Debug, Deserialize, JsonSchema, Validate)]
#[serde(deny_unknown_fields)]
struct YamlToJsonInput {
    /// The YAML text; several documents separated by `---` are allowed (at most 100).
    yaml: String,
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct YamlToJsonOutput {
    /// The document as JSON; for several documents, an array of them.
    json: Value,
    /// How many documents the text held.
    documents: usize,
    /// Whether `json` is an array of documents (the text held more than one).
    multi_document: bool,
}

/// Convert YAML to JSON.
///
/// YAML 1.2 core schema: `true`/`false`, `null`/`~`, integers (also `0x`, `0o`), floats,
/// everything else a string (so `yes`,
/// `on` and `2001-12-14` stay strings). Anchors and aliases are expanded under a budget, merge
/// keys (`<<`) are applied, duplicate keys are a 400 (the specification forbids them), and
/// standard tags (`!!str`, `!!int`, ...) are honoured. Mapping keys that are not strings are
/// written as their YAML text. Several documents give an array. Invalid YAML, and `.inf` or
/// `.nan` (which JSON cannot hold), are a 400 with the line and column.
#[op(post "/v1/yaml/to-json" as yamlToJson, tag = DeveloperUtilities, pipe(yaml -> json),
     rejects = "text that is not valid YAML, or YAML beyond the anchor, depth or size budget",
     example(config, {"yaml": "name: wrench\nversion: 1.0\nfeatures:\n  - yaml\n  - json\nenabled: true\nempty: ~\n"}),
     example(anchors_and_documents, {"yaml": "base: &b {retries: 3}\nprod:\n  <<: *b\n  host: example.com\n---\nsecond: !!str 42\n"}),
     example(invalid, {"yaml": "key: [unclosed\n"}, status = 400),
     cpu)]
async fn yaml_to_json(input: YamlToJsonInput) -> Result<YamlToJsonOutput, ApiError> {
    let mut options = Options::default();
    options.budget = Some(budget());
    // YAML 1.2 core schema: `yes`, `on` and friends are strings, as in the specification.
    options.strict_booleans = true;
    let docs: Vec<Node> = serde_saphyr::from_multiple_with_options(&input.yaml, options)
        .map_err(|e| ApiError::invalid("yaml", first_line(&e.to_string())))?;
    let mut docs: Vec<Value> = docs.into_iter().map(Node::into_json).collect();
    let documents = docs.len();
    let json = match documents {
        0 => Value::Null,
        1 => docs.pop().unwrap_or(Value::Null),
        _ => Value::Array(docs),
    };
    Ok(YamlToJsonOutput { json, documents, multi_document: documents > 1 })
}

/// serde-saphyr's messages can carry a source snippet over several lines; the envelope keeps
/// the first line, which holds the reason and the position.
pub(crate) fn first_line(message: &str) -> String {
    let line = message.lines().find(|l| !l.trim().is_empty()).unwrap_or(message).trim();
    let line = line.strip_prefix("error: ").unwrap_or(line);
    line.replace("rejected by the configured policy", "has no JSON form (JSON has no infinities or NaN)")
}

#[derive(Debug, Deserialize, JsonSchema, Validate)]
#[serde(deny_unknown_fields)]
struct YamlToYamlInput {
    /// The JSON object to write as YAML.
    data: serde_json::Map<String, Value>,
    /// Spaces per indentation level.
    #[serde(default = "two")]
    #[schemars(range(min = 1, max = 8))]
    indent: u32,
}

fn two() -> u32 {
    2
}

#[derive(Debug, Serialize, JsonSchema)]
struct YamlToYamlOutput {
    /// The YAML text.
    yaml: String,
}

/// Convert JSON to YAML.
///
/// Block style with `indent` spaces (1-8, default 2); keys keep their order. Strings that YAML
/// 1.1 or 1.2 would read as something else (`"yes"`, `"on"`, `"null"`, `"1e3"`, `"0x10"`,
/// leading or trailing spaces, `: ` or `#`) are quoted, so converting the result back gives the
/// same JSON with either version's readers.
#[op(post "/v1/yaml/to-yaml" as yamlToYaml, tag = DeveloperUtilities, pipe(data -> yaml),
     example(object, {"data": {"name": "wrench", "tags": ["a", "b"], "nested": {"on": "yes", "n": null}}}),
     example(indent_four, {"data": {"a": {"b": [1, 2]}}, "indent": 4}),
     example(bad_indent, {"data": {}, "indent": 0}, status = 400),
     example(not_an_object, {"data": "text"}, status = 400),
     cpu)]
async fn yaml_to_yaml(ctx: &Ctx, input: YamlToYamlInput) -> Result<YamlToYamlOutput, ApiError> {
    let data = Value::Object(input.data);
    Ok(YamlToYamlOutput { yaml: write_yaml(&data, input.indent as usize, ctx.config.response_limit)? })
}

/// Writes `data` as YAML, refusing once the text passes `limit` bytes: indentation grows with
/// depth, so 1 MiB of deeply nested JSON can ask for a hundred times as much YAML.
fn write_yaml(data: &Value, indent: usize, limit: usize) -> Result<String, ApiError> {
    let mut options = SerializerOptions::default();
    options.indent_step = indent;
    // YAML 1.1 quoting rules: `yes`, `on`, `y` are quoted too, so the text reads back the
    // same in 1.1 readers (PyYAML, older libraries) as in 1.2 ones.
    options.yaml_12 = false;
    let mut out = wrench_infra::bounds::CappedText::new(limit);
    let written = serde_saphyr::to_fmt_writer_with_options(&mut out, data, options);
    let text = out.finish()?;
    written.map_err(|e| ApiError::internal(format!("writing YAML failed: {e}")))?;
    Ok(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    async fn to_json(yaml: &str) -> Result<YamlToJsonOutput, ApiError> {
        yaml_to_json(YamlToJsonInput { yaml: yaml.into() }).await
    }

    #[tokio::test]
    async fn yaml_spec_examples_read_as_expected() {
        // YAML 1.2.2 specification, examples 2.1, 2.3, 2.7 (two documents), 2.10 (aliases)
        // and the core schema (10.3.2).
        assert_eq!(
            to_json("- Mark McGwire\n- Sammy Sosa\n- Ken Griffey\n").await.unwrap().json,
            json!(["Mark McGwire", "Sammy Sosa", "Ken Griffey"])
        );
        assert_eq!(
            to_json("american:\n- Boston Red Sox\n- Detroit Tigers\nnational:\n- New York Mets\n").await.unwrap().json,
            json!({"american": ["Boston Red Sox", "Detroit Tigers"], "national": ["New York Mets"]})
        );
        let two = to_json("# Ranking of 1998 home runs\n---\n- Mark McGwire\n- Sammy Sosa\n\n# Team ranking\n---\n- Chicago Cubs\n- St Louis Cardinals\n").await.unwrap();
        assert_eq!((two.documents, two.multi_document), (2, true));
        assert_eq!(two.json, json!([["Mark McGwire", "Sammy Sosa"], ["Chicago Cubs", "St Louis Cardinals"]]));
        assert_eq!(
            to_json("hr:\n- Mark McGwire\n- &SS Sammy Sosa\nrbi:\n- *SS\n- Ken Griffey\n").await.unwrap().json,
            json!({"hr": ["Mark McGwire", "Sammy Sosa"], "rbi": ["Sammy Sosa", "Ken Griffey"]})
        );
        assert_eq!(
            to_json("a: null\nb: ~\nc: true\nd: 0o14\ne: 0x1F\nf: -1.5e+3\ng: yes\nh: 2001-12-14\ni: !!str 42\n")
                .await
                .unwrap()
                .json,
            json!({"a": null, "b": null, "c": true, "d": 12, "e": 31, "f": -1500.0, "g": "yes", "h": "2001-12-14", "i": "42"})
        );
    }

    #[tokio::test]
    async fn keys_special_floats_and_duplicates() {
        assert_eq!(
            to_json("1: a\ntrue: b\nnull: c\n").await.unwrap().json,
            json!({"1": "a", "true": "b", "null": "c"})
        );
        for special in [".inf", "-.inf", ".nan"] {
            let e = to_json(&format!("a: {special}\n")).await.unwrap_err();
            assert!(e.message.contains("no JSON form"), "{}", e.message);
        }
        assert_eq!(to_json("[1, 2]: pair\n").await.unwrap().json, json!({"[1,2]": "pair"}));
        assert!(to_json("a: 1\na: 2\n").await.is_err());
        assert_eq!(to_json("").await.unwrap().documents, 0);
    }

    #[tokio::test]
    async fn alias_bombs_and_deep_nesting_are_refused() {
        // "Billion laughs": nine levels of ten aliases each expand to 10^9 nodes.
        let mut bomb =
            String::from("a: &a [\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\"]\n");
        for (prev, cur) in ["a", "b", "c", "d", "e", "f", "g", "h"].iter().zip(["b", "c", "d", "e", "f", "g", "h", "i"])
        {
            bomb.push_str(&format!("{cur}: &{cur} [{}]\n", vec![format!("*{prev}"); 10].join(",")));
        }
        let started = std::time::Instant::now();
        let err = to_json(&bomb).await.expect_err("bomb refused");
        assert_eq!(err.field.as_deref(), Some("yaml"));
        assert!(started.elapsed() < std::time::Duration::from_secs(2), "{:?}", started.elapsed());
        let deep = "[".repeat(10_000) + &"]".repeat(10_000);
        assert!(to_json(&deep).await.is_err());
        let deep_block: String = (0..200).map(|i| format!("{}k:\n", " ".repeat(i))).collect();
        assert!(to_json(&deep_block).await.is_err());
    }

    #[tokio::test]
    async fn json_to_yaml_and_back_is_the_identity() {
        // Strings YAML 1.1 or 1.2 would otherwise read as booleans, nulls or numbers, and
        // strings that need quoting or block style.
        let data = json!({
            "plain": "hello",
            "lookalikes": ["yes", "no", "on", "off", "y", "n", "true", "False", "null", "~", "", "1e3", "0x10", "0o7", ".inf", "-.5", "012", "1_000", "2001-12-14"],
            "punctuation": ["a: b", "# not a comment", "- dash", "[x]", "{y}", "'q'", "\"dq\"", "*star", "&amp", "!tag", "%pct", "@at", "`tick", "|", ">", "?"],
            "spaces": [" leading", "trailing ", "  "],
            "lines": "one\ntwo\n",
            "no_final_newline": "one\ntwo",
            "unicode": "naïve – 日本語 🎉",
            "control": "tab\there\u{0007}bell",
            "numbers": [0, -1, 1.5, 1e300, 123456789012345678i64],
            "nested": {"empty_list": [], "empty_map": {}, "n": null, "t": true},
            "key: with colon": 1,
            "123": "numeric key",
            "true": "boolean key"
        });
        for indent in [1, 2, 4, 8] {
            let yaml = write_yaml(&data, indent, 1 << 20).unwrap();
            let back = to_json(&yaml).await.unwrap_or_else(|e| panic!("{}\n{yaml}", e.message));
            assert_eq!(back.json, data, "indent {indent}:\n{yaml}");
        }
    }
}
