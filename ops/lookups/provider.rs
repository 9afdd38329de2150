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
