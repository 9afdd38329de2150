//! JSON Web Tokens: decoding without verification, and HS256 signing (RFC 7519, RFC 7515).
//!
//! Decoding reads any compact JWS; it does not check the signature, and says so in every
//! answer (`signature_verified: false`), because it has no key. Signing is HS256 only, on the
//! `hmac` crate; the secret is used for the one signature and never stored or logged.

use base64::{Engine, engine::general_purpose::URL_SAFE_NO_PAD};
use serde_json::Map;

use wrench_kit::crypto::{self, MacHash};

use wrench_contract::prelude::*;

use wrench_kit::jws::{b64_decode, json_object};

/// HS256 signature of `signing_input` (RFC 7515 section 3.1: header.payload in Base64url).
fn hs256(key: &[u8], signing_input: &str) -> String {
    URL_SAFE_NO_PAD.encode(crypto::hmac(MacHash::Sha256, key, signing_input.as_bytes()))
}

#[derive(Debug, Deserialize, JsonSchema, Validate)]
#[serde(deny_unknown_fields)]
struct JwtDecodeInput {
    /// A compact JWT: three Base64url parts separated by dots.
    #[schemars(length(max = 65536))]
    token: String,
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct JwtDecodeOutput {
    /// The JOSE header.
    header: Map<String, Value>,
    /// The claims.
    payload: Map<String, Value>,
    /// The signature part as sent (Base64url).
    signature: String,
    /// Always false: the signature is not checked, since no key is given.
    signature_verified: bool,
    /// The `alg` of the header.
    algorithm: Option<String>,
    /// `exp` as RFC 3339, when present.
    expires_at: Option<String>,
    /// `iat` as RFC 3339, when present.
    issued_at: Option<String>,
    /// `nbf` as RFC 3339, when present.
    not_before: Option<String>,
    /// Whether `exp` is in the past; null without `exp`.
    expired: Option<bool>,
    /// Seconds until `exp` (negative when expired); null without `exp`.
    expires_in: Option<i64>,
}

fn time_claim(payload: &Map<String, Value>, name: &str) -> Option<i64> {
    payload.get(name).and_then(|v| v.as_i64().or_else(|| v.as_f64().map(|f| f as i64)))
}

fn rfc3339_secs(secs: i64) -> Option<String> {
    jiff::Timestamp::from_second(secs).ok().map(|t| t.to_string())
}

/// Decode a JWT without verifying it.
///
/// Splits a compact JWT into header, payload and signature and reads the time claims: `exp`,
/// `iat` and `nbf` as RFC 3339, whether the token has expired and in how many seconds it will.
/// The signature is NOT verified (`signature_verified` is always false): never trust the
/// claims of a token decoded here. Malformed tokens are a 400 saying which part is wrong.
#[op(post "/v1/jwt/decode" as jwtDecode, tag = DeveloperUtilities, pipe(token -> payload),
     rejects = "a token that is not three Base64url parts with a JSON object header and payload",
     redact(".data.expired", ".data.expiresIn"),
     example(rfc7515_example, {"token": "eyJ0eXAiOiJKV1QiLA0KICJhbGciOiJIUzI1NiJ9.eyJpc3MiOiJqb2UiLA0KICJleHAiOjEzMDA4MTkzODAsDQogImh0dHA6Ly9leGFtcGxlLmNvbS9pc19yb290Ijp0cnVlfQ.dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"}),
     example(malformed, {"token": "not.a.jwt"}, status = 400))]
async fn jwt_decode(input: JwtDecodeInput) -> Result<JwtDecodeOutput, ApiError> {
    let parts: Vec<&str> = input.token.trim().split('.').collect();
    if parts.len() != 3 {
        return Err(ApiError::invalid(
            "token",
            format!("has {} parts; a JWT has three separated by dots", parts.len()),
        ));
    }
    let bad = |e: String| ApiError::invalid("token", e);
    let header = json_object(&b64_decode(parts[0], "header").map_err(bad)?, "header").map_err(bad)?;
    let payload = json_object(&b64_decode(parts[1], "payload").map_err(bad)?, "payload").map_err(bad)?;
    b64_decode(parts[2], "signature").map_err(bad)?;
    let exp = time_claim(&payload, "exp");
    let now = wrench_infra::time::unix_secs() as i64;
    Ok(JwtDecodeOutput {
        algorithm: header.get("alg").and_then(Value::as_str).map(str::to_string),
        expires_at: exp.and_then(rfc3339_secs),
        issued_at: time_claim(&payload, "iat").and_then(rfc3339_secs),
        not_before: time_claim(&payload, "nbf").and_then(rfc3339_secs),
        expired: exp.map(|e| e <= now),
        expires_in: exp.map(|e| e - now),
        signature: parts[2].to_string(),
        signature_verified: false,
        header,
        payload,
    })
}

#[derive(Debug, Deserialize, JsonSchema, Validate)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
#[schemars(transform = wrench_contract::validate::declare_aliases::<Self>)]
struct JwtGenerateInput {
    /// The claims. `iat` is set to now unless given; `exp` comes from `expires_in`.
    payload: Map<String, Value>,
    /// The HMAC secret (its UTF-8 bytes). RFC 7518 asks for at least 32 bytes for HS256.
    #[schemars(length(min = 1, max = 4096))]
    secret: String,
    /// Lifetime in seconds: sets `exp` to `iat` plus this. No `exp` when absent.
    #[serde(default, rename = "expires_in", alias = "expiresIn")]
    #[schemars(range(min = 1, max = 315360000))]
    expires_in: Option<u32>,
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct JwtGenerateOutput {
    /// The signed compact JWT.
    token: String,
    /// Always HS256.
    algorithm: String,
    /// The claims as signed.
    payload: Map<String, Value>,
    /// `exp` as RFC 3339, when set.
    expires_at: Option<String>,
}

/// Sign a JWT with HS256.
///
/// Builds `{"alg":"HS256","typ":"JWT"}` and the payload, adds `iat` (now) unless the payload
/// has one and `exp` (`iat` + `expires_in`) when asked, and signs with HMAC-SHA-256 under the
/// secret (RFC 7515, RFC 7518). Secrets shorter than 32 bytes work but are weak; the secret is
/// not stored or logged.
#[op(post "/v1/jwt/generate" as jwtGenerate, tag = DeveloperUtilities,
     redact(".data.token", ".data.payload.iat", ".data.payload.exp", ".data.expiresAt"),
     example(with_expiry, {"payload": {"sub": "user-42", "role": "admin"}, "secret": "a-secret-of-at-least-32-bytes-long!", "expires_in": 3600}),
     example(no_expiry_fixed_iat, {"payload": {"sub": "svc", "iat": 1700000000}, "secret": "another-secret-of-32-bytes-or-more"}))]
async fn jwt_generate(input: JwtGenerateInput) -> Result<JwtGenerateOutput, ApiError> {
    let mut payload = input.payload;
    let iat = match payload.get("iat").and_then(Value::as_i64) {
        Some(t) => t,
        None => {
            let t = wrench_infra::time::unix_secs() as i64;
            payload.insert("iat".into(), json!(t));
            t
        }
    };
    let exp = input.expires_in.map(|e| iat + i64::from(e));
    if let Some(e) = exp {
        payload.insert("exp".into(), json!(e));
    }
    let header = URL_SAFE_NO_PAD.encode(br#"{"alg":"HS256","typ":"JWT"}"#);
    let body = URL_SAFE_NO_PAD.encode(serde_json::to_vec(&payload).map_err(|e| ApiError::internal(e.to_string()))?);
    let signing_input = format!("{header}.{body}");
    let token = format!("{signing_input}.{}", hs256(input.secret.as_bytes(), &signing_input));
    Ok(JwtGenerateOutput { token, algorithm: "HS256".into(), expires_at: exp.and_then(rfc3339_secs), payload })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// RFC 7515 appendix A.1: the HS256 example JWS.
    const RFC_TOKEN: &str = "eyJ0eXAiOiJKV1QiLA0KICJhbGciOiJIUzI1NiJ9.eyJpc3MiOiJqb2UiLA0KICJleHAiOjEzMDA4MTkzODAsDQogImh0dHA6Ly9leGFtcGxlLmNvbS9pc19yb290Ijp0cnVlfQ.dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk";
    const RFC_KEY: &str = "AyM1SysPpbyDfgZld3umj1qzKObwVMkoqQ-EstJQLr_T-1qS0gZH75aKtMN3Yj0iPS4hcgUuTwjAzZr1Z9CAow";

    #[test]
    fn hs256_matches_rfc_7515_appendix_a1() {
        let key = URL_SAFE_NO_PAD.decode(RFC_KEY).unwrap();
        let (signing_input, signature) = RFC_TOKEN.rsplit_once('.').unwrap();
        assert_eq!(hs256(&key, signing_input), signature);
    }

    #[tokio::test]
    async fn decoding_reads_the_rfc_example() {
        let out = jwt_decode(JwtDecodeInput { token: RFC_TOKEN.into() }).await.unwrap();
        assert_eq!(out.header["alg"], "HS256");
        assert_eq!(out.payload["iss"], "joe");
        assert_eq!(out.payload["http://example.com/is_root"], true);
        assert_eq!(out.expires_at.as_deref(), Some("2011-03-22T18:43:00Z"));
        assert_eq!(out.expired, Some(true));
        assert!(!out.signature_verified);
        for bad in ["a.b", "a.b.c.d", "!!!.e30.e30", "e30.bm90IGpzb24.e30", "WzFd.e30.e30"] {
            assert!(jwt_decode(JwtDecodeInput { token: bad.into() }).await.is_err(), "{bad}");
        }
    }

    #[tokio::test]
    async fn generated_tokens_verify_and_decode() {
        let secret = "a-secret-of-at-least-32-bytes-long!";
        let out = jwt_generate(JwtGenerateInput {
            payload: serde_json::from_value(json!({"sub": "u1", "iat": 1700000000})).unwrap(),
            secret: secret.into(),
            expires_in: Some(60),
        })
        .await
        .unwrap();
        let (signing_input, signature) = out.token.rsplit_once('.').unwrap();
        assert_eq!(hs256(secret.as_bytes(), signing_input), signature, "the signature verifies with the secret");
        assert_ne!(hs256(b"another secret", signing_input), signature);
        let back = jwt_decode(JwtDecodeInput { token: out.token.clone() }).await.unwrap();
        assert_eq!(back.payload["exp"], 1700000060);
        assert_eq!(back.header["typ"], "JWT");
        assert_eq!(back.expires_at.as_deref(), Some("2023-11-14T22:14:20Z"));
    }
}
