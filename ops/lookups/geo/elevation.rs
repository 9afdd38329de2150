//! `elevation/lookup`: ground height at up to 10 coordinates from Open-Meteo's elevation API
//! (Copernicus DEM GLO-90, 90 m resolution), one request for all of them.

use wrench_contract::prelude::*;
use wrench_infra::providers::OPENMETEO_ELEVATION;
use wrench_kit::open_meteo::{self, ATTRIBUTION, rounded};

/// Most coordinates of one request.
const MAX_LOCATIONS: usize = 10;

#[derive(Debug, Deserialize, JsonSchema, Validate, Clone, Copy)]
#[serde(deny_unknown_fields)]
struct Coordinate {
    /// Latitude, -90 to 90.
    #[schemars(range(min = -90, max = 90))]
    lat: f64,
    /// Longitude, -180 to 180.
    #[schemars(range(min = -180, max = 180))]
    lng: f64,
}

#[derive(Debug, Deserialize, JsonSchema, Validate)]
#[serde(deny_unknown_fields)]
struct ElevationInput {
    /// One coordinate's latitude, with `lng`; or give `locations`.
    #[schemars(range(min = -90, max = 90))]
    lat: Option<f64>,
    #[schemars(range(min = -180, max = 180))]
    lng: Option<f64>,
    /// 1 to 10 coordinates.
    #[schemars(length(min = 1, max = 10))]
    locations: Option<Vec<Coordinate>>,
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct Height {
    /// As asked.
    latitude: f64,
    longitude: f64,
    /// Metres above sea level (negative below it) at the coordinate rounded to 0.01°.
    elevation_m: f64,
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct ElevationOutput {
    /// One per coordinate, in order.
    results: Vec<Height>,
    count: usize,
    /// `Copernicus DEM GLO-90 via Open-Meteo (elevation)`.
    source: &'static str,
    attribution: &'static str,
    fetched_at: String,
}

fn coordinates(input: &ElevationInput) -> Result<Vec<Coordinate>, ApiError> {
    let list = match (&input.locations, input.lat, input.lng) {
        (Some(list), None, None) => list.clone(),
        (None, Some(lat), Some(lng)) => vec![Coordinate { lat, lng }],
        (Some(_), _, _) => return Err(ApiError::invalid("locations", "give locations or lat and lng, not both")),
        (None, Some(_), None) => return Err(ApiError::invalid("lng", "give lng with lat")),
        (None, None, Some(_)) => return Err(ApiError::invalid("lat", "give lat with lng")),
        (None, None, None) => return Err(ApiError::invalid("locations", "give lat and lng, or locations")),
    };
    if list.is_empty() || list.len() > MAX_LOCATIONS {
        return Err(ApiError::invalid("locations", format!("give 1 to {MAX_LOCATIONS} coordinates")));
    }
    for (n, c) in list.iter().enumerate() {
        let at = |f: &str| if input.locations.is_some() { format!("locations[{n}].{f}") } else { f.to_string() };
        if !(-90.0..=90.0).contains(&c.lat) {
            return Err(ApiError::invalid(&at("lat"), "a latitude from -90 to 90"));
        }
        if !(-180.0..=180.0).contains(&c.lng) {
            return Err(ApiError::invalid(&at("lng"), "a longitude from -180 to 180"));
        }
    }
    Ok(list)
}

/// Ground elevation at one to ten coordinates.
///
/// Metres above sea level at `lat`/`lng`, or at each of `locations` (up to 10) in order, from
/// Open-Meteo's elevation API (`WRENCH_PROVIDER_OPENMETEO_ELEVATION_URL`; Copernicus DEM
/// GLO-90, 90 m resolution). Coordinates are rounded to 0.01° before they are sent; answers
/// are reused for 30 days.
#[op(post "/v1/elevation/lookup" as elevationLookup, tag = Lookups,
     rejects = "neither lat and lng nor locations, more than 10 locations, or coordinates out of range",
     uses(provider),
     redact(".data.fetchedAt"),
     example(one, {"lat": 27.9881, "lng": 86.925}),
     example(several, {"locations": [{"lat": 52.52, "lng": 13.41}, {"lat": 31.5, "lng": 35.5}]}),
     example(none, {}, status = 400))]
async fn elevation_lookup(ctx: &Ctx, input: ElevationInput) -> Result<ElevationOutput, ApiError> {
    let list = coordinates(&input)?;
    let join = |f: fn(&Coordinate) -> f64| list.iter().map(|c| rounded(f(c)).to_string()).collect::<Vec<_>>().join(",");
    let params = [("latitude", join(|c| c.lat)), ("longitude", join(|c| c.lng))];
    let (v, answer) = open_meteo::ask(ctx, &OPENMETEO_ELEVATION, "elevation", &params).await?;
    let heights = v["elevation"].as_array().ok_or_else(|| OPENMETEO_ELEVATION.malformed("no `elevation` list"))?;
    if heights.len() != list.len() {
        return Err(OPENMETEO_ELEVATION.malformed(format!("{} heights for {} coordinates", heights.len(), list.len())));
    }
    let results = list
        .iter()
        .zip(heights)
        .map(|(c, h)| {
            let elevation_m =
                h.as_f64().ok_or_else(|| OPENMETEO_ELEVATION.malformed("a height that is not a number"))?;
            Ok(Height { latitude: c.lat, longitude: c.lng, elevation_m })
        })
        .collect::<Result<Vec<_>, ApiError>>()?;
    Ok(ElevationOutput {
        count: results.len(),
        results,
        source: "Copernicus DEM GLO-90 via Open-Meteo (elevation)",
        attribution: ATTRIBUTION,
        fetched_at: answer.fetched_at(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn one_request_for_all_coordinates_in_order() {
        let ctx = crate::testing::fake_ctx(&[]);
        let locations = vec![
            Coordinate { lat: 27.9881, lng: 86.925 },
            Coordinate { lat: 31.5, lng: 35.5 },
            Coordinate { lat: 52.52, lng: 13.41 },
        ];
        let out =
            elevation_lookup(&ctx, ElevationInput { lat: None, lng: None, locations: Some(locations) }).await.unwrap();
        let heights: Vec<f64> = out.results.iter().map(|h| h.elevation_m).collect();
        assert_eq!(heights, [8729.0, -415.0, 38.0]);
        assert_eq!(out.results[0].latitude, 27.9881);
        let sent = wrench_fakes::live::requests("/openmeteo/v1/elevation");
        assert!(
            sent.iter().any(|r| r.query.starts_with("latitude=27.99%2C31.5%2C52.52&longitude=86.93%2C35.5%2C13.41")),
            "{sent:?}"
        );
        let e =
            elevation_lookup(&ctx, ElevationInput { lat: Some(1.0), lng: None, locations: None }).await.unwrap_err();
        assert_eq!(e.field.as_deref(), Some("lng"));
    }
}
