//! What an inbox records of one delivery, how it is stored, and how it is shown.
//!
//! A delivery is stored as one log entry: a 4-byte length, the recorded facts as JSON
//! ([`Recorded`]), then the body's exact bytes. Nothing is derived from the body at storage
//! time that can be derived when reading (the parsed JSON, the text or Base64 spelling), so
//! the bytes kept are the bytes received and the raw endpoint returns them untouched. The same
//! facts and bytes make the request a replay or a forward sends ([`outgoing`]).

use base64::Engine;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::{form::FormField, signatures::Verification};

/// The facts recorded when a delivery arrives.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Recorded {
    pub received_at: String,
    pub method: String,
    pub path: String,
    pub query_string: String,
    /// Header fields in the order received, names in lower case.
    pub header_list: Vec<(String, String)>,
    pub content_type: Option<String>,
    pub sha256: String,
    pub ip: String,
    pub http_version: String,
    pub form: Option<Vec<FormField>>,
    pub verification: Option<Verification>,
    /// Filled in once the inbox's `forwardTo` relay is over.
    #[serde(default)]
    pub forward: Option<Forwarded>,
}

/// How relaying a delivery to the inbox's `forwardTo` went.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Forwarded {
    /// Where it was sent.
    pub url: String,
    /// The status the target answered, or null when it could not be reached.
    pub status: Option<u16>,
    /// Milliseconds from sending to the answer (or the failure).
    pub duration_ms: u64,
    /// Why it could not be delivered, when it could not.
    pub error: Option<String>,
}

/// One captured request, as listed.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Delivery {
    /// Payload id: its number in the inbox, from 1 (the `id:` of its stream event).
    pub id: String,
    /// When it arrived (RFC 3339, UTC, milliseconds).
    #[serde(rename = "received_at")]
    pub received_at: String,
    /// The body parsed as JSON, or null when it is not JSON.
    pub body: Value,
    /// HTTP method.
    pub method: String,
    /// The sub-path after `/receive` (`/` when none), percent-decoded.
    pub path: String,
    /// Request headers, names in lower case; repeated headers joined with ", ". Secrets such as
    /// Authorization and cookies are kept: they are the inbox owner's.
    pub headers: Map<String, Value>,
    /// Every header field as `[name, value]`, in the order received.
    #[schemars(with = "Vec<Vec<String>>")]
    pub header_list: Vec<(String, String)>,
    /// Query parameters (the first value of each name).
    pub query: Map<String, Value>,
    /// The raw query string.
    pub query_string: String,
    /// The declared Content-Type, if any.
    pub content_type: Option<String>,
    /// Body size in bytes.
    pub size: usize,
    /// SHA-256 of the body's bytes (hex).
    pub sha256: String,
    /// The sender's address (the proxy's client address when the proxy is trusted).
    pub ip: String,
    /// `HTTP/1.1` or `HTTP/2`.
    pub http_version: String,
    /// The body as received when it is not JSON: text, or Base64 when it is not UTF-8.
    pub raw_body: Option<String>,
    /// `utf-8` or `base64`: how `rawBody` is written.
    pub raw_body_encoding: Option<String>,
    /// The fields of a urlencoded or multipart body (a file part is described, not copied).
    pub form: Option<Vec<FormField>>,
    /// The signature check, when the inbox has one.
    pub verification: Option<Verification>,
    /// How relaying it to the inbox's `forwardTo` went (null without one, or while under way).
    pub forward: Option<Forwarded>,
}

/// The stored form of a delivery.
pub fn encode(recorded: &Recorded, body: &[u8]) -> Vec<u8> {
    let facts = serde_json::to_vec(recorded).unwrap_or_default();
    let mut out = Vec::with_capacity(4 + facts.len() + body.len());
    out.extend_from_slice(&(facts.len() as u32).to_be_bytes());
    out.extend_from_slice(&facts);
    out.extend_from_slice(body);
    out
}

/// The recorded facts and the body's bytes of a stored delivery.
pub fn decode(stored: &[u8]) -> Option<(Recorded, &[u8])> {
    let (len, rest) = stored.split_at_checked(4)?;
    let len = u32::from_be_bytes(len.try_into().ok()?) as usize;
    let (facts, body) = rest.split_at_checked(len)?;
    Some((serde_json::from_slice(facts).ok()?, body))
}

/// Header fields as one JSON object, as clients read them: a repeated field becomes one value,
/// its values joined with ", " in the order received (the combination HTTP itself allows for
/// fields that may repeat, RFC 9110 section 5.3).
pub fn joined_headers<'a>(fields: impl IntoIterator<Item = (&'a str, &'a str)>) -> Map<String, Value> {
    let mut headers = Map::new();
    for (name, value) in fields {
        match headers.get_mut(name) {
            Some(Value::String(existing)) => {
                existing.push_str(", ");
                existing.push_str(value);
            }
            _ => {
                headers.insert(name.to_string(), Value::String(value.to_string()));
            }
        }
    }
    headers
}

/// How a delivery is shown.
pub fn show(seq: u64, recorded: Recorded, body: &[u8]) -> Delivery {
    let headers = joined_headers(recorded.header_list.iter().map(|(n, v)| (n.as_str(), v.as_str())));
    let mut query = Map::new();
    for (k, v) in form_urlencoded::parse(recorded.query_string.as_bytes()) {
        query.entry(k.into_owned()).or_insert(Value::String(v.into_owned()));
    }
    let parsed: Option<Value> = if body.is_empty() { None } else { serde_json::from_slice(body).ok() };
    let (raw_body, raw_body_encoding) = match (&parsed, body.is_empty()) {
        (Some(_), _) | (None, true) => (None, None),
        (None, false) => match std::str::from_utf8(body) {
            Ok(text) => (Some(text.to_string()), Some("utf-8".to_string())),
            Err(_) => (Some(base64::engine::general_purpose::STANDARD.encode(body)), Some("base64".to_string())),
        },
    };
    Delivery {
        id: seq.to_string(),
        received_at: recorded.received_at,
        body: parsed.unwrap_or(Value::Null),
        method: recorded.method,
        path: recorded.path,
        headers,
        header_list: recorded.header_list,
        query,
        query_string: recorded.query_string,
        content_type: recorded.content_type,
        size: body.len(),
        sha256: recorded.sha256,
        ip: recorded.ip,
        http_version: recorded.http_version,
        raw_body,
        raw_body_encoding,
        form: recorded.form,
        verification: recorded.verification,
        forward: recorded.forward,
    }
}

/// Header fields a relay never copies: those of one connection (RFC 9110, 7.6.1), the framing
/// the client recomputes, and `Host`, which names the original server.
const NOT_RELAYED: &[&str] = &[
    "connection",
    "content-length",
    "host",
    "keep-alive",
    "proxy-authenticate",
    "proxy-authorization",
    "proxy-connection",
    "te",
    "trailer",
    "transfer-encoding",
    "upgrade",
];

/// The request that replays a stored delivery: its method (or `method`), its header fields in
/// order less hop-by-hop ones, `Host` and any the `Connection` field names, and its exact bytes.
pub fn outgoing(recorded: &Recorded, body: &[u8], method: Option<&str>) -> Option<wrench_infra::outbound::Outgoing> {
    let method = reqwest::Method::from_bytes(method.unwrap_or(&recorded.method).as_bytes()).ok()?;
    let named_by_connection: Vec<String> = recorded
        .header_list
        .iter()
        .filter(|(n, _)| n == "connection")
        .flat_map(|(_, v)| v.split(',').map(|t| t.trim().to_ascii_lowercase()).collect::<Vec<_>>())
        .collect();
    let mut headers = reqwest::header::HeaderMap::new();
    for (name, value) in &recorded.header_list {
        if NOT_RELAYED.contains(&name.as_str()) || named_by_connection.contains(name) {
            continue;
        }
        let (Ok(n), Ok(v)) = (
            reqwest::header::HeaderName::from_bytes(name.as_bytes()),
            reqwest::header::HeaderValue::from_bytes(value.as_bytes()),
        ) else {
            continue;
        };
        headers.append(n, v);
    }
    Some(wrench_infra::outbound::Outgoing { method, headers, body: bytes::Bytes::copy_from_slice(body) })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn recorded() -> Recorded {
        Recorded {
            received_at: "2026-11-27T00:00:00.000Z".into(),
            method: "PUT".into(),
            path: "/a/b".into(),
            query_string: "x=1&x=2&y=%20".into(),
            header_list: vec![("x-a".into(), "1".into()), ("x-b".into(), "2".into()), ("x-a".into(), "3".into())],
            content_type: Some("application/octet-stream".into()),
            sha256: "00".into(),
            ip: "127.0.0.1".into(),
            http_version: "HTTP/1.1".into(),
            form: None,
            verification: None,
            forward: None,
        }
    }

    #[test]
    fn stored_bytes_come_back_exactly() {
        let body: Vec<u8> = vec![0, 0xff, b'{', 0xc3, 0x28, 0];
        let stored = encode(&recorded(), &body);
        let (facts, back) = decode(&stored).unwrap();
        assert_eq!(back, body.as_slice());
        let shown = show(7, facts, back);
        assert_eq!((shown.id.as_str(), shown.size), ("7", 6));
        assert_eq!(shown.raw_body_encoding.as_deref(), Some("base64"));
        assert_eq!(base64::engine::general_purpose::STANDARD.decode(shown.raw_body.unwrap()).unwrap(), body);
        assert_eq!(shown.headers["x-a"], "1, 3", "repeats joined in the order received");
        assert_eq!(shown.header_list[2], ("x-a".to_string(), "3".to_string()));
        assert_eq!(shown.query, serde_json::json!({"x": "1", "y": " "}).as_object().unwrap().clone());
        assert!(decode(&stored[..3]).is_none() && decode(&[0, 0, 0, 9, b'{']).is_none());
    }

    #[test]
    fn a_replay_keeps_method_order_and_bytes_and_drops_hop_by_hop_fields() {
        let mut r = recorded();
        r.header_list = vec![
            ("host".into(), "wrench.example".into()),
            ("x-sig".into(), "1".into()),
            ("connection".into(), "keep-alive, x-hop".into()),
            ("x-hop".into(), "dropped".into()),
            ("content-length".into(), "3".into()),
            ("x-sig".into(), "2".into()),
            ("transfer-encoding".into(), "chunked".into()),
        ];
        let o = outgoing(&r, &[0, 1, 2], None).unwrap();
        assert_eq!(o.method, reqwest::Method::PUT);
        assert_eq!(o.body.as_ref(), &[0, 1, 2]);
        let names: Vec<&str> = o.headers.keys().map(|k| k.as_str()).collect();
        assert_eq!(names, ["x-sig"]);
        assert_eq!(o.headers.get_all("x-sig").iter().collect::<Vec<_>>(), ["1", "2"]);
        assert_eq!(outgoing(&r, b"", Some("POST")).unwrap().method, reqwest::Method::POST);
        assert!(outgoing(&r, b"", Some("BAD METHOD")).is_none());
    }

    #[test]
    fn json_bodies_are_parsed_and_text_kept_as_text() {
        let shown = show(1, recorded(), br#"{"a":1}"#);
        assert_eq!((shown.body, shown.raw_body), (serde_json::json!({"a": 1}), None));
        let shown = show(1, recorded(), "plain é".as_bytes());
        assert_eq!((shown.raw_body.as_deref(), shown.raw_body_encoding.as_deref()), (Some("plain é"), Some("utf-8")));
        let empty = show(1, recorded(), b"");
        assert_eq!((empty.body, empty.raw_body), (Value::Null, None));
    }
}
