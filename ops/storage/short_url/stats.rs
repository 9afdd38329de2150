//! A short link's statistics: its counters, its visits over any range in hour or day buckets,
//! the top referrers, countries, browsers, operating systems and devices, and its recent
//! visits, paged. Reading them is not a visit.
//!
//! Visits are tallied per UTC day and hour (`visits.rs`), so a range is rounded out
//! to whole intervals (hours or days) and then counted exactly; the top lists are kept per day
//! and count the whole days the range touches, which the answer states. Only the days that
//! had visits are read, from the link's register of days.

use std::{collections::HashMap, time::SystemTime};

use crate::storage::short_url::visit_queue::VisitQueue;
use crate::storage::{
    short_url::model::{clicks_key, find, last_click_key},
    short_url::visits::{NumberedVisit, Visit, day_key, days_key, visits_key},
};
use wrench_contract::prelude::*;
use wrench_infra::{store::LogState, time};

/// Most buckets one answer has: 10,000 days is 27 years, 10,000 hours 416 days.
const MAX_BUCKETS: u64 = 10_000;
const HOUR_MS: u64 = 3_600_000;
const DAY_MS: u64 = 86_400_000;

#[derive(Debug, Clone, Copy, Default, Deserialize, Serialize, JsonSchema, Validate, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
enum Interval {
    Hour,
    #[default]
    Day,
}

impl Interval {
    fn ms(self) -> u64 {
        match self {
            Interval::Hour => HOUR_MS,
            Interval::Day => DAY_MS,
        }
    }
}

fn ten() -> u32 {
    10
}

#[derive(Debug, Deserialize, JsonSchema, Validate)]
#[serde(deny_unknown_fields)]
struct StatsInput {
    /// The link's slug. Any slug that is not a link (of any shape) is 404 `NOT_FOUND`.
    #[schemars(length(min = 1, max = 256))]
    slug: String,
    /// Start of the range: an RFC 3339 instant or a `YYYY-MM-DD` date (UTC midnight), rounded
    /// down to a whole interval. Default: the link's creation.
    #[serde(default)]
    #[schemars(length(min = 1, max = 64))]
    from: Option<String>,
    /// End of the range (not included), as `from`, rounded up to a whole interval. Default: now.
    #[serde(default)]
    #[schemars(length(min = 1, max = 64))]
    to: Option<String>,
    /// Bucket size of the series: `hour` or `day` (default). At most 10,000 buckets.
    #[serde(default)]
    interval: Interval,
    /// Entries in each top list, 1 to 100 (default 10).
    #[serde(default = "ten")]
    #[schemars(range(min = 1, max = 100))]
    top: u32,
    /// Recent visits to list, newest first, 0 to 100 (default 10).
    #[serde(default = "ten")]
    #[schemars(range(max = 100))]
    visits: u32,
    /// List only visits numbered below this: the previous answer's `nextBefore`, to page back.
    #[serde(default)]
    #[schemars(range(min = 1))]
    before: Option<u64>,
}

#[derive(Debug, Serialize, JsonSchema)]
struct StatsRange {
    /// Start (RFC 3339, UTC), rounded down to the interval.
    from: String,
    /// End, not included (RFC 3339, UTC), rounded up to the interval.
    to: String,
    /// `hour` or `day`.
    interval: Interval,
}

#[derive(Debug, Default, Serialize, JsonSchema)]
struct Counts {
    /// Visits redirected, bots included.
    total: u64,
    /// Visits by crawlers (uap-core's rules).
    bots: u64,
    /// Distinct visitors that are not bots, each counted once per UTC day (in the hour of its
    /// first visit that day): a visitor who comes back on three days counts three times.
    unique: u64,
}

#[derive(Debug, Serialize, JsonSchema)]
struct Bucket {
    /// Start of the bucket (RFC 3339, UTC).
    start: String,
    #[serde(flatten)]
    counts: Counts,
}

#[derive(Debug, Serialize, JsonSchema)]
struct Ranked {
    /// The referrer host, country code, browser, operating system or device type;
    /// `(direct)` for visits without a referrer, `(unknown)` for a country not known,
    /// `(other)` for values past the 100 a day keeps of each kind.
    value: String,
    /// Visits, bots included.
    visits: u64,
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct TopLists {
    /// The first UTC day counted (`YYYY-MM-DD`): top lists count whole days.
    days_from: String,
    /// The last UTC day counted.
    days_to: String,
    referrers: Vec<Ranked>,
    countries: Vec<Ranked>,
    browsers: Vec<Ranked>,
    operating_systems: Vec<Ranked>,
    devices: Vec<Ranked>,
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct ShortUrlStats {
    /// The slug.
    slug: String,
    /// The target URL.
    url: String,
    /// Absolute short URL.
    short_url: String,
    /// Redirects served so far.
    clicks: i64,
    /// When the link was created (RFC 3339, UTC).
    created_at: String,
    /// When it was last followed (RFC 3339, UTC); null before the first click.
    last_click_at: Option<String>,
    /// From when it redirects (RFC 3339), if limited.
    valid_since: Option<String>,
    /// Until when it redirects (RFC 3339), if limited.
    valid_until: Option<String>,
    /// Visits it redirects at most, if limited.
    max_visits: Option<u64>,
    /// Visits it will still redirect, if limited.
    visits_left: Option<u64>,
    /// Its tags.
    tags: Vec<String>,
    /// The range counted.
    range: StatsRange,
    /// Visits in the range.
    visits: Counts,
    /// The range in buckets of the interval, oldest first, empty ones included.
    series: Vec<Bucket>,
    /// The most frequent values in the days the range touches, most visits first.
    top: TopLists,
    /// The most recent visits, newest first, whatever the range; the newest 1,000 are kept.
    recent_visits: Vec<NumberedVisit>,
    /// Where the next page of recent visits starts (`before`); null on the last page.
    next_before: Option<u64>,
}

/// An instant given as `field`, in Unix milliseconds.
fn instant_ms(field: &str, text: &str) -> Result<u64, ApiError> {
    let ts = time::parse_iso(text)
        .map_err(|e| ApiError::invalid(field, format!("is not an RFC 3339 instant or a date: {e}")))?;
    u64::try_from(ts.as_millisecond()).map_err(|_| ApiError::invalid(field, "must not be before 1970"))
}

/// The range asked for, rounded out to whole intervals: (from, to) in Unix milliseconds.
fn range(input: &StatsInput, created_at: &str, now_ms: u64) -> Result<(u64, u64), ApiError> {
    let unit = input.interval.ms();
    let from = match &input.from {
        Some(t) => instant_ms("from", t)?,
        None => time::parse_iso(created_at).map_or(0, |t| t.as_millisecond().max(0) as u64),
    };
    let to = match &input.to {
        Some(t) => instant_ms("to", t)?,
        None => now_ms,
    };
    let (from, to) = (from / unit * unit, to.div_ceil(unit).saturating_mul(unit));
    if to <= from {
        return Err(ApiError::invalid("to", "must come after from"));
    }
    let buckets = (to - from) / unit;
    if buckets > MAX_BUCKETS {
        let name = if input.interval == Interval::Hour { "hours" } else { "days" };
        return Err(ApiError::invalid(
            "to",
            format!(
                "the range holds {buckets} {name}; at most {MAX_BUCKETS} buckets fit in one answer: narrow the range or use a longer interval"
            ),
        ));
    }
    Ok((from, to))
}

fn rfc3339_ms(ms: u64) -> String {
    time::rfc3339(SystemTime::UNIX_EPOCH + std::time::Duration::from_millis(ms))
}

/// `YYYYMMDD` of the UTC day that holds `ms`.
fn day_of(ms: u64) -> String {
    crate::storage::short_url::visits::day_and_hour(SystemTime::UNIX_EPOCH + std::time::Duration::from_millis(ms)).0
}

/// The start of a `YYYYMMDD` day, in Unix milliseconds.
fn day_start(day: &str) -> Option<u64> {
    let date = jiff::civil::Date::strptime("%Y%m%d", day).ok()?;
    let ts = date.to_zoned(jiff::tz::TimeZone::UTC).ok()?.timestamp();
    u64::try_from(ts.as_millisecond()).ok()
}

/// What the tallies of a range add up to.
#[derive(Default)]
struct Summed {
    totals: Counts,
    buckets: Vec<Counts>,
    groups: HashMap<&'static str, HashMap<String, u64>>,
}

const GROUPS: [&str; 5] = ["r", "c", "br", "os", "dv"];

fn sum(days: &[(u64, Vec<(String, i64)>)], from: u64, to: u64, unit: u64) -> Summed {
    let mut s = Summed { buckets: (0..(to - from) / unit).map(|_| Counts::default()).collect(), ..Default::default() };
    for (start, counters) in days {
        for (name, n) in counters {
            let n = (*n).max(0) as u64;
            let Some((group, value)) = name.split_once(':') else { continue };
            if let Some(hour) = ["v", "b", "u"].contains(&group).then(|| value.parse::<u64>().ok()).flatten() {
                let at = start + hour * HOUR_MS;
                if !(from..to).contains(&at) {
                    continue;
                }
                let b = &mut s.buckets[((at - from) / unit) as usize];
                for c in [b, &mut s.totals] {
                    match group {
                        "v" => c.total += n,
                        "b" => c.bots += n,
                        _ => c.unique += n,
                    }
                }
            } else if let Some(g) = GROUPS.iter().find(|g| **g == group) {
                let value = if value.is_empty() { "(other)" } else { value };
                *s.groups.entry(g).or_default().entry(value.to_string()).or_default() += n;
            }
        }
    }
    s
}

fn ranked(counts: Option<HashMap<String, u64>>, top: usize) -> Vec<Ranked> {
    let mut all: Vec<Ranked> =
        counts.unwrap_or_default().into_iter().map(|(value, visits)| Ranked { value, visits }).collect();
    all.sort_by(|a, b| b.visits.cmp(&a.visits).then_with(|| a.value.cmp(&b.value)));
    all.truncate(top);
    all
}

/// A page of recent visits, newest first, and where the next starts.
async fn recent(
    ctx: &Ctx,
    slug: &str,
    n: u32,
    before: Option<u64>,
) -> Result<(Vec<NumberedVisit>, Option<u64>), ApiError> {
    if n == 0 {
        return Ok((Vec::new(), None));
    }
    let log = visits_key(slug);
    let state: LogState = ctx.store.log_state(&log).await?;
    let last = before.map_or(state.last, |b| state.last.min(b.saturating_sub(1)));
    if state.is_empty() || last < state.first {
        return Ok((Vec::new(), None));
    }
    let first = last.saturating_sub(u64::from(n) - 1).max(state.first);
    let mut page = Vec::new();
    for (number, raw) in ctx.store.log_read(&log, first, last).await?.into_iter().rev() {
        let visit: Visit =
            serde_json::from_slice(&raw).map_err(|e| ApiError::internal(format!("stored visit unreadable: {e}")))?;
        page.push(NumberedVisit { number, visit });
    }
    Ok((page, (first > state.first).then_some(first)))
}

async fn stats(ctx: &Ctx, input: StatsInput) -> Result<ShortUrlStats, ApiError> {
    let slug = input.slug.clone();
    let (link, gate) = find(ctx, &slug).await?;
    // Every visit this instance has answered is in what follows.
    ctx.service::<VisitQueue>().flush().await;
    let now_ms = time::unix_ms(time::now());
    let (from, to) = range(&input, &link.created_at, now_ms)?;
    let unit = input.interval.ms();
    let clicks = ctx.store.count(&clicks_key(&slug)).await?;
    let last_click_at = ctx.store.get(&last_click_key(&slug)).await?.map(|b| String::from_utf8_lossy(&b).into_owned());

    // The days the range touches that had visits, oldest first.
    let (first_day, last_day) = (day_of(from), day_of(to - 1));
    let prefix = day_key(&slug, "");
    let mut days: Vec<(String, u64)> = ctx
        .store
        .members(&days_key(&slug))
        .await?
        .into_iter()
        .filter_map(|k| k.strip_prefix(&prefix).map(str::to_string))
        .filter(|d| (first_day.as_str()..=last_day.as_str()).contains(&d.as_str()))
        .filter_map(|d| day_start(&d).map(|s| (d, s)))
        .collect();
    days.sort();
    let keys: Vec<String> = days.iter().map(|(d, _)| day_key(&slug, d)).collect();
    let key_refs: Vec<&str> = keys.iter().map(String::as_str).collect();
    let tallies = ctx.store.tallies(&key_refs).await?;
    let read: Vec<(u64, Vec<(String, i64)>)> = days.iter().map(|(_, s)| *s).zip(tallies).collect();
    let mut summed = sum(&read, from, to, unit);

    let top = input.top as usize;
    let mut group = |g: &str| ranked(summed.groups.remove(g), top);
    let top_lists = TopLists {
        days_from: format!("{}-{}-{}", &first_day[..4], &first_day[4..6], &first_day[6..]),
        days_to: format!("{}-{}-{}", &last_day[..4], &last_day[4..6], &last_day[6..]),
        referrers: group("r"),
        countries: group("c"),
        browsers: group("br"),
        operating_systems: group("os"),
        devices: group("dv"),
    };
    let series = summed
        .buckets
        .into_iter()
        .enumerate()
        .map(|(i, counts)| Bucket { start: rfc3339_ms(from + i as u64 * unit), counts })
        .collect();
    let (recent_visits, next_before) = recent(ctx, &slug, input.visits, input.before).await?;
    Ok(ShortUrlStats {
        short_url: crate::storage::short_url::model::short_url(&ctx.config, &slug),
        slug,
        url: link.url,
        clicks,
        created_at: link.created_at,
        last_click_at,
        valid_since: link.valid_since,
        valid_until: link.valid_until,
        max_visits: link.max_visits,
        visits_left: gate.and_then(|g| g.left),
        tags: link.tags,
        range: StatsRange { from: rfc3339_ms(from), to: rfc3339_ms(to), interval: input.interval },
        visits: summed.totals,
        series,
        top: top_lists,
        recent_visits,
        next_before,
    })
}

/// Show a short link's statistics.
///
/// Clicks so far, target, creation time, last click and the link's limits with the visits it
/// will still redirect; then its visits over a range (`from`, `to`: RFC 3339 instants or
/// dates, default from the link's creation to now) in `hour` or `day` buckets (`interval`, at
/// most 10,000 buckets): total, bot and unique visits, exact once the range is rounded out to
/// whole intervals (the answer's `range`). Unique visitors are counted per UTC day from a
/// salted hash that is never stored with a visit and whose salt is dropped after two days. The
/// top referrer hosts, countries (when a geolocation data set is configured), browsers,
/// operating systems and device types count the whole UTC days the range touches (`top`
/// entries each). The most recent visits come newest first, `visits` at a time, paged with
/// `before`; the newest 1,000 are kept. Reading statistics is not a visit. `POST
/// /v1/short-url/stats` with the same fields in a JSON body is the same read.
#[op(get "/v1/short-url/{slug}/stats" as getShortUrlStats,
     post "/v1/short-url/stats" as getShortUrlStatsPost,
     tag = Storage,
     uses(store), errors(NOT_FOUND),
     rejects = "a from or to that is neither an RFC 3339 instant nor a date, a range that ends before it starts, or one of more than 10,000 buckets",
     example(unknown, {"slug": "nothing-here"}, status = 404),
     example(other_shape, {"slug": "bad slug!"}, status = 404),
     example(unknown_interval, {"slug": "nothing-here", "interval": "week"}, status = 400))]
async fn get_short_url_stats(input: StatsInput, ctx: &Ctx) -> Result<ShortUrlStats, ApiError> {
    stats(ctx, input).await
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;
    use crate::storage::short_url::{
        links::follow,
        model::{LinkRecord, key},
    };

    const CHROME: &str = "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36";
    const GOOGLEBOT: &str = "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)";

    fn at(text: &str) -> SystemTime {
        SystemTime::UNIX_EPOCH + Duration::from_millis(time::parse_iso(text).unwrap().as_millisecond() as u64)
    }

    async fn link(ctx: &Ctx, slug: &str) {
        let record = LinkRecord {
            url: "https://example.com/".into(),
            created_at: "2026-10-01T00:00:00.000Z".into(),
            valid_since: None,
            valid_until: None,
            max_visits: None,
            forward_query: false,
            redirect_status: 302,
            tags: Vec::new(),
            manage_token_sha256: None,
        };
        ctx.store.put(&key(slug), &record.stored(0).unwrap(), None).await.unwrap();
    }

    /// A visit from `ip` with `user_agent` (and `referer`) at `when`.
    async fn visit(ctx: &Ctx, slug: &str, when: &str, ip: &str, user_agent: &str, referer: Option<&str>) {
        let mut ctx = ctx.clone();
        ctx.client_ip = Some(ip.parse().unwrap());
        ctx.headers.insert("user-agent", user_agent.parse().unwrap());
        if let Some(r) = referer {
            ctx.headers.insert("referer", r.parse().unwrap());
        }
        follow(&ctx, slug, at(when)).await.unwrap();
    }

    async fn read(ctx: &Ctx, v: Value) -> Result<ShortUrlStats, ApiError> {
        stats(ctx, serde_json::from_value(v).unwrap()).await
    }

    /// Stats once the embedded store's queued counts of `n` visits have landed.
    async fn settled(ctx: &Ctx, slug: &str, n: i64) {
        for _ in 0..200 {
            if ctx.store.count(&clicks_key(slug)).await.unwrap() >= n {
                return;
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        panic!("the visits were not counted");
    }

    fn counts(c: &Counts) -> (u64, u64, u64) {
        (c.total, c.bots, c.unique)
    }

    #[tokio::test]
    async fn buckets_across_midnight_match_the_visits_made() {
        let ctx = Ctx::for_tests();
        link(&ctx, "midnight").await;
        let news = Some("https://news.example/item?id=1");
        // 31 October, UTC: A at 22:10; A again and B at 23:40.
        visit(&ctx, "midnight", "2026-10-31T22:10:00Z", "192.0.2.1", CHROME, None).await;
        visit(&ctx, "midnight", "2026-10-31T23:40:00Z", "192.0.2.1", CHROME, news).await;
        visit(&ctx, "midnight", "2026-10-31T23:40:30Z", "192.0.2.2", CHROME, news).await;
        // 1 November: A (a new day, so unique again), a crawler and C after midnight; C at 01:30.
        visit(&ctx, "midnight", "2026-11-01T00:00:00Z", "192.0.2.1", CHROME, None).await;
        visit(&ctx, "midnight", "2026-11-01T00:05:00Z", "192.0.2.9", GOOGLEBOT, None).await;
        visit(&ctx, "midnight", "2026-11-01T00:59:59.999Z", "192.0.2.3", CHROME, news).await;
        visit(&ctx, "midnight", "2026-11-01T01:30:00Z", "192.0.2.3", CHROME, None).await;
        settled(&ctx, "midnight", 7).await;

        let hourly = read(
            &ctx,
            json!({"slug": "midnight", "from": "2026-10-31T23:00:00Z", "to": "2026-11-01T01:00:00Z", "interval": "hour"}),
        )
        .await
        .unwrap();
        assert_eq!(hourly.range.from, "2026-10-31T23:00:00.000Z");
        assert_eq!(hourly.range.to, "2026-11-01T01:00:00.000Z");
        let series: Vec<(&str, (u64, u64, u64))> =
            hourly.series.iter().map(|b| (b.start.as_str(), counts(&b.counts))).collect();
        assert_eq!(
            series,
            [("2026-10-31T23:00:00.000Z", (2, 0, 1)), ("2026-11-01T00:00:00.000Z", (3, 1, 2))],
            "A was already seen at 22:10; the crawler is no visitor"
        );
        assert_eq!(counts(&hourly.visits), (5, 1, 3));
        // The top lists count the two whole days.
        assert_eq!((hourly.top.days_from.as_str(), hourly.top.days_to.as_str()), ("2026-10-31", "2026-11-01"));
        let pairs = |r: &[Ranked]| r.iter().map(|r| (r.value.clone(), r.visits)).collect::<Vec<_>>();
        assert_eq!(pairs(&hourly.top.referrers), [("(direct)".into(), 4), ("news.example".into(), 3)]);
        assert_eq!(pairs(&hourly.top.browsers), [("Chrome".into(), 6), ("Googlebot".into(), 1)]);
        assert_eq!(pairs(&hourly.top.devices), [("desktop".into(), 6), ("bot".into(), 1)]);
        assert_eq!(pairs(&hourly.top.countries), [("(unknown)".into(), 7)], "no geolocation data set");
        assert_eq!(pairs(&hourly.top.operating_systems)[0], ("Windows".into(), 6));

        // Rounded out: 23:30 to 00:30 is the same two hours.
        let rounded = read(
            &ctx,
            json!({"slug": "midnight", "from": "2026-10-31T23:30:00Z", "to": "2026-11-01T00:30:00Z", "interval": "hour"}),
        )
        .await
        .unwrap();
        assert_eq!(counts(&rounded.visits), (5, 1, 3));

        let daily = read(&ctx, json!({"slug": "midnight", "from": "2026-10-31", "to": "2026-11-02", "visits": 0}))
            .await
            .unwrap();
        let series: Vec<(u64, u64, u64)> = daily.series.iter().map(|b| counts(&b.counts)).collect();
        assert_eq!(series, [(3, 0, 2), (4, 1, 2)]);
        assert!(daily.recent_visits.is_empty());
        assert_eq!(hourly.clicks, 7);

        // A range without visits is zero, not an error.
        let before = read(&ctx, json!({"slug": "midnight", "from": "2026-10-01", "to": "2026-10-03"})).await.unwrap();
        assert_eq!((counts(&before.visits), before.series.len()), ((0, 0, 0), 2));
    }

    #[tokio::test]
    async fn recent_visits_page_back_newest_first() {
        let ctx = Ctx::for_tests();
        link(&ctx, "paged").await;
        for i in 0..7 {
            visit(&ctx, "paged", &format!("2026-11-02T10:0{i}:00Z"), "198.51.100.7", CHROME, None).await;
        }
        settled(&ctx, "paged", 7).await;
        let first = read(&ctx, json!({"slug": "paged", "visits": 3})).await.unwrap();
        let numbers = |s: &ShortUrlStats| s.recent_visits.iter().map(|v| v.number).collect::<Vec<_>>();
        assert_eq!(numbers(&first), [7, 6, 5]);
        assert_eq!(first.recent_visits[0].visit.at, "2026-11-02T10:06:00.000Z");
        assert_eq!(first.next_before, Some(5));
        let second = read(&ctx, json!({"slug": "paged", "visits": 3, "before": 5})).await.unwrap();
        assert_eq!((numbers(&second), second.next_before), (vec![4, 3, 2], Some(2)));
        let last = read(&ctx, json!({"slug": "paged", "visits": 3, "before": 2})).await.unwrap();
        assert_eq!((numbers(&last), last.next_before), (vec![1], None));
        let v = &last.recent_visits[0].visit;
        assert_eq!(
            (v.browser.as_str(), v.os.as_str(), v.device.as_str(), v.bot),
            ("Chrome", "Windows", "desktop", false)
        );
        // Nothing in it names the visitor.
        let json = serde_json::to_string(&first).unwrap();
        assert!(!json.contains("198.51.100.7"), "{json}");
    }

    #[tokio::test]
    async fn ranges_are_checked() {
        let ctx = Ctx::for_tests();
        link(&ctx, "ranged").await;
        let refused = |v: Value| {
            let ctx = ctx.clone();
            async move { read(&ctx, v).await.unwrap_err() }
        };
        let e = refused(json!({"slug": "ranged", "from": "2026-11-02", "to": "2026-11-01"})).await;
        assert_eq!((e.code, e.field.as_deref()), (ErrorCode::ValidationError, Some("to")));
        let e = refused(json!({"slug": "ranged", "from": "yesterday"})).await;
        assert_eq!(e.field.as_deref(), Some("from"));
        let e = refused(json!({"slug": "ranged", "from": "2020-01-01", "to": "2026-01-01", "interval": "hour"})).await;
        assert!(e.message.contains("at most 10000 buckets"), "{}", e.message);
        // 10,000 days fit.
        let wide =
            read(&ctx, json!({"slug": "ranged", "from": "2000-01-01", "to": "2027-05-19", "visits": 0})).await.unwrap();
        assert_eq!(wide.series.len(), 10_000);
        assert_eq!(read(&ctx, json!({"slug": "nothing"})).await.unwrap_err().code, ErrorCode::NotFound);
    }
}
