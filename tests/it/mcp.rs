//! MCP over Streamable HTTP, spoken as JSON-RPC by hand against the real binary: the tool list
//! matches the registry, calls go through the routes' keys and rate limits, and errors come
//! back as tool errors naming the field. (CI also drives both transports with the official
//! Python SDK: sdk/mcp/smoke.py.)

use crate::common;

use std::{process::Command, time::Duration};

use serde_json::{Value, json};
use sha2::{Digest, Sha256};

const KEY: &str = "wr_mcp_test_key";

struct Server {
    child: std::process::Child,
    port: u16,
    data: std::path::PathBuf,
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        let _ = std::fs::remove_dir_all(&self.data);
    }
}

async fn start() -> Server {
    let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let data = std::env::temp_dir().join(format!("wrench-mcp-test-{port}"));
    let digest = hex::encode(Sha256::digest(KEY.as_bytes()));
    let child = Command::new(env!("CARGO_BIN_EXE_wrench"))
        .env("WRENCH_LISTEN", format!("127.0.0.1:{port}"))
        .env("WRENCH_LOG", "warn")
        .env("WRENCH_DATA_DIR", &data)
        .env("WRENCH_API_KEYS", digest)
        .env("WRENCH_RATE_ANON_PER_MINUTE", "3")
        .stdout(std::process::Stdio::null())
        .spawn()
        .unwrap();
    common::when_listening(port, Duration::from_secs(10)).await;
    Server { child, port, data }
}

/// One JSON-RPC request to /mcp; the HTTP status and the JSON-RPC answer.
async fn rpc(port: u16, key: Option<&str>, method: &str, params: Value) -> (u16, Value) {
    let mut request = reqwest::Client::new()
        .post(format!("http://127.0.0.1:{port}/mcp"))
        .header("Accept", "application/json, text/event-stream")
        .header("MCP-Protocol-Version", "2025-06-18")
        .header("Content-Type", "application/json")
        .body(json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params}).to_string());
    if let Some(k) = key {
        request = request.header("X-API-Key", k);
    }
    let response = request.send().await.unwrap();
    let status = response.status().as_u16();
    let text = response.text().await.unwrap();
    // A JSON answer, or one server-sent event carrying it.
    let json = text.lines().find_map(|l| l.strip_prefix("data: ")).unwrap_or(&text);
    (status, serde_json::from_str(json).unwrap_or(Value::Null))
}

async fn call(port: u16, key: Option<&str>, tool: &str, arguments: Value) -> Value {
    let (status, answer) = rpc(port, key, "tools/call", json!({"name": tool, "arguments": arguments})).await;
    assert_eq!(status, 200, "{answer}");
    answer["result"].clone()
}

#[tokio::test]
async fn tools_are_the_operations_and_calls_go_through_the_routes() {
    let server = start().await;
    let port = server.port;
    let init =
        json!({"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "test", "version": "1"}});
    let (status, answer) = rpc(port, Some(KEY), "initialize", init).await;
    assert_eq!(status, 200, "{answer}");
    assert_eq!(answer["result"]["serverInfo"]["name"], "wrench");

    let (_, answer) = rpc(port, Some(KEY), "tools/list", json!({})).await;
    let tools = answer["result"]["tools"].as_array().expect("a tool list");
    // Every operation but the inbox's event stream, which never ends and so is no tool call,
    // and the operations served only to HEAD, which answer no body.
    let is_stream = |op: &wrench_contract::op::Operation| {
        op.media.contains(&"text/event-stream")
            || op.routes.iter().all(|r| r.method == wrench_contract::op::HttpMethod::Head)
    };
    let ops = wrench::operations();
    assert_eq!(tools.len(), ops.iter().filter(|op| !is_stream(op)).count());
    let names: Vec<&str> = tools.iter().map(|t| t["name"].as_str().unwrap()).collect();
    for op in ops {
        assert_eq!(names.contains(&op.id()), !is_stream(&op), "{}", op.id());
    }

    // JSON: structured content.
    let r = call(port, Some(KEY), "base64Encode", json!({"text": "wrench"})).await;
    assert_eq!(r["structuredContent"], json!({"encoded": "d3JlbmNo"}), "{r}");
    assert_ne!(r["isError"], true);

    // A recipe is one tool call: decode, change case, encode.
    let recipe = json!({"input": "d3JlbmNo", "steps": ["base64Decode", {"op": "textCase", "args": {"to": "upper"}}, "hexEncode"]});
    let r = call(port, Some(KEY), "runRecipe", recipe).await;
    assert_eq!(r["structuredContent"]["result"]["encoded"], "5752454e4348", "{r}");
    let r = call(port, Some(KEY), "runRecipe", json!({"input": "!!", "steps": ["base64Decode"]})).await;
    assert_eq!((r["isError"].as_bool(), r["structuredContent"]["field"].as_str()), (Some(true), Some("input")), "{r}");

    // An image: image content.
    let r = call(port, Some(KEY), "qrGenerate", json!({"text": "hi", "format": "png"})).await;
    assert_eq!(r["content"][0]["type"], "image", "{r}");
    assert_eq!(r["content"][0]["mimeType"], "image/png");

    // Bad input: a tool error naming the field.
    let r = call(port, Some(KEY), "base64Encode", json!({"text": "x", "urlSafe": "yes"})).await;
    assert_eq!(r["isError"], true, "{r}");
    assert_eq!(r["structuredContent"]["code"], "VALIDATION_ERROR");
    assert_eq!(r["structuredContent"]["field"], "urlSafe");

    // A key that is not valid is refused as on any route.
    let r = call(port, Some("wr_not_a_key"), "base64Encode", json!({"text": "x"})).await;
    assert_eq!(r["structuredContent"]["code"], "UNAUTHORIZED", "{r}");

    // Anonymous calls count against the address's limit (3 a minute here).
    common::away_from_minute_boundary().await;
    let mut codes = Vec::new();
    for _ in 0..4 {
        let r = call(port, None, "uuidV4", json!({})).await;
        codes.push(r["structuredContent"]["code"].as_str().unwrap_or("ok").to_string());
    }
    assert_eq!(codes.last().map(String::as_str), Some("RATE_LIMITED"), "{codes:?}");

    // The largest argument a route takes passes through: a paste of 1 MiB of quotes, which
    // JSON writes as 2 MiB of escapes.
    let content = "\"".repeat(1 << 20);
    let r = call(port, Some(KEY), "createPaste", json!({"content": content})).await;
    assert_eq!(r["structuredContent"]["size"], 1 << 20, "{}", &r.to_string()[..200.min(r.to_string().len())]);

    // The calls are in the metrics, under their operations.
    let metrics = reqwest::get(format!("http://127.0.0.1:{port}/metrics")).await.unwrap().text().await.unwrap();
    assert!(metrics.contains("wrench_requests_total{operation=\"base64Encode\",status=\"200\"} 1\n"), "{metrics}");
    assert!(metrics.contains("wrench_requests_total{operation=\"base64Encode\",status=\"400\"} 1\n"));
    assert!(metrics.contains("wrench_rate_limited_total{caller=\"anonymous\"} 1\n"));
    assert!(metrics.contains("wrench_request_duration_seconds_count{operation=\"qrGenerate\"} 1\n"));
}

/// The transport's own refusals are envelopes with the status they came with.
#[tokio::test]
async fn transport_refusals_are_envelopes() {
    let server = start().await;
    let url = format!("http://127.0.0.1:{}/mcp", server.port);
    let client = reqwest::Client::new();
    let rpc = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}).to_string();
    let cases = [
        (client.get(&url), 405, "METHOD_NOT_ALLOWED"),
        (client.post(&url).header("Content-Type", "application/json").body(rpc.clone()), 406, "NOT_ACCEPTABLE"),
        (
            client
                .post(&url)
                .header("Accept", "application/json, text/event-stream")
                .header("Content-Type", "application/json")
                .header("Host", "rebound.example")
                .body(rpc.clone()),
            403,
            "HOST_NOT_ALLOWED",
        ),
        (
            client
                .post(&url)
                .header("Accept", "application/json, text/event-stream")
                .header("Content-Type", "application/json")
                .body("not json"),
            415,
            "UNSUPPORTED_MEDIA_TYPE",
        ),
    ];
    for (request, status, code) in cases {
        let response = request.send().await.unwrap();
        assert_eq!(response.status().as_u16(), status);
        let body: Value = serde_json::from_str(&response.text().await.unwrap()).unwrap();
        assert_eq!(body["success"], false);
        assert_eq!(body["error"]["code"], code, "{body}");
    }
}

/// Every operation of the service is a tool with a schema that stands alone, bar the streams and
/// the HEAD-only paste description.
#[test]
fn every_operation_is_a_tool_with_a_standalone_object_schema() {
    let ops = wrench::operations();
    let tools = wrench_server::http::mcp::tools_of(&ops);
    // Every operation but the event streams, which never end and so are no tool calls,
    // and the HEAD-only description of a paste, which has no body.
    let streams = ops.iter().filter(|o| o.media.contains(&"text/event-stream")).count();
    assert_eq!((streams, tools.len()), (2, ops.len() - 3));
    let left_out = ["streamWebhookPayloads", "streamShortUrlVisits", "headPaste"];
    assert!(!tools.iter().any(|t| left_out.contains(&t.name.as_ref())));
    for tool in &tools {
        let text = serde_json::to_string(&*tool.input_schema).unwrap();
        assert_eq!(tool.input_schema["type"], "object", "{}", tool.name);
        assert!(!text.contains("#/components"), "{}: {text}", tool.name);
        if let Some(out) = &tool.output_schema {
            assert!(!serde_json::to_string(&**out).unwrap().contains("#/components"), "{}", tool.name);
        }
    }
    let encode = tools.iter().find(|t| t.name == "base64Encode").unwrap();
    assert_eq!(encode.input_schema["required"], serde_json::json!(["text"]));
    assert!(encode.output_schema.as_ref().unwrap()["properties"]["encoded"].is_object());
    let receive = tools.iter().find(|t| t.name == "receiveWebhook").unwrap();
    assert_eq!(receive.input_schema["required"], serde_json::json!(["id"]));
    let case = tools.iter().find(|t| t.name == "textCase").unwrap();
    assert!(case.input_schema["properties"]["to"]["enum"].is_array(), "{:?}", case.input_schema);
}
