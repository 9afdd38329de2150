//! Lookups answered from data rather than from the network (spec 4.5 and 4.6): time zones,
//! IP geolocation and ASN tables, user agents, phone numbers, holidays, places and card
//! ranges. Small data is embedded and dated; large data sets are files the operator names
//! (`src/datasets/`), and the operations that need one answer 503 DATASET_NOT_INSTALLED
//! until it is there.
//!
//! Every file here is declared below; the build fails naming a file that is not.

pub(crate) mod address;
pub(crate) mod asn_lookup;
pub(crate) mod bin_lookup;
pub(crate) mod disposable_list;
pub(crate) mod geo_distance;
pub(crate) mod geo_point;
pub(crate) mod geocode;
pub(crate) mod geocoder;
pub(crate) mod holidays;
pub(crate) mod hosting;
pub(crate) mod ip_intelligence;
pub(crate) mod ip_lookup;
pub(crate) mod ip_range;
pub(crate) mod on_water;
pub(crate) mod phone;
pub(crate) mod places;
pub(crate) mod timezone;
pub(crate) mod timezone_convert;
pub(crate) mod tor_exits;
pub(crate) mod tzdb;
pub(crate) mod useragent;
pub(crate) mod useragent_rules;

/// Builds the embedded tables that take a moment (the user-agent regexes, the phone
/// metadata, the land and lake polygons, the place index), so the first request that needs one does not wait. Run in the background when
/// the server starts; each is otherwise built on first use.
pub(crate) fn warm_up() {
    let started = std::time::Instant::now();
    let _ = useragent::extractor();
    let _ = phonenumber::parse(None, "+41 44 668 18 00");
    let _ = (on_water::land(), on_water::lakes(), places::index());
    WARMED.store(true, std::sync::atomic::Ordering::Release);
    tracing::info!(ms = started.elapsed().as_millis() as u64, "embedded tables built");
}

/// Whether [`warm_up`] has finished, for `/health`.
pub(crate) static WARMED: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);
