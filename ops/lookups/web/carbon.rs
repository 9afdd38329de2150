//! The carbon footprint of a page view (`carbon/estimate`), by the Sustainable Web
//! Design model v4 (`carbon_model.rs`): the bytes a view transfers, the energy they take in
//! each segment, the grid intensity that energy is made at, and whether the host runs on green
//! energy according to the Green Web Foundation (`WRENCH_PROVIDER_GREENWEB_URL`).
//!
//! By default only the HTML document is measured, as the original service did; with
//! `includeSubresources` the images, scripts, stylesheets, icons, frames and media the HTML
//! names are fetched too, through the guard, at most [`MAX_SUBRESOURCES`], 4 at a time, all
//! within one outbound timeout. Bytes are counted as delivered without compression (the
//! layer asks for identity encoding), so a compressed transfer would weigh less.

use std::collections::HashSet;

use futures_util::{StreamExt, stream};
use reqwest::header::HeaderMap;

use wrench_contract::prelude::*;
use wrench_infra::providers::GREEN_WEB;
use wrench_infra::time::now_rfc3339;
use wrench_kit::web::carbon_model::{
    self, EMBODIED_KWH_PER_GB, GLOBAL_GRID_INTENSITY, INTENSITY_SOURCE, Intensities, OPERATIONAL_KWH_PER_GB, RATINGS,
    Segments,
};
use wrench_kit::web::page::{fetch_page, read_page};

/// The most subresources fetched for one estimate.
pub(crate) const MAX_SUBRESOURCES: usize = 40;
/// Subresources fetched at once.
const CONCURRENCY: usize = 4;

#[derive(Debug, Deserialize, JsonSchema, Validate)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct CarbonInput {
    /// An http or https URL of the page.
    #[schemars(length(min = 1, max = 2048), pattern("^[\\x00-\\x20]*[Hh][Tt][Tt][Pp][Ss]?:"))]
    url: String,
    /// Also fetch and weigh what the HTML names (images, scripts, stylesheets, icons, frames,
    /// media), up to 40 of them; otherwise only the HTML is measured.
    #[serde(default)]
    include_subresources: bool,
    /// Where the data centre is, as an ISO 3166-1 alpha-3 code (`FRA`) or a region of the
    /// table (`EU`, `WORLD`); the global intensity (494 g/kWh) otherwise.
    #[schemars(length(min = 2, max = 16))]
    data_center_country: Option<String>,
    /// Where the network is, like `dataCenterCountry`.
    #[schemars(length(min = 2, max = 16))]
    network_country: Option<String>,
    /// Where the visitors are, like `dataCenterCountry`.
    #[schemars(length(min = 2, max = 16))]
    device_country: Option<String>,
    /// Take the host as green (true) or not (false) instead of asking the Green Web
    /// Foundation.
    green: Option<bool>,
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct Subresource {
    url: String,
    /// `image`, `script`, `stylesheet`, `icon`, `preload`, `frame` or `media`.
    kind: &'static str,
    status: Option<u16>,
    bytes: Option<u64>,
    /// Why it was not weighed.
    error: Option<String>,
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct Transfer {
    /// `html` or `html+subresources`.
    measured: &'static str,
    html_bytes: u64,
    subresource_bytes: u64,
    total_bytes: u64,
    /// Subresources the HTML names (distinct http(s) URLs).
    subresources_found: usize,
    /// Those weighed, listed below with the ones that failed.
    subresources: Vec<Subresource>,
    /// Found but not fetched: over the limit of 40 or past the time budget.
    subresources_skipped: usize,
    /// How bytes were counted.
    note: &'static str,
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct GridIntensity {
    /// gCO2e per kWh.
    value: f64,
    /// The country or region asked for, or `global`.
    region: String,
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct Grid {
    data_center: GridIntensity,
    network: GridIntensity,
    device: GridIntensity,
    /// Embodied energy is always counted at the global intensity.
    embodied: f64,
    source: &'static str,
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct Hosting {
    host: String,
    /// Whether the host runs on green energy; `null` when it could not be learned (then the
    /// estimate counts it as not green, as CO2.js does).
    green: Option<bool>,
    hosted_by: Option<String>,
    /// `caller` (the `green` field), `Green Web Foundation`, or `unknown`.
    source: &'static str,
    /// Why the check gave no answer.
    error: Option<String>,
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct Energy {
    operational: Segments,
    embodied: Segments,
    total_kwh: f64,
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct Emissions {
    operational: Segments,
    embodied: Segments,
    /// Grams of CO2e per view, green hosting applied to the data centre's operational part.
    grams_per_view: f64,
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct RatingBand {
    rating: &'static str,
    max_grams: f64,
    percentile: u8,
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct Constants {
    model: &'static str,
    operational_kwh_per_gb: Segments,
    embodied_kwh_per_gb: Segments,
    global_grid_intensity: f64,
    bytes_per_gb: f64,
    first_visit_share: f64,
    return_visit_share: f64,
    /// Rating bands: grams per view at most, and the percentile of pages each reaches.
    ratings: Vec<RatingBand>,
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct CarbonOutput {
    url: String,
    final_url: String,
    transfer: Transfer,
    hosting: Hosting,
    grid_intensity: Grid,
    /// kWh per view.
    energy: Energy,
    co2: Emissions,
    /// Grams of CO2e per view (the same as `co2.gramsPerView`).
    grams_per_view: f64,
    /// A+ to F.
    rating: &'static str,
    /// The page is among the cleanest this many percent of pages (the rating band's bound);
    /// `null` for F, dirtier than the median.
    percentile: Option<u8>,
    constants: Constants,
    checked_at: String,
}

/// The intensity of `region` (`None`: global), or 400 naming `field`.
fn intensity(field: &str, region: Option<&str>) -> Result<GridIntensity, ApiError> {
    let Some(r) = region.map(|r| r.trim().to_ascii_uppercase()) else {
        return Ok(GridIntensity { value: GLOBAL_GRID_INTENSITY, region: "global".into() });
    };
    match carbon_model::country_intensities().get(&r) {
        Some(v) => Ok(GridIntensity { value: *v, region: r }),
        None => Err(ApiError::invalid(
            field,
            format!(
                "{r:?} is not in the grid intensity table: use an ISO 3166-1 alpha-3 code (FRA, USA, IND) or a region (EU, ASIA, WORLD)"
            ),
        )),
    }
}

/// Whether `host` is green, from the caller, the cache or the Green Web Foundation.
async fn hosting(ctx: &Ctx, host: &str, given: Option<bool>) -> Hosting {
    let mut out = Hosting { host: host.to_string(), green: given, hosted_by: None, source: "caller", error: None };
    if given.is_some() {
        return out;
    }
    out.source = "unknown";
    let Some(base) = ctx.net.config.providers.url(&GREEN_WEB).cloned() else {
        out.error = Some("the green hosting check is off (WRENCH_PROVIDER_GREENWEB_URL=off)".into());
        return out;
    };
    let body = match base.join(host) {
        Err(e) => Err(e.to_string()),
        Ok(url) => match GREEN_WEB.get_cached(ctx, host, url, &HeaderMap::new(), |s| s == 200).await {
            Ok(a) if a.status == 200 => Ok(a.body),
            Ok(a) => Err(format!("the Green Web Foundation answered HTTP {}", a.status)),
            Err(e) => Err(e.message.to_string()),
        },
    };
    match body.and_then(|b| serde_json::from_slice::<Value>(&b).map_err(|e| e.to_string())) {
        Ok(v) => match v.get("green").and_then(Value::as_bool) {
            Some(green) => {
                out.green = Some(green);
                out.hosted_by = v.get("hosted_by").and_then(Value::as_str).map(str::to_string);
                out.source = "Green Web Foundation";
            }
            None => out.error = Some("the Green Web Foundation's answer has no `green` field".into()),
        },
        Err(e) => out.error = Some(e),
    }
    out
}

/// Fetches and weighs one subresource.
async fn weigh(ctx: &Ctx, kind: &'static str, url: url::Url) -> Subresource {
    let mut out = Subresource { url: url.to_string(), kind, status: None, bytes: None, error: None };
    match ctx.net.get(url).await {
        Ok(c) => {
            out.status = c.last().map(|h| h.status);
            if out.status.is_some_and(|s| (200..300).contains(&s)) {
                out.bytes = Some(c.body.map_or(0, |b| b.len() as u64));
            } else {
                out.error = Some(format!("answered {}", out.status.unwrap_or(0)));
            }
        }
        Err(e) => out.error = Some(e.to_string()),
    }
    out
}

/// The distinct http(s) subresources of `html` at `base`, in page order.
fn subresource_urls(html: &str, base: &url::Url) -> Vec<(&'static str, url::Url)> {
    let mut seen = HashSet::new();
    wrench_kit::web::page_links::resources(html)
        .into_iter()
        .filter(|(_, u)| u.len() <= 2048)
        .filter_map(|(k, u)| base.join(&u).ok().map(|u| (k, u)))
        .filter(|(_, u)| matches!(u.scheme(), "http" | "https"))
        .filter(|(_, u)| seen.insert(u.clone()))
        .collect()
}

/// Estimate the carbon emissions of a page view.
///
/// Applies the Sustainable Web Design model v4 (as CO2.js 0.19.0 implements it) to the bytes a
/// view of `url` transfers: by default the HTML alone (as the original service did, and said
/// in `transfer.measured`); with `includeSubresources`, also up to 40 images, scripts,
/// stylesheets, icons, frames and media the HTML names, fetched through the guarded client 4
/// at a time within one outbound timeout. Grid intensities are global (494 g/kWh) unless a
/// country is given per segment (Ember's yearly averages); green hosting comes from the Green
/// Web Foundation's check of the final host unless `green` is given. The answer holds the
/// energy and emissions per segment, grams per view, the rating (A+ to F) with its percentile
/// band, and every constant used.
#[op(post "/v1/carbon/estimate" as carbonEstimate, tag = Lookups,
     rejects = "a URL whose host is not a valid host name or address, or a country that is not in the intensity table",
     uses(network),
     redact(".data.checkedAt"),
     example(html_only, {"url": "http://www.site.example:8080/meta"}),
     example(with_subresources, {"url": "http://green.site.example:8080/meta", "includeSubresources": true, "deviceCountry": "FRA"}),
     example(unknown_country, {"url": "http://www.site.example:8080/", "dataCenterCountry": "XX"}, status = 400),
     example(private_refused, {"url": "http://10.1.1.1/"}, status = 403))]
async fn carbon_estimate(input: CarbonInput, ctx: &Ctx) -> Result<CarbonOutput, ApiError> {
    let grid = Grid {
        data_center: intensity("dataCenterCountry", input.data_center_country.as_deref())?,
        network: intensity("networkCountry", input.network_country.as_deref())?,
        device: intensity("deviceCountry", input.device_country.as_deref())?,
        embodied: GLOBAL_GRID_INTENSITY,
        source: INTENSITY_SOURCE,
    };
    let page = fetch_page(ctx, &input.url).await?;
    // Relative URLs of subresources resolve against the page's `<base href>`, as a browser's do.
    let (page, base) = if input.include_subresources {
        let (page, meta, _) = read_page(page, false).await?;
        let base = meta.base.unwrap_or_else(|| page.final_url.clone());
        (page, base)
    } else {
        let base = page.final_url.clone();
        (page, base)
    };
    let host = page.final_url.host_str().unwrap_or_default().trim_matches(['[', ']']).to_string();
    let mut found = Vec::new();
    let mut subresources = Vec::new();
    let mut skipped = 0;
    let budget = tokio::time::Instant::now() + ctx.net.config.timeout;
    let green = hosting(ctx, &host, input.green);
    let weighed = async {
        if !input.include_subresources {
            return;
        }
        let html = page.html.clone();
        found = wrench_infra::cpu::run(move || Ok(subresource_urls(&html, &base))).await.unwrap_or_default();
        // The futures are made here and only polled by the stream, CONCURRENCY at a time.
        let pending: Vec<_> =
            found.iter().take(MAX_SUBRESOURCES).map(|(kind, url)| weigh(ctx, kind, url.clone())).collect();
        let mut fetches = stream::iter(pending).buffered(CONCURRENCY);
        // What has not arrived when the budget runs out is skipped, not waited for.
        while let Ok(Some(s)) = tokio::time::timeout_at(budget, fetches.next()).await {
            subresources.push(s);
        }
        skipped = found.len() - subresources.len();
    };
    let (hosting, ()) = tokio::join!(green, weighed);
    let html_bytes = page.bytes as u64;
    let subresource_bytes: u64 = subresources.iter().filter_map(|s| s.bytes).sum();
    let total = html_bytes + subresource_bytes;
    let grid_values =
        Intensities { data_center: grid.data_center.value, network: grid.network.value, device: grid.device.value };
    let e = carbon_model::estimate(total, if hosting.green == Some(true) { 1.0 } else { 0.0 }, grid_values);
    let (rating, percentile) = carbon_model::rating(e.grams);
    Ok(CarbonOutput {
        url: page.url.to_string(),
        final_url: page.final_url.to_string(),
        transfer: Transfer {
            measured: if input.include_subresources { "html+subresources" } else { "html" },
            html_bytes,
            subresource_bytes,
            total_bytes: total,
            subresources_found: found.len(),
            subresources,
            subresources_skipped: skipped,
            note: "bytes as delivered without compression (identity encoding); CSS imports, fonts and what scripts load are not followed",
        },
        hosting,
        grid_intensity: grid,
        energy: Energy {
            operational: e.energy_operational,
            embodied: e.energy_embodied,
            total_kwh: e.energy_operational.sum() + e.energy_embodied.sum(),
        },
        co2: Emissions { operational: e.co2_operational, embodied: e.co2_embodied, grams_per_view: e.grams },
        grams_per_view: e.grams,
        rating,
        percentile,
        constants: Constants {
            model: "Sustainable Web Design v4 (CO2.js 0.19.0)",
            operational_kwh_per_gb: OPERATIONAL_KWH_PER_GB,
            embodied_kwh_per_gb: EMBODIED_KWH_PER_GB,
            global_grid_intensity: GLOBAL_GRID_INTENSITY,
            bytes_per_gb: carbon_model::GIGABYTE,
            first_visit_share: 1.0,
            return_visit_share: 0.0,
            ratings: RATINGS.iter().map(|(r, g, p)| RatingBand { rating: r, max_grams: *g, percentile: *p }).collect(),
        },
        checked_at: now_rfc3339(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    async fn estimate(ctx: &Ctx, url: &str) -> CarbonOutput {
        let input = CarbonInput {
            url: url.into(),
            include_subresources: true,
            data_center_country: None,
            network_country: None,
            device_country: None,
            green: Some(false),
        };
        carbon_estimate(input, ctx).await.unwrap()
    }

    /// At most 40 subresources are weighed; the rest are counted as skipped, and the bytes are
    /// the sum of what was weighed.
    #[tokio::test]
    async fn subresources_are_bounded_in_number() {
        let ctx = crate::testing::fake_ctx(&[]);
        let out = estimate(&ctx, "http://www.site.example:8080/heavy?n=60&bytes=1000").await;
        let t = &out.transfer;
        assert_eq!((t.subresources_found, t.subresources.len(), t.subresources_skipped), (60, 40, 20));
        assert_eq!(t.subresource_bytes, 40_000);
        assert_eq!(t.total_bytes, t.html_bytes + 40_000);
        let e = carbon_model::estimate(t.total_bytes, 0.0, Intensities::default());
        assert_eq!(out.grams_per_view, e.grams);
    }

    /// Subresources share one time budget (the outbound timeout): slow ones are skipped and the
    /// estimate still answers, well before each could take its own timeout.
    #[tokio::test]
    async fn subresources_share_one_time_budget() {
        let ctx = crate::testing::fake_ctx(&[("WRENCH_OUTBOUND_TIMEOUT", "1")]);
        let started = std::time::Instant::now();
        let out = estimate(&ctx, "http://www.site.example:8080/heavy?n=12&ms=3000").await;
        assert!(started.elapsed() < std::time::Duration::from_secs(3), "{:?}", started.elapsed());
        assert_eq!(out.transfer.subresources_found, 12);
        // Each is skipped when the budget ends, or reported as timed out when its own timeout
        // (the same length, started a moment later) fires in the same instant.
        let t = &out.transfer;
        assert_eq!(t.subresources_skipped + t.subresources.len(), 12);
        assert!(
            t.subresources.iter().all(|s| s.error.as_deref().is_some_and(|e| e.contains("did not answer"))),
            "{:?}",
            t.subresources
        );
        assert_eq!(out.transfer.total_bytes, out.transfer.html_bytes);
    }
}
