//! JWK Sets (RFC 7517 section 5): given in the request or fetched from a URL, and the choice of
//! the key that may verify a token.
//!
//! A set may hold keys wrench cannot read (another curve, an encryption key): those are kept
//! with the reason, so that a token naming one by `kid` is answered with why, and the others
//! still verify. A key is chosen by the token's `kid` when it has one; a key that is for
//! encryption (`use: enc`), lacks `verify` in `key_ops`, or names another `alg` is not used.

use serde_json::{Map, Value};

use wrench_contract::prelude::*;
use wrench_kit::hosts::http_fetch::url_input;

use super::algorithm::JwsAlgorithm;
use crate::security::keys::{
    jwk::{self, Meta},
    model::Key,
};

/// Keys read from one set at most.
pub(crate) const MAX_KEYS: usize = 64;

/// A JWK Set.
#[derive(Debug, Deserialize, JsonSchema, Validate)]
pub(crate) struct JwkSet {
    /// The keys, as JWKs.
    #[schemars(length(max = 64))]
    pub(crate) keys: Vec<Map<String, Value>>,
}

/// One key of a set, or why it could not be read, and its metadata.
pub(crate) struct Candidate {
    pub(crate) key: Result<Key, String>,
    pub(crate) meta: Meta,
}

pub(crate) fn candidates(set: &JwkSet) -> Vec<Candidate> {
    set.keys
        .iter()
        .take(MAX_KEYS)
        .map(|m| Candidate { key: jwk::read(m), meta: jwk::meta(m).unwrap_or_default() })
        .collect()
}

/// Why a candidate may not verify a token of `alg`, or its key.
fn usable(c: &Candidate, alg: JwsAlgorithm) -> Result<Key, String> {
    let key = c.key.as_ref().map_err(|e| format!("the key cannot be read: {e}"))?;
    if c.meta.use_.as_deref().is_some_and(|u| u != "sig") {
        return Err(format!("the key's `use` is `{}`, not `sig`", c.meta.use_.as_deref().unwrap_or_default()));
    }
    if c.meta.key_ops.as_ref().is_some_and(|ops| !ops.iter().any(|o| o == "verify")) {
        return Err("the key's `key_ops` does not include `verify`".into());
    }
    if !alg.allowed_by_jwk(c.meta.alg.as_deref()) {
        return Err(format!(
            "the key is for {} (its `alg`), not {}",
            c.meta.alg.as_deref().unwrap_or_default(),
            alg.name()
        ));
    }
    alg.fits(key)?;
    Ok(key.clone())
}

/// The one given key, if it may verify `alg`; `(true, why)` when it may not.
pub(crate) fn choose_single(candidates: &[Candidate], alg: JwsAlgorithm) -> Result<Vec<Key>, (bool, String)> {
    let c = candidates.first().ok_or((false, "no key was given".to_string()))?;
    usable(c, alg).map(|k| vec![k]).map_err(|e| (true, e))
}

/// The keys of a set that may verify a token of `alg` and `kid`. Err is (the key named was
/// found but does not fit, why).
pub(crate) fn choose(
    candidates: &[Candidate],
    alg: JwsAlgorithm,
    kid: Option<&str>,
) -> Result<Vec<Key>, (bool, String)> {
    let pool: Vec<&Candidate> = match kid {
        Some(kid) => candidates.iter().filter(|c| c.meta.kid.as_deref() == Some(kid)).collect(),
        None => candidates.iter().collect(),
    };
    if pool.is_empty() {
        return Err((
            false,
            match kid {
                Some(kid) => format!("no key of the set ({} keys) has kid `{kid}`", candidates.len()),
                None => "the key set is empty".to_string(),
            },
        ));
    }
    let mut why = Vec::new();
    let mut keys = Vec::new();
    for c in &pool {
        match usable(c, alg) {
            Ok(k) => keys.push(k),
            Err(e) => why.push(e),
        }
    }
    if keys.is_empty() {
        return Err(match kid {
            Some(kid) => (true, format!("the key `{kid}`: {}", why.join("; "))),
            None => (false, format!("no key of the set ({} keys) fits {}", pool.len(), alg.name())),
        });
    }
    Ok(keys)
}

/// The JWK Set at `url`, through the outbound layer.
pub(crate) async fn fetch(ctx: &Ctx, url: &str) -> Result<JwkSet, ApiError> {
    let url = url_input("jwksUrl", url)?;
    let chain = ctx.net.get(url.clone()).await.map_err(|e| e.into_api("jwksUrl"))?;
    let upstream = |m: String| ApiError::new(ErrorCode::UpstreamError, m);
    let status = chain.last().map_or(0, |h| h.status);
    if !(200..300).contains(&status) {
        return Err(upstream(format!("the JWK Set URL {url} answered {status}")));
    }
    let body = chain.body.unwrap_or_default();
    let value = wrench_kit::jws::json_object(&body, "JWK Set").map_err(|e| upstream(format!("{url}: {e}")))?;
    let Some(Value::Array(keys)) = value.get("keys") else {
        return Err(upstream(format!("{url} answered JSON without a `keys` array: not a JWK Set")));
    };
    if keys.len() > MAX_KEYS {
        return Err(upstream(format!("the JWK Set at {url} has {} keys; wrench reads at most {MAX_KEYS}", keys.len())));
    }
    let keys = keys
        .iter()
        .map(|k| {
            k.as_object()
                .cloned()
                .ok_or_else(|| upstream(format!("the JWK Set at {url} holds a key that is not an object")))
        })
        .collect::<Result<Vec<_>, _>>()?;
    Ok(JwkSet { keys })
}
