//! The OpenAPI 3.1 document, assembled from the registry of operations.
//!
//! The skeleton (info, tags, security schemes, paths, operations, request bodies, responses)
//! is built with utoipa's builders. Schemas are never routed through utoipa's typed `Schema`:
//! schemars writes JSON Schema 2020-12 (OpenAPI 3.1's dialect) and its output is spliced into
//! `components.schemas` as raw JSON, which keeps `const`, `oneOf` and `type: [.., "null"]`
//! intact. Error responses are rendered from the same `ErrorCode` enum the server answers
//! with, so the document cannot promise a code the server never sends or miss one it does.
//!
//! The output is deterministic (stable key order), because `openapi/openapi.json` is checked
//! in and a test compares it with this function's output.

use std::collections::BTreeMap;

use schemars::{Schema, SchemaGenerator, generate::SchemaSettings};
use serde_json::{Map, Value, json};
use utoipa::openapi::{
    ContentBuilder, HttpMethod as UHttpMethod, InfoBuilder, LicenseBuilder, OpenApiBuilder, PathItem, PathsBuilder,
    Ref, Required, ResponseBuilder,
    path::OperationBuilder,
    request_body::RequestBodyBuilder,
    response::ResponsesBuilder,
    schema::ComponentsBuilder,
    security::{ApiKey, ApiKeyValue, Http, HttpAuthScheme, SecurityScheme},
    tag::TagBuilder,
};

use crate::{
    envelope::ErrorCode,
    op::{HttpMethod, InputKind, Operation, OutputKind},
};

/// The API version of the contract (not the crate version).
pub const API_VERSION: &str = "1.0.0";

/// Tags in document order, with their descriptions. An operation's tag must be one of these.
pub const TAGS: &[(&str, &str)] = &[
    ("Text and data", "Encoding, formatting and converting text and structured data."),
    ("Developer utilities", "Hashes, identifiers, URLs, passwords, time, numbers and more."),
    ("Images", "Generated images: Open Graph cards, QR codes, placeholders, avatars, barcodes."),
    ("Security and validation", "Validators, encryption and one-time passwords."),
    ("Lookups", "DNS, IP, network and data-set lookups."),
    ("Storage", "Webhook inboxes, pastes and short links."),
];

const DESCRIPTION: &str = "\
wrench is a self-hostable HTTP API of developer utilities.

Every JSON response is an envelope: `{\"success\": true, \"data\": {...}, \"meta\": {\"requestId\", \"duration\"}}` \
on success and `{\"success\": false, \"error\": {\"code\", \"message\"}, \"meta\": {...}}` on failure. \
`meta.duration` is in milliseconds; `meta.requestId` is also sent as the `X-Request-Id` header.

Authentication is optional: send `X-API-Key: <key>` (or `Authorization: Bearer <key>`) to call \
as a key holder; without a key you call anonymously. A key that is sent but not valid is refused \
with 401 `UNAUTHORIZED`.

Request bodies are JSON (a missing `Content-Type` is read as JSON) and at most 1 MiB unless the \
operator configured another limit. Unknown fields are refused, so typos do not pass silently.";

fn settings() -> SchemaSettings {
    SchemaSettings::draft2020_12().with(|s| {
        s.definitions_path = "/components/schemas".into();
        s.meta_schema = None;
    })
}

fn pascal(id: &str) -> String {
    let mut c = id.chars();
    c.next().map(|f| f.to_ascii_uppercase().to_string() + c.as_str()).unwrap_or_default()
}

/// Name for a response-status group, used in descriptions.
fn status_title(status: u16) -> &'static str {
    match status {
        400 => "Bad request",
        401 => "Unauthorized",
        403 => "Forbidden",
        404 => "Not found",
        405 => "Method not allowed",
        409 => "Conflict",
        413 => "Payload too large",
        415 => "Unsupported media type",
        429 => "Too many requests",
        500 => "Internal error",
        502 => "Bad gateway",
        503 => "Service unavailable",
        504 => "Gateway timeout",
        _ => "Error",
    }
}

/// A `$ref` string for `schema`, registering it under `name` when schemars inlined it.
fn schema_ref(schema: Schema, name: String, extra: &mut Map<String, Value>) -> String {
    match schema.as_object().and_then(|o| o.get("$ref")).and_then(Value::as_str) {
        Some(r) => r.to_string(),
        None => {
            extra.insert(name.clone(), schema.to_value());
            format!("#/components/schemas/{name}")
        }
    }
}

fn error_response(codes: &[ErrorCode]) -> utoipa::openapi::Response {
    let status = codes[0].status().as_u16();
    let lines: Vec<String> = codes.iter().map(|c| format!("`{}`: {}", c.as_str(), c.describe())).collect();
    let mut b = ResponseBuilder::new()
        .description(format!("{}. {}", status_title(status), lines.join(" ")))
        .header("X-Request-Id", request_id_header());
    if codes.contains(&ErrorCode::RateLimited) {
        for (name, what) in [
            ("Retry-After", "Seconds until the exhausted window resets."),
            ("RateLimit-Limit", "Requests allowed in the tighter window (per minute or per day)."),
            ("RateLimit-Remaining", "Requests left in that window."),
            ("RateLimit-Reset", "Seconds until that window resets."),
        ] {
            b = b.header(name, integer_header(what));
        }
    }
    b.content("application/json", ContentBuilder::new().schema(Some(Ref::from_schema_name("ErrorEnvelope"))).build())
        .build()
}

fn integer_header(description: &str) -> utoipa::openapi::header::Header {
    utoipa::openapi::header::HeaderBuilder::new()
        .schema(Some(utoipa::openapi::schema::Object::with_type(utoipa::openapi::schema::Type::Integer)))
        .description(Some(description))
        .build()
}

fn request_id_header() -> utoipa::openapi::header::Header {
    utoipa::openapi::header::HeaderBuilder::new()
        .schema(Some(utoipa::openapi::schema::Object::with_type(utoipa::openapi::schema::Type::String)))
        .description(Some("The request identifier, also in `meta.requestId`."))
        .build()
}

/// Builds the whole document.
pub fn document(ops: &[Operation]) -> Value {
    let mut in_gen: SchemaGenerator = settings().for_deserialize().into_generator();
    let mut out_gen: SchemaGenerator = settings().for_serialize().into_generator();
    let mut extra = Map::new();
    let mut paths = PathsBuilder::new();
    // (path, method) -> query/path parameter schemas, patched in after serialization because
    // parameter schemas would otherwise go through utoipa's typed model.
    let mut query_inputs: Vec<(String, &'static str, String)> = Vec::new();
    let mut image_ops: Vec<(String, &'static str)> = Vec::new();
    // Operations that refuse some schema-valid input: marked with `x-rejects`, which contract
    // fuzzing reads to accept their documented 400s for such input.
    let mut rejecting: Vec<(String, &'static str, &'static str)> = Vec::new();
    // Request examples, written after serialization so they keep their declared order (the
    // first is what Swagger UI preselects); utoipa would sort them by name.
    let mut body_examples: Vec<(String, &'static str, Vec<crate::op::Example>)> = Vec::new();
    // Receive-anything operations: any body, path parameters as plain strings.
    let mut raw_inputs: Vec<(String, &'static str, Vec<&'static str>)> = Vec::new();

    for op in ops {
        let all_paths: Vec<(&str, String)> = std::iter::once((op.path, op.id.to_string()))
            .chain(op.aliases.iter().enumerate().map(|(i, a)| {
                (*a, if i == 0 { format!("{}Alias", op.id) } else { format!("{}Alias{}", op.id, i + 1) })
            }))
            .collect();
        let input =
            (op.input_schema)(&mut in_gen).map(|s| schema_ref(s, format!("{}Input", pascal(op.id)), &mut extra));
        let output =
            (op.output_schema)(&mut out_gen).map(|s| schema_ref(s, format!("{}Output", pascal(op.id)), &mut extra));
        let envelope_name = format!("{}Response", pascal(op.id));
        if let Some(out_ref) = &output {
            extra.insert(
                envelope_name.clone(),
                json!({
                    "type": "object",
                    "required": ["success", "data", "meta"],
                    "properties": {
                        "success": {"type": "boolean", "const": true},
                        "data": {"$ref": out_ref},
                        "meta": {"$ref": "#/components/schemas/Meta"}
                    }
                }),
            );
        }

        for (path, op_id) in all_paths {
            let mut description = op.description.to_string();
            if let Some(r) = op.rejects {
                rejecting.push((path.to_string(), op.method.lower(), r));
                if !description.is_empty() {
                    description.push_str("\n\n");
                }
                description.push_str(&format!("Refused with 400 `VALIDATION_ERROR`: {r}."));
            }
            let mut b = OperationBuilder::new()
                .operation_id(Some(op_id.clone()))
                .summary(Some(op.summary))
                .description(if description.is_empty() { None } else { Some(description) })
                .tag(op.tag);
            if let (InputKind::Body, Some(in_ref)) = (op.input, &input) {
                b = b.request_body(Some(
                    RequestBodyBuilder::new()
                        .required(Some(Required::True))
                        .content(
                            "application/json",
                            ContentBuilder::new().schema(Some(Ref::new(in_ref.clone()))).build(),
                        )
                        .build(),
                ));
            }
            if op.input == InputKind::Body {
                body_examples.push((path.to_string(), op.method.lower(), (op.examples)()));
            }
            if op.input == InputKind::Raw {
                raw_inputs.push((path.to_string(), op.method.lower(), op.path_params()));
            }
            if let (InputKind::Query, Some(in_ref)) = (op.input, &input) {
                query_inputs.push((path.to_string(), op.method.lower(), in_ref.clone()));
            }
            let mut responses = ResponsesBuilder::new();
            match op.output {
                OutputKind::Json => {
                    responses = responses.response(
                        "200",
                        ResponseBuilder::new()
                            .description("Success.")
                            .header("X-Request-Id", request_id_header())
                            .content(
                                "application/json",
                                ContentBuilder::new()
                                    .schema(Some(Ref::from_schema_name(envelope_name.clone())))
                                    .build(),
                            )
                            .build(),
                    )
                }
                OutputKind::Image => {
                    image_ops.push((path.to_string(), op.method.lower()));
                    responses = responses.response(
                        "200",
                        ResponseBuilder::new()
                            .description("The image.")
                            .header("X-Request-Id", request_id_header())
                            .build(),
                    )
                }
                OutputKind::Redirect => {
                    responses = responses.response(
                        "302",
                        ResponseBuilder::new()
                            .description("Redirect to the target in `Location`.")
                            .header("X-Request-Id", request_id_header())
                            .header(
                                "Location",
                                utoipa::openapi::header::HeaderBuilder::new()
                                    .schema(Some(utoipa::openapi::schema::Object::with_type(
                                        utoipa::openapi::schema::Type::String,
                                    )))
                                    .build(),
                            )
                            .build(),
                    )
                }
            }
            let mut by_status: BTreeMap<u16, Vec<ErrorCode>> = BTreeMap::new();
            for c in op.error_codes() {
                by_status.entry(c.status().as_u16()).or_default().push(c);
            }
            for (status, codes) in by_status {
                responses = responses.response(status.to_string(), error_response(&codes));
            }
            b = b.responses(responses.build());
            let method = match op.method {
                HttpMethod::Get => UHttpMethod::Get,
                HttpMethod::Post => UHttpMethod::Post,
                HttpMethod::Put => UHttpMethod::Put,
                HttpMethod::Patch => UHttpMethod::Patch,
                HttpMethod::Delete => UHttpMethod::Delete,
            };
            paths = paths.path(path, PathItem::new(method, b.build()));
        }
    }

    let components = ComponentsBuilder::new()
        .security_scheme(
            "apiKey",
            SecurityScheme::ApiKey(ApiKey::Header(ApiKeyValue::with_description(
                "X-API-Key",
                "An API key. Optional: without one you call anonymously.",
            ))),
        )
        .security_scheme("bearerAuth", SecurityScheme::Http(Http::new(HttpAuthScheme::Bearer)))
        .build();
    let doc = OpenApiBuilder::new()
        .info(
            InfoBuilder::new()
                .title("wrench")
                .version(API_VERSION)
                .description(Some(DESCRIPTION))
                .license(Some(
                    LicenseBuilder::new().name("MIT OR Apache-2.0").identifier(Some("MIT OR Apache-2.0")).build(),
                ))
                .build(),
        )
        .paths(paths.build())
        .components(Some(components))
        // Only tags that have an operation: a published tag with nothing under it is noise in
        // the UI and in generated SDKs.
        .tags(Some(
            TAGS.iter()
                .filter(|(name, _)| ops.iter().any(|o| o.tag == *name))
                .map(|(name, d)| TagBuilder::new().name(*name).description(Some(*d)).build()),
        ))
        .build();

    let mut doc = serde_json::to_value(&doc).expect("the document serializes");
    // Anonymous calls are allowed: an empty requirement makes the key optional.
    doc["security"] = json!([{}, {"apiKey": []}, {"bearerAuth": []}]);

    let mut schemas = Map::new();
    schemas.insert("Meta".into(), meta_schema());
    schemas.insert("ErrorBody".into(), error_body_schema());
    schemas.insert(
        "ErrorEnvelope".into(),
        json!({
            "type": "object",
            "required": ["success", "error", "meta"],
            "properties": {
                "success": {"type": "boolean", "const": false},
                "error": {"$ref": "#/components/schemas/ErrorBody"},
                "meta": {"$ref": "#/components/schemas/Meta"}
            }
        }),
    );
    let in_defs = in_gen.take_definitions(true);
    let out_defs = out_gen.take_definitions(true);
    for (k, v) in in_defs.into_iter().chain(out_defs).chain(extra) {
        if let Some(prev) = schemas.get(&k) {
            assert_eq!(prev, &v, "two schemas are both named {k}; rename one of the types");
        }
        schemas.insert(k, v);
    }
    // Sort for a stable, reviewable document.
    let mut sorted: Vec<(String, Value)> = schemas.into_iter().collect();
    sorted.sort_by(|a, b| a.0.cmp(&b.0));
    doc["components"]["schemas"] = Value::Object(sorted.into_iter().collect());

    for (path, method, in_ref) in query_inputs {
        let params = parameters(&doc, &path, &in_ref);
        doc["paths"][&path][method]["parameters"] = Value::Array(params);
    }
    for (path, method, params) in raw_inputs {
        let op = &mut doc["paths"][&path][method];
        op["requestBody"] = json!({
            "description": "Any body of any media type, stored as received.",
            "required": false,
            "content": {"*/*": {"schema": {}}}
        });
        op["parameters"] = Value::Array(
            params
                .iter()
                .map(|p| json!({"name": p, "in": "path", "required": true, "schema": {"type": "string"}}))
                .collect(),
        );
    }
    // An empty body is read as `{}`: a body is required only when the input has required fields.
    for (path, item) in doc["paths"].clone().as_object().into_iter().flatten() {
        for (method, op) in item.as_object().into_iter().flatten() {
            let Some(r) = op["requestBody"]["content"]["application/json"]["schema"]["$ref"].as_str() else { continue };
            let name = r.rsplit('/').next().unwrap_or_default();
            let has_required = doc["components"]["schemas"][name]["required"].as_array().is_some_and(|a| !a.is_empty());
            doc["paths"][path][method]["requestBody"]["required"] = Value::Bool(has_required);
        }
    }
    for (path, method, examples) in body_examples {
        let mut map = Map::new();
        for e in examples {
            let words = e.name.replace('_', " ");
            let summary = if e.status == 200 { words } else { format!("{words} ({})", e.status) };
            map.insert(e.name.to_string(), json!({"summary": summary, "value": e.input}));
        }
        doc["paths"][&path][method]["requestBody"]["content"]["application/json"]["examples"] = Value::Object(map);
    }
    for (path, method, r) in rejecting {
        doc["paths"][&path][method]["x-rejects"] = Value::String(r.to_string());
    }
    for (path, method) in image_ops {
        doc["paths"][&path][method]["responses"]["200"]["content"] = json!({
            "image/svg+xml": {"schema": {"type": "string"}},
            "image/png": {"schema": {"type": "string", "contentMediaType": "image/png", "contentEncoding": "binary"}},
            "text/plain": {"schema": {"type": "string", "description": "A data: URI of the image, for operations that offer a base64 format."}}
        });
    }
    doc
}

/// OpenAPI parameters for the properties of a query-decoded input type.
fn parameters(doc: &Value, path: &str, in_ref: &str) -> Vec<Value> {
    let name = in_ref.rsplit('/').next().unwrap_or_default();
    let schema = &doc["components"]["schemas"][name];
    let required: Vec<&str> =
        schema["required"].as_array().map(|a| a.iter().filter_map(Value::as_str).collect()).unwrap_or_default();
    let mut out = Vec::new();
    if let Some(props) = schema["properties"].as_object() {
        for (prop, s) in props {
            let in_path = path.contains(&format!("{{{prop}}}"));
            let mut s = s.clone();
            let description = s.as_object_mut().and_then(|o| o.remove("description"));
            let mut p = json!({
                "name": prop,
                "in": if in_path { "path" } else { "query" },
                "required": in_path || required.contains(&prop.as_str()),
                "schema": s,
            });
            if let Some(d) = description {
                p["description"] = d;
            }
            out.push(p);
        }
    }
    out
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

fn error_body_schema() -> Value {
    let codes: Vec<&str> = ErrorCode::ALL.iter().map(|c| c.as_str()).collect();
    let table: Vec<String> = ErrorCode::ALL
        .iter()
        .map(|c| format!("- `{}` ({}): {}", c.as_str(), c.status().as_u16(), c.describe()))
        .collect();
    json!({
        "type": "object",
        "required": ["code", "message"],
        "properties": {
            "code": {"type": "string", "enum": codes, "description": format!("Machine-readable code; each is always sent with the same status.\n\n{}", table.join("\n"))},
            "message": {"type": "string", "description": "Human-readable explanation, naming the field at fault."},
            "field": {"type": "string", "description": "The input field at fault, as the client spelled it (VALIDATION_ERROR)."},
            "line": {"type": "integer", "minimum": 1, "description": "Line of the syntax error (INVALID_JSON)."},
            "column": {"type": "integer", "minimum": 1, "description": "Column of the syntax error (INVALID_JSON)."}
        }
    })
}
