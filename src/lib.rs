//! wrench: a self-hostable HTTP API of developer utilities.
//!
//! This crate is the server, the top layer of the workspace: HTTP serving, the MCP tools, the
//! OpenAPI document, API keys, logging and the `wrench` command. It serves the registry of
//! `wrench-ops` and knows no operation group; the crates below it are `wrench-contract` (what
//! an operation is), `wrench-kit` (libraries operations share) and `wrench-infra` (settings,
//! store, network, data sets). The README's "Architecture" section draws the map.

#![forbid(unsafe_code)]

mod access_log;
pub mod http;
pub mod keys;
pub mod logging;
pub mod openapi;

#[cfg(test)]
mod op_fixtures;
#[cfg(any(test, feature = "testing"))]
pub mod testing;

/// Every operation of the service, sorted by the path then the method of its main route.
pub fn operations() -> Vec<wrench_contract::op::Operation> {
    wrench_ops::operations()
}

/// The operations and their start-up work, as `wrench-ops` declares them.
pub fn registry() -> wrench_contract::op::Registry {
    wrench_ops::registry()
}

/// The OpenAPI document of the service.
pub fn openapi_document() -> serde_json::Value {
    openapi::document(&operations())
}
