//! Lists fetched whole from a provider and kept in memory (the Tor exit list, phishing feeds):
//! fetched through the outbound layer when first needed, then refreshed in the background once
//! older than their refresh interval, while answers keep using the copy they have. A refresh
//! that fails keeps the old copy and is logged.

use std::{
    sync::{
        Arc, Mutex,
        atomic::{AtomicBool, Ordering},
    },
    time::{Duration, Instant},
};

use reqwest::header::HeaderMap;

use super::Net;
use crate::providers::Provider;

/// How often a feed whose provider names no cache time is fetched again.
const HOURLY: Duration = Duration::from_secs(3_600);

/// One fetched copy of a feed.
pub struct Fetched<T> {
    url: String,
    pub data: T,
    fetched: Instant,
    /// When it was fetched, RFC 3339.
    pub fetched_at: String,
}

impl<T> Fetched<T> {
    pub fn age_seconds(&self) -> u64 {
        self.fetched.elapsed().as_secs()
    }
}

/// How a feed is fetched and read: from its provider, whose declaration gives its name, time
/// limit, largest size and refresh interval (`cache_for`; hourly when it names none).
pub struct FeedSpec<T> {
    pub provider: &'static Provider,
    /// Reads a body into the feed's data, or says why it is not the feed.
    pub parse: fn(&[u8]) -> Result<T, String>,
}

/// The copy of one feed, shared by every request.
pub struct Feed<T> {
    current: Mutex<Option<Arc<Fetched<T>>>>,
    refreshing: AtomicBool,
}

impl<T: Send + Sync + 'static> Default for Feed<T> {
    fn default() -> Self {
        Feed::new()
    }
}

impl<T: Send + Sync + 'static> Feed<T> {
    pub const fn new() -> Feed<T> {
        Feed { current: Mutex::new(None), refreshing: AtomicBool::new(false) }
    }

    fn current(&self, url: &str) -> Option<Arc<Fetched<T>>> {
        self.current.lock().unwrap_or_else(|p| p.into_inner()).clone().filter(|f| f.url == url)
    }

    async fn fetch(
        &self,
        net: &Net,
        spec: &FeedSpec<T>,
        url: &url::Url,
        headers: &HeaderMap,
    ) -> Result<Arc<Fetched<T>>, String> {
        let name = spec.provider.name;
        let chain = net
            .get_limited(url.clone(), headers, spec.provider.timeout, spec.provider.max_bytes)
            .await
            .map_err(|e| format!("{name} could not be fetched: {e}"))?;
        let status = chain.last().map_or(0, |h| h.status);
        if status != 200 {
            return Err(format!("{name} answered with status {status}"));
        }
        let data = (spec.parse)(&chain.body.unwrap_or_default()).map_err(|e| format!("{name}: {e}"))?;
        let fetched = Arc::new(Fetched {
            url: url.to_string(),
            data,
            fetched: Instant::now(),
            fetched_at: jiff::Timestamp::now().to_string(),
        });
        *self.current.lock().unwrap_or_else(|p| p.into_inner()) = Some(fetched.clone());
        Ok(fetched)
    }

    /// The feed at `url`, fetched now if there is no copy of it; a copy older than the refresh
    /// interval is refreshed in the background. `headers` go only to the feed's origin.
    pub async fn get(
        &'static self,
        net: &Arc<Net>,
        spec: &'static FeedSpec<T>,
        url: &url::Url,
        headers: HeaderMap,
    ) -> Result<Arc<Fetched<T>>, String> {
        match self.current(url.as_str()) {
            Some(copy) => {
                if copy.fetched.elapsed() > spec.provider.cache_for.unwrap_or(HOURLY)
                    && !self.refreshing.swap(true, Ordering::AcqRel)
                {
                    let (net, url) = (net.clone(), url.clone());
                    tokio::spawn(async move {
                        if let Err(e) = self.fetch(&net, spec, &url, &headers).await {
                            tracing::warn!(error = %e, "a feed was not refreshed; the old copy stays");
                        }
                        self.refreshing.store(false, Ordering::Release);
                    });
                }
                Ok(copy)
            }
            None => self.fetch(net, spec, url, &headers).await,
        }
    }
}
