//! The OpenAPI 3.1 document, built in one pass from the registry of operations.
//!
//! Each route of each operation becomes one operation object, written once from its descriptor
//! ([`operation`]); nothing is patched after the fact. Schemas come from schemars, which
//! writes JSON Schema 2020-12 (OpenAPI 3.1's dialect), with one transform so SDK generators
//! read every closed set of strings the same way ([`enums`]), so the whole document is plain
//! JSON assembled with serde_json, one way. Image results carry what their own examples render,
//! checked in beside the document so that writing it runs no operation ([`samples`]). [`v30`] renders the same document as OpenAPI 3.0.3 for the generators that
//! read only 3.0. Error responses are rendered from the same `ErrorCode` enum the server answers
//! with, per operation ([`errors`]): the document cannot promise a code the server never sends
//! or miss one it does.
//!
//! The output is deterministic (sorted paths and components), because `openapi/openapi.json`
//! is checked in and a test compares it with this function's output.

mod enums;
pub(crate) use enums::PlainEnums;
mod errors;
mod operation;
pub mod samples;
pub mod v30;

use std::collections::BTreeMap;

use heck::ToUpperCamelCase;
use schemars::{SchemaGenerator, generate::SchemaSettings};
use serde_json::{Map, Value, json};

use wrench_contract::op::{HttpMethod, Operation, Tag};
use wrench_infra::envelope::ErrorCode;

/// The API version of the contract (not the crate version).
pub const API_VERSION: &str = "1.0.0";

const DESCRIPTION: &str = "\
wrench is a self-hostable HTTP API of developer utilities.

Every JSON response is an envelope: `{\"success\": true, \"data\": {...}, \"meta\": {\"requestId\", \"duration\"}}` \
on success and `{\"success\": false, \"error\": {\"code\", \"message\"}, \"meta\": {...}}` on failure. \
`meta.duration` is in milliseconds; `meta.requestId` is also sent as the `X-Request-Id` header.

Authentication is optional: send `X-API-Key: <key>` (or `Authorization: Bearer <key>`) to call \
as a key holder; without a key you call anonymously. A key that is sent but not valid is refused \
with 401 `UNAUTHORIZED`.

Request bodies are JSON (a missing `Content-Type` is read as JSON) and at most 1 MiB unless the \
operator configured another limit. Unknown fields are refused, so typos do not pass silently.

Each operation lists the error codes it can answer. All of them, each always sent with the same status:";

fn settings() -> SchemaSettings {
    SchemaSettings::draft2020_12().with(|s| {
        s.definitions_path = "/components/schemas".into();
        s.meta_schema = None;
        s.transforms.push(Box::new(enums::PlainEnums));
    })
}

/// `base64Encode` -> `Base64Encode`, for the names of an operation's schemas.
fn pascal(id: &str) -> String {
    id.to_upper_camel_case()
}

/// Keeps `schema` under `name` and gives the `$ref` to use for it; a `$ref` schemars already
/// made is used as it is.
fn reference(schema: Value, name: String, named: &mut Map<String, Value>) -> Value {
    if schema.get("$ref").is_some() {
        return schema;
    }
    named.insert(name.clone(), schema);
    json!({"$ref": format!("#/components/schemas/{name}")})
}

/// The schema a `$ref` names, among `definitions` and `named`; any other schema as it is.
fn resolve<'a>(schema: &'a Value, definitions: &'a Map<String, Value>, named: &'a Map<String, Value>) -> &'a Value {
    let name = schema.get("$ref").and_then(Value::as_str).and_then(|r| r.strip_prefix("#/components/schemas/"));
    match name {
        Some(n) => definitions.get(n).or_else(|| named.get(n)).unwrap_or(schema),
        None => schema,
    }
}

/// Where a method sits among the operations of one path.
fn method_rank(m: HttpMethod) -> u8 {
    match m {
        HttpMethod::Get => 0,
        HttpMethod::Put => 1,
        HttpMethod::Post => 2,
        HttpMethod::Delete => 3,
        HttpMethod::Patch => 4,
        HttpMethod::Head => 5,
        HttpMethod::Options => 6,
    }
}

/// Builds the whole document.
pub fn document(ops: &[Operation]) -> Value {
    let mut in_gen: SchemaGenerator = settings().for_deserialize().into_generator();
    let mut out_gen: SchemaGenerator = settings().for_serialize().into_generator();
    // Schemas named here rather than by schemars: success envelopes, inlined inputs and outputs,
    // error groups and the shared `Meta`.
    let mut named = Map::new();
    named.insert("Meta".into(), meta_schema());
    let mut paths: BTreeMap<String, Vec<(HttpMethod, Value)>> = BTreeMap::new();
    let mut groups: BTreeMap<String, Vec<ErrorCode>> = BTreeMap::new();
    let mut used_codes = Vec::new();

    for op in ops {
        let base = pascal(op.id());
        let input = (op.input_schema)(&mut in_gen).map(|s| reference(s.to_value(), format!("{base}Input"), &mut named));
        let envelope = (op.output_schema)(&mut out_gen).map(|s| {
            let data = reference(s.to_value(), format!("{base}Output"), &mut named);
            named.insert(
                format!("{base}Response"),
                json!({
                    "type": "object",
                    "required": ["success", "data", "meta"],
                    "properties": {
                        "success": {"type": "boolean", "description": "Always `true` here: the call succeeded."},
                        "data": data,
                        "meta": {"$ref": "#/components/schemas/Meta"}
                    }
                }),
            );
            format!("{base}Response")
        });
        let definitions = in_gen.definitions();
        let input_schema = input
            .as_ref()
            .map(|reference| operation::InputSchema { reference, resolved: resolve(reference, definitions, &named) });
        for route in op.routes {
            let codes = op.error_codes(route);
            for group in errors::by_status(&codes).into_values() {
                groups.insert(errors::group_name(&group), group);
            }
            used_codes.extend(codes);
            let object = operation::operation(op, route, input_schema.as_ref(), envelope.as_deref());
            paths.entry(route.template().document_path()).or_default().push((route.method, object));
        }
    }

    let mut schemas = named;
    for (name, codes) in &groups {
        schemas.insert(name.clone(), errors::schema(codes));
    }
    for (k, v) in in_gen.take_definitions(true).into_iter().chain(out_gen.take_definitions(true)) {
        if let Some(prev) = schemas.get(&k) {
            assert_eq!(prev, &v, "two schemas are both named {k}; rename one of the types");
        }
        schemas.insert(k, v);
    }
    let responses: Map<String, Value> =
        groups.iter().map(|(name, codes)| (name.clone(), errors::response(codes))).collect();
    let paths: Map<String, Value> = paths
        .into_iter()
        .map(|(path, mut methods)| {
            methods.sort_by_key(|(m, _)| method_rank(*m));
            let item: Map<String, Value> = methods.into_iter().map(|(m, o)| (m.lower().to_string(), o)).collect();
            (path.to_string(), Value::Object(item))
        })
        .collect();
    let mut schemas = reachable(schemas, &[&Value::Object(paths.clone()), &Value::Object(responses.clone())]);
    schemas.values_mut().for_each(any_value_as_object);
    // Only tags that have an operation: a published tag with nothing under it is noise in the
    // UI and in generated SDKs.
    let tags: Vec<Value> = Tag::ALL
        .iter()
        .filter(|t| ops.iter().any(|o| o.tag == **t))
        .map(|t| json!({"name": t.name(), "description": t.description()}))
        .collect();

    json!({
        "openapi": "3.1.0",
        "info": {
            "title": "wrench",
            "description": format!("{DESCRIPTION}\n\n{}", errors::table(&used_codes)),
            "license": {"name": "MIT OR Apache-2.0", "identifier": "MIT OR Apache-2.0"},
            "version": API_VERSION
        },
        // Relative: the host that serves the document. A server with WRENCH_PUBLIC_URL set
        // writes that URL here instead (see `with_public_url`).
        "servers": [{"url": "/", "description": "The server that serves this document."}],
        "paths": paths,
        "components": {
            "schemas": schemas,
            "responses": responses,
            "headers": errors::headers(),
            "securitySchemes": {
                "apiKey": {
                    "type": "apiKey",
                    "in": "header",
                    "name": "X-API-Key",
                    "description": "An API key. Optional: without one you call anonymously."
                },
                "bearerAuth": {"type": "http", "scheme": "bearer"}
            }
        },
        // Anonymous calls are allowed: the empty requirement makes the key optional.
        "security": [{}, {"apiKey": []}, {"bearerAuth": []}],
        "tags": tags
    })
}

/// The schema `true` ("any JSON value", as the items of an array of documents) written `{}`:
/// the same schema in JSON Schema, and the only form SDK generators such as
/// openapi-python-client read. `additionalProperties: true` keeps its boolean.
fn any_value_as_object(v: &mut Value) {
    match v {
        Value::Object(o) => {
            for (k, child) in o.iter_mut() {
                // Examples, defaults and enumerations are data, not schemas.
                if matches!(k.as_str(), "default" | "examples" | "example" | "const" | "enum") {
                    continue;
                }
                if child == &Value::Bool(true) && matches!(k.as_str(), "items" | "not" | "contains") {
                    *child = json!({});
                } else if k == "properties" {
                    if let Value::Object(props) = child {
                        for p in props.values_mut() {
                            if p == &Value::Bool(true) {
                                *p = json!({});
                            } else {
                                any_value_as_object(p);
                            }
                        }
                    }
                } else {
                    any_value_as_object(child);
                }
            }
        }
        Value::Array(items) => items.iter_mut().for_each(any_value_as_object),
        _ => {}
    }
}

/// `doc` with its `servers` entry set to the public URL a deployment is reached at.
pub fn with_public_url(mut doc: Value, public_url: &str) -> Value {
    if !public_url.is_empty() {
        doc["servers"] = json!([{"url": public_url.trim_end_matches('/'), "description": "This deployment."}]);
    }
    doc
}

/// The schemas `roots` refer to, directly or through other schemas, sorted by name. A query
/// route's input is described by its parameters, so its own schema would otherwise be left
/// behind with nothing referring to it.
fn reachable(mut schemas: Map<String, Value>, roots: &[&Value]) -> Map<String, Value> {
    fn refs<'a>(v: &'a Value, out: &mut Vec<&'a str>) {
        match v {
            Value::Object(map) => {
                if let Some(name) =
                    map.get("$ref").and_then(Value::as_str).and_then(|r| r.strip_prefix("#/components/schemas/"))
                {
                    out.push(name);
                }
                map.values().for_each(|c| refs(c, out));
            }
            Value::Array(items) => items.iter().for_each(|c| refs(c, out)),
            _ => {}
        }
    }
    let mut todo: Vec<String> = Vec::new();
    for root in roots {
        let mut found = Vec::new();
        refs(root, &mut found);
        todo.extend(found.into_iter().map(str::to_string));
    }
    let mut kept = BTreeMap::new();
    while let Some(name) = todo.pop() {
        if kept.contains_key(&name) {
            continue;
        }
        if let Some(schema) = schemas.remove(&name) {
            let mut found = Vec::new();
            refs(&schema, &mut found);
            todo.extend(found.into_iter().map(str::to_string));
            kept.insert(name, schema);
        }
    }
    kept.into_iter().collect()
}

fn meta_schema() -> Value {
    json!({
        "type": "object",
        "required": ["requestId", "duration"],
        "properties": {
            "requestId": {"type": "string", "description": "Request identifier, also sent as X-Request-Id."},
            "duration": {"type": "number", "minimum": 0, "description": "Time spent on the request, in milliseconds."}
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn servers_are_relative_unless_a_public_url_is_set() {
        let doc = json!({"servers": [{"url": "/"}]});
        assert_eq!(with_public_url(doc.clone(), "")["servers"][0]["url"], "/");
        assert_eq!(with_public_url(doc, "https://api.example.com/")["servers"][0]["url"], "https://api.example.com");
    }
}
