//! Lookups: DNS, TLS, WHOIS and web pages; IP addresses, networks and ASNs; places, time zones,
//! phone numbers, holidays and user agents; and the figures third-party providers answer
//! (weather, air quality, elevation, prices, estimates, npm). Everything that contacts a host goes
//! through the outbound layer (`wrench_infra::outbound`); small data sets are embedded and dated, and
//! large ones are files the operator names (`wrench_infra::datasets`).
//!
//! One folder per feature; a file not reached by a `mod` line fails the build.

pub(crate) mod dns;
pub(crate) mod geo;
pub(crate) mod ip;
pub(crate) mod mail;
pub(crate) mod phone;
pub(crate) mod providers;
pub(crate) mod registration;
pub(crate) mod tls;
pub(crate) mod useragent;
pub(crate) mod web;
