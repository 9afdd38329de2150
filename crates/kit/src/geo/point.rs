//! A point on the Earth as the geographic operations take it: WGS84 latitude and longitude in
//! decimal degrees, bounded by the schema (`lat` -90..90, `lng` -180..180).

use wrench_contract::prelude::*;

#[derive(Debug, Deserialize, Serialize, JsonSchema, Validate, Clone, Copy, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Point {
    /// Latitude in decimal degrees, -90 (south pole) to 90.
    #[schemars(range(min = -90, max = 90))]
    pub lat: f64,
    /// Longitude in decimal degrees, -180 to 180.
    #[schemars(range(min = -180, max = 180))]
    pub lng: f64,
}
