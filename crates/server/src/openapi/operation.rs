//! One route of an operation as an OpenAPI operation object, built once from its descriptor.
//!
//! Where the input is read decides the shape: a JSON request body (with the declared examples,
//! in declared order, because Swagger UI preselects the first), query and path parameters
//! (one per property of the input schema), or any body at all for receive-anything routes.

use serde_json::{Map, Value, json};

use super::errors;
use wrench_contract::op::{InputKind, Operation, OutputKind, Route};
use wrench_path_template::{PathTemplate, Segment};

/// The input schema of an operation as the document holds it.
pub(super) struct InputSchema<'a> {
    /// What to write where the schema is used: a `$ref`, or the schema itself.
    pub(super) reference: &'a Value,
    /// The schema with its `$ref` followed, to read properties and requirements from.
    pub(super) resolved: &'a Value,
}

pub(super) fn operation(op: &Operation, route: &Route, input: Option<&InputSchema>, envelope: Option<&str>) -> Value {
    let mut o = Map::new();
    o.insert("tags".into(), json!([op.tag.name()]));
    o.insert("summary".into(), json!(op.summary));
    let mut description = op.description.to_string();
    if let Some(r) = op.rejects {
        if !description.is_empty() {
            description.push_str("\n\n");
        }
        description.push_str(&format!("Refused with 400 `VALIDATION_ERROR`: {r}."));
    }
    if !description.is_empty() {
        o.insert("description".into(), json!(description));
    }
    o.insert("operationId".into(), json!(route.id));
    let template = route.template();
    match (route.input, input) {
        (InputKind::Query, Some(input)) => {
            o.insert("parameters".into(), Value::Array(parameters(&template, input.resolved)));
        }
        (InputKind::Body, Some(input)) if template.params().next().is_some() => {
            // The path's parameters are fields of the input, written in the path: the
            // parameters describe them, and the body's schema is the input without them.
            let mut body = input.resolved.clone();
            let mut in_path = json!({"properties": {}, "required": []});
            if let Some(props) = body.get_mut("properties").and_then(Value::as_object_mut) {
                for p in template.params() {
                    if let Some(s) = props.remove(p) {
                        in_path["properties"][p] = s;
                    }
                }
            }
            if let Some(required) = body.get_mut("required").and_then(Value::as_array_mut) {
                required.retain(|r| r.as_str().is_none_or(|r| !template.has_param(r)));
            }
            // An empty list is no list in OpenAPI 3.0's schema object.
            if body.get("required").and_then(Value::as_array).is_some_and(Vec::is_empty)
                && let Some(o) = body.as_object_mut()
            {
                o.remove("required");
            }
            o.insert("parameters".into(), Value::Array(parameters(&template, &in_path)));
            let inline = InputSchema { reference: &body, resolved: &body };
            o.insert("requestBody".into(), json_body(op, &inline));
        }
        (InputKind::Body, Some(input)) => {
            o.insert("requestBody".into(), json_body(op, input));
        }
        (InputKind::Raw, _) => {
            o.insert("parameters".into(), Value::Array(parameters(&template, &json!({}))));
            o.insert(
                "requestBody".into(),
                // Declared as bytes, the one body type every generator can send as is; the
                // route stores a body of any media type with the Content-Type it came with.
                json!({
                    "description": "Any body, stored as received with its Content-Type: send JSON, a form, text or bytes under any media type.",
                    "required": false,
                    "content": {"application/octet-stream": {"schema": {"type": "string", "format": "binary"}}}
                }),
            );
        }
        _ => {}
    }
    let mut responses = Map::new();
    let (status, mut success) = success(op, envelope);
    if op.revalidated {
        success["headers"]["ETag"] =
            json!({"description": "The answer's entity tag, for `If-None-Match`.", "schema": {"type": "string"}});
        responses.insert(
            "304".into(),
            json!({
                "description": "Not modified: `If-None-Match` holds the current `ETag`; there is no body.",
                "headers": {
                    "X-Request-Id": {"$ref": "#/components/headers/X-Request-Id"},
                    "ETag": {"description": "The current entity tag.", "schema": {"type": "string"}}
                }
            }),
        );
    }
    responses.insert(status.into(), success.clone());
    // A redirect answers with the status its target chose (a short link's redirectStatus).
    if op.output == OutputKind::Redirect {
        for other in ["301", "307", "308"] {
            responses.insert(other.into(), success.clone());
        }
    }
    // An answer of any type is one its caller configured (a webhook inbox's `response`): any
    // status, headers and body, so every status may carry it.
    let configured = op.output == OutputKind::Raw && op.media.contains(&"*/*");
    if configured {
        responses.insert(
            "default".into(),
            // No content is declared: its media type is the configured one, which generators
            // could not name anyway.
            json!({
                "description": "The answer this resource was configured to give: any status from 200 to 599, with its own header fields and a body of its own media type."
            }),
        );
        o.insert("x-configured-answer".into(), json!(true));
    }
    for (status, codes) in errors::by_status(&op.error_codes(route)) {
        responses.insert(
            status.to_string(),
            json!({"$ref": format!("#/components/responses/{}", errors::group_name(&codes))}),
        );
    }
    o.insert("responses".into(), Value::Object(responses));
    if let Some(r) = op.rejects {
        // Contract fuzzing reads this to accept the documented 400 for such input.
        o.insert("x-rejects".into(), json!(r));
    }
    Value::Object(o)
}

/// A JSON request body. It is required only when `{}` would not do: an empty body is read as
/// `{}`, so operations whose fields are all optional can be called with none.
fn json_body(op: &Operation, input: &InputSchema) -> Value {
    let mut examples = Map::new();
    for e in (op.examples)() {
        let words = e.name.replace('_', " ");
        let summary = if e.status == 200 { words } else { format!("{words} ({})", e.status) };
        examples.insert(e.name.to_string(), json!({"summary": summary, "value": e.input}));
    }
    json!({
        "required": requires_something(input.resolved),
        "content": {"application/json": {"schema": input.reference, "examples": examples}}
    })
}

/// Whether an object schema refuses `{}`: it has required members, directly or in each branch
/// of a composition.
fn requires_something(schema: &Value) -> bool {
    let direct = schema["required"].as_array().is_some_and(|r| !r.is_empty());
    let in_all = schema["allOf"].as_array().is_some_and(|all| all.iter().any(requires_something));
    let in_one = ["oneOf", "anyOf"]
        .iter()
        .any(|k| schema[*k].as_array().is_some_and(|branches| branches.iter().all(requires_something)));
    direct || in_all || in_one
}

/// One parameter per property of the input schema: in the path when the template names it, in
/// the query string otherwise. Path parameters the schema does not describe are strings.
fn parameters(template: &PathTemplate, schema: &Value) -> Vec<Value> {
    let required: Vec<&str> =
        schema["required"].as_array().map(|a| a.iter().filter_map(Value::as_str).collect()).unwrap_or_default();
    let props = schema["properties"].as_object().cloned().unwrap_or_default();
    let mut out = Vec::new();
    for segment in template.segments() {
        match segment {
            Segment::Param(p) if !props.contains_key(*p) => {
                out.push(json!({"name": p, "in": "path", "required": true, "schema": {"type": "string"}}));
            }
            Segment::Rest(p) if !props.contains_key(*p) => out.push(json!({
                "name": p, "in": "path", "required": true, "schema": {"type": "string"},
                "description": "The rest of the path, which may hold `/`: sent as it is or percent-encoded (`%2F`), it is recorded decoded."
            })),
            _ => {}
        }
    }
    for (name, mut s) in props {
        let in_path = template.has_param(&name);
        let mut description = s.as_object_mut().and_then(|o| o.remove("description"));
        if let Some(of) = s.get("x-alias-of").and_then(Value::as_str) {
            // Parameters cannot exclude each other; the query decoder reads the first spelling.
            description = Some(json!(format!("Another spelling of `{of}`; when both are given, `{of}` is used.")));
        }
        let mut p = Map::new();
        p.insert("name".into(), json!(name));
        p.insert("in".into(), json!(if in_path { "path" } else { "query" }));
        if let Some(d) = description {
            p.insert("description".into(), d);
        }
        p.insert("required".into(), json!(in_path || required.contains(&name.as_str())));
        p.insert("schema".into(), s);
        out.push(Value::Object(p));
    }
    out
}

/// The success response: status and object.
fn success(op: &Operation, envelope: Option<&str>) -> (&'static str, Value) {
    let request_id = json!({"X-Request-Id": {"$ref": "#/components/headers/X-Request-Id"}});
    match op.output {
        OutputKind::Json => {
            let schema = envelope.map_or_else(|| json!({}), |e| json!({"$ref": format!("#/components/schemas/{e}")}));
            (
                "200",
                json!({
                    "description": "Success.",
                    "headers": request_id,
                    "content": {"application/json": {"schema": schema}}
                }),
            )
        }
        OutputKind::Image => (
            "200",
            json!({
                "description": "The image.",
                "headers": request_id,
                "content": super::samples::image_content(op)
            }),
        ),
        OutputKind::Raw => {
            let content: Map<String, Value> =
                op.media
                    .iter()
                    .map(|m| {
                        let schema = match *m {
                            "text/event-stream" => stream_event_schema(),
                            "application/json" => envelope
                                .map_or_else(|| json!({}), |e| json!({"$ref": format!("#/components/schemas/{e}")})),
                            _ => json!({"type": "string", "format": "binary"}),
                        };
                        (m.to_string(), json!({"schema": schema}))
                    })
                    .collect();
            (
                "200",
                json!({"description": "The answer, as described above.", "headers": request_id, "content": content}),
            )
        }
        OutputKind::Redirect => (
            "302",
            json!({
                "description": "Redirect to the target in `Location`.",
                "headers": {
                    "X-Request-Id": {"$ref": "#/components/headers/X-Request-Id"},
                    "Location": {"description": "The target URL.", "schema": {"type": "string"}}
                }
            }),
        ),
    }
}

/// What one event of a `text/event-stream` answer holds, as an SSE client reads it (before
/// Open API 3.2, a stream's `schema` describes each event, not the whole text): every event
/// wrench sends names itself and carries JSON data; `id` is the number to resume after.
fn stream_event_schema() -> Value {
    json!({
        "type": "object",
        "description": "One event of the stream: its name, the number to resume after (`id`, \
            sent back as `Last-Event-ID`) and its data, one JSON value.",
        "required": ["event", "data"],
        "properties": {
            "event": {"type": "string", "minLength": 1},
            "id": {"type": "string", "pattern": "^[0-9]+$"},
            "data": {"type": "string", "contentMediaType": "application/json"},
            "retry": {"type": "integer", "minimum": 0}
        },
        "additionalProperties": false
    })
}
