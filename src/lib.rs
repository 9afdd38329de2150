//! wrench: a self-hostable HTTP API of developer utilities.
//!
//! This package is the top of the workspace: the `wrench` command, which hands the registry of
//! `wrench-ops` to the server of `wrench-server`, and the few functions below that the command
//! and the integration tests share. Neither of the crates it wires knows the other.

#![forbid(unsafe_code)]

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
    wrench_server::openapi::document(&operations())
}
