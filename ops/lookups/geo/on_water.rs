//! Water or land at a coordinate (`on-water/check`): Natural Earth's 1:10m land
//! polygons (public domain) minus lake polygons from OpenStreetMap (ODbL, via geo-maps'
//! earth-lakes at 10 km resolution), since Natural Earth's land covers the great lakes.
//! Both are embedded (`data/geo/*.bin`, written by `data/geo/extract_water.js`).
//!
//! A point is inside a polygon by the even-odd rule over all its rings (holes included). A 1°
//! grid lists the polygons whose bounding box meets each cell, so a query tests a handful of
//! polygons. The vertices are read where they are, in the binary; what is built (on first use
//! or by the warm-up at start) is the polygons' bounding boxes, ring offsets and the grid.

use std::sync::OnceLock;

use wrench_contract::prelude::*;
use wrench_kit::geo::{
    grid::{Grid, at, cell, row_column},
    point::Point,
};

const LAND: &[u8] = include_bytes!("../../../data/geo/land.bin");
const LAKES: &[u8] = include_bytes!("../../../data/geo/lakes.bin");

pub(crate) const ATTRIBUTION: &str =
    "Land: Natural Earth (public domain). Lakes: © OpenStreetMap contributors (ODbL), via geo-maps earth-lakes";

struct Polygon {
    /// Rings as (byte offset, vertex count) in the embedded file, whose vertices are read in
    /// place (little-endian f32 longitude, latitude); the first ring is the outline.
    rings: Vec<(u32, u32)>,
    min: (f32, f32),
    max: (f32, f32),
}

pub(crate) struct Layer {
    bytes: &'static [u8],
    polygons: Vec<Polygon>,
    /// Per 1° cell: the polygons whose bounding box meets it.
    grid: Grid,
}

/// Reads the little-endian layout `extract_water.js` writes.
struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl Reader<'_> {
    fn u32(&mut self) -> u32 {
        let v = u32::from_le_bytes(self.bytes[self.at..self.at + 4].try_into().expect("4 bytes"));
        self.at += 4;
        v
    }

    fn f32(&mut self) -> f32 {
        f32::from_bits(self.u32())
    }
}

/// Vertex `i` of the ring at byte `at`.
fn vertex(bytes: &[u8], at: u32, i: usize) -> (f32, f32) {
    let o = at as usize + i * 8;
    let f = |o: usize| f32::from_le_bytes([bytes[o], bytes[o + 1], bytes[o + 2], bytes[o + 3]]);
    (f(o), f(o + 4))
}

fn read_polygons(bytes: &[u8]) -> Vec<Polygon> {
    let mut r = Reader { bytes, at: 0 };
    let count = r.u32();
    let mut out = Vec::with_capacity(count as usize);
    for _ in 0..count {
        let rings_n = r.u32();
        let mut rings = Vec::with_capacity(rings_n as usize);
        let (mut min, mut max) = ((f32::MAX, f32::MAX), (f32::MIN, f32::MIN));
        for _ in 0..rings_n {
            let n = r.u32();
            rings.push((r.at as u32, n));
            for _ in 0..n {
                let (x, y) = (r.f32(), r.f32());
                min = (min.0.min(x), min.1.min(y));
                max = (max.0.max(x), max.1.max(y));
            }
        }
        out.push(Polygon { rings, min, max });
    }
    out
}

impl Layer {
    fn build(bytes: &'static [u8]) -> Layer {
        let polygons = read_polygons(bytes);
        let mut by_cell: Vec<(u32, u32)> = Vec::new();
        for (i, p) in polygons.iter().enumerate() {
            let (r0, c0) = row_column(cell(p.min.1.into(), p.min.0.into()));
            let (r1, c1) = row_column(cell(p.max.1.into(), p.max.0.into()));
            for r in r0..=r1 {
                for c in c0..=c1 {
                    by_cell.push((at(r, c) as u32, i as u32));
                }
            }
        }
        Layer { bytes, polygons, grid: Grid::new(by_cell) }
    }

    /// Whether any polygon holds the point.
    pub(crate) fn contains(&self, lng: f64, lat: f64) -> bool {
        let (x, y) = (lng as f32, lat as f32);
        self.grid.items(cell(y.into(), x.into())).iter().any(|&i| {
            let p = &self.polygons[i as usize];
            x >= p.min.0 && x <= p.max.0 && y >= p.min.1 && y <= p.max.1 && self.inside(&p.rings, x, y)
        })
    }

    /// Even-odd rule over every ring: a point in a hole crosses the outline and the hole.
    fn inside(&self, rings: &[(u32, u32)], x: f32, y: f32) -> bool {
        let mut odd = false;
        for &(at, n) in rings {
            let n = n as usize;
            if n < 3 {
                continue;
            }
            let mut previous = vertex(self.bytes, at, n - 1);
            for i in 0..n {
                let (xi, yi) = vertex(self.bytes, at, i);
                let (xj, yj) = previous;
                if (yi > y) != (yj > y) && x < (xj - xi) * (y - yi) / (yj - yi) + xi {
                    odd = !odd;
                }
                previous = (xi, yi);
            }
        }
        odd
    }
}

pub(crate) fn land() -> &'static Layer {
    static L: OnceLock<Layer> = OnceLock::new();
    L.get_or_init(|| Layer::build(LAND))
}

pub(crate) fn lakes() -> &'static Layer {
    static L: OnceLock<Layer> = OnceLock::new();
    L.get_or_init(|| Layer::build(LAKES))
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct OnWaterOutput {
    lat: f64,
    lng: f64,
    /// The point is on water: the sea, or a lake large enough for the lake layer.
    water: bool,
    /// `ocean` (sea, including inland seas such as the Caspian), `lake` or `land`.
    kind: &'static str,
    /// How fine the answer is.
    resolution: &'static str,
    attribution: &'static str,
}

/// Tell whether a coordinate is on water.
///
/// Whether `lat`/`lng` (WGS84 degrees) is on water: the sea, or a lake (Michigan, Victoria,
/// Baikal ...), or on land. Land is Natural Earth's 1:10m coastline (accurate to about a
/// kilometre); lakes are OpenStreetMap's at 10 km resolution, so small lakes, rivers and
/// harbours count as land. Answers carry the data's attribution.
#[op(post "/v1/on-water/check" as onWaterCheck, tag = Lookups,
     rejects = "a latitude outside -90..90 or a longitude outside -180..180",
     example(atlantic, {"lat": 0.0, "lng": -30.0}),
     example(lake_michigan, {"lat": 43.5, "lng": -87.0}),
     example(paris, {"lat": 48.8566, "lng": 2.3522}),
     example(out_of_range, {"lat": 95, "lng": 0}, status = 400))]
async fn on_water_check(input: Point) -> Result<OnWaterOutput, ApiError> {
    // The poles lie on the polygons' edges: the South Pole is on Antarctica's ice sheet, the
    // North Pole in the Arctic Ocean.
    let on_land = input.lat <= -89.999 || land().contains(input.lng, input.lat);
    let in_lake = on_land && lakes().contains(input.lng, input.lat);
    let kind = match (on_land, in_lake) {
        (false, _) => "ocean",
        (true, true) => "lake",
        (true, false) => "land",
    };
    Ok(OnWaterOutput {
        lat: input.lat,
        lng: input.lng,
        water: kind != "land",
        kind,
        resolution: "coastlines 1:10,000,000 (about 1 km); lakes 10 km",
        attribution: ATTRIBUTION,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The named places are what they are, and every point agrees with shapely (GEOS) on the
    /// same polygons (`tests/fixtures/on_water.json`, from `on_water.py`).
    #[tokio::test]
    async fn known_places_and_shapely_agree() {
        let cases: Vec<Value> = serde_json::from_str(include_str!("../../../tests/fixtures/on_water.json")).unwrap();
        assert!(cases.len() > 400);
        let mut disagreements = Vec::new();
        for c in &cases {
            let (lat, lng) = (c["lat"].as_f64().unwrap(), c["lng"].as_f64().unwrap());
            if land().contains(lng, lat) != c["land"].as_bool().unwrap()
                || lakes().contains(lng, lat) != c["lake"].as_bool().unwrap()
            {
                disagreements.push(format!("{lat},{lng}"));
            }
            if let Some(water) = c["expectWater"].as_bool() {
                let out = on_water_check(Point { lat, lng }).await.unwrap();
                assert_eq!(out.water, water, "{}: {}", c["name"], out.kind);
            }
        }
        // Points within a float's rounding of an edge may fall either way (f32 against f64).
        assert!(disagreements.len() <= 2, "{disagreements:?}");
    }

    #[tokio::test]
    async fn kinds() {
        let k = |lat, lng| async move { on_water_check(Point { lat, lng }).await.unwrap().kind };
        assert_eq!(k(0.0, -30.0).await, "ocean");
        assert_eq!(k(-1.0, 33.0).await, "lake");
        assert_eq!(k(48.8566, 2.3522).await, "land");
        assert_eq!(k(42.0, 51.0).await, "ocean");
        assert_eq!(k(-90.0, 0.0).await, "land");
        assert_eq!(k(90.0, 180.0).await, "ocean");
    }
}
