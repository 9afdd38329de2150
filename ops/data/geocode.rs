//! Places from text and text from places, offline, from the embedded world-cities index
//! (`places.rs`): `geo/geocode`, `geo/batch`, `geo/reverse`, `address/validate` and
//! `address/autocomplete` (spec 4.5 and 4.6).
//!
//! Offline answers are city-level: the index knows places, not streets. A query is read as a
//! place name followed by qualifiers (`Paris, France`, `Springfield, IL`, `Paris FR`): a
//! qualifier is a country (code or English name) or a first-level subdivision code. The
//! `confidence` of a result (0 to 1) says how sure the match is, by a fixed table:
//! 0.9 the name and every qualifier match; 0.7 the name matches and is the only place of that
//! name, or ten times larger than the next; 0.5 the name matches but other places share it;
//! 0.3 only the start of the name matched. Street-level geocoding needs a live geocoder, which
//! is not configured in this version; `address/validate` says so in its answer.

use super::places::{ATTRIBUTION, Index, Place, SOURCE, country_in, fold, index};
use crate::{datasets::countries, prelude::*};

/// Most results of one query.
const MAX_LIMIT: usize = 10;
/// Most addresses of one batch.
const MAX_BATCH: usize = 10;

#[derive(Debug, Serialize, JsonSchema, Clone)]
#[serde(rename_all = "camelCase")]
struct Found {
    name: String,
    /// ISO 3166-1 alpha-2.
    country_code: String,
    country: Option<String>,
    /// The first-level subdivision's GeoNames code (`CA` for California, `11` for
    /// Île-de-France).
    region_code: Option<String>,
    latitude: f64,
    longitude: f64,
    population: u64,
    geoname_id: u32,
    /// `capital`, `seat` (of a subdivision) or `place`.
    kind: &'static str,
    /// 0 to 1, by the table in the operation's description.
    confidence: f64,
    /// Always `city` offline.
    precision: &'static str,
}

fn found(p: &Place, confidence: f64) -> Found {
    Found {
        name: p.name.to_string(),
        country: countries::by_code(&p.country).map(|c| c.name.to_string()),
        country_code: p.country.to_string(),
        region_code: (!p.admin1.is_empty()).then(|| p.admin1.to_string()),
        latitude: p.lat,
        longitude: p.lng,
        population: p.population,
        geoname_id: p.geoname_id,
        kind: match &*p.feature {
            "PPLC" => "capital",
            f if f.starts_with("PPLA") => "seat",
            _ => "place",
        },
        confidence,
        precision: "city",
    }
}

/// What a qualifier can be.
enum Qualifier {
    Country(&'static str),
    Region(String),
}

fn qualifier(text: &str) -> Option<Qualifier> {
    let t = text.trim();
    if t.is_empty() {
        return None;
    }
    if let Some(c) = country_in(t) {
        return Some(Qualifier::Country(c));
    }
    (t.len() <= 3 && t.chars().all(|c| c.is_ascii_alphanumeric())).then(|| Qualifier::Region(t.to_ascii_uppercase()))
}

fn matches(p: &Place, q: &Qualifier) -> bool {
    match q {
        Qualifier::Country(c) => &*p.country == *c,
        Qualifier::Region(r) => p.admin1.eq_ignore_ascii_case(r),
    }
}

/// The places of `named` (indices of one exact name, largest first) that every qualifier
/// fits, each with its confidence by the table in the module's description: 0.9 with
/// qualifiers; without, 0.7 for the first when it is the only one or ten times larger than
/// the next, 0.5 otherwise.
fn ranked<'a>(idx: &'a Index, named: &[u32], quals: &[Qualifier]) -> Vec<(&'a Place, f64)> {
    let fitting: Vec<&Place> =
        named.iter().map(|&i| &idx.places[i as usize]).filter(|p| quals.iter().all(|q| matches(p, q))).collect();
    let unique = fitting.len() == 1
        || fitting.get(1).is_some_and(|next| next.population.saturating_mul(10) <= fitting[0].population);
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

/// The best places for a query, best first.
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

fn country_filter(field: &str, text: Option<&str>) -> Result<Option<&'static str>, ApiError> {
    match text.map(str::trim).filter(|t| !t.is_empty()) {
        None => Ok(None),
        Some(t) => country_in(t).map(Some).ok_or_else(|| {
            ApiError::invalid(field, format!("{t:?} is not a country (ISO 3166-1 alpha-2 or English name)"))
        }),
    }
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
    #[serde(default = "five", deserialize_with = "crate::decode::integer")]
    #[schemars(range(min = 1, max = 10))]
    limit: u8,
}

fn five() -> u8 {
    5
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct GeocodeOutput {
    query: String,
    /// Best first; empty when nothing matches.
    results: Vec<Found>,
    count: usize,
    source: &'static str,
    attribution: &'static str,
}

/// Find places by name.
///
/// Places matching `query` from the embedded index of GeoNames' 135,233 places of 1,000
/// inhabitants or more, best first: the name (accents and case ignored) with optional
/// qualifiers after commas or at the end, a country (`France`, `FR`) or a first-level
/// subdivision code (`IL`). Each result has its coordinates, country, subdivision code,
/// population and a confidence (0.9 name and qualifiers match, 0.7 unique name, 0.5 shared
/// name, 0.3 start of a name). City-level only.
#[op(post "/v1/geo/geocode" as geoGeocode, tag = Lookups,
     rejects = "an empty query, an unknown `country`, or a limit outside 1 to 10",
     example(city_and_country, {"query": "Paris, France", "limit": 1}),
     example(state_qualifier, {"query": "Springfield, IL", "limit": 2}),
     example(accents_ignored, {"query": "sao paulo", "limit": 1}),
     example(empty_query, {"query": ""}, status = 400))]
async fn geo_geocode(input: GeocodeInput) -> Result<GeocodeOutput, ApiError> {
    if input.query.trim().is_empty() {
        return Err(ApiError::invalid("query", "give a place name"));
    }
    let country = country_filter("country", input.country.as_deref())?;
    let limit = usize::from(input.limit).clamp(1, MAX_LIMIT);
    let results = geocode(index(), &input.query, country, limit);
    Ok(GeocodeOutput { query: input.query, count: results.len(), results, source: SOURCE, attribution: ATTRIBUTION })
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
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct BatchOutput {
    /// One per address, in order.
    results: Vec<BatchItem>,
    count: usize,
    found: usize,
    source: &'static str,
    attribution: &'static str,
}

/// Find places for up to 10 queries.
///
/// `geo/geocode`'s best match for each of up to 10 queries, in order; a query that matches
/// nothing answers `found: false`.
#[op(post "/v1/geo/batch" as geoBatch, tag = Lookups,
     rejects = "an empty list, more than 10 addresses, or an address over 256 characters",
     example(three, {"addresses": ["Berlin", "Tokyo, JP", "Nowhere-on-earth-xyz"]}),
     example(too_many, {"addresses": []}, status = 400))]
async fn geo_batch(input: BatchInput) -> Result<BatchOutput, ApiError> {
    if input.addresses.is_empty() || input.addresses.len() > MAX_BATCH {
        return Err(ApiError::invalid("addresses", format!("give 1 to {MAX_BATCH} addresses")));
    }
    if let Some(n) = input.addresses.iter().position(|a| a.chars().count() > 256) {
        return Err(ApiError::invalid(&format!("addresses[{n}]"), "at most 256 characters"));
    }
    let idx = index();
    let results: Vec<BatchItem> = input
        .addresses
        .into_iter()
        .map(|a| {
            let best = geocode(idx, &a, None, 1).into_iter().next();
            BatchItem { input: a, found: best.is_some(), result: best }
        })
        .collect();
    let found = results.iter().filter(|r| r.found).count();
    Ok(BatchOutput { count: results.len(), found, results, source: SOURCE, attribution: ATTRIBUTION })
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
struct ReverseOutput {
    latitude: f64,
    longitude: f64,
    /// The nearest place.
    place: Nearby,
    /// The next nearest (up to 4).
    nearby: Vec<Nearby>,
    source: &'static str,
    attribution: &'static str,
}

/// Name the place at a coordinate.
///
/// The nearest places (of 1,000 inhabitants or more, from GeoNames) to `lat`/`lng`, with their
/// country, subdivision code, population and distance. At sea or in empty land the nearest
/// place may be far: `distanceKm` says how far.
#[op(post "/v1/geo/reverse" as geoReverse, tag = Lookups,
     rejects = "a latitude outside -90..90 or a longitude outside -180..180",
     example(eiffel_tower, {"lat": 48.8584, "lng": 2.2945}),
     example(mid_pacific, {"lat": 0.0, "lng": -160.0}),
     example(out_of_range, {"lat": 0, "lng": 181}, status = 400))]
async fn geo_reverse(input: super::geo_point::Point) -> Result<ReverseOutput, ApiError> {
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
    Ok(ReverseOutput {
        latitude: input.lat,
        longitude: input.lng,
        place,
        nearby: all.collect(),
        source: SOURCE,
        attribution: ATTRIBUTION,
    })
}

#[derive(Debug, Deserialize, JsonSchema, Validate)]
#[serde(deny_unknown_fields)]
struct AddressInput {
    /// A postal address on one line: `10 Downing Street, London SW1A 2AA, United Kingdom`.
    #[schemars(length(min = 1, max = 512))]
    address: String,
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct AddressComponents {
    /// What came before the place: street, number, unit, as written.
    street: Option<String>,
    city: Option<String>,
    region_code: Option<String>,
    /// A postal code as written, when a part looked like one (digits, or letters and digits).
    postal_code: Option<String>,
    country: Option<String>,
    country_code: Option<String>,
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct AddressOutput {
    address: String,
    /// A city (and country, where given) of the address exists. Offline this says nothing of
    /// the street.
    valid: bool,
    components: AddressComponents,
    /// The city's coordinates.
    latitude: Option<f64>,
    longitude: Option<f64>,
    confidence: f64,
    /// `city` offline.
    precision: &'static str,
    /// What could not be checked, and why.
    limitations: Vec<String>,
    source: &'static str,
    attribution: &'static str,
}

/// Words of one address part looked at, and the longest place name tried, in words: an
/// address of 512 characters costs at most a few thousand binary searches of the index.
const MAX_WORDS: usize = 32;
const MAX_NAME_WORDS: usize = 5;

fn postal_like(part: &str) -> bool {
    let t = part.trim();
    let digits = t.chars().filter(char::is_ascii_digit).count();
    (3..=10).contains(&t.len()) && digits >= 2 && t.chars().all(|c| c.is_ascii_alphanumeric() || c == ' ' || c == '-')
}

/// Validate a postal address (city level offline).
///
/// Splits a one-line address at commas, finds its country (a part naming one) and its city
/// (the last part that names a place of that country, with a postal code beside it set
/// apart), and answers the parts with the city's coordinates and a confidence (as
/// `geo/geocode`'s). Offline the street cannot be checked: `valid` means the city (and
/// country) exist, `precision` is `city`, and `limitations` says so.
#[op(post "/v1/address/validate" as addressValidate, tag = Lookups,
     rejects = "an empty address or one over 512 characters",
     example(london, {"address": "10 Downing Street, London SW1A 2AA, United Kingdom"}),
     example(unknown_city, {"address": "1 Main Street, Qwxyzville, Zzyzxq"}),
     example(empty, {"address": " "}, status = 400))]
async fn address_validate(input: AddressInput) -> Result<AddressOutput, ApiError> {
    let text = input.address.trim();
    if text.is_empty() {
        return Err(ApiError::invalid("address", "give an address"));
    }
    let idx = index();
    let mut parts: Vec<String> = text.split(',').map(|p| p.trim().to_string()).filter(|p| !p.is_empty()).collect();
    let country = parts.last().and_then(|p| country_in(p));
    if country.is_some() {
        parts.pop();
    }
    let quals: Vec<Qualifier> = country.map(Qualifier::Country).into_iter().collect();
    let mut postal = None;
    let mut city: Option<(usize, &Place, f64)> = None;
    // From the end: the city is usually the last part before the country, maybe with a
    // postal code before or after it ("London SW1A 2AA", "75008 Paris").
    for (n, part) in parts.iter().enumerate().rev() {
        let words: Vec<&str> = part.split_whitespace().take(MAX_WORDS).collect();
        'spans: for start in 0..words.len() {
            for end in (start + 1..=words.len().min(start + MAX_NAME_WORDS)).rev() {
                let rest: Vec<&str> = words[..start].iter().chain(&words[end..]).copied().collect();
                if !rest.is_empty() && !postal_like(&rest.join(" ")) {
                    continue;
                }
                let candidate = idx.named(&words[start..end].join(" "));
                if let Some(&(place, confidence)) = ranked(idx, &candidate, &quals).first() {
                    if !rest.is_empty() {
                        postal = Some(rest.join(" "));
                    }
                    city = Some((n, place, confidence));
                    break 'spans;
                }
            }
        }
        if city.is_some() {
            break;
        }
        if postal.is_none() && postal_like(part) {
            postal = Some(part.clone());
        }
    }
    let street = city.map_or_else(|| parts.first().cloned(), |(n, _, _)| (n > 0).then(|| parts[..n].join(", ")));
    let mut limitations = vec!["street and house number not checked: offline answers are city-level".to_string()];
    if country.is_none() {
        limitations.push("no country named; the largest place of the name was taken".to_string());
    }
    let country_code = city.map(|(_, p, _)| p.country.to_string()).or(country.map(str::to_string));
    Ok(AddressOutput {
        address: input.address.clone(),
        valid: city.is_some(),
        components: AddressComponents {
            street,
            city: city.map(|(_, p, _)| p.name.to_string()),
            region_code: city.and_then(|(_, p, _)| (!p.admin1.is_empty()).then(|| p.admin1.to_string())),
            postal_code: postal,
            country: country_code.as_deref().and_then(countries::by_code).map(|c| c.name.to_string()),
            country_code,
        },
        latitude: city.map(|(_, p, _)| p.lat),
        longitude: city.map(|(_, p, _)| p.lng),
        confidence: city.map_or(0.0, |(_, _, c)| c),
        precision: "city",
        limitations,
        source: SOURCE,
        attribution: ATTRIBUTION,
    })
}

#[derive(Debug, Deserialize, JsonSchema, Validate)]
#[serde(deny_unknown_fields)]
struct AutocompleteInput {
    /// The start of a place name (2 characters or more).
    #[schemars(length(min = 1, max = 128))]
    query: String,
    /// Suggestions, 1 to 10.
    #[serde(default = "five", deserialize_with = "crate::decode::integer")]
    #[schemars(range(min = 1, max = 10))]
    limit: u8,
    /// ISO 639-1 language of the suggestions. Offline names are GeoNames' main names (the
    /// local name in Latin script, or the English one); the language is reported back.
    #[serde(default = "english")]
    #[schemars(length(min = 2, max = 2))]
    lang: String,
}

fn english() -> String {
    "en".to_string()
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct Suggestion {
    /// `Paris, FR`.
    text: String,
    #[serde(flatten)]
    place: Found,
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct AutocompleteOutput {
    query: String,
    lang: String,
    /// Largest places first.
    suggestions: Vec<Suggestion>,
    source: &'static str,
    attribution: &'static str,
}

/// Suggest places as a name is typed.
///
/// Places whose name starts with `query` (accents and case ignored), largest first, up to
/// `limit` (1-10, default 5), each with its coordinates; a trailing `, country` qualifier
/// narrows them. Offline names are GeoNames' main names whatever `lang`.
#[op(post "/v1/address/autocomplete" as addressAutocomplete, tag = Lookups,
     rejects = "a query under 2 characters, a limit outside 1 to 10, or a language that is not two letters",
     example(san_fr, {"query": "San Fr", "limit": 3}),
     example(qualified, {"query": "Spring, US", "limit": 3}),
     example(too_short, {"query": "S"}, status = 400))]
async fn address_autocomplete(input: AutocompleteInput) -> Result<AutocompleteOutput, ApiError> {
    let (prefix, qualifier_text) = match input.query.split_once(',') {
        Some((p, q)) => (p.trim(), Some(q.trim())),
        None => (input.query.trim(), None),
    };
    if fold(prefix).len() < 2 {
        return Err(ApiError::invalid("query", "give at least 2 letters of the name"));
    }
    if !input.lang.chars().all(|c| c.is_ascii_alphabetic()) || input.lang.len() != 2 {
        return Err(ApiError::invalid("lang", "an ISO 639-1 code of two letters (`en`)"));
    }
    let q = qualifier_text.and_then(qualifier);
    let idx = index();
    let limit = usize::from(input.limit).clamp(1, MAX_LIMIT);
    let suggestions = idx
        .prefixed(prefix, limit, |p| q.as_ref().is_none_or(|q| matches(p, q)))
        .into_iter()
        .map(|i| {
            let p = &idx.places[i as usize];
            let exact = fold(&p.name) == fold(prefix);
            Suggestion { text: format!("{}, {}", p.name, p.country), place: found(p, if exact { 0.7 } else { 0.3 }) }
        })
        .collect();
    Ok(AutocompleteOutput {
        query: input.query,
        lang: input.lang.to_ascii_lowercase(),
        suggestions,
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
        assert_eq!((paris.country_code.as_str(), paris.kind, paris.confidence), ("FR", "capital", 0.7));
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
        let d = super::super::places::haversine_km(b.latitude, b.longitude, m.latitude, m.longitude);
        assert!((1860.0..1880.0).contains(&d), "{d}");
    }

    #[tokio::test]
    async fn reverse_batch_validate_and_autocomplete() {
        let r = geo_reverse(super::super::geo_point::Point { lat: 40.7580, lng: -73.9855 }).await.unwrap();
        assert!(r.place.distance_km < 10.0 && r.place.place.country_code == "US", "{:?}", r.place.place.name);
        assert_eq!(r.nearby.len(), 4);
        assert!(r.nearby.windows(2).all(|w| w[0].distance_km <= w[1].distance_km));
        let b = geo_batch(BatchInput { addresses: vec!["Berlin".into(), "zzzz qqqq".into()] }).await.unwrap();
        assert_eq!((b.found, b.results[1].found), (1, false));
        let a = address_validate(AddressInput { address: "10 Downing Street, London SW1A 2AA, United Kingdom".into() })
            .await
            .unwrap();
        assert!(a.valid);
        assert_eq!(a.components.city.as_deref(), Some("London"));
        assert_eq!(a.components.postal_code.as_deref(), Some("SW1A 2AA"));
        assert_eq!(a.components.street.as_deref(), Some("10 Downing Street"));
        assert_eq!(a.components.country_code.as_deref(), Some("GB"));
        let fr =
            address_validate(AddressInput { address: "8 rue de Rivoli, 75004 Paris, France".into() }).await.unwrap();
        assert_eq!(
            (fr.components.city.as_deref(), fr.components.postal_code.as_deref()),
            (Some("Paris"), Some("75004"))
        );
        let bad = address_validate(AddressInput { address: "1 Main Street, Qwxyzville, Zzyzxq".into() }).await.unwrap();
        assert!(!bad.valid && bad.confidence == 0.0);
        let s = address_autocomplete(AutocompleteInput { query: "San Fr".into(), limit: 3, lang: "en".into() })
            .await
            .unwrap();
        assert_eq!(s.suggestions[0].text, "San Francisco, US");
        let de = address_autocomplete(AutocompleteInput { query: "Ber, DE".into(), limit: 2, lang: "de".into() })
            .await
            .unwrap();
        assert!(
            de.suggestions.iter().all(|s| s.place.country_code == "DE") && de.suggestions[0].place.name == "Berlin"
        );
        assert!(
            address_autocomplete(AutocompleteInput { query: "S".into(), limit: 3, lang: "en".into() }).await.is_err()
        );
    }
}
