//! `json-schema/validate`: a JSON document checked against a JSON Schema of drafts 4, 6, 7,
//! 2019-09 or 2020-12, with every failure located in the document and in the schema.
//!
//! Nothing is fetched: a `$ref` to another schema resolves only against those the caller
//! supplies in `schemas` (by URI), so a schema cannot make the server reach the network.
//! `pattern` and `patternProperties` run on a backtracking engine with ECMA-262's features, under
//! a backtrack limit per match, so a hostile pattern fails instead of running away.

use std::collections::BTreeMap;

use jsonschema::{Draft, PatternOptions, Retrieve, Uri};
use serde_json::Value;

use wrench_contract::prelude::*;

/// The most errors an answer lists.
const MAX_ERRORS: usize = 100;
/// The most backtracking steps one `pattern` match may take.
const BACKTRACK_LIMIT: usize = 100_000;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize, JsonSchema, Validate)]
enum SchemaDraft {
    #[serde(rename = "4")]
    Draft4,
    #[serde(rename = "6")]
    Draft6,
    #[serde(rename = "7")]
    Draft7,
    #[serde(rename = "2019-09")]
    Draft201909,
    #[serde(rename = "2020-12")]
    Draft202012,
}

impl SchemaDraft {
    fn draft(self) -> Draft {
        match self {
            SchemaDraft::Draft4 => Draft::Draft4,
            SchemaDraft::Draft6 => Draft::Draft6,
            SchemaDraft::Draft7 => Draft::Draft7,
            SchemaDraft::Draft201909 => Draft::Draft201909,
            SchemaDraft::Draft202012 => Draft::Draft202012,
        }
    }

    /// The draft a `$schema` URI names.
    fn named(uri: &str) -> Option<SchemaDraft> {
        let u = uri.trim_end_matches('#');
        Some(match u.trim_start_matches("https://").trim_start_matches("http://") {
            "json-schema.org/draft-04/schema" => SchemaDraft::Draft4,
            "json-schema.org/draft-06/schema" => SchemaDraft::Draft6,
            "json-schema.org/draft-07/schema" => SchemaDraft::Draft7,
            "json-schema.org/draft/2019-09/schema" => SchemaDraft::Draft201909,
            "json-schema.org/draft/2020-12/schema" => SchemaDraft::Draft202012,
            _ => return None,
        })
    }
}

#[derive(Debug, Deserialize, JsonSchema, Validate)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct SchemaValidateInput {
    /// The document to check: any JSON value.
    json: Value,
    /// The schema: an object or a boolean.
    schema: Value,
    /// The draft: `4`, `6`, `7`, `2019-09` or `2020-12`. Absent, the schema's `$schema` names
    /// it, else 2020-12.
    #[serde(default)]
    draft: Option<SchemaDraft>,
    /// Check `format` (dates, e-mail addresses, URIs…) as an assertion. Off by default, as
    /// drafts 2019-09 and 2020-12 make `format` an annotation only.
    #[serde(default)]
    validate_formats: bool,
    /// Other schemas the schema refers to (`$ref`), by their URI (up to 64). Nothing else is
    /// resolved: remote references are never fetched.
    #[serde(default)]
    #[schemars(length(max = 64))]
    schemas: BTreeMap<String, Value>,
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct SchemaError {
    /// Where in the document, as a JSON Pointer (`/items/0/price`; empty for the root).
    instance_path: String,
    /// Where in the schema, as a JSON Pointer to the failing keyword.
    schema_path: String,
    /// The keyword that failed (`type`, `required`, `pattern`…).
    keyword: String,
    /// What is wrong.
    message: String,
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct SchemaValidateOutput {
    /// Whether the document satisfies the schema.
    valid: bool,
    /// The draft the schema was read as; null for a schema whose `$schema` is a metaschema
    /// supplied in `schemas` (its vocabularies decide).
    draft: Option<SchemaDraft>,
    /// The failures, at most 100.
    errors: Vec<SchemaError>,
    /// Whether there were more failures than listed.
    truncated: bool,
}

/// References resolve only to the schemas the caller supplied.
struct Supplied(BTreeMap<String, Value>);

impl Retrieve for Supplied {
    fn retrieve(&self, uri: &Uri<String>) -> Result<Value, Box<dyn std::error::Error + Send + Sync>> {
        let key = uri.as_str();
        self.0
            .get(key)
            .or_else(|| self.0.get(key.trim_end_matches('#')))
            .cloned()
            .ok_or_else(|| format!("{key} is not among `schemas` (references are never fetched)").into())
    }
}

/// Validate JSON against a JSON Schema (drafts 4 to 2020-12).
///
/// Checks `json` against `schema` under the draft named by `draft` or the schema's `$schema`
/// (2020-12 by default) and answers whether it is valid and each failure with its place in
/// the document and in the schema, its keyword and a message (at most 100). `$ref`s resolve
/// within the schema and against `schemas`; nothing is fetched. `format` is checked with
/// `validateFormats`. A schema that is itself invalid is a 400 naming where.
#[op(post "/v1/json-schema/validate" as jsonSchemaValidate, tag = TextAndData, cpu,
     rejects = "a schema that is not a valid schema of its draft, or a reference to a schema not supplied",
     example(valid, {"json": {"name": "wrench", "port": 8080}, "schema": {"type": "object", "required": ["name"], "properties": {"port": {"type": "integer", "maximum": 65535}}}}),
     example(errors, {"json": {"port": "80", "tags": ["a", "a"]}, "schema": {"$schema": "http://json-schema.org/draft-07/schema#", "type": "object", "required": ["name"], "properties": {"port": {"type": "integer"}, "tags": {"uniqueItems": true}}}}),
     example(supplied_ref, {"json": 5, "schema": {"$ref": "https://example.com/positive.json"}, "schemas": {"https://example.com/positive.json": {"type": "integer", "exclusiveMinimum": 0}}}),
     example(bad_schema, {"json": 1, "schema": {"type": "integger"}}, status = 400))]
async fn json_schema_validate(input: SchemaValidateInput) -> Result<SchemaValidateOutput, ApiError> {
    let declared = input.schema.get("$schema").and_then(Value::as_str);
    // A `$schema` naming a metaschema of the caller's (supplied in `schemas`) is read by the
    // library itself, vocabularies and all; otherwise the draft is the one asked for or named.
    let draft = match (input.draft, declared) {
        (Some(d), _) => Some(d),
        (None, Some(uri)) => SchemaDraft::named(uri),
        (None, None) => Some(SchemaDraft::Draft202012),
    };
    let mut options = jsonschema::options();
    if let Some(d) = draft {
        options = options.with_draft(d.draft());
    }
    let validator = options
        .should_validate_formats(input.validate_formats)
        .with_pattern_options(PatternOptions::fancy_regex().backtrack_limit(BACKTRACK_LIMIT))
        .with_retriever(Supplied(input.schemas))
        .build(&input.schema)
        .map_err(|e| {
            let at = e.instance_path().to_string();
            let of = draft.map_or("its metaschema's".to_string(), |d| format!("draft {}", draft_name(d)));
            let place = if at.is_empty() { String::new() } else { format!(" at {at}") };
            ApiError::invalid("schema", format!("is not a valid {of} schema{place}: {e}"))
        })?;
    let mut errors = Vec::new();
    let mut truncated = false;
    for e in validator.iter_errors(&input.json) {
        if errors.len() == MAX_ERRORS {
            truncated = true;
            break;
        }
        errors.push(SchemaError {
            instance_path: e.instance_path().to_string(),
            schema_path: e.schema_path().to_string(),
            keyword: e.kind().keyword().to_string(),
            message: e.to_string(),
        });
    }
    Ok(SchemaValidateOutput { valid: errors.is_empty(), draft, errors, truncated })
}

fn draft_name(d: SchemaDraft) -> &'static str {
    match d {
        SchemaDraft::Draft4 => "4",
        SchemaDraft::Draft6 => "6",
        SchemaDraft::Draft7 => "7",
        SchemaDraft::Draft201909 => "2019-09",
        SchemaDraft::Draft202012 => "2020-12",
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    /// JSON-Schema-Test-Suite (tests/fixtures/json_schema_suite.json: the required tests of
    /// drafts 4, 6, 7, 2019-09 and 2020-12, with the suite's remote schemas supplied through
    /// `schemas`): every verdict agrees.
    #[tokio::test]
    async fn json_schema_test_suite() {
        let f = crate::testing::fixture("json_schema_suite.json");
        let remotes: BTreeMap<String, Value> = serde_json::from_value(f["remotes"].clone()).unwrap();
        let mut failures = Vec::new();
        let mut checked = 0;
        for (name, draft) in [
            ("draft4", SchemaDraft::Draft4),
            ("draft6", SchemaDraft::Draft6),
            ("draft7", SchemaDraft::Draft7),
            ("draft2019-09", SchemaDraft::Draft201909),
            ("draft2020-12", SchemaDraft::Draft202012),
        ] {
            for group in f["drafts"][name].as_array().unwrap() {
                for t in group["tests"].as_array().unwrap() {
                    // The directory's draft, unless the schema names its own metaschema.
                    let declared = group["schema"].get("$schema").is_some();
                    let input = SchemaValidateInput {
                        json: t["data"].clone(),
                        schema: group["schema"].clone(),
                        draft: (!declared).then_some(draft),
                        validate_formats: false,
                        schemas: remotes.clone(),
                    };
                    let verdict = json_schema_validate(input).await.map(|o| o.valid).map_err(|e| e.message);
                    if verdict != Ok(t["valid"].as_bool().unwrap()) {
                        failures.push(format!(
                            "{name} {} / {} / {}: {verdict:?}",
                            group["file"], group["description"], t["description"]
                        ));
                    }
                    checked += 1;
                }
            }
        }
        assert!(failures.is_empty(), "{} of {checked} disagree:\n{}", failures.len(), failures.join("\n"));
        assert!(checked > 4900, "{checked}");
    }

    #[tokio::test]
    async fn errors_are_located_and_nothing_is_fetched() {
        let input = SchemaValidateInput {
            json: json!({"a": [1, "x"]}),
            schema: json!({"properties": {"a": {"items": {"type": "integer"}}}}),
            draft: None,
            validate_formats: false,
            schemas: BTreeMap::new(),
        };
        let out = json_schema_validate(input).await.unwrap();
        assert!(!out.valid);
        assert_eq!((out.errors[0].instance_path.as_str(), out.errors[0].keyword.as_str()), ("/a/1", "type"));
        assert_eq!(out.errors[0].schema_path, "/properties/a/items/type");
        let remote = SchemaValidateInput {
            json: json!(1),
            schema: json!({"$ref": "http://127.0.0.1:9/x.json"}),
            draft: None,
            validate_formats: false,
            schemas: BTreeMap::new(),
        };
        let e = json_schema_validate(remote).await.unwrap_err();
        assert!(e.message.contains("never fetched"), "{}", e.message);
        // A catastrophic pattern fails within its backtrack limit rather than running away.
        let hostile = SchemaValidateInput {
            json: json!(format!("{}!", "a".repeat(40))),
            schema: json!({"pattern": "^(a+)+$"}),
            draft: None,
            validate_formats: false,
            schemas: BTreeMap::new(),
        };
        let started = std::time::Instant::now();
        let _ = json_schema_validate(hostile).await;
        assert!(started.elapsed() < std::time::Duration::from_secs(5));
    }
}
