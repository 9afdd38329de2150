//! The OpenAPI document: checked in, complete, and consistent with what the server enforces.

use std::collections::HashSet;

use serde_json::Value;

const FILE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/openapi/openapi.json");

/// Operations the service declares. Update when an issue adds operations; a drop is a bug.
const EXPECTED_OPERATIONS: usize = 82;

#[test]
fn checked_in_document_is_up_to_date() {
    let doc = serde_json::to_string_pretty(&wrench::openapi_document()).unwrap() + "\n";
    if std::env::var_os("UPDATE_OPENAPI").is_some() {
        std::fs::write(FILE, &doc).unwrap();
        return;
    }
    let on_disk = std::fs::read_to_string(FILE).unwrap_or_default();
    if on_disk != doc {
        let diff = similar_lines(&on_disk, &doc);
        panic!(
            "openapi/openapi.json is stale. Regenerate it with\n\n    UPDATE_OPENAPI=1 cargo test --test openapi\n\n\
             (or `cargo run -- openapi > openapi/openapi.json`) and commit the result.\nFirst differences:\n{diff}"
        );
    }
}

/// The first few differing lines, enough to see what changed.
fn similar_lines(a: &str, b: &str) -> String {
    let mut out = String::new();
    for (i, (x, y)) in a.lines().zip(b.lines()).enumerate().filter(|(_, (x, y))| x != y).take(5) {
        out.push_str(&format!("line {}:\n  - {x}\n  + {y}\n", i + 1));
    }
    if a.lines().count() != b.lines().count() {
        out.push_str(&format!("({} lines on disk, {} generated)\n", a.lines().count(), b.lines().count()));
    }
    out
}

#[test]
fn every_operation_is_registered_once() {
    let ops = wrench::operations();
    assert_eq!(ops.len(), EXPECTED_OPERATIONS, "operations: {:?}", ops.iter().map(|o| o.id).collect::<Vec<_>>());
    let mut ids = HashSet::new();
    for op in &ops {
        assert!(ids.insert(op.id), "duplicate id {}", op.id);
        assert!(op.path.starts_with("/v1/"), "{} is not under /v1", op.path);
        assert!(wrench::openapi::TAGS.iter().any(|(t, _)| *t == op.tag), "{} has unknown tag {}", op.id, op.tag);
        assert!((op.examples)().len() >= 2, "{} needs a typical and an edge-case example", op.id);
        // The summary is the line SDKs and the UI show: a capitalised sentence that fits.
        assert!(op.summary.chars().next().is_some_and(char::is_uppercase), "{}: {:?}", op.id, op.summary);
        assert!((8..=80).contains(&op.summary.chars().count()), "{}: {:?}", op.id, op.summary);
    }
    let mut summaries = HashSet::new();
    for op in &ops {
        assert!(summaries.insert(op.summary), "{} repeats the summary {:?}", op.id, op.summary);
    }
    // Every published tag has an operation under it.
    let doc = wrench::openapi_document();
    for tag in doc["tags"].as_array().unwrap() {
        let name = tag["name"].as_str().unwrap();
        assert!(ops.iter().any(|o| o.tag == name), "tag {name} has no operation");
    }
}

#[test]
fn document_basics() {
    let doc = wrench::openapi_document();
    assert_eq!(doc["openapi"], "3.1.0");
    assert_eq!(doc["info"]["version"], "1.0.0");
    assert_eq!(doc["components"]["securitySchemes"]["apiKey"]["name"], "X-API-Key");
    let codes: Vec<&str> = doc["components"]["schemas"]["ErrorBody"]["properties"]["code"]["enum"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap())
        .collect();
    let expected: Vec<&str> = wrench::envelope::ErrorCode::ALL.iter().map(|c| c.as_str()).collect();
    assert_eq!(codes, expected);
    let mut count = 0;
    for (_, item) in doc["paths"].as_object().unwrap() {
        for (_, op) in item.as_object().unwrap() {
            count += 1;
            assert!(op["operationId"].is_string());
            assert!(op["responses"]["500"].is_object(), "every operation documents 500");
            let raw = op["requestBody"]["content"]["*/*"].is_object();
            assert!(raw || op["responses"]["401"].is_object(), "every keyed operation documents 401");
        }
    }
    assert!(count >= EXPECTED_OPERATIONS);
}

/// Keywords that the runtime enforces (serde or the derived `Validate`). A request schema that
/// used any other keyword would promise a check nobody makes.
const ENFORCED: &[&str] = &[
    "type",
    "properties",
    "required",
    "additionalProperties",
    "enum",
    "const",
    "oneOf",
    "anyOf",
    "items",
    "minLength",
    "maxLength",
    "pattern",
    "minimum",
    "maximum",
    "minItems",
    "maxItems",
    "format",
    "default",
    "description",
    "$ref",
    "title",
    "examples",
];

fn walk(v: &Value, path: &str, bad: &mut Vec<String>) {
    if let Value::Object(map) = v {
        for (k, child) in map {
            match k.as_str() {
                "properties" => {
                    for (name, s) in child.as_object().unwrap() {
                        walk(s, &format!("{path}.{name}"), bad);
                    }
                }
                "default" | "examples" | "const" | "enum" | "description" | "title" => {}
                _ => {
                    if !ENFORCED.contains(&k.as_str()) {
                        bad.push(format!("{path}: {k}"));
                    }
                    walk(child, path, bad);
                }
            }
        }
    } else if let Value::Array(items) = v {
        for i in items {
            walk(i, path, bad);
        }
    }
}

fn refs(v: &Value, out: &mut Vec<String>) {
    match v {
        Value::Object(map) => {
            if let Some(r) = map.get("$ref").and_then(Value::as_str) {
                out.push(r.rsplit('/').next().unwrap().to_string());
            }
            map.values().for_each(|c| refs(c, out));
        }
        Value::Array(items) => items.iter().for_each(|c| refs(c, out)),
        _ => {}
    }
}

#[test]
fn request_schemas_use_only_enforced_keywords() {
    let doc = wrench::openapi_document();
    let schemas = doc["components"]["schemas"].as_object().unwrap();
    // Every schema reachable from a request body or parameter.
    let mut todo = Vec::new();
    for (_, item) in doc["paths"].as_object().unwrap() {
        for (_, op) in item.as_object().unwrap() {
            refs(&op["requestBody"], &mut todo);
            refs(&op["parameters"], &mut todo);
        }
    }
    let mut seen = HashSet::new();
    let mut bad = Vec::new();
    while let Some(name) = todo.pop() {
        if !seen.insert(name.clone()) {
            continue;
        }
        let schema = &schemas[&name];
        walk(schema, &name, &mut bad);
        refs(schema, &mut todo);
    }
    assert!(seen.len() >= 20, "only {} request schemas found", seen.len());
    assert!(bad.is_empty(), "unenforced keywords: {bad:?}");
}
