//! Where an IP address is and which network holds it (`ip/lookup` and `ip/bulk`),
//! from the operator's data files (`WRENCH_GEOIP_CITY_DB`, `WRENCH_GEOIP_ASN_DB`; see
//! `crates/infra/src/datasets/`). Special-purpose addresses (private, loopback, documentation ...) are
//! named as such from the IANA registries, whatever the files hold.

use std::{net::IpAddr, sync::Arc};

use wrench_contract::prelude::*;
use wrench_infra::{
    datasets::{
        asn::{AsnDb, AsnHit},
        city::{CityDb, Place},
        slot::Loaded,
        zones,
    },
    outbound::policy,
};

/// Largest `ips` list of `ip/bulk`.
const MAX_BULK: usize = 100;

#[derive(Debug, Deserialize, JsonSchema, Validate)]
#[serde(deny_unknown_fields)]
struct IpLookupInput {
    /// An IPv4 or IPv6 address; the caller's own when absent (behind a proxy listed in
    /// `WRENCH_TRUSTED_PROXIES`, the address it forwarded for).
    #[schemars(length(min = 1, max = 64), extend("anyOf" = [{"format": "ipv4"}, {"format": "ipv6"}]))]
    ip: Option<String>,
}

/// A special-purpose range an address lies in.
#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Special {
    /// What the range is: `a private address`, `a documentation address`.
    pub(crate) kind: &'static str,
    pub(crate) range: &'static str,
    /// Where the range is defined.
    pub(crate) reference: &'static str,
}

pub(crate) fn special(ip: IpAddr) -> Option<Special> {
    policy::classify(ip).map(|r| Special { kind: r.what, range: r.range, reference: r.reference })
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct IpLookupOutput {
    ip: String,
    /// 4 or 6.
    version: u8,
    /// The geolocation data set holds the address.
    found: bool,
    /// Where the data set places it; null when it does not.
    location: Option<Place>,
    /// The autonomous system announcing it; null when the ASN data set is not configured or
    /// does not hold it.
    asn: Option<AsnHit>,
    /// The special-purpose range it lies in (IANA registries), or null for a global address.
    special: Option<Special>,
    /// The credit the geolocation data's licence asks for, where known.
    attribution: Option<String>,
}

pub(crate) fn parse_ip(field: &str, text: &str) -> Result<IpAddr, ApiError> {
    let t = text.trim();
    // An IPv4-mapped IPv6 address is the IPv4 address for every data set.
    t.parse::<IpAddr>()
        .map(|ip| match ip {
            IpAddr::V6(v6) => v6.to_ipv4_mapped().map_or(ip, IpAddr::V4),
            v4 => v4,
        })
        .map_err(|_| ApiError::invalid(field, format!("{t:?} is not an IPv4 or IPv6 address")))
}

/// The loaded data sets a lookup reads: geolocation, and the ASN table when configured.
struct Sets {
    city: Arc<Loaded<CityDb>>,
    asn: Option<Arc<Loaded<AsnDb>>>,
}

async fn sets(ctx: &Ctx) -> Result<Sets, ApiError> {
    let city = ctx.datasets.city.get().await?;
    let asn = if ctx.datasets.asn.configured() { Some(ctx.datasets.asn.get().await?) } else { None };
    Ok(Sets { city, asn })
}

/// Looks up one address in the loaded data sets. The ASN table is optional: without it the
/// answer has no `asn`.
fn lookup(sets: &Sets, ip: IpAddr) -> Result<IpLookupOutput, ApiError> {
    let location =
        sets.city.data.lookup(ip).map_err(|e| ApiError::internal(format!("the geolocation data set failed: {e}")))?;
    let zone_credit = location.as_ref().is_some_and(|l| l.timezone_source == Some("coordinates"));
    Ok(IpLookupOutput {
        ip: ip.to_string(),
        version: if ip.is_ipv4() { 4 } else { 6 },
        found: location.is_some(),
        location,
        asn: sets.asn.as_ref().and_then(|a| a.data.lookup(ip)),
        special: special(ip),
        attribution: zones::credit(sets.city.summary.attribution.clone(), zone_credit),
    })
}

/// Geolocate an IP address.
///
/// Country, region, city, postal code, coordinates, time zone and accuracy radius of an IPv4
/// or IPv6 address (the caller's own by default), with the autonomous system that holds it,
/// from the IP data files the operator configured (`WRENCH_GEOIP_CITY_DB`, and
/// `WRENCH_GEOIP_ASN_DB` for `asn`). Without a geolocation file the answer is 503
/// DATASET_NOT_INSTALLED naming the setting. An address the data does not hold answers
/// `found: false`; a special-purpose address (private, loopback, documentation ...) is named
/// in `special`. `attribution` carries the credit the data's licence requires.
#[op(post "/v1/ip/lookup" as ipLookup,
     get "/v1/ip/lookup" as ipLookupGet,
     tag = Lookups,
     uses(dataset),
     example(geoip2_schema, {"ip": "81.2.69.160"}),
     example(flat_schema_ipv6, {"ip": "2001:db8:200::1"}),
     example(private_address, {"ip": "192.168.1.20"}),
     example(not_an_address, {"ip": "300.1.2.3"}, status = 400))]
async fn ip_lookup(ctx: &Ctx, input: IpLookupInput) -> Result<IpLookupOutput, ApiError> {
    let ip = match input.ip.as_deref() {
        Some(text) => parse_ip("ip", text)?,
        None => {
            ctx.client_ip.ok_or_else(|| ApiError::invalid("ip", "the caller's address is not known here; give `ip`"))?
        }
    };
    lookup(&sets(ctx).await?, ip)
}

#[derive(Debug, Deserialize, JsonSchema, Validate)]
#[serde(deny_unknown_fields)]
struct IpBulkInput {
    /// 1 to 100 IPv4 or IPv6 addresses.
    #[schemars(length(min = 1, max = 100))]
    ips: Vec<String>,
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct BulkItem {
    /// The address as given.
    input: String,
    /// The address was read and looked up.
    ok: bool,
    #[serde(flatten)]
    result: Option<IpLookupOutput>,
    /// Why it was not, for an item that failed.
    error: Option<String>,
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct IpBulkOutput {
    /// One per address given, in order.
    results: Vec<BulkItem>,
    count: usize,
    found: usize,
    failed: usize,
    attribution: Option<String>,
}

/// Geolocate up to 100 IP addresses.
///
/// `ip/lookup` for each of up to 100 addresses, answered in the order given. An address that
/// does not parse fails alone (`ok: false` with the reason); the others are answered.
#[op(post "/v1/ip/bulk" as ipBulk, tag = Lookups,
     rejects = "an empty list or more than 100 addresses",
     uses(dataset),
     example(mixed, {"ips": ["81.2.69.160", "1.0.0.1", "10.0.0.1", "not-an-ip"]}),
     example(too_many, {"ips": []}, status = 400))]
async fn ip_bulk(ctx: &Ctx, input: IpBulkInput) -> Result<IpBulkOutput, ApiError> {
    if input.ips.is_empty() || input.ips.len() > MAX_BULK {
        return Err(ApiError::invalid("ips", format!("give 1 to {MAX_BULK} addresses")));
    }
    let mut results = Vec::with_capacity(input.ips.len());
    // Fetched at the first address that parses: a list of nothing but bad addresses is
    // answered item by item even without data files.
    let mut loaded: Option<Sets> = None;
    for text in input.ips {
        let item = match parse_ip("ips", &text) {
            Ok(ip) => {
                let sets = match &loaded {
                    Some(s) => s,
                    None => loaded.insert(sets(ctx).await?),
                };
                BulkItem { input: text, ok: true, result: Some(lookup(sets, ip)?), error: None }
            }
            Err(_) => BulkItem {
                error: Some(format!("{:?} is not an IPv4 or IPv6 address", text.trim())),
                input: text,
                ok: false,
                result: None,
            },
        };
        results.push(item);
    }
    let found = results.iter().filter(|r| r.result.as_ref().is_some_and(|o| o.found)).count();
    let failed = results.iter().filter(|r| !r.ok).count();
    let zone_credit = results.iter().any(|r| {
        r.result.as_ref().and_then(|o| o.location.as_ref()).is_some_and(|l| l.timezone_source == Some("coordinates"))
    });
    let attribution = zones::credit(loaded.and_then(|s| s.city.summary.attribution.clone()), zone_credit);
    Ok(IpBulkOutput { count: results.len(), found, failed, results, attribution })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::fake_ctx;

    async fn look(ctx: &Ctx, ip: &str) -> IpLookupOutput {
        ip_lookup(ctx, IpLookupInput { ip: Some(ip.into()) }).await.unwrap()
    }

    /// Both schemas read as the Python reference reader (maxminddb 2) reads the fixtures
    /// (`tests/fixtures/geoip/make.py` prints what it wrote).
    #[tokio::test]
    async fn both_schemas_and_the_asn_table_answer() {
        let ctx = fake_ctx(&[]);
        let london = look(&ctx, "81.2.69.160").await;
        let l = london.location.unwrap();
        assert_eq!(
            (l.country_code.as_deref(), l.city.as_deref(), l.region_code.as_deref()),
            (Some("GB"), Some("London"), Some("ENG"))
        );
        assert_eq!((l.latitude, l.longitude, l.accuracy_radius_km), (Some(51.5142), Some(-0.0931), Some(10)));
        assert_eq!((l.timezone.as_deref(), l.network.as_str()), (Some("Europe/London"), "81.2.69.0/24"));
        assert_eq!(
            london.asn.as_ref().map(|a| (a.asn, a.organisation.as_deref())),
            Some((64500, Some("Example Transit Ltd")))
        );
        assert_eq!(london.attribution.as_deref(), Some("IP Geolocation by DB-IP (https://db-ip.com)"));
        // A registered country different from the located one is said.
        let se = look(&ctx, "89.160.20.115").await.location.unwrap();
        assert_eq!((se.city.as_deref(), se.registered_country_code.as_deref()), (Some("Linköping"), Some("DE")));
        // The flat schema: names of countries and continents come from the embedded table.
        let bris = look(&ctx, "1.0.0.1").await;
        let b = bris.location.unwrap();
        assert_eq!(
            (b.country.as_deref(), b.continent.as_deref(), b.region.as_deref()),
            (Some("Australia"), Some("Oceania"), Some("Queensland"))
        );
        // The flat schema's files carry no zone: it is the zone at the coordinates.
        assert_eq!(
            (b.timezone.as_deref(), b.timezone_source, b.postal_code.as_deref()),
            (Some("Australia/Brisbane"), Some("coordinates"), Some("4000"))
        );
        assert_eq!(l.timezone_source, Some("dataset"));
        let mv = look(&ctx, "2001:db8:200::1").await;
        assert_eq!(mv.location.unwrap().district.as_deref(), Some("Santa Clara County"));
        assert_eq!(mv.asn.unwrap().networks, ["2001:db8:200::/40"]);
        // Not held anywhere; special-purpose named.
        let private = look(&ctx, "192.168.1.20").await;
        assert!(!private.found && private.location.is_none() && private.asn.is_none());
        assert_eq!(private.special.unwrap().range, "192.168.0.0/16");
        // An IPv4-mapped IPv6 address is its IPv4 address.
        assert_eq!(look(&ctx, "::ffff:81.2.69.160").await.ip, "81.2.69.160");
    }

    #[tokio::test]
    async fn without_a_file_the_answer_names_the_setting() {
        let ctx = fake_ctx(&[("WRENCH_GEOIP_CITY_DB", "")]);
        let e = ip_lookup(&ctx, IpLookupInput { ip: Some("81.2.69.160".into()) }).await.unwrap_err();
        assert_eq!(e.code, ErrorCode::DatasetNotInstalled);
        assert!(e.to_string().contains("WRENCH_GEOIP_CITY_DB"), "{e}");
        let missing = fake_ctx(&[("WRENCH_GEOIP_CITY_DB", "/nonexistent/city.mmdb")]);
        let e = ip_lookup(&missing, IpLookupInput { ip: Some("81.2.69.160".into()) }).await.unwrap_err();
        assert!(e.to_string().contains("WRENCH_GEOIP_CITY_DB") && e.to_string().contains("city.mmdb"), "{e}");
    }

    #[tokio::test]
    async fn the_callers_address_is_the_default() {
        let mut ctx = fake_ctx(&[]);
        ctx.client_ip = Some("81.2.69.161".parse().unwrap());
        let out = ip_lookup(&ctx, IpLookupInput { ip: None }).await.unwrap();
        assert_eq!((out.ip.as_str(), out.found), ("81.2.69.161", true));
    }

    #[tokio::test]
    async fn bulk_answers_in_order_and_fails_items_alone() {
        let ctx = fake_ctx(&[]);
        let ips = ["1.0.0.1", "bad", "81.2.69.160", "10.0.0.1"].map(String::from).to_vec();
        let out = ip_bulk(&ctx, IpBulkInput { ips }).await.unwrap();
        let inputs: Vec<&str> = out.results.iter().map(|r| r.input.as_str()).collect();
        assert_eq!(inputs, ["1.0.0.1", "bad", "81.2.69.160", "10.0.0.1"]);
        assert_eq!((out.count, out.found, out.failed), (4, 2, 1));
        assert!(out.results[1].error.as_deref().unwrap().contains("not an IPv4"));
        let too_many = ip_bulk(&ctx, IpBulkInput { ips: vec!["1.1.1.1".into(); 101] }).await.unwrap_err();
        assert!(too_many.to_string().contains("ips"));
    }
}
