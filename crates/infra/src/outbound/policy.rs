//! Which addresses and names a caller may make wrench contact.
//!
//! An address is refused when it lies in any special-purpose range of the IANA IPv4 and IPv6
//! registries: private, loopback, link-local, shared (CGNAT), this-network, benchmarking,
//! documentation, multicast, reserved, broadcast, unique-local, site-local, discard. IPv6
//! forms that carry an IPv4 address (mapped, compatible, translated, NAT64, 6to4, Teredo) are
//! judged by the IPv4 address inside, because that is where the packets end up; the local-use
//! NAT64 prefix is refused outright, since where it leads is a local network's choice. IPv6 is
//! accepted only in 2000::/3, the global unicast space. Names are refused when they are
//! `localhost` or under it (RFC 6761), whatever DNS says.
//!
//! The only exception is the operator's allow list (`WRENCH_OUTBOUND_ALLOW`). This module
//! answers questions about addresses; it resolves nothing and connects nowhere.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

use ipnet::IpNet;

/// Why an address or name may not be contacted.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refusal {
    /// What the range is, as a noun phrase: "a loopback address".
    pub what: &'static str,
    /// The range, as the registry writes it.
    pub range: &'static str,
    /// Where the range is defined.
    pub reference: &'static str,
    /// The IPv4 address an IPv6 form carries, when that is what was judged.
    pub embedded: Option<(Ipv4Addr, &'static str)>,
}

impl Refusal {
    /// What the address is: "a loopback address (127.0.0.0/8, RFC 1122)", or for an IPv6 form
    /// "an IPv4-mapped address of 127.0.0.1, a loopback address (127.0.0.0/8, RFC 1122)".
    pub fn reason(&self) -> String {
        let base = format!("{} ({}, {})", self.what, self.range, self.reference);
        match self.embedded {
            Some((v4, form)) => format!("{form} of {v4}, {base}"),
            None => base,
        }
    }

    /// "127.0.0.1, a loopback address (127.0.0.0/8, RFC 1122)".
    pub fn describe(&self, ip: IpAddr) -> String {
        format!("{ip}, {}", self.reason())
    }
}

const fn v4(a: u8, b: u8, c: u8, d: u8) -> u32 {
    u32::from_be_bytes([a, b, c, d])
}

/// (network, prefix length, what, range, reference), from the IANA IPv4 Special-Purpose
/// Address Registry. Ranges the registry marks globally reachable are not listed, except
/// 192.88.99.0/24, the deprecated 6to4 relay anycast.
const IPV4: &[(u32, u8, &str, &str, &str)] = &[
    (v4(0, 0, 0, 0), 8, "a \"this network\" address", "0.0.0.0/8", "RFC 791"),
    (v4(10, 0, 0, 0), 8, "a private address", "10.0.0.0/8", "RFC 1918"),
    (v4(100, 64, 0, 0), 10, "a shared (CGNAT) address", "100.64.0.0/10", "RFC 6598"),
    (v4(127, 0, 0, 0), 8, "a loopback address", "127.0.0.0/8", "RFC 1122"),
    (v4(169, 254, 0, 0), 16, "a link-local address", "169.254.0.0/16", "RFC 3927"),
    (v4(172, 16, 0, 0), 12, "a private address", "172.16.0.0/12", "RFC 1918"),
    (v4(192, 0, 0, 0), 24, "an IETF protocol assignment", "192.0.0.0/24", "RFC 6890"),
    (v4(192, 0, 2, 0), 24, "a documentation address", "192.0.2.0/24", "RFC 5737"),
    (v4(192, 88, 99, 0), 24, "a 6to4 relay anycast address", "192.88.99.0/24", "RFC 7526"),
    (v4(192, 168, 0, 0), 16, "a private address", "192.168.0.0/16", "RFC 1918"),
    (v4(198, 18, 0, 0), 15, "a benchmarking address", "198.18.0.0/15", "RFC 2544"),
    (v4(198, 51, 100, 0), 24, "a documentation address", "198.51.100.0/24", "RFC 5737"),
    (v4(203, 0, 113, 0), 24, "a documentation address", "203.0.113.0/24", "RFC 5737"),
    (v4(224, 0, 0, 0), 4, "a multicast address", "224.0.0.0/4", "RFC 5771"),
    (v4(255, 255, 255, 255), 32, "the limited broadcast address", "255.255.255.255/32", "RFC 919"),
    (v4(240, 0, 0, 0), 4, "a reserved address", "240.0.0.0/4", "RFC 1112"),
];

/// (network, prefix length, what, range, reference) for IPv6 ranges refused whole. The IPv4
/// forms are handled before this table is read.
const IPV6: &[(u128, u8, &str, &str, &str)] = &[
    (0, 128, "the unspecified address", "::/128", "RFC 4291"),
    (1, 128, "the loopback address", "::1/128", "RFC 4291"),
    (0x0064_ff9b_0001 << 80, 48, "a local-use NAT64 address", "64:ff9b:1::/48", "RFC 8215"),
    (0x0100 << 112, 64, "a discard-only address", "100::/64", "RFC 6666"),
    (0x2001_0db8 << 96, 32, "a documentation address", "2001:db8::/32", "RFC 3849"),
    (0x2001 << 112, 23, "an IETF protocol assignment", "2001::/23", "RFC 2928"),
    (0x3fff << 112, 20, "a documentation address", "3fff::/20", "RFC 9637"),
    (0x5f00 << 112, 16, "a segment-routing (SRv6) address", "5f00::/16", "RFC 9602"),
    (0xfc00 << 112, 7, "a unique-local address", "fc00::/7", "RFC 4193"),
    (0xfe80 << 112, 10, "a link-local address", "fe80::/10", "RFC 4291"),
    (0xfec0 << 112, 10, "a site-local address", "fec0::/10", "RFC 3879"),
    (0xff00 << 112, 8, "a multicast address", "ff00::/8", "RFC 4291"),
];

fn in_v4(ip: u32, net: u32, len: u8) -> bool {
    len == 0 || (ip >> (32 - u32::from(len))) == (net >> (32 - u32::from(len)))
}

fn in_v6(ip: u128, net: u128, len: u8) -> bool {
    len == 0 || (ip >> (128 - u32::from(len))) == (net >> (128 - u32::from(len)))
}

/// Why `ip` may not be contacted, or `None` when it is a global address.
pub fn classify(ip: IpAddr) -> Option<Refusal> {
    match ip {
        IpAddr::V4(v4) => classify_v4(v4),
        IpAddr::V6(v6) => classify_v6(v6),
    }
}

fn classify_v4(ip: Ipv4Addr) -> Option<Refusal> {
    let n = u32::from(ip);
    IPV4.iter().find(|(net, len, ..)| in_v4(n, *net, *len)).map(|&(_, _, what, range, reference)| Refusal {
        what,
        range,
        reference,
        embedded: None,
    })
}

/// The IPv4 addresses an IPv6 form carries, with the form's name, in the order they are judged.
pub fn embedded_v4(ip: Ipv6Addr) -> Vec<(Ipv4Addr, &'static str)> {
    let n = u128::from(ip);
    let low32 = Ipv4Addr::from((n & 0xffff_ffff) as u32);
    if n <= 1 {
        return Vec::new();
    }
    if in_v6(n, 0xffff << 32, 96) {
        return vec![(low32, "an IPv4-mapped address")];
    }
    if in_v6(n, 0, 96) {
        return vec![(low32, "an IPv4-compatible address")];
    }
    if in_v6(n, 0xffff << 48, 96) {
        return vec![(low32, "an IPv4-translated address")];
    }
    if in_v6(n, 0x0064_ff9b << 96, 96) {
        return vec![(low32, "a NAT64 address")];
    }
    if in_v6(n, 0x2002 << 112, 16) {
        return vec![(Ipv4Addr::from(((n >> 80) & 0xffff_ffff) as u32), "a 6to4 address")];
    }
    if in_v6(n, 0x2001_0000 << 96, 32) {
        // Teredo (RFC 4380): the server's address in bits 32-63, the client's inverted in the
        // last 32 bits.
        let server = Ipv4Addr::from(((n >> 64) & 0xffff_ffff) as u32);
        let client = Ipv4Addr::from(!((n & 0xffff_ffff) as u32));
        return vec![(client, "a Teredo address (client)"), (server, "a Teredo address (server)")];
    }
    Vec::new()
}

fn classify_v6(ip: Ipv6Addr) -> Option<Refusal> {
    let n = u128::from(ip);
    let embedded = embedded_v4(ip);
    for &(v4, form) in &embedded {
        if let Some(r) = classify_v4(v4) {
            return Some(Refusal { embedded: Some((v4, form)), ..r });
        }
    }
    // An IPv4 form whose address is global goes where that address goes (Teredo and 6to4 sit
    // inside ranges refused below, so they are decided here).
    if !embedded.is_empty() {
        return None;
    }
    if let Some(&(_, _, what, range, reference)) = IPV6.iter().find(|(net, len, ..)| in_v6(n, *net, *len)) {
        return Some(Refusal { what, range, reference, embedded: None });
    }
    if !in_v6(n, 0x2000 << 112, 3) {
        return Some(Refusal {
            what: "a reserved address outside the global unicast space",
            range: "outside 2000::/3",
            reference: "RFC 4291",
            embedded: None,
        });
    }
    None
}

/// Names refused whatever they resolve to: `localhost` and every name under it.
pub fn classify_name(host: &str) -> Option<Refusal> {
    let h = host.trim_end_matches('.').to_ascii_lowercase();
    (h == "localhost" || h.ends_with(".localhost")).then_some(Refusal {
        what: "the local host's own name",
        range: "localhost and its subdomains",
        reference: "RFC 6761",
        embedded: None,
    })
}

/// The policy of one instance: the classification above, less the operator's allow list.
#[derive(Debug, Clone, Default)]
pub struct Policy {
    allow: Vec<IpNet>,
}

impl Policy {
    pub fn new(allow: Vec<IpNet>) -> Policy {
        Policy { allow }
    }

    fn allowed(&self, ip: IpAddr) -> bool {
        let embedded: Vec<IpAddr> = match ip {
            IpAddr::V6(v6) => embedded_v4(v6).into_iter().map(|(v4, _)| IpAddr::V4(v4)).collect(),
            IpAddr::V4(_) => Vec::new(),
        };
        // An allowed IPv4 range is allowed in every IPv6 spelling of its addresses too, and only
        // when every address the form carries is inside the list.
        self.allow.iter().any(|net| net.contains(&ip))
            || (!embedded.is_empty() && embedded.iter().all(|e| self.allow.iter().any(|net| net.contains(e))))
    }

    /// `Ok` when `ip` may be contacted.
    pub fn check(&self, ip: IpAddr) -> Result<(), Refusal> {
        use crate::metrics::{HostClass, outbound};
        if self.allowed(ip) {
            outbound(HostClass::Allowed);
            return Ok(());
        }
        match classify(ip) {
            Some(r) => {
                outbound(HostClass::Refused);
                Err(r)
            }
            None => {
                outbound(HostClass::Public);
                Ok(())
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn refused(ip: &str) -> Option<String> {
        let ip: IpAddr = ip.parse().unwrap();
        classify(ip).map(|r| r.describe(ip))
    }

    /// One address inside (and, where it matters, just outside) every refused range, with the
    /// words the refusal must contain.
    #[test]
    fn every_special_purpose_range_is_refused_and_named() {
        for (ip, words) in [
            ("0.0.0.0", "this network"),
            ("0.255.255.255", "this network"),
            ("10.0.0.1", "private address (10.0.0.0/8"),
            ("100.64.0.1", "CGNAT"),
            ("100.100.100.200", "CGNAT"),
            ("127.0.0.1", "loopback"),
            ("127.255.255.254", "loopback"),
            ("169.254.169.254", "link-local"),
            ("169.254.170.2", "link-local"),
            ("172.16.0.1", "private"),
            ("172.31.255.255", "private"),
            ("192.0.0.192", "IETF protocol assignment"),
            ("192.0.2.1", "documentation"),
            ("192.88.99.1", "6to4 relay"),
            ("192.168.1.1", "private"),
            ("198.18.0.1", "benchmarking"),
            ("198.19.255.255", "benchmarking"),
            ("198.51.100.7", "documentation"),
            ("203.0.113.9", "documentation"),
            ("224.0.0.1", "multicast"),
            ("239.255.255.250", "multicast"),
            ("240.0.0.1", "reserved"),
            ("255.255.255.255", "broadcast"),
            ("::", "unspecified"),
            ("::1", "loopback address (::1/128"),
            ("::ffff:127.0.0.1", "IPv4-mapped address of 127.0.0.1, a loopback"),
            ("::ffff:169.254.169.254", "IPv4-mapped address of 169.254.169.254"),
            ("::7f00:1", "IPv4-compatible address of 127.0.0.1"),
            ("::ffff:0:a00:1", "IPv4-translated address of 10.0.0.1"),
            ("64:ff9b::a9fe:a9fe", "NAT64 address of 169.254.169.254"),
            ("64:ff9b:1::808:808", "local-use NAT64"),
            ("2002:7f00:1::", "6to4 address of 127.0.0.1"),
            ("2002:c0a8:101::1", "6to4 address of 192.168.1.1"),
            ("2001:0:4136:e378:8000:63bf:80ff:fffe", "Teredo address (client) of 127.0.0.1"),
            ("2001:0:a00:1:8000:63bf:f7f7:f7f7", "Teredo address (server) of 10.0.0.1"),
            ("100::1", "discard-only"),
            ("2001:db8::1", "documentation address (2001:db8::/32"),
            ("2001:2::1", "IETF protocol assignment"),
            ("3fff::1", "documentation address (3fff::/20"),
            ("5f00::1", "SRv6"),
            ("fc00::1", "unique-local"),
            ("fd00:ec2::254", "unique-local"),
            ("fe80::1", "link-local"),
            ("fec0::1", "site-local"),
            ("ff02::1", "multicast"),
            ("4000::1", "outside 2000::/3"),
            ("::2", "IPv4-compatible address of 0.0.0.2"),
        ] {
            let got = refused(ip).unwrap_or_else(|| panic!("{ip} was not refused"));
            assert!(got.contains(words), "{ip}: {got}");
        }
    }

    #[test]
    fn global_addresses_pass() {
        for ip in [
            "1.1.1.1",
            "8.8.8.8",
            "9.255.255.255",
            "11.0.0.0",
            "100.63.255.255",
            "100.128.0.0",
            "172.15.255.255",
            "172.32.0.0",
            "192.0.1.1",
            "192.88.98.255",
            "198.17.255.255",
            "198.20.0.0",
            "223.255.255.255",
            "2606:4700:4700::1111",
            "2a00:1450:4001:80e::200e",
            "::ffff:8.8.8.8",
            "64:ff9b::808:808",
            "2002:808:808::1",
            "2001:0:808:808:8000:63bf:f7f7:f7f7",
        ] {
            assert_eq!(refused(ip), None, "{ip}");
        }
    }

    #[test]
    fn localhost_names_are_refused() {
        for name in ["localhost", "LOCALHOST.", "a.localhost", "x.y.localhost."] {
            assert!(classify_name(name).is_some(), "{name}");
        }
        for name in ["localhost.example.com", "notlocalhost", "example.com"] {
            assert!(classify_name(name).is_none(), "{name}");
        }
    }

    #[test]
    fn the_allow_list_opens_exactly_its_ranges() {
        let p = Policy::new(vec!["127.0.0.2/32".parse().unwrap(), "10.1.0.0/16".parse().unwrap()]);
        for ip in ["127.0.0.2", "::ffff:127.0.0.2", "10.1.200.3", "64:ff9b::a01:203"] {
            assert!(p.check(ip.parse().unwrap()).is_ok(), "{ip}");
        }
        for ip in ["127.0.0.1", "::ffff:127.0.0.1", "10.2.0.1", "::1", "169.254.169.254"] {
            assert!(p.check(ip.parse().unwrap()).is_err(), "{ip}");
        }
        assert!(Policy::default().check("127.0.0.2".parse().unwrap()).is_err());
    }
}
