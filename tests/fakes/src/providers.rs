//! Fake third-party data providers, speaking their real wire formats, under `/providers/` of
//! the fake HTTP server:
//! - `/providers/openpagerank/api/v1.0/getPageRank?domains[]=D`: Open PageRank. The key
//!   [`OPENPAGERANK_KEY`] must be in `API-OPR` (otherwise 401, as the real API answers a bad
//!   key); known domains get their rank, others the item status 404 `Domain not found`.
//! - `/providers/greenweb/api/v3/greencheck/HOST`: the Green Web Foundation's greencheck;
//!   the hosts in [`GREEN_HOSTS`] are green.
//! - `/providers/binlist/BIN`: binlist.net's lookup (version 3 format); the BINs in
//!   [`BINS`] are known, others answer 404 with an empty body as binlist does, and `99999999`
//!   answers 429 as binlist does past its rate limit.
//! - `/providers/tor/torbulkexitlist`: the Tor project's bulk exit list: [`TOR_EXITS`], one
//!   address per line.
//! - `/providers/nominatim/search` and `/providers/nominatim/reverse`: a Nominatim geocoder
//!   (`geocoder.rs`).
//! - the live data providers of `live.rs`.

/// The key the fake Open PageRank accepts.
pub const OPENPAGERANK_KEY: &str = "fake-opr-key";

/// Domains the fake Open PageRank ranks: (domain, decimal rank, global rank).
const RANKS: &[(&str, f64, u64)] = &[("company.site.example", 7.53, 1024), ("site.example", 3.12, 250_123)];

/// Hosts the fake greencheck calls green.
pub const GREEN_HOSTS: &[&str] = &["green.site.example"];

/// BINs the fake binlist knows, with their answers (binlist's own documented example first).
pub const BINS: &[(&str, &str)] = &[
    (
        "45717360",
        r#"{"number":{"length":16,"luhn":true},"scheme":"visa","type":"debit","brand":"Visa/Dankort","prepaid":false,"country":{"numeric":"208","alpha2":"DK","name":"Denmark","emoji":"🇩🇰","currency":"DKK","latitude":56,"longitude":10},"bank":{"name":"Jyske Bank","url":"www.jyskebank.dk","phone":"+4589893300","city":"Hjørring"}}"#,
    ),
    (
        "54133300",
        r#"{"number":{},"scheme":"mastercard","type":"credit","brand":"World","prepaid":null,"country":{"numeric":"826","alpha2":"GB","name":"United Kingdom of Great Britain and Northern Ireland","emoji":"🇬🇧","currency":"GBP","latitude":54,"longitude":-2},"bank":{}}"#,
    ),
];

/// The addresses the fake Tor exit list names.
pub const TOR_EXITS: &[&str] = &["81.2.69.142", "2001:db8:200::66", "185.220.101.1"];

/// The answer to `path` (below `/providers`), or `None` when it is not a provider route:
/// (status, content type, body).
pub fn route(
    path: &str,
    query: &[(String, String)],
    raw_query: &str,
    headers: &hyper::HeaderMap,
) -> Option<(u16, &'static str, String)> {
    if let Some(answer) = crate::live::route(path, query, raw_query, headers) {
        return Some(answer);
    }
    let json = "application/json";
    let header = |name: &str| headers.get(name).and_then(|v| v.to_str().ok());
    let api_key = header("api-opr");
    if let Some(endpoint) = path.strip_prefix("/nominatim/") {
        return Some(crate::geocoder::route(endpoint, query, header("user-agent")));
    }
    if path == "/openpagerank/api/v1.0/getPageRank" {
        if api_key != Some(OPENPAGERANK_KEY) {
            return Some((401, json, r#"{"status_code":401,"error":"Invalid API Key"}"#.to_string()));
        }
        let items: Vec<String> = query
            .iter()
            .filter(|(k, _)| k == "domains[]" || k.starts_with("domains["))
            .map(|(_, d)| match RANKS.iter().find(|(name, _, _)| name == d) {
                Some((name, decimal, rank)) => format!(
                    r#"{{"status_code":200,"error":"","page_rank_integer":{},"page_rank_decimal":{decimal},"rank":"{rank}","domain":"{name}"}}"#,
                    decimal.floor() as u64
                ),
                None => format!(
                    r#"{{"status_code":404,"error":"Domain not found","page_rank_integer":0,"page_rank_decimal":0,"rank":null,"domain":"{}"}}"#,
                    d.replace('"', "")
                ),
            })
            .collect();
        return Some((
            200,
            json,
            format!(r#"{{"status_code":200,"response":[{}],"last_updated":"9th Nov 2026"}}"#, items.join(",")),
        ));
    }
    if path == "/tor/torbulkexitlist" {
        return Some((200, "text/plain", TOR_EXITS.join("\n") + "\n"));
    }
    if let Some(bin) = path.strip_prefix("/binlist/") {
        if bin == "99999999" {
            return Some((429, "text/plain", "Too Many Requests".to_string()));
        }
        return Some(match BINS.iter().find(|(b, _)| bin.starts_with(b) || b.starts_with(bin) && bin.len() >= 6) {
            Some((_, body)) => (200, json, body.to_string()),
            None => (404, json, String::new()),
        });
    }
    if let Some(host) = path.strip_prefix("/greenweb/api/v3/greencheck/") {
        let host = host.replace('"', "");
        let body = if GREEN_HOSTS.contains(&host.as_str()) {
            format!(
                r#"{{"url":"{host}","hosted_by":"Fixture Green Hosting","hosted_by_website":"https://green-hosting.site.example","partner":null,"green":true,"hosted_by_id":595,"modified":"2026-11-01T08:00:00","supporting_documents":[]}}"#
            )
        } else {
            format!(r#"{{"url":"{host}","green":false,"data":false}}"#)
        };
        return Some((200, json, body));
    }
    None
}
