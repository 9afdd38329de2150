//! The document is the contract in both directions: for every operation that takes a JSON body,
//! every declared field is sent with a value of each JSON type the document does not allow
//! for it (numeric strings included), on top of one of the operation's own valid examples, and
//! must be refused with 400 `VALIDATION_ERROR` naming the field. Generated from the same
//! declarations as the document, so a new operation is covered without a line here.

use crate::common;

use std::sync::Arc;

use poem::test::TestClient;
use serde_json::{Map, Value, json};
use wrench_contract::op::{InputKind, Operation, Route};
use wrench_infra::config::Config;

/// Follows `$ref`s into the document's components.
fn resolve<'a>(doc: &'a Value, schema: &'a Value) -> &'a Value {
    match schema.get("$ref").and_then(Value::as_str) {
        Some(r) => {
            let name = r.trim_start_matches("#/components/schemas/");
            resolve(doc, &doc["components"]["schemas"][name])
        }
        None => schema,
    }
}

/// The JSON types a schema accepts, or `None` when it accepts any value.
fn accepted_types(doc: &Value, schema: &Value) -> Option<Vec<String>> {
    let schema = resolve(doc, schema);
    let mut out = Vec::new();
    match schema.get("type") {
        Some(Value::String(t)) => out.push(t.clone()),
        Some(Value::Array(ts)) => out.extend(ts.iter().filter_map(Value::as_str).map(str::to_string)),
        _ => {}
    }
    let mut any_branch = false;
    for key in ["anyOf", "oneOf"] {
        for branch in schema.get(key).and_then(Value::as_array).into_iter().flatten() {
            any_branch = true;
            out.extend(accepted_types(doc, branch)?);
        }
    }
    for v in schema.get("enum").and_then(Value::as_array).into_iter().flatten().chain(schema.get("const")) {
        out.push(json_type(v).to_string());
    }
    if out.is_empty() && !any_branch {
        return None;
    }
    if out.iter().any(|t| t == "number") {
        out.push("integer".into());
    }
    Some(out)
}

fn json_type(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(n) if n.is_i64() || n.is_u64() => "integer",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

/// Pairs of properties that are one field under two spellings, read from the rules the
/// document gives for them (`oneOf` of two `required`, or `not` both `required`).
fn spellings(schema: &Value) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for rule in schema["allOf"].as_array().into_iter().flatten() {
        let names: Vec<&Value> = match (rule["oneOf"].as_array(), rule["not"]["required"].as_array()) {
            (Some(branches), _) => branches.iter().filter_map(|b| b["required"].get(0)).collect(),
            (None, Some(both)) => both.iter().collect(),
            _ => continue,
        };
        if let [a, b] = names[..] {
            out.push((a.as_str().unwrap_or_default().to_string(), b.as_str().unwrap_or_default().to_string()));
        }
    }
    out
}

/// One value of every JSON type, and strings that look like numbers and booleans.
fn wrong_values() -> Vec<Value> {
    vec![
        json!("x"),
        json!("2"),
        json!("2.5"),
        json!("true"),
        json!(2),
        json!(2.5),
        json!(true),
        json!(null),
        json!([]),
        json!({}),
    ]
}

/// Every route that reads a JSON body, with its operation.
fn body_routes() -> Vec<(Operation, Route)> {
    let ops = wrench::operations();
    ops.iter()
        .flat_map(|op| op.routes.iter().filter(|r| r.input == InputKind::Body).map(|r| (op.clone(), *r)))
        .collect()
}

/// Sends `body` to a body route with its method; fields named like a path parameter fill it.
async fn send(cli: &TestClient<wrench_server::http::App>, route: &Route, mut body: Map<String, Value>) -> (u16, Value) {
    let template = route.template();
    let path = template.fill(|p| body.get(p).and_then(Value::as_str).unwrap_or("AAAAAAAAAAAAAAAA").to_string());
    body.retain(|k, _| !template.has_param(k));
    let method: poem::http::Method = route.method.as_str().parse().unwrap();
    let resp = cli.request(method, path).body_json(&Value::Object(body)).send().await;
    let status = resp.0.status().as_u16();
    let bytes = resp.0.into_body().into_vec().await.unwrap();
    (status, serde_json::from_slice(&bytes).unwrap_or(Value::Null))
}

#[tokio::test]
async fn every_declared_field_refuses_every_undeclared_type() {
    let doc = wrench::openapi_document();
    let config = Config { anon_quota: wrench_infra::config::Quota::UNLIMITED, ..Config::default() };
    let cli = TestClient::new(wrench_server::http::app(Arc::new(config), wrench::operations()).unwrap());
    let (mut checked, mut skipped, mut failures) = (0, Vec::new(), Vec::new());
    for (op, route) in body_routes() {
        let schema = &doc["paths"][route.template().document_path()][route.method.lower()]["requestBody"]["content"]["application/json"]
            ["schema"];
        let schema = resolve(&doc, schema);
        let Some(props) = schema.get("properties").and_then(Value::as_object) else {
            skipped.push(format!("{}: takes no fields", route.id));
            continue;
        };
        // A valid example, or else any (reads of stored things have only 404 examples: a wrong
        // type is refused before anything is looked up).
        let examples = (op.examples)();
        let Some(example) = examples.iter().find(|e| e.status == 200).or(examples.first()) else {
            skipped.push(format!("{}: no example to start from", route.id));
            continue;
        };
        let base: Map<String, Value> = example.input.as_object().cloned().unwrap_or_default();
        let spellings = spellings(schema);
        for (field, field_schema) in props {
            let Some(types) = accepted_types(&doc, field_schema) else {
                skipped.push(format!("{}.{field}: the document allows any value", route.id));
                continue;
            };
            for wrong in wrong_values() {
                if types.iter().any(|t| t == json_type(&wrong)) {
                    continue;
                }
                let mut body = base.clone();
                // A field with two spellings is sent under one of them only.
                for (a, b) in &spellings {
                    if a == field {
                        body.remove(b);
                    } else if b == field {
                        body.remove(a);
                    }
                }
                body.insert(field.clone(), wrong.clone());
                let (status, v) = send(&cli, &route, body).await;
                let named = v["error"]["field"].as_str().is_some_and(|f| {
                    f == field || f.starts_with(&format!("{field}.")) || f.starts_with(&format!("{field}["))
                });
                if status != 400 || v["error"]["code"] != "VALIDATION_ERROR" || !named {
                    failures.push(format!("{} {field} = {wrong}: {status} {v}", route.id));
                }
                checked += 1;
            }
        }
    }
    for s in &skipped {
        eprintln!("skipped: {s}");
    }
    eprintln!("{checked} wrong-type requests checked, {} fields or operations skipped", skipped.len());
    assert!(checked > 500, "too few checks ({checked}): the walk over the document is broken");
    assert!(failures.is_empty(), "{} accepted or misreported:\n{}", failures.len(), failures.join("\n"));
}

/// Every field the document lists under two spellings works under either, with the same
/// answer, and refuses both at once with 400 naming the field.
#[tokio::test]
async fn every_second_spelling_is_accepted_and_both_are_refused() {
    let doc = wrench::openapi_document();
    let config = Config { anon_quota: wrench_infra::config::Quota::UNLIMITED, ..Config::default() };
    let cli = TestClient::new(wrench_server::http::app(Arc::new(config), wrench::operations()).unwrap());
    let (mut checked, mut failures) = (0, Vec::new());
    for (op, route) in body_routes() {
        let schema = &doc["paths"][route.template().document_path()][route.method.lower()]["requestBody"]["content"]["application/json"]
            ["schema"];
        let pairs = spellings(resolve(&doc, schema));
        for example in (op.examples)().into_iter().filter(|e| e.status == 200) {
            let base = example.input.as_object().cloned().unwrap_or_default();
            for (a, b) in &pairs {
                let (given, other) = match (base.get(a), base.get(b)) {
                    (Some(_), None) => (a, b),
                    (None, Some(_)) => (b, a),
                    _ => continue,
                };
                let (want_status, want) = common::post_json(&cli, route.path, &Value::Object(base.clone())).await;
                let mut swapped = base.clone();
                let value = swapped.remove(given).unwrap();
                swapped.insert(other.clone(), value.clone());
                let (status, got) = common::post_json(&cli, route.path, &Value::Object(swapped.clone())).await;
                let random = op.redactions.iter().any(|r| r.starts_with(".data"));
                if status != want_status || (!random && got["data"] != want["data"]) {
                    failures.push(format!("{} as {other}: {status} {got}, not {want_status} {want}", route.id));
                }
                swapped.insert(given.clone(), value);
                let (status, got) = common::post_json(&cli, route.path, &Value::Object(swapped)).await;
                let named = got["error"]["field"] == *a;
                if status != 400 || got["error"]["code"] != "VALIDATION_ERROR" || !named {
                    failures.push(format!("{} with {a} and {b}: {status} {got}", route.id));
                }
                checked += 1;
            }
        }
    }
    eprintln!("{checked} fields checked under both spellings");
    assert!(checked >= 10, "too few fields with two spellings found ({checked}): the walk over the document is broken");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
