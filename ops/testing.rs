//! The helpers of the operations' tests, which are the server's (an operation's examples run
//! through the whole HTTP pipeline).

pub(crate) use wrench_server::testing::*;

/// Runs an example through the pipeline ([`wrench_server::testing::check_example`]); a recipe
/// operation's on a server with every operation, which its steps run.
pub(crate) async fn check_example(op: wrench_contract::op::Operation, name: &str) {
    let others = if op.tag == wrench_contract::op::Tag::Recipes { crate::operations() } else { Vec::new() };
    wrench_server::testing::check_example_among(op, name, others).await
}

/// A file of tests/fixtures (what an independent implementation answered), parsed.
pub(crate) fn fixture(name: &str) -> serde_json::Value {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures").join(name);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Whether two JSON values are equal with numbers compared by value (`1` and `1.0`, `1e-7`
/// and `1e-07`), as references that compute in floats or write numbers otherwise need.
pub(crate) fn same_by_value(a: &serde_json::Value, b: &serde_json::Value) -> bool {
    use serde_json::Value;
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => x.as_f64() == y.as_f64(),
        (Value::Array(x), Value::Array(y)) => x.len() == y.len() && x.iter().zip(y).all(|(x, y)| same_by_value(x, y)),
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len() && x.iter().all(|(k, v)| y.get(k).is_some_and(|w| same_by_value(v, w)))
        }
        _ => a == b,
    }
}
