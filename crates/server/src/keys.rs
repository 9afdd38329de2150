//! API keys: how they are presented, stored and compared.
//!
//! A key arrives as `X-API-Key: <key>` or `Authorization: Bearer <key>`. The service never
//! stores keys, only their SHA-256 digests (`WRENCH_API_KEYS`), and compares the digest of the
//! presented key with every configured digest in constant time, without stopping at the first
//! match, so timing tells nothing about which digest (or which prefix) matched. No key means an
//! anonymous caller; a key that matches nothing is refused, never downgraded to anonymous.

use poem::http::{HeaderMap, header};
use sha2::{Digest, Sha256};
use subtle::ConstantTimeEq;

use wrench_contract::op::Caller;
use wrench_infra::envelope::{ApiError, ErrorCode};

/// The configured digests.
#[derive(Debug, Clone, Default)]
pub struct KeyRing {
    digests: Vec<[u8; 32]>,
}

impl KeyRing {
    pub fn new(digests: Vec<[u8; 32]>) -> Self {
        KeyRing { digests }
    }

    /// Who the headers say the caller is.
    pub fn identify(&self, headers: &HeaderMap) -> Result<Caller, ApiError> {
        let Some(key) = presented_key(headers)? else {
            return Ok(Caller::Anonymous);
        };
        let digest: [u8; 32] = Sha256::digest(key.as_bytes()).into();
        let mut found: Option<usize> = None;
        for (i, d) in self.digests.iter().enumerate() {
            if bool::from(d.ct_eq(&digest)) && found.is_none() {
                found = Some(i);
            }
        }
        found.map(Caller::Key).ok_or_else(|| ApiError::new(ErrorCode::Unauthorized, "the API key is not valid"))
    }
}

fn presented_key(headers: &HeaderMap) -> Result<Option<String>, ApiError> {
    let bad = |why: &str| ApiError::new(ErrorCode::Unauthorized, why.to_string());
    if let Some(v) = headers.get("x-api-key") {
        let s = v.to_str().map_err(|_| bad("the X-API-Key header is not valid text"))?.trim();
        if s.is_empty() {
            return Err(bad("the X-API-Key header is empty"));
        }
        return Ok(Some(s.to_string()));
    }
    if let Some(v) = headers.get(header::AUTHORIZATION) {
        let s = v.to_str().map_err(|_| bad("the Authorization header is not valid text"))?.trim();
        let token = s
            .split_once(' ')
            .filter(|(scheme, _)| scheme.eq_ignore_ascii_case("bearer"))
            .map(|(_, t)| t.trim())
            .filter(|t| !t.is_empty())
            .ok_or_else(|| bad("the Authorization header must be `Bearer <API key>`"))?;
        return Ok(Some(token.to_string()));
    }
    Ok(None)
}

/// A fresh key (`wr_` and 43 URL-safe Base64 characters: 256 random bits) and its digest in hex.
pub fn new_key() -> Result<(String, String), String> {
    use base64::Engine;
    let mut raw = [0u8; 32];
    getrandom::fill(&mut raw).map_err(|e| format!("the system random generator failed: {e}"))?;
    let key = format!("wr_{}", base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(raw));
    let digest = hex::encode(Sha256::digest(key.as_bytes()));
    Ok((key, digest))
}

#[cfg(test)]
mod tests {
    use super::*;
    use poem::http::HeaderValue;

    fn ring(keys: &[&str]) -> KeyRing {
        KeyRing::new(keys.iter().map(|k| Sha256::digest(k.as_bytes()).into()).collect())
    }

    #[test]
    fn identifies_by_either_header() {
        let r = ring(&["alpha", "beta"]);
        let mut h = HeaderMap::new();
        assert_eq!(r.identify(&h).unwrap(), Caller::Anonymous);
        h.insert("x-api-key", HeaderValue::from_static("beta"));
        assert_eq!(r.identify(&h).unwrap(), Caller::Key(1));
        let mut h = HeaderMap::new();
        h.insert(header::AUTHORIZATION, HeaderValue::from_static("Bearer alpha"));
        assert_eq!(r.identify(&h).unwrap(), Caller::Key(0));
        h.insert(header::AUTHORIZATION, HeaderValue::from_static("Basic YTpi"));
        assert_eq!(r.identify(&h).unwrap_err().code, ErrorCode::Unauthorized);
    }

    #[test]
    fn unknown_key_is_refused() {
        let mut h = HeaderMap::new();
        h.insert("x-api-key", HeaderValue::from_static("gamma"));
        assert_eq!(ring(&["alpha"]).identify(&h).unwrap_err().code, ErrorCode::Unauthorized);
    }

    #[test]
    fn new_keys_match_their_digest() {
        let (key, digest) = new_key().unwrap();
        assert_eq!(key.len(), 46);
        let mut d = [0u8; 32];
        hex::decode_to_slice(&digest, &mut d).unwrap();
        let mut h = HeaderMap::new();
        h.insert("x-api-key", HeaderValue::from_str(&key).unwrap());
        assert_eq!(KeyRing::new(vec![d]).identify(&h).unwrap(), Caller::Key(0));
    }
}
