//! `air-quality/check`: current air quality at a coordinate from Open-Meteo's air-quality API
//! (CAMS models): the US and European indices with their bands in words, and the pollutants.

use wrench_contract::prelude::*;
use wrench_infra::providers::OPENMETEO_AIR;
use wrench_kit::open_meteo::{self, ATTRIBUTION, current, observed_at, rounded};

const MICROGRAMS: &str = "μg/m³";

/// The band of a US AQI value (US EPA's categories).
fn us_band(aqi: f64) -> &'static str {
    match aqi {
        a if a <= 50.0 => "Good",
        a if a <= 100.0 => "Moderate",
        a if a <= 150.0 => "Unhealthy for sensitive groups",
        a if a <= 200.0 => "Unhealthy",
        a if a <= 300.0 => "Very unhealthy",
        _ => "Hazardous",
    }
}

/// The band of a European AQI value (the European Environment Agency's, as Open-Meteo
/// documents the index).
fn european_band(aqi: f64) -> &'static str {
    match aqi {
        a if a <= 20.0 => "Good",
        a if a <= 40.0 => "Fair",
        a if a <= 60.0 => "Moderate",
        a if a <= 80.0 => "Poor",
        a if a <= 100.0 => "Very poor",
        _ => "Extremely poor",
    }
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct Index {
    value: f64,
    /// The band in words (`Moderate`).
    category: &'static str,
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct AirOutput {
    /// The coordinates asked about, rounded to 0.01° as they were sent.
    latitude: f64,
    longitude: f64,
    /// Local time of the values with their UTC offset.
    observed_at: Option<String>,
    /// US EPA AQI, 0-500 (bands 50, 100, 150, 200, 300).
    us_aqi: Option<Index>,
    /// European AQI, 0-100+ (bands 20, 40, 60, 80, 100).
    european_aqi: Option<Index>,
    /// Concentrations near the ground, μg/m³.
    pm2_5: Option<f64>,
    pm10: Option<f64>,
    carbon_monoxide: Option<f64>,
    nitrogen_dioxide: Option<f64>,
    sulphur_dioxide: Option<f64>,
    ozone: Option<f64>,
    /// `μg/m³`.
    unit: &'static str,
    source: &'static str,
    attribution: &'static str,
    fetched_at: String,
}

/// Current air quality at a coordinate.
///
/// The US and European air-quality indices with their bands in words, and PM2.5, PM10, carbon
/// monoxide, nitrogen dioxide, sulphur dioxide and ozone in μg/m³, at `lat`/`lng`, from
/// Open-Meteo's air-quality API (`WRENCH_PROVIDER_OPENMETEO_AIR_URL`; CAMS models, about 11 km
/// in Europe and 40 km elsewhere). Coordinates are rounded to 0.01° before they are sent;
/// answers are reused for 30 minutes.
#[op(post "/v1/air-quality/check" as airQualityCheck, tag = Lookups,
     rejects = "a latitude outside -90..90 or a longitude outside -180..180",
     uses(provider),
     redact(".data.fetchedAt"),
     example(berlin, {"lat": 52.52, "lng": 13.41}),
     example(out_of_range, {"lat": 95, "lng": 13.41}, status = 400))]
async fn air_quality_check(ctx: &Ctx, input: wrench_kit::geo::point::Point) -> Result<AirOutput, ApiError> {
    let (lat, lng) = (rounded(input.lat), rounded(input.lng));
    let names =
        ["us_aqi", "european_aqi", "pm2_5", "pm10", "carbon_monoxide", "nitrogen_dioxide", "sulphur_dioxide", "ozone"];
    let params = [
        ("latitude", lat.to_string()),
        ("longitude", lng.to_string()),
        ("current", names.join(",")),
        ("timezone", "auto".to_string()),
    ];
    let (v, answer) = open_meteo::ask(ctx, &OPENMETEO_AIR, "air-quality", &params).await?;
    let pollutant = |name: &str| current(&OPENMETEO_AIR, &v, name, MICROGRAMS);
    Ok(AirOutput {
        latitude: lat,
        longitude: lng,
        observed_at: observed_at(&v),
        us_aqi: current(&OPENMETEO_AIR, &v, "us_aqi", "USAQI")?.map(|value| Index { value, category: us_band(value) }),
        european_aqi: current(&OPENMETEO_AIR, &v, "european_aqi", "EAQI")?
            .map(|value| Index { value, category: european_band(value) }),
        pm2_5: pollutant("pm2_5")?,
        pm10: pollutant("pm10")?,
        carbon_monoxide: pollutant("carbon_monoxide")?,
        nitrogen_dioxide: pollutant("nitrogen_dioxide")?,
        sulphur_dioxide: pollutant("sulphur_dioxide")?,
        ozone: pollutant("ozone")?,
        unit: MICROGRAMS,
        source: OPENMETEO_AIR.name,
        attribution: ATTRIBUTION,
        fetched_at: answer.fetched_at(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bands_at_their_edges() {
        assert_eq!(
            (us_band(50.0), us_band(51.0), us_band(150.0), us_band(301.0)),
            ("Good", "Moderate", "Unhealthy for sensitive groups", "Hazardous")
        );
        assert_eq!(
            (european_band(20.0), european_band(20.5), european_band(100.0), european_band(140.0)),
            ("Good", "Fair", "Very poor", "Extremely poor")
        );
    }

    #[tokio::test]
    async fn values_and_bands_from_the_provider() {
        let ctx = crate::testing::fake_ctx(&[]);
        let out = air_quality_check(&ctx, wrench_kit::geo::point::Point { lat: 48.8566, lng: 2.3522 }).await.unwrap();
        assert_eq!((out.latitude, out.longitude), (48.86, 2.35));
        let us = out.us_aqi.unwrap();
        assert_eq!((us.value, us.category), (57.0, "Moderate"));
        assert_eq!(out.european_aqi.unwrap().category, "Fair");
        assert_eq!((out.pm2_5, out.ozone), (Some(14.9), Some(41.0)));
    }
}
