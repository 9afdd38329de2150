//! Calling a third-party data provider: one GET through the outbound layer, its key in a
//! header that never follows a redirect to another origin, and every failure reported as the
//! provider's (502 or 504 naming it and the setting that points at it), never as the caller's.
//! Answers are cached in the store when the operation asks; a store that fails only costs the
//! cache.

use std::time::Duration;

use reqwest::header::HeaderMap;

use crate::{net::OutboundError, prelude::*};

/// A provider as the messages name it.
pub(crate) struct Provider {
    /// `Open PageRank`.
    pub name: &'static str,
    /// The variable of its base URL, `WRENCH_PROVIDER_OPENPAGERANK_URL`.
    pub setting: &'static str,
}

/// The status and body of `GET url`, or the provider's failure.
pub(crate) async fn get(
    ctx: &Ctx,
    provider: &Provider,
    url: url::Url,
    headers: &HeaderMap,
) -> Result<(u16, Vec<u8>), ApiError> {
    let blame = |e: OutboundError| {
        let (code, m) = match e {
            OutboundError::Timeout(m) => (ErrorCode::UpstreamTimeout, m),
            other => (ErrorCode::UpstreamError, other.to_string()),
        };
        ApiError::new(code, format!("the provider {} ({}) could not be used: {m}", provider.name, provider.setting))
    };
    let chain = ctx.net.get_with(url, headers).await.map_err(blame)?;
    let status = chain.last().map_or(0, |h| h.status);
    Ok((status, chain.body.unwrap_or_default()))
}

/// A provider's answer that is not what its API documents.
pub(crate) fn malformed(provider: &Provider, what: impl std::fmt::Display) -> ApiError {
    ApiError::new(
        ErrorCode::UpstreamError,
        format!("the provider {} answered in an unexpected form: {what}", provider.name),
    )
}

/// A cached answer under `key`, if the store has one and can be asked.
pub(crate) async fn cached(ctx: &Ctx, key: &str) -> Option<Vec<u8>> {
    match ctx.store.get(key).await {
        Ok(v) => v,
        Err(e) => {
            tracing::debug!(error = %e, "a provider cache read failed; asking the provider");
            None
        }
    }
}

/// Keeps `value` under `key` for `ttl`; a failing store is logged and otherwise ignored.
pub(crate) async fn remember(ctx: &Ctx, key: &str, value: &[u8], ttl: Duration) {
    if let Err(e) = ctx.store.put(key, value, Some(ttl)).await {
        tracing::debug!(error = %e, "a provider answer could not be cached");
    }
}

/// Waits for a turn to call provider `name`, which may receive `per_second` requests a second
/// from every instance together: turns are the boundaries of 1/`per_second`-second intervals,
/// each claimed by one request through a counter in the store (shared by instances), so two
/// requests never start closer than one interval apart. Returns once the claimed turn has
/// come; an error when no turn is free before `deadline`, or when the store cannot count (then
/// the provider is not called at all rather than called without a budget).
pub(crate) async fn take_turn(
    ctx: &Ctx,
    name: &str,
    per_second: u32,
    deadline: tokio::time::Instant,
) -> Result<(), String> {
    let interval_ms = (1000 / u64::from(per_second.max(1))).max(1);
    let now_ms = || std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap_or_default().as_millis();
    let start = now_ms() as u64;
    let mut turn = start.div_ceil(interval_ms);
    loop {
        let at_ms = turn * interval_ms;
        let wait = Duration::from_millis(at_ms.saturating_sub(start));
        if tokio::time::Instant::now() + wait > deadline {
            return Err(format!("its request budget ({per_second} a second) is spent for now"));
        }
        let key = format!("budget:{name}:{turn}");
        match ctx.store.incr(&key, Some(Duration::from_millis(interval_ms) + Duration::from_secs(5))).await {
            Ok((1, _)) => {
                let left = Duration::from_millis(at_ms.saturating_sub(now_ms() as u64));
                tokio::time::sleep(left).await;
                return Ok(());
            }
            Ok(_) => turn += 1,
            Err(e) => return Err(format!("its request budget could not be counted ({e})")),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn turns_are_one_interval_apart_and_end_at_the_deadline() {
        let ctx = crate::testing::fake_ctx(&[]);
        let deadline = tokio::time::Instant::now() + Duration::from_millis(1_100);
        let mut started = Vec::new();
        let refusal = loop {
            match take_turn(&ctx, "test-turns", 4, deadline).await {
                Ok(()) => started.push(std::time::Instant::now()),
                Err(e) => break e,
            }
            assert!(started.len() <= 5, "more turns than 4 a second allow in 1.1 s");
        };
        // Turns of 250 ms: four or five fit in 1.1 s, depending on where the first boundary falls.
        assert!((4..=5).contains(&started.len()), "{}", started.len());
        assert!(refusal.contains("spent"), "{refusal}");
        for pair in started.windows(2) {
            let gap = pair[1] - pair[0];
            assert!(gap >= Duration::from_millis(240), "{gap:?}");
        }
        // Another caller of the same provider (another instance, through the same store) does not
        // get a turn already claimed: concurrent claimants are spread out too.
        let deadline = tokio::time::Instant::now() + Duration::from_millis(2_100);
        let (a, b) = tokio::join!(
            async {
                take_turn(&ctx, "test-shared", 2, deadline).await.unwrap();
                std::time::Instant::now()
            },
            async {
                take_turn(&ctx, "test-shared", 2, deadline).await.unwrap();
                std::time::Instant::now()
            }
        );
        let gap = if a > b { a - b } else { b - a };
        assert!(gap >= Duration::from_millis(490), "{gap:?}");
    }
}
