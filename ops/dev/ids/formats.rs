//! The readers `id/decode` detects and applies: each turns the text of one identifier format
//! into its bytes, its embedded time and its named parts, or says why it is not one.
//!
//! Layouts, with their sources:
//! - UUID: RFC 9562. Versions 1 and 6 count 100-nanosecond ticks since 1582-10-15 (the
//!   Gregorian reform); version 7 carries Unix milliseconds in its first 48 bits.
//! - ULID: 26 Crockford Base32 characters, 48 bits of Unix milliseconds then 80 random bits
//!   (the ULID specification).
//! - ObjectId: 12 bytes, Unix seconds (4, big-endian), a 5-byte per-process random value and a
//!   3-byte counter (MongoDB's ObjectId specification).
//! - KSUID: 27 Base62 characters of 20 bytes, seconds since 1400000000 (4 bytes) then a 16-byte
//!   payload (Segment's KSUID).
//! - XID: 20 characters of RFC 4648 base32hex in lower case, 12 bytes: Unix seconds (4), a
//!   machine id (3), a process id (2) and a counter (3).
//! - Snowflake: a 63-bit decimal, milliseconds since an epoch in bits 22 and up, then two 5-bit
//!   fields and a 12-bit sequence; Twitter's epoch is 1288834974657, Discord's 1420070400000.

use jiff::Timestamp;
use schemars::JsonSchema;
use serde::Serialize;
use uuid::{Uuid, Variant};
use wrench_kit::byte_encoding::colon_hex;

/// Ticks (100 ns) from 1582-10-15 to 1970-01-01.
const GREGORIAN_OFFSET: i128 = 0x01B2_1DD2_1381_4000;
const KSUID_EPOCH: i64 = 1_400_000_000;
pub(super) const TWITTER_EPOCH: i64 = 1_288_834_974_657;
pub(super) const DISCORD_EPOCH: i64 = 1_420_070_400_000;
const CROCKFORD: &[u8; 32] = b"0123456789ABCDEFGHJKMNPQRSTVWXYZ";
const BASE62: &[u8; 62] = b"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

/// The named fields of an identifier; each format fills the ones it has.
#[derive(Debug, Default, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub(super) struct IdParts {
    /// UUID versions 1 and 6: 100-nanosecond ticks since 1582-10-15, as a decimal string.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub gregorian_ticks: Option<String>,
    /// UUID versions 1 and 6: the 14-bit clock sequence.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub clock_sequence: Option<u16>,
    /// UUID versions 1 and 6: the 48-bit node, colon-separated; `nodeMulticast` tells a random
    /// node from a network card's address.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub node: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub node_multicast: Option<bool>,
    /// The random bits (ULID, UUID v7's after the time, ObjectId's per-process value), hex.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub random: Option<String>,
    /// KSUID: the 16-byte payload, hex.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub payload: Option<String>,
    /// XID: the 3-byte machine id, hex.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub machine_id: Option<String>,
    /// XID: the process id; Discord snowflake: the internal process id.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub process_id: Option<u16>,
    /// Twitter snowflake: the datacenter id.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub datacenter_id: Option<u16>,
    /// Snowflake: the worker id.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub worker_id: Option<u16>,
    /// ObjectId and XID: the counter.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub counter: Option<u32>,
    /// Snowflake: the per-millisecond sequence (Discord's increment).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sequence: Option<u16>,
    /// Snowflake: the epoch its time counts from, Unix milliseconds.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub epoch: Option<i64>,
}

/// One identifier read.
#[derive(Debug)]
pub(super) struct Decoded {
    pub kind: &'static str,
    pub normalized: String,
    pub bytes: Vec<u8>,
    pub version: Option<u8>,
    pub variant: Option<&'static str>,
    /// The embedded time, in nanoseconds since the Unix epoch.
    pub unix_nanos: Option<i128>,
    pub parts: IdParts,
}

impl Decoded {
    fn new(kind: &'static str, normalized: String, bytes: Vec<u8>) -> Self {
        Decoded { kind, normalized, bytes, version: None, variant: None, unix_nanos: None, parts: IdParts::default() }
    }

    /// The time as Unix milliseconds (rounded down), and as RFC 3339 when it falls in the years
    /// 0000 to 9999 that RFC 3339 writes (a ULID can count to the year 10889).
    pub fn time(&self) -> Option<(i64, Option<String>)> {
        let nanos = self.unix_nanos?;
        let text =
            Timestamp::from_nanosecond(nanos).ok().filter(|t| t.as_second() >= -62_167_219_200).map(|t| t.to_string());
        Some((nanos.div_euclid(1_000_000) as i64, text))
    }
}

fn be(bytes: &[u8]) -> u128 {
    bytes.iter().fold(0u128, |n, &b| (n << 8) | u128::from(b))
}

pub(super) fn uuid(text: &str) -> Result<Decoded, String> {
    let u = Uuid::try_parse(text).map_err(|e| format!("not a UUID: {e}"))?;
    let b = *u.as_bytes();
    let mut d = Decoded::new("uuid", u.hyphenated().to_string(), b.to_vec());
    d.variant = Some(match u.get_variant() {
        Variant::NCS => "ncs",
        Variant::RFC4122 => "rfc9562",
        Variant::Microsoft => "microsoft",
        _ => "future",
    });
    if u.get_variant() != Variant::RFC4122 {
        return Ok(d);
    }
    let version = u.get_version_num() as u8;
    d.version = Some(version);
    match version {
        1 | 6 => {
            let ticks = if version == 1 {
                // time_low (4), time_mid (2), version + time_high (2): least significant first.
                (be(&b[6..8]) & 0x0fff) << 48 | be(&b[4..6]) << 32 | be(&b[0..4])
            } else {
                // Most significant first: 48 bits, then 12 after the version nibble.
                be(&b[0..6]) << 12 | (be(&b[6..8]) & 0x0fff)
            };
            d.unix_nanos = Some((ticks as i128 - GREGORIAN_OFFSET) * 100);
            d.parts.gregorian_ticks = Some(ticks.to_string());
            d.parts.clock_sequence = Some((be(&b[8..10]) & 0x3fff) as u16);
            d.parts.node = Some(colon_hex(&b[10..16]));
            d.parts.node_multicast = Some(b[10] & 1 == 1);
        }
        7 => {
            d.unix_nanos = Some(be(&b[0..6]) as i128 * 1_000_000);
            d.parts.random = Some(hex::encode(&b[6..16]));
        }
        _ => {}
    }
    Ok(d)
}

pub(super) fn ulid(text: &str) -> Result<Decoded, String> {
    if text.len() != 26 {
        return Err(format!("a ULID has 26 characters, not {}", text.chars().count()));
    }
    let mut value: u128 = 0;
    for (i, c) in text.bytes().enumerate() {
        let digit = CROCKFORD
            .iter()
            .position(|&d| d == c.to_ascii_uppercase())
            .ok_or_else(|| format!("character {} is not Crockford Base32", i + 1))?;
        if i == 0 && digit > 7 {
            return Err("a ULID's first character is 0 to 7 (128 bits)".into());
        }
        value = value << 5 | digit as u128;
    }
    let bytes = value.to_be_bytes();
    let mut d = Decoded::new("ulid", text.to_ascii_uppercase(), bytes.to_vec());
    d.unix_nanos = Some((value >> 80) as i128 * 1_000_000);
    d.parts.random = Some(hex::encode(&bytes[6..]));
    Ok(d)
}

pub(super) fn object_id(text: &str) -> Result<Decoded, String> {
    let bytes = hex::decode(text).ok().filter(|b| b.len() == 12).ok_or("an ObjectId is 24 hex digits")?;
    let mut d = Decoded::new("objectid", text.to_ascii_lowercase(), bytes.clone());
    d.unix_nanos = Some(be(&bytes[0..4]) as i128 * 1_000_000_000);
    d.parts.random = Some(hex::encode(&bytes[4..9]));
    d.parts.counter = Some(be(&bytes[9..12]) as u32);
    Ok(d)
}

pub(super) fn ksuid(text: &str) -> Result<Decoded, String> {
    if text.len() != 27 {
        return Err(format!("a KSUID has 27 characters, not {}", text.chars().count()));
    }
    // Base62 to 20 big-endian bytes: multiply-and-add on a byte array.
    let mut bytes = [0u8; 20];
    for (i, c) in text.bytes().enumerate() {
        let digit = BASE62.iter().position(|&d| d == c).ok_or_else(|| format!("character {} is not Base62", i + 1))?;
        let mut carry = digit as u32;
        for byte in bytes.iter_mut().rev() {
            let v = u32::from(*byte) * 62 + carry;
            *byte = v as u8;
            carry = v >> 8;
        }
        if carry != 0 {
            return Err("the value is past a KSUID's 160 bits".into());
        }
    }
    let mut d = Decoded::new("ksuid", text.to_string(), bytes.to_vec());
    d.unix_nanos = Some((be(&bytes[0..4]) as i128 + i128::from(KSUID_EPOCH)) * 1_000_000_000);
    d.parts.payload = Some(hex::encode(&bytes[4..]));
    Ok(d)
}

pub(super) fn xid(text: &str) -> Result<Decoded, String> {
    let lower = text.to_ascii_lowercase();
    if lower.len() != 20 || !lower.bytes().all(|c| c.is_ascii_digit() || (b'a'..=b'v').contains(&c)) {
        return Err("an XID is 20 characters of 0-9 and a-v".into());
    }
    let bytes = data_encoding::BASE32HEX_NOPAD
        .decode(lower.to_ascii_uppercase().as_bytes())
        .map_err(|_| "the last character of an XID carries one bit: it is 0 or g")?;
    let mut d = Decoded::new("xid", lower, bytes.clone());
    d.unix_nanos = Some(be(&bytes[0..4]) as i128 * 1_000_000_000);
    d.parts.machine_id = Some(hex::encode(&bytes[4..7]));
    d.parts.process_id = Some(be(&bytes[7..9]) as u16);
    d.parts.counter = Some(be(&bytes[9..12]) as u32);
    Ok(d)
}

pub(super) fn snowflake(text: &str, discord: bool) -> Result<Decoded, String> {
    if text.is_empty() || text.len() > 19 || !text.bytes().all(|c| c.is_ascii_digit()) {
        return Err("a snowflake is a decimal of at most 19 digits".into());
    }
    let id: u64 = text.parse().map_err(|_| "a snowflake is a decimal of at most 19 digits")?;
    if id >> 63 != 0 {
        return Err("a snowflake fits in 63 bits".into());
    }
    let kind = if discord { "snowflake-discord" } else { "snowflake-twitter" };
    let epoch = if discord { DISCORD_EPOCH } else { TWITTER_EPOCH };
    let mut d = Decoded::new(kind, id.to_string(), id.to_be_bytes().to_vec());
    d.unix_nanos = Some(((id >> 22) as i128 + i128::from(epoch)) * 1_000_000);
    let (high, low) = (((id >> 17) & 0x1f) as u16, ((id >> 12) & 0x1f) as u16);
    if discord {
        (d.parts.worker_id, d.parts.process_id) = (Some(high), Some(low));
    } else {
        (d.parts.datacenter_id, d.parts.worker_id) = (Some(high), Some(low));
    }
    d.parts.sequence = Some((id & 0xfff) as u16);
    d.parts.epoch = Some(epoch);
    Ok(d)
}
