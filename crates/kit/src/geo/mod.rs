//! Places on the Earth: points, a one-degree grid, the embedded world-cities index, the live geocoder and the
//! time-zone database.

pub mod geocoder;
pub mod grid;
pub mod places;
pub mod point;
pub mod tzdb;
