//! Closed sets of strings written the one way every SDK generator reads: a plain `enum`.
//!
//! schemars writes a Rust enum whose variants carry doc comments as `oneOf` of
//! `{"const": ..., "description": ...}` branches, which is valid JSON Schema but which
//! generators read badly: openapi-python-client rejects the values it is handed back,
//! openapi-generator refuses plain strings, and defaults get lost. This transform rewrites such
//! a schema (and a lone `const` string) into `{"type": "string", "enum": [...]}`, with each
//! value's meaning moved into the description as a list, so nothing a reader needs is dropped.

use schemars::{Schema, transform::Transform, transform::transform_subschemas};
use serde_json::{Map, Value, json};

/// The schemars transform; added to both generators' settings.
#[derive(Debug, Clone, Copy)]
pub(crate) struct PlainEnums;

impl Transform for PlainEnums {
    fn transform(&mut self, schema: &mut Schema) {
        transform_subschemas(self, schema);
        if let Some(object) = schema.as_object_mut() {
            plain(object);
        }
    }
}

/// One value of a closed set and what it means.
struct Member {
    value: Value,
    meaning: Option<String>,
}

/// The members of `branch` if it is a string constant or a string enum (nothing else beside
/// a description), else `None`.
fn members(branch: &Value) -> Option<Vec<Member>> {
    let o = branch.as_object()?;
    if o.keys().any(|k| !matches!(k.as_str(), "type" | "const" | "enum" | "description")) {
        return None;
    }
    if o.get("type").is_some_and(|t| t != "string") {
        return None;
    }
    let meaning = o.get("description").and_then(Value::as_str).map(str::to_string);
    match (o.get("const"), o.get("enum")) {
        (Some(c @ Value::String(_)), None) => Some(vec![Member { value: c.clone(), meaning }]),
        (None, Some(Value::Array(values))) if values.iter().all(Value::is_string) => {
            // A documented variant has already become a one-value enum (subschemas are
            // transformed first), so its description is that value's meaning.
            let meaning = if values.len() == 1 { meaning } else { None };
            Some(values.iter().map(|v| Member { value: v.clone(), meaning: meaning.clone() }).collect())
        }
        _ => None,
    }
}

fn plain(object: &mut Map<String, Value>) {
    // A lone string constant (an enum of one variant) becomes an enum of one value.
    if object.get("const").is_some_and(Value::is_string) && !object.contains_key("oneOf") {
        let c = object.remove("const").expect("checked above");
        object.insert("type".into(), json!("string"));
        object.insert("enum".into(), json!([c]));
        return;
    }
    let Some(Value::Array(branches)) = object.get("oneOf") else { return };
    let Some(all) = branches.iter().map(members).collect::<Option<Vec<_>>>() else { return };
    let all: Vec<Member> = all.into_iter().flatten().collect();
    object.remove("oneOf");
    object.insert("type".into(), json!("string"));
    object.insert("enum".into(), Value::Array(all.iter().map(|m| m.value.clone()).collect()));
    let lines: Vec<String> = all
        .iter()
        .filter_map(|m| {
            let meaning = m.meaning.as_deref()?.replace('\n', " ");
            Some(format!("- `{}`: {meaning}", m.value.as_str().unwrap_or_default()))
        })
        .collect();
    if !lines.is_empty() {
        let before = object.get("description").and_then(Value::as_str).unwrap_or_default().to_string();
        let text = if before.is_empty() { lines.join("\n") } else { format!("{before}\n\n{}", lines.join("\n")) };
        object.insert("description".into(), json!(text));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(v: Value) -> Value {
        let mut s: Schema = v.try_into().expect("an object schema");
        PlainEnums.transform(&mut s);
        s.to_value()
    }

    #[test]
    fn documented_variants_become_an_enum_with_their_meanings() {
        let out = run(json!({"description": "Line ending.", "oneOf": [
            {"type": "string", "const": "lf", "description": "`\\n`"},
            {"type": "string", "const": "crlf", "description": "two\nlines"}
        ]}));
        assert_eq!(
            out,
            json!({"description": "Line ending.\n\n- `lf`: `\\n`\n- `crlf`: two lines", "type": "string", "enum": ["lf", "crlf"]})
        );
    }

    #[test]
    fn mixed_plain_and_documented_variants_join() {
        let out = run(json!({"oneOf": [{"type": "string", "enum": ["a", "b"]}, {"type": "string", "const": "c"}]}));
        assert_eq!(out, json!({"type": "string", "enum": ["a", "b", "c"]}));
    }

    #[test]
    fn other_compositions_are_left_alone() {
        let alias = json!({"oneOf": [{"required": ["version_a"]}, {"required": ["versionA"]}]});
        assert_eq!(run(alias.clone()), alias);
        let numbers = json!({"oneOf": [{"const": 1}, {"const": 2}]});
        assert_eq!(run(numbers.clone()), numbers);
        let nested = run(json!({"properties": {"x": {"type": "string", "const": "only"}}}));
        assert_eq!(nested, json!({"properties": {"x": {"type": "string", "enum": ["only"]}}}));
    }
}
