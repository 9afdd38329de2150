//! Every operation as an MCP tool, derived from the same registry as the routes and the
//! document: the name is the operationId, the description the summary and doc comment, the
//! input schema the operation's input type, the output schema its result type when the result
//! is JSON. A new operation is a new tool with no code of its own.
//!
//! Tool schemas must stand alone (a client reads one tool at a time), so subschemas are inlined
//! and a recursive type keeps its definitions under the tool's own `$defs`. Closed sets of
//! strings are plain enums, as in the document.

use std::{collections::HashMap, sync::Arc};

use schemars::{SchemaGenerator, generate::SchemaSettings};
use serde_json::{Map, Value, json};

use wrench_contract::op::{InputKind, Operation, OutputKind, Route};

/// What a tool call is sent to: one route of one operation.
pub(crate) struct Target {
    pub(crate) route: Route,
    pub(crate) output: OutputKind,
    /// Path parameters the input type does not hold (added to the tool's schema): they go in
    /// the path only, never also in the body.
    pub(crate) injected: Vec<&'static str>,
}

/// The tools and where each call goes.
pub(crate) struct Catalogue {
    pub(crate) tools: Vec<rmcp::model::Tool>,
    pub(crate) targets: HashMap<String, Target>,
}

/// The MCP tools `ops` make, as `tools/list` lists them.
pub fn tools_of(ops: &[Operation]) -> Vec<rmcp::model::Tool> {
    catalogue(ops).tools
}

fn settings() -> SchemaSettings {
    SchemaSettings::draft2020_12().with(|s| {
        s.inline_subschemas = true;
        s.definitions_path = "/$defs".into();
        s.meta_schema = None;
        s.transforms.push(Box::new(crate::openapi::PlainEnums));
    })
}

/// The schema `schema_fn` gives, standing alone: inlined, with any definitions it still needs
/// under `$defs`.
pub(crate) fn standalone(schema_fn: wrench_contract::op::SchemaFn, serialize: bool) -> Option<Map<String, Value>> {
    let mut generator: SchemaGenerator =
        if serialize { settings().for_serialize() } else { settings().for_deserialize() }.into_generator();
    let mut schema = schema_fn(&mut generator)?;
    // Settings' transforms reach only the definitions a generator hands out; an inlined
    // schema is transformed here.
    schemars::transform::Transform::transform(&mut crate::openapi::PlainEnums, &mut schema);
    let mut object = schema.to_value().as_object()?.clone();
    let definitions = generator.take_definitions(true);
    if !definitions.is_empty() {
        object.insert("$defs".into(), Value::Object(definitions));
    }
    Some(object)
}

/// The route a tool calls: the JSON-body form when the operation has one (it carries every
/// input type), else its main route.
fn route_of(op: &Operation) -> Route {
    *op.routes.iter().find(|r| r.input == InputKind::Body).unwrap_or(&op.routes[0])
}

fn input_schema(op: &Operation, route: &Route) -> (Map<String, Value>, Vec<&'static str>) {
    let mut schema =
        if route.input == InputKind::Raw { Map::new() } else { standalone(op.input_schema, false).unwrap_or_default() };
    schema.insert("type".into(), json!("object"));
    let properties = schema.entry("properties").or_insert_with(|| json!({}));
    let mut injected = Vec::new();
    if let Some(props) = properties.as_object_mut() {
        for p in route.template().params() {
            if !props.contains_key(p) {
                props
                    .insert(p.to_string(), json!({"type": "string", "description": format!("The `{p}` of the path.")}));
                injected.push(p);
            }
        }
        if route.input == InputKind::Raw {
            props.insert(
                "body".into(),
                json!({"type": "string", "description": "The body to deliver, as text (stored as received)."}),
            );
            props.insert(
                "contentType".into(),
                json!({"type": "string", "default": "application/json", "description": "The Content-Type to deliver it with."}),
            );
        }
    }
    if !injected.is_empty() {
        let required = schema.entry("required").or_insert_with(|| json!([]));
        if let Some(r) = required.as_array_mut() {
            r.extend(injected.iter().map(|p| json!(p)));
        }
    }
    (schema, injected)
}

/// The catalogue of `ops`, in their order.
pub(crate) fn catalogue(ops: &[Operation]) -> Catalogue {
    let mut tools = Vec::new();
    let mut targets = HashMap::new();
    // A stream never ends, and a tool call waits for its end: streams are not tools. Nor is
    // an operation served only to HEAD, whose answer is headers alone.
    let headers_only = |op: &Operation| op.routes.iter().all(|r| r.method == wrench_contract::op::HttpMethod::Head);
    for op in ops.iter().filter(|op| !op.media.contains(&"text/event-stream") && !headers_only(op)) {
        let route = route_of(op);
        let (input, injected) = input_schema(op, &route);
        let description = if op.description.is_empty() {
            op.summary.to_string()
        } else {
            format!("{}\n\n{}", op.summary, op.description)
        };
        let mut tool = rmcp::model::Tool::new(op.id(), description, Arc::new(input)).with_title(op.summary);
        if op.output == OutputKind::Json
            && let Some(output) = standalone(op.output_schema, true)
            && output.get("type") == Some(&json!("object"))
        {
            tool = tool.with_raw_output_schema(Arc::new(output));
        }
        tools.push(tool);
        targets.insert(op.id().to_string(), Target { route, output: op.output, injected });
    }
    Catalogue { tools, targets }
}

/// A query string from a JSON object: each member as text (strings as they are, anything else
/// as JSON), as the query forms read them. Tool calls and recipe steps both build theirs with
/// it.
pub(crate) fn query_of(input: &Map<String, Value>) -> String {
    let mut query = form_urlencoded::Serializer::new(String::new());
    for (k, v) in input {
        query.append_pair(k, &v.as_str().map_or_else(|| v.to_string(), str::to_string));
    }
    query.finish()
}
