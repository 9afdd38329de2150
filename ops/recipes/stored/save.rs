//! Storing a recipe (`POST /v1/recipes`): checked as a run would check it, kept for its TTL
//! under a fresh id, and answered with the URLs that read and run it and the manage token
//! that deletes it.

use std::time::Duration;

use wrench_contract::prelude::*;
use wrench_infra::{random, time};

use super::model::{ID_LEN, MAX_RECIPE_BYTES, RecipeRecord, inside_recipe, key, urls};
use crate::recipes::{model::Recipe, plan, run};

#[derive(Debug, Deserialize, JsonSchema, Validate)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
#[schemars(rename = "RecipeSaveInput")]
struct SaveInput {
    /// The recipe to keep: its steps, `result`, `trace` and `onError`, as `recipes/run` takes
    /// them (without `input`, which each run brings). At most 256 KiB as JSON.
    recipe: Recipe,
    /// A name for people, up to 100 characters.
    #[serde(default)]
    #[schemars(length(min = 1, max = 100))]
    name: Option<String>,
    /// What the recipe does, up to 2,000 characters.
    #[serde(default)]
    #[schemars(length(min = 1, max = 2000))]
    description: Option<String>,
    /// Lifetime in seconds: 60 to 31,536,000 (365 days); 7 days by default.
    #[serde(default = "week")]
    #[schemars(range(min = 60, max = 31536000))]
    ttl: u32,
}

fn week() -> u32 {
    7 * 24 * 3600
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(rename = "RecipeSaved")]
struct Saved {
    /// The stored recipe's id: 10 letters and digits.
    id: String,
    /// Absolute URL that returns the recipe (`GET /v1/recipes/{id}`): the one to share.
    url: String,
    /// Absolute URL that runs it on an input (`POST /v1/recipes/{id}/run`).
    run_url: String,
    /// The token that deletes it (`DELETE /v1/recipes/{id}` with `X-Manage-Token`). Shown
    /// only here.
    manage_token: String,
    /// The name given, if any.
    name: Option<String>,
    /// How many steps it has.
    steps: usize,
    /// When it was stored (RFC 3339, UTC).
    created_at: String,
    /// When it disappears (RFC 3339, UTC).
    expires_at: String,
}

/// Store a recipe.
///
/// Keeps a recipe for `ttl` seconds (7 days by default, at most 365) under an unguessable
/// 10-character id, so that its URL can be shared: anyone with the id can read it
/// (`GET /v1/recipes/{id}`) and run it on an input of their own
/// (`POST /v1/recipes/{id}/run`). The recipe is checked as `recipes/run` checks one before
/// storing it: a mistake is 400 `VALIDATION_ERROR` with `field` naming its place
/// (`recipe.steps[1].args.format`), and what depends on an input is checked at each run. At
/// most 256 KiB of recipe as JSON. The answer's `manageToken`, shown only here, deletes it.
#[op(post "/v1/recipes" as saveRecipe, tag = Recipes,
     uses(store),
     rejects = "a recipe that `recipes/run` would refuse before running, or one larger than 256 KiB as JSON",
     redact(".data.id", ".data.url", ".data.runUrl", ".data.manageToken", ".data.createdAt", ".data.expiresAt"),
     example(typical, {"name": "Unwrap a gzipped JSON blob", "ttl": 86400,
                       "recipe": {"steps": ["base64Decode", {"op": "decompress", "args": {"format": "gzip"}}, "jsonFormat"]}}),
     example(unknown_operation, {"recipe": {"steps": ["base64Decode", "noSuchOperation"]}}, status = 400))]
async fn save_recipe(ctx: &Ctx, input: SaveInput) -> Result<Saved, ApiError> {
    let catalog = run::steps_of(ctx)?.catalog();
    plan::plan(&input.recipe, None, catalog, ctx.config.recipes.max_steps).map_err(inside_recipe)?;
    let size = wrench_infra::bounds::json_size(&input.recipe);
    if size > MAX_RECIPE_BYTES {
        return Err(ApiError::invalid(
            "recipe",
            format!("is {size} bytes as JSON; a stored recipe holds at most {MAX_RECIPE_BYTES} (256 KiB)"),
        ));
    }
    let created = time::now();
    let ttl = Duration::from_secs(input.ttl.into());
    let (token, digest) = wrench_kit::tokens::issue()?;
    let steps = input.recipe.steps.len();
    let record = RecipeRecord {
        recipe: input.recipe,
        name: input.name,
        description: input.description,
        created_at: time::rfc3339(created),
        expires_at: time::rfc3339(created + ttl),
        manage_token_sha256: digest,
    };
    let json = serde_json::to_vec(&record).map_err(|e| ApiError::internal(e.to_string()))?;
    let id =
        random::reserve(ctx.store.as_ref(), ID_LEN, random::ALPHANUMERIC, key, &json, Some(ttl), "recipe id").await?;
    let (url, run_url) = urls(ctx, &id);
    Ok(Saved {
        id,
        url,
        run_url,
        manage_token: token,
        name: record.name,
        steps,
        created_at: record.created_at,
        expires_at: record.expires_at,
    })
}
