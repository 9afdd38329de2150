//! Places on the Earth: points, the embedded world-cities index, the live geocoder and the
//! time-zone database.

pub mod geocoder;
pub mod places;
pub mod point;
pub mod tzdb;
