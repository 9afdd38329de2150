//! One request through one operation: auth, media type, body limit, decode, run, envelope.
//!
//! The order matters and is part of the contract: a bad key is refused before the body is
//! read; a declared non-JSON body is refused (415) before its size is considered; the size
//! limit is checked against `Content-Length` first, so an oversized upload is refused before
//! any of it is kept, and enforced again while reading for chunked bodies; either way what the
//! client still sends is read and dropped, within bounds, so that it reads the 413 rather
//! than a reset (`drain.rs`). A panicking operation is
//! caught here and becomes a 500 envelope on a connection that stays usable.

use std::{panic::AssertUnwindSafe, sync::Arc};

use futures_util::{FutureExt, StreamExt};
use poem::{
    Request, Response,
    http::{HeaderValue, StatusCode, header},
};

use super::envelope::{self, error_response};
use super::{Mounted, RequestMeta, State, drain::Read};
use wrench_contract::op::{Caller, Ctx, InputKind, OpRequest, OutputKind, RawBody, Reply};
use wrench_infra::envelope::{ApiError, ErrorCode};

pub(super) async fn run(state: &State, mounted: &Mounted, mut req: Request, meta: &RequestMeta) -> Response {
    let mut limit_headers = Vec::new();
    // Read before the call, which hands the request's headers to the operation.
    let gzip = super::answer_encoding::accepts_gzip(req.headers());
    let mut result = call(state, mounted, &mut req, meta, &mut limit_headers).await;
    meta.set_op(mounted.route.id);
    // JSON results were refused while being serialized; images are checked here.
    if let Ok(Reply::Image(img)) = &result
        && img.bytes.len() > state.config.response_limit
    {
        result = Err(wrench_infra::bounds::result_too_large(img.bytes.len(), false, state.config.response_limit));
    }
    if let Ok(Reply::Raw(raw)) = &result
        && !raw.delay.is_zero()
    {
        tokio::time::sleep(raw.delay).await;
    }
    // A redirect that forwards the visitor's query gets it here, where the request is.
    if let Ok(Reply::Redirect(r)) = &mut result
        && r.forward_query
        && let Some(query) = req.uri().query().filter(|q| !q.is_empty())
    {
        r.location = with_query(&r.location, query);
    }
    let envelope = matches!(result, Ok(Reply::Json(_) | Reply::Tagged(..)));
    let mut resp = render(result, meta);
    if envelope {
        resp = super::answer_encoding::encode(resp, gzip).await;
    }
    for (k, v) in limit_headers {
        resp.headers_mut().insert(k, v);
    }
    let took = std::time::Duration::from_secs_f64(meta.elapsed_ms() / 1e3);
    wrench_infra::metrics::request(Some(mounted.route.id), resp.status().as_u16(), took);
    resp
}

async fn call(
    state: &State,
    mounted: &Mounted,
    req: &mut Request,
    meta: &RequestMeta,
    limit_headers: &mut Vec<(poem::http::HeaderName, HeaderValue)>,
) -> Result<Reply, ApiError> {
    let (op, route) = (&mounted.op, &mounted.route);
    // Receive-anything operations (webhook receive URLs) are called by third parties whose
    // Authorization or X-API-Key headers are meant for the inbox owner, not for wrench: they
    // are stored, never checked, and the caller is anonymous.
    let caller = if route.input == InputKind::Raw { Caller::Anonymous } else { state.keys.identify(req.headers())? };
    let peer = req.remote_addr().as_socket_addr().map(|a| a.ip());
    let client_ip = super::limits::client_ip(peer, req.headers(), &state.config.trusted_proxies);
    // Receive URLs are called by providers, many inboxes' deliveries from few addresses: they
    // are bounded per inbox by the operation, not per address here.
    if route.input != InputKind::Raw {
        *limit_headers = super::limits::check(
            state.store.as_ref(),
            &caller,
            client_ip,
            &state.config.api_keys,
            state.config.anon_quota,
            state.config.key_quota,
        )
        .await?;
    }
    let mut op_req = OpRequest { input: route.input, ..OpRequest::default() };
    // An operation may need more than the global limit (a paste of 1 MiB arrives escaped in
    // JSON), never less.
    let limit = op.body_limit.map_or(state.config.body_limit, |l| l.max(state.config.body_limit));
    let declared = req.headers().get(header::CONTENT_LENGTH).and_then(|v| v.to_str().ok()?.parse::<u64>().ok());
    // A body that trickles in holds a connection and a buffer: it has a deadline of its own.
    let timeout = state.config.body_timeout;
    if matches!(route.input, InputKind::Body | InputKind::Raw) {
        let content_type = req.headers().get(header::CONTENT_TYPE).map(|v| v.to_str().unwrap_or("?").to_string());
        if route.input == InputKind::Body
            && let Some(ct) = &content_type
            && !is_json(ct)
        {
            return Err(ApiError::new(
                ErrorCode::UnsupportedMediaType,
                format!("the body must be JSON (Content-Type: application/json), not {ct:?}"),
            ));
        }
        if declared.is_some_and(|n| n > limit as u64) {
            // Refused before any of it is kept; what the client still sends is read and dropped
            // after the answer (drain.rs), unless it waits for `100 Continue` (which reading
            // would send) before sending anything.
            let waits =
                req.headers().get(header::EXPECT).is_some_and(|v| v.as_bytes().eq_ignore_ascii_case(b"100-continue"));
            if !waits {
                super::drain::discard_body_later(req.take_body(), 2 * limit, timeout);
            }
            return Err(closing(too_large(limit)));
        }
        op_req.body = match super::drain::read_limited(req.take_body(), limit, timeout).await {
            Read::Body(body) => body,
            // Found out while reading (no Content-Length): the rest is dropped as above.
            Read::TooLarge { rest, seen } => {
                super::drain::discard_later(rest, seen, 2 * limit, timeout);
                return Err(closing(too_large(limit)));
            }
            Read::TimedOut => {
                return Err(closing(ApiError::new(
                    ErrorCode::RequestTimeout,
                    format!("the body did not arrive within {} s (WRENCH_BODY_TIMEOUT)", timeout.as_secs()),
                )));
            }
            Read::Failed(e) => {
                return Err(ApiError::new(ErrorCode::InvalidJson, format!("the body could not be read: {e}")));
            }
        };
        op_req.content_type = content_type;
    } else {
        // An operation that takes no body still reads any it is sent, within the same limit
        // and deadline, before answering: a body left unread makes hyper close the connection
        // after the answer, so a client that writes the body after the headers (Python's
        // http.client, many others) lost its keep-alive connection on every such call.
        // One declared over the limit is left to drain in the background, as it was ignored
        // before: waiting for it would only delay the answer.
        if declared.is_some_and(|n| n > limit as u64) {
            super::drain::discard_body_later(req.take_body(), 2 * limit, timeout);
        } else if let Read::TooLarge { rest, seen } = super::drain::read_limited(req.take_body(), limit, timeout).await
        {
            super::drain::discard_later(rest, seen, 2 * limit, timeout);
        }
    }
    // A redirect is followed by people and by the services they share it on, which add their
    // own query (`fbclid`, `utm_*`): it reads its path alone and ignores any query. Every other
    // route decodes its query strictly, as its declaration says.
    if op.output != OutputKind::Redirect {
        op_req.query = req.uri().query().unwrap_or("").to_string();
    }
    for &name in &mounted.params {
        if let Some(v) = req.raw_path_param(name) {
            op_req.path_params.insert(name.to_string(), v.to_string());
        }
    }
    if route.input == InputKind::Raw {
        op_req.headers = req.headers().clone();
        op_req.method = req.method().as_str().to_string();
        op_req.path = req.uri().path().to_string();
        op_req.http_version = match req.version() {
            poem::http::Version::HTTP_09 => "HTTP/0.9",
            poem::http::Version::HTTP_10 => "HTTP/1.0",
            poem::http::Version::HTTP_2 => "HTTP/2",
            poem::http::Version::HTTP_3 => "HTTP/3",
            _ => "HTTP/1.1",
        };
    }
    let ctx = Ctx {
        config: state.config.clone(),
        store: state.store.clone(),
        services: state.services.clone(),
        net: state.net.clone(),
        datasets: state.datasets.clone(),
        request_id: meta.id.clone(),
        caller,
        client_ip,
        tls: req.extensions().get::<Arc<wrench_infra::connection::TlsConnection>>().cloned(),
        steps: Some(state.steps.clone()),
        // Nothing reads the request's headers after this point.
        headers: std::mem::take(req.headers_mut()),
    };
    match AssertUnwindSafe((op.handler)(ctx, op_req)).catch_unwind().await {
        Ok(result) => result,
        Err(_) => {
            // The panic hook has logged where it happened; the payload may quote input, so it
            // is not repeated here.
            tracing::error!(request_id = %meta.id, operation = route.id, "operation panicked");
            Err(ApiError::internal(format!(
                "the operation failed unexpectedly; this is a bug, reported with request id {}",
                meta.id
            )))
        }
    }
}

/// `target` with `query` appended to its own query (before any fragment).
fn with_query(target: &str, query: &str) -> String {
    let (base, fragment) = match target.split_once('#') {
        Some((b, f)) => (b, Some(f)),
        None => (target, None),
    };
    let joiner = match base.split_once('?') {
        Some((_, q)) if !q.is_empty() => "&",
        Some(_) => "",
        None => "?",
    };
    let mut out = format!("{base}{joiner}{query}");
    if let Some(f) = fragment {
        out.push('#');
        out.push_str(f);
    }
    out
}

/// `e` with `Connection: close`: the request's body was not read to its end, so the
/// connection cannot carry another request.
fn closing(e: ApiError) -> ApiError {
    e.with_header(header::CONNECTION, HeaderValue::from_static("close"))
}

fn too_large(limit: usize) -> ApiError {
    ApiError::new(ErrorCode::PayloadTooLarge, format!("the body is larger than the limit of {limit} bytes"))
}

/// `application/json`, any `+json` type, with or without parameters.
fn is_json(ct: &str) -> bool {
    let essence = ct.split(';').next().unwrap_or("").trim().to_ascii_lowercase();
    essence == "application/json" || (essence.starts_with("application/") && essence.ends_with("+json"))
}

fn render(result: Result<Reply, ApiError>, meta: &RequestMeta) -> Response {
    let m = meta.envelope_meta();
    match result {
        Ok(Reply::Json(data)) => Response::builder()
            .status(StatusCode::OK)
            .header(header::CONTENT_TYPE, "application/json")
            .body(envelope::success_bytes(&data, &m.as_meta())),
        Ok(Reply::Tagged(data, etag)) => Response::builder()
            .status(StatusCode::OK)
            .header(header::CONTENT_TYPE, "application/json")
            .header(header::ETAG, etag)
            // Kept, but asked about again (a 304 costs nothing) before each use.
            .header(header::CACHE_CONTROL, "no-cache")
            .body(envelope::success_bytes(&data, &m.as_meta())),
        Ok(Reply::Image(img)) => Response::builder()
            .status(StatusCode::OK)
            .header(header::CONTENT_TYPE, img.content_type)
            // Generated images are pure functions of the request: safe to cache.
            .header(header::CACHE_CONTROL, "public, max-age=86400, immutable")
            // An SVG opened directly must not run script or load anything.
            .header(header::CONTENT_SECURITY_POLICY, "default-src 'none'; style-src 'unsafe-inline'; sandbox")
            .body(img.bytes),
        Ok(Reply::Redirect(r)) => match HeaderValue::from_str(&r.location) {
            Ok(loc) => Response::builder()
                .status(StatusCode::from_u16(r.status).unwrap_or(StatusCode::FOUND))
                .header(header::LOCATION, loc)
                .finish(),
            Err(_) => error_response(&ApiError::internal("redirect target is not a valid header"), &m.as_meta()),
        },
        Ok(Reply::Raw(raw)) => {
            let mut resp = Response::builder().status(StatusCode::from_u16(raw.status).unwrap_or(StatusCode::OK));
            for (name, value) in raw.headers {
                resp = resp.header(name, value);
            }
            match raw.body {
                RawBody::Bytes(bytes) => resp.body(bytes),
                RawBody::Stream(stream) => {
                    resp.body(poem::Body::from_bytes_stream(stream.map(Ok::<_, std::io::Error>)))
                }
            }
        }
        Err(e) => error_response(&e, &m.as_meta()),
    }
}

/// Helper for the per-request meta values as the envelope needs them.
pub(crate) struct MetaValues {
    id: Arc<str>,
    duration: f64,
}

impl MetaValues {
    pub(super) fn new(id: Arc<str>, duration: f64) -> Self {
        MetaValues { id, duration }
    }

    pub(crate) fn as_meta(&self) -> envelope::Meta<'_> {
        envelope::Meta { request_id: &self.id, duration: self.duration }
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn forwarded_queries_join_the_targets_before_its_fragment() {
        assert_eq!(super::with_query("https://e.com/a", "x=1"), "https://e.com/a?x=1");
        assert_eq!(super::with_query("https://e.com/a?y=2", "x=1"), "https://e.com/a?y=2&x=1");
        assert_eq!(super::with_query("https://e.com/a?", "x=1"), "https://e.com/a?x=1");
        assert_eq!(super::with_query("https://e.com/a?y=2#top", "x=1&z"), "https://e.com/a?y=2&x=1&z#top");
        assert_eq!(super::with_query("https://e.com/#f", "x=1"), "https://e.com/?x=1#f");
    }

    use super::is_json;

    #[test]
    fn json_media_types() {
        assert!(is_json("application/json"));
        assert!(is_json("application/json; charset=utf-8"));
        assert!(is_json("Application/JSON"));
        assert!(is_json("application/merge-patch+json"));
        assert!(!is_json("text/plain"));
        assert!(!is_json("application/x-www-form-urlencoded"));
    }
}
