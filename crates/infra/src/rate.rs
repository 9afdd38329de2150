//! Fixed-window request counting in the store: one minute and one UTC day.
//!
//! Counting in the store means every instance on one Redis shares the counts. The caller
//! names what is counted (a client IP, a key, a webhook inbox) and its [`Quota`]; the answer is
//! the `RateLimit-*` headers for the tighter window, or 429 `RATE_LIMITED` with `Retry-After`.
//! If the store cannot count, the request goes through: an outage must not take the stateless
//! operations down with it (the store's breaker makes that decision instant).

use std::time::Duration;

use http::{HeaderName, HeaderValue};

pub use crate::config::Quota;
use crate::{
    envelope::{ApiError, ErrorCode},
    store::Store,
};

struct Window {
    limit: u32,
    count: i64,
    reset: u64,
}

/// Counts one request against `who`'s quota. Returns the headers to send, or the 429 to
/// answer with, which reads "rate limit of N {what} per minute reached; retry in S s{hint}"
/// (`what`: "requests", "deliveries"; `hint`: " or use an API key", " to this inbox").
pub async fn count(
    store: &dyn Store,
    who: &str,
    quota: Quota,
    what: &str,
    hint: &str,
) -> Result<Vec<(HeaderName, HeaderValue)>, ApiError> {
    let now = crate::time::unix_secs();
    // The windows in use, counted in one step; their keys share the `{who}` hash tag.
    let (mut windows, mut counters) = (Vec::new(), Vec::new());
    for (name, limit, length) in [("m", quota.per_minute, 60u64), ("d", quota.per_day, 86_400u64)] {
        if limit == 0 {
            continue;
        }
        let (number, reset) = window_at(now, length);
        counters.push((format!("rl:{{{who}}}:{name}:{number}"), Some(Duration::from_secs(reset + 1))));
        windows.push(Window { limit, count: 0, reset });
    }
    if counters.is_empty() {
        return Ok(Vec::new());
    }
    let keys: Vec<(&str, Option<Duration>)> = counters.iter().map(|(k, t)| (k.as_str(), *t)).collect();
    match store.incr_each(&keys).await {
        Ok(counted) => windows.iter_mut().zip(counted).for_each(|(w, (count, _))| w.count = count),
        Err(e) => {
            crate::metrics::store_error();
            // Every request meets the same failure while it lasts: say so once in a while,
            // not once a request (`wrench_store_errors_total` counts them all).
            static WARNED: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
            if crate::store::warn_now(&WARNED) {
                tracing::warn!(error = %e, "rate limits not counted (requests go through meanwhile)");
            }
            return Ok(Vec::new());
        }
    }
    // The binding window: an exceeded one that resets last, else the one with the least left.
    if let Some(w) = windows.iter().filter(|w| w.count > i64::from(w.limit)).max_by_key(|w| w.reset) {
        return Err(limited(w.limit, w.reset, what, hint));
    }
    let Some(w) = windows.iter().min_by_key(|w| i64::from(w.limit) - w.count) else { return Ok(Vec::new()) };
    Ok(headers(w.limit, (i64::from(w.limit) - w.count).max(0) as u64, w.reset))
}

/// The fixed window of `length` seconds holding `now` (Unix seconds): its number, which names
/// its counter, and the seconds until it resets.
pub fn window_at(now: u64, length: u64) -> (u64, u64) {
    (now / length, length - now % length)
}

/// The 429 for a caller past `limit` in a window that resets in `reset` seconds, with the
/// `RateLimit-*` headers (none remaining) and `Retry-After`; see [`count`] for the message.
pub fn limited(limit: u32, reset: u64, what: &str, hint: &str) -> ApiError {
    let window = if reset > 60 { "day" } else { "minute" };
    let mut err = ApiError::new(
        ErrorCode::RateLimited,
        format!("rate limit of {limit} {what} per {window} reached; retry in {reset} s{hint}"),
    );
    err.headers = headers(limit, 0, reset);
    err.headers.push((HeaderName::from_static("retry-after"), number(reset)));
    err
}

fn headers(limit: u32, remaining: u64, reset: u64) -> Vec<(HeaderName, HeaderValue)> {
    vec![
        (HeaderName::from_static("ratelimit-limit"), number(limit.into())),
        (HeaderName::from_static("ratelimit-remaining"), number(remaining)),
        (HeaderName::from_static("ratelimit-reset"), number(reset)),
    ]
}

fn number(n: u64) -> HeaderValue {
    HeaderValue::from_str(&n.to_string()).expect("digits are a valid header value")
}
