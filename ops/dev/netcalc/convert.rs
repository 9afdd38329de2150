//! `ip/convert`: one address in every notation (integer, hex, binary, expanded, compressed, the
//! reverse-DNS name), the IPv4 address an IPv6 one carries, and what kind of address it is.
//!
//! The kinds follow the IANA IPv4 and IPv6 Special-Purpose Address Registries (their "Globally
//! Reachable" column, as of 2024), which is also what Python 3.13's `ipaddress` reads: an
//! address is private when it lies in a block the registries mark not globally reachable, bar
//! their exceptions, and global when it is neither private nor shared (100.64.0.0/10, RFC 6598).
//! An IPv4-mapped IPv6 address (`::ffff:a.b.c.d`) is private, global or loopback as its IPv4
//! address is.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

use wrench_contract::prelude::*;
use wrench_kit::ip_numbers::to_number;

/// A block as (network, prefix length).
type Block<T> = (T, u8);

const fn v4(a: u8, b: u8, c: u8, d: u8) -> u32 {
    u32::from_be_bytes([a, b, c, d])
}

/// IPv4 blocks not globally reachable (RFC 1122, 1918, 3927, 5736, 5737, 2544, 6890, 8190).
const V4_PRIVATE: &[Block<u32>] = &[
    (v4(0, 0, 0, 0), 8),
    (v4(10, 0, 0, 0), 8),
    (v4(127, 0, 0, 0), 8),
    (v4(169, 254, 0, 0), 16),
    (v4(172, 16, 0, 0), 12),
    (v4(192, 0, 0, 0), 24),
    (v4(192, 0, 2, 0), 24),
    (v4(192, 168, 0, 0), 16),
    (v4(198, 18, 0, 0), 15),
    (v4(198, 51, 100, 0), 24),
    (v4(203, 0, 113, 0), 24),
    (v4(240, 0, 0, 0), 4),
    (v4(255, 255, 255, 255), 32),
];
/// Inside those, the globally reachable exceptions (PCP and TURN anycast, RFC 7723 and 8155).
const V4_PRIVATE_EXCEPTIONS: &[Block<u32>] = &[(v4(192, 0, 0, 9), 32), (v4(192, 0, 0, 10), 32)];
const V4_SHARED: Block<u32> = (v4(100, 64, 0, 0), 10);
/// Documentation blocks: RFC 5737 (IPv4), RFC 3849 and RFC 9637 (IPv6).
const V4_DOCUMENTATION: &[Block<u32>] = &[(v4(192, 0, 2, 0), 24), (v4(198, 51, 100, 0), 24), (v4(203, 0, 113, 0), 24)];
const V6_DOCUMENTATION: &[Block<u128>] = &[(0x2001_0db8 << 96, 32), (0x3fff << 112, 20)];

/// IPv6 blocks not globally reachable (RFC 4291, 6052/8215, 6666, 2928, 3849, 3056, 4193).
const V6_PRIVATE: &[Block<u128>] = &[
    (1, 128),
    (0, 128),
    (0xffff << 32, 96),
    (0x0064_ff9b_0001 << 80, 48),
    (0x0100 << 112, 64),
    (0x2001 << 112, 23),
    (0x2001_0db8 << 96, 32),
    (0x2002 << 112, 16),
    (0xfc00 << 112, 7),
    (0xfe80 << 112, 10),
];
/// Inside those, the globally reachable exceptions (RFC 7723, 8155, 7954, 8004 and others).
const V6_PRIVATE_EXCEPTIONS: &[Block<u128>] = &[
    ((0x2001_0001 << 96) | 1, 128),
    ((0x2001_0001 << 96) | 2, 128),
    (0x2001_0003 << 96, 32),
    (0x2001_0004_0112 << 80, 48),
    (0x2001_0020 << 96, 28),
    (0x2001_0030 << 96, 28),
];
/// The IETF-reserved parts of the IPv6 space (RFC 4291 section 2.4 and the address space
/// registry): everything outside 2000::/3, fc00::/7, fe80::/10, fec0::/10 and ff00::/8.
const V6_RESERVED: &[Block<u128>] = &[
    (0, 8),
    (0x0100 << 112, 8),
    (0x0200 << 112, 7),
    (0x0400 << 112, 6),
    (0x0800 << 112, 5),
    (0x1000 << 112, 4),
    (0x4000 << 112, 3),
    (0x6000 << 112, 3),
    (0x8000 << 112, 3),
    (0xa000 << 112, 3),
    (0xc000 << 112, 3),
    (0xe000 << 112, 4),
    (0xf000 << 112, 5),
    (0xf800 << 112, 6),
    (0xfe00 << 112, 9),
];

fn in_v4(ip: u32, blocks: &[Block<u32>]) -> bool {
    blocks.iter().any(|&(net, len)| len == 0 || ip >> (32 - u32::from(len)) == net >> (32 - u32::from(len)))
}

fn in_v6(ip: u128, blocks: &[Block<u128>]) -> bool {
    blocks.iter().any(|&(net, len)| len == 0 || ip >> (128 - u32::from(len)) == net >> (128 - u32::from(len)))
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct AddressFlags {
    /// In a block the registries mark not globally reachable.
    private: bool,
    /// Globally reachable: neither private nor shared address space.
    global: bool,
    loopback: bool,
    link_local: bool,
    multicast: bool,
    /// IPv4 240.0.0.0/4; IPv6 the IETF-reserved parts of the space.
    reserved: bool,
    /// `0.0.0.0` or `::`.
    unspecified: bool,
    /// IPv6 fec0::/10 (deprecated site-local).
    site_local: bool,
    /// A documentation block (RFC 5737, 3849, 9637).
    documentation: bool,
}

fn v4_flags(ip: Ipv4Addr) -> AddressFlags {
    let n = u32::from(ip);
    let private = in_v4(n, V4_PRIVATE) && !in_v4(n, V4_PRIVATE_EXCEPTIONS);
    AddressFlags {
        private,
        global: !private && !in_v4(n, &[V4_SHARED]),
        loopback: ip.is_loopback(),
        link_local: ip.is_link_local(),
        multicast: ip.is_multicast(),
        reserved: in_v4(n, &[(v4(240, 0, 0, 0), 4)]),
        unspecified: ip.is_unspecified(),
        site_local: false,
        documentation: in_v4(n, V4_DOCUMENTATION),
    }
}

fn v6_flags(ip: Ipv6Addr) -> AddressFlags {
    let n = u128::from(ip);
    let mapped = ip.to_ipv4_mapped().map(v4_flags);
    let private = match &mapped {
        Some(f) => f.private,
        None => in_v6(n, V6_PRIVATE) && !in_v6(n, V6_PRIVATE_EXCEPTIONS),
    };
    AddressFlags {
        private,
        global: mapped.as_ref().map_or(!private, |f| f.global),
        loopback: mapped.as_ref().map_or(n == 1, |f| f.loopback),
        link_local: in_v6(n, &[(0xfe80 << 112, 10)]),
        multicast: ip.is_multicast(),
        reserved: in_v6(n, V6_RESERVED),
        unspecified: ip.is_unspecified(),
        site_local: in_v6(n, &[(0xfec0 << 112, 10)]),
        documentation: in_v6(n, V6_DOCUMENTATION),
    }
}

#[derive(Debug, Deserialize, JsonSchema, Validate)]
#[serde(deny_unknown_fields)]
struct IpConvertInput {
    /// An IPv4 or IPv6 address, or an address as an integer in decimal (`3232235777`) or hex
    /// (`0xc0a80101`).
    #[schemars(length(min = 1, max = 64))]
    ip: String,
    /// For an integer: the family (4 or 6). Absent, an integer below 2^32 is IPv4.
    #[serde(default)]
    version: Option<IpVersion>,
}

/// 4 or 6, declared and checked as exactly those.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(transparent)]
struct IpVersion(u8);

impl JsonSchema for IpVersion {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "IpVersion".into()
    }

    fn inline_schema() -> bool {
        true
    }

    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({"type": "integer", "enum": [4, 6]})
    }
}

impl Validate for IpVersion {
    fn validate(&self, path: &str) -> Result<(), wrench_contract::validate::FieldError> {
        if matches!(self.0, 4 | 6) {
            return Ok(());
        }
        Err(wrench_contract::validate::FieldError {
            path: path.to_string(),
            message: format!("is 4 or 6, not {}", self.0),
        })
    }
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct Teredo {
    /// The Teredo server's IPv4 address.
    server: String,
    /// The client's public IPv4 address (stored inverted in the address).
    client: String,
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct IpConvertOutput {
    /// 4 or 6.
    version: u8,
    /// The usual text form: dotted quad, or RFC 5952's compressed IPv6.
    compressed: String,
    /// Every digit written: four-digit groups for IPv6, the dotted quad for IPv4.
    expanded: String,
    /// The address as an unsigned integer, in decimal (a string: IPv6 outgrows JSON numbers).
    decimal: String,
    /// In hex, `0x` and 8 or 32 digits.
    hex: String,
    /// In binary, 32 or 128 digits.
    binary: String,
    /// The name a reverse-DNS (PTR) lookup asks for.
    reverse_pointer: String,
    /// IPv4: its IPv4-mapped IPv6 form (`::ffff:a.b.c.d`).
    ipv6_mapped: Option<String>,
    /// IPv6: the IPv4 address of an IPv4-mapped address.
    ipv4_mapped: Option<String>,
    /// IPv6: the IPv4 address of a 6to4 address (2002::/16).
    six_to_four: Option<String>,
    /// IPv6: the server and client of a Teredo address (2001::/32).
    teredo: Option<Teredo>,
    flags: AddressFlags,
}

/// The address `text` names, or a 400.
fn read(text: &str, version: Option<IpVersion>) -> Result<IpAddr, ApiError> {
    let t = text.trim();
    let version = version.map(|v| v.0);
    let number = if let Some(hex) = t.strip_prefix("0x").or_else(|| t.strip_prefix("0X")) {
        Some(u128::from_str_radix(hex, 16).map_err(|_| ApiError::invalid("ip", format!("{t:?} is not a hex number"))))
    } else if !t.is_empty() && t.bytes().all(|c| c.is_ascii_digit()) {
        Some(t.parse::<u128>().map_err(|_| ApiError::invalid("ip", "is larger than any address (2^128 - 1)")))
    } else {
        None
    };
    match number {
        Some(n) => {
            let n = n?;
            let v4 = match version {
                Some(4) => true,
                Some(_) => false,
                None => n <= u128::from(u32::MAX),
            };
            if v4 {
                let n = u32::try_from(n).map_err(|_| ApiError::invalid("ip", "is larger than any IPv4 address"))?;
                Ok(IpAddr::V4(n.into()))
            } else {
                Ok(IpAddr::V6(n.into()))
            }
        }
        None => {
            let ip = wrench_kit::ip_numbers::parse_ip("ip", t)?;
            match (version, ip) {
                (Some(4), IpAddr::V6(_)) | (Some(6), IpAddr::V4(_)) => {
                    Err(ApiError::invalid("version", "is not the family of ip"))
                }
                _ => Ok(ip),
            }
        }
    }
}

fn reverse_pointer(ip: IpAddr) -> String {
    match ip {
        IpAddr::V4(a) => {
            let o = a.octets();
            format!("{}.{}.{}.{}.in-addr.arpa", o[3], o[2], o[1], o[0])
        }
        IpAddr::V6(a) => {
            let nibbles: Vec<String> = format!("{:032x}", u128::from(a)).chars().rev().map(String::from).collect();
            format!("{}.ip6.arpa", nibbles.join("."))
        }
    }
}

/// Convert an IP address between notations and classify it.
///
/// Takes an IPv4 or IPv6 address, or one written as an integer (decimal or `0x` hex), and
/// answers it compressed and expanded, as an integer in decimal, hex and binary, its reverse-DNS
/// name, the IPv4 address inside an IPv4-mapped, 6to4 or Teredo IPv6 address, and its kind
/// (private, global, loopback, link-local, multicast, reserved, documentation…) by the IANA
/// special-purpose registries, as Python 3.13's `ipaddress` classifies it.
#[op(post "/v1/ip/convert" as ipConvert, tag = DeveloperUtilities,
     rejects = "an integer past the family's range, or a version that is not the address's",
     example(v4, {"ip": "192.168.1.10"}),
     example(integer, {"ip": "3232235777"}),
     example(teredo, {"ip": "2001:0:4136:e378:8000:63bf:3fff:fdd2"}),
     example(mapped, {"ip": "::ffff:8.8.8.8"}),
     example(not_an_address, {"ip": "300.1.1.1"}, status = 400))]
async fn ip_convert(input: IpConvertInput) -> Result<IpConvertOutput, ApiError> {
    let ip = read(&input.ip, input.version)?;
    let n = to_number(ip);
    Ok(match ip {
        IpAddr::V4(a) => IpConvertOutput {
            version: 4,
            compressed: a.to_string(),
            expanded: a.to_string(),
            decimal: n.to_string(),
            hex: format!("0x{n:08x}"),
            binary: format!("{n:032b}"),
            reverse_pointer: reverse_pointer(ip),
            ipv6_mapped: Some(a.to_ipv6_mapped().to_string()),
            ipv4_mapped: None,
            six_to_four: None,
            teredo: None,
            flags: v4_flags(a),
        },
        IpAddr::V6(a) => {
            let s = a.segments();
            let teredo = (s[0] == 0x2001 && s[1] == 0).then(|| Teredo {
                server: Ipv4Addr::from(((n >> 64) & 0xffff_ffff) as u32).to_string(),
                client: Ipv4Addr::from(!(n as u32)).to_string(),
            });
            IpConvertOutput {
                version: 6,
                compressed: a.to_string(),
                expanded: s.iter().map(|g| format!("{g:04x}")).collect::<Vec<_>>().join(":"),
                decimal: n.to_string(),
                hex: format!("0x{n:032x}"),
                binary: format!("{n:0128b}"),
                reverse_pointer: reverse_pointer(ip),
                ipv6_mapped: None,
                ipv4_mapped: a.to_ipv4_mapped().map(|m| m.to_string()),
                six_to_four: (s[0] == 0x2002).then(|| Ipv4Addr::from(((n >> 80) & 0xffff_ffff) as u32).to_string()),
                teredo,
                flags: v6_flags(a),
            }
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    async fn convert(ip: &str) -> IpConvertOutput {
        ip_convert(IpConvertInput { ip: ip.into(), version: None }).await.unwrap()
    }

    /// Python 3.13's `ipaddress` on 289 addresses of every special-purpose block
    /// (tests/fixtures/ipconvert.py). Python 3.13 writes an IPv4-mapped address's `exploded`
    /// with its IPv4 tail; `expanded` here is always eight hex groups (RFC 4291 section 2.2's
    /// first form), so it is compared with the hex groups of Python's integer instead.
    #[tokio::test]
    async fn pythons_forms_and_kinds() {
        let f = crate::testing::fixture("ipconvert.json");
        let cases = f.as_array().unwrap();
        assert!(cases.len() > 250);
        for c in cases {
            let ip = c["ip"].as_str().unwrap();
            let out = convert(ip).await;
            let got = serde_json::to_value(&out).unwrap();
            for key in ["version", "decimal", "compressed", "reversePointer", "flags"] {
                let want = &c[key];
                let got = &got[key];
                if key == "flags" {
                    for (flag, value) in want.as_object().unwrap() {
                        assert_eq!(&got[flag], value, "{ip} {flag}");
                    }
                } else {
                    assert_eq!(got, want, "{ip} {key}");
                }
            }
            if out.version == 6 {
                let n: u128 = c["decimal"].as_str().unwrap().parse().unwrap();
                assert_eq!(out.expanded.replace(':', ""), format!("{n:032x}"), "{ip}");
                assert_eq!(got["ipv4Mapped"], c["ipv4Mapped"], "{ip}");
                assert_eq!(got["sixToFour"], c["sixToFour"], "{ip}");
                let teredo = c["teredo"].as_array().map(|t| serde_json::json!({"server": t[0], "client": t[1]}));
                assert_eq!(got["teredo"], teredo.unwrap_or_default(), "{ip}");
            } else {
                assert_eq!(out.expanded, c["expanded"].as_str().unwrap());
            }
        }
    }

    #[tokio::test]
    async fn integers_and_refusals() {
        assert_eq!(convert("3232235777").await.compressed, "192.168.1.1");
        assert_eq!(convert("0xC0A80101").await.compressed, "192.168.1.1");
        let six = ip_convert(IpConvertInput { ip: "1".into(), version: Some(IpVersion(6)) }).await.unwrap();
        assert_eq!(six.compressed, "::1");
        assert_eq!(convert("4294967296").await.compressed, "::1:0:0");
        for (ip, version, field) in [
            ("300.1.1.1", None, "ip"),
            ("340282366920938463463374607431768211456", None, "ip"),
            ("4294967296", Some(4), "ip"),
            ("::1", Some(4), "version"),
            ("0xzz", None, "ip"),
        ] {
            let e = ip_convert(IpConvertInput { ip: ip.into(), version: version.map(IpVersion) }).await.unwrap_err();
            assert_eq!(e.field.as_deref(), Some(field), "{ip}");
        }
    }
}
