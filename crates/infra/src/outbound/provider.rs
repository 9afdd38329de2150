//! Third-party data providers, one way: every call to a provider goes through its declaration
//! (`crate::providers`), which knows its settings (`WRENCH_PROVIDER_<ID>_URL` and `_KEY`,
//! `config/providers.rs`), its time limit, the largest answer it reads, how long its answers
//! are kept, and the request budget its published limits allow,
//! counted in the store so that every instance shares it. Answers an operation wants kept are
//! cached in the store too, with the time they were fetched, so every answer can say how old
//! its data is.
//!
//! A provider that refuses with 429 is not asked again until the time it named (`Retry-After`,
//! in seconds or as a date, or the reset time of `X-RateLimit-Reset`, `X-Rate-Limit-Reset` or
//! `RateLimit-Reset`; a minute when it names none, a day at most): the time is kept in the
//! store, so every instance waits, and meanwhile its operations answer 503 PROVIDER_BUSY.
//!
//! Failures are the provider's, never the caller's: 503 PROVIDER_NOT_CONFIGURED naming the
//! setting when it is off or lacks a required key, 503 PROVIDER_BUSY when its budget is spent
//! or it asked to be left alone (with the seconds until then), 502 UPSTREAM_ERROR or 504 UPSTREAM_TIMEOUT naming it
//! when it fails. A key travels in a header or parameter sent only to the provider's origin
//! (redirects elsewhere never carry it) and never into a message.

use std::time::Duration;

use reqwest::header::HeaderMap;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use super::{Chain, OutboundError};
use crate::{
    config::providers::Secret,
    envelope::{ApiError, ErrorCode},
    providers::{Budget, KeyUse, Provider},
    store::Store,
};

/// What a provider call needs of a request's context: the outbound layer (whose settings hold
/// the providers') and the store (cache and budgets). The operation context implements it;
/// this module does not reach up to it.
pub trait Reach: Send + Sync {
    fn net(&self) -> &super::Net;
    fn store(&self) -> &dyn Store;
}

/// A provider's answer, fresh or from the cache.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Answer {
    pub status: u16,
    /// Kept in the cache as text (providers answer JSON or text); an answer that is not UTF-8
    /// is not cached.
    #[serde(with = "text_body")]
    pub body: Vec<u8>,
    /// Unix seconds when the provider gave it.
    pub fetched: i64,
    /// It came from the cache.
    #[serde(skip)]
    pub cached: bool,
}

impl Answer {
    /// The last answer of a chain, fetched now.
    fn of(chain: Chain) -> Answer {
        Answer {
            status: chain.last().map_or(0, |h| h.status),
            body: chain.body.unwrap_or_default(),
            fetched: jiff::Timestamp::now().as_second(),
            cached: false,
        }
    }

    /// When the provider gave it, RFC 3339.
    pub fn fetched_at(&self) -> String {
        jiff::Timestamp::from_second(self.fetched).map(|t| t.to_string()).unwrap_or_default()
    }

    /// The body as JSON, or the provider's malformed-answer error.
    pub fn json(&self, provider: &Provider) -> Result<serde_json::Value, ApiError> {
        serde_json::from_slice(&self.body).map_err(|e| provider.malformed(format!("not JSON ({e})")))
    }
}

impl Provider {
    fn url_setting(&self) -> String {
        format!("WRENCH_PROVIDER_{}_URL", self.id)
    }

    fn key_setting(&self) -> String {
        format!("WRENCH_PROVIDER_{}_KEY", self.id)
    }

    fn budget_setting(&self) -> String {
        format!("WRENCH_PROVIDER_{}_BUDGET", self.id)
    }

    /// The provider's URL, or 503 PROVIDER_NOT_CONFIGURED naming the settings to give.
    pub fn url<'a>(&self, ctx: &'a dyn Reach) -> Result<&'a url::Url, ApiError> {
        let settings = &ctx.net().config.providers;
        let Some(url) = settings.url(self) else {
            let why = if self.default_url.is_some() { "is turned off" } else { "has no default address" };
            return Err(ApiError::new(
                ErrorCode::ProviderNotConfigured,
                format!("{} {why}: set {} to its address", self.name, self.url_setting()),
            ));
        };
        if self.key == KeyUse::Required && settings.key(self).is_none() {
            return Err(ApiError::new(
                ErrorCode::ProviderNotConfigured,
                format!("{} needs a key (free from the provider): set {}", self.name, self.key_setting()),
            ));
        }
        Ok(url)
    }

    /// The key, when one is set.
    pub fn key<'a>(&self, ctx: &'a dyn Reach) -> Option<&'a Secret> {
        ctx.net().config.providers.key(self)
    }

    /// A provider's answer that is not what its API documents.
    pub fn malformed(&self, what: impl std::fmt::Display) -> ApiError {
        ApiError::new(ErrorCode::UpstreamError, format!("{} answered in an unexpected form: {what}", self.name))
    }

    /// A provider's answer with a status its API uses for failure.
    pub fn failed(&self, status: u16) -> ApiError {
        let what = match status {
            401 | 403 => "refused the request; check the key".to_string(),
            429 => "refused more requests for now (429)".to_string(),
            s => format!("answered status {s}"),
        };
        ApiError::new(ErrorCode::UpstreamError, format!("{} ({}) {what}", self.name, self.url_setting()))
    }

    /// `GET url` with `headers` (sent only to the URL's origin), within the provider's budget,
    /// time limit and size cap.
    pub async fn get(&self, ctx: &dyn Reach, url: url::Url, headers: &HeaderMap) -> Result<Answer, ApiError> {
        match self.fetch(ctx, url, headers).await? {
            Ok(answer) => Ok(answer),
            Err(e) => Err(self.blame(e)),
        }
    }

    /// The error that names the provider for an outbound failure.
    pub fn blame(&self, e: OutboundError) -> ApiError {
        let (code, m) = match e {
            OutboundError::Timeout(m) => (ErrorCode::UpstreamTimeout, m),
            other => (ErrorCode::UpstreamError, other.to_string()),
        };
        ApiError::new(code, format!("{} ({}) could not be used: {m}", self.name, self.url_setting()))
    }

    /// [`Provider::get`] with the outbound failure kept apart (an answer too large to read can
    /// be asked for again in a smaller form); the outer error is the budget's.
    pub async fn fetch(
        &self,
        ctx: &dyn Reach,
        url: url::Url,
        headers: &HeaderMap,
    ) -> Result<Result<Answer, OutboundError>, ApiError> {
        self.spend(ctx).await?;
        match ctx.net().get_limited(url, headers, self.timeout, self.max_bytes).await {
            Ok(chain) => self.answer(ctx, chain).await.map(Ok),
            Err(e) => Ok(Err(e)),
        }
    }

    /// The answer of a chain; a 429 marks the provider busy until the time it named, and is
    /// 503 PROVIDER_BUSY.
    async fn answer(&self, ctx: &dyn Reach, chain: Chain) -> Result<Answer, ApiError> {
        if let Some(last) = chain.last().filter(|h| h.status == 429) {
            let now = jiff::Timestamp::now().as_second();
            let wait = retry_after(&last.headers, now).unwrap_or(DEFAULT_BACK_OFF).clamp(1, MAX_BACK_OFF);
            let until = now + wait as i64;
            if let Err(e) =
                ctx.store().put(&self.busy_key(), until.to_string().as_bytes(), Some(Duration::from_secs(wait))).await
            {
                tracing::debug!(error = %e, provider = self.id, "a provider's back-off could not be kept");
            }
            tracing::info!(
                provider = self.id,
                seconds = wait,
                "a provider refused with 429; not asking it again until then"
            );
            return Err(self.backing_off(wait));
        }
        Ok(Answer::of(chain))
    }

    fn busy_key(&self) -> String {
        format!("busy:{}", self.id.to_ascii_lowercase())
    }

    /// 503 PROVIDER_BUSY for `seconds` more of the provider's own 429 back-off.
    fn backing_off(&self, seconds: u64) -> ApiError {
        ApiError::new(
            ErrorCode::ProviderBusy,
            format!("{} asked this service to wait (429); it is not asked again for {seconds} s", self.name),
        )
        .with_retry_after(seconds)
    }

    /// 503 PROVIDER_BUSY while the provider's last 429 asks for patience (on any instance).
    async fn check_back_off(&self, ctx: &dyn Reach) -> Result<(), ApiError> {
        let until = match ctx.store().get(&self.busy_key()).await {
            Ok(Some(v)) => std::str::from_utf8(&v).ok().and_then(|t| t.parse::<i64>().ok()),
            Ok(None) => None,
            Err(e) => {
                tracing::debug!(error = %e, provider = self.id, "a provider's back-off could not be read");
                None
            }
        };
        let now = jiff::Timestamp::now().as_second();
        match until {
            Some(until) if until > now => Err(self.backing_off((until - now) as u64)),
            _ => Ok(()),
        }
    }

    /// A form POST to `url`, within the provider's budget, time limit and size cap.
    pub async fn post_form(
        &self,
        ctx: &dyn Reach,
        url: url::Url,
        headers: &HeaderMap,
        form: &[(&str, &str)],
    ) -> Result<Answer, ApiError> {
        self.spend(ctx).await?;
        let chain = ctx
            .net()
            .post_form_limited(url, headers, form, self.timeout, self.max_bytes)
            .await
            .map_err(|e| self.blame(e))?;
        self.answer(ctx, chain).await
    }

    /// [`Provider::get`] through the store's cache: an answer kept under `key` (a provider's
    /// answer with a status `keep` accepts) is reused for the provider's `cache_for`.
    pub async fn get_cached(
        &self,
        ctx: &dyn Reach,
        key: &str,
        url: url::Url,
        headers: &HeaderMap,
        keep: impl Fn(u16) -> bool,
    ) -> Result<Answer, ApiError> {
        let key = format!("cache:{}:{key}", self.id.to_ascii_lowercase());
        if let Some(bytes) = cached(ctx, &key).await
            && let Ok(mut answer) = serde_json::from_slice::<Answer>(&bytes)
        {
            answer.cached = true;
            return Ok(answer);
        }
        let answer = self.get(ctx, url, headers).await?;
        if keep(answer.status)
            && let Ok(bytes) = serde_json::to_vec(&answer)
        {
            self.remember(ctx, &key, &bytes).await;
        }
        Ok(answer)
    }

    /// Keeps `value` under the store key `key` for the provider's `cache_for` (nothing when it
    /// keeps no answers); a failing store is logged and otherwise ignored.
    pub async fn remember(&self, ctx: &dyn Reach, key: &str, value: &[u8]) {
        if let Some(ttl) = self.cache_for {
            remember(ctx, key, value, ttl).await;
        }
    }

    /// [`Provider::get_cached`] for a provider whose key travels as the query parameter
    /// `param` (when one is set): the cache is keyed by a digest of the URL without it, so the
    /// key never becomes part of a store key. Answers with status 200 are kept.
    pub async fn get_cached_key_in_query(
        &self,
        ctx: &dyn Reach,
        mut url: url::Url,
        param: &str,
    ) -> Result<Answer, ApiError> {
        let cache_key = hex::encode(Sha256::digest(url.as_str().as_bytes()));
        if let Some(key) = self.key(ctx) {
            url.query_pairs_mut().append_pair(param, key.expose());
        }
        self.get_cached(ctx, &cache_key, url, &HeaderMap::new(), |s| s == 200).await
    }

    /// Counts one request against the budget, or answers 503 PROVIDER_BUSY with the seconds
    /// until the budget renews. A store that cannot count does not stop the request: the
    /// provider's own limit is then the brake, and its refusal is reported as such.
    /// The operator's `WRENCH_PROVIDER_<ID>_BUDGET`, when set, replaces the published budgets.
    async fn spend(&self, ctx: &dyn Reach) -> Result<(), ApiError> {
        self.check_back_off(ctx).await?;
        if let Some(own) = ctx.net().config.providers.budget(self) {
            for &(limit, window) in own {
                self.spend_one(ctx, &Budget { limit, window, without_key_only: false }, "as configured").await?;
            }
            return Ok(());
        }
        for budget in self.budgets {
            if budget.without_key_only && self.key(ctx).is_some() {
                continue;
            }
            self.spend_one(ctx, budget, "as its published limits allow").await?;
        }
        Ok(())
    }

    async fn spend_one(&self, ctx: &dyn Reach, budget: &Budget, why: &str) -> Result<(), ApiError> {
        let (limit, window, what) = (budget.limit, budget.window, budget.unit());
        let now = jiff::Timestamp::now().as_second().max(0) as u64;
        let index = now / window;
        let renews = (index + 1) * window - now;
        let key = format!("budget:{}:{what}:{index}", self.id.to_ascii_lowercase());
        match ctx.store().incr(&key, Some(Duration::from_secs(window + 60))).await {
            Ok((n, _)) if n > i64::from(limit) => Err(ApiError::new(
                ErrorCode::ProviderBusy,
                format!(
                    "{} takes {limit} requests a {what} from this service, {why} ({}), and they are spent; \
                     the budget renews in {renews} s",
                    self.name,
                    self.budget_setting()
                ),
            )
            .with_retry_after(renews)),
            Ok(_) => Ok(()),
            Err(e) => {
                tracing::debug!(error = %e, provider = self.id, "a provider budget could not be counted");
                Ok(())
            }
        }
    }
}

/// How long a provider that answered 429 without saying for how long is left alone, in seconds.
const DEFAULT_BACK_OFF: u64 = 60;
/// The longest a provider's 429 can make wrench wait, in seconds: a day.
const MAX_BACK_OFF: u64 = 86_400;

/// The seconds a 429 answer asks to wait, from its headers: `Retry-After` (seconds, or an HTTP
/// date; RFC 9110 section 10.2.3), else the reset of `X-RateLimit-Reset`, `X-Rate-Limit-Reset`
/// or `RateLimit-Reset`, read as Unix seconds when it is past 2001 and as seconds to wait
/// otherwise (APIs send both). `now` is Unix seconds.
fn retry_after(headers: &HeaderMap, now: i64) -> Option<u64> {
    let value = |name: &str| headers.get(name).and_then(|v| v.to_str().ok()).map(str::trim);
    if let Some(v) = value("retry-after") {
        if let Ok(seconds) = v.parse::<u64>() {
            return Some(seconds);
        }
        if let Ok(at) = jiff::fmt::rfc2822::parse(v).map(|z| z.timestamp()) {
            return Some((at.as_second() - now).max(0) as u64);
        }
    }
    ["x-ratelimit-reset", "x-rate-limit-reset", "ratelimit-reset"].iter().find_map(|name| {
        let n = value(name)?.split(['.', ',', ';']).next()?.trim().parse::<i64>().ok()?;
        Some(if n > 1_000_000_000 { (n - now).max(0) as u64 } else { n.max(0) as u64 })
    })
}

/// A body as a JSON string rather than an array of numbers, four times smaller in the store.
mod text_body {
    use serde::{Deserialize, Deserializer, Serializer, de::Error as _, ser::Error as _};

    pub fn serialize<S: Serializer>(body: &[u8], s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(std::str::from_utf8(body).map_err(|_| S::Error::custom("a body that is not UTF-8"))?)
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<u8>, D::Error> {
        String::deserialize(d).map(String::into_bytes).map_err(D::Error::custom)
    }
}

/// A cached answer under `key`, if the store has one and can be asked.
pub async fn cached(ctx: &dyn Reach, key: &str) -> Option<Vec<u8>> {
    match ctx.store().get(key).await {
        Ok(v) => v,
        Err(e) => {
            tracing::debug!(error = %e, "a provider cache read failed; asking the provider");
            None
        }
    }
}

/// Keeps `value` under `key` for `ttl`; a failing store is logged and otherwise ignored.
async fn remember(ctx: &dyn Reach, key: &str, value: &[u8], ttl: Duration) {
    if let Err(e) = ctx.store().put(key, value, Some(ttl)).await {
        tracing::debug!(error = %e, "a provider answer could not be cached");
    }
}

/// Waits for a turn to call provider `name`, which may receive `per_second` requests a second
/// from every instance together: turns are the boundaries of 1/`per_second`-second intervals,
/// each claimed by one request through a counter in the store (shared by instances), so two
/// requests never start closer than one interval apart. Returns once the claimed turn has
/// come; an error when no turn is free before `deadline`, or when the store cannot count (then
/// the provider is not called at all rather than called without a budget).
pub async fn take_turn(
    ctx: &dyn Reach,
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
        match ctx.store().incr(&key, Some(Duration::from_millis(interval_ms) + Duration::from_secs(5))).await {
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

    #[test]
    fn the_wait_a_429_asks_for_is_read_from_any_of_its_headers() {
        let at = |pairs: &[(&'static str, &str)]| {
            let mut h = HeaderMap::new();
            for (k, v) in pairs {
                h.insert(*k, v.parse().unwrap());
            }
            retry_after(&h, 1_445_412_480)
        };
        assert_eq!(at(&[("retry-after", "120")]), Some(120));
        // RFC 9110's own example date, 60 s after `now`.
        assert_eq!(at(&[("retry-after", "Wed, 21 Oct 2015 07:29:00 GMT")]), Some(60));
        assert_eq!(at(&[("retry-after", "Wed, 21 Oct 2015 07:00:00 GMT")]), Some(0));
        assert_eq!(at(&[("x-rate-limit-reset", "1445412780")]), Some(300));
        assert_eq!(at(&[("x-ratelimit-reset", "30")]), Some(30));
        assert_eq!(at(&[("ratelimit-reset", "7")]), Some(7));
        assert_eq!(at(&[("retry-after", "soon"), ("x-ratelimit-reset", "9")]), Some(9));
        assert_eq!(at(&[]), None);
    }

    #[tokio::test]
    async fn turns_are_one_interval_apart_and_end_at_the_deadline() {
        // What an operation's context gives a provider call: the outbound layer and a store.
        struct Both(super::super::Net, crate::store::embedded::EmbeddedStore);
        impl Reach for Both {
            fn net(&self) -> &super::super::Net {
                &self.0
            }
            fn store(&self) -> &dyn Store {
                &self.1
            }
        }
        let both = Both(
            super::super::Net::new(&Default::default(), "http://test").unwrap(),
            crate::store::embedded::EmbeddedStore::in_memory().unwrap(),
        );
        let ctx: &dyn Reach = &both;
        let deadline = tokio::time::Instant::now() + Duration::from_millis(1_100);
        let mut started = Vec::new();
        let refusal = loop {
            match take_turn(ctx, "test-turns", 4, deadline).await {
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
                take_turn(ctx, "test-shared", 2, deadline).await.unwrap();
                std::time::Instant::now()
            },
            async {
                take_turn(ctx, "test-shared", 2, deadline).await.unwrap();
                std::time::Instant::now()
            }
        );
        let gap = if a > b { a - b } else { b - a };
        assert!(gap >= Duration::from_millis(490), "{gap:?}");
    }
}
