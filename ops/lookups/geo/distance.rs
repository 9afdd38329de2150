//! Distance and bearing between two points (`geo/distance`), two ways: along the
//! geodesic of the WGS84 ellipsoid by Karney's method (C. F. F. Karney, "Algorithms for
//! geodesics", J. Geodesy 87, 2013; the geographiclib-rs port), exact to nanometres and
//! defined for every pair including nearly antipodal ones; and along a great circle of the
//! sphere of the IUGG mean radius (haversine), the figure most other tools give, up to 0.5 %
//! off the ellipsoid.

use geographiclib_rs::{Geodesic, InverseGeodesic};

use wrench_contract::prelude::*;
use wrench_kit::geo::point::Point;

/// IUGG mean Earth radius R1 = (2a + b) / 3 of WGS84, in metres.
const MEAN_RADIUS_M: f64 = 6_371_008.8;

#[derive(Debug, Deserialize, Serialize, JsonSchema, Validate, Clone, Copy, PartialEq, Eq, Default)]
#[serde(rename_all = "lowercase")]
enum Unit {
    /// Kilometres.
    #[default]
    Km,
    /// Metres.
    M,
    /// International miles (1,609.344 m).
    Mi,
    /// International nautical miles (1,852 m).
    Nmi,
    /// International feet (0.3048 m).
    Ft,
}

impl Unit {
    fn metres(self) -> f64 {
        match self {
            Unit::Km => 1000.0,
            Unit::M => 1.0,
            Unit::Mi => 1609.344,
            Unit::Nmi => 1852.0,
            Unit::Ft => 0.3048,
        }
    }
}

#[derive(Debug, Deserialize, JsonSchema, Validate)]
#[serde(deny_unknown_fields)]
struct DistanceInput {
    from: Point,
    to: Point,
    /// The unit of `distance` (every unit is in `distances` too).
    #[serde(default)]
    unit: Unit,
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct Path {
    /// In `unit`.
    distance: f64,
    meters: f64,
    /// Direction to set off in, degrees clockwise from true north, 0 to 360 (0 when the
    /// points coincide).
    initial_bearing: f64,
    /// Direction of travel on arrival, same convention.
    final_bearing: f64,
    /// `initialBearing` as one of 16 compass points.
    compass: &'static str,
    method: &'static str,
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct Distances {
    km: f64,
    m: f64,
    mi: f64,
    nmi: f64,
    ft: f64,
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct DistanceOutput {
    from: Point,
    to: Point,
    unit: Unit,
    /// The ellipsoidal distance in `unit`, the answer to use.
    distance: f64,
    /// The ellipsoidal distance in every unit.
    distances: Distances,
    /// Along the WGS84 ellipsoid (Karney 2013).
    geodesic: Path,
    /// Along a great circle of a sphere of radius 6,371,008.8 m (haversine).
    great_circle: Path,
}

fn bearing(degrees: f64) -> f64 {
    let b = degrees.rem_euclid(360.0);
    if b >= 360.0 - 1e-12 { 0.0 } else { b }
}

fn compass(degrees: f64) -> &'static str {
    const POINTS: [&str; 16] =
        ["N", "NNE", "NE", "ENE", "E", "ESE", "SE", "SSE", "S", "SSW", "SW", "WSW", "W", "WNW", "NW", "NNW"];
    POINTS[((degrees / 22.5).round() as usize) % 16]
}

/// Haversine distance and the initial and final bearings on the sphere.
fn great_circle(a: Point, b: Point) -> (f64, f64, f64) {
    let (p1, p2) = (a.lat.to_radians(), b.lat.to_radians());
    let dl = (b.lng - a.lng).to_radians();
    let h = ((p2 - p1) / 2.0).sin().powi(2) + p1.cos() * p2.cos() * (dl / 2.0).sin().powi(2);
    let metres = 2.0 * MEAN_RADIUS_M * h.sqrt().min(1.0).asin();
    let course = |p1: f64, p2: f64, dl: f64| {
        (dl.sin() * p2.cos()).atan2(p1.cos() * p2.sin() - p1.sin() * p2.cos() * dl.cos()).to_degrees()
    };
    let initial = course(p1, p2, dl);
    // The final bearing is the reverse of the initial bearing from the other end.
    let final_ = course(p2, p1, -dl) + 180.0;
    (metres, bearing(initial), bearing(final_))
}

fn round(x: f64, places: i32) -> f64 {
    let f = 10f64.powi(places);
    (x * f).round() / f
}

fn path(metres: f64, initial: f64, final_: f64, unit: Unit, method: &'static str) -> Path {
    let (initial, final_) = if metres == 0.0 { (0.0, 0.0) } else { (bearing(initial), bearing(final_)) };
    Path {
        distance: round(metres / unit.metres(), 9),
        meters: round(metres, 6),
        initial_bearing: round(initial, 9),
        final_bearing: round(final_, 9),
        compass: compass(initial),
        method,
    }
}

/// Distance and bearing between two points.
///
/// The distance between `from` and `to` (WGS84 decimal degrees) along the ellipsoid, by
/// Karney's method (the answer to use: accurate to well under a millimetre, for any pair),
/// and along a great circle of the mean-radius sphere (haversine; what many tools give, up to
/// 0.5 % off). Each with the initial and final bearing in degrees from true north and the
/// initial bearing as a compass point. `distance` is in `unit` (km by default); `distances`
/// gives every unit. Distances are rounded to micrometres, bearings to 1e-9 degrees.
#[op(post "/v1/geo/distance" as geoDistance, tag = Lookups,
     rejects = "a latitude outside -90..90 or a longitude outside -180..180",
     example(london_to_paris, {"from": {"lat": 51.5074, "lng": -0.1278}, "to": {"lat": 48.8566, "lng": 2.3522}}),
     example(new_york_to_london_in_miles, {"from": {"lat": 40.7128, "lng": -74.006}, "to": {"lat": 51.5074, "lng": -0.1278}, "unit": "mi"}),
     example(latitude_out_of_range, {"from": {"lat": 91, "lng": 0}, "to": {"lat": 0, "lng": 0}}, status = 400))]
async fn geo_distance(input: DistanceInput) -> Result<DistanceOutput, ApiError> {
    let (a, b) = (input.from, input.to);
    let (s12, azi1, azi2, _a12): (f64, f64, f64, f64) = Geodesic::wgs84().inverse(a.lat, a.lng, b.lat, b.lng);
    let (hav, hav_initial, hav_final) = great_circle(a, b);
    let geodesic = path(s12, azi1, azi2, input.unit, "WGS84 ellipsoid geodesic (Karney 2013)");
    let great = path(hav, hav_initial, hav_final, input.unit, "great circle, haversine, R = 6371008.8 m");
    let in_unit = |u: Unit| round(s12 / u.metres(), 9);
    Ok(DistanceOutput {
        from: a,
        to: b,
        unit: input.unit,
        distance: geodesic.distance,
        distances: Distances {
            km: in_unit(Unit::Km),
            m: round(s12, 6),
            mi: in_unit(Unit::Mi),
            nmi: in_unit(Unit::Nmi),
            ft: in_unit(Unit::Ft),
        },
        geodesic,
        great_circle: great,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pt(v: &Value) -> Point {
        Point { lat: v[0].as_f64().unwrap(), lng: v[1].as_f64().unwrap() }
    }

    /// Distances and azimuths agree with GeographicLib itself (`tests/fixtures/geodesics.json`,
    /// from Karney's Python implementation), including nearly antipodal points and the poles.
    #[tokio::test]
    async fn agrees_with_geographiclib() {
        let cases: Vec<Value> = serde_json::from_str(include_str!("../../../tests/fixtures/geodesics.json")).unwrap();
        assert!(cases.len() >= 20);
        for c in &cases {
            let (a, b) = (pt(&c["from"]), pt(&c["to"]));
            let out = geo_distance(DistanceInput { from: a, to: b, unit: Unit::M }).await.unwrap();
            let ctx = format!("{a:?} -> {b:?}");
            let want = c["meters"].as_f64().unwrap();
            assert!((out.geodesic.meters - want).abs() < 1e-5, "{ctx}: {} vs {want}", out.geodesic.meters);
            // Azimuths are meaningful only between distinct points off the poles (at a pole
            // every direction is south or north, and the libraries pick by convention).
            let at_pole = |p: Point| p.lat.abs() == 90.0;
            if want > 0.0 && !at_pole(a) && !at_pole(b) {
                let close = |x: f64, y: f64| {
                    let d = (x - y).rem_euclid(360.0);
                    d.min(360.0 - d) < 1e-7
                };
                assert!(close(out.geodesic.initial_bearing, c["initialBearing"].as_f64().unwrap()), "{ctx}");
                assert!(close(out.geodesic.final_bearing, c["finalBearing"].as_f64().unwrap()), "{ctx}");
            }
            // The sphere is never more than 0.56 % off the ellipsoid.
            if want > 1000.0 {
                let ratio = out.great_circle.meters / want;
                assert!((ratio - 1.0).abs() < 0.0056, "{ctx}: haversine ratio {ratio}");
            }
        }
    }

    #[tokio::test]
    async fn units_and_compass_points() {
        let out = geo_distance(DistanceInput {
            from: Point { lat: 0.0, lng: 0.0 },
            to: Point { lat: 0.0, lng: 1.0 },
            unit: Unit::Nmi,
        })
        .await
        .unwrap();
        // One degree of the equator is 60.11 nautical miles on WGS84 (a = 6378137 m).
        let equator_degree = 6_378_137.0 * std::f64::consts::PI / 180.0;
        assert!((out.distances.m - equator_degree).abs() < 1e-6);
        assert!((out.distance - equator_degree / 1852.0).abs() < 1e-9);
        assert!((out.distances.ft - equator_degree / 0.3048).abs() < 1e-6);
        assert_eq!((out.geodesic.initial_bearing, out.geodesic.compass), (90.0, "E"));
        // Haversine: a quarter of the equator is a quarter of 2πR.
        let q = great_circle(Point { lat: 0.0, lng: 0.0 }, Point { lat: 0.0, lng: 90.0 });
        assert!((q.0 - MEAN_RADIUS_M * std::f64::consts::FRAC_PI_2).abs() < 1e-6);
        assert_eq!(compass(348.75), "N");
        assert_eq!(compass(337.5), "NNW");
        let same = geo_distance(DistanceInput {
            from: Point { lat: 1.0, lng: 2.0 },
            to: Point { lat: 1.0, lng: 2.0 },
            unit: Unit::Km,
        })
        .await
        .unwrap();
        assert_eq!((same.distance, same.geodesic.initial_bearing, same.great_circle.meters), (0.0, 0.0, 0.0));
    }
}
