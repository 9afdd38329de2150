//! Checking a webhook delivery's signature against the bytes received, in the schemes senders
//! use: Standard Webhooks (`v1` HMAC and `v1a` ed25519), Stripe, GitHub and a plain HMAC-SHA256
//! of the body in a header of the inbox owner's choosing.
//!
//! Every scheme signs the raw body, never a re-serialised one (the one cause of every
//! verification bug reported against capture tools), so the caller passes the exact bytes.
//! Comparisons of digests are constant-time (`hmac`'s `verify_slice`). The verdict always says
//! why a delivery failed, so an owner debugging a sender reads "timestamp 412 s old" rather than
//! "invalid".

use base64::Engine;
use hmac::{Hmac, KeyInit, Mac};
use http::HeaderMap;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use sha2::Sha256;
use wrench_contract::prelude::Validate;

/// How deliveries to an inbox are signed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema, Validate)]
#[serde(rename_all = "kebab-case")]
#[schemars(rename = "SignatureScheme")]
pub enum Scheme {
    /// `webhook-id`, `webhook-timestamp`, `webhook-signature` (`v1,` HMAC-SHA256 with a `whsec_`
    /// secret, or `v1a,` ed25519 with a `whpk_` public key as the secret).
    StandardWebhooks,
    /// `Stripe-Signature: t=...,v1=...`: HMAC-SHA256, hex, over `t.body`.
    Stripe,
    /// `X-Hub-Signature-256: sha256=<hex>` over the body.
    Github,
    /// The hex or Base64 HMAC-SHA256 of the body in the named header, `sha256=` allowed first.
    HmacSha256,
}

impl Scheme {
    pub fn name(self) -> &'static str {
        match self {
            Scheme::StandardWebhooks => "standard-webhooks",
            Scheme::Stripe => "stripe",
            Scheme::Github => "github",
            Scheme::HmacSha256 => "hmac-sha256",
        }
    }
}

/// What an inbox checks, as stored with it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Check {
    pub scheme: Scheme,
    pub secret: String,
    /// Largest distance between the signed timestamp and the arrival, in seconds.
    pub tolerance_seconds: u64,
    /// The header that carries the digest (`hmac-sha256` only), lower case.
    pub header: Option<String>,
}

/// The verdict recorded with a delivery.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Verification {
    /// The scheme checked.
    pub scheme: Scheme,
    /// Whether the signature matched the bytes received within the tolerance.
    pub valid: bool,
    /// Why not, in words (or what matched).
    pub reason: String,
    /// Arrival minus the signed timestamp, in seconds (positive when the signature is older),
    /// for schemes that sign one.
    pub timestamp_skew_seconds: Option<i64>,
}

/// Whether `secret` can be used with `scheme`, or why not; checked when the inbox is set up
/// rather than at every delivery.
pub fn secret_problem(scheme: Scheme, secret: &str, header: Option<&str>) -> Option<String> {
    match scheme {
        Scheme::StandardWebhooks => {
            if let Some(key) = secret.strip_prefix("whpk_") {
                match b64(key) {
                    Some(k) if k.len() == 32 => None,
                    _ => Some("a whpk_ public key is the Base64 of 32 bytes".into()),
                }
            } else {
                let key = secret.strip_prefix("whsec_").unwrap_or(secret);
                match b64(key) {
                    Some(k) if !k.is_empty() => None,
                    _ => Some("a standard-webhooks secret is whsec_ followed by Base64 (or a whpk_ public key)".into()),
                }
            }
        }
        Scheme::HmacSha256 => match header {
            Some(h) if http::HeaderName::from_bytes(h.as_bytes()).is_ok() => None,
            Some(h) => Some(format!("{h:?} is not a header name")),
            None => Some("hmac-sha256 needs `header`: the header that carries the digest".into()),
        },
        Scheme::Stripe | Scheme::Github => None,
    }
}

fn b64(s: &str) -> Option<Vec<u8>> {
    base64::engine::general_purpose::STANDARD.decode(s.trim()).ok()
}

fn mac(key: &[u8]) -> Hmac<Sha256> {
    <Hmac<Sha256> as KeyInit>::new_from_slice(key).expect("HMAC takes keys of any length")
}

fn header<'a>(headers: &'a HeaderMap, name: &str) -> Option<&'a str> {
    headers.get(name).and_then(|v| v.to_str().ok()).map(str::trim)
}

fn verdict(check: &Check, valid: bool, reason: impl Into<String>, skew: Option<i64>) -> Verification {
    Verification { scheme: check.scheme, valid, reason: reason.into(), timestamp_skew_seconds: skew }
}

/// Checks a delivery that arrived at `now` (Unix seconds) with `headers` and exactly `body`.
pub fn verify(check: &Check, headers: &HeaderMap, body: &[u8], now: i64) -> Verification {
    match check.scheme {
        Scheme::StandardWebhooks => standard_webhooks(check, headers, body, now),
        Scheme::Stripe => stripe(check, headers, body, now),
        Scheme::Github => {
            let Some(given) = header(headers, "x-hub-signature-256") else {
                return verdict(check, false, "no X-Hub-Signature-256 header", None);
            };
            hex_digest(check, given.strip_prefix("sha256="), body, "X-Hub-Signature-256 is not sha256=<hex>")
        }
        Scheme::HmacSha256 => {
            let name = check.header.as_deref().unwrap_or("x-signature");
            let Some(given) = header(headers, name) else {
                return verdict(check, false, format!("no {name} header"), None);
            };
            let given = given.strip_prefix("sha256=").unwrap_or(given);
            let mut m = mac(check.secret.as_bytes());
            m.update(body);
            let digest = hex::decode(given).ok().or_else(|| b64(given));
            match digest {
                Some(d) if m.verify_slice(&d).is_ok() => verdict(check, true, format!("{name} matches the body"), None),
                Some(_) => verdict(check, false, format!("{name} does not match the body"), None),
                None => verdict(check, false, format!("{name} is neither hex nor Base64"), None),
            }
        }
    }
}

fn hex_digest(check: &Check, given: Option<&str>, body: &[u8], malformed: &str) -> Verification {
    let Some(digest) = given.and_then(|g| hex::decode(g).ok()) else {
        return verdict(check, false, malformed, None);
    };
    let mut m = mac(check.secret.as_bytes());
    m.update(body);
    if m.verify_slice(&digest).is_ok() {
        verdict(check, true, "the signature matches the body", None)
    } else {
        verdict(check, false, "the signature does not match the body", None)
    }
}

/// The timestamp's distance from `now`, or why it is refused.
fn skew(check: &Check, timestamp: Option<&str>, now: i64) -> Result<i64, (String, Option<i64>)> {
    let Some(ts) = timestamp.and_then(|t| t.parse::<i64>().ok()) else {
        return Err(("the signed timestamp is missing or not Unix seconds".into(), None));
    };
    let skew = now.saturating_sub(ts);
    if skew.unsigned_abs() > check.tolerance_seconds {
        let (how, by) = if skew > 0 { ("old", skew) } else { ("in the future", -skew) };
        return Err((
            format!("the signed timestamp is {by} s {how}; the tolerance is {} s", check.tolerance_seconds),
            Some(skew),
        ));
    }
    Ok(skew)
}

fn standard_webhooks(check: &Check, headers: &HeaderMap, body: &[u8], now: i64) -> Verification {
    let (Some(id), Some(signatures)) = (header(headers, "webhook-id"), header(headers, "webhook-signature")) else {
        return verdict(check, false, "webhook-id and webhook-signature are both needed", None);
    };
    let timestamp = header(headers, "webhook-timestamp");
    let skew = match skew(check, timestamp, now) {
        Ok(s) => s,
        Err((why, s)) => return verdict(check, false, why, s),
    };
    let mut signed = Vec::with_capacity(id.len() + body.len() + 16);
    signed.extend_from_slice(id.as_bytes());
    signed.push(b'.');
    signed.extend_from_slice(timestamp.unwrap_or_default().as_bytes());
    signed.push(b'.');
    signed.extend_from_slice(body);
    // Several signatures, space-separated, during a key rotation: one match is enough.
    let public = check.secret.strip_prefix("whpk_").and_then(b64);
    let (wanted, key) = match &public {
        Some(pk) => ("v1a", pk.clone()),
        None => ("v1", b64(check.secret.strip_prefix("whsec_").unwrap_or(&check.secret)).unwrap_or_default()),
    };
    let mut seen = false;
    for candidate in signatures.split(' ') {
        let Some((version, sig)) = candidate.split_once(',') else { continue };
        if version != wanted {
            continue;
        }
        seen = true;
        let Some(sig) = b64(sig) else { continue };
        let ok = if public.is_some() {
            ring::signature::UnparsedPublicKey::new(&ring::signature::ED25519, &key).verify(&signed, &sig).is_ok()
        } else {
            let mut m = mac(&key);
            m.update(&signed);
            m.verify_slice(&sig).is_ok()
        };
        if ok {
            return verdict(check, true, format!("a {wanted} signature matches"), Some(skew));
        }
    }
    let why = if seen { format!("no {wanted} signature matches") } else { format!("no {wanted} signature is given") };
    verdict(check, false, why, Some(skew))
}

fn stripe(check: &Check, headers: &HeaderMap, body: &[u8], now: i64) -> Verification {
    let Some(value) = header(headers, "stripe-signature") else {
        return verdict(check, false, "no Stripe-Signature header", None);
    };
    let pairs: Vec<(&str, &str)> = value.split(',').filter_map(|p| p.trim().split_once('=')).collect();
    let timestamp = pairs.iter().find(|(k, _)| *k == "t").map(|(_, v)| *v);
    let skew = match skew(check, timestamp, now) {
        Ok(s) => s,
        Err((why, s)) => return verdict(check, false, why, s),
    };
    let mut m = mac(check.secret.as_bytes());
    m.update(timestamp.unwrap_or_default().as_bytes());
    m.update(b".");
    m.update(body);
    // Several v1 during a secret rotation: any may match.
    let matches = pairs
        .iter()
        .filter(|(k, _)| *k == "v1")
        .filter_map(|(_, v)| hex::decode(v).ok())
        .any(|d| m.clone().verify_slice(&d).is_ok());
    if matches {
        verdict(check, true, "a v1 signature matches", Some(skew))
    } else if pairs.iter().any(|(k, _)| *k == "v1") {
        verdict(check, false, "no v1 signature matches", Some(skew))
    } else {
        verdict(check, false, "Stripe-Signature holds no v1 signature", Some(skew))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn headers(pairs: &[(&str, &str)]) -> HeaderMap {
        let mut h = HeaderMap::new();
        for (k, v) in pairs {
            h.append(http::HeaderName::from_bytes(k.as_bytes()).unwrap(), v.parse().unwrap());
        }
        h
    }

    fn check(scheme: Scheme, secret: &str) -> Check {
        Check { scheme, secret: secret.into(), tolerance_seconds: 300, header: None }
    }

    /// The Standard Webhooks reference libraries' own test case (secret, id, timestamp, body
    /// and the `v1` signature they expect); produced again with the `standardwebhooks` Python
    /// package's `Webhook.sign`.
    const SW_SECRET: &str = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
    const SW_ID: &str = "msg_p5jXN8AQM9LWM0D4loKWxJek";
    const SW_TS: i64 = 1614265330;
    const SW_BODY: &[u8] = br#"{"test": 2432232314}"#;
    const SW_V1: &str = "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=";
    /// `v1a`: ed25519 over the same message, signed with Python's `cryptography` (key seed
    /// SHA-256 of "wrench standard-webhooks v1a vector").
    const SW_PK: &str = "whpk_orYIl+0MD9jtXaB3ZIfif5OaEaOP9ShOyoMsVtraYDY=";
    const SW_V1A: &str = "v1a,/hyctiT7+llFVL8UFPGD23WpfizOTD7m+4mjJmHWN5lq62tfvka47WTChC2i4Mi6/Rf2GGgm7bgFWm0qmUMQCQ==";

    fn sw(sig: &str, ts: i64) -> HeaderMap {
        headers(&[("webhook-id", SW_ID), ("webhook-timestamp", &ts.to_string()), ("webhook-signature", sig)])
    }

    #[test]
    fn standard_webhooks_v1_reference_vector() {
        let c = check(Scheme::StandardWebhooks, SW_SECRET);
        let v = verify(&c, &sw(SW_V1, SW_TS), SW_BODY, SW_TS + 10);
        assert!(v.valid, "{v:?}");
        assert_eq!(v.timestamp_skew_seconds, Some(10));
        // Several signatures: a wrong one first does not hide the right one.
        let several = format!("v1,Ceo5qEr07ixe2NLpvHk3FH9bwy/WavXrAFQ/9tdO6mc= {SW_V1}");
        assert!(verify(&c, &sw(&several, SW_TS), SW_BODY, SW_TS).valid);
        // One byte of the body changed, another id, a stale or future timestamp: refused.
        assert!(!verify(&c, &sw(SW_V1, SW_TS), br#"{"test": 2432232315}"#, SW_TS).valid);
        let old = verify(&c, &sw(SW_V1, SW_TS), SW_BODY, SW_TS + 301);
        assert!(!old.valid && old.reason.contains("301 s old"), "{old:?}");
        let future = verify(&c, &sw(SW_V1, SW_TS), SW_BODY, SW_TS - 400);
        assert!(!future.valid && future.reason.contains("in the future"), "{future:?}");
        let mut other_id = sw(SW_V1, SW_TS);
        other_id.insert("webhook-id", "msg_other".parse().unwrap());
        assert!(!verify(&c, &other_id, SW_BODY, SW_TS).valid);
        // The secret without its prefix works too (the libraries accept both).
        let bare = check(Scheme::StandardWebhooks, SW_SECRET.trim_start_matches("whsec_"));
        assert!(verify(&bare, &sw(SW_V1, SW_TS), SW_BODY, SW_TS).valid);
    }

    #[test]
    fn standard_webhooks_v1a_ed25519() {
        let c = check(Scheme::StandardWebhooks, SW_PK);
        assert_eq!(secret_problem(Scheme::StandardWebhooks, SW_PK, None), None);
        assert!(verify(&c, &sw(SW_V1A, SW_TS), SW_BODY, SW_TS).valid);
        let both = format!("{SW_V1} {SW_V1A}");
        assert!(verify(&c, &sw(&both, SW_TS), SW_BODY, SW_TS).valid, "v1a is found beside v1");
        assert!(!verify(&c, &sw(SW_V1A, SW_TS), b"{}", SW_TS).valid);
        let only_v1 = verify(&c, &sw(SW_V1, SW_TS), SW_BODY, SW_TS);
        assert!(!only_v1.valid && only_v1.reason.contains("no v1a signature is given"), "{only_v1:?}");
    }

    /// Made by Stripe's own Python library (`stripe.WebhookSignature._compute_signature`).
    #[test]
    fn stripe_signature_from_stripes_library() {
        let body = br#"{"id":"evt_test","object":"event"}"#;
        let c = check(Scheme::Stripe, "whsec_test_secret");
        let good = "8042376f6ca064adbe037642a718227dfd59047137eb49497a54c49eb0cfb724";
        let h = |v: &str| headers(&[("stripe-signature", v)]);
        assert!(verify(&c, &h(&format!("t=1700000000,v1={good}")), body, 1_700_000_100).valid);
        // During a rotation Stripe sends one v1 per secret, and a v0 test signature.
        let rotated = format!("t=1700000000,v1={},v1={good},v0=abc", "0".repeat(64));
        assert!(verify(&c, &h(&rotated), body, 1_700_000_000).valid);
        assert!(!verify(&c, &h(&format!("t=1700000001,v1={good}")), body, 1_700_000_000).valid, "t is signed");
        let stale = verify(&c, &h(&format!("t=1700000000,v1={good}")), body, 1_700_000_301);
        assert!(!stale.valid && stale.timestamp_skew_seconds == Some(301));
    }

    /// GitHub's documented example: secret "It's a Secret to Everybody", body "Hello, World!".
    #[test]
    fn github_documented_example() {
        let c = check(Scheme::Github, "It's a Secret to Everybody");
        let sig = "sha256=757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17";
        assert!(verify(&c, &headers(&[("x-hub-signature-256", sig)]), b"Hello, World!", 0).valid);
        assert!(!verify(&c, &headers(&[("x-hub-signature-256", sig)]), b"Hello, World?", 0).valid);
        assert!(!verify(&c, &HeaderMap::new(), b"Hello, World!", 0).valid);
    }

    #[test]
    fn plain_hmac_in_a_named_header_hex_or_base64() {
        let c = Check {
            header: Some("x-shopify-hmac-sha256".into()),
            ..check(Scheme::HmacSha256, "It's a Secret to Everybody")
        };
        let hex = "757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17";
        let b64 = base64::engine::general_purpose::STANDARD.encode(hex::decode(hex).unwrap());
        for given in [hex.to_string(), format!("sha256={hex}"), b64] {
            let h = headers(&[("x-shopify-hmac-sha256", &given)]);
            assert!(verify(&c, &h, b"Hello, World!", 0).valid, "{given}");
        }
        assert!(!verify(&c, &headers(&[("x-other", hex)]), b"Hello, World!", 0).valid);
        assert!(secret_problem(Scheme::HmacSha256, "s", None).is_some());
        assert!(secret_problem(Scheme::HmacSha256, "s", Some("bad header")).is_some());
    }
}
