//! Rate limits: fixed windows of one minute and one day, counted in the store.
//!
//! Anonymous callers are counted per client IP, key holders per key (unlimited unless the
//! operator sets a quota). Counting in the store means every instance on one Redis shares the
//! counts. Every limited response carries `RateLimit-Limit`, `RateLimit-Remaining` and
//! `RateLimit-Reset` (seconds) for the tighter of the two windows, and a refusal is 429
//! `RATE_LIMITED` with `Retry-After`. If the store cannot count, the request goes through: a
//! store outage must not take the stateless operations down with it.
//!
//! The client IP is the peer address. `X-Forwarded-For` is read only when the peer is a
//! configured trusted proxy, from the right, skipping trusted proxies, so a client cannot
//! choose its own address. Callers without a socket address (in-process use) are not limited.

use std::{net::IpAddr, time::Duration};

use ipnet::IpNet;
use poem::http::{HeaderMap, HeaderName, HeaderValue};

use crate::{
    envelope::{ApiError, ErrorCode},
    op::Caller,
    store::Store,
};

/// Requests allowed per window; 0 means no limit for that window.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Quota {
    pub per_minute: u32,
    pub per_day: u32,
}

impl Quota {
    pub const UNLIMITED: Quota = Quota { per_minute: 0, per_day: 0 };

    fn is_unlimited(self) -> bool {
        self.per_minute == 0 && self.per_day == 0
    }
}

/// The client's address: the peer, or what trusted proxies say it is.
pub fn client_ip(peer: Option<IpAddr>, headers: &HeaderMap, trusted: &[IpNet]) -> Option<IpAddr> {
    let peer = peer?;
    let is_trusted = |ip: &IpAddr| trusted.iter().any(|n| n.contains(ip));
    if !is_trusted(&peer) {
        return Some(peer);
    }
    let forwarded: Vec<IpAddr> = headers
        .get_all("x-forwarded-for")
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .filter_map(|s| s.trim().parse().ok())
        .collect();
    // Right to left: the first address a trusted proxy did not add itself.
    Some(forwarded.iter().rev().find(|ip| !is_trusted(ip)).or(forwarded.first()).copied().unwrap_or(peer))
}

/// Who is counted, and against which quota.
fn subject(caller: &Caller, ip: Option<IpAddr>, keys: &[[u8; 32]], anon: Quota, key: Quota) -> Option<(String, Quota)> {
    match caller {
        Caller::Key(i) => {
            // The digest's first 8 bytes name the key without revealing anything usable.
            (!key.is_unlimited()).then(|| (format!("key:{}", hex::encode(&keys[*i][..8])), key))
        }
        Caller::Anonymous => {
            let ip = ip?;
            (!anon.is_unlimited()).then(|| (format!("ip:{ip}"), anon))
        }
    }
}

struct Window {
    limit: u32,
    count: i64,
    reset: u64,
}

/// Counts the request. Returns the headers to send, or the 429 to answer with.
pub async fn check(
    store: &dyn Store,
    caller: &Caller,
    ip: Option<IpAddr>,
    keys: &[[u8; 32]],
    anon: Quota,
    key: Quota,
) -> Result<Vec<(HeaderName, HeaderValue)>, ApiError> {
    let Some((who, quota)) = subject(caller, ip, keys, anon, key) else { return Ok(Vec::new()) };
    let now = crate::time::unix_secs();
    let mut windows = Vec::new();
    for (name, limit, length) in [("m", quota.per_minute, 60u64), ("d", quota.per_day, 86_400u64)] {
        if limit == 0 {
            continue;
        }
        let reset = length - now % length;
        let store_key = format!("rl:{who}:{name}:{}", now / length);
        match store.incr(&store_key, Some(Duration::from_secs(reset + 1))).await {
            Ok((count, _)) => windows.push(Window { limit, count, reset }),
            Err(e) => {
                tracing::warn!(error = %e, "rate limit not counted: the store is not answering");
                return Ok(Vec::new());
            }
        }
    }
    // The binding window: an exceeded one that resets last, else the one with the least left.
    let exceeded = windows.iter().filter(|w| w.count > i64::from(w.limit)).max_by_key(|w| w.reset);
    let shown = exceeded.or_else(|| windows.iter().min_by_key(|w| i64::from(w.limit) - w.count));
    let Some(w) = shown else { return Ok(Vec::new()) };
    let remaining = (i64::from(w.limit) - w.count).max(0);
    let num = |n: u64| HeaderValue::from_str(&n.to_string()).expect("digits are a valid header value");
    let mut headers = vec![
        (HeaderName::from_static("ratelimit-limit"), num(w.limit.into())),
        (HeaderName::from_static("ratelimit-remaining"), num(remaining as u64)),
        (HeaderName::from_static("ratelimit-reset"), num(w.reset)),
    ];
    if exceeded.is_some() {
        headers.push((HeaderName::from_static("retry-after"), num(w.reset)));
        let window = if w.reset > 60 { "day" } else { "minute" };
        let mut err = ApiError::new(
            ErrorCode::RateLimited,
            format!(
                "rate limit of {} requests per {window} reached; retry in {} s or use an API key",
                w.limit, w.reset
            ),
        );
        err.headers = headers;
        return Err(err);
    }
    Ok(headers)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn forwarded_for_is_read_only_from_trusted_proxies() {
        let trusted: Vec<IpNet> = vec!["10.0.0.0/8".parse().unwrap()];
        let mut h = HeaderMap::new();
        h.insert("x-forwarded-for", HeaderValue::from_static("203.0.113.9, 198.51.100.7, 10.0.0.2"));
        let peer = |s: &str| Some(s.parse::<IpAddr>().unwrap());
        assert_eq!(client_ip(peer("192.0.2.1"), &h, &trusted), peer("192.0.2.1"), "untrusted peer: header ignored");
        assert_eq!(client_ip(peer("10.0.0.1"), &h, &trusted), peer("198.51.100.7"), "rightmost untrusted hop");
        assert_eq!(client_ip(peer("10.0.0.1"), &HeaderMap::new(), &trusted), peer("10.0.0.1"));
        assert_eq!(client_ip(None, &h, &trusted), None);
    }
}
