//! The Sustainable Web Design model, version 4, as the Green Web Foundation's CO2.js 0.19.0
//! implements it (`sustainable-web-design-v4.js`): energy per gigabyte transferred for three
//! segments (data centre, network, user device), split into operational and embodied energy;
//! operational energy is multiplied by each segment's grid intensity, embodied energy always
//! by the global intensity; green hosting removes the data centre's operational emissions.
//! Per view, v4's defaults count every view as a first visit (no returning-visitor discount).
//!
//! Constants are facts of the published model; grid intensities per country are Ember's yearly
//! averages as CO2.js ships them (`data/carbon/average-intensities.json`). The tests compare
//! with figures CO2.js itself produced (`tests/fixtures/co2js-swd-v4.json`).

use std::{collections::BTreeMap, sync::OnceLock};

use serde::Serialize;

/// Bytes in a (decimal) gigabyte, as CO2.js counts.
pub const GIGABYTE: f64 = 1e9;
/// The model's global grid intensity, gCO2e/kWh (v4's constant, not the table's `WORLD`).
pub const GLOBAL_GRID_INTENSITY: f64 = 494.0;

/// kWh per GB of one segment.
#[derive(Debug, Clone, Copy, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Segments {
    pub data_center: f64,
    pub network: f64,
    pub device: f64,
}

impl Segments {
    pub fn sum(&self) -> f64 {
        self.data_center + self.network + self.device
    }

    fn scale(&self, by: f64) -> Segments {
        Segments { data_center: self.data_center * by, network: self.network * by, device: self.device * by }
    }
}

pub const OPERATIONAL_KWH_PER_GB: Segments = Segments { data_center: 0.055, network: 0.059, device: 0.080 };
pub const EMBODIED_KWH_PER_GB: Segments = Segments { data_center: 0.012, network: 0.013, device: 0.081 };

/// The upper bounds of the rating bands, grams per view, and the percentile of the HTTP
/// Archive's pages each stands for: A+ is the cleanest 5 %, E reaches the median.
pub const RATINGS: [(&str, f64, u8); 6] =
    [("A+", 0.040, 5), ("A", 0.079, 10), ("B", 0.145, 20), ("C", 0.209, 30), ("D", 0.278, 40), ("E", 0.359, 50)];

/// The rating letter of `grams` per view, and the percentile bound of its band (`None` for F).
pub fn rating(grams: f64) -> (&'static str, Option<u8>) {
    RATINGS.iter().find(|(_, max, _)| grams <= *max).map_or(("F", None), |(l, _, p)| (*l, Some(*p)))
}

/// Grid intensities of the operational segments, gCO2e/kWh.
#[derive(Debug, Clone, Copy)]
pub struct Intensities {
    pub data_center: f64,
    pub network: f64,
    pub device: f64,
}

impl Default for Intensities {
    fn default() -> Self {
        Intensities {
            data_center: GLOBAL_GRID_INTENSITY,
            network: GLOBAL_GRID_INTENSITY,
            device: GLOBAL_GRID_INTENSITY,
        }
    }
}

/// The model's result for one view.
#[derive(Debug, Clone, Copy)]
pub struct Estimate {
    pub energy_operational: Segments,
    pub energy_embodied: Segments,
    pub co2_operational: Segments,
    pub co2_embodied: Segments,
    /// Grams of CO2e per view, green hosting applied.
    pub grams: f64,
}

/// The estimate for `bytes` transferred per view; `green` is the share of the data centre's
/// energy from renewable sources (1 when the host is verified green).
pub fn estimate(bytes: u64, green: f64, grid: Intensities) -> Estimate {
    let gb = bytes as f64 / GIGABYTE;
    let energy_operational = OPERATIONAL_KWH_PER_GB.scale(gb);
    let energy_embodied = EMBODIED_KWH_PER_GB.scale(gb);
    let co2_operational = Segments {
        data_center: energy_operational.data_center * grid.data_center,
        network: energy_operational.network * grid.network,
        device: energy_operational.device * grid.device,
    };
    let co2_embodied = energy_embodied.scale(GLOBAL_GRID_INTENSITY);
    // CO2.js answers 0 for less than one byte.
    let grams = if bytes < 1 {
        0.0
    } else {
        co2_operational.data_center * (1.0 - green)
            + co2_operational.network
            + co2_operational.device
            + co2_embodied.sum()
    };
    Estimate { energy_operational, energy_embodied, co2_operational, co2_embodied, grams }
}

/// Ember's yearly average grid intensity by ISO 3166-1 alpha-3 code (and regions such as `EU`
/// or `WORLD`), gCO2e/kWh.
pub fn country_intensities() -> &'static BTreeMap<String, f64> {
    static TABLE: OnceLock<BTreeMap<String, f64>> = OnceLock::new();
    TABLE.get_or_init(|| {
        #[derive(serde::Deserialize)]
        struct File {
            data: BTreeMap<String, f64>,
        }
        let file: File = serde_json::from_str(include_str!("../../../../data/carbon/average-intensities.json"))
            .expect("the embedded grid intensities parse");
        file.data
    })
}

/// Where the embedded intensities come from, for answers.
pub const INTENSITY_SOURCE: &str = "Ember yearly average grid intensity (CC BY-SA 4.0), as CO2.js 0.19.0 ships it";

#[cfg(test)]
mod tests {
    use super::*;

    /// Every case CO2.js computed: segments, total and rating agree to floating-point noise.
    #[test]
    fn agrees_with_co2js() {
        let fixture: serde_json::Value =
            serde_json::from_str(include_str!("../../../../tests/fixtures/co2js-swd-v4.json")).unwrap();
        let cases = fixture["cases"].as_array().unwrap();
        assert_eq!(cases.len(), 24);
        let table = country_intensities();
        for c in cases {
            let bytes = c["bytes"].as_u64().unwrap();
            let green = if c["green"].as_bool().unwrap() { 1.0 } else { 0.0 };
            let grid = match c["countries"].as_object() {
                None => Intensities::default(),
                Some(k) => {
                    let at = |s: &str| table[k[s].as_str().unwrap()];
                    Intensities { data_center: at("dataCenter"), network: at("network"), device: at("device") }
                }
            };
            let e = estimate(bytes, green, grid);
            let r = &c["result"];
            let close = |ours: f64, key: &str| {
                let theirs = r[key].as_f64().unwrap();
                assert!(
                    (ours - theirs).abs() <= 1e-9 * theirs.abs().max(1e-12),
                    "{key} {bytes} {c}: {ours} vs {theirs}"
                );
            };
            close(e.co2_operational.data_center, "dataCenterOperationalCO2e");
            close(e.co2_operational.network, "networkOperationalCO2e");
            close(e.co2_operational.device, "consumerDeviceOperationalCO2e");
            close(e.co2_embodied.data_center, "dataCenterEmbodiedCO2e");
            close(e.co2_embodied.sum(), "totalEmbodiedCO2e");
            close(e.grams, "total");
            assert_eq!(rating(e.grams).0, r["rating"].as_str().unwrap(), "{c}");
        }
    }

    #[test]
    fn the_table_has_the_countries_and_the_model_its_defaults() {
        let t = country_intensities();
        assert!(t.len() > 200, "{}", t.len());
        assert_eq!(t["FRA"], 44.18);
        // 148.2 g per GB not green, 121.03 green: the model's published per-GB figures.
        assert!((estimate(1_000_000_000, 0.0, Intensities::default()).grams - 148.2).abs() < 1e-9);
        assert!((estimate(1_000_000_000, 1.0, Intensities::default()).grams - 121.03).abs() < 1e-9);
        assert_eq!(estimate(0, 0.0, Intensities::default()).grams, 0.0);
        assert_eq!(rating(0.040), ("A+", Some(5)));
        assert_eq!(rating(0.0401), ("A", Some(10)));
        assert_eq!(rating(0.36), ("F", None));
    }
}
