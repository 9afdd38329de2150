//! The live geocoder (`WRENCH_PROVIDER_GEOCODER_URL`): a Nominatim-compatible service asked
//! for street-level answers by `geo/geocode`, `geo/batch`, `geo/reverse` and
//! `address/validate`, which answer from the offline places index when it is off, busy,
//! failing or finds nothing, and say why in `notice`.
//!
//! The public Nominatim's usage policy is kept by construction: an identifying User-Agent
//! (the outbound layer's), at most `WRENCH_PROVIDER_GEOCODER_RATE` requests a second across
//! every instance (turns claimed in the store, `provider::take_turn`), no request waits more
//! than [`MAX_WAIT`] for its turn, and every answer is cached in the store for the provider's `cache_for`
//! under a digest of the question, so the address itself is not a store key. Requests use the
//! documented `search` and `reverse` endpoints with `format=jsonv2&addressdetails=1` and
//! English names (`accept-language=en`), as the rest of the answers are English.

use std::time::Duration;

use reqwest::header::HeaderMap;
use sha2::{Digest, Sha256};

use wrench_contract::prelude::*;
use wrench_infra::{outbound::provider, providers::GEOCODER};

/// The longest one request waits, in all, for turns of the geocoder's budget.
pub const MAX_WAIT: Duration = Duration::from_secs(2);
/// OpenStreetMap's attribution, used when an answer does not carry its own `licence`.
const OSM_ATTRIBUTION: &str = "Data © OpenStreetMap contributors, ODbL 1.0. https://osm.org/copyright";

/// Where an answer came from, in every geocoding answer.
#[derive(Debug, Serialize, JsonSchema, Clone)]
#[serde(rename_all = "camelCase")]
pub struct Origin {
    /// `live: <geocoder host>` for the live geocoder, or the offline index and its version.
    pub source: String,
    /// The credit the data's licence requires.
    pub attribution: String,
    /// When the live geocoder gave this answer (answers are cached for 7 days); null offline.
    pub fetched_at: Option<String>,
    /// Why the answer is offline and city-level although a live geocoder may be configured
    /// (off, its budget of requests spent, failing, or nothing found); null for live answers.
    pub notice: Option<String>,
}

impl Origin {
    /// An answer of the offline index, for the reason `why` there is no live one.
    pub fn offline(why: &str) -> Origin {
        Origin {
            source: crate::geo::places::SOURCE.to_string(),
            attribution: crate::geo::places::ATTRIBUTION.to_string(),
            fetched_at: None,
            notice: Some(format!("{why}; city-level answer from the offline index")),
        }
    }
}

/// One place as the live geocoder describes it.
#[derive(Debug, Serialize, Deserialize, Clone, PartialEq)]
pub struct Hit {
    pub name: String,
    pub display_name: String,
    pub lat: f64,
    pub lng: f64,
    /// `way/123`.
    pub osm_id: Option<String>,
    /// Nominatim's `addresstype` (`house`, `road`, `city`...).
    pub kind: String,
    /// `house`, `street`, `postcode`, `neighbourhood`, `city`, `region` or `country`.
    pub precision: String,
    pub house_number: Option<String>,
    pub street: Option<String>,
    pub postal_code: Option<String>,
    pub city: Option<String>,
    pub region: Option<String>,
    /// The ISO 3166-2 subdivision code without its country prefix (`CA` of `US-CA`).
    pub region_code: Option<String>,
    pub country: Option<String>,
    /// ISO 3166-1 alpha-2, upper case.
    pub country_code: Option<String>,
}

/// The geocoder's answer to one question.
#[derive(Debug, Serialize, Deserialize, Clone)]
pub struct Answer {
    pub hits: Vec<Hit>,
    pub licence: String,
    /// Unix seconds of the provider's answer.
    pub fetched: i64,
    /// The geocoder's host, for `source`.
    pub host: String,
}

impl Answer {
    pub fn origin(&self) -> Origin {
        Origin {
            source: format!("live: {}", self.host),
            attribution: self.licence.clone(),
            fetched_at: jiff::Timestamp::from_second(self.fetched).ok().map(|t| t.to_string()),
            notice: None,
        }
    }
}

/// A question for the geocoder.
pub enum Question<'a> {
    Search { text: &'a str, country: Option<&'a str>, limit: usize },
    Reverse { lat: f64, lng: f64 },
}

/// One request's allowance of the geocoder, shared by its questions (the 10 of a batch): at
/// most [`MAX_WAIT`] waiting for turns, and one outbound timeout (`WRENCH_OUTBOUND_TIMEOUT`)
/// for all its answers together; after a failure its remaining questions are not asked.
pub struct Session {
    turns_until: tokio::time::Instant,
    answers_until: tokio::time::Instant,
    failed: std::sync::Mutex<Option<String>>,
}

impl Session {
    pub fn new(ctx: &Ctx) -> Session {
        let now = tokio::time::Instant::now();
        Session {
            turns_until: now + MAX_WAIT,
            answers_until: now + ctx.config.outbound.timeout,
            failed: std::sync::Mutex::new(None),
        }
    }

    fn failure(&self) -> Option<String> {
        self.failed.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }

    fn fail(&self, why: &str) -> String {
        *self.failed.lock().unwrap_or_else(|e| e.into_inner()) = Some(why.to_string());
        why.to_string()
    }
}

/// How long a geocoder that failed is left alone before it is asked again, so that while it
/// is down requests answer offline at once instead of each waiting for its timeout.
const REST_AFTER_FAILURE: Duration = Duration::from_secs(30);

/// Geocoders (by base URL) that failed, with when and why.
static FAILED: std::sync::Mutex<Vec<(String, std::time::Instant, String)>> = std::sync::Mutex::new(Vec::new());

fn resting(base: &url::Url) -> Option<String> {
    let failed = FAILED.lock().unwrap_or_else(|e| e.into_inner());
    failed.iter().find(|(url, at, _)| url == base.as_str() && at.elapsed() < REST_AFTER_FAILURE).map(|(_, at, why)| {
        format!(
            "{why} ({} s ago); it is left alone for {} s and was not asked",
            at.elapsed().as_secs(),
            REST_AFTER_FAILURE.as_secs()
        )
    })
}

fn remember_failure(base: &url::Url, why: &str) {
    let mut failed = FAILED.lock().unwrap_or_else(|e| e.into_inner());
    failed.retain(|(url, at, _)| url != base.as_str() && at.elapsed() < REST_AFTER_FAILURE);
    failed.push((base.to_string(), std::time::Instant::now(), why.to_string()));
}

fn text(v: &Value) -> Option<String> {
    v.as_str().map(str::trim).filter(|s| !s.is_empty()).map(str::to_string)
}

/// How precise a jsonv2 place is, from its address rank and type.
fn precision(item: &Value) -> &'static str {
    let rank = item["place_rank"].as_u64().unwrap_or(0);
    if item["addresstype"] == "postcode" || item["type"] == "postcode" {
        return "postcode";
    }
    if item["address"]["house_number"].is_string() && rank >= 26 {
        return "house";
    }
    match rank {
        26.. => "street",
        20..=25 => "neighbourhood",
        13..=19 => "city",
        5..=12 => "region",
        _ => "country",
    }
}

/// The name of a place the geocoder does not name (most buildings): its display name's first
/// part, and the next (the street) when the first is the house number: `10, Downing Street`.
fn unnamed(display_name: &str, address: &Value) -> String {
    let mut parts = display_name.split(',').map(str::trim);
    let first = parts.next().unwrap_or_default();
    match parts.next() {
        Some(second) if address["house_number"].as_str() == Some(first) => format!("{first}, {second}"),
        _ => first.to_string(),
    }
}

/// One jsonv2 place (search results and the reverse answer share the form).
fn hit(item: &Value) -> Option<Hit> {
    let lat: f64 = item["lat"].as_str()?.parse().ok().filter(|v: &f64| (-90.0..=90.0).contains(v))?;
    let lng: f64 = item["lon"].as_str()?.parse().ok().filter(|v: &f64| (-180.0..=180.0).contains(v))?;
    let display_name = text(&item["display_name"])?;
    let a = &item["address"];
    let country_code = text(&a["country_code"]).map(|c| c.to_ascii_uppercase());
    let region_code = text(&a["ISO3166-2-lvl4"]).and_then(|c| c.split_once('-').map(|(_, r)| r.to_string()));
    let city = ["city", "town", "village", "municipality", "hamlet"].iter().find_map(|k| text(&a[*k]));
    let street = ["road", "pedestrian", "footway", "street", "place"].iter().find_map(|k| text(&a[*k]));
    let osm_id = match (text(&item["osm_type"]), &item["osm_id"]) {
        (Some(t), Value::Number(n)) => Some(format!("{t}/{n}")),
        (Some(t), Value::String(n)) => Some(format!("{t}/{n}")),
        _ => None,
    };
    Some(Hit {
        name: text(&item["name"]).unwrap_or_else(|| unnamed(&display_name, a)),
        lat: (lat * 1e5).round() / 1e5,
        lng: (lng * 1e5).round() / 1e5,
        osm_id,
        kind: text(&item["addresstype"]).or_else(|| text(&item["type"])).unwrap_or_else(|| "place".to_string()),
        precision: precision(item).to_string(),
        house_number: text(&a["house_number"]),
        street,
        postal_code: text(&a["postcode"]),
        city,
        region: text(&a["state"]),
        region_code,
        country: text(&a["country"]),
        country_code,
        display_name,
    })
}

/// The URL of a question under the geocoder's base.
fn url_of(base: &url::Url, question: &Question) -> Result<url::Url, ApiError> {
    let mut url = base
        .join(match question {
            Question::Search { .. } => "search",
            Question::Reverse { .. } => "reverse",
        })
        .map_err(|e| GEOCODER.malformed(e))?;
    {
        let mut q = url.query_pairs_mut();
        match question {
            Question::Search { text, country, limit } => {
                q.append_pair("q", text).append_pair("limit", &limit.to_string());
                if let Some(c) = country {
                    q.append_pair("countrycodes", &c.to_ascii_lowercase());
                }
            }
            Question::Reverse { lat, lng } => {
                q.append_pair("lat", &lat.to_string()).append_pair("lon", &lng.to_string()).append_pair("zoom", "18");
            }
        }
        q.append_pair("format", "jsonv2").append_pair("addressdetails", "1").append_pair("accept-language", "en");
    }
    Ok(url)
}

/// The geocoder's answer to `question`, from the cache or the geocoder; `Err` is why there is
/// none, in words for a `notice` (`the live geocoder was not asked: ...`).
pub async fn ask(ctx: &Ctx, session: &Session, question: Question<'_>) -> Result<Answer, String> {
    let providers = &ctx.config.outbound.providers;
    let Some(base) = providers.url(&GEOCODER) else {
        return Err("the live geocoder is off (WRENCH_PROVIDER_GEOCODER_URL)".to_string());
    };
    // Our own reasons are worded after this prefix; the outbound layer's messages (`ApiError`s
    // of `GEOCODER`) already name the geocoder and its setting, and are used as they are.
    let offline = |why: String| format!("the live geocoder {why}");
    let url = url_of(base, &question).map_err(|e: ApiError| e.message.to_string())?;
    let key = format!("cache:geocoder:{}", hex::encode(Sha256::digest(url.as_str().as_bytes())));
    if let Some(hit) = provider::cached(ctx, &key).await
        && let Ok(answer) = serde_json::from_slice::<Answer>(&hit)
    {
        return Ok(answer);
    }
    if let Some(why) = session.failure() {
        return Err(why);
    }
    if let Some(why) = resting(base) {
        return Err(why);
    }
    provider::take_turn(ctx, "geocoder", providers.geocoder_rate, session.turns_until).await.map_err(|why| {
        offline(format!(
            "was not asked: {why} (WRENCH_PROVIDER_GEOCODER_RATE, waiting at most {} s)",
            MAX_WAIT.as_secs()
        ))
    })?;
    // A failure is remembered in the words of its notice, which the notices of the requests
    // that then leave the geocoder alone quote.
    let failed = |notice: String| {
        remember_failure(base, &notice);
        session.fail(&notice)
    };
    let no_headers = HeaderMap::new();
    let fetch = GEOCODER.get(ctx, url, &no_headers);
    let (status, body) = match tokio::time::timeout_at(session.answers_until, fetch).await {
        Ok(Ok(answer)) => (answer.status, answer.body),
        Ok(Err(e)) => return Err(failed(e.message.to_string())),
        Err(_) => {
            return Err(session.fail(&offline(format!(
                "did not answer within the request's {} s (WRENCH_OUTBOUND_TIMEOUT)",
                ctx.config.outbound.timeout.as_secs()
            ))));
        }
    };
    if status != 200 {
        return Err(failed(offline(format!("answered status {status}"))));
    }
    let v: Value =
        serde_json::from_slice(&body).map_err(|e| failed(offline(format!("answered something not JSON ({e})"))))?;
    let items: Vec<&Value> = match (&question, &v) {
        (Question::Search { .. }, Value::Array(items)) => items.iter().collect(),
        // A reverse question with nothing at the point is answered `{"error": "Unable to geocode"}`.
        (Question::Reverse { .. }, Value::Object(o)) if o.contains_key("error") => Vec::new(),
        (Question::Reverse { .. }, Value::Object(_)) => vec![&v],
        _ => return Err(failed(offline("answered in an unexpected form".to_string()))),
    };
    let licence = items.iter().find_map(|i| text(&i["licence"])).unwrap_or_else(|| OSM_ATTRIBUTION.to_string());
    let answer = Answer {
        hits: items.into_iter().filter_map(hit).collect(),
        licence,
        fetched: jiff::Timestamp::now().as_second(),
        host: base.host_str().unwrap_or_default().to_string(),
    };
    if let Ok(bytes) = serde_json::to_vec(&answer) {
        GEOCODER.remember(ctx, &key, &bytes).await;
    }
    Ok(answer)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn jsonv2_places_read_with_their_precision() {
        // The form of Nominatim's documented jsonv2 answer (the values are a fixture's).
        let house: Value = serde_json::json!({
            "place_id": 1, "licence": OSM_ATTRIBUTION, "osm_type": "way", "osm_id": 1879842,
            "lat": "51.5033635", "lon": "-0.1276248", "category": "building", "type": "house",
            "place_rank": 30, "importance": 0.5, "addresstype": "building", "name": "",
            "display_name": "10, Downing Street, Westminster, London, SW1A 2AA, United Kingdom",
            "address": {"house_number": "10", "road": "Downing Street", "city": "London",
                        "state": "England", "ISO3166-2-lvl4": "GB-ENG", "postcode": "SW1A 2AA",
                        "country": "United Kingdom", "country_code": "gb"}});
        let h = hit(&house).unwrap();
        assert_eq!(
            (h.precision.as_str(), h.name.as_str(), h.osm_id.as_deref()),
            ("house", "10, Downing Street", Some("way/1879842"))
        );
        assert_eq!((h.region_code.as_deref(), h.country_code.as_deref()), (Some("ENG"), Some("GB")));
        assert_eq!((h.lat, h.lng), (51.50336, -0.12762));
        for (rank, kind, want) in
            [(26, "road", "street"), (16, "city", "city"), (8, "state", "region"), (4, "country", "country")]
        {
            let v = serde_json::json!({"lat": "1", "lon": "2", "display_name": "X", "place_rank": rank,
                                       "addresstype": kind, "address": {}});
            assert_eq!(hit(&v).unwrap().precision, want, "{kind}");
        }
        let postcode = serde_json::json!({"lat": "1", "lon": "2", "display_name": "SW1A 2AA",
                                          "place_rank": 25, "addresstype": "postcode", "address": {}});
        assert_eq!(hit(&postcode).unwrap().precision, "postcode");
        // Coordinates out of range or missing make no place.
        assert!(hit(&serde_json::json!({"lat": "91", "lon": "0", "display_name": "X"})).is_none());
        assert!(hit(&serde_json::json!({"display_name": "X"})).is_none());
    }
}
