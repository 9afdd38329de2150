//! The document rendered as OpenAPI 3.0.3, for the generators that read only 3.0 (progenitor,
//! older openapi-generator templates).
//!
//! The 3.1 document is the source; this is a faithful translation of the JSON Schema 2020-12
//! forms it uses into the OpenAPI 3.0 schema object: `type: [T, "null"]` and an `anyOf` with a
//! `null` branch become `nullable: true`; `const` becomes a one-value `enum`; a `$ref` with
//! siblings (a description, a default) is wrapped in `allOf`, since 3.0 ignores a reference's
//! siblings; 3.1's content keywords become `format: binary`; and the licence's SPDX
//! `identifier`, which 3.0 does not know, is dropped. One more for the generators this
//! rendering serves: a closed set of punctuation-only strings (slugify's `-` and `_`), which
//! they cannot turn into distinct enum variant names (progenitor stops), is written as the
//! equivalent `pattern`; and since they also need one error type per operation (progenitor
//! stops at two), every error response refers to one `Error` envelope whose `code` lists all
//! codes, each response's description and examples still naming the codes its status
//! carries. Fields accepted under two spellings (`version_a` and `versionA`) are declared once,
//! under the first, since a generated type cannot hold two fields of one name; and OPTIONS
//! operations (a webhook receive URL takes every method) are left out, since progenitor writes
//! them as a client call that does not exist. Nothing else changes, so the two renderings
//! describe the same requests and answers, less those two spellings, OPTIONS, and the configured
//! answer of a webhook receive URL (any status and type, where progenitor takes one type per
//! answer: the JSON envelope stays).

use serde_json::{Map, Value, json};

/// The 3.0.3 rendering of a 3.1 document built by [`super::document`].
pub fn render(doc: &Value) -> Value {
    let mut out = doc.clone();
    out["openapi"] = json!("3.0.3");
    if let Some(license) = out["info"]["license"].as_object_mut() {
        license.remove("identifier");
    }
    if let Some(paths) = out["paths"].as_object_mut() {
        for item in paths.values_mut().filter_map(Value::as_object_mut) {
            item.remove("options");
            for op in item.values_mut() {
                one_answer_type(op);
            }
        }
    }
    one_error_schema(&mut out);
    if let Some(schemas) = out["components"]["schemas"].as_object_mut() {
        schemas.values_mut().for_each(schema);
    }
    walk_non_schema(&mut out);
    out
}

/// Leaves each answer one media type, the first (a webhook delivery's JSON envelope rather than
/// its configured answer of any type), and drops a configured answer's `default`: progenitor
/// builds one type per answer and stops at a second.
fn one_answer_type(op: &mut Value) {
    let Some(responses) = op.get_mut("responses").and_then(Value::as_object_mut) else { return };
    responses.remove("default");
    for response in responses.values_mut() {
        if let Some(content) = response.get_mut("content").and_then(Value::as_object_mut)
            && content.len() > 1
        {
            let first = content.keys().next().cloned().unwrap_or_default();
            content.retain(|k, _| *k == first);
        }
    }
}

/// Points every error response at one `Error` schema, the union of the per-status groups: the
/// codes of all of them, and each member any of them has.
fn one_error_schema(doc: &mut Value) {
    let mut groups = Vec::new();
    if let Some(responses) = doc["components"]["responses"].as_object_mut() {
        for response in responses.values_mut() {
            let schema = &mut response["content"]["application/json"]["schema"];
            if let Some(name) = schema["$ref"].as_str().and_then(|r| r.strip_prefix("#/components/schemas/")) {
                groups.push(name.to_string());
                *schema = json!({"$ref": "#/components/schemas/Error"});
            }
        }
    }
    let Some(schemas) = doc["components"]["schemas"].as_object_mut() else { return };
    let mut codes: Vec<Value> = Vec::new();
    let mut members = Map::new();
    let mut template = None;
    for name in &groups {
        let Some(group) = schemas.remove(name) else { continue };
        let error = &group["properties"]["error"]["properties"];
        for code in error["code"]["enum"].as_array().into_iter().flatten() {
            if !codes.contains(code) {
                codes.push(code.clone());
            }
        }
        for (k, v) in error.as_object().into_iter().flatten() {
            members.entry(k.clone()).or_insert_with(|| v.clone());
        }
        template.get_or_insert(group);
    }
    let Some(mut error) = template else { return };
    members.insert(
        "code".into(),
        json!({"type": "string", "enum": codes, "description": "Machine-readable code; each is always sent with the same status."}),
    );
    error["properties"]["error"]["properties"] = Value::Object(members);
    schemas.insert("Error".into(), error);
}

/// Finds the schemas held by operations, parameters, media types and headers.
fn walk_non_schema(v: &mut Value) {
    match v {
        Value::Object(map) => {
            if let Some(Value::Array(parameters)) = map.get_mut("parameters") {
                parameters.retain(|p| p["schema"].get("x-alias-of").is_none());
            }
            for (k, child) in map.iter_mut() {
                match k.as_str() {
                    "schema" => schema(child),
                    // Already converted above; example values are data, not schemas.
                    "schemas" | "example" | "examples" => {}
                    _ => walk_non_schema(child),
                }
            }
        }
        Value::Array(items) => items.iter_mut().for_each(walk_non_schema),
        _ => {}
    }
}

fn is_null_schema(v: &Value) -> bool {
    v.get("type").is_some_and(|t| t == "null") && v.as_object().is_some_and(|o| o.len() <= 2)
}

/// Converts one schema and, first, every schema inside it. 3.0 has no boolean schemas (but for
/// `additionalProperties`): `true` becomes `{}` and `false` `{not: {}}`.
fn schema(v: &mut Value) {
    match v {
        Value::Bool(true) => *v = json!({}),
        Value::Bool(false) => *v = json!({"not": {}}),
        _ => {}
    }
    let Value::Object(o) = v else { return };
    for (k, child) in o.iter_mut() {
        match k.as_str() {
            "properties" | "patternProperties" => {
                if let Value::Object(props) = child {
                    props.values_mut().for_each(schema);
                }
            }
            "items" | "not" => schema(child),
            "additionalProperties" if child.is_object() => schema(child),
            "allOf" | "anyOf" | "oneOf" => {
                if let Value::Array(branches) = child {
                    branches.iter_mut().for_each(schema);
                }
            }
            _ => {}
        }
    }
    drop_aliases(o);
    // `not: {type: "null"}` ("present, and not null") has no null type to name in 3.0, where
    // a schema is non-nullable unless it says otherwise.
    if o.get("not").is_some_and(is_null_schema) {
        o.remove("not");
        o.insert("nullable".into(), json!(false));
    }
    // type: [T, "null"]
    if let Some(Value::Array(types)) = o.get("type") {
        let others: Vec<Value> = types.iter().filter(|t| *t != "null").cloned().collect();
        let nullable = others.len() < types.len();
        if others.len() == 1 {
            o.insert("type".into(), others[0].clone());
        } else {
            o.remove("type");
        }
        if nullable {
            o.insert("nullable".into(), json!(true));
        }
    }
    // anyOf/oneOf with a null branch.
    for key in ["anyOf", "oneOf"] {
        let Some(Value::Array(branches)) = o.get(key) else { continue };
        if !branches.iter().any(is_null_schema) {
            continue;
        }
        let mut rest: Vec<Value> = branches.iter().filter(|b| !is_null_schema(b)).cloned().collect();
        o.remove(key);
        o.insert("nullable".into(), json!(true));
        if rest.len() == 1 {
            let only = rest.remove(0);
            match only {
                Value::Object(inner) if !inner.contains_key("$ref") => {
                    for (k, x) in inner {
                        o.entry(k).or_insert(x);
                    }
                }
                other => {
                    o.insert("allOf".into(), json!([other]));
                }
            }
        } else {
            o.insert(key.into(), Value::Array(rest));
        }
    }
    if let Some(c) = o.remove("const") {
        o.insert("enum".into(), json!([c]));
    }
    if let Some(pattern) = o.get("enum").and_then(Value::as_array).and_then(|v| unnameable(v)) {
        o.remove("enum");
        o.insert("pattern".into(), json!(pattern));
    }
    // Text that holds JSON (a stream event's data) stays a plain string; only bytes are binary.
    let media = o.remove("contentMediaType");
    let textual =
        media.as_ref().and_then(Value::as_str).is_some_and(|m| m == "application/json" || m.starts_with("text/"));
    if o.remove("contentEncoding").is_some() | (media.is_some() && !textual) {
        o.insert("format".into(), json!("binary"));
    }
    if o.contains_key("$ref") && o.len() > 1 {
        let reference = o.remove("$ref").expect("checked above");
        let mut wrapped = Map::new();
        wrapped.insert("allOf".into(), json!([{"$ref": reference}]));
        wrapped.extend(std::mem::take(o));
        *o = wrapped;
    }
}

/// Removes the second spellings of an object's fields and the rules that tie them to the first:
/// "one of the two is required" becomes "the first is required"; "not both" goes. A second
/// spelling is a property marked `x-alias-of`, or a legacy one admitted by `propertyNames` and
/// an `if`/`then` rule (which 3.0 cannot say at all): its object is closed again with
/// `additionalProperties: false`.
fn drop_aliases(o: &mut Map<String, Value>) {
    let mut aliases: Vec<String> = Vec::new();
    if let Some(Value::Object(props)) = o.get_mut("properties") {
        aliases.extend(props.iter().filter(|(_, p)| p.get("x-alias-of").is_some()).map(|(k, _)| k.clone()));
        props.retain(|k, _| !aliases.contains(k));
    }
    let legacy = |rule: &Value| -> Option<String> {
        let props = rule.get("then")?.get("properties")?.as_object()?;
        let (name, s) = props.iter().next().filter(|_| props.len() == 1)?;
        s.get("x-alias-of").map(|_| name.clone())
    };
    if let Some(Value::Array(rules)) = o.get_mut("allOf") {
        let found: Vec<String> = rules.iter().filter_map(legacy).collect();
        rules.retain(|r| legacy(r).is_none());
        if !found.is_empty() && o.remove("propertyNames").is_some() {
            o.insert("additionalProperties".into(), json!(false));
        }
        aliases.extend(found);
    }
    if aliases.is_empty() {
        return;
    }
    let mut required: Vec<Value> = o.get("required").and_then(Value::as_array).cloned().unwrap_or_default();
    if let Some(Value::Array(rules)) = o.get_mut("allOf") {
        rules.retain(|rule| {
            let names = |r: &Value| -> Vec<String> {
                r["required"].as_array().into_iter().flatten().filter_map(Value::as_str).map(str::to_string).collect()
            };
            let mentions_alias = |r: &Value| names(r).iter().any(|n| aliases.contains(n));
            if let Some(branches) = rule["oneOf"].as_array()
                && branches.iter().any(mentions_alias)
            {
                for b in branches {
                    required.extend(names(b).into_iter().filter(|n| !aliases.contains(n)).map(Value::String));
                }
                return false;
            }
            !rule.get("not").is_some_and(mentions_alias)
        });
        if rules.is_empty() {
            o.remove("allOf");
        }
    }
    if !required.is_empty() {
        o.insert("required".into(), Value::Array(required));
    }
}

/// For a set of strings none of which has a letter or digit, the anchored alternation that
/// accepts exactly them.
fn unnameable(values: &[Value]) -> Option<String> {
    let strings: Vec<&str> = values.iter().map(Value::as_str).collect::<Option<_>>()?;
    if strings.is_empty() || strings.iter().any(|s| s.chars().any(char::is_alphanumeric)) {
        return None;
    }
    let escape = |s: &str| -> String {
        s.chars().map(|c| if "\\^$.|?*+()[]{}".contains(c) { format!("\\{c}") } else { c.to_string() }).collect()
    };
    Some(format!("^(?:{})$", strings.iter().map(|s| escape(s)).collect::<Vec<_>>().join("|")))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn one(mut v: Value) -> Value {
        schema(&mut v);
        v
    }

    #[test]
    fn null_unions_become_nullable() {
        assert_eq!(one(json!({"type": ["string", "null"]})), json!({"type": "string", "nullable": true}));
        assert_eq!(
            one(json!({"anyOf": [{"$ref": "#/components/schemas/A"}, {"type": "null"}], "description": "d"})),
            json!({"allOf": [{"$ref": "#/components/schemas/A"}], "description": "d", "nullable": true})
        );
        assert_eq!(
            one(json!({"anyOf": [{"type": "integer", "minimum": 0}, {"type": "null"}]})),
            json!({"nullable": true, "type": "integer", "minimum": 0})
        );
    }

    #[test]
    fn reference_siblings_are_kept_through_all_of() {
        assert_eq!(
            one(json!({"$ref": "#/components/schemas/Case", "default": "snake"})),
            json!({"allOf": [{"$ref": "#/components/schemas/Case"}], "default": "snake"})
        );
        assert_eq!(one(json!({"$ref": "#/x"})), json!({"$ref": "#/x"}));
    }

    #[test]
    fn nested_schemas_and_binary_content_convert() {
        let v = one(json!({"type": "object", "properties": {
            "a": {"type": "array", "items": {"type": ["number", "null"]}},
            "b": {"type": "string", "contentMediaType": "image/png"},
            "c": {"const": 1},
            "d": {"type": "string", "contentMediaType": "application/json"}
        }}));
        assert_eq!(v["properties"]["d"], json!({"type": "string"}), "JSON text is text, not bytes");
        assert_eq!(v["properties"]["a"]["items"], json!({"type": "number", "nullable": true}));
        assert_eq!(v["properties"]["b"], json!({"type": "string", "format": "binary"}));
        assert_eq!(v["properties"]["c"], json!({"enum": [1]}));
        // Boolean schemas, which 3.0 lacks, but for `additionalProperties`.
        let v = one(
            json!({"type": "object", "properties": {"e": {"type": "array", "items": true}}, "additionalProperties": false}),
        );
        assert_eq!(v["properties"]["e"]["items"], json!({}));
        assert_eq!(v["additionalProperties"], json!(false));
    }

    #[test]
    fn second_spellings_are_dropped_with_their_rules() {
        let v = one(json!({
            "type": "object",
            "properties": {
                "version_a": {"type": "string"},
                "versionA": {"type": "string", "x-alias-of": "version_a"},
                "bg_color": {"type": "string"},
                "bgColor": {"type": "string", "x-alias-of": "bg_color"},
                "n": {"type": "integer"}
            },
            "required": ["n"],
            "allOf": [
                {"oneOf": [{"required": ["version_a"]}, {"required": ["versionA"]}]},
                {"not": {"required": ["bg_color", "bgColor"]}}
            ]
        }));
        assert_eq!(
            v,
            json!({
                "type": "object",
                "properties": {"version_a": {"type": "string"}, "bg_color": {"type": "string"}, "n": {"type": "integer"}},
                "required": ["n", "version_a"]
            })
        );
    }

    #[test]
    fn punctuation_sets_become_patterns() {
        let v = one(json!({"type": "string", "enum": ["-", "_", "."]}));
        assert_eq!(v, json!({"type": "string", "pattern": "^(?:-|_|\\.)$"}));
        let re = regex::Regex::new(v["pattern"].as_str().unwrap()).unwrap();
        assert!(re.is_match("-") && re.is_match(".") && !re.is_match("x") && !re.is_match("-_"));
        assert_eq!(one(json!({"enum": ["a", "-"]})), json!({"enum": ["a", "-"]}));
    }
}
