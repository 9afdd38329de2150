//! What can be known of an IP address (`ip/intelligence`): its special-purpose
//! range if any, geolocation and AS from the operator's data files, host names from reverse
//! DNS, whether its AS is a hosting network (`hosting.rs`), and whether it is a Tor exit
//! (`tor_exits.rs`). Each part answers on its own: a part that cannot be had (no data file,
//! DNS failing, the Tor list unreachable) is null with the reason in `unavailable`, and the
//! rest still answers. Whether an address is a VPN cannot be known from these sources and is
//! always reported unknown.

use std::net::IpAddr;

use crate::lookups::dns::records::ptr_lookup;
use crate::lookups::ip::lookup::{parse_ip, special};
use wrench_contract::prelude::*;
use wrench_infra::datasets::{asn::AsnHit, city::Place};
use wrench_kit::hosts::hosting;
use wrench_kit::hosts::tor_exits;

#[derive(Debug, Deserialize, JsonSchema, Validate)]
#[serde(deny_unknown_fields)]
struct IntelligenceInput {
    /// An IPv4 or IPv6 address; the caller's own when absent.
    #[schemars(length(min = 1, max = 64), extend("anyOf" = [{"format": "ipv4"}, {"format": "ipv6"}]))]
    ip: Option<String>,
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct Classification {
    /// 4 or 6.
    version: u8,
    /// A globally routable address (not in any special-purpose range).
    global: bool,
    /// Not routable on the Internet: private, loopback, documentation, reserved ...
    bogon: bool,
    /// The special-purpose range and its definition, for a non-global address.
    special: Option<crate::lookups::ip::lookup::Special>,
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct Tor {
    /// The address is on the Tor project's exit list; null when the list could not be had.
    exit_node: Option<bool>,
    /// Seconds since the list was fetched.
    list_age_seconds: Option<u64>,
    list_fetched_at: Option<String>,
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct Unavailable {
    /// The part (`location`, `asn`, `reverseDns`, `tor`).
    part: &'static str,
    reason: String,
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct IntelligenceOutput {
    ip: String,
    classification: Classification,
    location: Option<Place>,
    asn: Option<AsnHit>,
    /// Host names from the address's PTR records (global addresses only).
    reverse_dns: Option<Vec<String>>,
    hosting: hosting::Hosting,
    tor: Tor,
    /// Always `unknown`: no source here tells a VPN's address from any other.
    vpn: &'static str,
    /// The parts that could not be had, and why.
    unavailable: Vec<Unavailable>,
    /// The credit the geolocation data's licence asks for, where known.
    attribution: Option<String>,
}

/// Gather what is known of an IP address.
///
/// For an address (the caller's by default): its classification (version, global or in a
/// special-purpose range such as private, documentation or CGNAT, named with its RFC),
/// geolocation and AS from the configured data files, host names from reverse DNS, a hosting
/// likelihood (`high` for a known cloud, CDN or hosting AS, `medium` when the AS's name says
/// hosting, else `unknown`) with the rule that decided it, and whether it is a Tor exit node
/// by the Tor project's list (its age given). Parts that cannot be had are null and listed in
/// `unavailable`; VPN use cannot be known and is reported `unknown`.
#[op(post "/v1/ip/intelligence" as ipIntelligence, tag = Lookups,
     redact(".data.tor.listAgeSeconds", ".data.tor.listFetchedAt"),
     example(fixture_exit_node, {"ip": "81.2.69.142"}),
     example(private, {"ip": "192.168.0.10"}),
     example(not_an_address, {"ip": "1.2.3"}, status = 400))]
async fn ip_intelligence(ctx: &Ctx, input: IntelligenceInput) -> Result<IntelligenceOutput, ApiError> {
    let ip: IpAddr = match input.ip.as_deref() {
        Some(t) => parse_ip("ip", t)?,
        None => {
            ctx.client_ip.ok_or_else(|| ApiError::invalid("ip", "the caller's address is not known here; give `ip`"))?
        }
    };
    let special = special(ip);
    let mut unavailable = Vec::new();
    let (location_part, asn_part, dns_part, tor_part) = tokio::join!(
        async {
            let city = ctx.datasets.city.get().await.map_err(|e| e.message.to_string())?;
            let found = city.data.lookup(ip).map_err(|e| e.to_string())?;
            let zone_credit = found.as_ref().is_some_and(|l| l.timezone_source == Some("coordinates"));
            Ok::<_, String>((
                found,
                wrench_infra::datasets::zones::credit(city.summary.attribution.clone(), zone_credit),
            ))
        },
        async {
            let table = ctx.datasets.asn.get().await.map_err(|e| e.message.to_string())?;
            Ok::<_, String>(table.data.lookup(ip))
        },
        async {
            if special.is_some() {
                return Err("reverse DNS is not asked for special-purpose addresses".to_string());
            }
            ptr_lookup(ctx, ip).await.map(|(_, _, _, names)| names).map_err(|e| e.message.to_string())
        },
        tor_exits::exits(ctx),
    );
    let (location, attribution) = match location_part {
        Ok((l, a)) => (l, a),
        Err(reason) => {
            unavailable.push(Unavailable { part: "location", reason });
            (None, None)
        }
    };
    let asn = asn_part.unwrap_or_else(|reason| {
        unavailable.push(Unavailable { part: "asn", reason });
        None
    });
    let reverse_dns = dns_part.map_err(|reason| unavailable.push(Unavailable { part: "reverseDns", reason })).ok();
    let tor = match tor_part {
        Ok(list) => Tor {
            exit_node: Some(list.data.contains(&ip)),
            list_age_seconds: Some(list.age_seconds()),
            list_fetched_at: Some(list.fetched_at.clone()),
        },
        Err(reason) => {
            unavailable.push(Unavailable { part: "tor", reason });
            Tor { exit_node: None, list_age_seconds: None, list_fetched_at: None }
        }
    };
    let hosting = hosting::judge(asn.as_ref().map(|a| a.asn), asn.as_ref().and_then(|a| a.organisation.as_deref()));
    Ok(IntelligenceOutput {
        ip: ip.to_string(),
        classification: Classification {
            version: if ip.is_ipv4() { 4 } else { 6 },
            global: special.is_none(),
            bogon: special.is_some(),
            special,
        },
        location,
        asn,
        reverse_dns,
        hosting,
        tor,
        vpn: "unknown",
        unavailable,
        attribution,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::fake_ctx;

    fn at(ip: &str) -> IntelligenceInput {
        IntelligenceInput { ip: Some(ip.into()) }
    }

    #[tokio::test]
    async fn every_part_answers_or_says_why() {
        let ctx = fake_ctx(&[]);
        let out = ip_intelligence(&ctx, at("81.2.69.142")).await.unwrap();
        assert_eq!(out.tor.exit_node, Some(true));
        assert_eq!(out.location.as_ref().and_then(|l| l.city.as_deref()), Some("London"));
        assert_eq!(out.asn.as_ref().map(|a| a.asn), Some(64500));
        assert!(out.classification.global && !out.classification.bogon && out.vpn == "unknown");
        // The test network's reverse DNS has no PTR for it: an empty list, not a failure.
        let hosting = ip_intelligence(&ctx, at("89.160.20.150")).await.unwrap();
        assert_eq!((hosting.hosting.likelihood, hosting.tor.exit_node), ("medium", Some(false)));
        assert!(hosting.hosting.reason.contains("hosting"));
        let private = ip_intelligence(&ctx, at("10.1.2.3")).await.unwrap();
        assert!(private.classification.bogon && private.reverse_dns.is_none());
        assert!(private.unavailable.iter().any(|u| u.part == "reverseDns"));
        // Without data files and with the Tor list off, the rest still answers.
        let bare = fake_ctx(&[
            ("WRENCH_GEOIP_CITY_DB", ""),
            ("WRENCH_GEOIP_ASN_DB", ""),
            ("WRENCH_PROVIDER_TOREXITS_URL", "off"),
        ]);
        let out = ip_intelligence(&bare, at("192.0.2.1")).await.unwrap();
        let parts: Vec<&str> = out.unavailable.iter().map(|u| u.part).collect();
        assert_eq!(parts, ["location", "asn", "reverseDns", "tor"]);
        assert!(out.unavailable[0].reason.contains("WRENCH_GEOIP_CITY_DB"));
        assert_eq!(out.classification.special.unwrap().range, "192.0.2.0/24");
        assert_eq!(out.hosting.likelihood, "unknown");
    }

    #[test]
    fn hosting_rules() {
        assert_eq!(hosting::judge(Some(16509), None).likelihood, "high");
        assert_eq!(hosting::judge(Some(16509), None).kind, Some("cloud"));
        assert_eq!(hosting::judge(Some(65000), Some("Foo Dedicated Servers")).likelihood, "medium");
        assert_eq!(hosting::judge(Some(65000), Some("Foo Telecom")).likelihood, "unknown");
        assert_eq!(hosting::judge(None, None).likelihood, "unknown");
    }
}
