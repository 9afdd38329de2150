//! The compact JWS form (RFC 7515 section 7.1) as the JWT operations read it: three Base64url
//! parts, a JSON header, a payload and a signature. Decoding a token (`jwt/decode`) and
//! verifying one (`jwt/verify`) read it alike.

use base64::{Engine, engine::general_purpose::URL_SAFE_NO_PAD};
use serde_json::{Map, Value};

/// Base64url without padding, as JWS requires; padded input is tolerated when decoding.
pub fn b64_decode(part: &str, what: &str) -> Result<Vec<u8>, String> {
    URL_SAFE_NO_PAD.decode(part.trim_end_matches('=')).map_err(|e| format!("the {what} is not Base64url: {e}"))
}

pub fn b64(bytes: &[u8]) -> String {
    URL_SAFE_NO_PAD.encode(bytes)
}

/// A JSON object, nested no deeper than the service's limit.
pub fn json_object(bytes: &[u8], what: &str) -> Result<Map<String, Value>, String> {
    use wrench_infra::bounds::{MAX_NESTING, json_deeper_than, parse_checked_json};
    if json_deeper_than(bytes, MAX_NESTING) {
        return Err(format!("the {what} is nested deeper than {MAX_NESTING} levels, the limit"));
    }
    match parse_checked_json(bytes) {
        Ok(Value::Object(m)) => Ok(m),
        Ok(_) => Err(format!("the {what} is JSON but not an object")),
        Err(e) => Err(format!("the {what} is not JSON: {e}")),
    }
}

/// A compact JWS split and decoded; the payload is kept as bytes (a JWS need not hold JSON).
pub struct Compact<'a> {
    pub header: Map<String, Value>,
    pub payload: Vec<u8>,
    pub signature: Vec<u8>,
    /// `header.payload` as sent: what was signed.
    pub signing_input: &'a str,
}

pub fn split(token: &str) -> Result<Compact<'_>, String> {
    let token = token.trim();
    let parts: Vec<&str> = token.split('.').collect();
    if parts.len() != 3 {
        return Err(format!("the token has {} parts; a compact JWS has three separated by dots", parts.len()));
    }
    let header = json_object(&b64_decode(parts[0], "header")?, "header")?;
    let payload = b64_decode(parts[1], "payload")?;
    let signature = b64_decode(parts[2], "signature")?;
    Ok(Compact { header, payload, signature, signing_input: &token[..parts[0].len() + 1 + parts[1].len()] })
}
