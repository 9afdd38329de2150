//! Recipe steps: the server's side of `wrench_contract::op::Steps`. It describes every operation
//! for the catalog (with the document's own schemas, made to stand alone) and runs one
//! operation as a step of a recipe.
//!
//! A step calls the operation's own handler, as the pipeline does, with the JSON input the
//! recipe built: the operation's decoder, validation, bounds and code are the ones a single
//! call meets. What the pipeline adds around a call is added here too: the caller's rate
//! limit (each step after the first counts as one request), the operation's body limit
//! (measured on the input as JSON), panics caught as a 500, and the per-operation metrics.
//! The caller, its address, its headers and the outbound layer are the recipe request's, so a
//! network step keeps the address policy and the provider budgets.

use std::{
    collections::HashMap,
    panic::AssertUnwindSafe,
    sync::{Arc, OnceLock},
    time::Instant,
};

use futures_util::FutureExt;
use serde_json::{Map, Value};
use sha2::Digest;

use wrench_contract::{
    op::{BoxStep, Ctx, HttpMethod, InputKind, OpRequest, Operation, OutputKind, Reply, Route, Steps, Tag, Uses},
    recipes::{Catalog, Entry, EntryExample, EntryInput, EntryOutput, EntryRoute, StepAnswer},
};
use wrench_infra::{
    config::Config,
    envelope::{ApiError, ErrorCode},
    store::Store,
};

/// Every operation, ready to run as a step.
pub(crate) struct Dispatcher {
    ops: Vec<Arc<Operation>>,
    /// Every route's operationId: the operation and the route a step of it is sent through.
    by_id: HashMap<&'static str, (usize, Route)>,
    catalog: OnceLock<Catalog>,
    config: Arc<Config>,
    store: Arc<dyn Store>,
    /// The document, which the catalog's schemas are taken from when first asked for.
    document: bytes::Bytes,
}

impl Dispatcher {
    pub(crate) fn new(
        ops: &[Operation],
        config: Arc<Config>,
        store: Arc<dyn Store>,
        document: bytes::Bytes,
    ) -> Dispatcher {
        let ops: Vec<Arc<Operation>> = ops.iter().cloned().map(Arc::new).collect();
        let mut by_id = HashMap::new();
        for (i, op) in ops.iter().enumerate() {
            if let Some(route) = step_route(op) {
                for r in op.routes {
                    by_id.insert(r.id, (i, route));
                }
            }
        }
        Dispatcher { ops, by_id, catalog: OnceLock::new(), config, store, document }
    }

    async fn run_step(
        &self,
        ctx: &Ctx,
        operation: &str,
        input: &Value,
        charge: bool,
        limit: usize,
    ) -> Result<StepAnswer, ApiError> {
        let Some(&(index, route)) = self.by_id.get(operation) else {
            return Err(ApiError::invalid("op", format!("there is no operation {operation:?} a step can run")));
        };
        let op = &self.ops[index];
        if !recipeable(op) {
            return Err(ApiError::invalid("op", format!("{operation} cannot be a recipe step")));
        }
        if charge {
            let c = &self.config;
            super::limits::check(
                self.store.as_ref(),
                &ctx.caller,
                ctx.client_ip,
                &c.api_keys,
                c.anon_quota,
                c.key_quota,
            )
            .await?;
        }
        let started = Instant::now();
        let mut request = OpRequest { input: route.input, ..OpRequest::default() };
        match route.input {
            InputKind::Body => {
                let body = serde_json::to_vec(input).map_err(|e| ApiError::internal(e.to_string()))?;
                let body_limit = op.body_limit.map_or(self.config.body_limit, |l| l.max(self.config.body_limit));
                if body.len() > body_limit {
                    return Err(ApiError::new(
                        ErrorCode::PayloadTooLarge,
                        format!("the step's input is {} bytes as JSON; the limit is {body_limit}", body.len()),
                    ));
                }
                request.body = body.into();
                request.content_type = Some("application/json".into());
            }
            InputKind::Query => request.query = super::mcp::tools::query_of(input.as_object().unwrap_or(&Map::new())),
            InputKind::None | InputKind::Raw => {}
        }
        let mut step_ctx = ctx.clone();
        if limit < self.config.response_limit {
            let mut config = (*self.config).clone();
            config.response_limit = limit;
            step_ctx.config = Arc::new(config);
        }
        let result = match AssertUnwindSafe((op.handler)(step_ctx, request)).catch_unwind().await {
            Ok(r) => r,
            Err(_) => {
                tracing::error!(request_id = %ctx.request_id, operation = route.id, "operation panicked in a recipe");
                Err(ApiError::internal(format!(
                    "the operation failed unexpectedly; this is a bug, reported with request id {}",
                    ctx.request_id
                )))
            }
        };
        let answer = match result {
            Ok(Reply::Json(bytes) | Reply::Tagged(bytes, _)) => serde_json::from_slice(&bytes)
                .map(|data| StepAnswer { data, bytes: bytes.len() })
                .map_err(|e| ApiError::internal(format!("the operation's answer is not JSON: {e}"))),
            Ok(_) => Err(ApiError::internal("the operation did not answer JSON")),
            Err(e) => Err(e),
        };
        let status = answer.as_ref().map_or_else(|e| e.status().as_u16(), |_| 200);
        wrench_infra::metrics::request(Some(route.id), status, started.elapsed());
        answer
    }
}

impl Steps for Dispatcher {
    fn catalog(&self) -> &Catalog {
        self.catalog.get_or_init(|| {
            let document: Value = serde_json::from_slice(&self.document).unwrap_or_default();
            catalog(&self.ops, &document)
        })
    }

    fn run<'a>(
        &'a self,
        ctx: &'a Ctx,
        operation: &'a str,
        input: &'a Value,
        charge: bool,
        limit: usize,
    ) -> BoxStep<'a> {
        Box::pin(self.run_step(ctx, operation, input, charge, limit))
    }
}

/// The route a step of `op` goes through: its JSON-body form when it has one (every input
/// type can be written in JSON), else a query form or one that takes nothing; never a raw or
/// a HEAD-only route.
fn step_route(op: &Operation) -> Option<Route> {
    let usable = |kind: InputKind| op.routes.iter().find(|r| r.input == kind && r.method != HttpMethod::Head).copied();
    usable(InputKind::Body).or_else(|| usable(InputKind::Query)).or_else(|| usable(InputKind::None))
}

/// Whether a recipe may run `op`: it answers JSON, keeps no state, is not a stream, has a
/// route a step can use, and is not itself a recipe operation (recipes do not nest).
pub(crate) fn recipeable(op: &Operation) -> bool {
    op.output == OutputKind::Json
        && !op.uses.contains(&Uses::Store)
        && !op.media.contains(&"text/event-stream")
        && op.tag != Tag::Recipes
        && step_route(op).is_some()
}

/// The catalog of `ops`, in their order, with a tag over all of it.
fn catalog(ops: &[Arc<Operation>], document: &Value) -> Catalog {
    let entries: Vec<Entry> = ops.iter().map(|op| entry(op, document)).collect();
    let digest = sha2::Sha256::digest(serde_json::to_vec(&entries).unwrap_or_default());
    Catalog::new(entries, format!("\"{}\"", hex::encode(&digest[..16])))
}

fn entry(op: &Operation, document: &Value) -> Entry {
    let main = op.routes[0];
    let route = step_route(op).unwrap_or(main);
    let in_document = |r: &Route| &document["paths"][r.path][r.method.lower()];
    // A JSON body's schema is the document's; a query form's is its input type's, which the
    // document spreads over parameters.
    let input_schema = match route.input {
        InputKind::Body => {
            alone(document, &in_document(&route)["requestBody"]["content"]["application/json"]["schema"])
        }
        InputKind::Query => super::mcp::tools::standalone(op.input_schema, false),
        InputKind::None | InputKind::Raw => None,
    };
    let output_schema = match op.output {
        OutputKind::Json | OutputKind::Raw => {
            let envelope = &in_document(&main)["responses"]["200"]["content"]["application/json"]["schema"];
            followed(document, envelope).and_then(|e| e["properties"].get("data")).and_then(|d| alone(document, d))
        }
        OutputKind::Image | OutputKind::Redirect => None,
    };
    // SDK generators name a JSON body's type after its schema's component.
    let input_schema_name = (main.input == InputKind::Body)
        .then(|| in_document(&main)["requestBody"]["content"]["application/json"]["schema"]["$ref"].as_str())
        .flatten()
        .and_then(|r| r.strip_prefix(COMPONENTS))
        .map(str::to_string);
    let input_kind = match main.input {
        InputKind::Body => EntryInput::Json,
        InputKind::Query => EntryInput::Query,
        InputKind::Raw => EntryInput::Raw,
        InputKind::None => EntryInput::None,
    };
    let output_kind = match op.output {
        OutputKind::Json => EntryOutput::Json,
        OutputKind::Image => EntryOutput::Image,
        OutputKind::Redirect => EntryOutput::Redirect,
        OutputKind::Raw => EntryOutput::Raw,
    };
    Entry {
        operation_id: main.id.to_string(),
        method: main.method.as_str().to_string(),
        path: main.path.to_string(),
        routes: op
            .routes
            .iter()
            .map(|r| EntryRoute {
                method: r.method.as_str().to_string(),
                path: r.path.to_string(),
                operation_id: r.id.to_string(),
            })
            .collect(),
        summary: op.summary.to_string(),
        description: op.description.to_string(),
        tag: op.tag.name().to_string(),
        input_schema,
        input_schema_name,
        input_kind,
        output_schema,
        output_kind,
        error_codes: op.error_codes(&route).iter().map(|c| c.as_str().to_string()).collect(),
        recipeable: recipeable(op),
        network: op.uses.iter().any(|u| matches!(u, Uses::Network | Uses::Provider)),
        stateful: op.uses.contains(&Uses::Store),
        primary_input: op.pipe.map(|p| p.input.to_string()),
        primary_output: op.pipe.map(|p| p.output.to_string()),
        examples: (op.examples)()
            .into_iter()
            .map(|e| EntryExample { name: e.name.to_string(), input: e.input, status: e.status })
            .collect(),
    }
}

/// `schema` from the document, standing alone: a reference at its root followed, and every
/// component it reaches, however deep, under its own `$defs` (`#/$defs/Name`), so that a
/// client can read one entry without the document. Following the references gives the
/// document's schema back.
fn alone(document: &Value, schema: &Value) -> Option<Map<String, Value>> {
    let root = followed(document, schema)?.clone();
    let components = &document["components"]["schemas"];
    let mut wanted = Vec::new();
    referenced(&root, &mut wanted);
    let mut defs = Map::new();
    while let Some(name) = wanted.pop() {
        if defs.contains_key(&name) {
            continue;
        }
        let def = components.get(&name)?.clone();
        referenced(&def, &mut wanted);
        defs.insert(name, def);
    }
    let mut out = match relinked(root) {
        Value::Object(m) => m,
        _ => return None,
    };
    if !defs.is_empty() {
        let defs = defs.into_iter().map(|(k, v)| (k, relinked(v))).collect();
        out.insert("$defs".into(), Value::Object(defs));
    }
    Some(out)
}

const COMPONENTS: &str = "#/components/schemas/";

/// The schema `schema` is, its root reference (if any) followed.
fn followed<'d>(document: &'d Value, schema: &'d Value) -> Option<&'d Value> {
    let mut here = schema;
    for _ in 0..8 {
        match here.get("$ref").and_then(Value::as_str).and_then(|r| r.strip_prefix(COMPONENTS)) {
            Some(name) => here = document["components"]["schemas"].get(name)?,
            None => return here.is_object().then_some(here),
        }
    }
    None
}

/// The component names `schema` refers to.
fn referenced(schema: &Value, out: &mut Vec<String>) {
    match schema {
        Value::Object(m) => {
            if let Some(name) = m.get("$ref").and_then(Value::as_str).and_then(|r| r.strip_prefix(COMPONENTS)) {
                out.push(name.to_string());
            }
            m.values().for_each(|v| referenced(v, out));
        }
        Value::Array(a) => a.iter().for_each(|v| referenced(v, out)),
        _ => {}
    }
}

/// `schema` with its references pointing into its own `$defs`.
fn relinked(schema: Value) -> Value {
    match schema {
        Value::Object(m) => Value::Object(
            m.into_iter()
                .map(|(k, v)| match (k.as_str(), v) {
                    ("$ref", Value::String(r)) => {
                        let target = r.strip_prefix(COMPONENTS).map_or(r.clone(), |n| format!("#/$defs/{n}"));
                        (k, Value::String(target))
                    }
                    (_, v) => (k, relinked(v)),
                })
                .collect(),
        ),
        Value::Array(a) => Value::Array(a.into_iter().map(relinked).collect()),
        other => other,
    }
}
