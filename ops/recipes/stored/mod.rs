//! Stored recipes: a recipe kept for a while under an unguessable id, so that its URL can be
//! shared and anyone holding it can read the recipe or run it on an input of their own. Like a
//! paste, a stored recipe has no owner but its manage token (shown once), which deletes it, and
//! the store's own TTL ends it.

pub(crate) mod model;
pub(crate) mod read;
pub(crate) mod save;
