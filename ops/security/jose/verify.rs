//! `jwt/verify`: a JWT checked against a key, a JWK Set, or a JWK Set fetched from a URL, and
//! the verdict with its reason.
//!
//! The order of checks is that of RFC 7515 section 5.2 and RFC 7519 section 7.2: the header
//! (an algorithm the caller allows, no critical extension), the key (chosen by `kid`, bound to
//! the algorithm), the signature, and only then the claims (time, issuer, audience, required
//! names). A token that fails is an answer, not an error: `valid` is false and `reason` says
//! which check failed. Only the caller's own mistakes (no key, an unreadable key) are 400s.

use serde_json::{Map, Value};

use wrench_contract::prelude::*;
use wrench_kit::byte_encoding::InputEncoding;

use super::algorithm::JwsAlgorithm;
use super::jwks::{self, Candidate, JwkSet};
use super::token::key_of;
use crate::security::keys::{jwk, load::KeyInput};
use wrench_kit::jws::{json_object, split};

/// Longest leeway for clock skew: a day.
const MAX_LEEWAY: u32 = 86_400;

#[derive(Debug, Deserialize, JsonSchema, Validate)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct JwtVerifyInput {
    /// The compact JWT.
    #[schemars(length(min = 1, max = 65536))]
    token: String,
    /// The algorithms accepted (required: a verifier that lets the token choose is open to
    /// algorithm confusion). The token's `alg` must be one of them.
    #[schemars(length(min = 1, max = 14))]
    algorithms: Vec<JwsAlgorithm>,
    /// The key: a secret (HMAC), a public or private key as PEM, a certificate, an OpenSSH
    /// public key, or a JWK. Exactly one of `key`, `jwks` and `jwksUrl`.
    key: Option<KeyInput>,
    /// How a secret given as text carries its bytes.
    #[serde(default)]
    key_encoding: InputEncoding,
    /// A JWK Set (RFC 7517 section 5); the key is chosen by the token's `kid`.
    #[serde(default, deserialize_with = "wrench_contract::decode::no_array")]
    jwks: Option<JwkSet>,
    /// An http or https URL of a JWK Set, fetched through the outbound layer (its address
    /// rules, time limit and size limit).
    #[schemars(length(min = 1, max = 2048))]
    jwks_url: Option<String>,
    /// The `iss` the token must carry.
    #[schemars(length(min = 1, max = 2048))]
    issuer: Option<String>,
    /// The audience wrench checks for: `aud` must be it or contain it. A token with `aud` is
    /// refused when no audience is given (RFC 7519 section 4.1.3).
    #[schemars(length(min = 1, max = 2048))]
    audience: Option<String>,
    /// Seconds of clock skew allowed around `exp` and `nbf`.
    #[serde(default)]
    #[schemars(range(min = 0, max = 86400))]
    leeway_seconds: u32,
    /// The time to judge `exp` and `nbf` at, in seconds since 1970; now when absent.
    #[schemars(range(min = 0, max = 253402300799i64))]
    at: Option<i64>,
    /// Claims that must be present (`exp`, `sub`...).
    #[serde(default)]
    #[schemars(length(max = 16))]
    required_claims: Vec<ClaimName>,
}

/// A claim's name.
#[derive(Debug, Deserialize, JsonSchema, Validate)]
#[serde(transparent)]
struct ClaimName(#[schemars(length(min = 1, max = 64))] String);

/// Which check decided the verdict.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
enum VerifyReason {
    /// Every check passed.
    Valid,
    /// Not a compact JWS with a JSON header and JSON claims.
    Malformed,
    /// The token's `alg` is absent, `none`, or not among `algorithms`.
    AlgorithmNotAllowed,
    /// The header has `crit`: extensions wrench does not process must be refused (RFC 7515
    /// section 4.1.11).
    UnsupportedCritical,
    /// No key of the set has the token's `kid` or fits its algorithm.
    KeyNotFound,
    /// The key is not the kind the token's algorithm takes (or its JWK says another `alg` or use).
    KeyMismatch,
    /// The signature does not verify.
    BadSignature,
    /// `exp` has passed (beyond the leeway).
    Expired,
    /// `nbf` is still ahead (beyond the leeway).
    NotYetValid,
    IssuerMismatch,
    AudienceMismatch,
    /// A claim of `requiredClaims` is absent.
    MissingClaim,
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct JwtVerifyOutput {
    valid: bool,
    reason: VerifyReason,
    /// The verdict in words.
    message: String,
    /// The header, when it could be read.
    header: Option<Map<String, Value>>,
    /// The claims, when they could be read: trust them only when `valid` is true.
    payload: Option<Map<String, Value>>,
    /// The token's `alg`.
    algorithm: Option<String>,
    /// The token's `kid`.
    kid: Option<String>,
    /// Whether the signature verified; null when the check was not reached.
    signature_valid: Option<bool>,
    /// RFC 7638 thumbprint of the key that verified the signature.
    key_thumbprint: Option<String>,
    /// Whether `exp` has passed (beyond the leeway); null without `exp` or before the claims.
    expired: Option<bool>,
    /// Whether `nbf` is still ahead (beyond the leeway); null without `nbf` or before the claims.
    not_yet_valid: Option<bool>,
}

impl JwtVerifyOutput {
    fn new(header: Option<Map<String, Value>>) -> JwtVerifyOutput {
        let text = |name: &str| header.as_ref().and_then(|h| h.get(name)).and_then(Value::as_str).map(str::to_string);
        JwtVerifyOutput {
            valid: false,
            reason: VerifyReason::Malformed,
            message: String::new(),
            algorithm: text("alg"),
            kid: text("kid"),
            header,
            payload: None,
            signature_valid: None,
            key_thumbprint: None,
            expired: None,
            not_yet_valid: None,
        }
    }

    fn verdict(mut self, reason: VerifyReason, message: impl Into<String>) -> JwtVerifyOutput {
        self.valid = reason == VerifyReason::Valid;
        self.reason = reason;
        self.message = message.into();
        self
    }
}

/// A NumericDate claim: absent, a number, or a malformed token.
fn time_claim(payload: &Map<String, Value>, name: &str) -> Result<Option<f64>, String> {
    match payload.get(name) {
        None => Ok(None),
        Some(v) => v.as_f64().map(Some).ok_or_else(|| format!("`{name}` is not a number (RFC 7519 NumericDate)")),
    }
}

/// The claims' checks, after the signature verified.
fn check_claims(
    input: &JwtVerifyInput,
    payload: &Map<String, Value>,
    out: &mut JwtVerifyOutput,
) -> Result<(), (VerifyReason, String)> {
    let malformed = |m: String| (VerifyReason::Malformed, m);
    let now = input.at.unwrap_or_else(|| wrench_infra::time::unix_secs() as i64) as f64;
    let leeway = f64::from(input.leeway_seconds.min(MAX_LEEWAY));
    let exp = time_claim(payload, "exp").map_err(malformed)?;
    let nbf = time_claim(payload, "nbf").map_err(malformed)?;
    time_claim(payload, "iat").map_err(malformed)?;
    out.expired = exp.map(|e| now >= e + leeway);
    out.not_yet_valid = nbf.map(|n| now < n - leeway);
    if out.expired == Some(true) {
        return Err((VerifyReason::Expired, format!("the token expired at {} (exp)", exp.unwrap_or_default())));
    }
    if out.not_yet_valid == Some(true) {
        return Err((
            VerifyReason::NotYetValid,
            format!("the token is not valid before {} (nbf)", nbf.unwrap_or_default()),
        ));
    }
    if let Some(issuer) = &input.issuer {
        match payload.get("iss") {
            Some(Value::String(iss)) if iss == issuer => {}
            Some(Value::String(iss)) => {
                return Err((VerifyReason::IssuerMismatch, format!("the issuer is `{iss}`, not `{issuer}`")));
            }
            Some(_) => return Err(malformed("`iss` is not a string".into())),
            None => return Err((VerifyReason::IssuerMismatch, "the token has no `iss`".into())),
        }
    }
    let audiences: Option<Vec<&str>> = match payload.get("aud") {
        None => None,
        Some(Value::String(a)) => Some(vec![a.as_str()]),
        Some(Value::Array(list)) => Some(
            list.iter()
                .map(Value::as_str)
                .collect::<Option<Vec<_>>>()
                .ok_or_else(|| malformed("`aud` holds a non-string".into()))?,
        ),
        Some(_) => return Err(malformed("`aud` is neither a string nor an array of strings".into())),
    };
    match (&input.audience, audiences) {
        (Some(want), Some(list)) if !list.contains(&want.as_str()) => {
            return Err((VerifyReason::AudienceMismatch, format!("the audience `{want}` is not in `aud`")));
        }
        (Some(_), None) => return Err((VerifyReason::AudienceMismatch, "the token has no `aud`".into())),
        (None, Some(_)) => {
            return Err((
                VerifyReason::AudienceMismatch,
                "the token names an audience (`aud`) and no `audience` was given to check it against".into(),
            ));
        }
        _ => {}
    }
    if let Some(missing) = input.required_claims.iter().find(|c| !payload.contains_key(&c.0)) {
        return Err((VerifyReason::MissingClaim, format!("the token has no `{}`", missing.0)));
    }
    Ok(())
}

/// Verify a JWT's signature and claims.
///
/// Checks a compact JWT against a key (secret, PEM, certificate, OpenSSH public key or JWK), a
/// JWK Set chosen from by `kid`, or a JWK Set fetched from `jwksUrl`. The token's algorithm must
/// be in `algorithms`, which is required; `none` is never accepted and a key only verifies the
/// algorithm it is made for, so a public key cannot pass as an HMAC secret. Then `exp` and
/// `nbf` (with `leewaySeconds`), `iss`, `aud` and `requiredClaims`. Every verdict has a reason.
#[op(post "/v1/jwt/verify" as jwtVerify, tag = SecurityAndValidation,
     rejects = "no key or more than one of key, jwks and jwksUrl, or a key wrench cannot read",
     redact(".data.expired", ".data.notYetValid"),
     example(rfc7515_a1_hs256, {"token": "eyJ0eXAiOiJKV1QiLA0KICJhbGciOiJIUzI1NiJ9.eyJpc3MiOiJqb2UiLA0KICJleHAiOjEzMDA4MTkzODAsDQogImh0dHA6Ly9leGFtcGxlLmNvbS9pc19yb290Ijp0cnVlfQ.dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk",
        "algorithms": ["HS256"], "key": {"kty": "oct", "k": "AyM1SysPpbyDfgZld3umj1qzKObwVMkoqQ-EstJQLr_T-1qS0gZH75aKtMN3Yj0iPS4hcgUuTwjAzZr1Z9CAow"},
        "issuer": "joe", "at": 1300819000}),
     example(expired, {"token": "eyJ0eXAiOiJKV1QiLA0KICJhbGciOiJIUzI1NiJ9.eyJpc3MiOiJqb2UiLA0KICJleHAiOjEzMDA4MTkzODAsDQogImh0dHA6Ly9leGFtcGxlLmNvbS9pc19yb290Ijp0cnVlfQ.dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk",
        "algorithms": ["HS256"], "key": "AyM1SysPpbyDfgZld3umj1qzKObwVMkoqQ-EstJQLr_T-1qS0gZH75aKtMN3Yj0iPS4hcgUuTwjAzZr1Z9CAow", "keyEncoding": "base64url", "at": 1700000000}),
     example(algorithm_not_allowed, {"token": "eyJ0eXAiOiJKV1QiLA0KICJhbGciOiJIUzI1NiJ9.eyJpc3MiOiJqb2UiLA0KICJleHAiOjEzMDA4MTkzODAsDQogImh0dHA6Ly9leGFtcGxlLmNvbS9pc19yb290Ijp0cnVlfQ.dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk",
        "algorithms": ["RS256"], "jwks": {"keys": []}}),
     example(jwks_url, {"token": "eyJhbGciOiJFUzI1NiIsImtpZCI6ImVjLTEiLCJ0eXAiOiJKV1QifQ.eyJzdWIiOiJmaXh0dXJlIiwiaWF0IjoxNzAwMDAwMDAwfQ.QrOxpxgQ-zbtrPEGntQnhN6uYYszL2hfvlT_DdggDfPpNJz5ZplVBVfviQZcnbN1Z9k6ReKmf1TVqsv9QUWQyA",
        "algorithms": ["ES256"], "jwksUrl": "http://www.site.example:8080/.well-known/jwks.json"}),
     example(no_key, {"token": "a.b.c", "algorithms": ["HS256"]}, status = 400))]
async fn jwt_verify(ctx: &Ctx, input: JwtVerifyInput) -> Result<JwtVerifyOutput, ApiError> {
    let given = [input.key.is_some(), input.jwks.is_some(), input.jwks_url.is_some()];
    match given.iter().filter(|g| **g).count() {
        0 => return Err(ApiError::invalid("key", "give the key: one of `key`, `jwks` or `jwksUrl`")),
        1 => {}
        _ => return Err(ApiError::invalid("key", "give one of `key`, `jwks` and `jwksUrl`, not several")),
    }
    // The key is read before the token, so that a key the caller got wrong is a 400 whatever
    // the token is.
    let candidates: Vec<Candidate> = match (&input.key, &input.jwks, &input.jwks_url) {
        (Some(key), _, _) => {
            let (key, meta) = key_of("key", key, input.key_encoding, None)?;
            vec![Candidate { key: Ok(key), meta }]
        }
        (_, Some(set), _) => jwks::candidates(set),
        (_, _, Some(url)) => jwks::candidates(&jwks::fetch(ctx, url).await?),
        _ => Vec::new(),
    };
    let single_key = input.key.is_some();

    let compact = match split(&input.token) {
        Ok(c) => c,
        Err(e) => return Ok(JwtVerifyOutput::new(None).verdict(VerifyReason::Malformed, e)),
    };
    let mut out = JwtVerifyOutput::new(Some(compact.header.clone()));
    let alg = match compact.header.get("alg") {
        None => return Ok(out.verdict(VerifyReason::AlgorithmNotAllowed, "the header has no `alg`")),
        Some(Value::String(a)) if a.eq_ignore_ascii_case("none") => {
            return Ok(out.verdict(VerifyReason::AlgorithmNotAllowed, "`none` (an unsigned token) is never accepted"));
        }
        Some(Value::String(a)) => match JwsAlgorithm::from_name(a).filter(|alg| input.algorithms.contains(alg)) {
            Some(alg) => alg,
            None => {
                let allowed: Vec<&str> = input.algorithms.iter().map(|a| a.name()).collect();
                return Ok(out.verdict(
                    VerifyReason::AlgorithmNotAllowed,
                    format!("the token's algorithm `{a}` is not among those allowed ({})", allowed.join(", ")),
                ));
            }
        },
        Some(_) => return Ok(out.verdict(VerifyReason::Malformed, "the header's `alg` is not a string")),
    };
    if compact.header.contains_key("crit") {
        return Ok(out.verdict(
            VerifyReason::UnsupportedCritical,
            "the header has `crit`: it names extensions that must be understood, and wrench processes none",
        ));
    }

    let chosen = if single_key {
        jwks::choose_single(&candidates, alg)
    } else {
        jwks::choose(&candidates, alg, out.kid.as_deref())
    };
    let keys = match chosen {
        Ok(keys) => keys,
        Err((mismatch, message)) => {
            let reason = if mismatch { VerifyReason::KeyMismatch } else { VerifyReason::KeyNotFound };
            return Ok(out.verdict(reason, message));
        }
    };
    let signing_input = compact.signing_input.as_bytes();
    let verified = keys.into_iter().find(|k| alg.verify(k, signing_input, &compact.signature).unwrap_or(false));
    out.signature_valid = Some(verified.is_some());
    let Some(key) = verified else {
        return Ok(out.verdict(
            VerifyReason::BadSignature,
            format!("the {} signature does not verify with the key", alg.name()),
        ));
    };
    out.key_thumbprint = Some(jwk::thumbprint(&key.public()));

    let payload = match json_object(&compact.payload, "payload") {
        Ok(p) => p,
        Err(e) => {
            return Ok(out.verdict(VerifyReason::Malformed, format!("the signature verifies, but {e}: not a JWT")));
        }
    };
    let checked = check_claims(&input, &payload, &mut out);
    out.payload = Some(payload);
    Ok(match checked {
        Ok(()) => {
            out.verdict(VerifyReason::Valid, format!("the {} signature verifies and the claims hold", alg.name()))
        }
        Err((reason, message)) => out.verdict(reason, message),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::{fake_ctx, fixture};

    async fn verify(input: Value) -> Result<JwtVerifyOutput, ApiError> {
        let input: JwtVerifyInput = serde_json::from_value(input).expect("the test input reads");
        jwt_verify(&fake_ctx(&[]), input).await
    }

    async fn reason(input: Value) -> VerifyReason {
        verify(input).await.unwrap().reason
    }

    /// PyJWT's tokens signed with secrets of random bytes that are not UTF-8 verify with the
    /// same bytes given in hex (and in Base64), and not with a secret one bit off
    /// (tests/fixtures/jwt_binary_secrets.py).
    #[tokio::test]
    async fn binary_secrets_verify_pyjwts_tokens() {
        use base64::Engine;
        let f = crate::testing::fixture("jwt_binary_secrets.json");
        for c in f.as_array().unwrap() {
            let (token, alg, hex) =
                (c["token"].as_str().unwrap(), c["alg"].as_str().unwrap(), c["secretHex"].as_str().unwrap());
            let bytes = hex::decode(hex).unwrap();
            let b64 = base64::engine::general_purpose::STANDARD.encode(&bytes);
            for (key, encoding) in [(hex.to_string(), "hex"), (b64, "base64")] {
                let body =
                    json!({"token": token, "algorithms": [alg], "key": key, "keyEncoding": encoding, "at": 1700000000});
                assert_eq!(reason(body).await, VerifyReason::Valid, "{alg} {encoding}");
            }
            let mut off = bytes.clone();
            off[0] ^= 1;
            let body = json!({"token": token, "algorithms": [alg], "key": hex::encode(off), "keyEncoding": "hex", "at": 1700000000});
            assert_eq!(reason(body).await, VerifyReason::BadSignature, "{alg}");
        }
    }

    /// Signs `header.payload` with an HMAC secret, the way a forger would.
    fn forged(header: Value, payload: Value, secret: &[u8]) -> String {
        use wrench_kit::jws::b64;
        let input = format!("{}.{}", b64(header.to_string().as_bytes()), b64(payload.to_string().as_bytes()));
        let mac = wrench_kit::crypto::hmac(wrench_kit::crypto::MacHash::Sha256, secret, input.as_bytes());
        format!("{input}.{}", b64(&mac))
    }

    #[tokio::test]
    async fn pyjwt_tokens_verify_with_every_form_of_their_key() {
        let f = fixture("jose.json");
        for t in f["tokens"].as_array().unwrap() {
            let alg = t["alg"].as_str().unwrap();
            let keys: Vec<Value> = match t["key"].as_str() {
                None => vec![
                    f["secret"].clone(),
                    json!({"kty": "oct", "k": wrench_kit::jws::b64(f["secret"].as_str().unwrap().as_bytes())}),
                ],
                Some(name) => {
                    let k = &f["keys"][name];
                    vec![
                        k["spki"].clone(),
                        k["pkcs8"].clone(),
                        k["jwkPublic"].clone(),
                        k["jwkPrivate"].clone(),
                        k["jwkPublic"].to_string().into(),
                    ]
                }
            };
            for key in keys {
                let out = verify(json!({"token": t["token"], "algorithms": [alg], "key": key})).await.unwrap();
                assert_eq!(out.reason, VerifyReason::Valid, "{alg}: {}", out.message);
                assert!(out.valid && out.signature_valid == Some(true));
                assert_eq!(out.payload.as_ref().unwrap()["sub"], "fixture");
                assert_eq!(out.expired, Some(false));
            }
            // The same token with its last signature character changed, and judged after `exp`.
            let token = t["token"].as_str().unwrap();
            let mut bad = token.to_string();
            let last = bad.pop().unwrap();
            bad.push(if last == 'A' { 'Q' } else { 'A' });
            let key = t["key"].as_str().map_or(f["secret"].clone(), |n| f["keys"][n]["spki"].clone());
            let out = verify(json!({"token": bad, "algorithms": [alg], "key": key})).await.unwrap();
            assert!(
                matches!(out.reason, VerifyReason::BadSignature | VerifyReason::Malformed),
                "{alg}: {:?}",
                out.reason
            );
            assert!(!out.valid);
            let at = f["payload"]["exp"].as_i64().unwrap();
            assert_eq!(
                reason(json!({"token": token, "algorithms": [alg], "key": key, "at": at})).await,
                VerifyReason::Expired
            );
            let out = verify(json!({"token": token, "algorithms": [alg], "key": key, "at": at, "leewaySeconds": 1}))
                .await
                .unwrap();
            assert_eq!(out.reason, VerifyReason::Valid, "{alg}: a second of leeway");
        }
    }

    #[tokio::test]
    async fn the_rfc_examples_verify() {
        let f = fixture("jose.json");
        for ex in f["rfc"].as_array().unwrap() {
            let input = json!({"token": ex["token"], "algorithms": [ex["alg"]], "key": ex["key"], "at": 1300819000});
            let out = verify(input).await.unwrap();
            assert_eq!(out.signature_valid, Some(true), "{}: {}", ex["name"], out.message);
            // A.4 and RFC 8037 sign a payload that is not JSON claims.
            let want = if ex["name"] == "RFC 7515 A.4" || ex["name"] == "RFC 8037 A.4" {
                VerifyReason::Malformed
            } else {
                VerifyReason::Valid
            };
            assert_eq!(out.reason, want, "{}: {}", ex["name"], out.message);
        }
    }

    #[tokio::test]
    async fn confusion_none_and_crit_are_refused() {
        let f = fixture("jose.json");
        let rsa_public = f["keys"]["rsa"]["spki"].as_str().unwrap();
        // The classic forgery: HS256 keyed with the RSA public key's PEM text.
        let token = forged(json!({"alg": "HS256"}), json!({"sub": "admin"}), rsa_public.as_bytes());
        let out = verify(json!({"token": token, "algorithms": ["HS256", "RS256"], "key": rsa_public})).await.unwrap();
        assert_eq!(out.reason, VerifyReason::KeyMismatch, "{}", out.message);
        assert_eq!(out.signature_valid, None);
        // alg none, in any case, and an alg outside the list.
        let b64 = wrench_kit::jws::b64;
        for alg in ["none", "None", "NONE"] {
            let token = format!("{}.{}.", b64(json!({"alg": alg}).to_string().as_bytes()), b64(b"{\"sub\":\"admin\"}"));
            let r = reason(json!({"token": token, "algorithms": ["HS256"], "key": "secret"})).await;
            assert_eq!(r, VerifyReason::AlgorithmNotAllowed, "{alg}");
        }
        let token = forged(json!({"alg": "HS256"}), json!({}), b"secret");
        assert_eq!(
            reason(json!({"token": token, "algorithms": ["HS384"], "key": "secret"})).await,
            VerifyReason::AlgorithmNotAllowed
        );
        assert_eq!(
            reason(json!({"token": token, "algorithms": ["HS256"], "key": "secret"})).await,
            VerifyReason::Valid
        );
        let token = forged(json!({"alg": "HS256", "crit": ["b64"], "b64": false}), json!({}), b"secret");
        assert_eq!(
            reason(json!({"token": token, "algorithms": ["HS256"], "key": "secret"})).await,
            VerifyReason::UnsupportedCritical
        );
        assert_eq!(
            reason(json!({"token": "a.b", "algorithms": ["HS256"], "key": "secret"})).await,
            VerifyReason::Malformed
        );
    }

    #[tokio::test]
    async fn claims_are_checked_after_the_signature() {
        let s = |payload: Value| forged(json!({"alg": "HS256"}), payload, b"secret");
        let base = |token: String, extra: Value| {
            let mut v = json!({"token": token, "algorithms": ["HS256"], "key": "secret", "at": 1000});
            v.as_object_mut().unwrap().extend(extra.as_object().unwrap().clone());
            v
        };
        let cases = [
            (json!({"exp": 1000}), json!({}), VerifyReason::Expired),
            (json!({"exp": 1000}), json!({"leewaySeconds": 1}), VerifyReason::Valid),
            (json!({"nbf": 1001}), json!({}), VerifyReason::NotYetValid),
            (json!({"nbf": 1001}), json!({"leewaySeconds": 1}), VerifyReason::Valid),
            (json!({"exp": "soon"}), json!({}), VerifyReason::Malformed),
            (json!({"iss": "a"}), json!({"issuer": "b"}), VerifyReason::IssuerMismatch),
            (json!({}), json!({"issuer": "b"}), VerifyReason::IssuerMismatch),
            (json!({"iss": "b"}), json!({"issuer": "b"}), VerifyReason::Valid),
            (json!({"aud": ["x", "y"]}), json!({"audience": "y"}), VerifyReason::Valid),
            (json!({"aud": "x"}), json!({"audience": "y"}), VerifyReason::AudienceMismatch),
            (json!({"aud": "x"}), json!({}), VerifyReason::AudienceMismatch),
            (json!({}), json!({"audience": "y"}), VerifyReason::AudienceMismatch),
            (json!({"sub": "u"}), json!({"requiredClaims": ["sub", "exp"]}), VerifyReason::MissingClaim),
            (json!({"sub": "u", "exp": 2000}), json!({"requiredClaims": ["sub", "exp"]}), VerifyReason::Valid),
        ];
        for (payload, extra, want) in cases {
            let out = verify(base(s(payload.clone()), extra.clone())).await.unwrap();
            assert_eq!(out.reason, want, "{payload} {extra}: {}", out.message);
        }
        // A bad signature is reported before any claim.
        let token = forged(json!({"alg": "HS256"}), json!({"exp": 1}), b"other");
        assert_eq!(reason(base(token, json!({}))).await, VerifyReason::BadSignature);
    }

    #[tokio::test]
    async fn keys_are_chosen_from_a_set_by_kid() {
        let f = fixture("jose.json");
        let jwks = &f["jwks"];
        let es256 = f["tokens"].as_array().unwrap().iter().find(|t| t["alg"] == "ES256").unwrap()["token"].clone();
        // The fixture token says kid "p256"; the set names that key "ec-1".
        assert_eq!(
            reason(json!({"token": es256, "algorithms": ["ES256"], "jwks": jwks})).await,
            VerifyReason::KeyNotFound
        );
        let url_token = f["jwksUrlToken"].clone();
        let out = verify(json!({"token": url_token, "algorithms": ["ES256"], "jwks": jwks})).await.unwrap();
        assert_eq!(out.reason, VerifyReason::Valid, "{}", out.message);
        assert_eq!(out.key_thumbprint.as_deref(), f["keys"]["p256"]["thumbprint"].as_str());
        // Fetched from the fakes' site: the same verdict.
        let url = "http://www.site.example:8080/.well-known/jwks.json";
        let out = verify(json!({"token": url_token, "algorithms": ["ES256"], "jwksUrl": url})).await.unwrap();
        assert_eq!(out.reason, VerifyReason::Valid, "{}", out.message);
        // A token naming the set's Ed448 key: found, not usable, and said why.
        let b64 = wrench_kit::jws::b64;
        let token = format!("{}.{}.{}", b64(br#"{"alg":"EdDSA","kid":"ed448-1"}"#), b64(b"{}"), b64(&[0; 64]));
        let out = verify(json!({"token": token, "algorithms": ["EdDSA"], "jwks": jwks})).await.unwrap();
        assert_eq!(out.reason, VerifyReason::KeyMismatch);
        assert!(out.message.contains("Ed448"), "{}", out.message);
        // Without kid, every key that fits is tried.
        let ed_key = crate::security::keys::jwk::read(f["keys"]["ed25519"]["jwkPrivate"].as_object().unwrap()).unwrap();
        let input = format!("{}.{}", b64(br#"{"alg":"EdDSA"}"#), b64(br#"{"sub":"no kid"}"#));
        let signature = JwsAlgorithm::EdDSA.sign(&ed_key, input.as_bytes()).unwrap();
        let token = format!("{input}.{}", b64(&signature));
        let out =
            verify(json!({"token": token, "algorithms": ["EdDSA", "ES256", "RS256"], "jwks": jwks})).await.unwrap();
        assert_eq!(out.reason, VerifyReason::Valid, "{}", out.message);
        // The RSA key of the set says alg RS256: it does not verify PS256.
        let ps = f["tokens"].as_array().unwrap().iter().find(|t| t["alg"] == "PS256").unwrap()["token"].clone();
        let mut set = jwks.clone();
        set["keys"][0]["kid"] = "rsa".into();
        let out = verify(json!({"token": ps, "algorithms": ["PS256"], "jwks": set})).await.unwrap();
        assert_eq!(out.reason, VerifyReason::KeyMismatch, "{}", out.message);
    }

    #[tokio::test]
    async fn the_callers_mistakes_are_400s() {
        let t = "a.b.c";
        for input in [
            json!({"token": t, "algorithms": ["HS256"]}),
            json!({"token": t, "algorithms": ["HS256"], "key": "s", "jwks": {"keys": []}}),
            json!({"token": t, "algorithms": ["RS256"], "key": "-----BEGIN PUBLIC KEY-----\nAAAA\n-----END PUBLIC KEY-----"}),
            json!({"token": t, "algorithms": ["RS256"], "key": {"kty": "RSA"}}),
            json!({"token": t, "algorithms": ["HS256"], "key": "zz", "keyEncoding": "hex"}),
        ] {
            let e = verify(input.clone()).await.err().unwrap_or_else(|| panic!("{input} is refused"));
            assert_eq!(e.status().as_u16(), 400, "{input}");
        }
    }

    /// RFC 7520 section 4 (the JOSE cookbook), as jwcrypto carries it: RS256, PS384, ES512 and
    /// HS256 signatures verify with the section 3 keys (private and public halves); their
    /// payload is prose, not claims, so the verdict is `malformed` with the signature valid.
    #[tokio::test]
    async fn the_rfc_7520_cookbook_signatures_verify() {
        for ex in fixture("jose_rfc7520.json").as_array().unwrap() {
            let mut keys = vec![ex["key"].clone()];
            if ex["key"]["kty"] != "oct" {
                let private = crate::security::keys::jwk::read(ex["key"].as_object().unwrap()).unwrap();
                keys.push(Value::Object(crate::security::keys::jwk::write(&private.public(), false)));
            }
            for key in keys {
                let out = verify(json!({"token": ex["token"], "algorithms": [ex["alg"]], "key": key})).await.unwrap();
                assert_eq!(out.signature_valid, Some(true), "{}: {}", ex["name"], out.message);
                assert_eq!(out.reason, VerifyReason::Malformed, "{}", ex["name"]);
            }
            let mut tampered = ex["token"].as_str().unwrap().to_string();
            tampered.insert(tampered.find('.').unwrap() + 1, 'A');
            let out = verify(json!({"token": tampered, "algorithms": [ex["alg"]], "key": ex["key"]})).await.unwrap();
            assert_ne!(out.signature_valid, Some(true), "{}: an altered payload", ex["name"]);
        }
    }
}
