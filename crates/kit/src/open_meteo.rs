//! Open-Meteo's forecast, air-quality and elevation APIs (`WRENCH_PROVIDER_OPENMETEO_URL`,
//! `_OPENMETEO_AIR_URL`, `_OPENMETEO_ELEVATION_URL`), shared by `weather.rs`, `air_quality.rs`
//! and `elevation.rs`.
//!
//! Coordinates are rounded to 0.01° (about 1 km) before they leave: the models' grids are 1
//! to 11 km, so answers do not change, callers' exact positions stay here, and nearby
//! questions share one cached answer. The free tier allows 600 requests a minute, 5,000 an
//! hour and 10,000 a day without a key; a key (the commercial API, sent as `apikey`) lifts
//! them. Data is CC BY 4.0: answers carry the credit.

use wrench_contract::prelude::*;
use wrench_infra::{outbound::provider::Answer, providers::Provider};

/// The credit Open-Meteo's licence asks for.
pub const ATTRIBUTION: &str = "Weather data by Open-Meteo.com (CC BY 4.0)";

/// A coordinate as it is sent: rounded to 0.01°.
pub fn rounded(v: f64) -> f64 {
    (v * 100.0).round() / 100.0
}

/// `GET {base}{endpoint}?latitude=..&longitude=..&{params}` (+ `apikey` when set), cached for
/// the provider's `cache_for` under the URL without the key.
pub async fn ask(
    ctx: &Ctx,
    provider: &Provider,
    endpoint: &str,
    params: &[(&str, String)],
) -> Result<(Value, Answer), ApiError> {
    let mut url = provider.url(ctx)?.join(endpoint).map_err(|e| provider.malformed(e))?;
    url.query_pairs_mut().extend_pairs(params.iter().map(|(k, v)| (*k, v.as_str())));
    let answer = provider.get_cached_key_in_query(ctx, url, "apikey").await?;
    let v = answer.json(provider)?;
    if answer.status != 200 {
        // Open-Meteo explains a refusal in `reason`.
        let reason = v["reason"].as_str().unwrap_or("no reason given");
        return Err(ApiError::new(
            ErrorCode::UpstreamError,
            format!("{} answered status {}: {reason:.200}", provider.name, answer.status),
        ));
    }
    Ok((v, answer))
}

/// The `current` block's value `name`, checked to be in `unit` (the unit every answer
/// states), or the provider's malformed-answer error.
pub fn current(provider: &Provider, v: &Value, name: &str, unit: &str) -> Result<Option<f64>, ApiError> {
    let value = &v["current"][name];
    if value.is_null() {
        return Ok(None);
    }
    let given = v["current_units"][name].as_str().unwrap_or_default();
    if given != unit {
        return Err(provider.malformed(format!("{name} in {given:?}, not {unit:?}")));
    }
    value.as_f64().map(Some).ok_or_else(|| provider.malformed(format!("{name} is not a number")))
}

/// The local time of the `current` block with its UTC offset (`2026-11-26T12:00+01:00`).
pub fn observed_at(v: &Value) -> Option<String> {
    let time = v["current"]["time"].as_str()?;
    let offset = v["utc_offset_seconds"].as_i64()?;
    let sign = if offset < 0 { '-' } else { '+' };
    let o = offset.unsigned_abs();
    Some(format!("{time}{sign}{:02}:{:02}", o / 3600, o % 3600 / 60))
}
