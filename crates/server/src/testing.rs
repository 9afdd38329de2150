//! The example tests `#[op]` generates call into here: each declared example goes through the
//! whole HTTP pipeline and its response is compared with a snapshot in `snapshots/`.
//!
//! Snapshots prove shape, not correctness; behaviour is tested against outside references in
//! each operation's own tests. Request ids, durations and the values an operation declares
//! random (`redact(...)`) are redacted. Under `CI=true` a mismatch fails without writing
//! anything; bless changes locally with `INSTA_UPDATE=always cargo test`.

use std::sync::Arc;

use poem::test::TestClient;

use serde_json::Value;

use wrench_contract::op::{Example, InputKind, Operation, OutputKind, Route};
use wrench_infra::config::Config;

/// Default settings, with the outbound layer pointed at the local fakes (DNS, web sites and the
/// tests' certificate authority), which the documentation's examples name.
pub fn test_config() -> Config {
    Config::from_vars(&wrench_fakes::shared().settings()).expect("the fakes' settings parse")
}

/// A context for calling an operation directly: the test settings with `extra` applied on
/// top (`("WRENCH_PROVIDER_OPENPAGERANK_KEY", "")` to unset one), an in-memory store, and an
/// outbound layer built from those settings.
pub fn fake_ctx(extra: &[(&str, &str)]) -> wrench_contract::op::Ctx {
    let mut vars = wrench_fakes::shared().settings();
    vars.extend(extra.iter().map(|(k, v)| (k.to_string(), v.to_string())));
    let config = Config::from_vars(&vars).expect("the test settings parse");
    let mut ctx = wrench_contract::op::Ctx::for_tests();
    ctx.net = Arc::new(wrench_infra::outbound::Net::new(&config.outbound, "http://test").expect("the layer builds"));
    ctx.datasets = Arc::new(wrench_infra::datasets::Datasets::new(&config.datasets));
    ctx.config = Arc::new(config);
    ctx
}

/// Builds an app serving just `op`, with the test settings.
pub fn app_for(op: &Operation) -> crate::http::App {
    crate::http::app(Arc::new(test_config()), vec![op.clone()]).expect("the operation registers")
}

/// Every top-level field of an example as text, the way a query string or path carries it.
fn text_pairs(input: &Value) -> Vec<(String, String)> {
    let text = |v: &Value| v.as_str().map_or_else(|| v.to_string(), str::to_string);
    input.as_object().into_iter().flatten().map(|(k, v)| (k.clone(), text(v))).collect()
}

/// Status and JSON body of a test response (`Null` when the body is not JSON).
pub async fn json_of(resp: poem::test::TestResponse) -> (u16, Value) {
    let status = resp.0.status().as_u16();
    let bytes = resp.0.into_body().into_vec().await.expect("body reads");
    (status, serde_json::from_slice(&bytes).unwrap_or(Value::Null))
}

/// Percent-encodes everything but RFC 3986 unreserved characters, for a path segment.
fn percent_encode(v: &str) -> String {
    const RESERVED: &percent_encoding::AsciiSet =
        &percent_encoding::NON_ALPHANUMERIC.remove(b'-').remove(b'.').remove(b'_').remove(b'~');
    percent_encoding::utf8_percent_encode(v, RESERVED).to_string()
}

/// Sends example `name` to every route of `op`: the main route's answer is compared with the
/// example's snapshot, and every other route (a GET form beside a POST form) must answer the
/// same, random values aside.
pub async fn check_example(op: Operation, name: &str) {
    check_example_among(op, name, Vec::new()).await
}

/// [`check_example`] on a server that also serves `others` (a recipe's example runs other
/// operations).
pub async fn check_example_among(op: Operation, name: &str, others: Vec<Operation>) {
    let example = (op.examples)().into_iter().find(|e| e.name == name).expect("the example exists");
    let mut ops = vec![op.clone()];
    ops.extend(others.into_iter().filter(|o| o.id() != op.id()));
    let cli = TestClient::new(crate::http::app(Arc::new(test_config()), ops).expect("the operations register"));
    let snapshot = answer(&cli, &op, &op.routes[0], &example).await;
    for route in &op.routes[1..] {
        let other = answer(&cli, &op, route, &example).await;
        assert_eq!(
            redacted(&other, op.redactions),
            redacted(&snapshot, op.redactions),
            "{} answers example {name} differently from {}",
            route.id,
            op.id()
        );
    }
    let mut settings = insta::Settings::clone_current();
    settings.set_snapshot_path("../../../snapshots");
    settings.set_prepend_module_to_snapshot(false);
    settings.set_info(&serde_json::json!({"operation": op.id(), "input": example.input}));
    settings.add_redaction(".meta.requestId", "[request-id]");
    settings.add_redaction(".meta.duration", "[duration]");
    for r in op.redactions {
        settings.add_redaction(r, "[random]");
    }
    settings.bind(|| insta::assert_json_snapshot!(format!("{}__{}", op.id(), name), snapshot));
}

/// `answer` with `meta` and the declared random values (`.data.uuid` selectors) blanked.
fn redacted(answer: &Value, redactions: &[&str]) -> Value {
    fn blank(v: &mut Value, parts: &[&str]) {
        // `steps[]` is every element of the array `steps`.
        if let Some((first, rest)) = parts.split_first()
            && let Some(name) = first.strip_suffix("[]")
        {
            if let Some(Value::Array(items)) = v.get_mut(name) {
                for item in items {
                    blank(item, rest);
                }
            }
            return;
        }
        match parts {
            [last] => {
                if let Some(x) = v.get_mut(*last) {
                    *x = Value::Null;
                }
            }
            [first, rest @ ..] => {
                if let Some(x) = v.get_mut(*first) {
                    blank(x, rest);
                }
            }
            [] => {}
        }
    }
    let mut v = answer.clone();
    for selector in redactions.iter().chain(&[".meta"]) {
        blank(&mut v, &selector.trim_start_matches('.').split('.').collect::<Vec<_>>());
    }
    v
}

/// One route's answer to an example, as the JSON a snapshot holds.
async fn answer(cli: &TestClient<crate::http::App>, op: &Operation, route: &Route, example: &Example) -> Value {
    let context = format!("{} ({} {}) example {}", route.id, route.method.as_str(), route.path, example.name);
    // Top-level fields named like a path parameter fill it in. The rest goes to the query
    // string (query input) or the JSON body (the other kinds).
    let template = route.template();
    let pairs = text_pairs(&example.input);
    let (in_path, rest): (Vec<_>, Vec<_>) = pairs.into_iter().partition(|(k, _)| template.has_param(k));
    let path =
        template.fill(|p| in_path.iter().find(|(k, _)| k == p).map_or_else(String::new, |(_, v)| percent_encode(v)));
    let mut body = example.input.clone();
    if let Some(obj) = body.as_object_mut() {
        obj.retain(|k, _| !template.has_param(k));
    }
    let method: poem::http::Method = route.method.as_str().parse().expect("a valid method");
    let resp = if route.input == InputKind::Query {
        let q = serde_urlencoded::to_string(&rest).unwrap_or_default();
        let uri = if q.is_empty() { path } else { format!("{path}?{q}") };
        cli.request(method, uri).send().await
    } else {
        cli.request(method, path).body_json(&body).send().await
    };
    let status = resp.0.status().as_u16();
    let header = |name: &str| resp.0.headers().get(name).and_then(|v| v.to_str().ok()).unwrap_or("").to_string();
    let (content_type, location) = (header("content-type"), header("location"));
    let bytes = resp.0.into_body().into_vec().await.expect("body reads");
    assert_eq!(status, example.status, "{context}: {}", String::from_utf8_lossy(&bytes));

    // A revalidated answer is the usual envelope with an entity tag.
    if op.output == OutputKind::Json || op.revalidated || status >= 400 {
        let body: Value = serde_json::from_slice(&bytes).expect("a JSON envelope");
        assert_eq!(body["success"], status < 400, "{context}");
        body
    } else {
        let text = if content_type.starts_with("image/svg") {
            String::from_utf8_lossy(&bytes).into_owned()
        } else {
            String::new()
        };
        serde_json::json!({"status": status, "contentType": content_type, "location": location, "bytes": bytes.len(), "svg": text})
    }
}
