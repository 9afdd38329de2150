//! The Tor project's list of exit-node addresses (`WRENCH_PROVIDER_TOREXITS_URL`), for
//! `ip/intelligence`: fetched through the outbound layer when first needed, then refreshed
//! in the background once it is an hour old while answers keep using the list they have.
//! The list is a few thousand lines; more than 200,000 addresses is refused as not the list.

use std::{
    collections::HashSet,
    net::IpAddr,
    sync::{
        Arc, Mutex,
        atomic::{AtomicBool, Ordering},
    },
    time::{Duration, Instant},
};

use crate::prelude::*;

const REFRESH_AFTER: Duration = Duration::from_secs(3600);
const MAX_ENTRIES: usize = 200_000;

pub(crate) struct ExitList {
    url: String,
    pub(crate) addresses: HashSet<IpAddr>,
    fetched: Instant,
    pub(crate) fetched_at: String,
}

impl ExitList {
    pub(crate) fn age_seconds(&self) -> u64 {
        self.fetched.elapsed().as_secs()
    }
}

static CURRENT: Mutex<Option<Arc<ExitList>>> = Mutex::new(None);
/// A background refresh is under way.
static REFRESHING: AtomicBool = AtomicBool::new(false);

fn current(url: &str) -> Option<Arc<ExitList>> {
    CURRENT.lock().unwrap_or_else(|p| p.into_inner()).clone().filter(|l| l.url == url)
}

async fn fetch(net: &crate::net::Net, url: &url::Url) -> Result<Arc<ExitList>, String> {
    let chain = net.get(url.clone()).await.map_err(|e| format!("the Tor exit list could not be fetched: {e}"))?;
    let status = chain.last().map_or(0, |h| h.status);
    if status != 200 {
        return Err(format!("the Tor exit list answered with status {status}"));
    }
    let body = chain.body.unwrap_or_default();
    let text = String::from_utf8_lossy(&body);
    let addresses: HashSet<IpAddr> = text
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .filter_map(|l| l.split_whitespace().next()?.parse().ok())
        .take(MAX_ENTRIES + 1)
        .collect();
    if addresses.len() > MAX_ENTRIES {
        return Err(format!("the Tor exit list holds more than {MAX_ENTRIES} addresses; it is not used"));
    }
    let list = Arc::new(ExitList {
        url: url.to_string(),
        addresses,
        fetched: Instant::now(),
        fetched_at: jiff::Timestamp::now().to_string(),
    });
    *CURRENT.lock().unwrap_or_else(|p| p.into_inner()) = Some(list.clone());
    Ok(list)
}

/// The list, fetched now if there is none for the configured URL; a list over an hour old is
/// refreshed in the background.
pub(crate) async fn exits(ctx: &Ctx) -> Result<Arc<ExitList>, String> {
    let Some(url) = ctx.config.outbound.providers.url("TOREXITS").cloned() else {
        return Err("the Tor check is off (WRENCH_PROVIDER_TOREXITS_URL)".into());
    };
    match current(url.as_str()) {
        Some(list) => {
            if list.fetched.elapsed() > REFRESH_AFTER && !REFRESHING.swap(true, Ordering::AcqRel) {
                let net = ctx.net.clone();
                tokio::spawn(async move {
                    if let Err(e) = fetch(&net, &url).await {
                        tracing::warn!(error = %e, "Tor exit list not refreshed; the old one stays");
                    }
                    REFRESHING.store(false, Ordering::Release);
                });
            }
            Ok(list)
        }
        None => fetch(&ctx.net, &url).await,
    }
}
