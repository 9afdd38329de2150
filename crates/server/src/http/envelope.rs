//! Writing the envelope: every JSON answer, success or failure, is `{"success", "data" |
//! "error", "meta"}`. A success wraps the operation's already-serialized `data` without
//! parsing it again; a failure is written from the error's code, message and location, with
//! the headers the error carries.

use poem::{Response, http::header};
use serde::Serialize;

use wrench_infra::envelope::ApiError;

/// `meta` of every envelope.
#[derive(Debug, Clone, Serialize)]
pub struct Meta<'a> {
    #[serde(rename = "requestId")]
    pub request_id: &'a str,
    /// Milliseconds spent on the request, with microsecond resolution.
    pub duration: f64,
}

#[derive(Serialize)]
struct ErrorBody<'a> {
    code: &'static str,
    message: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    field: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    line: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    column: Option<usize>,
    #[serde(flatten, skip_serializing_if = "Option::is_none")]
    detail: Option<&'a serde_json::Map<String, serde_json::Value>>,
}

#[derive(Serialize)]
struct Failure<'a> {
    success: bool,
    error: ErrorBody<'a>,
    meta: Meta<'a>,
}

/// Writes a success envelope around already-serialized `data`, without parsing it again.
pub fn success_bytes(data: &[u8], meta: &Meta<'_>) -> Vec<u8> {
    let meta = serde_json::to_vec(meta).unwrap_or_else(|_| b"{}".to_vec());
    let mut out = Vec::with_capacity(data.len() + meta.len() + 40);
    out.extend_from_slice(b"{\"success\":true,\"data\":");
    out.extend_from_slice(data);
    out.extend_from_slice(b",\"meta\":");
    out.extend_from_slice(&meta);
    out.push(b'}');
    out
}

/// The envelope of an error, serialized.
pub fn error_bytes(err: &ApiError, meta: &Meta<'_>) -> Vec<u8> {
    let body = Failure {
        success: false,
        error: ErrorBody {
            code: err.code.as_str(),
            message: &err.message,
            field: err.field.as_deref(),
            line: err.line,
            column: err.column,
            detail: err.detail.as_deref(),
        },
        meta: meta.clone(),
    };
    serde_json::to_vec(&body).unwrap_or_else(|_| {
        br#"{"success":false,"error":{"code":"INTERNAL_ERROR","message":"unrenderable error"}}"#.to_vec()
    })
}

/// Renders an error as its envelope response, with the headers the error carries
/// (`Retry-After`, `Allow`, the rate-limit headers).
pub(crate) fn error_response(err: &ApiError, meta: &Meta<'_>) -> Response {
    let bytes = error_bytes(err, meta);
    let mut resp =
        Response::builder().status(err.status()).header(header::CONTENT_TYPE, "application/json").body(bytes);
    for (k, v) in &err.headers {
        resp.headers_mut().append(k.clone(), v.clone());
    }
    resp
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn success_envelope_is_valid_json() {
        let meta = Meta { request_id: "r1", duration: 1.5 };
        let v: serde_json::Value = serde_json::from_slice(&success_bytes(br#"{"a":1}"#, &meta)).unwrap();
        assert_eq!(
            v,
            serde_json::json!({"success": true, "data": {"a": 1}, "meta": {"requestId": "r1", "duration": 1.5}})
        );
    }
}
