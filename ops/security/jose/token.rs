//! The compact JWS form (RFC 7515 section 7.1): three Base64url parts, a JSON header, a
//! payload and a signature; and the key a JOSE operation is given.

use base64::{Engine, engine::general_purpose::URL_SAFE_NO_PAD};
use serde_json::{Map, Value};

use wrench_contract::prelude::*;
use wrench_kit::byte_encoding::{self, InputEncoding};

use crate::security::keys::{
    jwk::Meta,
    load::{self, KeyInput},
    model::Key,
};

/// Base64url without padding, as JWS requires; padded input is tolerated when decoding.
pub(crate) fn b64_decode(part: &str, what: &str) -> Result<Vec<u8>, String> {
    URL_SAFE_NO_PAD.decode(part.trim_end_matches('=')).map_err(|e| format!("the {what} is not Base64url: {e}"))
}

pub(crate) fn b64(bytes: &[u8]) -> String {
    URL_SAFE_NO_PAD.encode(bytes)
}

/// A JSON object, nested no deeper than the service's limit.
pub(crate) fn json_object(bytes: &[u8], what: &str) -> Result<Map<String, Value>, String> {
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
pub(crate) struct Compact<'a> {
    pub(crate) header: Map<String, Value>,
    pub(crate) payload: Vec<u8>,
    pub(crate) signature: Vec<u8>,
    /// `header.payload` as sent: what was signed.
    pub(crate) signing_input: &'a str,
}

pub(crate) fn split(token: &str) -> Result<Compact<'_>, String> {
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

/// The key of a JOSE operation's `key` field. Text that looks like an asymmetric key (PEM, an
/// OpenSSH line, a JWK) is read as one; any other text is an HMAC secret in `encoding`. A
/// public key therefore can never become an HMAC secret, whatever the token's `alg` says.
pub(crate) fn key_of(
    field: &str,
    input: &KeyInput,
    encoding: InputEncoding,
    passphrase: Option<&str>,
) -> Result<(Key, Meta), ApiError> {
    match input {
        KeyInput::Text(text) if !load::looks_asymmetric(text) => {
            let secret = byte_encoding::decode(text, encoding, field)?;
            if secret.is_empty() {
                return Err(ApiError::invalid(field, "the secret is empty"));
            }
            Ok((Key::Secret(secret), Meta::default()))
        }
        _ => load::read_with(field, input, passphrase.map(str::as_bytes)),
    }
}
