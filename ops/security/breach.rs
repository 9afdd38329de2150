//! `breach/check`: whether a password appears in Have I Been Pwned's Pwned Passwords, by the
//! range API's k-anonymity model. Only the first 5 hexadecimal characters of the password's
//! SHA-1 leave the process; the provider answers every suffix it holds under that prefix (with
//! padding asked for, so the answer's size says nothing either), and the match is made here.
//!
//! Answers are not cached: the API has no rate limit and is served from a CDN, and a stored
//! range would tie the time of a request to a prefix of its password's hash.

use reqwest::header::{HeaderMap, HeaderValue};
use sha1::{Digest, Sha1};

use wrench_contract::prelude::*;
use wrench_infra::providers::HIBP;

#[derive(Debug, Deserialize, JsonSchema, Validate)]
#[serde(deny_unknown_fields)]
struct BreachInput {
    /// The password to check. It never leaves this service: only the first 5 hexadecimal
    /// characters of its SHA-1 are sent to the provider.
    #[schemars(length(min = 1, max = 1024))]
    password: String,
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct BreachOutput {
    /// The password appears in known breaches.
    breached: bool,
    /// How many times it appears in the breach corpus (0 when not found).
    count: u64,
    /// What to do about it.
    recommendation: &'static str,
    /// `Have I Been Pwned (Pwned Passwords)`.
    source: &'static str,
    /// When the provider answered (RFC 3339).
    fetched_at: String,
}

/// The SHA-1 of `password`, upper-case hex, split into the 5 characters sent and the 35 kept.
fn split_hash(password: &str) -> (String, String) {
    let hex = hex::encode_upper(Sha1::digest(password.as_bytes()));
    let (prefix, suffix) = hex.split_at(5);
    (prefix.to_string(), suffix.to_string())
}

/// The count of `suffix` in a range answer (`SUFFIX:COUNT` lines; padding lines count 0).
fn count_in(range: &str, suffix: &str) -> Result<u64, String> {
    for line in range.lines() {
        let line = line.trim();
        if line.is_empty() {
            continue;
        }
        let (s, n) = line.split_once(':').ok_or_else(|| format!("a line without `:` ({line:.50})"))?;
        if s.len() != 35 || !s.bytes().all(|b| b.is_ascii_hexdigit()) {
            return Err(format!("a suffix that is not 35 hexadecimal characters ({s:.50})"));
        }
        if s.eq_ignore_ascii_case(suffix) {
            return n.trim().parse().map_err(|_| format!("a count that is not a number ({n:.20})"));
        }
    }
    Ok(0)
}

/// Check a password against known breaches.
///
/// Whether `password` appears in Have I Been Pwned's Pwned Passwords corpus, and how often,
/// with a recommendation. k-anonymity: only the first 5 hexadecimal characters of the
/// password's SHA-1 are sent (`WRENCH_PROVIDER_HIBP_URL`), with padding requested; the
/// provider's whole range for that prefix is compared here, so neither the password nor its
/// full hash leaves this service. Nothing is stored.
#[op(post "/v1/breach/check" as breachCheck, tag = SecurityAndValidation,
     rejects = "an empty password or one over 1,024 characters",
     uses(provider),
     redact(".data.fetchedAt"),
     example(breached, {"password": "password"}),
     example(not_found, {"password": "correct horse battery staple 8f3e"}),
     example(empty, {"password": ""}, status = 400))]
async fn breach_check(ctx: &Ctx, input: BreachInput) -> Result<BreachOutput, ApiError> {
    if input.password.is_empty() {
        return Err(ApiError::invalid("password", "give the password to check"));
    }
    let (prefix, suffix) = split_hash(&input.password);
    let url = HIBP.url(ctx)?.join(&format!("range/{prefix}")).map_err(|e| HIBP.malformed(e))?;
    let mut headers = HeaderMap::new();
    headers.insert("add-padding", HeaderValue::from_static("true"));
    let answer = HIBP.get(ctx, url, &headers).await?;
    if answer.status != 200 {
        return Err(HIBP.failed(answer.status));
    }
    let range = std::str::from_utf8(&answer.body).map_err(|_| HIBP.malformed("a range that is not text"))?;
    let count = count_in(range, &suffix).map_err(|e| HIBP.malformed(e))?;
    let recommendation = match count {
        0 => "Not found in known breaches. Keep it unique to one site, and prefer a long passphrase.",
        1..=9 => "Found in known breaches: do not use it. Attackers try breached passwords first.",
        _ => "Found many times in known breaches: do not use it anywhere, and change it wherever it is used.",
    };
    Ok(BreachOutput { breached: count > 0, count, recommendation, source: HIBP.name, fetched_at: answer.fetched_at() })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hashes_split_and_ranges_read() {
        // SHA-1 of "password", a well-known value.
        let (prefix, suffix) = split_hash("password");
        assert_eq!(format!("{prefix}{suffix}"), "5BAA61E4C9B93F3F0682250B6CF8331B7EE68FD8");
        let range = "0018A45C4D1DEF81644B54AB7F969B88D65:1\r\n1E4C9B93F3F0682250B6CF8331B7EE68FD8:9545824\r\nFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFF:0";
        assert_eq!(count_in(range, &suffix), Ok(9_545_824));
        assert_eq!(count_in(range, "0000000000000000000000000000000000A"), Ok(0));
        assert!(count_in("not a range", &suffix).is_err());
    }

    #[tokio::test]
    async fn only_the_prefix_leaves_and_padding_is_asked_for() {
        let ctx = crate::testing::fake_ctx(&[]);
        let password = "breach-check-fixture-9d1c";
        let out = breach_check(&ctx, BreachInput { password: password.into() }).await.unwrap();
        assert!(out.breached && out.count == 42, "{}", out.count);
        let (prefix, suffix) = split_hash(password);
        let seen = wrench_fakes::live::requests(&format!("/hibp/range/{prefix}"));
        assert_eq!(seen.len(), 1, "{seen:?}");
        let request = &seen[0];
        // What left: the 5-character prefix in the path, padding asked for, nothing else of
        // the password or its hash anywhere in the request line or headers.
        assert_eq!(request.path, format!("/hibp/range/{prefix}"));
        assert_eq!(request.query, "");
        assert_eq!(request.header("add-padding"), Some("true"));
        let everything = request.everything().to_ascii_uppercase();
        assert!(!everything.contains(&suffix[..10]), "{everything}");
        assert!(!everything.contains(&password.to_ascii_uppercase()), "{everything}");
        // A password whose hash the provider does not hold.
        let out = breach_check(&ctx, BreachInput { password: "not-in-the-fixture-range".into() }).await.unwrap();
        assert_eq!((out.breached, out.count), (false, 0));
    }

    #[tokio::test]
    async fn off_is_not_configured_and_a_failure_is_the_providers() {
        let ctx = crate::testing::fake_ctx(&[("WRENCH_PROVIDER_HIBP_URL", "")]);
        let e = breach_check(&ctx, BreachInput { password: "x".into() }).await.unwrap_err();
        assert_eq!(e.code, ErrorCode::ProviderNotConfigured);
        assert!(e.message.contains("WRENCH_PROVIDER_HIBP_URL"), "{}", e.message);
        let ctx = crate::testing::fake_ctx(&[("WRENCH_PROVIDER_HIBP_URL", "http://127.0.0.2:8080/providers/broken/")]);
        let e = breach_check(&ctx, BreachInput { password: "x".into() }).await.unwrap_err();
        assert_eq!(e.code, ErrorCode::UpstreamError);
        assert!(e.message.contains("Pwned Passwords"), "{}", e.message);
    }
}
