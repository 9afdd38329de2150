//! Large JSON answers travel gzipped to a client that takes gzip: the catalog a browser's home
//! page reads is about 1 MB as JSON and a quarter of that gzipped, and any operation's answer may
//! be up to the answer limit (`WRENCH_RESPONSE_LIMIT`).
//!
//! Only the envelope of a success is encoded, once it is at least [`MIN_BYTES`]: smaller ones
//! gain little for the work, and errors, images, redirects, streams and the bodies operations
//! write themselves are left as they are. Such an answer says `Vary: Accept-Encoding` whether
//! it was encoded or not, so that a cache keeps the two apart; an encoded one's `ETag`, if any,
//! becomes weak (`W/"…"`), since the bytes are no longer those the strong tag names (RFC 9110
//! section 8.8.3). The tag is still matched by `If-None-Match` (weak comparison).

use poem::{
    Body, Response,
    http::{HeaderMap, HeaderValue, header},
};

/// The smallest JSON answer sent gzipped.
const MIN_BYTES: usize = 32 * 1024;

/// Whether `Accept-Encoding` takes gzip: `gzip`, `x-gzip` or `*` with a weight above 0, and
/// gzip not refused by name (`gzip;q=0`).
pub(crate) fn accepts_gzip(headers: &HeaderMap) -> bool {
    let mut named = None;
    let mut any = None;
    for value in headers.get_all(header::ACCEPT_ENCODING).iter().filter_map(|v| v.to_str().ok()) {
        for (coding, q) in super::weights::weighted(value) {
            match coding.as_str() {
                "gzip" | "x-gzip" => named = Some(named.unwrap_or(0.0f32).max(q)),
                "*" => any = Some(q),
                _ => {}
            }
        }
    }
    named.or(any).is_some_and(|q| q > 0.0)
}

/// `resp` (a JSON success envelope held in memory) gzipped when `gzip` and it is large enough.
pub(crate) async fn encode(mut resp: Response, gzip: bool) -> Response {
    let body = match resp.take_body().into_bytes().await {
        Ok(bytes) => bytes,
        // An in-memory body cannot fail to read; were it ever to, nothing is left to send.
        Err(_) => return resp,
    };
    if body.len() < MIN_BYTES {
        resp.set_body(body);
        return resp;
    }
    resp.headers_mut().append(header::VARY, HeaderValue::from_static("Accept-Encoding"));
    if !gzip {
        resp.set_body(body);
        return resp;
    }
    // Level 2: the catalog's 1 MB becomes about a quarter, at about 10 ms of a core per MB
    // (level 1 leaves almost a third; level 4 saves a tenth more for half as much work again;
    // bench/answer_encoding.py); on the blocking pool, since that is long for a task.
    let kept = body.clone();
    let zipped = tokio::task::spawn_blocking(move || {
        use std::io::Write;
        let mut encoder =
            flate2::write::GzEncoder::new(Vec::with_capacity(body.len() / 8), flate2::Compression::new(2));
        encoder.write_all(&body).and_then(|()| encoder.finish())
    })
    .await;
    match zipped {
        Ok(Ok(zipped)) => {
            resp.headers_mut().insert(header::CONTENT_ENCODING, HeaderValue::from_static("gzip"));
            if let Some(tag) = resp.headers().get(header::ETAG).and_then(|t| t.to_str().ok())
                && !tag.starts_with("W/")
                && let Ok(weak) = HeaderValue::from_str(&format!("W/{tag}"))
            {
                resp.headers_mut().insert(header::ETAG, weak);
            }
            resp.set_body(Body::from(zipped));
        }
        // Writing to memory does not fail; if it ever did, the answer goes as it was.
        Ok(Err(_)) | Err(_) => resp.set_body(kept),
    }
    resp
}
