//! The catalog: every operation with its input and output schemas, error codes and what a
//! recipe can do with it, from the registry the document and the MCP tools come from. A
//! client builds recipes (and forms, and SDK-less calls) from it without reading the whole
//! document.

use wrench_contract::{
    op::Revalidated,
    prelude::*,
    recipes::{Catalog, Entry},
};

/// The version of the API the catalog describes (the document's `info.version`).
const API_VERSION: &str = "1.0.0";

#[derive(Debug, Deserialize, JsonSchema, Validate)]
#[serde(deny_unknown_fields)]
#[schemars(rename = "OperationListInput")]
struct ListInput {
    /// Only the operations of this tag, by its name as the document writes it (`Text and
    /// data`), compared without regard to case.
    #[serde(default)]
    #[schemars(length(min = 1, max = 64))]
    tag: Option<String>,
    /// Only the operations whose operationId, path, summary or description contain this text,
    /// compared without regard to case.
    #[serde(default)]
    #[schemars(length(min = 1, max = 200))]
    q: Option<String>,
    /// Only the operations a recipe can (`true`) or cannot (`false`) run.
    #[serde(default)]
    recipeable: Option<bool>,
}

#[derive(Debug, Serialize, JsonSchema)]
#[schemars(rename = "OperationListOutput")]
struct ListOutput {
    /// The API version the entries describe.
    version: &'static str,
    /// A tag of the whole catalog, which changes whenever any entry does (also the
    /// answer's `ETag`).
    etag: String,
    /// How many operations matched.
    count: usize,
    operations: Vec<Entry>,
}

fn catalog(ctx: &Ctx) -> Result<&Catalog, ApiError> {
    ctx.steps
        .as_deref()
        .map(|s| s.catalog())
        .ok_or_else(|| ApiError::internal("the catalog is served only by a server"))
}

/// List the operations, with their schemas.
///
/// Every operation of this server: its operationId, method and path (and any other routes), summary and
/// description, tag, input and output schemas (each standing alone: the document's, with
/// references followed), the error codes it can answer, its examples, and for recipes whether
/// a step can run it, whether it reaches the network or the store, and the fields a recipe's
/// pipe form connects (`primaryInput`, `primaryOutput`). Filter by `tag`, by text with `q`,
/// and by `recipeable`. The answer carries the catalog's `ETag` (it changes with the build),
/// and a request whose `If-None-Match` holds it is answered 304 without a body.
#[op(get "/v1/operations" as listOperations, tag = Recipes, output = raw("application/json"), redact(".data.etag"),
     example(search, {"q": "base64/encode"}),
     example(one_recipe_step_by_tag, {"q": "hexdump/parse", "recipeable": true, "tag": "text and data"}),
     example(unknown_tag, {"tag": "Nothing like it"}))]
async fn list_operations(ctx: &Ctx, input: ListInput) -> Result<Revalidated<ListOutput>, ApiError> {
    let catalog = catalog(ctx)?;
    Ok(Revalidated::answer(&ctx.headers, &catalog.etag, || listed(catalog, &input)))
}

/// The entries `input` asks for.
fn listed(catalog: &Catalog, input: &ListInput) -> ListOutput {
    let q = input.q.as_deref().map(str::to_lowercase);
    let tag = input.tag.as_deref().map(str::to_lowercase);
    let operations: Vec<Entry> = catalog
        .entries
        .iter()
        .filter(|e| tag.as_ref().is_none_or(|t| e.tag.to_lowercase() == *t))
        .filter(|e| input.recipeable.is_none_or(|r| e.recipeable == r))
        .filter(|e| {
            q.as_ref().is_none_or(|q| {
                [&e.operation_id, &e.path, &e.summary, &e.description].iter().any(|f| f.to_lowercase().contains(q))
                    || e.routes.iter().any(|r| r.operation_id.to_lowercase().contains(q) || r.path.contains(q))
            })
        })
        .cloned()
        .collect();
    ListOutput { version: API_VERSION, etag: catalog.etag.clone(), count: operations.len(), operations }
}

#[derive(Debug, Deserialize, JsonSchema, Validate)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
#[schemars(rename = "OperationGetInput")]
struct OneInput {
    /// The operationId (of any of the operation's routes).
    #[schemars(length(min = 1, max = 64))]
    operation_id: String,
}

/// Describe one operation.
///
/// The catalog entry of the operation that `operationId` names (any of its routes' ids), as
/// `GET /v1/operations` lists it. An unknown id is 404 `NOT_FOUND`. The answer carries the
/// catalog's `ETag`, and `If-None-Match` with it is answered 304.
#[op(get "/v1/operations/{operationId}" as getOperation, tag = Recipes, output = raw("application/json"),
     errors(NOT_FOUND),
     example(base64_decode, {"operationId": "base64Decode"}),
     example(unknown, {"operationId": "noSuchOperation"}, status = 404))]
async fn get_operation(ctx: &Ctx, input: OneInput) -> Result<Revalidated<Entry>, ApiError> {
    let catalog = catalog(ctx)?;
    let entry = catalog.get(&input.operation_id).ok_or_else(|| {
        ApiError::not_found(format!("there is no operation {:?}; GET /v1/operations lists them", input.operation_id))
    })?;
    Ok(Revalidated::answer(&ctx.headers, &catalog.etag, || entry.clone()))
}
