//! IP geolocation from MaxMind DB files, in either schema they come in: GeoIP2/GeoLite2 City
//! (what MaxMind's geoipupdate and DB-IP's Lite downloads give: nested, localised names) or
//! the flat schema of the ip-location-db packages (`city, state1, state2, country_code,
//! postcode, latitude, longitude, timezone`). Several files may be given (the flat packages
//! ship IPv4 and IPv6 apart); an address is looked up in each file of its family in turn.

use std::{net::IpAddr, path::PathBuf};

use maxminddb::Reader;
use serde_json::Value;

use super::{
    countries,
    slot::{Dataset, Summary},
};

/// Where an address is, as the data set says.
#[derive(Debug, Clone, Default, serde::Serialize, schemars::JsonSchema, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct Place {
    /// The network the answer holds for (the data set's block).
    pub network: String,
    /// ISO 3166-1 alpha-2.
    pub country_code: Option<String>,
    pub country: Option<String>,
    /// Continent code (`EU`, `NA`, ...).
    pub continent_code: Option<String>,
    pub continent: Option<String>,
    /// First-level subdivision (state, region) name.
    pub region: Option<String>,
    /// Its ISO 3166-2 code where the data set gives one (without the country prefix).
    pub region_code: Option<String>,
    /// Second-level subdivision (county, district) name.
    pub district: Option<String>,
    pub city: Option<String>,
    pub postal_code: Option<String>,
    pub latitude: Option<f64>,
    pub longitude: Option<f64>,
    /// Radius in km around the coordinates that holds the address with about 67 % confidence,
    /// where the data set gives it.
    pub accuracy_radius_km: Option<u32>,
    /// IANA time zone: the data set's, or where it gives none, the zone at the coordinates
    /// (`timezoneSource` says which).
    pub timezone: Option<String>,
    /// `dataset`, or `coordinates` (timezone-boundary-builder's boundaries, OpenStreetMap
    /// contributors, ODbL); null without a zone.
    pub timezone_source: Option<&'static str>,
    /// The country the network is registered to, when the data set says it differs.
    pub registered_country_code: Option<String>,
}

pub struct CityDb {
    readers: Vec<Reader<Vec<u8>>>,
}

fn text(v: &Value) -> Option<String> {
    v.as_str().map(str::trim).filter(|s| !s.is_empty()).map(str::to_string)
}

fn english(v: &Value) -> Option<String> {
    text(&v["names"]["en"])
}

/// Reads either schema into a `Place`.
fn place(record: &Value, network: String) -> Place {
    let mut p = Place { network, ..Place::default() };
    if record.get("country").is_some_and(Value::is_object) || record.get("location").is_some() {
        // GeoIP2 / GeoLite2 / DB-IP Lite.
        p.country_code = text(&record["country"]["iso_code"]);
        p.country = english(&record["country"]);
        p.continent_code = text(&record["continent"]["code"]);
        p.continent = english(&record["continent"]);
        if let Some(first) = record["subdivisions"].as_array().and_then(|a| a.first()) {
            p.region = english(first);
            p.region_code = text(&first["iso_code"]);
        }
        if let Some(second) = record["subdivisions"].as_array().and_then(|a| a.get(1)) {
            p.district = english(second);
        }
        p.city = english(&record["city"]);
        p.postal_code = text(&record["postal"]["code"]);
        p.latitude = record["location"]["latitude"].as_f64();
        p.longitude = record["location"]["longitude"].as_f64();
        p.accuracy_radius_km = record["location"]["accuracy_radius"].as_u64().map(|r| r as u32);
        p.timezone = text(&record["location"]["time_zone"]);
        p.registered_country_code =
            text(&record["registered_country"]["iso_code"]).filter(|r| Some(r) != p.country_code.as_ref());
    } else {
        // ip-location-db flat.
        p.country_code = text(&record["country_code"]).map(|c| c.to_ascii_uppercase());
        p.region = text(&record["state1"]);
        p.district = text(&record["state2"]);
        p.city = text(&record["city"]);
        p.postal_code = text(&record["postcode"]);
        p.latitude = record["latitude"].as_f64();
        p.longitude = record["longitude"].as_f64();
        p.timezone = text(&record["timezone"]);
    }
    // Some files store coordinates as 32-bit floats (37.422000885009766): five decimals
    // (about a metre) is all they hold.
    let five = |v: f64| (v * 1e5).round() / 1e5;
    p.latitude = p.latitude.map(five);
    p.longitude = p.longitude.map(five);
    // Names the data set leaves out come from the embedded country table.
    if let Some(c) = p.country_code.as_deref().and_then(countries::by_code) {
        p.country.get_or_insert_with(|| c.name.to_string());
        p.continent_code.get_or_insert_with(|| c.continent.to_string());
    }
    if p.continent.is_none() {
        p.continent = p.continent_code.as_deref().and_then(countries::continent_name).map(str::to_string);
    }
    p.timezone_source = p.timezone.is_some().then_some("dataset");
    if p.timezone.is_none()
        && let (Some(lat), Some(lng)) = (p.latitude, p.longitude)
        && let Some(zone) = super::zones::zone_at(lat, lng)
    {
        p.timezone = Some(zone.to_string());
        p.timezone_source = Some("coordinates");
    }
    p
}

impl CityDb {
    /// The place of `ip`, or `None` when no file holds it.
    pub fn lookup(&self, ip: IpAddr) -> Result<Option<Place>, String> {
        for r in &self.readers {
            if ip.is_ipv6() && r.metadata().ip_version == 4 {
                continue;
            }
            let found = r.lookup(ip).map_err(|e| format!("lookup failed: {e}"))?;
            let network = found.network().map(|n| n.to_string()).unwrap_or_default();
            let record = found.decode::<Value>().map_err(|e| format!("the record does not decode: {e}"))?;
            if let Some(v) = record.filter(|v| v.as_object().is_some_and(|o| !o.is_empty())) {
                return Ok(Some(place(&v, network)));
            }
        }
        Ok(None)
    }
}

/// What is known of a database's terms from what it says of itself and its file names (the
/// ip-location-db packages' files say only `city ipv4`, but are named `dbip-city-*`).
pub(crate) fn terms(database_type: &str, description: &str, file_names: &str) -> (String, Option<String>) {
    let t = format!("{database_type} {description} {file_names}").to_ascii_lowercase();
    if t.contains("dbip") || t.contains("db-ip") {
        ("CC-BY-4.0 (DB-IP Lite)".into(), Some("IP Geolocation by DB-IP (https://db-ip.com)".into()))
    } else if t.contains("geolite") {
        (
            "MaxMind GeoLite2 End User License Agreement".into(),
            Some(
                "This product includes GeoLite2 data created by MaxMind, available from https://www.maxmind.com".into(),
            ),
        )
    } else if t.contains("geoip2") {
        ("MaxMind commercial licence".into(), None)
    } else {
        ("as distributed by its provider (unrecognised database type)".into(), None)
    }
}

/// Shared by the city and ASN readers: opens each file as a MaxMind DB and sums up.
/// Readers over files held in memory.
pub(crate) type Readers = Vec<Reader<Vec<u8>>>;

pub(crate) fn open_mmdb(files: Vec<(PathBuf, Vec<u8>)>) -> Result<(Readers, Summary), String> {
    let mut readers = Vec::new();
    let (mut types, mut built, mut records) = (Vec::new(), None::<u64>, 0u64);
    let mut description = String::new();
    let names: Vec<String> =
        files.iter().map(|(p, _)| p.file_name().unwrap_or_default().to_string_lossy().to_string()).collect();
    for (path, bytes) in files {
        let r = Reader::from_source(bytes).map_err(|e| format!("{} is not a MaxMind DB file: {e}", path.display()))?;
        // `Reader::verify` would walk the whole tree (seconds for the DB-IP files) and refuses
        // the ip-location-db files for their empty description map; a file cut short has
        // already failed above, its metadata being at the end, and a lookup proves the tree.
        r.lookup(std::net::IpAddr::from([1, 1, 1, 1])).map_err(|e| format!("{} is damaged: {e}", path.display()))?;
        let m = r.metadata();
        types.push(m.database_type.clone());
        description = m.description.get("en").cloned().unwrap_or_default();
        built = Some(built.map_or(m.build_epoch, |b: u64| b.min(m.build_epoch)));
        records += u64::from(m.node_count);
        readers.push(r);
    }
    types.dedup();
    let source = types.join(", ");
    let (licence, attribution) = terms(&source, &description, &names.join(" "));
    let summary = Summary {
        format: "MaxMind DB".into(),
        source,
        built: built.and_then(|b| jiff::Timestamp::from_second(b as i64).ok()).map(|t| t.to_string()),
        records,
        licence,
        attribution,
    };
    Ok((readers, summary))
}

impl Dataset for CityDb {
    fn parse(files: Vec<(PathBuf, Vec<u8>)>) -> Result<(Self, Summary), String> {
        let (readers, mut summary) = open_mmdb(files)?;
        // Tell each file's schema by a record: the flat one has a top-level `country_code`.
        let mut schemas: Vec<&str> = readers
            .iter()
            .map(|r| {
                let flat = r
                    .networks(Default::default())
                    .ok()
                    .and_then(|mut it| it.next())
                    .and_then(|n| n.ok())
                    .and_then(|n| n.decode::<Value>().ok().flatten())
                    .is_some_and(|v| v.get("country_code").is_some());
                if flat { "ip-location-db flat city schema" } else { "GeoIP2 City schema" }
            })
            .collect();
        schemas.sort_unstable();
        schemas.dedup();
        summary.format = format!("MaxMind DB, {}", schemas.join(" and "));
        summary.records = 0;
        // Count networks holding data (node counts describe the tree, not the blocks).
        for r in &readers {
            if let Ok(it) = r.networks(Default::default()) {
                summary.records += it.filter(|n| n.as_ref().is_ok_and(|n| n.has_data())).count() as u64;
            }
        }
        Ok((CityDb { readers }, summary))
    }
}
