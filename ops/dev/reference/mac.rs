//! `mac/lookup`: a MAC-48 or EUI-64 address in every usual notation, what its two flag bits
//! say, the EUI-64 and IPv6 link-local address derived from it, and the organisation the IEEE
//! Registration Authority assigned its block to (`data/mac/oui.tsv`, the MA-L, MA-M and MA-S
//! registries as npm oui-data republishes them).
//!
//! Blocks nest: MA-M (28-bit) and MA-S (36-bit) blocks are carved out of MA-L (24-bit) blocks the
//! IEEE holds itself, so the longest matching prefix names the organisation.

use std::{collections::HashMap, sync::LazyLock};

use wrench_contract::prelude::*;

/// One assigned block: its organisation and postal address lines (the country last).
struct Block {
    organisation: &'static str,
    address: Vec<&'static str>,
}

/// Blocks by prefix: upper-case hex of 6 (MA-L), 7 (MA-M) or 9 (MA-S) digits.
static BLOCKS: LazyLock<HashMap<&'static str, Block>> = LazyLock::new(|| {
    wrench_infra::blobs::MAC_BLOCKS
        .leak_text()
        .lines()
        .filter_map(|line| {
            let mut fields = line.split('\t');
            let prefix = fields.next()?;
            let organisation = fields.next()?;
            Some((prefix, Block { organisation, address: fields.collect() }))
        })
        .collect()
});

#[derive(Debug, Deserialize, JsonSchema, Validate)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct MacLookupInput {
    /// A MAC-48 address (`00:1B:77:49:54:FD`, `00-1b-77-49-54-fd`, `001b.7749.54fd`,
    /// `001B774954FD`; colon or hyphen groups may drop a leading zero) or an EUI-64 in the same
    /// notations with eight groups (four dotted ones, or 16 digits).
    #[schemars(length(min = 1, max = 64))]
    mac: String,
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct MacFormats {
    /// Lower-case hex pairs joined by colons (Linux, macOS).
    colon: String,
    /// Upper-case hex pairs joined by hyphens (IEEE, Windows).
    hyphen: String,
    /// Lower-case groups of four joined by dots (Cisco).
    dot: String,
    /// Upper-case hex digits alone.
    bare: String,
}

#[derive(Debug, Serialize, JsonSchema)]
enum AddressKind {
    /// 48 bits: an Ethernet, Wi-Fi or Bluetooth address.
    #[serde(rename = "mac-48")]
    Mac48,
    /// 64 bits: an IEEE EUI-64 (ZigBee, FireWire, IPv6 interface identifiers).
    #[serde(rename = "eui-64")]
    Eui64,
}

#[derive(Debug, Serialize, JsonSchema)]
enum Registry {
    /// A 24-bit block (an OUI).
    #[serde(rename = "MA-L")]
    MaL,
    /// A 28-bit block.
    #[serde(rename = "MA-M")]
    MaM,
    /// A 36-bit block (with the former IAB blocks).
    #[serde(rename = "MA-S")]
    MaS,
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct MacLookupOutput {
    /// The address in its canonical (colon) form.
    mac: String,
    /// Whether it is a MAC-48 or an EUI-64.
    kind: AddressKind,
    /// The address in each notation.
    formats: MacFormats,
    /// Whether a registered block holds the address.
    found: bool,
    /// The organisation the block is assigned to (`Private` for assignees who asked the IEEE
    /// not to publish their name); null when no block holds the address.
    vendor: Option<String>,
    /// The organisation's postal address as the registry lists it, line by line, its country
    /// last; empty when not found or not published.
    vendor_address: Vec<String>,
    /// The registry of the block; null when not found.
    registry: Option<Registry>,
    /// The block's prefix in upper-case hex (6, 7 or 9 digits); null when not found.
    prefix: Option<String>,
    /// The block's prefix length in bits (24, 28 or 36); null when not found.
    prefix_length: Option<u8>,
    /// Whether the individual/group bit (the least significant bit of the first octet) is 0:
    /// the address names one interface rather than a multicast group.
    unicast: bool,
    /// Whether the universal/local bit (the second least significant bit of the first octet)
    /// is 0: the address was assigned from an IEEE block rather than set locally (randomised
    /// Wi-Fi addresses, virtual machines and containers set it).
    universal: bool,
    /// The EUI-64: a MAC-48 with `FF:FE` inserted after its third octet (IEEE's mapping), in
    /// hyphen notation; an EUI-64 itself.
    eui64: String,
    /// The IPv6 link-local address whose interface identifier is the modified EUI-64 (the
    /// EUI-64 with its universal/local bit inverted, RFC 4291 appendix A).
    ipv6_link_local: String,
}

/// The octets of `text` in one of the accepted notations, or why not.
fn parse(text: &str) -> Result<Vec<u8>, &'static str> {
    let text = text.trim();
    let hex_digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_hexdigit());
    let digits: String = match text.find([':', '-', '.']).map(|i| text.as_bytes()[i]) {
        None => text.to_string(),
        Some(b'.') => {
            let groups: Vec<&str> = text.split('.').collect();
            if !(groups.len() == 3 || groups.len() == 4) || !groups.iter().all(|g| g.len() == 4 && hex_digits(g)) {
                return Err("dotted notation takes three (MAC-48) or four (EUI-64) groups of four hex digits");
            }
            groups.concat()
        }
        Some(separator) => {
            let groups: Vec<&str> = text.split(separator as char).collect();
            if !(groups.len() == 6 || groups.len() == 8) || !groups.iter().all(|g| g.len() <= 2 && hex_digits(g)) {
                return Err(
                    "colon or hyphen notation takes six (MAC-48) or eight (EUI-64) groups of one or two hex digits, one separator throughout",
                );
            }
            groups.iter().map(|g| format!("{g:0>2}")).collect()
        }
    };
    if !(digits.len() == 12 || digits.len() == 16) || !hex_digits(&digits) {
        return Err("not a MAC-48 (12 hex digits) or EUI-64 (16 hex digits) address");
    }
    Ok((0..digits.len()).step_by(2).map(|i| u8::from_str_radix(&digits[i..i + 2], 16).expect("hex")).collect())
}

fn formats(octets: &[u8]) -> MacFormats {
    let lower = hex::encode(octets);
    let upper = lower.to_uppercase();
    let pairs =
        |s: &str, separator: &str| (0..s.len()).step_by(2).map(|i| &s[i..i + 2]).collect::<Vec<_>>().join(separator);
    MacFormats {
        colon: pairs(&lower, ":"),
        hyphen: pairs(&upper, "-"),
        dot: (0..lower.len()).step_by(4).map(|i| &lower[i..i + 4]).collect::<Vec<_>>().join("."),
        bare: upper,
    }
}

/// The longest assigned prefix of the address's upper-case hex digits.
fn block_of(bare: &str) -> Option<(&'static str, &'static Block, Registry, u8)> {
    [(9, Registry::MaS, 36), (7, Registry::MaM, 28), (6, Registry::MaL, 24)].into_iter().find_map(
        |(digits, registry, bits)| {
            BLOCKS.get_key_value(&bare[..digits]).map(|(prefix, block)| (*prefix, block, registry, bits))
        },
    )
}

/// Look up a MAC address: its vendor, notations, flags and IPv6 link-local address.
///
/// Reads a MAC-48 or EUI-64 in colon, hyphen, dotted (Cisco) or bare notation and answers it in
/// each, with whether it is unicast and universally administered, its EUI-64 and the IPv6
/// link-local address built from it (RFC 4291), and the organisation the IEEE Registration
/// Authority assigned its block to, from the MA-L, MA-M and MA-S registries embedded in wrench
/// (53,730 blocks, August 2026). Nothing is fetched. An address no block holds answers
/// `found: false`.
#[op(post "/v1/mac/lookup" as macLookup, tag = DeveloperUtilities,
     rejects = "a string that is not a MAC-48 or EUI-64 address in one of the accepted notations",
     example(colon, {"mac": "00:1B:77:49:54:FD"}),
     example(cisco_dotted, {"mac": "70b3.d50a.b123"}),
     example(eui64, {"mac": "00-1B-77-FF-FE-49-54-FD"}),
     example(locally_administered, {"mac": "da:a1:19:00:00:01"}),
     example(not_an_address, {"mac": "00:1B:77:49:54"}, status = 400))]
async fn mac_lookup(input: MacLookupInput) -> Result<MacLookupOutput, ApiError> {
    let octets = parse(&input.mac).map_err(|m| ApiError::invalid("mac", m))?;
    let formats = formats(&octets);
    let eui64: Vec<u8> = match octets.len() {
        6 => [&octets[..3], &[0xff, 0xfe], &octets[3..]].concat(),
        _ => octets.clone(),
    };
    let mut interface = eui64.clone();
    interface[0] ^= 0x02;
    let link_local = std::net::Ipv6Addr::from(u128::from_be_bytes(
        [[0xfe, 0x80, 0, 0, 0, 0, 0, 0].as_slice(), &interface].concat().try_into().expect("16 octets"),
    ));
    let block = block_of(&formats.bare);
    Ok(MacLookupOutput {
        mac: formats.colon.clone(),
        kind: if octets.len() == 6 { AddressKind::Mac48 } else { AddressKind::Eui64 },
        found: block.is_some(),
        vendor: block.as_ref().map(|(_, b, _, _)| b.organisation.to_string()),
        vendor_address: block
            .as_ref()
            .map(|(_, b, _, _)| b.address.iter().map(|l| l.to_string()).collect())
            .unwrap_or_default(),
        prefix: block.as_ref().map(|(p, _, _, _)| p.to_string()),
        prefix_length: block.as_ref().map(|(_, _, _, bits)| *bits),
        registry: block.map(|(_, _, registry, _)| registry),
        unicast: octets[0] & 0x01 == 0,
        universal: octets[0] & 0x02 == 0,
        eui64: self::formats(&eui64).hyphen,
        ipv6_link_local: link_local.to_string(),
        formats,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lookup(mac: &str) -> Result<MacLookupOutput, ApiError> {
        let runtime = tokio::runtime::Builder::new_current_thread().build().unwrap();
        runtime.block_on(mac_lookup(MacLookupInput { mac: mac.into() }))
    }

    /// npm oui-data's own lookup (its README: the 9-, 7-, then 6-digit prefix) and PyPI
    /// netaddr 1.3.0's `EUI` (notations, `eui64()`, `ipv6_link_local()`, the flag bits) over
    /// generated addresses in every notation (tests/fixtures/mac_lookup.py, .mjs).
    #[test]
    fn agrees_with_oui_data_and_netaddr() {
        let f = crate::testing::fixture("mac_lookup.json");
        let cases = f.as_array().unwrap();
        assert!(cases.len() >= 400, "{}", cases.len());
        for c in cases {
            let given = c["given"].as_str().unwrap();
            let out = lookup(given).unwrap_or_else(|e| panic!("{given}: {e:?}"));
            let out = serde_json::to_value(out).unwrap();
            for field in [
                "mac",
                "kind",
                "formats",
                "unicast",
                "universal",
                "eui64",
                "ipv6LinkLocal",
                "vendor",
                "vendorAddress",
                "prefix",
            ] {
                assert_eq!(out[field], c[field], "{given}: {field}");
            }
        }
    }

    #[test]
    fn refuses_what_is_not_an_address() {
        for bad in [
            "",
            "00:1B:77:49:54",
            "00:1B:77:49:54:FD:00",
            "00:1B-77:49:54:FD",
            "001:B7:74:95:4F:D0",
            "001b.7749.54f",
            "001B774954FG",
            "001B774954F",
            "00:1B:77:49:54:",
            "0x001B774954FD",
        ] {
            assert!(lookup(bad).is_err(), "{bad}");
        }
    }
}
