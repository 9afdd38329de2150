//! The example tests `#[op]` generates call into here: each declared example goes through the
//! whole HTTP pipeline and its response is compared with a snapshot in `snapshots/`.
//!
//! Snapshots prove shape, not correctness; behaviour is tested against outside references in
//! each operation's own tests. Request ids, durations and the values an operation declares
//! random (`redact(...)`) are redacted. Under `CI=true` a mismatch fails without writing
//! anything; bless changes locally with `INSTA_UPDATE=always cargo test`.

use std::sync::Arc;

use poem::test::TestClient;

use crate::{
    config::Config,
    op::{InputKind, Operation, OutputKind},
};

/// Builds an app serving just `op`, with default settings.
pub(crate) fn app_for(op: &Operation) -> crate::http::App {
    crate::http::app(Arc::new(Config::default()), vec![op.clone()]).expect("the operation registers")
}

/// Query string for a GET example: every top-level field as `name=value`.
fn query_of(input: &serde_json::Value) -> (String, Vec<(String, String)>) {
    let mut pairs = Vec::new();
    if let Some(obj) = input.as_object() {
        for (k, v) in obj {
            let s = match v {
                serde_json::Value::String(s) => s.clone(),
                other => other.to_string(),
            };
            pairs.push((k.clone(), s));
        }
    }
    (serde_urlencoded::to_string(&pairs).unwrap_or_default(), pairs)
}

/// Status and JSON body of a test response (`Null` when the body is not JSON).
pub(crate) async fn json_of(resp: poem::test::TestResponse) -> (u16, serde_json::Value) {
    let status = resp.0.status().as_u16();
    let bytes = resp.0.into_body().into_vec().await.expect("body reads");
    (status, serde_json::from_slice(&bytes).unwrap_or(serde_json::Value::Null))
}

/// Percent-encodes everything but RFC 3986 unreserved characters, for a path segment.
fn percent_encode(v: &str) -> String {
    v.bytes()
        .map(|b| {
            if b.is_ascii_alphanumeric() || b"-._~".contains(&b) {
                (b as char).to_string()
            } else {
                format!("%{b:02X}")
            }
        })
        .collect()
}

pub(crate) async fn check_example(op: Operation, name: &str) {
    let example = (op.examples)().into_iter().find(|e| e.name == name).expect("the example exists");
    let cli = TestClient::new(app_for(&op));
    // Top-level fields named like a path parameter fill it in. The rest goes to the query
    // string (query input) or the JSON body (body and raw input).
    let (_, pairs) = query_of(&example.input);
    let mut path = op.path.to_string();
    let mut rest = Vec::new();
    let mut body = example.input.clone();
    for (k, v) in pairs {
        let marker = format!("{{{k}}}");
        if path.contains(&marker) {
            path = path.replace(&marker, &percent_encode(&v));
            if let Some(obj) = body.as_object_mut() {
                obj.remove(&k);
            }
        } else {
            rest.push((k, v));
        }
    }
    let method: poem::http::Method = op.method.as_str().parse().expect("a valid method");
    let resp = if op.input == InputKind::Query {
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
    assert_eq!(status, example.status, "{} example {name}: {}", op.id, String::from_utf8_lossy(&bytes));

    let snapshot: serde_json::Value = if op.output == OutputKind::Json || status >= 400 {
        let body: serde_json::Value = serde_json::from_slice(&bytes).expect("a JSON envelope");
        assert_eq!(body["success"], status < 400, "{} example {name}", op.id);
        body
    } else {
        let text = if content_type.starts_with("image/svg") {
            String::from_utf8_lossy(&bytes).into_owned()
        } else {
            String::new()
        };
        serde_json::json!({"status": status, "contentType": content_type, "location": location, "bytes": bytes.len(), "svg": text})
    };

    let mut settings = insta::Settings::clone_current();
    settings.set_snapshot_path("../snapshots");
    settings.set_prepend_module_to_snapshot(false);
    settings.set_info(&serde_json::json!({"operation": op.id, "input": example.input}));
    settings.add_redaction(".meta.requestId", "[request-id]");
    settings.add_redaction(".meta.duration", "[duration]");
    for r in op.redactions {
        settings.add_redaction(r, "[random]");
    }
    settings.bind(|| insta::assert_json_snapshot!(format!("{}__{}", op.id, name), snapshot));
}
