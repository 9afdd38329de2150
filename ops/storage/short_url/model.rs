//! A short link as the store holds it: its keys (`link:{slug}` for the record, with the click
//! counter and the last click beside it), the record, the redirect status it keeps, the shape a
//! slug may have, and finding a link by its slug. Every short-link file reads links through
//! this one.

use wrench_contract::prelude::*;
use wrench_infra::{config::Config, store::gated, time};

/// Length bounds of a slug, generated or custom.
pub(in crate::storage) const SLUG_MIN: usize = 3;
pub(in crate::storage) const SLUG_MAX: usize = 64;

/// The absolute short URL of `slug`: the short base and the slug when one is set, else the
/// redirect route under the public URL.
pub(in crate::storage) fn short_url(config: &Config, slug: &str) -> String {
    match &config.short_url_base {
        Some(base) => format!("{base}{slug}"),
        None => format!("{}/v1/short-url/r/{slug}", config.public_base()),
    }
}

pub(in crate::storage) fn key(slug: &str) -> String {
    format!("link:{{{slug}}}")
}
pub(in crate::storage) fn clicks_key(slug: &str) -> String {
    format!("link:{{{slug}}}:clicks")
}
pub(in crate::storage) fn last_click_key(slug: &str) -> String {
    format!("link:{{{slug}}}:last")
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub(in crate::storage) struct LinkRecord {
    pub url: String,
    pub created_at: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub valid_since: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub valid_until: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_visits: Option<u64>,
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub forward_query: bool,
    #[serde(default = "found", skip_serializing_if = "is_found")]
    pub redirect_status: u16,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tags: Vec<String>,
    /// SHA-256 (hex) of the manage token; links made before they had one have none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub manage_token_sha256: Option<String>,
}

fn found() -> u16 {
    302
}

fn is_found(status: &u16) -> bool {
    *status == 302
}

impl LinkRecord {
    /// The record as stored: behind a gate when it has a period or a visit limit, with
    /// `visited` visits already made.
    pub(in crate::storage) fn stored(&self, visited: u64) -> Result<Vec<u8>, ApiError> {
        let json = serde_json::to_vec(self).map_err(|e| ApiError::internal(e.to_string()))?;
        if self.valid_since.is_none() && self.valid_until.is_none() && self.max_visits.is_none() {
            return Ok(json);
        }
        let ms = |t: &Option<String>| {
            t.as_deref().and_then(|t| time::parse_iso(t).ok()).map_or(0, |t| t.as_millisecond().max(1) as u64)
        };
        let gate = gated::Gate {
            since_ms: ms(&self.valid_since),
            until_ms: ms(&self.valid_until),
            left: self.max_visits.map(|m| m.saturating_sub(visited)),
        };
        Ok(gated::gated(&gate, &json))
    }

    /// Why a closed link is closed, for its 410.
    pub(in crate::storage) fn closed_because(&self, now: jiff::Timestamp) -> String {
        let at = |t: &Option<String>| t.as_deref().and_then(|t| time::parse_iso(t).ok());
        if let Some(since) = at(&self.valid_since).filter(|s| now < *s) {
            return format!("this link opens at {since}");
        }
        if let Some(until) = at(&self.valid_until).filter(|u| now >= *u) {
            return format!("this link expired at {until}");
        }
        match self.max_visits {
            Some(n) => format!("this link has had its {n} visits"),
            None => "this link is closed".to_string(),
        }
    }
}

/// The status a link redirects with.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq, Eq)]
#[serde(try_from = "u16", into = "u16")]
pub(in crate::storage) struct RedirectStatus(pub u16);

impl TryFrom<u16> for RedirectStatus {
    type Error = String;
    fn try_from(n: u16) -> Result<Self, String> {
        if [301, 302, 307, 308].contains(&n) {
            Ok(RedirectStatus(n))
        } else {
            Err(format!("{n} is not 301, 302, 307 or 308"))
        }
    }
}

impl From<RedirectStatus> for u16 {
    fn from(s: RedirectStatus) -> u16 {
        s.0
    }
}

impl JsonSchema for RedirectStatus {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "RedirectStatus".into()
    }

    fn inline_schema() -> bool {
        true
    }

    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({"type": "integer", "enum": [301, 302, 307, 308]})
    }
}

impl Validate for RedirectStatus {
    fn validate(&self, _: &str) -> Result<(), wrench_contract::validate::FieldError> {
        Ok(())
    }
}

/// Why `slug` has a shape no link can have (length, characters), if it has.
pub(in crate::storage) fn shape_problem(slug: &str) -> Option<String> {
    let n = slug.chars().count();
    if !(SLUG_MIN..=SLUG_MAX).contains(&n) {
        return Some(format!("must be {SLUG_MIN} to {SLUG_MAX} characters long (got {n})"));
    }
    slug.chars()
        .find(|c| !(c.is_ascii_alphanumeric() || *c == '-' || *c == '_'))
        .map(|c| format!("may contain only letters, digits, - and _ (found {c:?})"))
}

#[derive(Debug, Deserialize, JsonSchema, Validate)]
#[serde(deny_unknown_fields)]
pub(in crate::storage) struct SlugInput {
    /// The link's slug. Any slug that is not a link (of any shape) is 404 `NOT_FOUND`.
    #[schemars(length(min = 1, max = 256))]
    pub slug: String,
}

/// The link at `slug` (not a visit): its record and its gate's uses left.
pub(in crate::storage) async fn find(ctx: &Ctx, slug: &str) -> Result<(LinkRecord, Option<gated::Gate>), ApiError> {
    lookable(slug)?;
    let stored = ctx.store.get(&key(slug)).await?.ok_or_else(|| missing(slug))?;
    let (gate, json) = gated::split(&stored);
    Ok((read(json)?, gate))
}

/// Only slugs that could have been created are looked up; any other shape is 404 at once.
/// (Reserved words are not checked here: a generated slug could in principle spell one.)
pub(in crate::storage) fn lookable(slug: &str) -> Result<(), ApiError> {
    match shape_problem(slug) {
        Some(_) => Err(missing(slug)),
        None => Ok(()),
    }
}

pub(in crate::storage) fn missing(slug: &str) -> ApiError {
    ApiError::not_found(format!("no short link {slug:?}"))
}

pub(in crate::storage) fn read(raw: &[u8]) -> Result<LinkRecord, ApiError> {
    serde_json::from_slice(raw).map_err(|e| ApiError::internal(format!("stored link unreadable: {e}")))
}
