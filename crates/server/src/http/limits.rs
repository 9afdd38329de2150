//! Rate limits of callers: who is counted, and from which address.
//!
//! Anonymous callers are counted per client IP, key holders per key (unlimited unless the
//! operator sets a quota), in the windows of `wrench_infra::rate`. Every limited response carries
//! `RateLimit-Limit`, `RateLimit-Remaining` and `RateLimit-Reset` (seconds) for the tighter of
//! the two windows, and a refusal is 429 `RATE_LIMITED` with `Retry-After`. Webhook receive
//! URLs are not counted here: their callers are providers, bounded per inbox by the operation.
//!
//! The client IP is the peer address. `X-Forwarded-For` is read only when the peer is a
//! configured trusted proxy, from the right, skipping trusted proxies, so a client cannot
//! choose its own address. Callers without a socket address (in-process use) are not limited.

use std::net::IpAddr;

use ipnet::IpNet;
use poem::http::{HeaderMap, HeaderName, HeaderValue};

use wrench_contract::op::Caller;
use wrench_infra::{config::Quota, envelope::ApiError, store::Store};

/// The client's address: the peer, or what trusted proxies say it is.
pub fn client_ip(peer: Option<IpAddr>, headers: &HeaderMap, trusted: &[IpNet]) -> Option<IpAddr> {
    let peer = peer?;
    let is_trusted = |ip: &IpAddr| trusted.iter().any(|n| n.contains(ip));
    if !is_trusted(&peer) {
        return Some(peer);
    }
    let entries: Vec<&str> = headers
        .get_all("x-forwarded-for")
        .iter()
        .map(|v| v.to_str().unwrap_or(""))
        .flat_map(|v| v.split(','))
        .map(str::trim)
        .collect();
    // Right to left: the first address a trusted proxy did not add itself. An entry that is
    // not an address is never skipped (the client could write anything to the left of it):
    // the request counts under the nearest trusted hop, the proxy that passed it on.
    let mut nearest_trusted = peer;
    for entry in entries.iter().rev() {
        match forwarded_address(entry) {
            Some(ip) if is_trusted(&ip) => nearest_trusted = ip,
            Some(ip) => return Some(ip),
            None => return Some(nearest_trusted),
        }
    }
    Some(nearest_trusted)
}

/// An `X-Forwarded-For` entry as proxies write it: `ip`, `ip:port`, `[v6]` or `[v6]:port`.
fn forwarded_address(entry: &str) -> Option<IpAddr> {
    if let Ok(ip) = entry.parse() {
        return Some(ip);
    }
    if let Ok(addr) = entry.parse::<std::net::SocketAddr>() {
        return Some(addr.ip());
    }
    entry.strip_prefix('[').and_then(|e| e.strip_suffix(']')).and_then(|e| e.parse().ok())
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
    let counted = wrench_infra::rate::count(store, &who, quota, "requests", " or use an API key").await;
    if counted.as_ref().is_err_and(|e| e.code == wrench_infra::envelope::ErrorCode::RateLimited) {
        wrench_infra::metrics::rate_limited(matches!(caller, Caller::Key(_)));
    }
    counted
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

    #[test]
    fn forwarded_entries_with_ports_are_addresses_and_garbage_is_never_skipped() {
        let trusted: Vec<IpNet> = vec!["127.0.0.1/32".parse().unwrap()];
        let peer = Some("127.0.0.1".parse::<IpAddr>().unwrap());
        let ip = |s: &str| Some(s.parse::<IpAddr>().unwrap());
        let with = |xff: &str| {
            let mut h = HeaderMap::new();
            h.insert("x-forwarded-for", HeaderValue::from_str(xff).unwrap());
            client_ip(peer, &h, &trusted)
        };
        assert_eq!(with("9.9.9.1, 5.6.7.9:4444"), ip("5.6.7.9"));
        assert_eq!(with("9.9.9.1, [2001:db8::1]:4444"), ip("2001:db8::1"));
        assert_eq!(with("9.9.9.1, [2001:db8::2]"), ip("2001:db8::2"));
        assert_eq!(with("9.9.9.1,2001:db8::3"), ip("2001:db8::3"));
        // Unparsable right-most entry: the client must not get to pick 9.9.9.1.
        assert_eq!(with("9.9.9.1, not-an-address"), peer);
        assert_eq!(with("9.9.9.1, unknown, 127.0.0.1"), peer);
        assert_eq!(with("9.9.9.1, 999.1.1.1:80"), peer);
        // Every entry trusted: the left-most.
        assert_eq!(with("127.0.0.1, 127.0.0.1"), peer);
    }
}
