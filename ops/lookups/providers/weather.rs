//! `weather/current`: the current weather at a place (a city name, or coordinates) from
//! Open-Meteo's forecast API, in stated metric units, with the WMO weather code in words.

use wrench_contract::prelude::*;
use wrench_infra::providers::OPENMETEO_FORECAST;
use wrench_kit::open_meteo::{self, ATTRIBUTION, current, observed_at, rounded};

const VARIABLES: &[(&str, &str)] = &[
    ("temperature_2m", "°C"),
    ("apparent_temperature", "°C"),
    ("relative_humidity_2m", "%"),
    ("precipitation", "mm"),
    ("rain", "mm"),
    ("snowfall", "cm"),
    ("cloud_cover", "%"),
    ("pressure_msl", "hPa"),
    ("wind_speed_10m", "km/h"),
    ("wind_direction_10m", "°"),
    ("wind_gusts_10m", "km/h"),
    ("weather_code", "wmo code"),
    ("is_day", ""),
];

#[derive(Debug, Deserialize, JsonSchema, Validate)]
#[serde(deny_unknown_fields)]
pub(in crate::lookups) struct PlaceInput {
    /// A city (`Berlin`, `Paris, France`, `Springfield, IL`), or give `lat` and `lng`.
    #[schemars(length(min = 1, max = 256))]
    pub city: Option<String>,
    /// Latitude, -90 to 90, with `lng`.
    #[schemars(range(min = -90, max = 90))]
    pub lat: Option<f64>,
    /// Longitude, -180 to 180, with `lat`.
    #[schemars(range(min = -180, max = 180))]
    pub lng: Option<f64>,
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub(in crate::lookups) struct Location {
    /// The place the city name was read as; null for coordinates.
    pub name: Option<String>,
    pub country_code: Option<String>,
    /// The coordinates asked about, rounded to 0.01° as they were sent.
    pub latitude: f64,
    pub longitude: f64,
    /// The model grid cell's elevation, metres.
    pub elevation_m: Option<f64>,
    /// The place's IANA time zone.
    pub timezone: Option<String>,
    /// Where the city name was found (the offline index or the live geocoder); null for
    /// coordinates.
    pub geocoded_by: Option<String>,
}

/// The coordinates of a request that names a city or gives coordinates, and what is known of
/// the place.
pub(in crate::lookups) async fn locate(ctx: &Ctx, input: &PlaceInput) -> Result<Location, ApiError> {
    match (&input.city, input.lat, input.lng) {
        (Some(city), None, None) => {
            if city.trim().is_empty() {
                return Err(ApiError::invalid("city", "give a city name, or lat and lng"));
            }
            let (place, source) = crate::lookups::geo::geocode::place_named(ctx, "city", city.trim()).await?;
            Ok(Location {
                name: Some(place.name),
                country_code: Some(place.country_code),
                latitude: rounded(place.latitude),
                longitude: rounded(place.longitude),
                elevation_m: None,
                timezone: None,
                geocoded_by: Some(source),
            })
        }
        (None, Some(lat), Some(lng)) => {
            if !(-90.0..=90.0).contains(&lat) {
                return Err(ApiError::invalid("lat", "a latitude from -90 to 90"));
            }
            if !(-180.0..=180.0).contains(&lng) {
                return Err(ApiError::invalid("lng", "a longitude from -180 to 180"));
            }
            Ok(Location {
                name: None,
                country_code: None,
                latitude: rounded(lat),
                longitude: rounded(lng),
                elevation_m: None,
                timezone: None,
                geocoded_by: None,
            })
        }
        (Some(_), _, _) => Err(ApiError::invalid("city", "give a city or lat and lng, not both")),
        (None, Some(_), None) => Err(ApiError::invalid("lng", "give lng with lat")),
        (None, None, Some(_)) => Err(ApiError::invalid("lat", "give lat with lng")),
        (None, None, None) => Err(ApiError::invalid("city", "give a city, or lat and lng")),
    }
}

/// The words of a WMO weather interpretation code (WMO 4677 as Open-Meteo documents the
/// codes it uses).
pub(in crate::lookups) fn describe(code: u32) -> Option<&'static str> {
    Some(match code {
        0 => "Clear sky",
        1 => "Mainly clear",
        2 => "Partly cloudy",
        3 => "Overcast",
        45 => "Fog",
        48 => "Depositing rime fog",
        51 => "Light drizzle",
        53 => "Moderate drizzle",
        55 => "Dense drizzle",
        56 => "Light freezing drizzle",
        57 => "Dense freezing drizzle",
        61 => "Slight rain",
        63 => "Moderate rain",
        65 => "Heavy rain",
        66 => "Light freezing rain",
        67 => "Heavy freezing rain",
        71 => "Slight snow fall",
        73 => "Moderate snow fall",
        75 => "Heavy snow fall",
        77 => "Snow grains",
        80 => "Slight rain showers",
        81 => "Moderate rain showers",
        82 => "Violent rain showers",
        85 => "Slight snow showers",
        86 => "Heavy snow showers",
        95 => "Thunderstorm",
        96 => "Thunderstorm with slight hail",
        99 => "Thunderstorm with heavy hail",
        _ => return None,
    })
}

/// The 16-point compass direction of a bearing in degrees.
fn compass(degrees: f64) -> &'static str {
    const POINTS: [&str; 16] =
        ["N", "NNE", "NE", "ENE", "E", "ESE", "SE", "SSE", "S", "SSW", "SW", "WSW", "W", "WNW", "NW", "NNW"];
    POINTS[((degrees.rem_euclid(360.0) / 22.5).round() as usize) % 16]
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct WeatherOutput {
    location: Location,
    /// Local time of the observation with its UTC offset (the model's 15-minute step).
    observed_at: Option<String>,
    /// `Slight rain`: the WMO code in words.
    description: Option<&'static str>,
    /// WMO weather interpretation code (WMO 4677).
    weather_code: Option<u32>,
    is_day: Option<bool>,
    /// °C, at 2 m.
    temperature_c: Option<f64>,
    /// °C, as felt (wind and humidity).
    apparent_temperature_c: Option<f64>,
    /// %, at 2 m.
    humidity_percent: Option<f64>,
    /// mm in the preceding 15 minutes (rain, showers and snow as water).
    precipitation_mm: Option<f64>,
    rain_mm: Option<f64>,
    snowfall_cm: Option<f64>,
    cloud_cover_percent: Option<f64>,
    /// hPa, at mean sea level.
    pressure_hpa: Option<f64>,
    /// km/h, at 10 m.
    wind_speed_kmh: Option<f64>,
    /// Degrees the wind comes from (0 north, 90 east).
    wind_direction_deg: Option<f64>,
    /// The same as a 16-point compass direction (`WSW`).
    wind_direction: Option<&'static str>,
    wind_gusts_kmh: Option<f64>,
    /// `Open-Meteo (forecast)`.
    source: &'static str,
    attribution: &'static str,
    /// When the provider answered (answers are reused for 10 minutes).
    fetched_at: String,
}

/// Current weather at a place.
///
/// Temperature, apparent temperature, humidity, precipitation (rain and snow), cloud cover,
/// sea-level pressure, wind speed, direction and gusts, and a description of the WMO weather
/// code, in metric units named in each field, for a `city` (found in the offline places index,
/// or by the live geocoder when the index does not know it) or `lat` and `lng`. From
/// Open-Meteo's forecast API (`WRENCH_PROVIDER_OPENMETEO_URL`); coordinates are rounded to
/// 0.01° before they are sent; answers are reused for 10 minutes.
#[op(post "/v1/weather/current" as weatherCurrent, tag = Lookups,
     rejects = "neither a city nor lat and lng, both, or coordinates out of range",
     uses(provider), errors(NOT_FOUND),
     redact(".data.fetchedAt"),
     example(by_city, {"city": "Berlin"}),
     example(by_coordinates, {"lat": 52.52, "lng": 13.41}),
     example(unknown_city, {"city": "Qwxyzville-on-nowhere"}, status = 404),
     example(both, {"city": "Berlin", "lat": 52.52, "lng": 13.41}, status = 400))]
async fn weather_current(ctx: &Ctx, input: PlaceInput) -> Result<WeatherOutput, ApiError> {
    let mut location = locate(ctx, &input).await?;
    let names: Vec<&str> = VARIABLES.iter().map(|(n, _)| *n).collect();
    let params = [
        ("latitude", location.latitude.to_string()),
        ("longitude", location.longitude.to_string()),
        ("current", names.join(",")),
        ("timezone", "auto".to_string()),
    ];
    let (v, answer) = open_meteo::ask(ctx, &OPENMETEO_FORECAST, "forecast", &params).await?;
    let get = |name: &str| {
        let unit = VARIABLES.iter().find(|(n, _)| *n == name).map_or("", |(_, u)| *u);
        current(&OPENMETEO_FORECAST, &v, name, unit)
    };
    location.elevation_m = v["elevation"].as_f64();
    location.timezone = v["timezone"].as_str().map(str::to_string);
    let code = get("weather_code")?.map(|c| c as u32);
    let direction = get("wind_direction_10m")?;
    Ok(WeatherOutput {
        observed_at: observed_at(&v),
        description: code.and_then(describe),
        weather_code: code,
        is_day: get("is_day")?.map(|d| d >= 1.0),
        temperature_c: get("temperature_2m")?,
        apparent_temperature_c: get("apparent_temperature")?,
        humidity_percent: get("relative_humidity_2m")?,
        precipitation_mm: get("precipitation")?,
        rain_mm: get("rain")?,
        snowfall_cm: get("snowfall")?,
        cloud_cover_percent: get("cloud_cover")?,
        pressure_hpa: get("pressure_msl")?,
        wind_speed_kmh: get("wind_speed_10m")?,
        wind_direction: direction.map(compass),
        wind_direction_deg: direction,
        wind_gusts_kmh: get("wind_gusts_10m")?,
        location,
        source: OPENMETEO_FORECAST.name,
        attribution: ATTRIBUTION,
        fetched_at: answer.fetched_at(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_and_compass_points() {
        // Every code Open-Meteo's documentation lists has words; others have none.
        for code in
            [0, 1, 2, 3, 45, 48, 51, 53, 55, 56, 57, 61, 63, 65, 66, 67, 71, 73, 75, 77, 80, 81, 82, 85, 86, 95, 96, 99]
        {
            assert!(describe(code).is_some(), "{code}");
        }
        assert_eq!(describe(4), None);
        assert_eq!((compass(0.0), compass(247.0), compass(359.0), compass(-90.0)), ("N", "WSW", "N", "W"));
    }

    #[tokio::test]
    async fn a_city_is_located_offline_and_the_coordinates_sent_are_rounded() {
        let ctx = crate::testing::fake_ctx(&[]);
        let input = PlaceInput { city: Some("Zürich".into()), lat: None, lng: None };
        let out = weather_current(&ctx, input).await.unwrap();
        assert_eq!(out.location.name.as_deref(), Some("Zürich"));
        assert_eq!(
            (out.temperature_c, out.description, out.wind_direction),
            (Some(4.2), Some("Slight rain"), Some("WSW"))
        );
        assert_eq!(out.observed_at.as_deref(), Some("2026-11-26T12:00+01:00"));
        let sent = wrench_fakes::live::requests("/openmeteo/v1/forecast");
        let mine = sent.iter().find(|r| r.query.contains("latitude=47.37")).expect("the request for Zürich");
        assert!(mine.query.contains("longitude=8.55") && mine.query.contains("timezone=auto"), "{}", mine.query);
        // Exact coordinates never leave: 47.36667 is sent as 47.37.
        assert!(!mine.query.contains("47.366"), "{}", mine.query);
        // The same place again is the cached answer.
        let again =
            weather_current(&ctx, PlaceInput { city: Some("Zürich".into()), lat: None, lng: None }).await.unwrap();
        assert_eq!(again.fetched_at, out.fetched_at);
        let count = wrench_fakes::live::requests("/openmeteo/v1/forecast")
            .iter()
            .filter(|r| r.query.contains("latitude=47.37"))
            .count();
        assert_eq!(count, 1);
    }

    #[tokio::test]
    async fn a_refusal_names_the_provider_and_its_reason() {
        let ctx = crate::testing::fake_ctx(&[(
            "WRENCH_PROVIDER_OPENMETEO_URL",
            "http://127.0.0.2:8080/providers/openmeteo-air/v1/",
        )]);
        let e = weather_current(&ctx, PlaceInput { city: None, lat: Some(1.0), lng: Some(2.0) }).await.unwrap_err();
        assert_eq!(e.code, ErrorCode::UpstreamError);
        assert!(e.message.contains("Open-Meteo (forecast)") && e.message.contains("404"), "{}", e.message);
    }
}
