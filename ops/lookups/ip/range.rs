//! Whether an address is inside a CIDR range, and what the range holds (`ip/in-range`), for IPv4 and IPv6. Usable hosts follow the conventions of each family:
//! IPv4 keeps the network and broadcast addresses back except in /31 (RFC 3021) and /32
//! ranges; IPv6 has no broadcast, keeps back the subnet-router anycast address (RFC 4291
//! section 2.6.1) except in /127 (RFC 6164) and /128 ranges. Counts are decimal strings:
//! an IPv6 range holds up to 2^128 addresses, more than JSON numbers carry exactly.

use ipnet::IpNet;

use wrench_contract::prelude::*;
use wrench_kit::ip_numbers::{self, parse_ip};

#[derive(Debug, Deserialize, JsonSchema, Validate)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct InRangeInput {
    /// An IPv4 or IPv6 address.
    #[schemars(length(min = 1, max = 64))]
    ip: String,
    /// A CIDR range of the same family (`192.168.1.0/24`, `2001:db8::/32`); host bits may be
    /// set (`192.168.1.10/24` means `192.168.1.0/24`, and `hostBitsSet` says so).
    #[schemars(length(min = 1, max = 64))]
    range: String,
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct InRangeOutput {
    ip: String,
    /// The range in canonical form.
    range: String,
    /// 4 or 6.
    version: u8,
    in_range: bool,
    network: String,
    /// IPv4 only.
    broadcast: Option<String>,
    netmask: String,
    /// The host mask (inverse of the netmask).
    hostmask: String,
    prefix_length: u8,
    first_host: String,
    last_host: String,
    /// Every address of the range, as a decimal string.
    addresses: String,
    /// Addresses usable by hosts, as a decimal string.
    host_count: String,
    /// The range was written with host bits set.
    host_bits_set: bool,
}

/// Check whether an IP address is in a CIDR range.
///
/// Answers whether `ip` is inside `range` and describes the range: network, broadcast (IPv4),
/// netmask and host mask, prefix length, first and last usable host, the number of addresses
/// and of usable hosts (decimal strings). IPv4 and IPv6 both; an address of the other family
/// is simply not in the range.
#[op(post "/v1/ip/in-range" as ipInRange, tag = Lookups,
     rejects = "an address or range that does not parse",
     example(ipv4_inside, {"ip": "192.168.1.10", "range": "192.168.1.0/24"}),
     example(ipv6_outside, {"ip": "2001:db9::1", "range": "2001:db8::/32"}),
     example(host_bits_set, {"ip": "10.1.2.3", "range": "10.1.2.3/16"}),
     example(not_a_range, {"ip": "10.0.0.1", "range": "10.0.0.0/33"}, status = 400))]
async fn ip_in_range(input: InRangeInput) -> Result<InRangeOutput, ApiError> {
    let ip = parse_ip("ip", &input.ip)?;
    let text = input.range.trim();
    let written: IpNet = text.parse().map_err(|_| {
        ApiError::invalid("range", format!("{text:?} is not a CIDR range such as 192.168.1.0/24 or 2001:db8::/32"))
    })?;
    let net = written.trunc();
    let prefix = net.prefix_len();
    let (bits, version) = match net {
        IpNet::V4(_) => (32u32, 4u8),
        IpNet::V6(_) => (128, 6),
    };
    let host_bits = bits - u32::from(prefix);
    let addresses: u128 = if host_bits == 128 { u128::MAX } else { 1u128 << host_bits };
    let from_int = |n: u128| ip_numbers::from_number(version == 4, n);
    let first = ip_numbers::to_number(net.network());
    let last = ip_numbers::to_number(net.broadcast());
    // Point-to-point and single-address ranges use every address; others keep the ends back
    // (IPv4: network and broadcast; IPv6: the subnet-router anycast address only).
    let (first_host, last_host, hosts) = match (version, host_bits) {
        (_, 0) | (_, 1) => (first, last, addresses),
        (4, _) => (first + 1, last - 1, addresses - 2),
        _ => (first + 1, last, addresses - 1),
    };
    Ok(InRangeOutput {
        ip: ip.to_string(),
        range: net.to_string(),
        version,
        in_range: net.contains(&ip),
        network: net.network().to_string(),
        broadcast: (version == 4).then(|| net.broadcast().to_string()),
        netmask: net.netmask().to_string(),
        hostmask: net.hostmask().to_string(),
        prefix_length: prefix,
        first_host: from_int(first_host).to_string(),
        last_host: from_int(last_host).to_string(),
        addresses: ip_numbers::count(first, last),
        // An IPv6 /0 keeps one address back of its 2^128: u128::MAX of them.
        host_count: if host_bits == 128 { u128::MAX.to_string() } else { hosts.to_string() },
        host_bits_set: written != net,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Network, broadcast, netmask, prefix, address count and membership agree with Python's
    /// ipaddress module (`tests/fixtures/ip_ranges.json`, from `tests/fixtures/ip_ranges.py`).
    #[tokio::test]
    async fn agrees_with_pythons_ipaddress() {
        let cases: Vec<Value> = serde_json::from_str(include_str!("../../../tests/fixtures/ip_ranges.json")).unwrap();
        assert!(cases.len() >= 20);
        for c in &cases {
            let s = |k: &str| c[k].as_str().unwrap().to_string();
            let out = ip_in_range(InRangeInput { ip: s("ip"), range: s("range") }).await.unwrap();
            let ctx = format!("{} in {}", s("ip"), s("range"));
            // Compared as addresses: the two write IPv4-mapped ones differently (`::ffff:0.0.0.0`,
            // RFC 5952 section 5, against `::ffff:0:0`).
            let ip = |t: &str| t.parse::<std::net::IpAddr>().unwrap();
            assert_eq!(ip(&out.network), ip(&s("network")), "{ctx}");
            assert_eq!(out.broadcast.as_deref().map(ip), c["broadcast"].as_str().map(ip), "{ctx}");
            assert_eq!(ip(&out.netmask), ip(&s("netmask")), "{ctx}");
            assert_eq!(u64::from(out.prefix_length), c["prefix"].as_u64().unwrap(), "{ctx}");
            assert_eq!(out.addresses, s("addresses"), "{ctx}");
            assert_eq!(out.in_range, c["contains"].as_bool().unwrap(), "{ctx}");
        }
    }

    #[tokio::test]
    async fn usable_hosts_follow_each_familys_rules() {
        let r = |ip: &str, range: &str| ip_in_range(InRangeInput { ip: ip.into(), range: range.into() });
        let v4 = r("192.168.1.10", "192.168.1.0/24").await.unwrap();
        assert_eq!(
            (v4.first_host.as_str(), v4.last_host.as_str(), v4.host_count.as_str()),
            ("192.168.1.1", "192.168.1.254", "254")
        );
        let p2p = r("203.0.113.7", "203.0.113.6/31").await.unwrap();
        assert_eq!(
            (p2p.first_host.as_str(), p2p.last_host.as_str(), p2p.host_count.as_str()),
            ("203.0.113.6", "203.0.113.7", "2")
        );
        let v6 = r("2001:db8::1", "2001:db8::/126").await.unwrap();
        assert_eq!(
            (v6.first_host.as_str(), v6.last_host.as_str(), v6.host_count.as_str()),
            ("2001:db8::1", "2001:db8::3", "3")
        );
        let all = r("::1", "::/0").await.unwrap();
        assert_eq!(all.addresses, "340282366920938463463374607431768211456");
        assert!(r("10.1.2.3", "10.1.2.3/16").await.unwrap().host_bits_set);
        assert!(r("x", "10.0.0.0/8").await.is_err() && r("10.0.0.1", "10.0.0.0/33").await.is_err());
    }
}
