//! The benchmark's baseline: bare poem handlers that do what `POST /v1/base64/encode` (parse
//! the JSON body, encode, answer the same envelope) and `POST /v1/uuid/v4` (a random UUID in
//! the envelope) do, with none of wrench's pipeline: no registry routing, key check,
//! validation, request id, timing or logging.
//!
//! Run with `cargo run --release --example bare_handler -- 127.0.0.1:8090`.

use base64::Engine;
use poem::{Route, Server, handler, listener::TcpListener, post, web::Json};
use serde::Deserialize;
use serde_json::{Value, json};

#[derive(Deserialize)]
struct Input {
    text: String,
}

#[handler]
fn encode(Json(input): Json<Input>) -> Json<Value> {
    let encoded = base64::engine::general_purpose::STANDARD.encode(input.text.as_bytes());
    Json(json!({
        "success": true,
        "data": {"encoded": encoded},
        "meta": {"requestId": "00000000000000000000000000000000", "duration": 0.0}
    }))
}

#[handler]
fn uuid_v4() -> Json<Value> {
    Json(json!({
        "success": true,
        "data": {"uuid": uuid::Uuid::new_v4().hyphenated().to_string()},
        "meta": {"requestId": "00000000000000000000000000000000", "duration": 0.0}
    }))
}

#[tokio::main]
async fn main() -> std::io::Result<()> {
    let addr = std::env::args().nth(1).unwrap_or_else(|| "127.0.0.1:8090".to_string());
    Server::new(TcpListener::bind(addr))
        .run(Route::new().at("/v1/base64/encode", post(encode)).at("/v1/uuid/v4", post(uuid_v4)))
        .await
}
