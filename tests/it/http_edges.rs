//! The edges of HTTP, through the whole pipeline: unknown paths and methods, malformed and
//! oversized bodies, media types, keys, panics, and the envelope on every answer.

use crate::common;

use std::sync::Arc;

use common::exchange;

use poem::{http::StatusCode, listener::TcpAcceptor, test::TestClient};
use serde_json::{Value, json};
use sha2::{Digest, Sha256};
use wrench_contract::op::{Example, HttpMethod, InputKind, Operation, OutputKind, Route, Tag};
use wrench_infra::config::Config;

const KEY: &str = "wr_test_key_for_edges";

fn config() -> Config {
    let digest: [u8; 32] = Sha256::digest(KEY.as_bytes()).into();
    Config { api_keys: vec![digest], body_limit: 64 * 1024, ..Config::default() }
}

/// An operation that always panics, to prove a bug cannot take the connection down.
fn panicking_op() -> Operation {
    Operation {
        routes: &[Route { method: HttpMethod::Post, path: "/v1/test/panic", id: "testPanic", input: InputKind::None }],
        tag: Tag::TextAndData,
        summary: "Always panics.",
        description: "",
        output: OutputKind::Json,
        uses: &[],
        errors: &[],
        rejects: None,
        body_limit: None,
        redactions: &[],
        handler: |_, _| Box::pin(async { panic!("deliberate test panic") }),
        input_schema: |_| None,
        output_schema: |_| None,
        examples: || vec![Example { name: "x", input: json!({}), status: 500 }],
        function: "test_panic",
        media: &[],
        pipe: None,
        revalidated: false,
    }
}

fn app() -> wrench_server::http::App {
    let mut ops = wrench::operations();
    ops.push(panicking_op());
    wrench_server::http::app(Arc::new(config()), ops).unwrap()
}

async fn body(resp: poem::test::TestResponse) -> (StatusCode, poem::http::HeaderMap, Value) {
    let status = resp.0.status();
    let headers = resp.0.headers().clone();
    let bytes = resp.0.into_body().into_vec().await.unwrap();
    let v: Value = serde_json::from_slice(&bytes)
        .unwrap_or_else(|_| panic!("not JSON ({status}): {}", String::from_utf8_lossy(&bytes)));
    (status, headers, v)
}

fn assert_error(status: StatusCode, v: &Value, want: StatusCode, code: &str) {
    assert_eq!(status, want, "{v}");
    assert_eq!(v["success"], false, "{v}");
    assert_eq!(v["error"]["code"], code, "{v}");
    assert!(v["error"]["message"].as_str().is_some_and(|m| !m.is_empty()));
    assert!(v["meta"]["requestId"].is_string() && v["meta"]["duration"].is_number(), "{v}");
}

#[tokio::test]
async fn success_envelope_and_request_id_header() {
    let cli = TestClient::new(app());
    let (status, headers, v) = body(cli.post("/v1/base64/encode").body_json(&json!({"text": "hi"})).send().await).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(v["success"], true);
    assert_eq!(v["data"]["encoded"], "aGk=");
    assert_eq!(headers["x-request-id"].to_str().unwrap(), v["meta"]["requestId"].as_str().unwrap());
    assert_eq!(headers["x-content-type-options"], "nosniff");
    assert!(v["meta"]["duration"].as_f64().unwrap() >= 0.0);
}

#[tokio::test]
async fn unknown_path_is_404_envelope() {
    let cli = TestClient::new(app());
    let (status, headers, v) = body(cli.get("/v1/nope").send().await).await;
    assert_error(status, &v, StatusCode::NOT_FOUND, "NOT_FOUND");
    assert!(headers.contains_key("x-request-id"));
}

#[tokio::test]
async fn wrong_method_is_405_with_allow() {
    let cli = TestClient::new(app());
    for method in ["GET", "PUT", "DELETE", "PATCH", "TRACE", "OPTIONS"] {
        let req = cli.request(method.parse().unwrap(), "/v1/base64/encode");
        let (status, headers, v) = body(req.send().await).await;
        assert_error(status, &v, StatusCode::METHOD_NOT_ALLOWED, "METHOD_NOT_ALLOWED");
        assert_eq!(headers["allow"], "POST", "{method}");
    }
    let (status, headers, v) = body(cli.post("/openapi.json").send().await).await;
    assert_error(status, &v, StatusCode::METHOD_NOT_ALLOWED, "METHOD_NOT_ALLOWED");
    assert_eq!(headers["allow"], "GET, HEAD");
}

#[tokio::test]
async fn malformed_json_is_400_with_position() {
    let cli = TestClient::new(app());
    let req = cli.post("/v1/base64/encode").content_type("application/json").body("{\n  \"text\": \"a\",,\n}");
    let (status, _, v) = body(req.send().await).await;
    assert_error(status, &v, StatusCode::BAD_REQUEST, "INVALID_JSON");
    assert_eq!((v["error"]["line"].as_u64(), v["error"]["column"].as_u64()), (Some(2), Some(15)), "{v}");
    assert!(v["error"]["message"].as_str().unwrap().contains("line 2 column 15"));
    let (status, _, v) = body(cli.post("/v1/base64/encode").body("{\"text\": \"a\"} trailing").send().await).await;
    assert_error(status, &v, StatusCode::BAD_REQUEST, "INVALID_JSON");
}

#[tokio::test]
async fn invalid_fields_are_named() {
    let cli = TestClient::new(app());
    let cases = [
        ("/v1/base64/encode", json!({}), "text", "is required"),
        ("/v1/base64/encode", json!({"text": 5}), "text", "wrong type"),
        ("/v1/base64/encode", json!({"text": "a", "url_safe": true}), "url_safe", "not a known field"),
        ("/v1/json/format", json!({"json": "1", "indent": 9}), "indent", "between 0 and 8"),
        ("/v1/text/case", json!({"text": "a", "to": "title"}), "to", "must be one of"),
        ("/v1/lorem/generate", json!({"type": "words", "count": 0}), "count", "between 1 and 100"),
        ("/v1/html-sanitize", json!({"html": "x", "allowed_tags": ["p", "B!"]}), "allowed_tags[1]", "pattern"),
        ("/v1/base64/encode", json!([1, 2]), "body", "JSON object"),
    ];
    for (path, input, field, words) in cases {
        let (status, _, v) = body(cli.post(path).body_json(&input).send().await).await;
        assert_error(status, &v, StatusCode::BAD_REQUEST, "VALIDATION_ERROR");
        assert_eq!(v["error"]["field"], field, "{path} {input}: {v}");
        let msg = v["error"]["message"].as_str().unwrap();
        assert!(msg.starts_with(&format!("{field}: ")) && msg.contains(words), "{msg}");
    }
}

#[tokio::test]
async fn body_over_the_limit_is_413() {
    let cli = TestClient::new(app());
    let big = json!({"text": "x".repeat(70 * 1024)});
    let (status, _, v) = body(cli.post("/v1/base64/encode").body_json(&big).send().await).await;
    assert_error(status, &v, StatusCode::PAYLOAD_TOO_LARGE, "PAYLOAD_TOO_LARGE");
    // Just under the limit is fine.
    let ok = json!({"text": "x".repeat(60 * 1024)});
    let (status, _, _) = body(cli.post("/v1/base64/encode").body_json(&ok).send().await).await;
    assert_eq!(status, StatusCode::OK);
}

#[tokio::test]
async fn media_types() {
    let cli = TestClient::new(app());
    // No Content-Type at all: read as JSON.
    let (status, _, v) = body(cli.post("/v1/base64/encode").body("{\"text\":\"hi\"}").send().await).await;
    assert_eq!(status, StatusCode::OK, "{v}");
    let (status, _, v) = body(
        cli.post("/v1/base64/encode")
            .content_type("application/json; charset=utf-8")
            .body("{\"text\":\"hi\"}")
            .send()
            .await,
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{v}");
    for ct in ["text/plain", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x"] {
        let (status, _, v) = body(cli.post("/v1/base64/encode").content_type(ct).body("text=hi").send().await).await;
        assert_error(status, &v, StatusCode::UNSUPPORTED_MEDIA_TYPE, "UNSUPPORTED_MEDIA_TYPE");
    }
    // An empty body is an empty object: the missing field is named.
    let (status, _, v) = body(cli.post("/v1/base64/encode").send().await).await;
    assert_error(status, &v, StatusCode::BAD_REQUEST, "VALIDATION_ERROR");
    assert_eq!(v["error"]["field"], "text");
}

#[tokio::test]
async fn api_keys() {
    let cli = TestClient::new(app());
    let input = json!({"text": "hi"});
    let (status, _, _) =
        body(cli.post("/v1/base64/encode").header("X-API-Key", KEY).body_json(&input).send().await).await;
    assert_eq!(status, StatusCode::OK);
    let bearer = format!("Bearer {KEY}");
    let (status, _, _) =
        body(cli.post("/v1/base64/encode").header("Authorization", bearer).body_json(&input).send().await).await;
    assert_eq!(status, StatusCode::OK);
    for (h, v) in
        [("X-API-Key", "wrong"), ("Authorization", "Bearer wrong"), ("Authorization", "Basic abc"), ("X-API-Key", "")]
    {
        let (status, _, body_v) = body(cli.post("/v1/base64/encode").header(h, v).body_json(&input).send().await).await;
        assert_error(status, &body_v, StatusCode::UNAUTHORIZED, "UNAUTHORIZED");
    }
    // A bad key is refused before the body is even looked at.
    let (status, _, v) =
        body(cli.post("/v1/base64/encode").header("X-API-Key", "wrong").body("not json").send().await).await;
    assert_error(status, &v, StatusCode::UNAUTHORIZED, "UNAUTHORIZED");
}

#[tokio::test]
async fn site_pages() {
    let cli = TestClient::new(app());
    let resp = cli.get("/openapi.json").send().await;
    resp.assert_status_is_ok();
    let doc: Value = serde_json::from_slice(&resp.0.into_body().into_vec().await.unwrap()).unwrap();
    assert_eq!(doc["info"]["version"], "1.0.0");
    let resp = cli.get("/docs").send().await;
    assert_eq!(resp.0.status(), StatusCode::FOUND);
    for page in ["/docs/", "/docs/swagger-initializer.js"] {
        let resp = cli.get(page).send().await;
        resp.assert_status_is_ok();
        let text = String::from_utf8_lossy(&resp.0.into_body().into_vec().await.unwrap()).into_owned();
        if page.ends_with(".js") {
            assert!(text.contains("/openapi.json"), "the UI loads our document");
        }
    }
    let (status, _, v) = body(cli.get("/health").send().await).await;
    assert_eq!((status, &v["data"]["status"]), (StatusCode::OK, &json!("ok")));
}

/// Runs the app on a real socket (so connection behaviour is observable) and connects to it.
async fn serve_over_tcp() -> (tokio::task::JoinHandle<std::io::Result<()>>, tokio::net::TcpStream) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let server = tokio::spawn(poem::Server::new_with_acceptor(TcpAcceptor::from_tokio(listener).unwrap()).run(app()));
    (server, tokio::net::TcpStream::connect(addr).await.unwrap())
}

#[tokio::test]
async fn a_panicking_operation_is_a_500_on_a_connection_that_survives() {
    let (server, mut stream) = serve_over_tcp().await;
    let (status, body1) =
        exchange(&mut stream, "POST /v1/test/panic HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\n{}").await;
    assert!(status.contains("500"), "{status}");
    let v: Value = serde_json::from_str(&body1).unwrap();
    assert_eq!(v["error"]["code"], "INTERNAL_ERROR");
    assert!(!body1.contains("deliberate"), "the panic message is not shown to clients");
    let payload = "{\"text\":\"hi\"}";
    let req = format!(
        "POST /v1/base64/encode HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{payload}",
        payload.len()
    );
    let (status, body2) = exchange(&mut stream, &req).await;
    assert!(status.contains("200"), "{status}: {body2}");
    server.abort();
}

/// Clients such as Python's http.client write the headers, then the body. An operation that
/// takes no body (`uuid/v4`) answered before its body arrived, and the unread body made the
/// server close the connection after the answer: every call cost a new connection. Now the
/// body is read first, so the connection carries call after call, whatever kind they are.
#[tokio::test]
async fn a_body_sent_after_the_headers_keeps_the_connection_for_any_operation() {
    use tokio::io::AsyncWriteExt;
    let (server, mut stream) = serve_over_tcp().await;
    // Five calls: the anonymous quota of this app.
    for i in 0..5 {
        let path = ["/v1/uuid/v4", "/v1/base64/encode"][i % 2];
        let body = if i % 2 == 0 { "{}" } else { "{\"text\":\"hi\"}" };
        let head = format!(
            "POST {path} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n",
            body.len()
        );
        stream.write_all(head.as_bytes()).await.unwrap();
        stream.flush().await.unwrap();
        tokio::time::sleep(std::time::Duration::from_millis(5)).await;
        // The body goes in the exchange's own write, after the pause.
        let (status, answer) = common::exchange(&mut stream, body).await;
        assert!(status.contains("200"), "call {i} to {path}: {status} {answer}");
        assert!(!status.contains("connection: close"), "call {i}: {status}");
    }
    server.abort();
}

#[tokio::test]
async fn oversized_declared_length_is_refused_without_reading() {
    let (server, mut stream) = serve_over_tcp().await;
    // Claims 10 MB but sends nothing: the answer must come anyway, from the header alone.
    let (status, body) =
        exchange(&mut stream, "POST /v1/base64/encode HTTP/1.1\r\nHost: x\r\nContent-Length: 10000000\r\n\r\n").await;
    assert!(status.contains("413"), "{status}");
    assert!(body.contains("PAYLOAD_TOO_LARGE"));
    server.abort();
}

/// An app on a real socket (so callers have an address) with a small anonymous quota.
async fn limited_server(per_minute: u32) -> (tokio::task::JoinHandle<std::io::Result<()>>, std::net::SocketAddr) {
    let config = Config { anon_quota: wrench_infra::config::Quota { per_minute, per_day: 1000 }, ..config() };
    let app = wrench_server::http::app(Arc::new(config), wrench::operations()).unwrap();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    (tokio::spawn(poem::Server::new_with_acceptor(TcpAcceptor::from_tokio(listener).unwrap()).run(app)), addr)
}

fn post(path: &str, extra_headers: &str, body: &str) -> String {
    common::json_request("POST", path, extra_headers, body)
}

#[tokio::test]
async fn anonymous_callers_are_limited_per_ip_and_key_holders_are_not() {
    let (server, addr) = limited_server(3).await;
    common::away_from_minute_boundary().await;
    let mut stream = tokio::net::TcpStream::connect(addr).await.unwrap();
    let req = post("/v1/base64/encode", "", r#"{"text":"x"}"#);
    for expected_remaining in [2, 1, 0] {
        let (head, _) = exchange(&mut stream, &req).await;
        assert!(head.starts_with("http/1.1 200"), "{head}");
        assert!(head.contains("ratelimit-limit: 3"), "{head}");
        assert!(head.contains(&format!("ratelimit-remaining: {expected_remaining}")), "{head}");
    }
    let (head, body) = exchange(&mut stream, &req).await;
    assert!(head.starts_with("http/1.1 429"), "{head}");
    assert!(head.contains("retry-after: "), "{head}");
    assert!(head.contains("ratelimit-remaining: 0"), "{head}");
    let v: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(v["error"]["code"], "RATE_LIMITED");
    // A valid key is not limited by default, and the document is never limited.
    let keyed = post("/v1/base64/encode", &format!("X-API-Key: {KEY}\r\n"), r#"{"text":"x"}"#);
    let (head, _) = exchange(&mut stream, &keyed).await;
    assert!(head.starts_with("http/1.1 200") && !head.contains("ratelimit-"), "{head}");
    let (head, _) = exchange(&mut stream, "GET /health HTTP/1.1\r\nHost: x\r\n\r\n").await;
    assert!(head.starts_with("http/1.1 200"), "{head}");
    server.abort();
}

#[tokio::test]
async fn only_a_body_of_no_bytes_counts_as_empty() {
    let cli = TestClient::new(app());
    // Whitespace alone, JSON's or not, is not a JSON text.
    for ws in ["\u{c}", "\u{b}", " \u{c} ", "\t", " \r\n", "\n"] {
        let (status, _, v) = body(
            cli.post("/v1/uuid/batch").header("x-api-key", KEY).content_type("application/json").body(ws).send().await,
        )
        .await;
        assert_error(status, &v, StatusCode::BAD_REQUEST, "INVALID_JSON");
        // Positions are 1-based, as the document says, even right after a line break.
        assert!(v["error"]["line"].as_u64() >= Some(1) && v["error"]["column"].as_u64() >= Some(1), "{v}");
    }
    let (status, _, v) = body(
        cli.post("/v1/uuid/batch").header("x-api-key", KEY).content_type("application/json").body("").send().await,
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{v}");
}

#[tokio::test]
async fn images_carry_their_media_type_and_caching_while_errors_stay_json() {
    let cli = TestClient::new(app());
    let resp = cli
        .get("/v1/qr/generate")
        .query("text", &"hello")
        .query("format", &"png")
        .query("size", &"120")
        .header("x-api-key", KEY)
        .send()
        .await;
    assert_eq!(resp.0.status(), StatusCode::OK);
    assert_eq!(resp.0.headers()["content-type"], "image/png");
    assert!(resp.0.headers()["cache-control"].to_str().unwrap().contains("max-age"));
    let bytes = resp.0.into_body().into_vec().await.unwrap();
    assert_eq!(&bytes[..8], b"\x89PNG\r\n\x1a\n");

    let resp = cli.post("/v1/avatar").header("x-api-key", KEY).body_json(&json!({"seed": "a"})).send().await;
    assert_eq!(resp.0.headers()["content-type"], "image/svg+xml");
    assert!(resp.0.headers()["content-security-policy"].to_str().unwrap().contains("default-src 'none'"));

    let (status, headers, v) = body(
        cli.get("/v1/qr/generate").query("text", &"hello").query("size", &"10").header("x-api-key", KEY).send().await,
    )
    .await;
    assert_error(status, &v, StatusCode::BAD_REQUEST, "VALIDATION_ERROR");
    assert_eq!(headers["content-type"], "application/json");
    assert_eq!(v["error"]["field"], "size");
}

#[tokio::test]
async fn cors_answers_preflights_and_marks_answers_for_listed_origins_only() {
    let origin = "https://app.example.com";
    let config = Config { cors: wrench_infra::config::CorsOrigins::List(vec![origin.into()]), ..config() };
    let cli = TestClient::new(wrench_server::http::app(Arc::new(config), wrench::operations()).unwrap());
    let preflight = |from: &'static str| {
        cli.request(poem::http::Method::OPTIONS, "/v1/base64/encode")
            .header("origin", from)
            .header("access-control-request-method", "POST")
            .header("access-control-request-headers", "content-type, x-api-key")
    };
    let resp = preflight(origin).send().await;
    let h = resp.0.headers().clone();
    assert_eq!(resp.0.status(), StatusCode::NO_CONTENT);
    assert_eq!(h["access-control-allow-origin"], origin);
    assert_eq!(h["vary"], "Origin");
    assert!(h["access-control-allow-methods"].to_str().unwrap().contains("POST"));
    assert_eq!(h["access-control-allow-headers"], "X-API-Key, Authorization, Content-Type");
    assert_eq!(h["access-control-max-age"], "600");
    assert!(!h.contains_key("access-control-allow-credentials"));

    let (status, h, v) = body(preflight("https://evil.example").send().await).await;
    assert_error(status, &v, StatusCode::METHOD_NOT_ALLOWED, "METHOD_NOT_ALLOWED");
    assert!(!h.contains_key("access-control-allow-origin"));

    // Answers, errors included, are readable by the listed origin's pages and no other's.
    let call = |from: &'static str, text: &'static str| {
        cli.post("/v1/base64/encode").header("origin", from).content_type("application/json").body(text)
    };
    let (status, h, _) = body(call(origin, r#"{"text":"hi"}"#).send().await).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(h["access-control-allow-origin"], origin);
    assert!(h["access-control-expose-headers"].to_str().unwrap().contains("RateLimit-Remaining"));
    let (status, h, _) = body(call(origin, "{").send().await).await;
    assert_eq!((status, &h["access-control-allow-origin"]), (StatusCode::BAD_REQUEST, &origin.parse().unwrap()));
    let (_, h, _) = body(call("https://evil.example", r#"{"text":"hi"}"#).send().await).await;
    assert!(!h.contains_key("access-control-allow-origin") && !h.contains_key("access-control-expose-headers"));
}

#[tokio::test]
async fn readiness_waits_for_the_store_and_the_configured_data_sets() {
    let cli = TestClient::new(app());
    let (status, _, v) = body(cli.get("/ready").send().await).await;
    assert_eq!(status, StatusCode::OK, "{v}");
    assert_eq!(v["data"]["ready"], true);

    // A city database that is configured but not loaded (nothing has started loading it).
    let mut config = config();
    config.datasets.geoip_city = vec!["/nonexistent/city.mmdb".into()];
    let cli = TestClient::new(wrench_server::http::app(Arc::new(config), wrench::operations()).unwrap());
    let (status, _, v) = body(cli.get("/ready").send().await).await;
    assert_error(status, &v, StatusCode::SERVICE_UNAVAILABLE, "NOT_READY");
    assert!(v["error"]["message"].as_str().unwrap().contains("WRENCH_GEOIP_CITY_DB"), "{v}");
    // Liveness stays 200 meanwhile.
    let (status, _, v) = body(cli.get("/health").send().await).await;
    assert_eq!((status, &v["data"]["status"]), (StatusCode::OK, &json!("ok")));
}

/// A query string cannot say "one of these two parameters" in the document, so a field given
/// in both spellings is read from the spec's (`bg_color`) and the other ignored, as the
/// parameter's description says, once it is found to be a value its parameter admits; a JSON
/// body, whose schema can say "not both", refuses the pair.
#[tokio::test]
async fn both_spellings_in_a_query_take_the_specs() {
    let cli = TestClient::new(app());
    let svg = |resp: poem::test::TestResponse| async move {
        assert_eq!(resp.0.status(), StatusCode::OK);
        String::from_utf8(resp.0.into_body().into_vec().await.unwrap()).unwrap()
    };
    let both =
        svg(cli.get("/v1/avatar?seed=a&bgColor=%23000000&bg_color=%23ffffff").header("x-api-key", KEY).send().await)
            .await;
    let spec = svg(cli.get("/v1/avatar?seed=a&bg_color=%23ffffff").header("x-api-key", KEY).send().await).await;
    assert_eq!(both, spec);
    assert!(both.contains("#ffffff"), "{both}");
    // The ignored spelling must still be a value its parameter admits.
    let (status, _, v) =
        body(cli.get("/v1/avatar?seed=a&bg_color=%23ffffff&bgColor=navy").header("x-api-key", KEY).send().await).await;
    assert_error(status, &v, StatusCode::BAD_REQUEST, "VALIDATION_ERROR");
    assert_eq!(v["error"]["field"], "bgColor", "{v}");
    assert!(v["error"]["message"].as_str().unwrap().starts_with("bgColor: "), "{v}");
    let (status, _, v) = body(
        cli.post("/v1/avatar")
            .header("x-api-key", KEY)
            .body_json(&json!({"seed": "a", "bg_color": "#ffffff", "bgColor": "#000000"}))
            .send()
            .await,
    )
    .await;
    assert_error(status, &v, StatusCode::BAD_REQUEST, "VALIDATION_ERROR");
}
