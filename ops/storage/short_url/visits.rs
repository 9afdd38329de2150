//! A short link's visits: what each redirect records, and where.
//!
//! A redirect that counts queues a description of its visit (`visit_queue.rs`), which
//! the instance writes in batches right after, summed per link and day:
//! - in the link's tally for the visit's UTC day (`link:{slug}:d:YYYYMMDD`), one more visit in
//!   its hour (`v:HH`), one more bot visit (`b:HH`) when the User-Agent is a crawler's, and one
//!   more for its referrer host (`r:`), country (`c:`), browser (`br:`), operating system
//!   (`os:`) and device type (`dv:`). A day holds at most [`PER_GROUP`] values of each; later
//!   new values count as the group's `(other)`. Tallies never expire.
//! - for a visitor not yet seen that day, one more unique visitor in its hour (`u:HH`). A
//!   visitor is a salted SHA-256 of the address and User-Agent; the salt is random, made per
//!   UTC day, shared by every instance through the store and dropped two days later, after
//!   which no hash of that day can be tied to an address any more. Neither the address nor
//!   the hash is kept with the visit. Bots are not visitors.
//! - the day in the link's register of days (`link:{slug}:days`), so that statistics read only
//!   days that had visits and a delete finds every key;
//! - the visit in the link's log of recent visits, which keeps the newest [`KEEP_VISITS`].
//!
//! Statistics, the visit stream and a delete first wait for the visits their own instance has
//! queued; another instance's visits show once that instance has written them (about one
//! store round trip after their redirect). The click count is written by the redirect itself.
//!
//! The country comes from the IP geolocation data set when one is configured
//! (`WRENCH_GEOIP_CITY_DB`), and is unknown otherwise.

use std::{
    collections::HashMap,
    sync::Mutex,
    time::{Duration, SystemTime},
};

use sha2::{Digest, Sha256};

use crate::storage::short_url::visit_queue::{TallyVisit, VisitQueue, Visitor};
use wrench_contract::{
    prelude::*,
    services::{Foundation, Service},
};
use wrench_infra::{random, time};

/// Recent visits kept per link.
pub(in crate::storage) const KEEP_VISITS: usize = 1000;
/// Values of one kind (referrers, countries...) a day's tally holds.
pub(in crate::storage) const PER_GROUP: usize = 100;
/// How long a day's visitor set and salt are kept: the day itself and one more, so that a
/// visit at 23:59 still finds its salt.
const DAY_KEPT: Duration = Duration::from_secs(2 * 86_400);
/// Characters of a referrer host kept.
const HOST_CHARS: usize = 253;

pub(in crate::storage) fn day_key(slug: &str, day: &str) -> String {
    format!("link:{{{slug}}}:d:{day}")
}
pub(in crate::storage) fn days_key(slug: &str) -> String {
    format!("link:{{{slug}}}:days")
}
fn seen_key(slug: &str, day: &str) -> String {
    format!("link:{{{slug}}}:seen:{day}")
}
pub(in crate::storage) fn visits_key(slug: &str) -> String {
    format!("link:{{{slug}}}:visits")
}

/// Every key a link's visits occupy: its days' tallies and visitor sets, the register of days
/// and the recent visits.
pub(in crate::storage) async fn keys_of(ctx: &Ctx, slug: &str) -> Result<Vec<String>, ApiError> {
    let days = ctx.store.members(&days_key(slug)).await?;
    let mut keys = Vec::with_capacity(2 * days.len() + 2);
    for tally in days {
        if let Some(day) = tally.rsplit(':').next() {
            keys.push(seen_key(slug, day));
        }
        keys.push(tally);
    }
    keys.push(days_key(slug));
    keys.push(visits_key(slug));
    Ok(keys)
}

/// One visit as the log of recent visits keeps it.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub(in crate::storage) struct Visit {
    /// When (RFC 3339, UTC, milliseconds).
    pub at: String,
    /// The host of the `Referer` the visitor sent; null when it sent none.
    pub referrer: Option<String>,
    /// ISO 3166-1 alpha-2 country of the visitor's address; null when unknown (no
    /// geolocation data set configured, or the address is not in it).
    pub country: Option<String>,
    /// Browser family (`Chrome`, `Googlebot`; `Other` when no rule matches).
    pub browser: String,
    /// Operating system family (`Windows`, `iOS`; `Other` when no rule matches).
    pub os: String,
    /// `desktop`, `mobile`, `tablet`, `tv`, `console`, `wearable`, `bot` or `unknown`.
    pub device: String,
    /// Whether the User-Agent is a crawler's.
    pub bot: bool,
}

/// A visit as statistics and the stream show it: with its number.
#[derive(Debug, Serialize, JsonSchema)]
pub(in crate::storage) struct NumberedVisit {
    /// The visit's number: the link's visits are numbered from 1.
    pub number: u64,
    #[serde(flatten)]
    pub visit: Visit,
}

/// `YYYYMMDD` and the hour (`00`-`23`) of an instant, in UTC.
pub(in crate::storage) fn day_and_hour(at: SystemTime) -> (String, String) {
    let ts = jiff::Timestamp::from_millisecond(time::unix_ms(at) as i64).unwrap_or_default();
    let dt = ts.to_zoned(jiff::tz::TimeZone::UTC).datetime();
    (format!("{:04}{:02}{:02}", dt.year(), dt.month(), dt.day()), format!("{:02}", dt.hour()))
}

/// Describes the request's visitor and queues the visit's recording.
pub(in crate::storage) async fn record(ctx: &Ctx, slug: &str, at: SystemTime) -> Result<(), ApiError> {
    let header = |name: &str| ctx.headers.get(name).and_then(|v| v.to_str().ok());
    let user_agent = header("user-agent").unwrap_or("");
    let who = wrench_kit::uap::visitor(user_agent);
    let referrer = header("referer").and_then(referrer_host);
    let country = country(ctx).await;
    let (day, hour) = day_and_hour(at);
    let visit = Visit {
        at: time::rfc3339(at),
        referrer,
        country,
        browser: who.browser.clone(),
        os: who.os.clone(),
        device: who.device.to_string(),
        bot: who.bot,
    };
    let mut add = vec![
        format!("v:{hour}"),
        format!("r:{}", visit.referrer.as_deref().unwrap_or("(direct)")),
        format!("c:{}", visit.country.as_deref().unwrap_or("(unknown)")),
        format!("br:{}", visit.browser),
        format!("os:{}", visit.os),
        format!("dv:{}", visit.device),
    ];
    let distinct = if visit.bot {
        add.push(format!("b:{hour}"));
        None
    } else {
        Some(Visitor {
            set: seen_key(slug, &day),
            ttl: DAY_KEPT,
            member: visitor_hash(ctx, &day, user_agent).await?,
            add: vec![format!("u:{hour}")],
        })
    };
    let entry = serde_json::to_vec(&visit).map_err(|e| ApiError::internal(e.to_string()))?;
    ctx.service::<VisitQueue>().push(TallyVisit {
        guard: crate::storage::short_url::model::key(slug),
        key: day_key(slug, &day),
        add,
        per_group: PER_GROUP,
        index: days_key(slug),
        distinct,
        log: Some((visits_key(slug), entry, KEEP_VISITS)),
    });
    Ok(())
}

/// The host of a `Referer` header, lower-cased; `None` when it has none.
fn referrer_host(text: &str) -> Option<String> {
    let url = url::Url::parse(text.trim()).ok()?;
    let host = url.host_str().filter(|h| !h.is_empty())?;
    Some(host.chars().take(HOST_CHARS).collect::<String>().to_ascii_lowercase())
}

/// The visitor's country, when a geolocation data set is configured and holds the address.
/// A data set that fails is no reason to fail a redirect: the country is then unknown.
async fn country(ctx: &Ctx) -> Option<String> {
    let ip = ctx.client_ip?;
    if !ctx.datasets.city.configured() {
        return None;
    }
    let city = ctx.datasets.city.get().await.ok()?;
    city.data.lookup(ip).ok().flatten().and_then(|p| p.country_code).map(|c| c.to_ascii_uppercase())
}

/// The day's salted hash of the visitor (address and User-Agent), hex.
async fn visitor_hash(ctx: &Ctx, day: &str, user_agent: &str) -> Result<String, ApiError> {
    let salt = salt(ctx, day).await?;
    let mut h = Sha256::new();
    h.update(salt);
    h.update(ctx.client_ip.map(|ip| ip.to_string()).unwrap_or_default().as_bytes());
    h.update([0]);
    h.update(user_agent.as_bytes());
    Ok(hex::encode(&h.finalize()[..16]))
}

/// The day's salts this server has read: one store read per day instead of one per visit.
/// A group service (`wrench_contract::services`), so it belongs to one store.
#[derive(Default)]
struct DaySalts(Mutex<HashMap<String, [u8; 32]>>);

impl Service for DaySalts {
    fn start(_: &Foundation<'_>) -> Self {
        DaySalts::default()
    }
}

/// The salt of `day`: made by the first instance that needs it, read by the others, kept in
/// memory for the day.
async fn salt(ctx: &Ctx, day: &str) -> Result<[u8; 32], ApiError> {
    let salts = ctx.service::<DaySalts>();
    if let Some(s) = salts.0.lock().ok().and_then(|c| c.get(day).copied()) {
        return Ok(s);
    }
    let key = format!("visits:salt:{day}");
    let fresh = random::bytes::<32>()?;
    ctx.store.put_new(&key, &fresh, Some(DAY_KEPT)).await?;
    let stored = ctx.store.get(&key).await?.ok_or_else(|| ApiError::internal("the day's salt vanished"))?;
    let salt: [u8; 32] = stored.as_slice().try_into().map_err(|_| ApiError::internal("the day's salt is malformed"))?;
    if let Ok(mut c) = salts.0.lock() {
        // Yesterday's salts go with the day they served.
        c.retain(|d, _| d.as_str() >= day);
        c.insert(day.to_string(), salt);
    }
    Ok(salt)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn referrers_are_hosts() {
        assert_eq!(referrer_host("https://News.Example.com/a?b#c").as_deref(), Some("news.example.com"));
        assert_eq!(referrer_host("http://[::1]:8080/").as_deref(), Some("[::1]"));
        assert_eq!(referrer_host("not a url"), None);
        assert_eq!(referrer_host("android-app://com.example/"), Some("com.example".into()));
    }

    #[test]
    fn days_and_hours_are_utc() {
        let at = SystemTime::UNIX_EPOCH + Duration::from_secs(1_796_083_199); // 2026-11-30T23:59:59Z
        assert_eq!(day_and_hour(at), ("20261130".into(), "23".into()));
        assert_eq!(day_and_hour(at + Duration::from_secs(1)), ("20261201".into(), "00".into()));
    }
}
