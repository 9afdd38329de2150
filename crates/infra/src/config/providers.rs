//! Settings of the third-party data providers: where each one is reached and, when it takes
//! one, the key it is called with. One pattern for all: `WRENCH_PROVIDER_<NAME>_URL` and
//! `WRENCH_PROVIDER_<NAME>_KEY`, for the providers `crate::providers` declares.
//!
//! `WRENCH_PROVIDER_<NAME>_BUDGET` replaces the request budget wrench keeps toward a provider
//! (by default its published free limits, as its declaration in `providers.rs` states them): for an
//! operator who runs their own compatible service or pays for a higher tier. `0` means no
//! budget; otherwise a comma-separated list of `N/minute`, `N/hour` or `N/day`.
//!
//! A URL's default is the public service's own address, so a keyless provider works out of
//! the box; an empty URL (or `off`) turns the provider off, and the operations that need it
//! then answer 503 PROVIDER_NOT_CONFIGURED naming the setting (or leave out the part it would
//! have given, and say so). A provider's base URL is operator configuration, not caller input,
//! but requests to it still go through the outbound layer, so it is judged like any target: a
//! provider on a private network needs its range in `WRENCH_OUTBOUND_ALLOW`. Keys never appear
//! in `Debug` output, logs or answers.

use std::{collections::BTreeMap, fmt};

use crate::providers::{ALL, KeyUse, Provider, UrlKind};

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

/// One provider's settings.
#[derive(Debug, Clone, Default)]
pub struct ProviderSettings {
    /// `None`: off.
    pub url: Option<url::Url>,
    pub key: Option<Secret>,
    /// The operator's request budget, replacing the provider's published limits: `(limit,
    /// window in seconds)` pairs, empty for none. `None`: the published limits.
    pub budget: Option<Vec<(u32, u64)>>,
}

/// The largest request count one budget window may allow.
const MAX_BUDGET: u32 = 1_000_000_000;

/// A `_BUDGET` value: `0` (none), or `N/minute`, `N/hour`, `N/day`, comma-separated.
fn parse_budget(value: &str) -> Result<Vec<(u32, u64)>, String> {
    let v = value.trim();
    if v == "0" || v.eq_ignore_ascii_case("none") {
        return Ok(Vec::new());
    }
    let bad = || format!("expected 0 (no budget) or N/minute, N/hour or N/day, comma-separated, got {value:?}");
    let mut out = Vec::new();
    for part in v.split(',') {
        let (n, unit) = part.trim().split_once('/').ok_or_else(bad)?;
        let n: u32 = n.trim().parse().ok().filter(|n| (1..=MAX_BUDGET).contains(n)).ok_or_else(bad)?;
        let window = match unit.trim().to_ascii_lowercase().as_str() {
            "minute" | "min" | "m" => 60,
            "hour" | "h" => 3_600,
            "day" | "d" => 86_400,
            _ => return Err(bad()),
        };
        if out.iter().any(|&(_, w)| w == window) {
            return Err(format!("one limit per window, got {value:?}"));
        }
        out.push((n, window));
    }
    Ok(out)
}

/// Every provider setting.
#[derive(Debug, Clone)]
pub struct ProvidersConfig {
    settings: BTreeMap<&'static str, ProviderSettings>,
    /// `WRENCH_PROVIDER_GEOCODER_RATE`: requests a second the geocoder may receive from all
    /// instances together (1 to 1,000). The default, 1, is the public Nominatim's limit.
    pub geocoder_rate: u32,
}

impl Default for ProvidersConfig {
    fn default() -> Self {
        let settings = ALL
            .iter()
            .map(|p| {
                let url = p.default_url.map(|u| url::Url::parse(u).expect("the default parses"));
                (p.id, ProviderSettings { url, key: None, budget: None })
            })
            .collect();
        ProvidersConfig { settings, geocoder_rate: 1 }
    }
}

/// Whether `name` is a provider setting (`WRENCH_PROVIDER_<NAME>_URL`, `_KEY` or `_BUDGET` of
/// a known provider, or the geocoder's rate).
pub fn is_key(name: &str) -> bool {
    name == "WRENCH_PROVIDER_GEOCODER_RATE" || split(name).is_some()
}

/// `(provider, "URL" | "KEY" | "BUDGET")` of a setting's name.
fn split(name: &str) -> Option<(&'static Provider, &'static str)> {
    let rest = name.strip_prefix("WRENCH_PROVIDER_")?;
    let (id, what) = rest.rsplit_once('_')?;
    let what = match what {
        "URL" => "URL",
        "KEY" => "KEY",
        "BUDGET" => "BUDGET",
        _ => return None,
    };
    crate::providers::by_id(id).map(|p| (p, what))
}

/// Every provider setting's name, for the file's keys and the documentation checks.
pub fn keys() -> Vec<String> {
    let mut out: Vec<String> = ALL
        .iter()
        .flat_map(|p| {
            let url = format!("WRENCH_PROVIDER_{}_URL", p.id);
            let key = (p.key != KeyUse::None).then(|| format!("WRENCH_PROVIDER_{}_KEY", p.id));
            let budget = format!("WRENCH_PROVIDER_{}_BUDGET", p.id);
            std::iter::once(url).chain(key).chain(std::iter::once(budget))
        })
        .collect();
    out.push("WRENCH_PROVIDER_GEOCODER_RATE".to_string());
    out
}

impl ProvidersConfig {
    /// The settings of `provider`.
    pub fn get(&self, provider: &Provider) -> &ProviderSettings {
        self.settings.get(provider.id).expect("every declared provider has settings")
    }

    /// The URL of `provider`, `None` when it is off.
    pub fn url(&self, provider: &Provider) -> Option<&url::Url> {
        self.get(provider).url.as_ref()
    }

    /// The key of `provider`, when one is set.
    pub fn key(&self, provider: &Provider) -> Option<&Secret> {
        self.get(provider).key.as_ref()
    }

    /// The operator's budget for `provider`, when one is set (empty: none).
    pub fn budget(&self, provider: &Provider) -> Option<&[(u32, u64)]> {
        self.get(provider).budget.as_deref()
    }

    /// Applies one setting; `name` is the variable's name, for messages.
    pub fn set(&mut self, name: &str, value: &str) -> Result<(), String> {
        if name == "WRENCH_PROVIDER_GEOCODER_RATE" {
            self.geocoder_rate = value
                .trim()
                .parse()
                .ok()
                .filter(|n| (1..=1000).contains(n))
                .ok_or_else(|| format!("expected requests a second, 1 to 1000, got {value:?}"))?;
            return Ok(());
        }
        let Some((def, what)) = split(name) else {
            return Err("not a provider setting".to_string());
        };
        let entry = self.settings.get_mut(def.id).expect("every provider has settings");
        match what {
            "KEY" => {
                if def.key == KeyUse::None {
                    return Err("this provider takes no key".to_string());
                }
                let v = value.trim();
                if v.len() > 256 || !v.bytes().all(|b| b.is_ascii_graphic()) {
                    return Err("expected a key of up to 256 printable ASCII characters".to_string());
                }
                entry.key = Some(Secret(v.to_string())).filter(|s| !s.0.is_empty());
            }
            "BUDGET" => entry.budget = Some(parse_budget(value)?),
            _ => {
                entry.url = match value.trim() {
                    "" | "off" => None,
                    v => Some(parse_url(v, def.url_kind)?),
                };
            }
        }
        Ok(())
    }
}

/// An http or https URL; a base without a query and ending with `/`, so that joining a path
/// keeps all of it.
fn parse_url(value: &str, kind: UrlKind) -> Result<url::Url, String> {
    let mut url = url::Url::parse(value)
        .ok()
        .filter(|u| matches!(u.scheme(), "http" | "https") && u.host().is_some())
        .filter(|u| kind == UrlKind::Exact || u.query().is_none())
        .ok_or_else(|| match kind {
            UrlKind::Base => format!("expected an http or https URL without a query, got {value:?}"),
            UrlKind::Exact => format!("expected an http or https URL, got {value:?}"),
        })?;
    if kind == UrlKind::Base && !url.path().ends_with('/') {
        url.set_path(&format!("{}/", url.path()));
    }
    Ok(url)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::providers::{BINLIST, GREEN_WEB, HIBP, NPM, OPEN_PAGERANK, OPENPHISH};

    #[test]
    fn settings_parse_and_the_key_never_shows() {
        let mut p = ProvidersConfig::default();
        assert!(p.key(&OPEN_PAGERANK).is_none());
        p.set("WRENCH_PROVIDER_OPENPAGERANK_KEY", " s3cret-key ").unwrap();
        assert_eq!(p.key(&OPEN_PAGERANK).unwrap().expose(), "s3cret-key");
        assert!(!format!("{p:?}").contains("s3cret"), "{p:?}");
        p.set("WRENCH_PROVIDER_OPENPAGERANK_URL", "http://127.0.0.2:8080/opr/api/v1.0").unwrap();
        assert_eq!(p.url(&OPEN_PAGERANK).unwrap().as_str(), "http://127.0.0.2:8080/opr/api/v1.0/");
        // Off by `off` or by an empty value; an exact URL keeps its path and query.
        p.set("WRENCH_PROVIDER_GREENWEB_URL", "off").unwrap();
        p.set("WRENCH_PROVIDER_HIBP_URL", "").unwrap();
        assert!(p.url(&GREEN_WEB).is_none() && p.url(&HIBP).is_none());
        p.set("WRENCH_PROVIDER_OPENPHISH_URL", "https://feeds.example/phish.txt?v=2").unwrap();
        assert_eq!(p.url(&OPENPHISH).unwrap().as_str(), "https://feeds.example/phish.txt?v=2");
        // The npm registry has no default.
        assert!(ProvidersConfig::default().url(&NPM).is_none());
        for (k, v) in [
            ("WRENCH_PROVIDER_OPENPAGERANK_URL", "ftp://x.example/"),
            ("WRENCH_PROVIDER_GREENWEB_URL", "http://x.example/?a=1"),
            ("WRENCH_PROVIDER_OPENPAGERANK_KEY", "two words"),
            ("WRENCH_PROVIDER_GEOCODER_RATE", "0"),
            ("WRENCH_PROVIDER_GEOCODER_RATE", "1001"),
            ("WRENCH_PROVIDER_GEOCODER_URL", "nominatim"),
            ("WRENCH_PROVIDER_HIBP_KEY", "abc"),
            ("WRENCH_PROVIDER_BIN_BUDGET", "5"),
            ("WRENCH_PROVIDER_BIN_BUDGET", "5/week"),
            ("WRENCH_PROVIDER_BIN_BUDGET", "0/hour"),
            ("WRENCH_PROVIDER_BIN_BUDGET", "5/hour,6/hour"),
        ] {
            assert!(p.set(k, v).is_err(), "{k}={v:?}");
            // Through the whole configuration, the message names the variable.
            let e = crate::config::Config::from_vars(&[(k.to_string(), v.to_string())]).unwrap_err();
            assert!(e.starts_with(&format!("{k}: ")), "{e}");
        }
        assert!(is_key("WRENCH_PROVIDER_OPENMETEO_AIR_URL") && !is_key("WRENCH_PROVIDER_NOPE_URL"));
        assert!(is_key("WRENCH_PROVIDER_OPENMETEO_AIR_BUDGET"));
        assert!(keys().contains(&"WRENCH_PROVIDER_NPM_KEY".to_string()));
        assert!(keys().contains(&"WRENCH_PROVIDER_BIN_BUDGET".to_string()));
        // A budget replaces the published one; 0 removes it.
        assert_eq!(p.budget(&BINLIST), None);
        p.set("WRENCH_PROVIDER_BIN_BUDGET", "100/minute, 5000/day").unwrap();
        assert_eq!(p.budget(&BINLIST), Some(&[(100, 60), (5000, 86_400)][..]));
        p.set("WRENCH_PROVIDER_BIN_BUDGET", "0").unwrap();
        assert_eq!(p.budget(&BINLIST), Some(&[][..]));
    }
}
