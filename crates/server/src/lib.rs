//! wrench's server: HTTP serving, the pages, the MCP tools, the OpenAPI document, API keys and
//! logging. It serves whatever registry of operations it is given (`http::serve`) and depends
//! on no operation: the `wrench` binary hands it the registry of `wrench-ops`, and the
//! operations' own tests run their operations through it. Below it are `wrench-contract` (what
//! an operation is) and `wrench-infra` (settings, store, the outbound layer, data sets). The
//! README's "Architecture" section draws the map.

#![forbid(unsafe_code)]

mod access_log;
pub mod http;
pub mod keys;
pub mod logging;
pub mod openapi;
mod ui;

#[cfg(test)]
mod op_fixtures;
#[cfg(any(test, feature = "testing"))]
pub mod testing;
