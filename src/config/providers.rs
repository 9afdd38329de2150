//! Settings of the third-party data providers: where each one is reached and, when it needs
//! one, the key it is called with.
//!
//! A provider's base URL is operator configuration, not caller input, but requests to it still
//! go through the outbound layer, so it is judged like any target: a provider on a private
//! network needs its range in `WRENCH_OUTBOUND_ALLOW`. Keys never appear in `Debug` output,
//! logs or answers.

use std::fmt;

/// A key that is used but never shown.
#[derive(Clone, PartialEq, Eq)]
pub struct Secret(String);

impl Secret {
    pub fn expose(&self) -> &str {
        &self.0
    }
}

impl fmt::Debug for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Secret(..)")
    }
}

/// Every provider setting.
#[derive(Debug, Clone)]
pub struct ProvidersConfig {
    /// `WRENCH_PROVIDER_OPENPAGERANK_KEY`: the Open PageRank API key (`API-OPR` header); without
    /// it `page-rank/check` answers 503 PROVIDER_NOT_CONFIGURED.
    pub openpagerank_key: Option<Secret>,
    /// `WRENCH_PROVIDER_OPENPAGERANK_URL`: the API's base; `getPageRank` is requested under it.
    pub openpagerank_url: url::Url,
    /// `WRENCH_PROVIDER_GREENWEB_URL`: the Green Web Foundation's greencheck API base; the host
    /// name is appended. `off` disables the check (hosting is then reported unknown).
    pub greenweb_url: Option<url::Url>,
    /// `WRENCH_PROVIDER_BIN_URL`: a binlist-compatible BIN service (`{base}{bin}`, JSON as
    /// binlist.net answers with `Accept-Version: 3`); `off` disables it (issuer, country and
    /// card type are then reported unknown).
    pub bin_url: Option<url::Url>,
    /// `WRENCH_PROVIDER_TOREXITS_URL`: the Tor project's bulk exit list (one address per
    /// line), fetched when first needed and refreshed hourly; `off` disables the Tor check.
    pub torexits_url: Option<url::Url>,
    /// `WRENCH_PROVIDER_GEOCODER_URL`: a Nominatim-compatible geocoder (`{base}search`,
    /// `{base}reverse`, `format=jsonv2`) for street-level answers of the geocoding operations;
    /// `off` keeps them offline and city-level.
    pub geocoder_url: Option<url::Url>,
    /// `WRENCH_PROVIDER_GEOCODER_RATE`: requests a second the geocoder may receive from all
    /// instances together (1 to 1,000). The default, 1, is the public Nominatim's limit.
    pub geocoder_rate: u32,
}

pub const DEFAULT_OPENPAGERANK_URL: &str = "https://openpagerank.com/api/v1.0/";
pub const DEFAULT_GREENWEB_URL: &str = "https://api.thegreenwebfoundation.org/api/v3/greencheck/";
pub const DEFAULT_BIN_URL: &str = "https://lookup.binlist.net/";
pub const DEFAULT_TOREXITS_URL: &str = "https://check.torproject.org/torbulkexitlist";
pub const DEFAULT_GEOCODER_URL: &str = "https://nominatim.openstreetmap.org/";

impl Default for ProvidersConfig {
    fn default() -> Self {
        ProvidersConfig {
            openpagerank_key: None,
            openpagerank_url: url::Url::parse(DEFAULT_OPENPAGERANK_URL).expect("the default parses"),
            greenweb_url: Some(url::Url::parse(DEFAULT_GREENWEB_URL).expect("the default parses")),
            bin_url: Some(url::Url::parse(DEFAULT_BIN_URL).expect("the default parses")),
            torexits_url: Some(url::Url::parse(DEFAULT_TOREXITS_URL).expect("the default parses")),
            geocoder_url: Some(url::Url::parse(DEFAULT_GEOCODER_URL).expect("the default parses")),
            geocoder_rate: 1,
        }
    }
}

/// The variables read here.
pub const KEYS: &[&str] = &[
    "WRENCH_PROVIDER_OPENPAGERANK_KEY",
    "WRENCH_PROVIDER_OPENPAGERANK_URL",
    "WRENCH_PROVIDER_GREENWEB_URL",
    "WRENCH_PROVIDER_BIN_URL",
    "WRENCH_PROVIDER_TOREXITS_URL",
    "WRENCH_PROVIDER_GEOCODER_URL",
    "WRENCH_PROVIDER_GEOCODER_RATE",
];

impl ProvidersConfig {
    /// Applies one setting; `name` is the variable's name, for messages.
    pub fn set(&mut self, name: &str, value: &str) -> Result<(), String> {
        match name {
            "WRENCH_PROVIDER_OPENPAGERANK_KEY" => {
                let v = value.trim();
                if v.len() > 256 || !v.bytes().all(|b| b.is_ascii_graphic()) {
                    return Err(format!("{name}: expected a key of up to 256 printable ASCII characters"));
                }
                self.openpagerank_key = Some(Secret(v.to_string())).filter(|s| !s.0.is_empty());
            }
            "WRENCH_PROVIDER_OPENPAGERANK_URL" => self.openpagerank_url = base_url(name, value)?,
            "WRENCH_PROVIDER_GREENWEB_URL" => {
                self.greenweb_url = if value.trim() == "off" { None } else { Some(base_url(name, value)?) };
            }
            "WRENCH_PROVIDER_BIN_URL" => {
                self.bin_url = if value.trim() == "off" { None } else { Some(base_url(name, value)?) };
            }
            "WRENCH_PROVIDER_TOREXITS_URL" => {
                self.torexits_url = match value.trim() {
                    "off" => None,
                    v => Some(
                        url::Url::parse(v)
                            .ok()
                            .filter(|u| matches!(u.scheme(), "http" | "https") && u.host().is_some())
                            .ok_or_else(|| format!("{name}: expected an http or https URL, got {value:?}"))?,
                    ),
                };
            }
            "WRENCH_PROVIDER_GEOCODER_URL" => {
                self.geocoder_url = if value.trim() == "off" { None } else { Some(base_url(name, value)?) };
            }
            "WRENCH_PROVIDER_GEOCODER_RATE" => {
                self.geocoder_rate = value
                    .trim()
                    .parse()
                    .ok()
                    .filter(|n| (1..=1000).contains(n))
                    .ok_or_else(|| format!("{name}: expected requests a second, 1 to 1000, got {value:?}"))?;
            }
            _ => return Err(format!("{name}: not a provider setting")),
        }
        Ok(())
    }
}

/// An http or https URL that ends with `/`, so that joining a path keeps all of it.
fn base_url(name: &str, value: &str) -> Result<url::Url, String> {
    let mut url = url::Url::parse(value.trim())
        .ok()
        .filter(|u| matches!(u.scheme(), "http" | "https") && u.host().is_some() && u.query().is_none())
        .ok_or_else(|| format!("{name}: expected an http or https URL without a query, got {value:?}"))?;
    if !url.path().ends_with('/') {
        url.set_path(&format!("{}/", url.path()));
    }
    Ok(url)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn settings_parse_and_the_key_never_shows() {
        let mut p = ProvidersConfig::default();
        assert!(p.openpagerank_key.is_none());
        p.set("WRENCH_PROVIDER_OPENPAGERANK_KEY", " s3cret-key ").unwrap();
        assert_eq!(p.openpagerank_key.as_ref().unwrap().expose(), "s3cret-key");
        assert!(!format!("{p:?}").contains("s3cret"), "{p:?}");
        p.set("WRENCH_PROVIDER_OPENPAGERANK_URL", "http://127.0.0.2:8080/opr/api/v1.0").unwrap();
        assert_eq!(p.openpagerank_url.as_str(), "http://127.0.0.2:8080/opr/api/v1.0/");
        p.set("WRENCH_PROVIDER_GREENWEB_URL", "off").unwrap();
        assert!(p.greenweb_url.is_none());
        for (k, v) in [
            ("WRENCH_PROVIDER_OPENPAGERANK_URL", "ftp://x.example/"),
            ("WRENCH_PROVIDER_GREENWEB_URL", "http://x.example/?a=1"),
            ("WRENCH_PROVIDER_OPENPAGERANK_KEY", "two words"),
            ("WRENCH_PROVIDER_GEOCODER_RATE", "0"),
            ("WRENCH_PROVIDER_GEOCODER_RATE", "1001"),
            ("WRENCH_PROVIDER_GEOCODER_URL", "nominatim"),
        ] {
            let e = p.set(k, v).unwrap_err();
            assert!(e.starts_with(k), "{e}");
        }
    }
}
