//! Settings of the large data sets the operator provides as files (IP geolocation and ASN
//! tables), and how often they are checked for a newer copy on disk.

use std::{path::PathBuf, time::Duration};

#[derive(Debug, Clone)]
pub struct DatasetsConfig {
    /// `WRENCH_GEOIP_CITY_DB`: IP geolocation, one or more MaxMind DB (.mmdb) files separated
    /// by commas (the ip-location-db packages ship IPv4 and IPv6 as two files). GeoIP2/GeoLite2
    /// City schema or the ip-location-db flat schema.
    pub geoip_city: Vec<PathBuf>,
    /// `WRENCH_GEOIP_ASN_DB`: IP to ASN, .mmdb (GeoLite2 ASN schema) or CSV ranges
    /// (`start,end,asn,organisation`), one or more files separated by commas.
    pub geoip_asn: Vec<PathBuf>,
    /// `WRENCH_DATASET_RECHECK_SECONDS`: how often a loaded file is compared with the one on
    /// disk (size, modification time, inode); a changed file is loaded beside the old one and
    /// replaces it once whole. 0 checks at every use.
    pub recheck: Duration,
}

impl Default for DatasetsConfig {
    fn default() -> Self {
        DatasetsConfig { geoip_city: Vec::new(), geoip_asn: Vec::new(), recheck: Duration::from_secs(60) }
    }
}

/// The variables read here.
pub const KEYS: &[&str] = &["WRENCH_GEOIP_CITY_DB", "WRENCH_GEOIP_ASN_DB", "WRENCH_DATASET_RECHECK_SECONDS"];

fn paths(value: &str) -> Vec<PathBuf> {
    value.split(',').map(str::trim).filter(|s| !s.is_empty()).map(PathBuf::from).collect()
}

impl DatasetsConfig {
    pub fn set(&mut self, name: &str, value: &str) -> Result<(), String> {
        match name {
            "WRENCH_GEOIP_CITY_DB" => self.geoip_city = paths(value),
            "WRENCH_GEOIP_ASN_DB" => self.geoip_asn = paths(value),
            "WRENCH_DATASET_RECHECK_SECONDS" => {
                let secs: u64 = value
                    .trim()
                    .parse()
                    .ok()
                    .filter(|s| *s <= 86_400)
                    .ok_or_else(|| format!("{name}: expected seconds from 0 to 86400, got {value:?}"))?;
                self.recheck = Duration::from_secs(secs);
            }
            _ => return Err(format!("{name}: not a data-set setting")),
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lists_of_files_and_the_interval_parse() {
        let mut d = DatasetsConfig::default();
        d.set("WRENCH_GEOIP_CITY_DB", "a/v4.mmdb, b/v6.mmdb,").unwrap();
        assert_eq!(d.geoip_city, vec![PathBuf::from("a/v4.mmdb"), PathBuf::from("b/v6.mmdb")]);
        d.set("WRENCH_DATASET_RECHECK_SECONDS", "0").unwrap();
        assert_eq!(d.recheck, Duration::ZERO);
        assert!(
            d.set("WRENCH_DATASET_RECHECK_SECONDS", "-1").unwrap_err().starts_with("WRENCH_DATASET_RECHECK_SECONDS")
        );
    }
}
