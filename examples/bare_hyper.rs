//! The benchmark's floor: a bare hyper server (no framework) that answers `POST /v1/uuid/v4`
//! with the same envelope wrench sends, and 404 for anything else. It reads and drops the
//! body, as the operation does, and does nothing else: no routing table, key check,
//! validation, request id, timing or logging.
//!
//! Run with `cargo run --release --example bare_hyper -- 127.0.0.1:8091`.

use std::convert::Infallible;

use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper::{Request, Response, StatusCode, body::Incoming, header, service::service_fn};
use hyper_util::{
    rt::{TokioExecutor, TokioIo},
    server::conn::auto,
};

async fn answer(req: Request<Incoming>) -> Result<Response<Full<Bytes>>, Infallible> {
    let found = req.method() == hyper::Method::POST && req.uri().path() == "/v1/uuid/v4";
    // The body is read to its end, as a server must before answering on a kept-alive connection.
    let _ = req.into_body().collect().await;
    if !found {
        let mut resp = Response::new(Full::new(Bytes::from_static(b"{\"success\":false}")));
        *resp.status_mut() = StatusCode::NOT_FOUND;
        return Ok(resp);
    }
    let uuid = uuid::Uuid::new_v4();
    let body = format!(
        "{{\"success\":true,\"data\":{{\"uuid\":\"{}\"}},\"meta\":{{\"requestId\":\"00000000000000000000000000000000\",\"duration\":0.0}}}}",
        uuid.hyphenated()
    );
    let mut resp = Response::new(Full::new(Bytes::from(body)));
    resp.headers_mut().insert(header::CONTENT_TYPE, header::HeaderValue::from_static("application/json"));
    Ok(resp)
}

#[tokio::main]
async fn main() -> std::io::Result<()> {
    let addr = std::env::args().nth(1).unwrap_or_else(|| "127.0.0.1:8091".to_string());
    let listener = tokio::net::TcpListener::bind(addr).await?;
    loop {
        let (stream, _) = listener.accept().await?;
        let _ = stream.set_nodelay(true);
        tokio::spawn(async move {
            let _ = auto::Builder::new(TokioExecutor::new())
                .serve_connection(TokioIo::new(stream), service_fn(answer))
                .await;
        });
    }
}
