//! Places on the Earth: points, a one-degree grid, the embedded world-cities index, the live geocoder, the
//! time-zone database and the public holidays of every country.

pub mod geocoder;
pub mod grid;
pub mod holidays;
pub mod places;
pub mod point;
pub mod tzdb;
