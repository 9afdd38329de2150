//! Using a stored recipe: reading it (`GET /v1/recipes/{id}`), running it on an input
//! (`POST /v1/recipes/{id}/run`, the same run `recipes/run` makes) and deleting it with its
//! manage token. An expired or deleted recipe is 404 `NOT_FOUND` like one that never existed.

use wrench_contract::prelude::*;

use super::model::{find, inside_recipe, key, urls};
use crate::recipes::{
    model::Recipe,
    run::{self, RunOutput},
};

#[derive(Debug, Deserialize, JsonSchema, Validate)]
#[serde(deny_unknown_fields)]
#[schemars(rename = "RecipeIdInput")]
struct IdInput {
    /// The stored recipe's 10-character id. Any id that is not a live stored recipe (of any
    /// shape) is 404 `NOT_FOUND`.
    #[schemars(length(min = 1, max = 256))]
    id: String,
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(rename = "StoredRecipe")]
struct StoredRecipe {
    /// The stored recipe's id.
    id: String,
    /// The recipe as it was stored: add an `input` to it for `recipes/run`.
    recipe: Recipe,
    /// Its name, if it was given one.
    name: Option<String>,
    /// Its description, if it was given one.
    description: Option<String>,
    /// Absolute URL of this answer.
    url: String,
    /// Absolute URL that runs it (`POST`, with `{"input": ...}`).
    run_url: String,
    /// When it was stored (RFC 3339, UTC).
    created_at: String,
    /// When it disappears (RFC 3339, UTC); reading and running do not change it.
    expires_at: String,
}

/// Read a stored recipe.
///
/// The recipe as it was stored, with its name, description, URLs and lifetime. Reading does
/// not extend its life. Unknown, expired and deleted ids are 404 `NOT_FOUND`.
#[op(get "/v1/recipes/{id}" as getRecipe, tag = Recipes,
     uses(store), errors(NOT_FOUND),
     example(unknown, {"id": "AbCdE12345"}, status = 404),
     example(other_shape, {"id": "not-an-id!"}, status = 404))]
async fn get_recipe(ctx: &Ctx, input: IdInput) -> Result<StoredRecipe, ApiError> {
    let record = find(ctx, &input.id).await?;
    let (url, run_url) = urls(ctx, &input.id);
    Ok(StoredRecipe {
        id: input.id,
        recipe: record.recipe,
        name: record.name,
        description: record.description,
        url,
        run_url,
        created_at: record.created_at,
        expires_at: record.expires_at,
    })
}

#[derive(Debug, Deserialize, JsonSchema, Validate)]
#[serde(deny_unknown_fields)]
#[schemars(rename = "StoredRecipeRunInput")]
struct RunStoredInput {
    /// The stored recipe's id.
    #[schemars(length(min = 1, max = 256))]
    id: String,
    /// The input to run it on, any JSON value, as `input` in `recipes/run`.
    #[serde(default)]
    input: Value,
}

/// Run a stored recipe.
///
/// Runs the stored recipe on `input` exactly as `recipes/run` runs a recipe given in full:
/// the same check before running, the same answer, errors and bounds, and every operation run
/// after the first counts against the caller's rate limit. A mistake the check finds names
/// its place inside the stored recipe (`recipe.steps[1].from.text`), or `input`. Unknown,
/// expired and deleted ids are 404 `NOT_FOUND`.
#[op(post "/v1/recipes/{id}/run" as runStoredRecipe, tag = Recipes, redact(".data.steps[].ms"),
     uses(store, network, provider, dataset),
     errors(DECRYPTION_FAILED, NOT_FOUND, PAYLOAD_TOO_LARGE, RATE_LIMITED),
     rejects = "an input the stored recipe's first step refuses, and any step's own refusal",
     example(unknown, {"id": "AbCdE12345", "input": "aGk="}, status = 404),
     example(other_shape, {"id": "short", "input": {"text": "hi"}}, status = 404))]
async fn run_stored_recipe(ctx: &Ctx, input: RunStoredInput) -> Result<RunOutput, ApiError> {
    let record = find(ctx, &input.id).await?;
    run::run_one(ctx, &record.recipe, &input.input).await.map_err(inside_recipe)
}

#[derive(Debug, Serialize, JsonSchema)]
#[schemars(rename = "StoredRecipeDeleted")]
struct Deleted {
    /// The deleted recipe's id.
    id: String,
    /// Always true.
    deleted: bool,
}

/// Delete a stored recipe.
///
/// Removes it at once, with `X-Manage-Token` set to the `manageToken` its storing answered. A
/// missing or wrong token is 403 `TOKEN_REJECTED`; unknown, expired and already deleted ids
/// are 404 `NOT_FOUND`.
#[op(delete "/v1/recipes/{id}" as deleteRecipe, tag = Recipes,
     uses(store), errors(NOT_FOUND, TOKEN_REJECTED),
     example(unknown, {"id": "AbCdE12345"}, status = 404),
     example(other_shape, {"id": "not-an-id!"}, status = 404))]
async fn delete_recipe(ctx: &Ctx, input: IdInput) -> Result<Deleted, ApiError> {
    let record = find(ctx, &input.id).await?;
    wrench_kit::tokens::require(ctx, "X-Manage-Token", Some(&record.manage_token_sha256), "recipe")?;
    ctx.store.delete(&[&key(&input.id)]).await?;
    Ok(Deleted { id: input.id, deleted: true })
}
