//! Operations whose data lives with a third party (spec 4.4, 4.5, 4.6 and 4.8): breach and
//! phishing checks, weather, air quality, elevation, cryptocurrency prices, name-based
//! estimates and npm package metadata. Every provider is called through `net::provider`, which
//! holds its settings, limits, budget and cache; every answer names its provider and says how
//! old its data is.
//!
//! Every file here is declared below; the build fails naming a file that is not.

pub(crate) mod air_quality;
pub(crate) mod breach;
pub(crate) mod elevation;
pub(crate) mod estimates;
pub(crate) mod exchange;
pub(crate) mod npm;
pub(crate) mod open_meteo;
pub(crate) mod phishing;
pub(crate) mod weather;
