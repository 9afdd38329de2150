//! Postal addresses: `address/validate` and `address/autocomplete`.
//!
//! Validation asks the live geocoder (`geocoder.rs`) for the whole address and answers its
//! parts at the precision the geocoder found them; without it (off, busy, failing or finding
//! nothing, said in `notice`) the address is split at commas and its city and country are
//! found in the offline places index, which cannot check a street. Autocompletion is always
//! offline, from the index: Nominatim does not complete prefixes, and the public instance's
//! usage policy forbids autocompletion against it.

use crate::lookups::geo::geocode::{Found, Qualifier, found, matches, qualifier, ranked};
use wrench_contract::prelude::*;
use wrench_infra::datasets::countries;
use wrench_kit::geo::geocoder::{self, Hit, Origin, Question, Session};
use wrench_kit::geo::places::{ATTRIBUTION, Place, SOURCE, country_in, fold, index};

/// Most suggestions of one query.
const MAX_LIMIT: usize = 10;

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
    /// Live: the street as the geocoder names it. Offline: what came before the city (street,
    /// number, unit), as written.
    street: Option<String>,
    /// Live answers only.
    house_number: Option<String>,
    city: Option<String>,
    /// The first-level subdivision's name (live answers).
    region: Option<String>,
    /// GeoNames' code offline, ISO 3166-2's without the country prefix live.
    region_code: Option<String>,
    /// Live: the geocoder's. Offline: as written, when a part looked like one (digits, or
    /// letters and digits).
    postal_code: Option<String>,
    country: Option<String>,
    country_code: Option<String>,
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct AddressOutput {
    address: String,
    /// Live: the geocoder found the address (at `precision`). Offline: a city (and country,
    /// where given) of the address exists, which says nothing of the street.
    valid: bool,
    components: AddressComponents,
    /// The whole address as the live geocoder writes it; null offline.
    formatted: Option<String>,
    /// The address's coordinates (offline, the city's).
    latitude: Option<f64>,
    longitude: Option<f64>,
    /// 0 to 1: live by precision (house 0.9, street 0.8, postcode or neighbourhood 0.6, city
    /// 0.5, coarser 0.3); offline as `geo/geocode`'s.
    confidence: f64,
    /// `house`, `street`, `postcode`, `neighbourhood`, `city`, `region` or `country`; `city`
    /// offline.
    precision: String,
    /// What could not be checked, and why.
    limitations: Vec<String>,
    #[serde(flatten)]
    origin: Origin,
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

/// Validate a postal address.
///
/// With the live geocoder (`WRENCH_PROVIDER_GEOCODER_URL`, Nominatim-compatible): whether it
/// finds the address, its parts as the geocoder knows them (house number, street, postal code,
/// city, region, country), the formatted address, coordinates, the precision of the match and
/// a confidence by precision (house 0.9, street 0.8, postcode or neighbourhood 0.6, city 0.5).
/// Without it, or when it is busy, failing or finds nothing (`notice` says which), the address
/// is split at commas, its country (a part naming one) and city (the last part naming a place
/// of that country, a postal code beside it set apart) are found in the offline index: `valid`
/// then means the city (and country) exist, `precision` is `city`, and `limitations` says the
/// street was not checked.
#[op(post "/v1/address/validate" as addressValidate, tag = Lookups,
     redact(".data.fetchedAt"),
     rejects = "an empty address or one over 512 characters",
     example(london, {"address": "10 Downing Street, London SW1A 2AA, United Kingdom"}),
     example(offline_city, {"address": "8 rue de Rivoli, 75004 Paris, France"}),
     example(unknown_city, {"address": "1 Main Street, Qwxyzville, Zzyzxq"}),
     example(empty, {"address": " "}, status = 400))]
async fn address_validate(ctx: &Ctx, input: AddressInput) -> Result<AddressOutput, ApiError> {
    let text = input.address.trim();
    if text.is_empty() {
        return Err(ApiError::invalid("address", "give an address"));
    }
    let country = text.rsplit(',').next().and_then(|p| country_in(p.trim()));
    let question = Question::Search { text, country, limit: 1 };
    let why = match geocoder::ask(ctx, &Session::new(ctx), question).await {
        Ok(answer) => match answer.hits.iter().find(|h| h.country_code.is_some()) {
            Some(hit) => return Ok(validated_live(&input.address, hit, answer.origin())),
            None => "the live geocoder found nothing".to_string(),
        },
        Err(why) => why,
    };
    Ok(validated_offline(&input.address, Origin::offline(&why)))
}

/// The live geocoder's reading of an address.
fn validated_live(address: &str, hit: &Hit, origin: Origin) -> AddressOutput {
    let confidence = match hit.precision.as_str() {
        "house" => 0.9,
        "street" => 0.8,
        "postcode" | "neighbourhood" => 0.6,
        "city" => 0.5,
        _ => 0.3,
    };
    let mut limitations = Vec::new();
    if hit.precision != "house" {
        limitations.push(format!("no house was matched: the geocoder placed the address at {} level", hit.precision));
    }
    let country_code = hit.country_code.clone();
    AddressOutput {
        address: address.to_string(),
        valid: true,
        components: AddressComponents {
            street: hit.street.clone(),
            house_number: hit.house_number.clone(),
            city: hit.city.clone(),
            region: hit.region.clone(),
            region_code: hit.region_code.clone(),
            postal_code: hit.postal_code.clone(),
            country: hit
                .country
                .clone()
                .or_else(|| country_code.as_deref().and_then(countries::by_code).map(|c| c.name.to_string())),
            country_code,
        },
        formatted: Some(hit.display_name.clone()),
        latitude: Some(hit.lat),
        longitude: Some(hit.lng),
        confidence,
        precision: hit.precision.clone(),
        limitations,
        origin,
    }
}

/// The offline reading of an address: its city and country from the places index.
fn validated_offline(address: &str, origin: Origin) -> AddressOutput {
    let text = address.trim();
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
    let country_code = city.map(|(_, p, _)| p.country().to_string()).or(country.map(str::to_string));
    AddressOutput {
        address: address.to_string(),
        valid: city.is_some(),
        components: AddressComponents {
            street,
            house_number: None,
            city: city.map(|(_, p, _)| p.name().to_string()),
            region: None,
            region_code: city.and_then(|(_, p, _)| (!p.admin1().is_empty()).then(|| p.admin1().to_string())),
            postal_code: postal,
            country: country_code.as_deref().and_then(countries::by_code).map(|c| c.name.to_string()),
            country_code,
        },
        formatted: None,
        latitude: city.map(|(_, p, _)| p.lat()),
        longitude: city.map(|(_, p, _)| p.lng()),
        confidence: city.map_or(0.0, |(_, _, c)| c),
        precision: "city".to_string(),
        limitations,
        origin,
    }
}

#[derive(Debug, Deserialize, JsonSchema, Validate)]
#[serde(deny_unknown_fields)]
struct AutocompleteInput {
    /// The start of a place name (2 characters or more).
    #[schemars(length(min = 1, max = 128))]
    query: String,
    /// Suggestions, 1 to 10.
    #[serde(default = "crate::lookups::geo::geocode::five")]
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
/// narrows them. Always from the offline index (places of 1,000 inhabitants or more, no
/// streets), whose names are GeoNames' main names whatever `lang`: a live geocoder is not
/// asked, as Nominatim does not complete prefixes and its public instance's policy forbids
/// autocompletion.
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
            let exact = fold(p.name()) == fold(prefix);
            Suggestion {
                text: format!("{}, {}", p.name(), p.country()),
                place: found(p, if exact { 0.7 } else { 0.3 }),
            }
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

    #[tokio::test]
    async fn offline_validation_finds_city_postal_code_and_country() {
        let ctx = crate::testing::fake_ctx(&[("WRENCH_PROVIDER_GEOCODER_URL", "off")]);
        let a = address_validate(
            &ctx,
            AddressInput { address: "10 Downing Street, London SW1A 2AA, United Kingdom".into() },
        )
        .await
        .unwrap();
        assert!(a.valid);
        assert_eq!(a.components.city.as_deref(), Some("London"));
        assert_eq!(a.components.postal_code.as_deref(), Some("SW1A 2AA"));
        assert_eq!(a.components.street.as_deref(), Some("10 Downing Street"));
        assert_eq!(a.components.country_code.as_deref(), Some("GB"));
        assert_eq!(a.precision, "city");
        assert!(a.limitations[0].contains("street") && a.origin.notice.as_deref().unwrap().contains("is off"));
        let fr = address_validate(&ctx, AddressInput { address: "8 rue de Rivoli, 75004 Paris, France".into() })
            .await
            .unwrap();
        assert_eq!(
            (fr.components.city.as_deref(), fr.components.postal_code.as_deref()),
            (Some("Paris"), Some("75004"))
        );
        let bad =
            address_validate(&ctx, AddressInput { address: "1 Main Street, Qwxyzville, Zzyzxq".into() }).await.unwrap();
        assert!(!bad.valid && bad.confidence == 0.0);
    }

    #[tokio::test]
    async fn live_validation_reads_the_geocoders_parts() {
        let ctx = crate::testing::fake_ctx(&[]);
        let a = address_validate(
            &ctx,
            AddressInput { address: "10 Downing Street, London SW1A 2AA, United Kingdom".into() },
        )
        .await
        .unwrap();
        assert!(a.valid && a.limitations.is_empty(), "{:?}", a.limitations);
        assert_eq!(
            (a.components.house_number.as_deref(), a.components.street.as_deref(), a.components.region.as_deref()),
            (Some("10"), Some("Downing Street"), Some("England"))
        );
        assert_eq!((a.precision.as_str(), a.confidence, a.latitude), ("house", 0.9, Some(51.50336)));
        assert!(a.formatted.unwrap().ends_with("SW1A 2AA, United Kingdom"));
        // A street without a house: valid at street level, and the limitation says so.
        let s = address_validate(&ctx, AddressInput { address: "Downing Street, London".into() }).await.unwrap();
        assert_eq!((s.precision.as_str(), s.confidence), ("street", 0.8));
        assert!(s.limitations[0].contains("street level"), "{:?}", s.limitations);
    }

    #[tokio::test]
    async fn autocomplete_is_offline_and_prefix_based() {
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
