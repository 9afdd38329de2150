//! Places from text and text from places: `geo/geocode`, `geo/batch` and `geo/reverse`,
//! and the matching shared by `address/validate` (`address.rs`).
//!
//! Street-level answers come from the live geocoder (`geocoder.rs`) when it is configured and
//! answers; otherwise, and whenever it is busy, failing or finds nothing, from the embedded
//! world-cities index (`places.rs`), which knows places, not streets, and every answer's
//! `notice` says why. Offline, a query is read as a place name followed by qualifiers
//! (`Paris, France`, `Springfield, IL`, `Paris FR`): a qualifier is a country (code or English
//! name) or a first-level subdivision code.
//!
//! The `confidence` of a result (0 to 1) says how sure the match is, by a fixed table.
//! Offline: 0.9 the name and every qualifier match; 0.7 the name matches and is the only place
//! of that name, or ten times larger than the next; 0.5 the name matches but other places share
//! it; 0.3 only the start of the name matched. Live, in the geocoder's order: 0.9 for its first
//! result when the query named a country or it is the only result, 0.7 for its first result
//! otherwise, 0.5 for the others.

use wrench_contract::prelude::*;
use wrench_infra::datasets::countries;
use wrench_kit::geo::geocoder::{self, Hit, Origin, Question, Session};
use wrench_kit::geo::places::{ATTRIBUTION, Index, Place, SOURCE, country_in, index};

/// Most results of one query.
const MAX_LIMIT: usize = 10;
/// Most addresses of one batch.
const MAX_BATCH: usize = 10;

#[derive(Debug, Serialize, JsonSchema, Clone)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Found {
    pub name: String,
    /// The whole address as the live geocoder writes it; null offline.
    pub display_name: Option<String>,
    /// Live answers only, where the geocoder has them.
    pub house_number: Option<String>,
    pub street: Option<String>,
    pub postal_code: Option<String>,
    /// The city, town or village (offline: the place itself).
    pub city: Option<String>,
    /// The first-level subdivision's name (live answers).
    pub region: Option<String>,
    /// The first-level subdivision's code: GeoNames' offline (`CA` for California, `11` for
    /// Île-de-France), ISO 3166-2's without the country prefix live (`CA`, `IDF`).
    pub region_code: Option<String>,
    /// ISO 3166-1 alpha-2.
    pub country_code: String,
    pub country: Option<String>,
    pub latitude: f64,
    pub longitude: f64,
    /// Inhabitants (offline answers).
    pub population: Option<u64>,
    /// The GeoNames id (offline answers).
    pub geoname_id: Option<u32>,
    /// The OpenStreetMap object (`way/123`, live answers).
    pub osm_id: Option<String>,
    /// Offline `capital`, `seat` (of a subdivision) or `place`; live the geocoder's address
    /// type (`building`, `road`, `city`...).
    pub kind: String,
    /// 0 to 1, by the table in the operation's description.
    pub confidence: f64,
    /// `house`, `street`, `postcode`, `neighbourhood`, `city`, `region` or `country`; always
    /// `city` offline.
    pub precision: String,
}

pub(in crate::lookups) fn found(p: &Place, confidence: f64) -> Found {
    Found {
        name: p.name().to_string(),
        display_name: None,
        house_number: None,
        street: None,
        postal_code: None,
        city: Some(p.name().to_string()),
        region: None,
        region_code: (!p.admin1().is_empty()).then(|| p.admin1().to_string()),
        country: countries::by_code(p.country()).map(|c| c.name.to_string()),
        country_code: p.country().to_string(),
        latitude: p.lat(),
        longitude: p.lng(),
        population: Some(p.population()),
        geoname_id: Some(p.geoname_id),
        osm_id: None,
        kind: match p.feature() {
            "PPLC" => "capital",
            f if f.starts_with("PPLA") => "seat",
            _ => "place",
        }
        .to_string(),
        confidence,
        precision: "city".to_string(),
    }
}

/// A live geocoder's place; `None` for one outside any country (a sea), which the answers'
/// shape cannot hold.
pub(in crate::lookups) fn found_live(h: &Hit, confidence: f64) -> Option<Found> {
    let country_code = h.country_code.clone()?;
    Some(Found {
        name: h.name.clone(),
        display_name: Some(h.display_name.clone()),
        house_number: h.house_number.clone(),
        street: h.street.clone(),
        postal_code: h.postal_code.clone(),
        city: h.city.clone(),
        region: h.region.clone(),
        region_code: h.region_code.clone(),
        country: h.country.clone().or_else(|| countries::by_code(&country_code).map(|c| c.name.to_string())),
        country_code,
        latitude: h.lat,
        longitude: h.lng,
        population: None,
        geoname_id: None,
        osm_id: h.osm_id.clone(),
        kind: h.kind.clone(),
        confidence,
        precision: h.precision.clone(),
    })
}

/// What a qualifier can be.
pub(in crate::lookups) enum Qualifier {
    Country(&'static str),
    Region(String),
}

pub(in crate::lookups) fn qualifier(text: &str) -> Option<Qualifier> {
    let t = text.trim();
    if t.is_empty() {
        return None;
    }
    if let Some(c) = country_in(t) {
        return Some(Qualifier::Country(c));
    }
    (t.len() <= 3 && t.chars().all(|c| c.is_ascii_alphanumeric())).then(|| Qualifier::Region(t.to_ascii_uppercase()))
}

pub(in crate::lookups) fn matches(p: &Place, q: &Qualifier) -> bool {
    match q {
        Qualifier::Country(c) => p.country() == *c,
        Qualifier::Region(r) => p.admin1().eq_ignore_ascii_case(r),
    }
}

/// The places of `named` (indices of one exact name, largest first) that every qualifier
/// fits, each with its confidence by the table in the module's description: 0.9 with
/// qualifiers; without, 0.7 for the first when it is the only one or ten times larger than
/// the next, 0.5 otherwise.
pub(in crate::lookups) fn ranked<'a>(idx: &'a Index, named: &[u32], quals: &[Qualifier]) -> Vec<(&'a Place, f64)> {
    let fitting: Vec<&Place> =
        named.iter().map(|&i| &idx.places[i as usize]).filter(|p| quals.iter().all(|q| matches(p, q))).collect();
    let unique = fitting.len() == 1
        || fitting.get(1).is_some_and(|next| next.population().saturating_mul(10) <= fitting[0].population());
    let confidence = |n: usize| {
        if !quals.is_empty() {
            0.9
        } else if n == 0 && unique {
            0.7
        } else {
            0.5
        }
    };
    fitting.into_iter().enumerate().map(|(n, p)| (p, confidence(n))).collect()
}

/// The best places for a query in the offline index, best first.
fn geocode(idx: &Index, query: &str, country: Option<&'static str>, limit: usize) -> Vec<Found> {
    let parts: Vec<&str> = query.split(',').map(str::trim).filter(|s| !s.is_empty()).collect();
    let Some(first) = parts.first() else { return Vec::new() };
    let mut quals: Vec<Qualifier> = parts[1..].iter().filter_map(|p| qualifier(p)).collect();
    if let Some(c) = country {
        quals.push(Qualifier::Country(c));
    }
    // Without commas, trailing words may be qualifiers: "Paris France", "Portland OR".
    let mut name = first.to_string();
    let mut named = idx.named(&name);
    if named.is_empty() && parts.len() == 1 {
        let words: Vec<&str> = first.split_whitespace().collect();
        for cut in (1..words.len()).rev() {
            let head = words[..cut].join(" ");
            let head_named = idx.named(&head);
            if !head_named.is_empty()
                && let Some(q) = qualifier(&words[cut..].join(" "))
            {
                (name, named) = (head, head_named);
                quals.push(q);
                break;
            }
        }
    }
    let ranked = ranked(idx, &named, &quals);
    if !ranked.is_empty() {
        return ranked.into_iter().take(limit).map(|(p, confidence)| found(p, confidence)).collect();
    }
    idx.prefixed(&name, limit, |p| quals.iter().all(|q| matches(p, q)))
        .into_iter()
        .map(|i| found(&idx.places[i as usize], 0.3))
        .collect()
}

pub(in crate::lookups) fn country_filter(field: &str, text: Option<&str>) -> Result<Option<&'static str>, ApiError> {
    match text.map(str::trim).filter(|t| !t.is_empty()) {
        None => Ok(None),
        Some(t) => country_in(t).map(Some).ok_or_else(|| {
            ApiError::invalid(field, format!("{t:?} is not a country (ISO 3166-1 alpha-2 or English name)"))
        }),
    }
}

/// The place a city name names, for operations that take a city (`weather/current`): the
/// offline index's best match when it has one (no request leaves for a city it knows), the
/// live geocoder's otherwise; 404 when neither finds it. The second value names the source.
pub(crate) async fn place_named(ctx: &Ctx, field: &str, name: &str) -> Result<(Found, String), ApiError> {
    if let Some(best) = geocode(index(), name, None, 1).into_iter().next() {
        return Ok((best, SOURCE.to_string()));
    }
    let question = Question::Search { text: name, country: None, limit: 1 };
    if let Ok(answer) = geocoder::ask(ctx, &Session::new(ctx), question).await
        && let Some(found) = answer.hits.first().and_then(|h| found_live(h, 0.7))
    {
        return Ok((found, answer.origin().source));
    }
    let mut e = ApiError::not_found(format!("{field}: no place named {name:?} was found"));
    e.field = Some(field.to_string());
    Err(e)
}

/// The best places for a query: the live geocoder's, or the offline index's with the reason.
async fn lookup(
    ctx: &Ctx,
    session: &Session,
    query: &str,
    country: Option<&'static str>,
    limit: usize,
) -> (Vec<Found>, Origin) {
    let why = match geocoder::ask(ctx, session, Question::Search { text: query, country, limit }).await {
        Ok(answer) => {
            let named_country = country.is_some() || query.split(',').skip(1).any(|p| country_in(p.trim()).is_some());
            let only = answer.hits.len() == 1;
            let results: Vec<Found> = answer
                .hits
                .iter()
                .enumerate()
                .filter_map(|(n, h)| {
                    let confidence = match n {
                        0 if named_country || only => 0.9,
                        0 => 0.7,
                        _ => 0.5,
                    };
                    found_live(h, confidence)
                })
                .take(limit)
                .collect();
            if !results.is_empty() {
                return (results, answer.origin());
            }
            "the live geocoder found nothing".to_string()
        }
        Err(why) => why,
    };
    (geocode(index(), query, country, limit), Origin::offline(&why))
}

#[derive(Debug, Deserialize, JsonSchema, Validate)]
#[serde(deny_unknown_fields)]
struct GeocodeInput {
    /// A place: `Paris`, `Paris, France`, `Springfield, IL`, `São Paulo BR`.
    #[schemars(length(min = 1, max = 256))]
    query: String,
    /// Only places in this country (ISO 3166-1 alpha-2 or English name).
    #[schemars(length(min = 2, max = 64))]
    country: Option<String>,
    /// Results, 1 to 10.
    #[serde(default = "five")]
    #[schemars(range(min = 1, max = 10))]
    limit: u8,
}

pub(in crate::lookups) fn five() -> u8 {
    5
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct GeocodeOutput {
    query: String,
    /// Best first; empty when nothing matches.
    results: Vec<Found>,
    count: usize,
    #[serde(flatten)]
    origin: Origin,
}

/// Find places and addresses by name.
///
/// Places matching `query`, best first, each with its coordinates, country, subdivision,
/// precision and a confidence. With the live geocoder (`WRENCH_PROVIDER_GEOCODER_URL`,
/// Nominatim-compatible) answers are street-level: house number, street, postal code, city
/// and the whole address as the geocoder writes it; confidence 0.9 for its first result when
/// the query names a country or it is the only one, 0.7 for its first otherwise, 0.5 for the
/// rest. Without it, or when it is busy, failing or finds nothing (`notice` says which),
/// answers come from the embedded index of GeoNames' 135,233 places of 1,000 inhabitants or
/// more, city-level: the name (accents and case ignored) with optional qualifiers after commas
/// or at the end, a country (`France`, `FR`) or a first-level subdivision code (`IL`);
/// confidence 0.9 name and qualifiers match, 0.7 unique name, 0.5 shared name, 0.3 start of a
/// name. `source` names where the answer came from and `fetchedAt` how old a live one is.
#[op(post "/v1/geo/geocode" as geoGeocode, tag = Lookups,
     redact(".data.fetchedAt"),
     rejects = "an empty query, an unknown `country`, or a limit outside 1 to 10",
     example(street_address, {"query": "10 Downing Street, London, United Kingdom", "limit": 1}),
     example(city_and_country, {"query": "Paris, France", "limit": 1}),
     example(state_qualifier, {"query": "Springfield, IL", "limit": 2}),
     example(accents_ignored, {"query": "sao paulo", "limit": 1}),
     example(empty_query, {"query": ""}, status = 400))]
async fn geo_geocode(ctx: &Ctx, input: GeocodeInput) -> Result<GeocodeOutput, ApiError> {
    if input.query.trim().is_empty() {
        return Err(ApiError::invalid("query", "give a place name"));
    }
    let country = country_filter("country", input.country.as_deref())?;
    let limit = usize::from(input.limit).clamp(1, MAX_LIMIT);
    let (results, origin) = lookup(ctx, &Session::new(ctx), &input.query, country, limit).await;
    Ok(GeocodeOutput { query: input.query, count: results.len(), results, origin })
}

#[derive(Debug, Deserialize, JsonSchema, Validate)]
#[serde(deny_unknown_fields)]
struct BatchInput {
    /// 1 to 10 place queries, as `geo/geocode` reads them.
    #[schemars(length(min = 1, max = 10))]
    addresses: Vec<String>,
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct BatchItem {
    input: String,
    /// A place was found.
    found: bool,
    /// The best match, or null.
    result: Option<Found>,
    #[serde(flatten)]
    origin: Origin,
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct BatchOutput {
    /// One per address, in order.
    results: Vec<BatchItem>,
    count: usize,
    found: usize,
}

/// Find places and addresses for up to 10 queries.
///
/// `geo/geocode`'s best match for each of up to 10 queries, in order, each with its own
/// `source` and `notice`; a query that matches nothing answers `found: false`. The live
/// geocoder takes a limited number of requests a second (`WRENCH_PROVIDER_GEOCODER_RATE`) and
/// a request waits at most 2 s for them in all, so queries past that wait, unless cached, are
/// answered offline and say so.
#[op(post "/v1/geo/batch" as geoBatch, tag = Lookups,
     redact(".data.results[].fetchedAt"),
     rejects = "an empty list, more than 10 addresses, or an address over 256 characters",
     example(three, {"addresses": ["Berlin", "Tokyo, JP", "Nowhere-on-earth-xyz"]}),
     example(too_many, {"addresses": []}, status = 400))]
async fn geo_batch(ctx: &Ctx, input: BatchInput) -> Result<BatchOutput, ApiError> {
    if input.addresses.is_empty() || input.addresses.len() > MAX_BATCH {
        return Err(ApiError::invalid("addresses", format!("give 1 to {MAX_BATCH} addresses")));
    }
    if let Some(n) = input.addresses.iter().position(|a| a.chars().count() > 256) {
        return Err(ApiError::invalid(&format!("addresses[{n}]"), "at most 256 characters"));
    }
    let session = Session::new(ctx);
    let mut results = Vec::with_capacity(input.addresses.len());
    for a in input.addresses {
        let (found, origin) = lookup(ctx, &session, &a, None, 1).await;
        let best = found.into_iter().next();
        results.push(BatchItem { input: a, found: best.is_some(), result: best, origin });
    }
    let found = results.iter().filter(|r| r.found).count();
    Ok(BatchOutput { count: results.len(), found, results })
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct Nearby {
    #[serde(flatten)]
    place: Found,
    /// Great-circle distance from the point, km.
    distance_km: f64,
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct LiveAddress {
    #[serde(flatten)]
    place: Found,
    /// From the point to the address's coordinates, km.
    distance_km: f64,
    /// `live: <geocoder host>`.
    source: String,
    /// The credit the data's licence requires.
    attribution: String,
    /// When the geocoder gave this answer (answers are cached for 7 days).
    fetched_at: Option<String>,
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct ReverseOutput {
    latitude: f64,
    longitude: f64,
    /// The address at the point, from the live geocoder; null when it is off, busy, failing or
    /// knows no address there (`addressNotice` says which).
    address: Option<LiveAddress>,
    address_notice: Option<String>,
    /// The nearest place of the offline index.
    place: Nearby,
    /// The next nearest (up to 4).
    nearby: Vec<Nearby>,
    source: &'static str,
    attribution: &'static str,
}

/// Name the address and places at a coordinate.
///
/// The address at `lat`/`lng` from the live geocoder (`WRENCH_PROVIDER_GEOCODER_URL`): house
/// number, street, postal code, city, country and the whole address as the geocoder writes it,
/// with its distance from the point; and the nearest places (of 1,000 inhabitants or more,
/// from GeoNames, offline) with their country, subdivision code, population and distance. At
/// sea or in empty land the nearest place may be far: `distanceKm` says how far; there the
/// geocoder usually knows no address and `addressNotice` says so.
#[op(post "/v1/geo/reverse" as geoReverse, tag = Lookups,
     redact(".data.address.fetchedAt"),
     rejects = "a latitude outside -90..90 or a longitude outside -180..180",
     example(eiffel_tower, {"lat": 48.8584, "lng": 2.2945}),
     example(mid_pacific, {"lat": 0.0, "lng": -160.0}),
     example(out_of_range, {"lat": 0, "lng": 181}, status = 400))]
async fn geo_reverse(ctx: &Ctx, input: wrench_kit::geo::point::Point) -> Result<ReverseOutput, ApiError> {
    let idx = index();
    let near = idx.nearest(input.lat, input.lng, 5);
    let mut all = near.into_iter().map(|(i, d)| Nearby {
        place: found(
            &idx.places[i as usize],
            if d < 10.0 {
                0.9
            } else if d < 50.0 {
                0.5
            } else {
                0.1
            },
        ),
        distance_km: (d * 1000.0).round() / 1000.0,
    });
    let place = all.next().ok_or_else(|| ApiError::internal("the place index is empty"))?;
    let question = Question::Reverse { lat: input.lat, lng: input.lng };
    let (address, address_notice) = match geocoder::ask(ctx, &Session::new(ctx), question).await {
        Ok(answer) => match answer.hits.first().and_then(|h| found_live(h, 0.9)) {
            Some(place) => {
                let d = wrench_kit::geo::places::haversine_km(input.lat, input.lng, place.latitude, place.longitude);
                let origin = answer.origin();
                let address = LiveAddress {
                    place,
                    distance_km: (d * 1000.0).round() / 1000.0,
                    source: origin.source,
                    attribution: origin.attribution,
                    fetched_at: origin.fetched_at,
                };
                (Some(address), None)
            }
            None => (None, Some("the live geocoder knows no address at this point".to_string())),
        },
        Err(why) => (None, Some(why)),
    };
    Ok(ReverseOutput {
        latitude: input.lat,
        longitude: input.lng,
        address,
        address_notice,
        place,
        nearby: all.collect(),
        source: SOURCE,
        attribution: ATTRIBUTION,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn top(q: &str) -> Found {
        geocode(index(), q, None, 1).into_iter().next().unwrap_or_else(|| panic!("{q}: nothing"))
    }

    #[test]
    fn queries_with_and_without_qualifiers() {
        let paris = top("Paris");
        assert_eq!((paris.country_code.as_str(), paris.kind.as_str(), paris.confidence), ("FR", "capital", 0.7));
        let texas = top("Paris, TX");
        assert_eq!(
            (texas.country_code.as_str(), texas.region_code.as_deref(), texas.confidence),
            ("US", Some("TX"), 0.9)
        );
        assert_eq!(top("Paris Canada").country_code, "CA");
        // Accents fold; names the index does not hold (GeoNames' English "Munich" for
        // München) are found by their main name only.
        assert_eq!(top("zurich").name, "Zürich");
        assert_eq!(top("SAO-PAULO").country_code, "BR");
        let springfield = geocode(index(), "Springfield", None, 5);
        assert!(springfield.len() == 5 && springfield.iter().all(|f| f.confidence == 0.5));
        let partial = top("Ouagadoug");
        assert_eq!((partial.name.as_str(), partial.confidence), ("Ouagadougou", 0.3));
        assert!(geocode(index(), "Qwxyzville", None, 3).is_empty());
        // Coordinates agree with the great-circle distance between two known capitals.
        let (b, m) = (top("Berlin, DE"), top("Madrid, ES"));
        let d = wrench_kit::geo::places::haversine_km(b.latitude, b.longitude, m.latitude, m.longitude);
        assert!((1860.0..1880.0).contains(&d), "{d}");
    }

    fn offline_ctx() -> Ctx {
        crate::testing::fake_ctx(&[("WRENCH_PROVIDER_GEOCODER_URL", "off")])
    }

    fn input(query: &str) -> GeocodeInput {
        GeocodeInput { query: query.into(), country: None, limit: 3 }
    }

    #[tokio::test]
    async fn offline_reverse_and_batch_say_why_they_are_offline() {
        let ctx = offline_ctx();
        let r = geo_reverse(&ctx, wrench_kit::geo::point::Point { lat: 40.7580, lng: -73.9855 }).await.unwrap();
        assert!(r.place.distance_km < 10.0 && r.place.place.country_code == "US", "{:?}", r.place.place.name);
        assert_eq!(r.nearby.len(), 4);
        assert!(r.nearby.windows(2).all(|w| w[0].distance_km <= w[1].distance_km));
        assert!(r.address.is_none() && r.address_notice.as_deref().unwrap().contains("is off"));
        let b = geo_batch(&ctx, BatchInput { addresses: vec!["Berlin".into(), "zzzz qqqq".into()] }).await.unwrap();
        assert_eq!((b.found, b.results[1].found), (1, false));
        assert!(b.results.iter().all(|r| r.origin.notice.as_deref().unwrap().contains("WRENCH_PROVIDER_GEOCODER_URL")));
    }

    #[tokio::test]
    async fn live_answers_are_street_level_cached_and_identified() {
        let ctx = crate::testing::fake_ctx(&[]);
        let q = "Fixture Street 7101, Testville";
        let first = geo_geocode(&ctx, input(q)).await.unwrap();
        let hit = &first.results[0];
        assert_eq!(
            (hit.house_number.as_deref(), hit.street.as_deref(), hit.city.as_deref(), hit.precision.as_str()),
            (Some("7101"), Some("Fixture Street"), Some("Testville"), "house")
        );
        assert_eq!((hit.country_code.as_str(), hit.confidence, hit.population), ("GB", 0.9, None));
        assert_eq!(first.origin.source, "live: 127.0.0.2");
        assert!(first.origin.attribution.contains("OpenStreetMap") && first.origin.notice.is_none());
        let fetched = first.origin.fetched_at.clone().unwrap();
        // The second answer is the cached first: same time, and the geocoder was asked once.
        let again = geo_geocode(&ctx, input(q)).await.unwrap();
        assert_eq!(again.origin.fetched_at.as_deref(), Some(fetched.as_str()));
        let sent = wrench_fakes::geocoder::requests("Fixture Street 7101");
        assert_eq!(sent.len(), 1, "{sent:?}");
        // What the geocoder received: the documented parameters and wrench's own User-Agent.
        let param = |k: &str| sent[0].query.iter().find(|(n, _)| n == k).map(|(_, v)| v.clone());
        assert_eq!(param("format").as_deref(), Some("jsonv2"));
        assert_eq!(param("addressdetails").as_deref(), Some("1"));
        assert_eq!(param("limit").as_deref(), Some("3"));
        assert!(sent[0].user_agent.as_deref().unwrap().starts_with("wrench/"), "{:?}", sent[0].user_agent);
        // Found nothing live: the offline index answers and says why.
        let paris = geo_geocode(&ctx, input("Paris, France")).await.unwrap();
        assert_eq!(paris.results[0].precision, "city");
        assert!(paris.origin.notice.as_deref().unwrap().contains("found nothing"));
        assert!(paris.origin.source.starts_with("offline"));
        let r = geo_reverse(&ctx, wrench_kit::geo::point::Point { lat: 48.8584, lng: 2.2945 }).await.unwrap();
        let address = r.address.unwrap();
        assert_eq!(
            (
                address.place.street.as_deref(),
                address.place.postal_code.as_deref(),
                address.place.region_code.as_deref()
            ),
            (Some("Avenue Anatole France"), Some("75007"), Some("IDF"))
        );
        assert!(address.distance_km < 0.05, "{}", address.distance_km);
        assert!(r.place.distance_km < 10.0 && r.address_notice.is_none());
    }

    #[tokio::test]
    async fn the_budget_spaces_requests_and_the_rest_is_answered_offline() {
        // One request a second and a wait of at most 2 s: of five new questions, two or three
        // (depending on where the first second's boundary falls) are asked, a second apart.
        let ctx = crate::testing::fake_ctx(&[("WRENCH_PROVIDER_GEOCODER_RATE", "1")]);
        let addresses: Vec<String> = (7201..7206).map(|n| format!("Fixture Street {n}, Testville")).collect();
        let b = geo_batch(&ctx, BatchInput { addresses }).await.unwrap();
        let live: Vec<&BatchItem> = b.results.iter().filter(|r| r.origin.notice.is_none()).collect();
        assert!((2..=3).contains(&live.len()), "{}", live.len());
        // The live ones are the first ones; the others say the budget is spent.
        assert!(b.results[..live.len()].iter().all(|r| r.origin.notice.is_none()));
        for r in &b.results[live.len()..] {
            assert!(r.origin.notice.as_deref().unwrap().contains("budget"), "{:?}", r.origin.notice);
        }
        let mut times: Vec<std::time::Instant> = (7201..7206)
            .flat_map(|n| wrench_fakes::geocoder::requests(&format!("Street {n},")))
            .map(|r| r.at)
            .collect();
        times.sort();
        assert_eq!(times.len(), live.len());
        for pair in times.windows(2) {
            assert!(pair[1] - pair[0] >= std::time::Duration::from_millis(950), "{:?}", pair[1] - pair[0]);
        }
    }

    #[tokio::test]
    async fn a_failing_geocoder_costs_only_the_street_level() {
        // Nothing listens on this port of the fakes' address.
        let ctx = crate::testing::fake_ctx(&[("WRENCH_PROVIDER_GEOCODER_URL", "http://127.0.0.2:9/nominatim/")]);
        let out = geo_geocode(&ctx, input("Berlin, DE")).await.unwrap();
        assert_eq!((out.results[0].name.as_str(), out.results[0].precision.as_str()), ("Berlin", "city"));
        let notice = out.origin.notice.unwrap();
        assert!(notice.contains("WRENCH_PROVIDER_GEOCODER_URL") && notice.contains("127.0.0.2"), "{notice}");
        // The geocoder is named once: the outbound layer's message already names it.
        assert_eq!(notice.matches("the live geocoder").count(), 1, "{notice}");
        // For a while after, it is not asked again: a batch answers offline at once, saying why.
        let b = geo_batch(&ctx, BatchInput { addresses: vec!["Rome, IT".into(), "Oslo".into()] }).await.unwrap();
        assert_eq!(b.found, 2);
        for item in &b.results {
            let notice = item.origin.notice.as_deref().unwrap();
            assert!(notice.contains("left alone") && notice.contains("127.0.0.2"), "{notice}");
            // It quotes the first failure, and names the geocoder once all the same.
            assert_eq!(notice.matches("the live geocoder").count(), 1, "{notice}");
        }
    }
}
