//! A fake Nominatim geocoder under `/providers/nominatim/`: `search?q=` and
//! `reverse?lat=&lon=`, answering in the documented `format=jsonv2` form with address details.
//!
//! Like the public instance it refuses a request without an identifying User-Agent (403) and a
//! format it does not speak (400). It knows:
//! - `10 Downing Street, London[ SW1A 2AA], United Kingdom`: a house;
//! - `Downing Street, London`: a street;
//! - `Fixture Street N, Testville` for any number N: a house, so tests can ask questions no
//!   other test asks;
//! - reverse: points within about 100 m of 10 Downing Street and of the Eiffel Tower.
//!
//! Everything else is found nothing (`[]`; `{"error":"Unable to geocode"}` for reverse).
//! Every request is recorded ([`requests`]) with its time and User-Agent, so tests can check
//! what was sent and how often.

use std::{sync::Mutex, time::Instant};

const LICENCE: &str = "Data © OpenStreetMap contributors, ODbL 1.0. http://osm.org/copyright";

/// A request the fake received.
#[derive(Debug, Clone)]
pub struct Request {
    pub at: Instant,
    /// `search` or `reverse`.
    pub endpoint: String,
    pub query: Vec<(String, String)>,
    pub user_agent: Option<String>,
}

static REQUESTS: Mutex<Vec<Request>> = Mutex::new(Vec::new());

/// The requests received whose `q` (search) contains `needle`, oldest first.
pub fn requests(needle: &str) -> Vec<Request> {
    let all = REQUESTS.lock().unwrap_or_else(|e| e.into_inner());
    all.iter().filter(|r| r.query.iter().any(|(k, v)| k == "q" && v.contains(needle))).cloned().collect()
}

struct Place<'a> {
    osm: (&'a str, u64),
    lat: &'a str,
    lon: &'a str,
    rank: u8,
    addresstype: &'a str,
    name: &'a str,
    display: &'a str,
    /// (key, value) of Nominatim's `address` object.
    address: &'a [(&'a str, &'a str)],
}

fn json(p: &Place) -> String {
    let esc = |s: &str| s.replace('\\', "\\\\").replace('"', "\\\"");
    let address: Vec<String> = p.address.iter().map(|(k, v)| format!(r#""{k}":"{}""#, esc(v))).collect();
    format!(
        r#"{{"place_id":{id},"licence":"{LICENCE}","osm_type":"{ot}","osm_id":{oid},"lat":"{lat}","lon":"{lon}","category":"building","type":"yes","place_rank":{rank},"importance":0.32,"addresstype":"{at}","name":"{name}","display_name":"{display}","address":{{{address}}},"boundingbox":["{lat}","{lat}","{lon}","{lon}"]}}"#,
        id = p.osm.1 + 1_000_000,
        ot = p.osm.0,
        oid = p.osm.1,
        lat = p.lat,
        lon = p.lon,
        rank = p.rank,
        at = p.addresstype,
        name = esc(p.name),
        display = esc(p.display),
        address = address.join(","),
    )
}

const DOWNING_10: Place = Place {
    osm: ("way", 1879842),
    lat: "51.5033635",
    lon: "-0.1276248",
    rank: 30,
    addresstype: "building",
    name: "",
    display: "10, Downing Street, St. James's, Westminster, London, Greater London, England, SW1A 2AA, United Kingdom",
    address: &[
        ("house_number", "10"),
        ("road", "Downing Street"),
        ("quarter", "St. James's"),
        ("suburb", "Westminster"),
        ("city", "London"),
        ("state_district", "Greater London"),
        ("state", "England"),
        ("ISO3166-2-lvl4", "GB-ENG"),
        ("postcode", "SW1A 2AA"),
        ("country", "United Kingdom"),
        ("country_code", "gb"),
    ],
};

const DOWNING_STREET: Place = Place {
    osm: ("way", 4244999),
    lat: "51.5034878",
    lon: "-0.1283334",
    rank: 26,
    addresstype: "road",
    name: "Downing Street",
    display: "Downing Street, St. James's, Westminster, London, Greater London, England, SW1A 2AA, United Kingdom",
    address: &[
        ("road", "Downing Street"),
        ("city", "London"),
        ("state", "England"),
        ("ISO3166-2-lvl4", "GB-ENG"),
        ("postcode", "SW1A 2AA"),
        ("country", "United Kingdom"),
        ("country_code", "gb"),
    ],
};

const EIFFEL: Place = Place {
    osm: ("way", 5013364),
    lat: "48.8582599",
    lon: "2.2945006",
    rank: 30,
    addresstype: "man_made",
    name: "Tour Eiffel",
    display: "Tour Eiffel, 5, Avenue Anatole France, Quartier du Gros-Caillou, Paris 7e Arrondissement, Paris, Ile-de-France, Metropolitan France, 75007, France",
    address: &[
        ("man_made", "Tour Eiffel"),
        ("house_number", "5"),
        ("road", "Avenue Anatole France"),
        ("city", "Paris"),
        ("state", "Ile-de-France"),
        ("ISO3166-2-lvl4", "FR-IDF"),
        ("postcode", "75007"),
        ("country", "France"),
        ("country_code", "fr"),
    ],
};

fn fold(q: &str) -> String {
    q.to_lowercase().split_whitespace().collect::<Vec<_>>().join(" ")
}

fn search(q: &str, limit: usize) -> String {
    let q = fold(q);
    let mut found: Vec<String> = Vec::new();
    if q.starts_with("10 downing street, london") {
        found.push(json(&DOWNING_10));
    } else if q == "downing street, london" {
        found.push(json(&DOWNING_STREET));
    } else if let Some(n) = q
        .strip_prefix("fixture street ")
        .and_then(|r| r.strip_suffix(", testville"))
        .filter(|n| n.parse::<u32>().is_ok())
    {
        let display = format!("{n}, Fixture Street, Testville, England, TE1 1ST, United Kingdom");
        let address = [("house_number", n), ("road", "Fixture Street"), ("city", "Testville"), ("country_code", "gb")];
        found.push(json(&Place {
            osm: ("node", 42),
            lat: "52.1",
            lon: "-1.2",
            rank: 30,
            addresstype: "place",
            name: "",
            display: &display,
            address: &address,
        }));
    }
    found.truncate(limit.max(1));
    format!("[{}]", found.join(","))
}

fn reverse(lat: f64, lon: f64) -> String {
    for place in [&DOWNING_10, &EIFFEL] {
        let (plat, plon): (f64, f64) = (place.lat.parse().unwrap_or(0.0), place.lon.parse().unwrap_or(0.0));
        if (lat - plat).abs() < 0.001 && (lon - plon).abs() < 0.0015 {
            return json(place);
        }
    }
    r#"{"error":"Unable to geocode"}"#.to_string()
}

/// The answer to `endpoint` (`search` or `reverse`): (status, content type, body).
pub fn route(endpoint: &str, query: &[(String, String)], user_agent: Option<&str>) -> (u16, &'static str, String) {
    {
        let mut all = REQUESTS.lock().unwrap_or_else(|e| e.into_inner());
        // A long fuzzing run should not grow the record without end.
        if all.len() >= 10_000 {
            all.drain(..5_000);
        }
        all.push(Request {
            at: Instant::now(),
            endpoint: endpoint.to_string(),
            query: query.to_vec(),
            user_agent: user_agent.map(str::to_string),
        });
    }
    let json_type = "application/json; charset=utf-8";
    let get = |k: &str| query.iter().find(|(name, _)| name == k).map(|(_, v)| v.as_str());
    if user_agent.is_none_or(|ua| ua.trim().is_empty() || ua.starts_with("reqwest")) {
        return (403, "text/html", "<html><body>Access blocked: identify your application.</body></html>".to_string());
    }
    if get("format") != Some("jsonv2") {
        return (400, json_type, r#"{"error":{"code":400,"message":"Parameter 'format' must be jsonv2 here"}}"#.into());
    }
    match endpoint {
        "search" => {
            let limit = get("limit").and_then(|l| l.parse().ok()).unwrap_or(10);
            (200, json_type, search(get("q").unwrap_or_default(), limit))
        }
        "reverse" => match (get("lat").and_then(|v| v.parse().ok()), get("lon").and_then(|v| v.parse().ok())) {
            (Some(lat), Some(lon)) => (200, json_type, reverse(lat, lon)),
            _ => (400, json_type, r#"{"error":{"code":400,"message":"Need coordinates"}}"#.into()),
        },
        _ => (404, json_type, r#"{"error":"Unknown endpoint"}"#.into()),
    }
}
