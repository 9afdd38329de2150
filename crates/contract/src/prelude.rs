//! What an operation file needs, in one import: `use crate::prelude::*;`.

pub use schemars::JsonSchema;
pub use serde::{Deserialize, Serialize};
pub use serde_json::{Value, json};
pub use wrench_macros::op;

pub use crate::{
    op::{Ctx, Image, Redirect},
    validate::Validate,
};
pub use wrench_infra::envelope::{ApiError, ErrorCode};
