//! Figures that third-party providers answer, each provider named, keyed and budgeted by the operator: weather, air quality, prices, estimates, npm packages, PageRank and card issuers.

pub(crate) mod air_quality;
pub(crate) mod bin_lookup;
pub(crate) mod estimates;
pub(crate) mod exchange;
pub(crate) mod npm;
pub(crate) mod page_rank;
pub(crate) mod weather;
