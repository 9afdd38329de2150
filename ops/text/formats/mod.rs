//! Data formats and queries: JSON queried by JSONPath and JMESPath (`json_query.rs`, with the
//! cost bounds of `query_bounds.rs`).

pub(crate) mod json_query;
mod query_bounds;
