//! JSON Web Keys (RFC 7517, RFC 7518 section 6, RFC 8037 for `OKP`) and their RFC 7638
//! thumbprints.
//!
//! Reading is strict where a lax reader would sign with the wrong key: coordinates and scalars
//! must have their curve's full length, RSA private keys must carry all CRT values (two primes;
//! `oth` is refused), and every value is Base64url without padding. The metadata members
//! (`kid`, `alg`, `use`, `key_ops`) are read beside the key, for choosing one from a set.

use base64::{Engine, engine::general_purpose::URL_SAFE_NO_PAD};
use serde_json::{Map, Value};
use sha2::{Digest, Sha256};

use super::der;
use super::model::{Curve, Key, RsaPrivate, uncompressed_point, unsigned};

/// The members of a JWK that say how it may be used.
#[derive(Debug, Clone, Default)]
pub(crate) struct Meta {
    pub(crate) kid: Option<String>,
    pub(crate) alg: Option<String>,
    pub(crate) use_: Option<String>,
    pub(crate) key_ops: Option<Vec<String>>,
}

fn text<'a>(jwk: &'a Map<String, Value>, name: &str) -> Result<Option<&'a str>, String> {
    match jwk.get(name) {
        None => Ok(None),
        Some(Value::String(s)) => Ok(Some(s)),
        Some(_) => Err(format!("the JWK's `{name}` is not a string")),
    }
}

fn bytes(jwk: &Map<String, Value>, name: &str) -> Result<Option<Vec<u8>>, String> {
    let Some(s) = text(jwk, name)? else { return Ok(None) };
    URL_SAFE_NO_PAD.decode(s).map(Some).map_err(|_| format!("the JWK's `{name}` is not Base64url without padding"))
}

fn required(jwk: &Map<String, Value>, name: &str, kty: &str) -> Result<Vec<u8>, String> {
    bytes(jwk, name)?.ok_or_else(|| format!("a JWK of kty `{kty}` needs `{name}`"))
}

fn exact(value: Vec<u8>, len: usize, name: &str, curve: &str) -> Result<Vec<u8>, String> {
    if value.len() != len {
        return Err(format!("the JWK's `{name}` is {} bytes; on {curve} it is {len}", value.len()));
    }
    Ok(value)
}

/// The metadata members of a JWK.
pub(crate) fn meta(jwk: &Map<String, Value>) -> Result<Meta, String> {
    let key_ops = match jwk.get("key_ops") {
        None => None,
        Some(Value::Array(a)) => Some(
            a.iter()
                .map(|v| v.as_str().map(str::to_string).ok_or("the JWK's `key_ops` holds a non-string"))
                .collect::<Result<Vec<_>, _>>()?,
        ),
        Some(_) => return Err("the JWK's `key_ops` is not an array".into()),
    };
    Ok(Meta {
        kid: text(jwk, "kid")?.map(str::to_string),
        alg: text(jwk, "alg")?.map(str::to_string),
        use_: text(jwk, "use")?.map(str::to_string),
        key_ops,
    })
}

/// The key a JWK holds.
pub(crate) fn read(jwk: &Map<String, Value>) -> Result<Key, String> {
    let kty = text(jwk, "kty")?.ok_or("a JWK needs `kty`")?;
    match kty {
        "RSA" => {
            if jwk.contains_key("oth") {
                return Err("the JWK is a multi-prime RSA key (`oth`), which wrench does not read".into());
            }
            let n = unsigned(&required(jwk, "n", kty)?);
            let e = unsigned(&required(jwk, "e", kty)?);
            let private = match bytes(jwk, "d")? {
                None => None,
                Some(d) => {
                    let get = |name: &str| {
                        bytes(jwk, name)?.map(|v| unsigned(&v)).ok_or_else(|| {
                            format!("the JWK's RSA private key has `d` but no `{name}`: wrench needs p, q, dp, dq and qi too")
                        })
                    };
                    Some(Box::new(RsaPrivate {
                        d: unsigned(&d),
                        p: get("p")?,
                        q: get("q")?,
                        dp: get("dp")?,
                        dq: get("dq")?,
                        qi: get("qi")?,
                    }))
                }
            };
            Ok(Key::Rsa { n, e, private })
        }
        "EC" => {
            let crv = text(jwk, "crv")?.ok_or("a JWK of kty `EC` needs `crv`")?;
            let curve = Curve::from_jwk_name(crv).ok_or_else(|| {
                format!("the JWK's curve `{crv}` is not one wrench reads (P-256, P-384, P-521, secp256k1)")
            })?;
            let len = curve.field_len();
            let x = exact(required(jwk, "x", kty)?, len, "x", crv)?;
            let y = exact(required(jwk, "y", kty)?, len, "y", crv)?;
            der::ec_point(curve, &uncompressed_point(&x, &y))?;
            match bytes(jwk, "d")? {
                None => Ok(Key::Ec { curve, x, y, d: None }),
                Some(d) => {
                    let key = der::ec_from_scalar(curve, &exact(d, len, "d", crv)?)?;
                    if !key.same_public(&Key::Ec { curve, x, y, d: None }) {
                        return Err("the JWK's `x` and `y` are not the public point of its `d`".into());
                    }
                    Ok(key)
                }
            }
        }
        "OKP" => {
            let crv = text(jwk, "crv")?.ok_or("a JWK of kty `OKP` needs `crv`")?;
            if !matches!(crv, "Ed25519" | "X25519") {
                return Err(format!("the JWK's curve `{crv}` is not one wrench reads (Ed25519, X25519)"));
            }
            let x = exact(required(jwk, "x", kty)?, 32, "x", crv)?;
            let Some(d) = bytes(jwk, "d")? else {
                return Ok(if crv == "Ed25519" { Key::Ed25519 { x, d: None } } else { Key::X25519 { x, d: None } });
            };
            let d = exact(d, 32, "d", crv)?;
            let key = if crv == "Ed25519" { der::ed25519_from_seed(&d)? } else { der::x25519_from_private(&d)? };
            let public = if crv == "Ed25519" { Key::Ed25519 { x, d: None } } else { Key::X25519 { x, d: None } };
            if !key.same_public(&public) {
                return Err("the JWK's `x` is not the public key of its `d`".into());
            }
            Ok(key)
        }
        "oct" => {
            let k = required(jwk, "k", kty)?;
            if k.is_empty() {
                return Err("the JWK's `k` is empty".into());
            }
            Ok(Key::Secret(k))
        }
        other => Err(format!("the JWK's kty `{other}` is not one wrench reads (RSA, EC, OKP, oct)")),
    }
}

fn b64(v: &[u8]) -> Value {
    Value::String(URL_SAFE_NO_PAD.encode(v))
}

/// The JWK of `key`, its private members only when `private` is asked for (a secret is always
/// its `k`). Members in the order of RFC 7638's required ones first.
pub(crate) fn write(key: &Key, private: bool) -> Map<String, Value> {
    let mut m = Map::new();
    let mut put = |k: &str, v: Value| {
        m.insert(k.to_string(), v);
    };
    match key {
        Key::Rsa { n, e, private: p } => {
            put("kty", "RSA".into());
            put("n", b64(n));
            put("e", b64(e));
            if let (true, Some(p)) = (private, p) {
                for (name, v) in [("d", &p.d), ("p", &p.p), ("q", &p.q), ("dp", &p.dp), ("dq", &p.dq), ("qi", &p.qi)] {
                    put(name, b64(v));
                }
            }
        }
        Key::Ec { curve, x, y, d } => {
            put("kty", "EC".into());
            put("crv", curve.jwk_name().into());
            put("x", b64(x));
            put("y", b64(y));
            if let (true, Some(d)) = (private, d) {
                put("d", b64(d));
            }
        }
        Key::Ed25519 { x, d } | Key::X25519 { x, d } => {
            put("kty", "OKP".into());
            put("crv", if matches!(key, Key::Ed25519 { .. }) { "Ed25519" } else { "X25519" }.into());
            put("x", b64(x));
            if let (true, Some(d)) = (private, d) {
                put("d", b64(d));
            }
        }
        Key::Secret(k) => {
            put("kty", "oct".into());
            put("k", b64(k));
        }
    }
    m
}

/// The RFC 7638 thumbprint: SHA-256 of the required public members in lexicographic order,
/// without whitespace, in Base64url.
pub(crate) fn thumbprint(key: &Key) -> String {
    let jwk = write(key, false);
    let required: &[&str] = match key {
        Key::Rsa { .. } => &["e", "kty", "n"],
        Key::Ec { .. } => &["crv", "kty", "x", "y"],
        Key::Ed25519 { .. } | Key::X25519 { .. } => &["crv", "kty", "x"],
        Key::Secret(_) => &["k", "kty"],
    };
    // Every value is a Base64url or name string: no escaping is needed, so the members are
    // written as they are.
    let members: Vec<String> =
        required.iter().map(|name| format!("\"{name}\":\"{}\"", jwk[*name].as_str().unwrap_or_default())).collect();
    URL_SAFE_NO_PAD.encode(Sha256::digest(format!("{{{}}}", members.join(","))))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// RFC 7638 section 3.1: the example RSA key and its thumbprint.
    #[test]
    fn the_rfc_7638_thumbprint() {
        let jwk = serde_json::json!({
            "kty": "RSA",
            "n": "0vx7agoebGcQSuuPiLJXZptN9nndrQmbXEps2aiAFbWhM78LhWx4cbbfAAtVT86zwu1RK7aPFFxuhDR1L6tSoc_BJECPebWKRXjBZCiFV4n3oknjhMstn64tZ_2W-5JsGY4Hc5n9yBXArwl93lqt7_RN5w6Cf0h4QyQ5v-65YGjQR0_FDW2QvzqY368QQMicAtaSqzs8KJZgnYb9c7d0zgdAZHzu6qMQvRL5hajrn1n91CbOpbISD08qNLyrdkt-bFTWhAI4vMQFh6WeZu0fM4lFd2NcRwr3XPksINHaQ-G_xBniIqbw0Ls1jF44-csFCur-kEgU8awapJzKnqDKgw",
            "e": "AQAB",
            "alg": "RS256",
            "kid": "2011-04-29"
        });
        let key = read(jwk.as_object().unwrap()).unwrap();
        assert_eq!(thumbprint(&key), "NzbLsXh8uDCcd-6MNwXF4W_7noWXFZAfHkxZsRGC9Xs");
        assert_eq!(meta(jwk.as_object().unwrap()).unwrap().kid.as_deref(), Some("2011-04-29"));
        assert_eq!(key.bits(), 2048);
    }

    #[test]
    fn strict_reading_names_the_member() {
        let read_err = |v: Value| read(v.as_object().unwrap()).unwrap_err();
        assert!(
            read_err(serde_json::json!({"kty": "EC", "crv": "P-256", "x": "AA", "y": "AA"})).contains("`x` is 1 bytes")
        );
        assert!(read_err(serde_json::json!({"kty": "RSA", "n": "AQAB", "e": "AQAB", "d": "AQ"})).contains("no `p`"));
        assert!(read_err(serde_json::json!({"kty": "OKP", "crv": "Ed448", "x": "AA"})).contains("Ed448"));
        assert!(read_err(serde_json::json!({"kty": "oct", "k": "a+b"})).contains("Base64url"));
        assert!(read_err(serde_json::json!({"kty": "DSA"})).contains("DSA"));
        // A point off the curve.
        let x = URL_SAFE_NO_PAD.encode([1u8; 32]);
        assert!(read_err(serde_json::json!({"kty": "EC", "crv": "P-256", "x": x, "y": x})).contains("not on P-256"));
    }
}
