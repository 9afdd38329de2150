//! Settings of the large data sets the operator provides as files (IP geolocation and ASN
//! tables), and how often they are checked for a newer copy on disk.

use std::{path::PathBuf, time::Duration};

use serde::Deserialize;

use super::read::parser;

/// Each field is a setting (the file key is its serde name, the variable `WRENCH_` and that
/// name in upper case).
#[derive(Debug, Clone, Deserialize)]
#[serde(default)]
pub struct DatasetsConfig {
    /// IP geolocation: one or more MaxMind DB (.mmdb) files, comma-separated (the
    /// ip-location-db packages ship IPv4 and IPv6 as two files). GeoIP2/GeoLite2 City schema or
    /// the ip-location-db flat schema.
    #[serde(rename = "geoip_city_db", deserialize_with = "paths")]
    pub geoip_city: Vec<PathBuf>,
    /// IP to ASN: .mmdb (GeoLite2 ASN schema) or CSV ranges (`start,end,asn,organisation`),
    /// one or more files, comma-separated.
    #[serde(rename = "geoip_asn_db", deserialize_with = "paths")]
    pub geoip_asn: Vec<PathBuf>,
    /// Seconds between comparisons of a loaded file with the one on disk (size, modification
    /// time, inode), 0 to 86400; a changed file is loaded beside the old one and replaces it
    /// once whole. 0 checks at every use.
    #[serde(rename = "dataset_recheck_seconds", deserialize_with = "recheck")]
    pub recheck: Duration,
}

impl Default for DatasetsConfig {
    fn default() -> Self {
        DatasetsConfig { geoip_city: Vec::new(), geoip_asn: Vec::new(), recheck: Duration::from_secs(60) }
    }
}

parser!(paths -> Vec<PathBuf> = |v| Ok(super::list(v).map(PathBuf::from).collect()));
parser!(recheck -> Duration = |v| {
    v.trim()
        .parse()
        .ok()
        .filter(|s| *s <= 86_400)
        .map(Duration::from_secs)
        .ok_or_else(|| format!("expected seconds from 0 to 86400, got {v:?}"))
});

#[cfg(test)]
mod tests {
    use super::*;

    fn with(list: &[(&str, &str)]) -> Result<DatasetsConfig, String> {
        let vars: Vec<(String, String)> = list.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
        super::super::Config::from_vars(&vars).map(|c| c.datasets)
    }

    #[test]
    fn lists_of_files_and_the_interval_parse() {
        let d = with(&[("WRENCH_GEOIP_CITY_DB", "a/v4.mmdb, b/v6.mmdb,"), ("WRENCH_DATASET_RECHECK_SECONDS", "0")])
            .unwrap();
        assert_eq!(d.geoip_city, vec![PathBuf::from("a/v4.mmdb"), PathBuf::from("b/v6.mmdb")]);
        assert_eq!(d.recheck, Duration::ZERO);
        let e = with(&[("WRENCH_DATASET_RECHECK_SECONDS", "-1")]).unwrap_err();
        assert!(e.starts_with("WRENCH_DATASET_RECHECK_SECONDS: "), "{e}");
    }
}
