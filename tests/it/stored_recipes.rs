//! Stored recipes through the whole service: a stored recipe reads back as it was given, runs
//! as the same recipe given in full runs, is refused at the place of its mistake before it is
//! stored, and is deleted by its manage token alone; a store that is down or full refuses what
//! needs it and nothing else.

use std::sync::Arc;

use poem::test::TestClient;
use serde_json::{Value, json};
use wrench_infra::{config::Config, store::redis::RedisStore};

use crate::common;

type Client = TestClient<wrench_server::http::App>;

fn client() -> Client {
    TestClient::new(wrench_server::http::app(Arc::new(Config::default()), wrench::operations()).unwrap())
}

async fn call(cli: &Client, method: &str, path: &str, token: Option<&str>, body: Option<&Value>) -> (u16, Value) {
    let mut request = match method {
        "GET" => cli.get(path),
        "POST" => cli.post(path),
        "DELETE" => cli.delete(path),
        other => panic!("{other}"),
    };
    if let Some(token) = token {
        request = request.header("X-Manage-Token", token);
    }
    if let Some(body) = body {
        request = request.body_json(body);
    }
    let resp = request.send().await;
    let status = resp.0.status().as_u16();
    let bytes = resp.0.into_body().into_vec().await.unwrap();
    (status, serde_json::from_slice(&bytes).unwrap_or(Value::Null))
}

/// A recipe with every part a recipe can have: named steps, a pointer, a pipe, a condition, a
/// forEach, a shaped result and `onError`.
fn full_recipe() -> Value {
    json!({
        "steps": [
            {"id": "raw", "op": "base64Decode", "from": {"encoded": "/input/blob"}},
            {"id": "up", "op": "textCase", "args": {"to": "upper"}},
            {"id": "sig", "op": "hashHmac", "from": {"text": "/steps/up/converted", "key": "/input/key"},
             "args": {"algorithm": "sha256"}, "when": {"path": "/input/sign", "equals": true}},
            {"id": "each", "op": "hexEncode", "forEach": "/input/words"}
        ],
        "result": {"upper": "/steps/up/converted", "signature": "/steps/sig/signature", "hex": "/steps/each/items"},
        "onError": "continue"
    })
}

#[tokio::test]
async fn a_stored_recipe_reads_back_runs_as_given_and_goes_with_its_token() {
    let cli = client();
    let recipe = full_recipe();
    let (s, saved) =
        call(&cli, "POST", "/v1/recipes", None, Some(&json!({"recipe": recipe, "name": "sign it", "ttl": 3600}))).await;
    assert_eq!(s, 200, "{saved}");
    let saved = &saved["data"];
    let id = saved["id"].as_str().unwrap();
    assert!(id.len() == 10 && id.bytes().all(|b| b.is_ascii_alphanumeric()), "{saved}");
    assert_eq!(saved["url"], format!("http://127.0.0.1:8080/v1/recipes/{id}"));
    assert_eq!(saved["runUrl"], format!("http://127.0.0.1:8080/v1/recipes/{id}/run"));
    assert_eq!((saved["steps"].as_u64(), saved["name"].as_str()), (Some(4), Some("sign it")));
    let token = saved["manageToken"].as_str().unwrap();
    assert_eq!(token.len(), 32);
    let lifetime = |v: &Value| {
        let at = |k: &str| v[k].as_str().unwrap().parse::<jiff::Timestamp>().unwrap();
        at("expiresAt").duration_since(at("createdAt")).as_secs()
    };
    assert_eq!(lifetime(saved), 3600);

    // It reads back as it was given, and reading spends nothing.
    for _ in 0..2 {
        let (s, got) = call(&cli, "GET", &format!("/v1/recipes/{id}"), None, None).await;
        assert_eq!(s, 200, "{got}");
        assert_eq!(got["data"]["recipe"], recipe);
        assert_eq!((got["data"]["name"].as_str(), &got["data"]["description"]), (Some("sign it"), &Value::Null));
        assert_eq!((&got["data"]["createdAt"], &got["data"]["expiresAt"]), (&saved["createdAt"], &saved["expiresAt"]));
    }

    // Each run answers what the same recipe given in full answers, whatever the input.
    let inputs = [
        json!({"blob": "aGVsbG8=", "key": "k", "sign": true, "words": ["a", "bc"]}),
        json!({"blob": "aGVsbG8=", "key": "k", "sign": false, "words": []}),
        json!({"blob": "not base64!", "key": "k", "sign": true, "words": ["x"]}),
    ];
    for input in &inputs {
        let (s1, stored) =
            call(&cli, "POST", &format!("/v1/recipes/{id}/run"), None, Some(&json!({"input": input}))).await;
        let mut given = recipe.clone();
        given["input"] = input.clone();
        let (s2, direct) = common::post_json(&cli, "/v1/recipes/run", &given).await;
        assert_eq!((s1, &stored["data"]["result"]), (s2, &direct["data"]["result"]), "{input}: {stored} {direct}");
        let statuses =
            |v: &Value| v["data"]["steps"].as_array().unwrap().iter().map(|s| s["status"].clone()).collect::<Vec<_>>();
        assert_eq!(statuses(&stored), statuses(&direct), "{input}");
    }
    let (_, signed) =
        call(&cli, "POST", &format!("/v1/recipes/{id}/run"), None, Some(&json!({"input": inputs[0]}))).await;
    assert_eq!(signed["data"]["result"]["upper"], "HELLO", "{signed}");
    // HMAC-SHA256 of "HELLO" under the key "k", as Python's hmac module computes it.
    let hmac = "b877659be78502a653292b3ec4d47d55715168545fe2c8acefcfd2b808a8c8e2";
    assert_eq!(signed["data"]["result"]["signature"], hmac, "{signed}");
    assert_eq!(
        signed["data"]["result"]["hex"],
        json!([{"encoded": "61", "bytes": 1}, {"encoded": "6263", "bytes": 2}]),
        "{signed}"
    );

    // A run-time mistake names its place inside the stored recipe.
    let (s, v) = call(&cli, "POST", &format!("/v1/recipes/{id}/run"), None, Some(&json!({"input": {"blob": 5}}))).await;
    assert_eq!((s, v["error"]["field"].as_str()), (400, Some("recipe.steps[0].from.encoded")), "{v}");
    assert!(v["error"]["message"].as_str().unwrap().starts_with("recipe.steps[0].from.encoded:"), "{v}");

    // Only its token deletes it; then every use of it is 404, like an id never issued.
    for wrong in [None, Some("x".repeat(32)), Some(token[1..].to_string())] {
        let (s, v) = call(&cli, "DELETE", &format!("/v1/recipes/{id}"), wrong.as_deref(), None).await;
        assert_eq!((s, v["error"]["code"].as_str()), (403, Some("TOKEN_REJECTED")), "{v}");
    }
    let (s, v) = call(&cli, "DELETE", &format!("/v1/recipes/{id}"), Some(token), None).await;
    assert_eq!((s, &v["data"]), (200, &json!({"id": id, "deleted": true})), "{v}");
    for (method, path, body) in [
        ("GET", format!("/v1/recipes/{id}"), None),
        ("POST", format!("/v1/recipes/{id}/run"), Some(json!({"input": inputs[0]}))),
        ("DELETE", format!("/v1/recipes/{id}"), None),
        ("GET", "/v1/recipes/AbCdE12345".to_string(), None),
        ("GET", "/v1/recipes/short".to_string(), None),
    ] {
        let (s, v) = call(&cli, method, &path, Some(token), body.as_ref()).await;
        assert_eq!((s, v["error"]["code"].as_str()), (404, Some("NOT_FOUND")), "{method} {path}: {v}");
    }
    // The static routes beside the id keep their methods.
    let (s, _) = call(&cli, "GET", "/v1/recipes/run", None, None).await;
    assert_eq!(s, 405, "GET of recipes/run is not a stored recipe called run");
}

#[tokio::test]
async fn a_recipe_is_checked_before_it_is_stored() {
    let cli = client();
    let cases = [
        (json!({"steps": ["base64Decode", "noSuchOperation"]}), "recipe.steps[1]"),
        (json!({"steps": [{"op": "textCase", "args": {"to": "sideways"}}]}), "recipe.steps[0].args.to"),
        (
            json!({"steps": ["base64Decode", {"op": "textCase", "from": {"text": "/steps/0/decodd"}, "args": {"to": "upper"}}]}),
            "recipe.steps[1].from.text",
        ),
        (json!({"steps": ["base64Decode"], "result": "/steps/7/decoded"}), "recipe.result"),
        (json!({"steps": ["base64Decode"], "extra": 1}), "recipe.extra"),
        (json!({"steps": []}), "recipe.steps"),
    ];
    for (recipe, field) in cases {
        let (s, v) = call(&cli, "POST", "/v1/recipes", None, Some(&json!({"recipe": recipe}))).await;
        assert_eq!((s, v["error"]["code"].as_str()), (400, Some("VALIDATION_ERROR")), "{recipe}: {v}");
        assert_eq!(v["error"]["field"].as_str(), Some(field), "{recipe}: {v}");
    }
    for (body, field) in [
        (json!({"recipe": {"steps": ["hexEncode"]}, "ttl": 59}), "ttl"),
        (json!({"recipe": {"steps": ["hexEncode"]}, "ttl": 31_536_001}), "ttl"),
        (json!({"recipe": {"steps": ["hexEncode"]}, "name": ""}), "name"),
        (json!({"steps": ["hexEncode"]}), "steps"),
    ] {
        let (s, v) = call(&cli, "POST", "/v1/recipes", None, Some(&body)).await;
        assert_eq!(s, 400, "{body}: {v}");
        assert!(v["error"]["field"].as_str().unwrap_or_default().starts_with(field), "{body}: {v}");
    }
    // The largest recipe stored is 256 KiB as JSON; a byte more is refused, naming the size.
    let sized = |n: usize| {
        let skeleton = json!({"steps": [{"op": "textCase", "args": {"to": "upper", "text": ""}}]});
        let pad = 256 * 1024 - skeleton.to_string().len() + n;
        json!({"steps": [{"op": "textCase", "args": {"to": "upper", "text": "a".repeat(pad)}}]})
    };
    let (s, v) = call(&cli, "POST", "/v1/recipes", None, Some(&json!({"recipe": sized(0), "ttl": 60}))).await;
    assert_eq!(s, 200, "{v}");
    let (s, v) = call(&cli, "POST", "/v1/recipes", None, Some(&json!({"recipe": sized(1)}))).await;
    assert_eq!((s, v["error"]["field"].as_str()), (400, Some("recipe")), "{v}");
    assert!(v["error"]["message"].as_str().unwrap().contains("262145 bytes"), "{v}");
}

/// With the store unreachable, what needs it answers 503 `STORE_UNAVAILABLE` at once and a
/// recipe given in full runs as before.
#[tokio::test]
async fn a_store_outage_refuses_stored_recipes_only() {
    let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let store = Arc::new(RedisStore::connect(&format!("redis://127.0.0.1:{port}"), "wrench-recipe-test:").unwrap());
    let cli = TestClient::new(
        wrench_server::http::app_with_store(Arc::new(Config::default()), store, wrench::operations()).unwrap(),
    );
    let started = std::time::Instant::now();
    let (s, v) = call(&cli, "POST", "/v1/recipes", None, Some(&json!({"recipe": {"steps": ["hexEncode"]}}))).await;
    assert_eq!((s, v["error"]["code"].as_str()), (503, Some("STORE_UNAVAILABLE")), "{v}");
    let (s, v) = call(&cli, "GET", "/v1/recipes/AbCdE12345", None, None).await;
    assert_eq!((s, v["error"]["code"].as_str()), (503, Some("STORE_UNAVAILABLE")), "{v}");
    let (s, v) = call(&cli, "POST", "/v1/recipes/AbCdE12345/run", None, Some(&json!({"input": "x"}))).await;
    assert_eq!((s, v["error"]["code"].as_str()), (503, Some("STORE_UNAVAILABLE")), "{v}");
    assert!(started.elapsed() < std::time::Duration::from_secs(8), "{:?}", started.elapsed());
    let (s, v) = common::post_json(&cli, "/v1/recipes/run", &json!({"input": "hi", "steps": ["hexEncode"]})).await;
    assert_eq!((s, &v["data"]["result"]["encoded"]), (200, &json!("6869")), "{v}");
}
