//! A stored recipe as the store holds it: under `recipe:<id>`, with the store's own TTL, the
//! recipe as written, its name and description, and the digest of its manage token.

use wrench_contract::prelude::*;

use crate::recipes::model::Recipe;

/// Length of stored recipe ids: 10 letters and digits, about 59 bits.
pub(super) const ID_LEN: usize = 10;

/// Most bytes a stored recipe takes as JSON (its steps, literal arguments and result).
pub(crate) const MAX_RECIPE_BYTES: usize = 256 * 1024;

pub(super) fn key(id: &str) -> String {
    format!("recipe:{id}")
}

#[derive(Debug, Serialize, Deserialize)]
pub(super) struct RecipeRecord {
    pub recipe: Recipe,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    pub created_at: String,
    pub expires_at: String,
    /// SHA-256 (hex) of the manage token.
    pub manage_token_sha256: String,
}

/// The answer for an id that names no stored recipe.
pub(super) fn missing(id: &str) -> ApiError {
    ApiError::not_found(format!("no stored recipe {id:?}: it never existed, has expired or was deleted"))
}

/// Reads the stored recipe `id`. Ids of another shape than the ones issued are not looked up.
pub(super) async fn find(ctx: &Ctx, id: &str) -> Result<RecipeRecord, ApiError> {
    if id.len() != ID_LEN || !id.bytes().all(|b| b.is_ascii_alphanumeric()) {
        return Err(missing(id));
    }
    let raw = ctx.store.get(&key(id)).await?.ok_or_else(|| missing(id))?;
    serde_json::from_slice(&raw).map_err(|e| ApiError::internal(format!("stored recipe {id} unreadable: {e}")))
}

/// The URLs a stored recipe is read and run at.
pub(super) fn urls(ctx: &Ctx, id: &str) -> (String, String) {
    let base = ctx.config.public_base();
    (format!("{base}/v1/recipes/{id}"), format!("{base}/v1/recipes/{id}/run"))
}

/// A check's error with its field placed inside the request's `recipe` member (the check
/// names places from the recipe's own root: `steps[2].args.key`).
pub(super) fn inside_recipe(mut e: ApiError) -> ApiError {
    if let Some(field) = e.field.take() {
        let placed = if field.starts_with("steps") || field.starts_with("result") {
            let placed = format!("recipe.{field}");
            if let Some(rest) = e.message.strip_prefix(field.as_str()) {
                e.message = format!("{placed}{rest}").into();
            }
            placed
        } else {
            field
        };
        e.field = Some(placed);
    }
    e
}
