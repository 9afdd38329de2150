//! The helpers of the operations' tests, which are the server's (an operation's examples run
//! through the whole HTTP pipeline).

pub(crate) use wrench_server::testing::*;

/// A file of tests/fixtures (what an independent implementation answered), parsed.
pub(crate) fn fixture(name: &str) -> serde_json::Value {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures").join(name);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}
