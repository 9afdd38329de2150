//! What the recipe operations need from the server that runs them: the catalog of every
//! operation (the same registry the document and the MCP tools come from, with the same
//! schemas), and a way to run one operation as a step, for the caller of the request that
//! holds the recipe.
//!
//! The operations live in `ops/`, the registry and the pipeline in the server: the server puts
//! a `Steps` into every request's context (`Ctx::steps`, beside the context in `op.rs`), and a
//! recipe operation reaches the others only through it; this module holds what it answers. A step is therefore never a second
//! implementation of anything: it runs the operation's own decoder, validation and code, is
//! charged against the caller's rate limit like a call, and keeps the operation's own bounds.

use std::collections::HashMap;

use schemars::JsonSchema;
use serde::Serialize;
use serde_json::{Map, Value};

/// What one step answered: its `data`, and the size of that data as the operation wrote it.
#[derive(Debug, Clone)]
pub struct StepAnswer {
    pub data: Value,
    pub bytes: usize,
}

/// One operation as the catalog describes it.
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(rename = "OperationEntry")]
pub struct Entry {
    /// The operationId of the operation's main route.
    pub operation_id: String,
    /// The main route's method.
    pub method: String,
    /// The main route's path template.
    pub path: String,
    /// Every route the operation answers on (a GET form beside a POST form, an alias).
    pub routes: Vec<EntryRoute>,
    /// One line: what it does.
    pub summary: String,
    /// The longer description, as in the document (empty when there is none).
    pub description: String,
    /// The document's tag (group) of the operation.
    pub tag: String,
    /// The schema of the operation's input, standing alone (subschemas inlined, recursive ones
    /// under `$defs`); the same as the document's once its references are followed. `null` for
    /// an operation that takes no input or reads a raw body.
    pub input_schema: Option<Map<String, Value>>,
    /// The name of the main route's JSON body schema among the document's components, which
    /// SDK generators name the body's type after (`Base64EncodeInput`); `null` when the main
    /// route takes no JSON body.
    pub input_schema_name: Option<String>,
    /// How the main route takes its input: a JSON body (`json`), the query string (`query`),
    /// the raw request body as it comes (`raw`), or nothing beyond its path (`none`).
    pub input_kind: EntryInput,
    /// The schema of the operation's `data` on success, standing alone; `null` when the answer
    /// is not JSON (an image, a redirect, a raw body).
    pub output_schema: Option<Map<String, Value>>,
    /// What a success answers with: the envelope (`json`), image bytes (`image`), a redirect
    /// (`redirect`), or a body the operation writes itself (`raw`).
    pub output_kind: EntryOutput,
    /// Every error code the operation can answer with.
    pub error_codes: Vec<String>,
    /// Whether a recipe step may run it: a JSON answer, no stored state, not a stream, and not
    /// itself a recipe operation.
    pub recipeable: bool,
    /// Whether it contacts other hosts (the address policy and provider budgets apply).
    pub network: bool,
    /// Whether it reads or writes the store.
    pub stateful: bool,
    /// The input field a recipe's pipe form feeds (the previous step's primary output), when
    /// the operation declares one.
    pub primary_input: Option<String>,
    /// The output field a recipe's pipe form passes on, when the operation declares one.
    pub primary_output: Option<String>,
    /// The declared examples: their inputs and the status each answers with.
    pub examples: Vec<EntryExample>,
}

/// How a catalog entry's main route takes its input.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
#[schemars(rename = "OperationInputKind")]
pub enum EntryInput {
    Json,
    Query,
    Raw,
    None,
}

/// What a catalog entry's success answers with.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
#[schemars(rename = "OperationOutputKind")]
pub enum EntryOutput {
    Json,
    Image,
    Redirect,
    Raw,
}

/// One route of a catalog entry.
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(rename = "OperationRoute")]
pub struct EntryRoute {
    pub method: String,
    pub path: String,
    pub operation_id: String,
}

/// One declared example of a catalog entry.
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[schemars(rename = "OperationExample")]
pub struct EntryExample {
    pub name: String,
    pub input: Value,
    pub status: u16,
}

/// The catalog: every entry in the document's order, found by any of its operationIds, and
/// the tag that changes when any of it does.
#[derive(Debug, Clone)]
pub struct Catalog {
    pub entries: Vec<Entry>,
    /// A strong validator of the entries (`"…"`, quotes included), for `ETag`.
    pub etag: String,
    index: HashMap<String, usize>,
}

impl Catalog {
    pub fn new(entries: Vec<Entry>, etag: String) -> Catalog {
        let index = entries
            .iter()
            .enumerate()
            .flat_map(|(i, e)| e.routes.iter().map(move |r| (r.operation_id.clone(), i)))
            .collect();
        Catalog { entries, etag, index }
    }

    /// The entry that `operation_id` (any of its routes' ids) names.
    pub fn get(&self, operation_id: &str) -> Option<&Entry> {
        self.index.get(operation_id).map(|&i| &self.entries[i])
    }
}
