//! `jwt/sign`: a JWT signed with any JWS algorithm of [`JwsAlgorithm`], under a secret, a PEM
//! private key or a JWK.

use serde_json::{Map, Value};

use wrench_contract::prelude::*;
use wrench_kit::byte_encoding::InputEncoding;

use super::algorithm::JwsAlgorithm;
use super::token::key_of;
use crate::security::keys::{jwk, load::KeyInput};
use wrench_kit::jws::b64;

/// Longest token written: the longest `jwt/verify` reads.
pub(crate) const MAX_TOKEN: usize = 65_536;

#[derive(Debug, Deserialize, JsonSchema, Validate)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct JwtSignInput {
    /// The claims. `iat` is set to the time of signing unless present; `exp` and `nbf` come
    /// from `expiresIn` and `notBefore`.
    payload: Map<String, Value>,
    /// Header members to add (`typ`, `cty`, `x5t#S256`...). `alg` comes from `algorithm` and
    /// may only repeat it; `typ` is `JWT` unless given.
    #[serde(default, deserialize_with = "wrench_contract::decode::no_array")]
    header: Option<Map<String, Value>>,
    /// The JWS algorithm (RFC 7518, RFC 8812, RFC 8037). `none` is not offered.
    algorithm: JwsAlgorithm,
    /// For HS256/384/512 a secret (in `keyEncoding`) or an `oct` JWK; for the others a private
    /// key as PEM (PKCS#8, PKCS#1 or SEC1) or a JWK, as an object or JSON text.
    key: KeyInput,
    /// How a secret given as text carries its bytes (HMAC algorithms only).
    #[serde(default)]
    key_encoding: InputEncoding,
    /// The passphrase of an encrypted private key (PKCS#8 or OpenSSH).
    #[schemars(length(min = 1, max = 1024))]
    passphrase: Option<String>,
    /// The `kid` header member. A JWK's own `kid` is used when this is absent.
    #[schemars(length(min = 1, max = 256))]
    kid: Option<String>,
    /// Lifetime in seconds: `exp` is `iat` plus this.
    #[schemars(range(min = 1, max = 315360000))]
    expires_in: Option<u32>,
    /// Seconds after `iat` before which the token is not valid: `nbf` is `iat` plus this.
    #[schemars(range(min = 0, max = 315360000))]
    not_before: Option<u32>,
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct JwtSignOutput {
    /// The compact JWS.
    token: String,
    /// The header as signed.
    header: Map<String, Value>,
    /// The claims as signed.
    payload: Map<String, Value>,
    algorithm: JwsAlgorithm,
    /// `exp` as RFC 3339, when set.
    expires_at: Option<String>,
    /// The RFC 7638 thumbprint of the verifying key (the public half; for a secret, of the
    /// secret's JWK), for matching the token to a JWKS entry.
    key_thumbprint: String,
    /// Advice that does not stop signing: a short HMAC secret.
    warnings: Vec<String>,
}

fn time_claim(payload: &Map<String, Value>, name: &str) -> Result<Option<i64>, ApiError> {
    match payload.get(name) {
        None => Ok(None),
        Some(v) => v.as_i64().map(Some).ok_or_else(|| {
            ApiError::invalid(
                "payload",
                format!("`{name}` is not a whole number of seconds since 1970 (RFC 7519 NumericDate)"),
            )
        }),
    }
}

fn rfc3339(secs: i64) -> Option<String> {
    jiff::Timestamp::from_second(secs).ok().map(|t| t.to_string())
}

/// Sign a JWT with any JWS algorithm.
///
/// Builds the header (`alg`, `typ: JWT`, `kid` and any members given) and the claims (`iat`
/// now unless given, `exp` and `nbf` from `expiresIn` and `notBefore`), and signs with HMAC,
/// RSA PKCS#1 v1.5, RSA-PSS, ECDSA on P-256, P-384, P-521 or secp256k1, or Ed25519. The key must
/// be the kind the algorithm takes: a PEM or JWK key is never used as an HMAC secret, and RSA
/// keys have at least 2048 bits. The key is used for this one signature and not kept.
#[op(post "/v1/jwt/sign" as jwtSign, tag = SecurityAndValidation, pipe(payload -> token), cpu,
     rejects = "a key that is not the kind the algorithm takes, a public key, or a header whose alg differs",
     redact(".data.token", ".data.payload.iat", ".data.payload.exp", ".data.payload.nbf", ".data.expiresAt"),
     example(hs256_secret, {"payload": {"sub": "user-42"}, "algorithm": "HS256", "key": "a-secret-of-at-least-32-bytes-long!", "expiresIn": 3600}),
     example(eddsa_jwk, {"payload": {"sub": "svc", "iat": 1700000000}, "algorithm": "EdDSA",
        "key": {"kty": "OKP", "crv": "Ed25519", "d": "nWGxne_9WmC6hEr0kuwsxERJxWl7MmkZcDusAxyuf2A", "x": "11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo", "kid": "ed-1"}}),
     example(confusion_refused, {"payload": {"sub": "x"}, "algorithm": "HS256",
        "key": "-----BEGIN PUBLIC KEY-----\nMCowBQYDK2VwAyEA11qYAYKxCrfVS/7TyWQHOg7hcvPapiMlrwIaaPcHURo=\n-----END PUBLIC KEY-----\n"}, status = 400))]
async fn jwt_sign(input: JwtSignInput) -> Result<JwtSignOutput, ApiError> {
    let alg = input.algorithm;
    let (key, meta) = key_of("key", &input.key, input.key_encoding, input.passphrase.as_deref())?;
    alg.fits(&key).map_err(|e| ApiError::invalid("key", e))?;
    if !key.is_private() {
        return Err(ApiError::invalid("key", format!("signing needs a private key; the key is {}", key.describe())));
    }
    if !alg.allowed_by_jwk(meta.alg.as_deref()) {
        return Err(ApiError::invalid(
            "key",
            format!("the JWK is for {} (its `alg`), not {}", meta.alg.unwrap_or_default(), alg.name()),
        ));
    }

    let mut header = Map::new();
    header.insert("alg".into(), alg.name().into());
    header.insert("typ".into(), "JWT".into());
    for (k, v) in input.header.unwrap_or_default() {
        if k == "alg" && v != alg.name() {
            return Err(ApiError::invalid(
                "header",
                format!("`alg` is {v}, but the token is signed with {}", alg.name()),
            ));
        }
        header.insert(k, v);
    }
    if let Some(kid) = input.kid.or(meta.kid) {
        if header.get("kid").is_some_and(|k| *k != kid) {
            return Err(ApiError::invalid("header", "`kid` differs from the `kid` field"));
        }
        header.insert("kid".into(), kid.into());
    }

    let mut payload = input.payload;
    let iat = match time_claim(&payload, "iat")? {
        Some(t) => t,
        None => {
            let t = wrench_infra::time::unix_secs() as i64;
            payload.insert("iat".into(), t.into());
            t
        }
    };
    let exp = input.expires_in.map(|s| iat + i64::from(s));
    if let Some(e) = exp {
        payload.insert("exp".into(), e.into());
    }
    if let Some(n) = input.not_before {
        payload.insert("nbf".into(), (iat + i64::from(n)).into());
    }

    let to_json = |v: &Map<String, Value>| serde_json::to_vec(v).map_err(|e| ApiError::internal(e.to_string()));
    let signing_input = format!("{}.{}", b64(&to_json(&header)?), b64(&to_json(&payload)?));
    let signature = alg.sign(&key, signing_input.as_bytes()).map_err(|e| ApiError::invalid("key", e))?;
    let token = format!("{signing_input}.{}", b64(&signature));
    if token.len() > MAX_TOKEN {
        return Err(ApiError::invalid(
            "payload",
            format!(
                "makes a token of {} characters; jwt/verify, like most servers, takes at most {MAX_TOKEN}",
                token.len()
            ),
        ));
    }
    Ok(JwtSignOutput {
        token,
        expires_at: exp.or(time_claim(&payload, "exp")?).and_then(rfc3339),
        key_thumbprint: jwk::thumbprint(&key.public()),
        warnings: alg.weak_secret(&key).into_iter().collect(),
        algorithm: alg,
        header,
        payload,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::security::keys::{jwk, load};
    use crate::testing::fixture;
    use wrench_kit::jws::split;

    async fn sign(input: Value) -> Result<JwtSignOutput, ApiError> {
        jwt_sign(serde_json::from_value(input).expect("the test input reads")).await
    }

    /// RFC 7515 A.1 (HS256) and A.2 (RS256) and RFC 8037 A.4 (Ed25519) are deterministic: the
    /// same key over the same signing input gives the published signature.
    #[test]
    fn deterministic_rfc_signatures_are_reproduced() {
        let f = fixture("jose.json");
        for ex in f["rfc"].as_array().unwrap().iter().filter(|e| e["deterministic"] == true || e["alg"] == "EdDSA") {
            let token = ex["token"].as_str().unwrap();
            let parts = split(token).unwrap();
            let key = jwk::read(ex["key"].as_object().unwrap()).unwrap();
            let alg = JwsAlgorithm::from_name(ex["alg"].as_str().unwrap()).unwrap();
            let signature = alg.sign(&key, parts.signing_input.as_bytes()).unwrap();
            assert_eq!(b64(&signature), token.rsplit('.').next().unwrap(), "{}", ex["name"]);
        }
    }

    /// Secrets of random bytes that are not UTF-8, given in hex: the tokens equal those PyJWT
    /// signs with the same bytes (tests/fixtures/jwt_binary_secrets.py).
    #[tokio::test]
    async fn binary_secrets_sign_as_pyjwt_signs() {
        let f = fixture("jwt_binary_secrets.json");
        for c in f.as_array().unwrap() {
            let out = sign(
                json!({"payload": c["payload"], "algorithm": c["alg"], "key": c["secretHex"], "keyEncoding": "hex"}),
            )
            .await
            .unwrap();
            assert_eq!(out.token, c["token"].as_str().unwrap(), "{}", c["alg"]);
        }
    }

    #[tokio::test]
    async fn every_algorithm_signs_with_every_private_form() {
        let f = fixture("jose.json");
        for t in f["tokens"].as_array().unwrap() {
            let alg = t["alg"].as_str().unwrap();
            let forms: Vec<Value> = match t["key"].as_str() {
                None => vec![f["secret"].clone()],
                Some(name) => {
                    let k = &f["keys"][name];
                    let mut forms = vec![k["pkcs8"].clone(), k["jwkPrivate"].clone()];
                    if !k["traditional"].is_null() {
                        forms.push(k["traditional"].clone());
                    }
                    forms
                }
            };
            for key in forms {
                let out = sign(json!({"payload": {"sub": "x", "iat": 1}, "algorithm": alg, "key": key, "kid": "k1", "expiresIn": 60, "notBefore": 5}))
                    .await
                    .unwrap_or_else(|e| panic!("{alg}: {e:?}"));
                let parts = split(&out.token).unwrap();
                assert_eq!(parts.header["alg"], alg);
                assert_eq!(parts.header["kid"], "k1");
                let claims: Value = serde_json::from_slice(&parts.payload).unwrap();
                assert_eq!((claims["exp"].as_i64(), claims["nbf"].as_i64()), (Some(61), Some(6)));
                // Verified with the public half only.
                let public = match t["key"].as_str() {
                    None => load::KeyInput::Text(f["secret"].as_str().unwrap().into()),
                    Some(name) => load::KeyInput::Text(f["keys"][name]["spki"].as_str().unwrap().into()),
                };
                let (public, _) =
                    crate::security::jose::token::key_of("key", &public, Default::default(), None).unwrap();
                let a = JwsAlgorithm::from_name(alg).unwrap();
                assert!(a.verify(&public, parts.signing_input.as_bytes(), &parts.signature).unwrap(), "{alg}");
                assert_eq!(out.key_thumbprint, jwk::thumbprint(&public.public()));
                assert!(out.warnings.is_empty(), "{alg}: {:?}", out.warnings);
            }
        }
    }

    #[tokio::test]
    async fn wrong_keys_and_headers_are_refused() {
        let f = fixture("jose.json");
        let k = &f["keys"];
        let cases = [
            // A public key cannot sign, and a PEM key is never an HMAC secret.
            (json!({"algorithm": "RS256", "key": k["rsa"]["spki"]}), "private key"),
            (json!({"algorithm": "HS256", "key": k["rsa"]["pkcs8"]}), "HS256 takes a secret"),
            (json!({"algorithm": "ES384", "key": k["p256"]["pkcs8"]}), "P-384"),
            (json!({"algorithm": "ES256", "key": k["secp256k1"]["pkcs8"]}), "secp256k1"),
            (json!({"algorithm": "EdDSA", "key": k["x25519"]["pkcs8"]}), "X25519"),
            (json!({"algorithm": "RS256", "key": k["rsa"]["pkcs8"], "header": {"alg": "HS256"}}), "`alg` is"),
            (json!({"algorithm": "HS256", "key": "s", "kid": "a", "header": {"kid": "b"}}), "kid"),
            (json!({"algorithm": "HS256", "key": "s", "payload": {"iat": "now"}}), "NumericDate"),
            (
                json!({"algorithm": "RS256", "key": json!(k["rsa"]["jwkPrivate"]).as_object().map(|m| {
                    let mut m = m.clone();
                    m.insert("alg".into(), "PS256".into());
                    Value::Object(m)
                })}),
                "the JWK is for PS256",
            ),
        ];
        for (mut input, words) in cases {
            input.as_object_mut().unwrap().entry("payload").or_insert(json!({}));
            let e = sign(input.clone()).await.err().unwrap_or_else(|| panic!("{input} is refused"));
            assert_eq!(e.status().as_u16(), 400);
            assert!(e.message.contains(words), "{input}: {}", e.message);
        }
        // An encrypted key signs with its passphrase, and only with it.
        let der =
            crate::security::keys::der::write_pkcs8(&jwk::read(k["p256"]["jwkPrivate"].as_object().unwrap()).unwrap())
                .unwrap();
        let sealed = crate::security::keys::pem::armour(
            "ENCRYPTED PRIVATE KEY",
            &crate::security::keys::pkcs8_sealed::seal(&der, b"pw"),
        );
        let signed = sign(json!({"payload": {}, "algorithm": "ES256", "key": sealed, "passphrase": "pw"})).await;
        assert!(signed.is_ok(), "{:?}", signed.err());
        for extra in [json!({}), json!({"passphrase": "wrong"})] {
            let mut input = json!({"payload": {}, "algorithm": "ES256", "key": sealed});
            input.as_object_mut().unwrap().extend(extra.as_object().unwrap().clone());
            let e = sign(input).await.err().unwrap();
            assert!(e.message.contains("passphrase"), "{}", e.message);
        }
        // A short HMAC secret signs, with a warning.
        let out = sign(json!({"payload": {}, "algorithm": "HS512", "key": "short"})).await.unwrap();
        assert!(out.warnings[0].contains("at least 64"), "{:?}", out.warnings);
    }

    /// RFC 7520 sections 4.1 (RS256) and 4.4 (HS256) are deterministic: signing the cookbook's
    /// signing input with its key gives its signature.
    #[test]
    fn the_rfc_7520_deterministic_signatures_are_reproduced() {
        for ex in fixture("jose_rfc7520.json").as_array().unwrap().iter().filter(|e| e["deterministic"] == true) {
            let token = ex["token"].as_str().unwrap();
            let parts = split(token).unwrap();
            let key = jwk::read(ex["key"].as_object().unwrap()).unwrap();
            let alg = JwsAlgorithm::from_name(ex["alg"].as_str().unwrap()).unwrap();
            assert_eq!(
                b64(&alg.sign(&key, parts.signing_input.as_bytes()).unwrap()),
                token.rsplit('.').next().unwrap(),
                "{}",
                ex["name"]
            );
        }
    }
}
