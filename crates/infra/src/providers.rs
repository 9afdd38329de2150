//! Every third-party provider wrench can call, each declared once, here: its name, the
//! public address it defaults to, whether it takes a key, how long one answer may take and
//! how large it may be, the request budget its published limits allow, and how long an answer
//! is kept. The settings (`config::providers`: `WRENCH_PROVIDER_<ID>_URL`, `_KEY`,
//! `_BUDGET`), the calls (`outbound::provider`) and the feeds (`outbound::feed`) all read these
//! declarations, and an operation names a provider by its constant, never by its id.
//!
//! They sit below the operations because the settings check them when wrench starts (a
//! misspelt provider variable stops the start), and because the shared clients of
//! `wrench-kit` (the geocoder, Open-Meteo, the Tor exit list) call three of them.
//!
//! The limits are the providers' own published ones, as of the date each file that calls
//! them names; an operator who pays for more replaces them with `_BUDGET`.

use std::time::Duration;

/// Whether a provider takes a key.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KeyUse {
    /// No key exists for it.
    None,
    /// A key raises its limits or unlocks a paid plan; it works without.
    Optional,
    /// It refuses requests without one.
    Required,
}

/// What a provider's URL setting names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum UrlKind {
    /// An API's base: paths are joined under it, so it is kept ending in `/`.
    Base,
    /// A resource fetched as it is (a feed or list).
    Exact,
}

/// How many requests a provider may receive in a clock window, from every instance together.
#[derive(Debug, Clone, Copy)]
pub struct Budget {
    pub limit: u32,
    /// The window, in seconds: 60, 3,600 or 86,400.
    pub window: u64,
    /// Only while no key is set (the free tier of a provider whose key raises the limit).
    pub without_key_only: bool,
}

impl Budget {
    pub const fn per_minute(limit: u32) -> Budget {
        Budget { limit, window: 60, without_key_only: false }
    }

    pub const fn per_hour(limit: u32) -> Budget {
        Budget { limit, window: 3_600, without_key_only: false }
    }

    pub const fn per_day(limit: u32) -> Budget {
        Budget { limit, window: 86_400, without_key_only: false }
    }

    /// The same budget, kept only while no key is set.
    pub const fn without_key(self) -> Budget {
        Budget { without_key_only: true, ..self }
    }

    /// The window's name, for messages.
    pub fn unit(&self) -> &'static str {
        match self.window {
            60 => "minute",
            3_600 => "hour",
            _ => "day",
        }
    }
}

/// A provider, as declared once.
#[derive(Debug)]
pub struct Provider {
    /// The settings' middle part: `HIBP` is set by `WRENCH_PROVIDER_HIBP_URL` and `_KEY`.
    pub id: &'static str,
    /// As messages name it: `Have I Been Pwned`.
    pub name: &'static str,
    /// The public service's address; `None` where none may be written into the repository
    /// (the npm registry), so the operator names it.
    pub default_url: Option<&'static str>,
    pub url_kind: UrlKind,
    pub key: KeyUse,
    /// Longest wait for one answer, redirects included; the provider's own, in place of
    /// `WRENCH_OUTBOUND_TIMEOUT`.
    pub timeout: Duration,
    /// Largest answer read; the provider's own, in place of `WRENCH_OUTBOUND_MAX_BYTES`.
    pub max_bytes: usize,
    /// Every limit it publishes; none where it publishes none (the time limit and the cache
    /// are then the only brakes).
    pub budgets: &'static [Budget],
    /// How long an answer is kept in the store (a feed: how long before it is fetched again);
    /// `None`: answers are not kept.
    pub cache_for: Option<Duration>,
}

const SECONDS_A_DAY: u64 = 86_400;

/// The settings' defaults of a keyless API: ten seconds, no budget, not cached.
const API: Provider = Provider {
    id: "",
    name: "",
    default_url: None,
    url_kind: UrlKind::Base,
    key: KeyUse::None,
    timeout: Duration::from_secs(10),
    max_bytes: 64 * 1024,
    budgets: &[],
    cache_for: None,
};

/// Open PageRank: ranks of domains; a free key, 10,000 requests an hour.
pub const OPEN_PAGERANK: Provider = Provider {
    id: "OPENPAGERANK",
    name: "Open PageRank",
    default_url: Some("https://openpagerank.com/api/v1.0/"),
    key: KeyUse::Required,
    max_bytes: 256 * 1024,
    budgets: &[Budget::per_hour(10_000)],
    cache_for: Some(Duration::from_secs(SECONDS_A_DAY)),
    ..API
};

/// The Green Web Foundation's check of a host's energy.
pub const GREEN_WEB: Provider = Provider {
    id: "GREENWEB",
    name: "Green Web Foundation",
    default_url: Some("https://api.thegreenwebfoundation.org/api/v3/greencheck/"),
    cache_for: Some(Duration::from_secs(SECONDS_A_DAY)),
    ..API
};

/// binlist.net: the issuer of a card number's first digits; 5 requests an hour.
pub const BINLIST: Provider = Provider {
    id: "BIN",
    name: "BIN lookup",
    default_url: Some("https://lookup.binlist.net/"),
    budgets: &[Budget::per_hour(5)],
    cache_for: Some(Duration::from_secs(30 * SECONDS_A_DAY)),
    ..API
};

/// The Tor Project's list of exit addresses, refreshed hourly.
pub const TOR_EXITS: Provider = Provider {
    id: "TOREXITS",
    name: "the Tor exit list",
    default_url: Some("https://check.torproject.org/torbulkexitlist"),
    url_kind: UrlKind::Exact,
    max_bytes: 4 * 1024 * 1024,
    cache_for: Some(Duration::from_secs(3_600)),
    ..API
};

/// Nominatim, the live geocoder; its budget is the turns of `WRENCH_PROVIDER_GEOCODER_RATE`.
pub const GEOCODER: Provider = Provider {
    id: "GEOCODER",
    name: "the live geocoder",
    default_url: Some("https://nominatim.openstreetmap.org/"),
    max_bytes: 512 * 1024,
    cache_for: Some(Duration::from_secs(7 * SECONDS_A_DAY)),
    ..API
};

/// Have I Been Pwned's range API. Its answers are not kept: it publishes no rate limit and is
/// served from a CDN, and a stored range would tie the time of a request to a prefix of its
/// password's hash.
pub const HIBP: Provider = Provider {
    id: "HIBP",
    name: "Have I Been Pwned (Pwned Passwords)",
    default_url: Some("https://api.pwnedpasswords.com/"),
    // A range is about 800 suffixes of 40 bytes, about 2,000 with padding.
    max_bytes: 256 * 1024,
    ..API
};

/// OpenPhish's community feed, refreshed hourly.
pub const OPENPHISH: Provider = Provider {
    id: "OPENPHISH",
    name: "the OpenPhish feed",
    default_url: Some("https://openphish.com/feed.txt"),
    url_kind: UrlKind::Exact,
    timeout: Duration::from_secs(15),
    max_bytes: 32 * 1024 * 1024,
    cache_for: Some(Duration::from_secs(3_600)),
    ..API
};

/// abuse.ch's URLhaus; a free key.
pub const URLHAUS: Provider = Provider {
    id: "URLHAUS",
    name: "URLhaus",
    default_url: Some("https://urlhaus-api.abuse.ch/v1/"),
    key: KeyUse::Required,
    max_bytes: 1024 * 1024,
    cache_for: Some(Duration::from_secs(3_600)),
    ..API
};

/// Open-Meteo's free tier: 600 requests a minute, 5,000 an hour and 10,000 a day without a
/// key; a key (the commercial API) lifts them.
const OPEN_METEO_FREE_TIER: &[Budget] = &[
    Budget::per_minute(600).without_key(),
    Budget::per_hour(5_000).without_key(),
    Budget::per_day(10_000).without_key(),
];

/// Open-Meteo's forecast; a forecast is kept 10 minutes.
pub const OPENMETEO_FORECAST: Provider = Provider {
    id: "OPENMETEO",
    name: "Open-Meteo (forecast)",
    default_url: Some("https://api.open-meteo.com/v1/"),
    key: KeyUse::Optional,
    budgets: OPEN_METEO_FREE_TIER,
    cache_for: Some(Duration::from_secs(10 * 60)),
    ..API
};

/// Open-Meteo's air quality; the models run hourly, so an answer is kept 30 minutes.
pub const OPENMETEO_AIR: Provider = Provider {
    id: "OPENMETEO_AIR",
    name: "Open-Meteo (air quality)",
    default_url: Some("https://air-quality-api.open-meteo.com/v1/"),
    key: KeyUse::Optional,
    budgets: OPEN_METEO_FREE_TIER,
    cache_for: Some(Duration::from_secs(30 * 60)),
    ..API
};

/// Open-Meteo's elevation; the terrain model does not change, so an answer is kept 30 days.
pub const OPENMETEO_ELEVATION: Provider = Provider {
    id: "OPENMETEO_ELEVATION",
    name: "Open-Meteo (elevation)",
    default_url: Some("https://api.open-meteo.com/v1/"),
    key: KeyUse::Optional,
    budgets: OPEN_METEO_FREE_TIER,
    cache_for: Some(Duration::from_secs(30 * SECONDS_A_DAY)),
    ..API
};

/// CoinGecko. Without a key the public API allows about 10 a minute; with one, CoinGecko
/// counts (30 a minute on the demo plan, more on paid ones) and refuses the excess with 429.
/// Prices are kept a minute (the search, whose answers change far more slowly, keeps its own
/// hour: `lookups/providers/exchange.rs`).
pub const COINGECKO: Provider = Provider {
    id: "COINGECKO",
    name: "CoinGecko",
    default_url: Some("https://api.coingecko.com/api/v3/"),
    key: KeyUse::Optional,
    max_bytes: 512 * 1024,
    budgets: &[Budget::per_minute(10).without_key()],
    cache_for: Some(Duration::from_secs(60)),
    ..API
};

/// The free tier of agify, genderize and nationalize: 100 names a day across the three,
/// without a key; a key raises it, and the budget is then the provider's to enforce.
/// Estimates change slowly: answers are kept 30 days.
const NAME_ESTIMATES: Provider = Provider {
    key: KeyUse::Optional,
    max_bytes: 16 * 1024,
    budgets: &[Budget::per_day(100).without_key()],
    cache_for: Some(Duration::from_secs(30 * SECONDS_A_DAY)),
    ..API
};

pub const AGIFY: Provider =
    Provider { id: "AGIFY", name: "agify.io", default_url: Some("https://api.agify.io/"), ..NAME_ESTIMATES };

pub const GENDERIZE: Provider = Provider {
    id: "GENDERIZE",
    name: "genderize.io",
    default_url: Some("https://api.genderize.io/"),
    ..NAME_ESTIMATES
};

pub const NATIONALIZE: Provider = Provider {
    id: "NATIONALIZE",
    name: "nationalize.io",
    default_url: Some("https://api.nationalize.io/"),
    ..NAME_ESTIMATES
};

/// An npm registry; the operator names it. Package documents can be large (8 MiB read at
/// most); they are kept 10 minutes.
pub const NPM: Provider = Provider {
    id: "NPM",
    name: "the npm registry",
    key: KeyUse::Optional,
    timeout: Duration::from_secs(15),
    max_bytes: 8 * 1024 * 1024,
    cache_for: Some(Duration::from_secs(600)),
    ..API
};

/// Every provider, in the README's order.
pub const ALL: &[&Provider] = &[
    &OPEN_PAGERANK,
    &GREEN_WEB,
    &BINLIST,
    &TOR_EXITS,
    &GEOCODER,
    &HIBP,
    &OPENPHISH,
    &URLHAUS,
    &OPENMETEO_FORECAST,
    &OPENMETEO_AIR,
    &OPENMETEO_ELEVATION,
    &COINGECKO,
    &AGIFY,
    &GENDERIZE,
    &NATIONALIZE,
    &NPM,
];

/// The provider whose settings are `WRENCH_PROVIDER_<id>_*`.
pub fn by_id(id: &str) -> Option<&'static Provider> {
    ALL.iter().copied().find(|p| p.id == id)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_unique_and_every_provider_is_whole() {
        let mut ids = std::collections::HashSet::new();
        for p in ALL {
            assert!(ids.insert(p.id), "{} twice", p.id);
            assert!(!p.id.is_empty() && p.id.bytes().all(|b| b.is_ascii_uppercase() || b == b'_'), "{}", p.id);
            assert!(!p.name.is_empty(), "{}", p.id);
            if let Some(u) = p.default_url {
                let url = url::Url::parse(u).unwrap();
                assert_eq!(url.scheme(), "https", "{}", p.id);
                assert!(p.url_kind == UrlKind::Exact || u.ends_with('/'), "{}", p.id);
            }
        }
    }
}
