//! The Tor project's list of exit-node addresses (`WRENCH_PROVIDER_TOREXITS_URL`), for
//! `ip/intelligence`: fetched through the outbound layer when first needed, then refreshed
//! in the background once it is an hour old while answers keep using the list they have
//! (`outbound::feed`). The list is a few thousand lines; more than 200,000 addresses is refused as
//! not the list.

use std::{collections::HashSet, net::IpAddr, sync::Arc};

use wrench_contract::prelude::*;
use wrench_infra::{
    outbound::feed::{Feed, FeedSpec, Fetched},
    providers::TOR_EXITS,
};

const MAX_ENTRIES: usize = 200_000;

pub type ExitList = Fetched<HashSet<IpAddr>>;

static EXITS: Feed<HashSet<IpAddr>> = Feed::new();
static SPEC: FeedSpec<HashSet<IpAddr>> = FeedSpec { provider: &TOR_EXITS, parse };

fn parse(body: &[u8]) -> Result<HashSet<IpAddr>, String> {
    let text = String::from_utf8_lossy(body);
    let addresses: HashSet<IpAddr> = text
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .filter_map(|l| l.split_whitespace().next()?.parse().ok())
        .take(MAX_ENTRIES + 1)
        .collect();
    if addresses.len() > MAX_ENTRIES {
        return Err(format!("it holds more than {MAX_ENTRIES} addresses; it is not used"));
    }
    Ok(addresses)
}

/// The list, fetched now if there is none for the configured URL; a list over an hour old is
/// refreshed in the background.
pub async fn exits(ctx: &Ctx) -> Result<Arc<ExitList>, String> {
    let Some(url) = ctx.config.outbound.providers.url(&TOR_EXITS).cloned() else {
        return Err("the Tor check is off (WRENCH_PROVIDER_TOREXITS_URL)".into());
    };
    EXITS.get(&ctx.net, &SPEC, &url, Default::default()).await
}
