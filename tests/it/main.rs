//! The integration tests, one binary: each file below is a module of it, and `common` holds what
//! they share (a server on a real listener, a test's own Redis, a cluster, a browser). One
//! binary links once, where a binary per file linked the whole service each time. Run one file's
//! tests with `cargo test --test it <file>::`.

mod common;

mod answer_encoding;
mod bounds;
mod browser_cors;
mod browser_home;
mod browser_inbox;
mod browser_paste;
mod browser_recipes;
mod browser_short_links;
mod browser_tools;
mod certificates;
mod compression;
mod connections;
mod declared_types;
mod hostile;
mod http_edges;
mod key_tools;
mod layers;
mod mcp;
mod openapi;
mod pki_tools;
mod process;
mod recipes;
mod secret_tools;
mod settings;
mod shared_state;
mod ssrf;
mod store_contract;
mod store_durability;
mod store_faults;
mod store_full;
mod stored_recipes;
mod system_tools;
mod text_tools;
mod tls_fingerprint;
