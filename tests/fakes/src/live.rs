//! Fakes of the live data providers, under `/providers/` of the fake HTTP server, each speaking
//! its provider's documented request and response format:
//! - `/providers/hibp/range/{prefix}`: Pwned Passwords' range API (`SUFFIX:COUNT` lines, CRLF;
//!   padding lines of count 0 when `Add-Padding: true`); the hashes of [`PWNED`] are known.
//! - `/providers/broken/...`: a provider failing with 500.
//! - `/providers/openmeteo/v1/forecast`, `/providers/openmeteo-air/v1/air-quality`,
//!   `/providers/openmeteo/v1/elevation`: Open-Meteo's forecast (`current=`), air-quality and
//!   elevation APIs, with their 400 `{"error":true,"reason":...}` for bad input.
//! - `/providers/coingecko/api/v3/simple/price` and `/search`: CoinGecko (a demo key in
//!   `x-cg-demo-api-key`, when sent, must be [`COINGECKO_KEY`]).
//! - `/providers/agify/`, `/providers/genderize/`, `/providers/nationalize/`: the three name
//!   APIs (`?name=`, optional `country_id` and `apikey`).
//! - `/providers/npm/...`: an npm registry (`npm.rs`).
//! - `/providers/openphish/feed.txt`: a phishing feed, one URL a line ([`PHISH_FEED`]).
//! - `/providers/urlhaus/v1/url/` and `/v1/host/`: URLhaus's lookups (form POSTs, the key in
//!   `Auth-Key`); `http://malware.site.example/bins/x86` and its host are listed.
//!
//! Every request is recorded ([`requests`]) so tests can check what left wrench.

use std::{sync::Mutex, time::Instant};

/// A request a live fake received.
#[derive(Debug, Clone)]
pub struct Request {
    pub at: Instant,
    /// Below `/providers`.
    pub path: String,
    /// The raw query string.
    pub query: String,
    /// Header names (lower case) and values.
    pub headers: Vec<(String, String)>,
}

impl Request {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.iter().find(|(n, _)| n == name).map(|(_, v)| v.as_str())
    }

    /// The request line and every header, as one text, for "this never left" checks.
    pub fn everything(&self) -> String {
        let headers: Vec<String> = self.headers.iter().map(|(n, v)| format!("{n}: {v}")).collect();
        format!("{}?{}\n{}", self.path, self.query, headers.join("\n"))
    }
}

static REQUESTS: Mutex<Vec<Request>> = Mutex::new(Vec::new());

/// The requests whose path starts with `path_prefix` (below `/providers`), oldest first.
pub fn requests(path_prefix: &str) -> Vec<Request> {
    let all = REQUESTS.lock().unwrap_or_else(|e| e.into_inner());
    all.iter().filter(|r| r.path.starts_with(path_prefix)).cloned().collect()
}

fn record(path: &str, query: &str, headers: &hyper::HeaderMap) {
    let mut all = REQUESTS.lock().unwrap_or_else(|e| e.into_inner());
    if all.len() >= 10_000 {
        all.drain(..5_000);
    }
    all.push(Request {
        at: Instant::now(),
        path: path.to_string(),
        query: query.to_string(),
        headers: headers
            .iter()
            .map(|(n, v)| (n.as_str().to_string(), String::from_utf8_lossy(v.as_bytes()).into_owned()))
            .collect(),
    });
}

/// SHA-1 hashes (upper-case hex) the fake Pwned Passwords knows, with their counts.
pub const PWNED: &[(&str, u64)] = &[
    // "password"
    ("5BAA61E4C9B93F3F0682250B6CF8331B7EE68FD8", 9_545_824),
    // "breach-check-fixture-9d1c"
    ("7987035A34D6AC84D5A4F1196B7C16DE96DC3EC6", 42),
];

/// The URLs of the fake OpenPhish feed.
pub const PHISH_FEED: &[&str] =
    &["http://login-verify.phish.site.example/account/", "https://secure-bank.phish.site.example/signin?session=1"];

/// The key the fake URLhaus accepts.
pub const URLHAUS_KEY: &str = "fixture-urlhaus-key";

/// The demo key the fake CoinGecko accepts.
pub const COINGECKO_KEY: &str = "CG-fixture-demo-key";
/// The key the fake name APIs accept.
pub const NAMES_KEY: &str = "fixture-names-key";

type Answer = (u16, &'static str, String);
const JSON: &str = "application/json; charset=utf-8";

/// The answer to `path` (below `/providers`), or `None` when it is not one of these fakes.
pub fn route(path: &str, query: &[(String, String)], raw_query: &str, headers: &hyper::HeaderMap) -> Option<Answer> {
    let known = [
        "/hibp/",
        "/broken/",
        "/openmeteo",
        "/coingecko/",
        "/agify/",
        "/genderize/",
        "/nationalize/",
        "/npm/",
        "/openphish/",
        "/urlhaus/",
    ];
    if !known.iter().any(|k| path.starts_with(k)) {
        return None;
    }
    record(path, raw_query, headers);
    let get = |k: &str| query.iter().find(|(n, _)| n == k).map(|(_, v)| v.as_str());
    let header = |k: &str| headers.get(k).and_then(|v| v.to_str().ok());
    if path.starts_with("/broken/") {
        return Some((500, "text/plain", "Internal Server Error".into()));
    }
    if let Some(prefix) = path.strip_prefix("/hibp/range/") {
        return Some(hibp(prefix, header("add-padding") == Some("true")));
    }
    if let Some(rest) = path.strip_prefix("/openmeteo-air/v1/") {
        return Some(match rest {
            "air-quality" => open_meteo_current(&get, AIR),
            _ => (404, JSON, r#"{"error":true,"reason":"Not Found"}"#.into()),
        });
    }
    if let Some(rest) = path.strip_prefix("/openmeteo/v1/") {
        return Some(match rest {
            "forecast" => open_meteo_current(&get, WEATHER),
            "elevation" => elevation(&get),
            _ => (404, JSON, r#"{"error":true,"reason":"Not Found"}"#.into()),
        });
    }
    if let Some(rest) = path.strip_prefix("/coingecko/api/v3/") {
        if let Some(key) = header("x-cg-demo-api-key")
            && key != COINGECKO_KEY
        {
            return Some((
                401,
                JSON,
                r#"{"status":{"error_code":10002,"error_message":"API Key Missing or invalid"}}"#.into(),
            ));
        }
        return Some(match rest {
            "simple/price" => coingecko_price(&get),
            "search" => coingecko_search(get("query").unwrap_or_default()),
            _ => (404, JSON, r#"{"error":"Not found"}"#.into()),
        });
    }
    if path == "/openphish/feed.txt" {
        return Some((200, "text/plain; charset=utf-8", PHISH_FEED.join("\n") + "\n"));
    }
    if let Some(endpoint) = path.strip_prefix("/urlhaus/v1/") {
        return Some(urlhaus(endpoint, &get, header("auth-key")));
    }
    if let Some(name) = path.strip_prefix("/npm/") {
        return Some(crate::npm::route(name, header("accept")));
    }
    for api in ["agify", "genderize", "nationalize"] {
        if path == format!("/{api}/") {
            return Some(names(api, &get));
        }
    }
    None
}

fn hibp(prefix: &str, padding: bool) -> Answer {
    if prefix.len() != 5 || !prefix.bytes().all(|b| b.is_ascii_hexdigit()) {
        return (400, "text/plain", "The hash prefix was not in a valid format".into());
    }
    let prefix = prefix.to_ascii_uppercase();
    let mut lines: Vec<String> = PWNED
        .iter()
        .filter(|(hash, _)| hash.starts_with(&prefix))
        .map(|(hash, count)| format!("{}:{count}", &hash[5..]))
        .collect();
    // Other suffixes of the range, as a real range holds hundreds.
    for n in 0..20u64 {
        lines.push(format!("{:035X}:{}", n * 0x1F3D_5B79 + 0xA11, n * 7 + 1));
    }
    if padding {
        for n in 0..30u64 {
            lines.push(format!("{:035X}:0", n * 0x3C6E_F372 + 0xF00D));
        }
    }
    lines.sort();
    (200, "text/plain", lines.join("\r\n"))
}

/// An Open-Meteo API's `current` variables: (name, unit, value).
type Variables = &'static [(&'static str, &'static str, f64)];

const WEATHER: Variables = &[
    ("temperature_2m", "°C", 4.2),
    ("relative_humidity_2m", "%", 81.0),
    ("apparent_temperature", "°C", 0.9),
    ("is_day", "", 1.0),
    ("precipitation", "mm", 0.3),
    ("rain", "mm", 0.3),
    ("snowfall", "cm", 0.0),
    ("weather_code", "wmo code", 61.0),
    ("cloud_cover", "%", 100.0),
    ("pressure_msl", "hPa", 1008.4),
    ("wind_speed_10m", "km/h", 14.8),
    ("wind_direction_10m", "°", 247.0),
    ("wind_gusts_10m", "km/h", 31.3),
];

const AIR: Variables = &[
    ("us_aqi", "USAQI", 57.0),
    ("european_aqi", "EAQI", 38.0),
    ("pm10", "μg/m³", 21.4),
    ("pm2_5", "μg/m³", 14.9),
    ("carbon_monoxide", "μg/m³", 231.0),
    ("nitrogen_dioxide", "μg/m³", 18.7),
    ("sulphur_dioxide", "μg/m³", 2.1),
    ("ozone", "μg/m³", 41.0),
];

/// Latitude and longitude as Open-Meteo reads them, or its 400 answer.
fn coordinates<'a>(get: &dyn Fn(&str) -> Option<&'a str>) -> Result<(f64, f64), Answer> {
    let bad = |reason: String| (400, JSON, format!(r#"{{"error":true,"reason":"{reason}"}}"#));
    let lat: f64 = get("latitude")
        .and_then(|v| v.parse().ok())
        .ok_or_else(|| bad("Parameter 'latitude' and 'longitude' must have the same number of elements".into()))?;
    let lng: f64 = get("longitude")
        .and_then(|v| v.parse().ok())
        .ok_or_else(|| bad("Parameter 'latitude' and 'longitude' must have the same number of elements".into()))?;
    if !(-90.0..=90.0).contains(&lat) {
        return Err(bad(format!("Latitude must be in range of -90 to 90°. Given: {lat}.")));
    }
    if !(-180.0..=180.0).contains(&lng) {
        return Err(bad(format!("Longitude must be in range of -180 to 180°. Given: {lng}.")));
    }
    Ok((lat, lng))
}

fn open_meteo_current<'a>(get: &dyn Fn(&str) -> Option<&'a str>, known: Variables) -> Answer {
    let (lat, lng) = match coordinates(get) {
        Ok(c) => c,
        Err(a) => return a,
    };
    let asked: Vec<&str> = get("current").unwrap_or_default().split(',').filter(|v| !v.is_empty()).collect();
    let mut units = vec![r#""time":"iso8601""#.to_string(), r#""interval":"seconds""#.to_string()];
    let mut values = vec![r#""time":"2026-11-26T12:00""#.to_string(), r#""interval":900"#.to_string()];
    for v in asked {
        let Some((name, unit, value)) = known.iter().find(|(n, _, _)| *n == v) else {
            return (
                400,
                JSON,
                format!(
                    r#"{{"error":true,"reason":"Data corrupted at path ''. Cannot initialize SurfacePressureAndHeightVariable<VariableAndPreviousDay, SurfacePressureVariable, SurfaceHeightVariable> from invalid String value {v}."}}"#
                ),
            );
        };
        units.push(format!(r#""{name}":"{unit}""#));
        values.push(format!(r#""{name}":{value}"#));
    }
    let (zone, offset, abbreviation) =
        if lng > -30.0 && lng < 40.0 { ("Europe/Berlin", 3600, "GMT+1") } else { ("GMT", 0, "GMT") };
    let zone = if get("timezone") == Some("auto") { zone } else { "GMT" };
    let body = format!(
        r#"{{"latitude":{lat:.4},"longitude":{lng:.4},"generationtime_ms":0.0629425048828125,"utc_offset_seconds":{offset},"timezone":"{zone}","timezone_abbreviation":"{abbreviation}","elevation":38.0,"current_units":{{{}}},"current":{{{}}}}}"#,
        units.join(","),
        values.join(",")
    );
    (200, JSON, body)
}

/// Heights the fake elevation API knows (rounded coordinates); the sea is 0, elsewhere 100.
const HEIGHTS: &[(f64, f64, f64)] = &[(27.9881, 86.925, 8729.0), (52.52, 13.41, 38.0), (31.5, 35.5, -415.0)];

fn elevation<'a>(get: &dyn Fn(&str) -> Option<&'a str>) -> Answer {
    let lats: Vec<&str> = get("latitude").unwrap_or_default().split(',').collect();
    let lngs: Vec<&str> = get("longitude").unwrap_or_default().split(',').collect();
    if lats.len() != lngs.len() || lats.len() > 100 {
        return (
            400,
            JSON,
            r#"{"error":true,"reason":"Parameter 'latitude' and 'longitude' must have the same number of elements"}"#
                .into(),
        );
    }
    let mut out = Vec::new();
    for (a, b) in lats.iter().zip(&lngs) {
        let (Ok(lat), Ok(lng)) = (a.parse::<f64>(), b.parse::<f64>()) else {
            return (400, JSON, r#"{"error":true,"reason":"Invalid coordinates"}"#.into());
        };
        let h = HEIGHTS
            .iter()
            .find(|(y, x, _)| (y - lat).abs() < 0.01 && (x - lng).abs() < 0.01)
            .map_or(if lat == 0.0 && lng == 0.0 { 0.0 } else { 100.0 }, |(_, _, h)| *h);
        out.push(format!("{h:.1}"));
    }
    (200, JSON, format!(r#"{{"elevation":[{}]}}"#, out.join(",")))
}

/// Coins the fake CoinGecko knows: (id, symbol, name, rank, prices in usd and eur, 24 h
/// change in percent).
const COINS: &[(&str, &str, &str, u32, f64, f64, f64)] = &[
    ("bitcoin", "BTC", "Bitcoin", 1, 91_234.12, 86_011.5, -1.8342),
    ("ethereum", "ETH", "Ethereum", 2, 3_012.77, 2_840.2, 2.1187),
    ("wrapped-bitcoin", "WBTC", "Wrapped Bitcoin", 17, 91_150.0, 85_930.0, -1.79),
];

fn coingecko_price<'a>(get: &dyn Fn(&str) -> Option<&'a str>) -> Answer {
    let Some(ids) = get("ids") else {
        return (400, JSON, r#"{"error":"Missing parameter ids"}"#.into());
    };
    let currencies: Vec<&str> = get("vs_currencies").unwrap_or_default().split(',').collect();
    let change = get("include_24hr_change") == Some("true");
    let updated = get("include_last_updated_at") == Some("true");
    let mut items = Vec::new();
    for id in ids.split(',') {
        let Some(coin) = COINS.iter().find(|c| c.0 == id) else { continue };
        let mut fields = Vec::new();
        for c in &currencies {
            let price = match *c {
                "usd" => coin.4,
                "eur" => coin.5,
                _ => continue,
            };
            fields.push(format!(r#""{c}":{price}"#));
            if change {
                fields.push(format!(r#""{c}_24h_change":{}"#, coin.6));
            }
        }
        if updated {
            fields.push(r#""last_updated_at":1795694400"#.to_string());
        }
        items.push(format!(r#""{id}":{{{}}}"#, fields.join(",")));
    }
    (200, JSON, format!("{{{}}}", items.join(",")))
}

fn coingecko_search(query: &str) -> Answer {
    let q = query.to_ascii_lowercase();
    let coins: Vec<String> = COINS
        .iter()
        .filter(|c| !q.is_empty() && (c.0.contains(&q) || c.1.eq_ignore_ascii_case(&q) || c.2.to_ascii_lowercase().contains(&q)))
        .map(|c| {
            format!(
                r#"{{"id":"{0}","name":"{2}","api_symbol":"{0}","symbol":"{1}","market_cap_rank":{3},"thumb":"https://coin-images.site.example/{0}/thumb.png","large":"https://coin-images.site.example/{0}/large.png"}}"#,
                c.0, c.1, c.2, c.3
            )
        })
        .collect();
    (200, JSON, format!(r#"{{"coins":[{}],"exchanges":[],"icos":[],"categories":[],"nfts":[]}}"#, coins.join(",")))
}

/// A name the fake name APIs know: (name, count, age, gender, gender probability,
/// nationalities).
type Name = (&'static str, u64, u32, &'static str, f64, &'static [(&'static str, f64)]);

const NAMES: &[Name] = &[
    ("michael", 298_219, 62, "male", 1.0, &[("US", 0.089), ("AU", 0.059), ("NZ", 0.048)]),
    ("anna", 363_456, 53, "female", 0.98, &[("PL", 0.104), ("SE", 0.079), ("DE", 0.057)]),
];

fn names<'a>(api: &str, get: &dyn Fn(&str) -> Option<&'a str>) -> Answer {
    if let Some(key) = get("apikey")
        && key != NAMES_KEY
    {
        return (401, JSON, r#"{"error":"Invalid API key"}"#.into());
    }
    let Some(name) = get("name").filter(|n| !n.is_empty()) else {
        return (422, JSON, r#"{"error":"Missing 'name' parameter"}"#.into());
    };
    if name == "quota-exceeded" {
        return (429, JSON, r#"{"error":"Request limit reached"}"#.into());
    }
    let lower = name.to_lowercase();
    let known = NAMES.iter().find(|n| n.0 == lower);
    let shown = name.replace('"', "");
    let country = get("country_id").map(|c| format!(r#","country_id":"{c}""#)).unwrap_or_default();
    let body = match (api, known) {
        ("agify", Some(n)) => format!(r#"{{"count":{},"name":"{shown}","age":{}{country}}}"#, n.1, n.2),
        ("agify", None) => format!(r#"{{"count":0,"name":"{shown}","age":null{country}}}"#),
        ("genderize", Some(n)) => {
            format!(r#"{{"count":{},"name":"{shown}","gender":"{}","probability":{}{country}}}"#, n.1, n.3, n.4)
        }
        ("genderize", None) => format!(r#"{{"count":0,"name":"{shown}","gender":null,"probability":0.0{country}}}"#),
        (_, Some(n)) => {
            let list: Vec<String> =
                n.5.iter().map(|(c, p)| format!(r#"{{"country_id":"{c}","probability":{p}}}"#)).collect();
            format!(r#"{{"count":{},"name":"{shown}","country":[{}]}}"#, n.1, list.join(","))
        }
        (_, None) => format!(r#"{{"count":0,"name":"{shown}","country":[]}}"#),
    };
    (200, JSON, body)
}

fn urlhaus<'a>(endpoint: &str, get: &dyn Fn(&str) -> Option<&'a str>, key: Option<&str>) -> Answer {
    if key != Some(URLHAUS_KEY) {
        return (401, JSON, r#"{"query_status":"unknown_auth_key"}"#.into());
    }
    const LISTED: &str = "http://malware.site.example/bins/x86";
    let body = match (endpoint, get("url"), get("host")) {
        ("url/", Some(LISTED), _) => format!(
            r#"{{"query_status":"ok","id":"3085471","urlhaus_reference":"https://urlhaus.abuse.ch/url/3085471/","url":"{LISTED}","url_status":"online","host":"malware.site.example","date_added":"2026-11-20 08:12:55 UTC","threat":"malware_download","blacklists":{{"spamhaus_dbl":"not listed","surbl":"not listed"}},"reporter":"fixture","larted":"true","takedown_time_seconds":null,"tags":["elf","mirai"],"payloads":[]}}"#
        ),
        ("url/", Some(_), _) => r#"{"query_status":"no_results"}"#.into(),
        ("host/", _, Some("malware.site.example")) => r#"{"query_status":"ok","urlhaus_reference":"https://urlhaus.abuse.ch/host/malware.site.example/","host":"malware.site.example","firstseen":"2026-11-20 08:12:55 UTC","url_count":"1","blacklists":{},"urls":[]}"#.into(),
        ("host/", _, Some(_)) => r#"{"query_status":"no_results"}"#.into(),
        _ => r#"{"query_status":"invalid_url"}"#.into(),
    };
    (200, JSON, body)
}
