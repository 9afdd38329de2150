//! Places and their time: geocoding and addresses, distances, land or water, ground height, time zones and public holidays.

pub(crate) mod address;
pub(crate) mod distance;
pub(crate) mod elevation;
pub(crate) mod geocode;
pub(crate) mod holidays;
pub(crate) mod on_water;
pub(crate) mod timezone;
pub(crate) mod timezone_convert;
