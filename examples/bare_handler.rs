//! The benchmark's baseline: one bare poem handler that does what `POST /v1/base64/encode`
//! does (parse the JSON body, encode, answer the same envelope) with none of wrench's
//! pipeline: no registry routing, key check, validation, request id, timing or logging.
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

#[tokio::main]
async fn main() -> std::io::Result<()> {
    let addr = std::env::args().nth(1).unwrap_or_else(|| "127.0.0.1:8090".to_string());
    Server::new(TcpListener::bind(addr)).run(Route::new().at("/v1/base64/encode", post(encode))).await
}
