//! Recipes through the whole service: random recipes answer what the same operations called
//! one by one answer (the metamorphic check), every mistake the check before running finds is
//! refused at its exact place, every bound holds, rate limits count every operation a recipe
//! runs, and the catalog's schemas are the document's.

use std::sync::Arc;

use poem::test::TestClient;
use serde_json::{Map, Value, json};
use sha2::{Digest, Sha256};
use wrench_infra::config::Config;

use crate::common::{self, tools::lcg};

type Client = TestClient<wrench_server::http::App>;

fn client_with(config: Config) -> Client {
    TestClient::new(wrench_server::http::app(Arc::new(config), wrench::operations()).unwrap())
}

async fn run(cli: &Client, recipe: &Value) -> (u16, Value) {
    common::post_json(cli, "/v1/recipes/run", recipe).await
}

async fn get(cli: &Client, path: &str) -> (u16, Value) {
    let resp = cli.get(path).send().await;
    let status = resp.0.status().as_u16();
    let bytes = resp.0.into_body().into_vec().await.unwrap();
    (status, serde_json::from_slice(&bytes).unwrap_or(Value::Null))
}

/// Text transforms a recipe can chain (each takes and gives text), with arguments.
fn chainable() -> Vec<(&'static str, Value)> {
    vec![
        ("base64Encode", json!({})),
        ("base64Encode", json!({"urlSafe": true})),
        ("base64Decode", json!({})),
        ("base32Encode", json!({})),
        ("base58Encode", json!({})),
        ("base85Encode", json!({})),
        ("hexEncode", json!({})),
        ("hexDecode", json!({})),
        ("urlEncode", json!({})),
        ("urlDecode", json!({})),
        ("htmlEntitiesEncode", json!({})),
        ("htmlEntitiesDecode", json!({})),
        ("textCase", json!({"to": "upper"})),
        ("textCase", json!({"to": "snake"})),
        ("rot", json!({"variant": "rot13"})),
        ("textSlugify", json!({})),
        ("unicodeEscape", json!({})),
        ("unicodeUnescape", json!({})),
        ("stringEscape", json!({"syntax": "json"})),
        ("textNormalize", json!({"form": "NFKD"})),
        ("hashText", json!({"algorithm": "sha256"})),
        ("hashText", json!({"algorithm": "md5", "encoding": "base64"})),
        ("hashHmac", json!({"algorithm": "sha1", "key": "k"})),
        ("textDefang", json!({})),
        ("textTruncate", json!({"maxLength": 12})),
        ("compress", json!({"format": "zlib"})),
        ("decompress", json!({"format": "zlib"})),
    ]
}

/// The catalog entry of every operation, by operationId.
async fn entries(cli: &Client) -> Map<String, Value> {
    let (status, v) = get(cli, "/v1/operations").await;
    assert_eq!(status, 200, "{v}");
    v["data"]["operations"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| (e["operationId"].as_str().unwrap().to_string(), e.clone()))
        .collect()
}

/// Runs `steps` by hand, as a client would: each operation called on its own with the previous
/// step's primary output as its primary input (and that output's encoding as its input's).
/// Answers the last data, or the index of the failing step with its status and code.
async fn by_hand(
    cli: &Client,
    catalog: &Map<String, Value>,
    input: &str,
    steps: &[(&str, Value)],
) -> Result<Value, (usize, u16, Value)> {
    let mut value = json!(input);
    let mut encoding: Option<Value> = None;
    let mut data = Value::Null;
    for (i, (op, args)) in steps.iter().enumerate() {
        let entry = &catalog[*op];
        let mut body = args.as_object().unwrap().clone();
        body.insert(entry["primaryInput"].as_str().unwrap().to_string(), value.clone());
        if let Some(e) = &encoding
            && entry["inputSchema"]["properties"].get("inputEncoding").is_some()
            && !body.contains_key("inputEncoding")
        {
            body.insert("inputEncoding".into(), e.clone());
        }
        let (status, v) = common::post_json(cli, entry["path"].as_str().unwrap(), &Value::Object(body)).await;
        if status != 200 {
            return Err((i, status, v["error"]["code"].clone()));
        }
        data = v["data"].clone();
        value = data[entry["primaryOutput"].as_str().unwrap()].clone();
        encoding = data.get("outputEncoding").cloned();
    }
    Ok(data)
}

/// Random recipes over the text transforms, in the pipe form and in the full form with ids
/// and `from`: each answers what the same calls made one at a time answer, success or the
/// failing step's status and code.
#[tokio::test]
async fn random_recipes_answer_what_the_calls_one_by_one_answer() {
    let cli = client_with(Config::default());
    let catalog = entries(&cli).await;
    let pool = chainable();
    let inputs = ["hello, world", "Ünïcödé ☃ <b>&amp;</b>", "", "aGVsbG8=", "68656c6c6f", "a%20b+c", "  x  y  "];
    let mut next = lcg(47);
    let (mut agreed, mut failures) = (0, 0);
    for round in 0..300 {
        let input = inputs[next(inputs.len() as u64) as usize];
        let n = 1 + next(6) as usize;
        let steps: Vec<(&str, Value)> = (0..n).map(|_| pool[next(pool.len() as u64) as usize].clone()).collect();
        let expected = by_hand(&cli, &catalog, input, &steps).await;
        let pipe: Vec<Value> = steps
            .iter()
            .map(|(op, args)| if args == &json!({}) { json!(op) } else { json!({"op": op, "args": args}) })
            .collect();
        // The full form: every input mapped by pointer, every encoding handed on by pointer.
        let full: Vec<Value> = steps
            .iter()
            .enumerate()
            .map(|(i, (op, args))| {
                let primary = catalog[*op]["primaryInput"].as_str().unwrap();
                if i == 0 {
                    return json!({"id": "s0", "op": op, "args": args, "from": {primary: "/input/text"}});
                }
                let before = &catalog[steps[i - 1].0];
                let mut from =
                    json!({primary: format!("/steps/s{}/{}", i - 1, before["primaryOutput"].as_str().unwrap())});
                if before["outputSchema"]["properties"].get("outputEncoding").is_some()
                    && catalog[*op]["inputSchema"]["properties"].get("inputEncoding").is_some()
                    && args.get("inputEncoding").is_none()
                {
                    from["inputEncoding"] = json!(format!("/steps/s{}/outputEncoding", i - 1));
                }
                json!({"id": format!("s{i}"), "op": op, "args": args, "from": from})
            })
            .collect();
        for (form, recipe) in [
            ("pipe", json!({"input": input, "steps": pipe})),
            ("full", json!({"input": {"text": input}, "steps": full})),
        ] {
            let (status, v) = run(&cli, &recipe).await;
            match &expected {
                Ok(data) => {
                    assert_eq!(status, 200, "round {round} {form}: {recipe} {v}");
                    assert_eq!(&v["data"]["result"], data, "round {round} {form}: {recipe}");
                    agreed += 1;
                }
                Err((at, code_status, code)) => {
                    assert_eq!(status, *code_status, "round {round} {form}: {recipe} {v}");
                    assert_eq!(&v["error"]["code"], code, "round {round} {form}");
                    if form == "pipe" {
                        assert_eq!(v["error"]["step"]["index"], json!(at), "round {round}: {v}");
                        let completed: Vec<Value> = (0..*at).map(|i| json!(i.to_string())).collect();
                        assert_eq!(v["error"]["completed"], json!(completed), "round {round}: {v}");
                    }
                    failures += 1;
                }
            }
        }
    }
    // Both outcomes were exercised.
    assert!(agreed > 200 && failures > 20, "{agreed} agreed, {failures} failures");
}

/// Every mistake found before anything runs is a 400 whose `field` is its exact place, and no
/// step ran (the error names no step).
#[tokio::test]
async fn mistakes_are_refused_before_running_at_their_place() {
    let cli = client_with(Config::default());
    let cases: Vec<(Value, &str, &str)> = vec![
        (json!({"input": "x", "steps": ["base64Encode", "noSuchOp"]}), "steps[1]", "no operation"),
        (json!({"input": "x", "steps": [{"op": "noSuchOp"}]}), "steps[0].op", "no operation"),
        (json!({"input": "x", "steps": ["createPaste"]}), "steps[0]", "stored state"),
        (json!({"input": "x", "steps": ["qrGenerate"]}), "steps[0]", "JSON"),
        (json!({"input": "x", "steps": ["listOperations"]}), "steps[0]", "recipe"),
        (
            json!({"input": "x", "steps": [{"id": "a", "op": "hexEncode"}, {"id": "a", "op": "hexDecode"}]}),
            "steps[1].id",
            "already",
        ),
        (
            json!({"input": "x", "steps": [{"op": "hexEncode", "args": {"nope": 1}}]}),
            "steps[0].args.nope",
            "no input field",
        ),
        (
            json!({"input": "x", "steps": [{"op": "hashText", "args": {"algorithm": 5}}]}),
            "steps[0].args.algorithm",
            "refuses",
        ),
        (
            json!({"input": "x", "steps": [{"op": "hashText", "args": {"algorithm": "sha999"}}]}),
            "steps[0].args.algorithm",
            "refuses",
        ),
        (
            json!({"input": "x", "steps": [{"op": "textLines", "args": {"steps": [{"op": "nope"}]}}]}),
            "steps[0].args.steps[0]",
            "refuses",
        ),
        (
            json!({"input": "x", "steps": [{"op": "hexEncode", "from": {"text": "/steps/b/encoded"}}, {"id": "b", "op": "hexEncode"}]}),
            "steps[0].from.text",
            "does not run before",
        ),
        (
            json!({"input": "x", "steps": ["hexEncode", {"op": "hexDecode", "from": {"encoded": "/steps/zz/encoded"}}]}),
            "steps[1].from.encoded",
            "no step has the id",
        ),
        (
            json!({"input": "x", "steps": ["hexEncode", {"op": "hexDecode", "from": {"encoded": "/steps/0/encodedd"}}]}),
            "steps[1].from.encoded",
            "has no field \"encodedd\"",
        ),
        (
            json!({"input": "x", "steps": ["base32Decode", {"op": "hexDecode", "from": {"encoded": "/steps/0/bytes"}}]}),
            "steps[1].from.encoded",
            "an integer",
        ),
        (
            json!({"input": {"n": 3}, "steps": [{"op": "hexEncode", "from": {"text": "/input/n"}}]}),
            "steps[0].from.text",
            "an integer",
        ),
        (
            json!({"input": {}, "steps": [{"op": "hexEncode", "from": {"text": "/input/missing"}}]}),
            "steps[0].from.text",
            "nothing at /input/missing",
        ),
        (
            json!({"input": "x", "steps": [{"op": "hexEncode", "from": {"text": "$item"}}]}),
            "steps[0].from.text",
            "forEach",
        ),
        (
            json!({"input": "x", "steps": [{"op": "hexEncode", "from": {"text": "input"}}]}),
            "steps[0].from.text",
            "pattern",
        ),
        (
            json!({"input": "x", "steps": [{"op": "hexEncode", "args": {"text": "a"}, "from": {"text": "/input"}}]}),
            "steps[0].from.text",
            "both",
        ),
        (
            json!({"input": {"s": "x"}, "steps": [{"op": "hexEncode", "forEach": "/input/s"}]}),
            "steps[0].forEach",
            "an array",
        ),
        (
            json!({"input": "x", "steps": ["hexEncode", {"op": "hexDecode", "when": {"path": "/steps/0/nope", "equals": 1}}]}),
            "steps[1].when.path",
            "has no field",
        ),
        (json!({"steps": ["hashText"]}), "steps[0]", "needs text"),
        (json!({"input": "x", "steps": ["hashText"]}), "steps[0]", "needs algorithm"),
        (
            json!({"input": "x", "steps": [{"op": "textStats", "from": {"text": "/input"}}, "hexEncode"]}),
            "steps[1]",
            "no primary output",
        ),
        (
            json!({"input": "x", "steps": [{"op": "hexEncode", "forEach": "/input/l"}, "hexDecode"], "result": "/steps/0"}),
            "steps[0].forEach",
            "nothing at",
        ),
        (
            json!({"input": {"l": ["a"]}, "steps": [{"op": "hexEncode", "forEach": "/input/l"}, "hexDecode"]}),
            "steps[1]",
            "forEach",
        ),
        (json!({"input": "x", "steps": ["hexEncode"], "result": "/steps/9/encoded"}), "result", "no step has the id"),
        (json!({"input": "x", "steps": ["hexEncode"], "result": {"a": "/steps/0/nope"}}), "result.a", "has no field"),
        (
            json!({"input": {"o": {}}, "steps": [{"op": "hexEncode", "from": {"text": "/input/o"}}]}),
            "steps[0].from.text",
            "an object",
        ),
        (json!({"input": {"x": 1}, "steps": ["hexEncode"]}), "input", "refuses"),
        (json!({"input": "x", "steps": vec!["hexEncode"; 33]}), "steps", "at most 32"),
        (json!({"input": "x", "steps": vec!["hexEncode"; 257]}), "steps", "between 1 and 256"),
        (json!({"input": "x", "steps": []}), "steps", "between 1 and 256"),
        (json!({"input": "x", "steps": ["hexEncode"], "onError": "maybe"}), "onError", ""),
    ];
    for (recipe, field, says) in cases {
        let (status, v) = run(&cli, &recipe).await;
        assert_eq!(status, 400, "{recipe}: {v}");
        assert_eq!(v["error"]["code"], "VALIDATION_ERROR", "{recipe}: {v}");
        assert_eq!(v["error"]["field"], field, "{recipe}: {v}");
        let message = v["error"]["message"].as_str().unwrap();
        assert!(message.contains(says), "{recipe}: {message:?} lacks {says:?}");
        assert!(v["error"]["step"].is_null() && v["error"]["completed"].is_null(), "{recipe}: {v}");
    }
}

/// A step's own refusal at run time keeps its code and status and is placed where its field
/// came from: the args, a from pointer, or the recipe's input through the pipe.
#[tokio::test]
async fn run_time_errors_keep_their_code_and_place() {
    let cli = client_with(Config::default());
    let cases: Vec<(Value, u16, &str, &str, Value)> = vec![
        (json!({"input": "!!", "steps": ["base64Decode"]}), 400, "VALIDATION_ERROR", "input", json!([])),
        (
            json!({"input": {"k": "!!"}, "steps": [{"id": "d", "op": "base64Decode", "from": {"encoded": "/input/k"}}]}),
            400,
            "VALIDATION_ERROR",
            "steps[0].from.encoded",
            json!([]),
        ),
        (
            json!({"input": "hi", "steps": ["hexEncode", {"op": "decompress", "args": {"format": "gzip", "inputEncoding": "utf-8"}}]}),
            400,
            "VALIDATION_ERROR",
            "steps[1]",
            json!(["0"]),
        ),
        (
            json!({"input": "hi", "steps": ["hexEncode", {"id": "x", "op": "decryptText", "args": {"password": "p"}, "from": {"ciphertext": "/steps/0/encoded"}}]}),
            400,
            "VALIDATION_ERROR",
            "steps[1].from.ciphertext",
            json!(["0"]),
        ),
    ];
    for (recipe, status, code, field, completed) in cases {
        let (s, v) = run(&cli, &recipe).await;
        assert_eq!(s, status, "{recipe}: {v}");
        assert_eq!(v["error"]["code"], code, "{recipe}: {v}");
        assert_eq!(v["error"]["field"], field, "{recipe}: {v}");
        assert_eq!(v["error"]["completed"], completed, "{recipe}: {v}");
        assert!(v["error"]["message"].as_str().unwrap().starts_with("steps["), "{v}");
    }
}

/// `onError: continue`, `when`, `forEach` and `result`.
#[tokio::test]
async fn continue_when_for_each_and_result() {
    let cli = client_with(Config::default());
    // A failed step is reported; what reads it is skipped; the rest runs.
    let (s, v) = run(
        &cli,
        &json!({"input": {"good": "aGk=", "bad": "!!"}, "onError": "continue", "steps": [
            {"id": "a", "op": "base64Decode", "from": {"encoded": "/input/bad"}},
            {"id": "b", "op": "textCase", "from": {"text": "/steps/a/decoded"}, "args": {"to": "upper"}},
            {"id": "c", "op": "base64Decode", "from": {"encoded": "/input/good"}},
            {"id": "d", "op": "textCase", "args": {"to": "upper"}}
        ], "result": {"b": "/steps/b/converted", "d": "/steps/d/converted"}}),
    )
    .await;
    assert_eq!(s, 200, "{v}");
    let steps = &v["data"]["steps"];
    assert_eq!(steps[0]["status"], "failed");
    assert_eq!(steps[0]["error"]["field"], "steps[0].from.encoded");
    assert_eq!(
        (&steps[1]["status"], &steps[2]["status"], &steps[3]["status"]),
        (&json!("skipped"), &json!("ok"), &json!("ok"))
    );
    assert_eq!(v["data"]["result"], json!({"b": null, "d": "HI"}));

    // `when`: a skipped step passes its piped input on.
    let recipe = |equals: &str| {
        json!({"input": "Hello", "steps": [
            "textSlugify",
            {"op": "textCase", "args": {"to": "upper"}, "when": {"path": "/input", "equals": equals}},
            "hexEncode"
        ]})
    };
    let (_, v) = run(&cli, &recipe("Hello")).await;
    assert_eq!(v["data"]["result"]["encoded"], "48454c4c4f", "{v}");
    let (_, v) = run(&cli, &recipe("other")).await;
    assert_eq!(v["data"]["result"]["encoded"], "68656c6c6f", "{v}");
    assert_eq!(v["data"]["steps"][1]["status"], "skipped");

    // `forEach` with `$item`, `$index` and the pipe; a failing item with `continue`.
    let (s, v) = run(
        &cli,
        &json!({"input": {"list": ["aGk=", "!!", "eW8="]}, "onError": "continue", "steps": [
            {"id": "each", "op": "base64Decode", "forEach": "/input/list"},
            {"id": "n", "op": "textCase", "forEach": "/input/list", "from": {"text": "$item"}, "args": {"to": "upper"}}
        ], "result": {"decoded": "/steps/each/items", "errors": "/steps/each/errors", "first": "/steps/n/items/0/converted"}}),
    )
    .await;
    assert_eq!(s, 200, "{v}");
    let r = &v["data"]["result"];
    assert_eq!(r["decoded"][0]["decoded"], "hi");
    assert!(r["decoded"][1].is_null());
    assert_eq!(r["decoded"][2]["decoded"], "yo");
    assert_eq!(r["errors"][0]["index"], 1);
    assert_eq!(r["first"], "AGK=");
    assert_eq!(v["data"]["steps"][0]["runs"], 3);
    // With `stop`, the failing item ends the recipe and is named.
    let (s, v) = run(
        &cli,
        &json!({"input": {"list": ["aGk=", "!!"]}, "steps": [{"op": "base64Decode", "forEach": "/input/list"}]}),
    )
    .await;
    assert_eq!(s, 400);
    assert_eq!(v["error"]["step"]["item"], 1, "{v}");

    // `trace` holds each step's built input and data.
    let (_, v) = run(&cli, &json!({"input": "hi", "steps": ["hexEncode", "hexDecode"], "trace": true})).await;
    assert_eq!(v["data"]["trace"][1]["input"], json!({"encoded": "6869"}));
    assert_eq!(v["data"]["trace"][1]["data"]["decoded"], "hi");
}

/// The bounds: runs in all, items of one forEach, the time budget, and the data of all steps
/// together; a body over the limit is 413.
#[tokio::test]
async fn bounds_hold() {
    let config = || {
        Config::from_vars(&[
            ("WRENCH_RECIPE_MAX_EXECUTIONS".to_string(), "4".to_string()),
            ("WRENCH_RECIPE_MAX_ITEMS".to_string(), "3".to_string()),
            ("WRENCH_RECIPE_TIME_BUDGET".to_string(), "1".to_string()),
        ])
        .unwrap()
    };
    let cli = client_with(config());
    let each = |n: usize| json!({"input": {"l": vec!["a"; n]}, "steps": [{"op": "hexEncode", "forEach": "/input/l"}]});
    let (s, v) = run(&cli, &each(3)).await;
    assert_eq!(s, 200, "{v}");
    let (s, v) = run(&cli, &each(4)).await;
    assert_eq!((s, v["error"]["field"].as_str()), (400, Some("steps[0].forEach")), "{v}");
    assert!(v["error"]["message"].as_str().unwrap().contains("WRENCH_RECIPE_MAX_ITEMS"));
    let (s, v) = run(
        &cli,
        &json!({"input": {"l": ["a", "b", "c"]}, "onError": "continue", "steps": [
        {"op": "hexEncode", "forEach": "/input/l"}, {"op": "hexEncode", "forEach": "/input/l"}]}),
    )
    .await;
    assert_eq!(s, 400, "the bound on runs holds even with continue: {v}");
    assert!(v["error"]["message"].as_str().unwrap().contains("WRENCH_RECIPE_MAX_EXECUTIONS"), "{v}");
    assert_eq!(v["error"]["step"]["index"], 1);
    // Slow steps meet the time budget (bcrypt at cost 14 takes about a second each).
    let started = std::time::Instant::now();
    let (s, v) = run(
        &cli,
        &json!({"input": {"l": ["a", "b", "c"]}, "steps": [
        {"op": "passwordHash", "forEach": "/input/l", "args": {"algorithm": "bcrypt", "params": {"cost": 14}}}]}),
    )
    .await;
    assert_eq!(s, 400, "{v}");
    assert!(v["error"]["message"].as_str().unwrap().contains("WRENCH_RECIPE_TIME_BUDGET"), "{v}");
    assert!(started.elapsed() < std::time::Duration::from_secs(3), "{:?}", started.elapsed());

    // All the steps' data together: 40 runs of about 1 MB each pass four times 8 MiB.
    let cli = client_with(Config::default());
    let big = "a".repeat(500_000);
    let (s, v) = run(
        &cli,
        &json!({"input": {"big": big, "l": vec![0; 40]}, "steps": [
        {"op": "hexEncode", "forEach": "/input/l", "from": {"text": "/input/big"}}], "result": "/steps/0/errors"}),
    )
    .await;
    assert_eq!(
        (s, v["error"]["code"].as_str()),
        (400, Some("RESULT_TOO_LARGE")),
        "{}",
        &v.to_string()[..300.min(v.to_string().len())]
    );
    // A trace keeps every built input, and they count in the same sum: 70 inputs of 500 KB
    // pass it where the 70 small answers alone do not.
    let each_big = |trace: bool| {
        json!({"input": {"big": "a".repeat(500_000), "l": vec![0; 70]}, "trace": trace,
        "steps": [{"op": "hashText", "forEach": "/input/l", "from": {"text": "/input/big"}, "args": {"algorithm": "md5"}}],
        "result": "/steps/0/errors"})
    };
    let (s, v) = run(&cli, &each_big(false)).await;
    assert_eq!((s, &v["data"]["result"]), (200, &json!([])), "{}", &v.to_string()[..300.min(v.to_string().len())]);
    let (s, v) = run(&cli, &each_big(true)).await;
    assert_eq!((s, v["error"]["code"].as_str()), (400, Some("RESULT_TOO_LARGE")));
    // One step's answer is bounded as a single call's is (eight bits and a space a byte).
    let small = Config::from_vars(&[("WRENCH_RESPONSE_LIMIT".to_string(), "6422528".to_string())]).unwrap();
    let (s, v) = run(
        &client_with(small),
        &json!({"input": "a".repeat(800_000), "steps": [
        {"op": "textCase", "args": {"to": "lower"}}, {"op": "bytesConvert", "args": {"to": "binary"}}]}),
    )
    .await;
    assert_eq!(
        (s, v["error"]["code"].as_str(), v["error"]["step"]["index"].as_u64()),
        (400, Some("RESULT_TOO_LARGE"), Some(1)),
        "{v}"
    );
    // A step's input is held to the body limit as a call's is: 413.
    let (s, v) = run(&cli, &json!({"input": "a".repeat(700_000), "steps": ["hexEncode", "hexEncode"]})).await;
    assert_eq!(
        (s, v["error"]["code"].as_str(), v["error"]["step"]["index"].as_u64()),
        (413, Some("PAYLOAD_TOO_LARGE"), Some(1))
    );
    // The body limit is the service's: 413, not a crash.
    let huge = json!({"input": "a".repeat(1_100_000), "steps": ["hexEncode"]});
    let (s, v) = run(&cli, &huge).await;
    assert_eq!((s, v["error"]["code"].as_str()), (413, Some("PAYLOAD_TOO_LARGE")));
}

/// Every operation a recipe runs counts against the caller's rate limit: the request pays for
/// the first, each further one counts as a request.
#[tokio::test]
async fn rate_limits_count_every_operation_run() {
    const KEY: &str = "wr_recipe_rate_key";
    let digest: [u8; 32] = Sha256::digest(KEY.as_bytes()).into();
    let config = Config::from_vars(&[("WRENCH_RATE_KEY_PER_MINUTE".to_string(), "5".to_string())]).unwrap();
    let cli = client_with(Config { api_keys: vec![digest], ..config });
    common::away_from_minute_boundary().await;
    let send = |body: Value| {
        let cli = &cli;
        async move {
            let resp = cli.post("/v1/recipes/run").header("X-API-Key", KEY).body_json(&body).send().await;
            let status = resp.0.status().as_u16();
            let v: Value = serde_json::from_slice(&resp.0.into_body().into_vec().await.unwrap()).unwrap();
            (status, v)
        }
    };
    let (s, v) = send(json!({"input": "x", "steps": ["hexEncode", "hexDecode", "hexEncode"]})).await;
    assert_eq!(s, 200, "{v}");
    // Three spent; the fourth and fifth run, the sixth is refused with the step named.
    let (s, v) = send(json!({"input": "x", "steps": ["hexEncode", "hexDecode", "hexEncode"]})).await;
    assert_eq!((s, v["error"]["code"].as_str()), (429, Some("RATE_LIMITED")), "{v}");
    assert_eq!(v["error"]["step"]["index"], 2, "{v}");
    assert_eq!(v["error"]["completed"], json!(["0", "1"]));
}

/// The catalog: the document's schemas with their references followed, each declared pipe
/// field in them, the filters, and the entity tag.
#[tokio::test]
async fn the_catalog_is_the_document() {
    let cli = client_with(Config::default());
    let catalog = entries(&cli).await;
    let doc: Value = {
        let resp = cli.get("/openapi.json").send().await;
        serde_json::from_slice(&resp.0.into_body().into_vec().await.unwrap()).unwrap()
    };
    let ops = wrench::operations();
    assert_eq!(catalog.len(), ops.len());
    let mut checked = 0;
    for op in &ops {
        let entry = &catalog[op.id()];
        // The input schema of the route a step uses is the document's request body.
        let body_route = op.routes.iter().find(|r| r.input == wrench_contract::op::InputKind::Body);
        if let Some(route) = body_route {
            let path = &doc["paths"][route.path][route.method.lower()];
            let schema = &path["requestBody"]["content"]["application/json"]["schema"];
            let resolved = resolve(&doc, schema, &mut Vec::new());
            assert_eq!(resolve_defs(&entry["inputSchema"]), resolved, "{}", op.id());
            checked += 1;
        }
        // The output schema is the document's `data`.
        let main = op.routes[0];
        let envelope =
            &doc["paths"][main.path][main.method.lower()]["responses"]["200"]["content"]["application/json"]["schema"];
        if !envelope.is_null() {
            let data = &resolve(&doc, envelope, &mut Vec::new())["properties"]["data"];
            assert_eq!(&resolve_defs(&entry["outputSchema"]), data, "{}", op.id());
        }
        if let Some(pipe) = op.pipe {
            assert!(entry["inputSchema"]["properties"].get(pipe.input).is_some(), "{}: {}", op.id(), pipe.input);
            let out = resolve_defs(&entry["outputSchema"]);
            assert!(out["properties"].get(pipe.output).is_some(), "{}: {}", op.id(), pipe.output);
            assert_eq!(entry["recipeable"], true, "{} declares a pipe", op.id());
        }
        let stateful = op.uses.contains(&wrench_contract::op::Uses::Store);
        assert_eq!(entry["stateful"], stateful);
        if stateful || op.output != wrench_contract::op::OutputKind::Json {
            assert_eq!(entry["recipeable"], false, "{}", op.id());
        }
    }
    assert!(checked > 200, "{checked}");
    // A recipe can answer with any code one of its steps can.
    let mine: Vec<Value> = catalog["runRecipe"]["errorCodes"].as_array().unwrap().clone();
    for (id, e) in &catalog {
        if e["recipeable"] == true {
            for code in e["errorCodes"].as_array().unwrap() {
                assert!(mine.contains(code), "{id} answers {code}, which runRecipe does not declare");
            }
        }
    }
    // Filters.
    let (_, v) = get(&cli, "/v1/operations?q=BASE64%2Fencode").await;
    assert_eq!(v["data"]["count"], 1, "{v}");
    let (_, v) = get(&cli, "/v1/operations?tag=storage&recipeable=true").await;
    assert_eq!(v["data"]["count"], 0);
    let (_, v) = get(&cli, "/v1/operations?tag=Text%20and%20data&recipeable=true").await;
    assert!(v["data"]["count"].as_u64().unwrap() > 50);
    let (s, v) = get(&cli, "/v1/operations/hashTextAlias").await;
    assert_eq!((s, v["data"]["operationId"].as_str()), (200, Some("hashText")), "an alias finds its operation");
    let (s, _) = get(&cli, "/v1/operations/nothing").await;
    assert_eq!(s, 404);
    // The entity tag: 304 when held, the answer when not.
    let resp = cli.get("/v1/operations").send().await;
    let etag = resp.0.headers().get("etag").unwrap().to_str().unwrap().to_string();
    assert_eq!(resp.0.headers().get("cache-control").unwrap(), "no-cache");
    for held in [etag.clone(), format!("W/{etag}"), format!("\"other\", {etag}"), "*".into()] {
        let resp = cli.get("/v1/operations/base64Decode").header("If-None-Match", held).send().await;
        assert_eq!(resp.0.status().as_u16(), 304);
        assert_eq!(resp.0.headers().get("etag").unwrap().to_str().unwrap(), etag);
        assert!(resp.0.into_body().into_vec().await.unwrap().is_empty());
    }
    let resp = cli.get("/v1/operations").header("If-None-Match", "\"other\"").send().await;
    assert_eq!(resp.0.status().as_u16(), 200);
}

/// A batch answers each input as a run of it alone would.
#[tokio::test]
async fn a_batch_answers_each_input_as_a_run() {
    let cli = client_with(Config::default());
    let steps = json!(["base64Decode", {"op": "textCase", "args": {"to": "upper"}}]);
    let inputs = ["aGVsbG8=", "!!", "", "d29ybGQ="];
    let (s, v) = common::post_json(&cli, "/v1/recipes/batch", &json!({"inputs": inputs, "steps": steps})).await;
    assert_eq!(s, 200, "{v}");
    assert_eq!((v["data"]["succeeded"].as_u64(), v["data"]["failed"].as_u64()), (Some(3), Some(1)));
    for (i, input) in inputs.iter().enumerate() {
        let (s, single) = run(&cli, &json!({"input": input, "steps": steps})).await;
        let item = &v["data"]["results"][i];
        assert_eq!(item["success"], s == 200);
        if s == 200 {
            assert_eq!(item["data"]["result"], single["data"]["result"]);
        } else {
            let mut error = single["error"].clone();
            error["status"] = json!(s);
            assert_eq!(item["error"], error);
        }
    }
    let (s, v) =
        common::post_json(&cli, "/v1/recipes/batch", &json!({"inputs": ["x"], "steps": ["hexEncode", "nope"]})).await;
    assert_eq!((s, v["error"]["field"].as_str()), (400, Some("steps[1]")));
    let (s, _) =
        common::post_json(&cli, "/v1/recipes/batch", &json!({"inputs": vec!["x"; 101], "steps": ["hexEncode"]})).await;
    assert_eq!(s, 400);
}

/// `schema` with every `$ref` into the document's components replaced by its target.
fn resolve(doc: &Value, schema: &Value, seen: &mut Vec<String>) -> Value {
    match schema {
        Value::Object(m) => {
            if let Some(r) = m.get("$ref").and_then(Value::as_str) {
                let name = r.rsplit('/').next().unwrap().to_string();
                if seen.contains(&name) {
                    return json!({"$recursive": name});
                }
                seen.push(name.clone());
                let mut out = resolve(doc, &doc["components"]["schemas"][&name], seen);
                seen.pop();
                for (k, v) in m.iter().filter(|(k, _)| *k != "$ref") {
                    out[k] = resolve(doc, v, seen);
                }
                return out;
            }
            Value::Object(m.iter().map(|(k, v)| (k.clone(), resolve(doc, v, seen))).collect())
        }
        Value::Array(a) => Value::Array(a.iter().map(|v| resolve(doc, v, seen)).collect()),
        other => other.clone(),
    }
}

/// A standalone schema with its `$defs` references followed, in the same way.
fn resolve_defs(schema: &Value) -> Value {
    let mut doc = json!({"components": {"schemas": schema.get("$defs").cloned().unwrap_or(json!({}))}});
    let mut body = schema.clone();
    if let Some(m) = body.as_object_mut() {
        m.remove("$defs");
    }
    let text = serde_json::to_string(&body).unwrap().replace("#/$defs/", "#/components/schemas/");
    let text_doc = serde_json::to_string(&doc).unwrap().replace("#/$defs/", "#/components/schemas/");
    doc = serde_json::from_str(&text_doc).unwrap();
    resolve(&doc, &serde_json::from_str(&text).unwrap(), &mut Vec::new())
}

/// The detector: every candidate's recipe, run, gives the candidate's output (its trials are
/// those very operations), and encodings of known text put that text first.
#[tokio::test]
async fn every_detected_candidate_is_what_its_recipe_gives() {
    let cli = client_with(Config::default());
    let catalog = entries(&cli).await;
    let plain = "It was the best of times, it was the worst of times.";
    // Encodings made by the encoders, one to three deep; the detector must undo them.
    let chains: Vec<Vec<(&str, Value)>> = vec![
        vec![("base64Encode", json!({}))],
        vec![("hexEncode", json!({}))],
        vec![("base32Encode", json!({}))],
        vec![("urlEncode", json!({}))],
        vec![("rot", json!({"variant": "rot13"}))],
        vec![("compress", json!({"format": "gzip"})), ("base64Encode", json!({}))],
        vec![("compress", json!({"format": "zlib"})), ("hexEncode", json!({}))],
        vec![("hexEncode", json!({})), ("base64Encode", json!({}))],
        vec![("htmlEntitiesEncode", json!({"mode": "decimal"}))],
        vec![("base58Encode", json!({}))],
        vec![("compress", json!({"format": "gzip"})), ("quotedPrintableEncode", json!({"binary": true}))],
        vec![("rot", json!({"variant": "rot13"})), ("base64Encode", json!({})), ("hexEncode", json!({}))],
    ];
    for chain in chains {
        let encoded = by_hand(&cli, &catalog, plain, &chain).await.unwrap();
        let last = catalog[chain.last().unwrap().0]["primaryOutput"].as_str().unwrap();
        let input = encoded[last].as_str().unwrap();
        let (s, v) = common::post_json(&cli, "/v1/detect", &json!({"input": input, "limit": 50})).await;
        assert_eq!(s, 200, "{v}");
        let candidates = v["data"]["candidates"].as_array().unwrap();
        assert_eq!(candidates[0]["output"], plain, "{chain:?}: {:?}", &candidates[..3]);
        for c in candidates {
            if c["recipe"].is_null() {
                assert_eq!((&c["output"], c["decodings"].as_array().map(Vec::len)), (&json!(input), Some(0)));
                continue;
            }
            let (s, ran) = run(&cli, &c["recipe"]).await;
            assert_eq!(s, 200, "{}: {ran}", c["recipe"]);
            let last = c["recipe"]["steps"].as_array().unwrap().last().unwrap();
            let op = last.get("op").unwrap_or(last).as_str().unwrap();
            let data = &ran["data"]["result"];
            let out = &data[catalog[op]["primaryOutput"].as_str().unwrap()];
            let bytes = |text: &str, encoding: &str| match encoding {
                "base64" => base64_bytes(text),
                _ => text.as_bytes().to_vec(),
            };
            let given = match out {
                Value::String(t) => bytes(t, data["outputEncoding"].as_str().unwrap_or("utf-8")),
                other => serde_json::to_vec(other).unwrap(),
            };
            let expected = bytes(c["output"].as_str().unwrap(), c["outputEncoding"].as_str().unwrap());
            assert_eq!(given, expected, "{}", c["recipe"]);
        }
    }
    // A crib ranks what holds it first.
    let (_, v) = common::post_json(&cli, "/v1/detect", &json!({"input": "Uryyb, jbeyq", "crib": "Hello"})).await;
    assert_eq!(v["data"]["candidates"][0]["matchesCrib"], true);
    assert_eq!(v["data"]["candidates"][0]["output"], "Hello, world");
}

fn base64_bytes(text: &str) -> Vec<u8> {
    use base64::Engine;
    base64::engine::general_purpose::STANDARD.decode(text).unwrap()
}

/// The npm `cyberchef` package's install directory (`WRENCH_TEST_CYBERCHEF`); without it the
/// comparison is skipped, and fails under `WRENCH_TEST_REQUIRE_CYBERCHEF=1`, which CI sets.
fn cyberchef() -> Option<String> {
    let dir = std::env::var("WRENCH_TEST_CYBERCHEF")
        .ok()
        .filter(|d| std::path::Path::new(d).join("node_modules/cyberchef").is_dir());
    if dir.is_none() {
        let required = std::env::var("WRENCH_TEST_REQUIRE_CYBERCHEF").is_ok_and(|v| v == "1");
        assert!(!required, "WRENCH_TEST_CYBERCHEF does not name an install of the npm cyberchef package");
        common::skipped(
            "the npm cyberchef package is not installed (WRENCH_TEST_CYBERCHEF): translations not baked by it",
        );
    }
    dir
}

/// Every row of the CyberChef table, on recipes that use it: CyberChef's own `bake()` and the
/// translation run here give the same bytes.
#[tokio::test]
async fn translated_cyberchef_recipes_give_the_bytes_cyberchef_bakes() {
    let Some(dir) = cyberchef() else { return };
    let cli = client_with(Config::default());
    let catalog = entries(&cli).await;
    let json_doc = r#"{"b":1,"a":[1,2,{"c":"é"}]}"#;
    let cases: Vec<(&str, Value)> = vec![
        ("Hello, World!", json!([{"op": "To Base64", "args": ["A-Za-z0-9+/="]}])),
        ("subjects?_d=ÿ~", json!([{"op": "To Base64", "args": ["A-Za-z0-9-_"]}])),
        ("SGVsbG8sIFdvcmxkIQ==", json!([{"op": "From Base64", "args": ["A-Za-z0-9+/=", true, false]}])),
        ("c3ViamVjdHM_X2Q9w78", json!([{"op": "From Base64", "args": ["A-Za-z0-9-_", true, false]}])),
        ("48 65 6c 6c 6f", json!([{"op": "From Hex", "args": ["Auto"]}])),
        ("48:65:6C:6c:6F", json!([{"op": "From Hex", "args": ["Colon"]}])),
        ("Hello", json!([{"op": "To Hex", "args": ["Space", 0]}])),
        ("Hello", json!([{"op": "To Hex", "args": ["Comma", 0]}])),
        ("Hello", json!([{"op": "To Hex", "args": ["None", 0]}])),
        ("Hello, World! 123", json!([{"op": "ROT13", "args": [true, true, false, 13]}])),
        ("Hello, World! 123", json!([{"op": "ROT13", "args": [true, true, false, 3]}])),
        ("Hello, World! 123", json!([{"op": "ROT47", "args": [47]}])),
        (
            "H4sIAAAAAAACA6tWykvMTVWyUiovSs1LzlDSUSrJz88pVrKKNtQx0jGOrQUANF3CISEAAAA=",
            json!([{"op": "From Base64", "args": ["A-Za-z0-9+/=", true, false]}, {"op": "Gunzip", "args": []}]),
        ),
        (
            "eJyrVspLzE1VslIqL0rNS85Q0lEqyc/PKVayijbUMdIxjq0FALesCmQ=",
            json!([{"op": "From Base64", "args": ["A-Za-z0-9+/=", true, false]}, {"op": "Zlib Inflate", "args": [0, 0, "Adaptive", false, false]}]),
        ),
        (
            "q1bKS8xNVbJSKi9KzUvOUNJRKsnPzylWsoo21DHSMY6tBQA=",
            json!([{"op": "From Base64", "args": ["A-Za-z0-9+/=", true, false]}, {"op": "Raw Inflate", "args": [0, 0, "Adaptive", false, false]}]),
        ),
        (
            "QlpoOTFBWSZTWfBnqgkAAA+bgBAEOBAACipHnIogACIgaNGgxNBRoyBo0yNDNXG9bFgQoA4QEZGUuT67iHvfF3JFOFCQ8GeqCQ==",
            json!([{"op": "From Base64", "args": ["A-Za-z0-9+/=", true, false]}, {"op": "Bzip2 Decompress", "args": [false]}]),
        ),
        ("Hello World ünïcode", json!([{"op": "To Upper case", "args": ["All"]}])),
        ("Hello World ÜNÏCODE", json!([{"op": "To Lower case", "args": []}])),
        ("Hello World again", json!([{"op": "To Snake case", "args": [false]}])),
        ("Hello World again", json!([{"op": "To Kebab case", "args": [false]}])),
        ("Hello World again", json!([{"op": "To Camel case", "args": [false]}])),
        ("abc", json!(["MD5"])),
        ("abc", json!([{"op": "SHA1", "args": [80]}])),
        ("abc", json!([{"op": "SHA2", "args": ["224", 64, 160]}])),
        ("abc", json!([{"op": "SHA2", "args": ["256", 64, 160]}])),
        ("abc", json!([{"op": "SHA2", "args": ["384", 64, 160]}])),
        ("abc", json!([{"op": "SHA2", "args": ["512", 64, 160]}])),
        ("abc", json!([{"op": "SHA3", "args": ["256"]}])),
        ("abc", json!([{"op": "SHA3", "args": ["512"]}])),
        ("message", json!([{"op": "HMAC", "args": [{"option": "UTF8", "string": "key"}, "SHA256"]}])),
        ("message", json!([{"op": "HMAC", "args": [{"option": "Hex", "string": "6b6579"}, "MD5"]}])),
        ("Hello!", json!([{"op": "To Base32", "args": ["A-Z2-7="]}])),
        ("JBSWY3DPEE======", json!([{"op": "From Base32", "args": ["A-Z2-7=", true]}])),
        ("Gr=C3=BC=C3=9Fe aus K=C3=B6ln =3D=\r\n greetings", json!([{"op": "From Quoted Printable", "args": []}])),
        ("=E2=9C=93 done=\r\n", json!([{"op": "From Quoted Printable", "args": []}])),
        (
            "Hello World",
            json!([{"op": "To Base58", "args": ["123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz"]}]),
        ),
        (
            "JxF12TrwUP45BMd",
            json!([{"op": "From Base58", "args": ["123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz", true]}]),
        ),
        (json_doc, json!([{"op": "JSON Beautify", "args": ["  ", false, true]}])),
        (json_doc, json!([{"op": "JSON Beautify", "args": ["    ", false, true]}])),
        ("{\n  \"a\" : [ 1, 2 ] ,\n \"b\": \"x y\"\n}", json!([{"op": "JSON Minify", "args": []}])),
        ("Hi! é", json!([{"op": "To Decimal", "args": ["Space", false]}])),
        ("Hi!", json!([{"op": "To Decimal", "args": ["Comma", false]}])),
        ("72 105 33", json!([{"op": "From Decimal", "args": ["Space", false]}])),
        ("Hi!", json!([{"op": "To Binary", "args": ["Space", 8]}])),
        ("01001000 01101001", json!([{"op": "From Binary", "args": ["Space", 8]}])),
        ("110 151 41", json!([{"op": "From Octal", "args": ["Space"]}])),
        ("Hello, World", json!([{"op": "XOR", "args": [{"option": "UTF8", "string": "key"}, "Standard", false]}])),
        ("Hello, World", json!([{"op": "XOR", "args": [{"option": "Hex", "string": "0aff"}, "Standard", false]}])),
        ("e\u{301} ﬁ", json!([{"op": "Normalise Unicode", "args": ["NFC"]}])),
        ("é ﬁ", json!([{"op": "Normalise Unicode", "args": ["NFKD"]}])),
        ("münchen.de", json!([{"op": "To Punycode", "args": [true]}])),
        ("xn--mnchen-3ya.de", json!([{"op": "From Punycode", "args": [true]}])),
        ("a%20b%2Fc%C3%A9", json!([{"op": "URL Decode", "args": [true]}])),
        ("hxxps://example[.]com/x", json!([{"op": "Fang URL", "args": [true, true, true]}])),
        // A chain of rows: what each gives the next is what CyberChef gives it.
        (
            "Hello, World!",
            json!([{"op": "To Base64", "args": ["A-Za-z0-9+/="]}, {"op": "ROT13", "args": [true, true, false, 13]}, {"op": "To Hex", "args": ["None", 0]}, "MD5"]),
        ),
    ];
    let mut baked_input = Vec::new();
    for (input, recipe) in &cases {
        baked_input.push(json!({"input": input, "recipe": recipe}));
    }
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/cyberchef_bake.mjs");
    let bake = common::tool(&["node", script, &dir], &serde_json::to_vec(&baked_input).unwrap()).expect("node runs");
    let baked: Vec<Value> = serde_json::from_slice(&bake.stdout)
        .unwrap_or_else(|_| panic!("the bake script answers JSON: {}", String::from_utf8_lossy(&bake.stderr)));
    assert_eq!(baked.len(), cases.len());
    for ((input, recipe), chef) in cases.iter().zip(&baked) {
        let (s, t) = common::post_json(&cli, "/v1/recipes/from-cyberchef", &json!({"recipe": recipe})).await;
        assert_eq!(s, 200, "{t}");
        assert_eq!(t["data"]["complete"], true, "{recipe}: {t}");
        let (s, ran) = run(&cli, &json!({"input": input, "steps": t["data"]["steps"]})).await;
        assert_eq!(s, 200, "{recipe} as {}: {ran}", t["data"]["steps"]);
        let steps = t["data"]["steps"].as_array().unwrap();
        let last = steps.last().unwrap();
        let op = last.get("op").unwrap_or(last).as_str().unwrap();
        let data = &ran["data"]["result"];
        let out = &data[catalog[op]["primaryOutput"].as_str().unwrap()];
        let mine = match data["outputEncoding"].as_str() {
            Some("base64") => base64_bytes(out.as_str().unwrap()),
            _ => out.as_str().unwrap().as_bytes().to_vec(),
        };
        let theirs =
            hex::decode(chef["hex"].as_str().unwrap_or_else(|| panic!("{recipe}: CyberChef: {chef}"))).unwrap();
        assert_eq!(
            String::from_utf8_lossy(&mine),
            String::from_utf8_lossy(&theirs),
            "{input:?} through {recipe} (translated {})",
            t["data"]["steps"]
        );
        assert_eq!(mine, theirs);
    }
}

/// What has no faithful translation is listed with its reason, and the rest is translated.
#[tokio::test]
async fn untranslatable_cyberchef_steps_are_listed() {
    let cli = client_with(Config::default());
    let recipe = json!([
        {"op": "Fork", "args": ["\\n", "\\n", false]},
        {"op": "From Base64", "args": ["A-Za-z0-9+", true, false]},
        {"op": "Comment", "args": ["a note"]},
        {"op": "ROT13", "args": [true, true, true, 13]},
        {"op": "Entropy", "args": ["Shannon scale"]},
        {"op": "To Hex", "args": ["Space", 0], "disabled": true},
        {"op": "MD5", "args": [], "breakpoint": true}
    ]);
    let (s, v) = common::post_json(&cli, "/v1/recipes/from-cyberchef", &json!({"recipe": recipe})).await;
    assert_eq!(s, 200, "{v}");
    let d = &v["data"];
    assert_eq!(d["complete"], false);
    assert_eq!(d["steps"], json!([{"op": "hashText", "args": {"algorithm": "md5"}}]));
    assert_eq!(d["ignored"], json!([2, 5]));
    let listed: Vec<(u64, &str)> = d["unsupported"]
        .as_array()
        .unwrap()
        .iter()
        .map(|u| (u["index"].as_u64().unwrap(), u["reason"].as_str().unwrap()))
        .collect();
    assert_eq!(listed.iter().map(|l| l.0).collect::<Vec<_>>(), [0, 1, 3, 4]);
    assert!(listed[0].1.contains("forEach") && listed[1].1.contains("alphabet") && listed[2].1.contains("digits"));
    let (s, _) = common::post_json(
        &cli,
        "/v1/recipes/from-cyberchef",
        &json!({"recipe": [{"op": "MD5", "args": [], "extra": 1}]}),
    )
    .await;
    assert_eq!(s, 400);
}

/// The detector's first guess is CyberChef Magic's on encodings of text, one to three deep.
#[tokio::test]
async fn the_detectors_first_guess_is_cyberchef_magics() {
    let Some(dir) = cyberchef() else { return };
    let cli = client_with(Config::default());
    let catalog = entries(&cli).await;
    let texts =
        ["Hello, World!", "It was the best of times, it was the worst of times.", "wrench: a self-hostable API"];
    let chains: Vec<Vec<(&str, Value)>> = vec![
        vec![("base64Encode", json!({}))],
        vec![("hexEncode", json!({"delimiter": ""}))],
        vec![("hexEncode", json!({"delimiter": " "}))],
        vec![("base32Encode", json!({}))],
        vec![("urlEncode", json!({}))],
        vec![("bytesConvert", json!({"to": "decimal"}))],
        vec![("bytesConvert", json!({"to": "binary"}))],
        vec![("htmlEntitiesEncode", json!({"mode": "decimal"}))],
        vec![("base64Encode", json!({})), ("hexEncode", json!({"delimiter": ""}))],
        vec![("hexEncode", json!({"delimiter": ""})), ("base64Encode", json!({}))],
        vec![("compress", json!({"format": "gzip"})), ("base64Encode", json!({}))],
        vec![("base64Encode", json!({})), ("urlEncode", json!({})), ("base64Encode", json!({}))],
    ];
    let mut inputs = Vec::new();
    for text in texts {
        for chain in &chains {
            let encoded = by_hand(&cli, &catalog, text, chain).await.unwrap();
            let field = catalog[chain.last().unwrap().0]["primaryOutput"].as_str().unwrap();
            inputs.push((text, encoded[field].as_str().unwrap().to_string()));
        }
    }
    let cases: Vec<Value> = inputs.iter().map(|(_, i)| json!({"input": i, "magic": 3})).collect();
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/cyberchef_bake.mjs");
    let ran = common::tool(&["node", script, &dir], &serde_json::to_vec(&cases).unwrap()).expect("node runs");
    let magic: Vec<Value> = serde_json::from_slice(&ran.stdout).expect("the script answers JSON");
    let (mut agreed, mut missed) = (0, Vec::new());
    for ((text, input), theirs) in inputs.iter().zip(&magic) {
        let (_, v) = common::post_json(&cli, "/v1/detect", &json!({"input": input})).await;
        let mine = v["data"]["candidates"][0]["output"].as_str().unwrap();
        let theirs = String::from_utf8(hex::decode(theirs["hex"].as_str().unwrap()).unwrap()).unwrap();
        assert_eq!(mine, *text, "{input}: the detector's first guess");
        if theirs == mine {
            agreed += 1;
        } else {
            missed.push((input, theirs));
        }
    }
    // The detector finds every text; Magic's first guess is the same for most, and where it is
    // not, Magic stopped at an intermediate form (percent-encoded text, a gzip stream).
    assert!(agreed * 10 >= inputs.len() * 8, "{agreed} of {} agree; Magic's other guesses: {missed:?}", inputs.len());
    for (input, theirs) in &missed {
        assert!(theirs.contains('%') || theirs.starts_with('\u{1f}'), "{input}: Magic guessed {theirs:?}");
    }
}
