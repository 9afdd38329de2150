//! Lookups: DNS, TLS, WHOIS and web pages; IP addresses, networks and ASNs; places, time zones,
//! phone numbers, holidays and user agents; and the figures third-party providers answer
//! (weather, air quality, elevation, prices, estimates, npm). Everything that contacts a host goes
//! through the outbound layer (`wrench_infra::net`); small data sets are embedded and dated, and
//! large ones are files the operator names (`wrench_infra::datasets`).
//!
//! Every file here is declared below; the build fails naming a file that is not.

pub(crate) mod accessibility;
pub(crate) mod address;
pub(crate) mod air_quality;
pub(crate) mod asn_lookup;
pub(crate) mod bin_lookup;
pub(crate) mod carbon;
pub(crate) mod company;
pub(crate) mod disposable_list;
pub(crate) mod dns;
pub(crate) mod dns_monitor;
pub(crate) mod domain_report;
pub(crate) mod domain_search;
pub(crate) mod elevation;
pub(crate) mod email_security;
pub(crate) mod email_validate;
pub(crate) mod estimates;
pub(crate) mod exchange;
pub(crate) mod favicon;
pub(crate) mod geo_distance;
pub(crate) mod geocode;
pub(crate) mod headers;
pub(crate) mod holidays;
pub(crate) mod ip_intelligence;
pub(crate) mod ip_lookup;
pub(crate) mod ip_range;
pub(crate) mod npm;
pub(crate) mod on_water;
pub(crate) mod page_rank;
pub(crate) mod performance;
pub(crate) mod phone;
pub(crate) mod propagation;
pub(crate) mod redirect_trace;
pub(crate) mod ssl;
pub(crate) mod ssl_cert;
pub(crate) mod timezone;
pub(crate) mod timezone_convert;
pub(crate) mod tls_fingerprint;
pub(crate) mod url_metadata;
pub(crate) mod useragent;
pub(crate) mod weather;
pub(crate) mod whois;
