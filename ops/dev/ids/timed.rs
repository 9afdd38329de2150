//! `uuid/v1` and `uuid/v6`: time-based UUIDs (RFC 9562 sections 5.1 and 5.6), a 60-bit count of
//! 100-nanosecond intervals since 1582-10-15, a 14-bit clock sequence and a 48-bit node.
//!
//! The node is not this machine's MAC address, which would publish it: unless the caller gives
//! one, it is a random 48-bit value drawn once per process with the multicast bit set, as RFC
//! 9562 section 6.10 asks of a node that is not an IEEE 802 address. The clock sequence is the
//! `uuid` crate's shared counter, started at random and advanced on every UUID, so UUIDs made in
//! the same tick still differ.

use std::sync::LazyLock;

use uuid::Uuid;

use wrench_contract::prelude::*;

#[derive(Debug, Deserialize, JsonSchema, Validate)]
#[serde(deny_unknown_fields)]
struct TimedUuidInput {
    /// How many UUIDs (1 to 100, default 1).
    #[serde(default = "one")]
    #[schemars(range(min = 1, max = 100))]
    count: u32,
    /// The 48-bit node, as a MAC address: `00:1a:2b:3c:4d:5e`, with hyphens, Cisco's
    /// `001a.2b3c.4d5e` or 12 bare hex digits. Absent, a random node of this process.
    #[serde(default)]
    #[schemars(length(min = 12, max = 17))]
    node: Option<String>,
}

fn one() -> u32 {
    1
}

#[derive(Debug, Serialize, JsonSchema)]
struct TimedUuidOutput {
    /// The UUIDs, lower-case and hyphenated, in the order they were made.
    uuids: Vec<String>,
    /// The node they carry, as a colon-separated MAC address.
    node: String,
}

/// This process's node: random, multicast bit set (the least significant bit of the first
/// octet), so it can never equal a real network card's address.
static NODE: LazyLock<[u8; 6]> = LazyLock::new(|| {
    let mut node = [0u8; 6];
    getrandom::fill(&mut node).expect("the operating system's random source");
    node[0] |= 0x01;
    node
});

/// A MAC address in any of the four usual spellings, or a 400 naming `node`.
fn parse_node(text: &str) -> Result<[u8; 6], ApiError> {
    let digits: String = text.trim().chars().filter(|c| !matches!(c, ':' | '-' | '.')).collect();
    let bad = || ApiError::invalid("node", format!("{text:?} is not a MAC address (12 hex digits)"));
    if digits.len() != 12 {
        return Err(bad());
    }
    let bytes = hex::decode(&digits).map_err(|_| bad())?;
    let mut node = [0u8; 6];
    node.copy_from_slice(&bytes);
    Ok(node)
}

fn timed(input: TimedUuidInput, make: fn(&[u8; 6]) -> Uuid) -> Result<TimedUuidOutput, ApiError> {
    let node = match &input.node {
        Some(text) => parse_node(text)?,
        None => *NODE,
    };
    let uuids = (0..input.count).map(|_| make(&node).hyphenated().to_string()).collect();
    Ok(TimedUuidOutput { uuids, node: wrench_kit::byte_encoding::colon_hex(&node) })
}

/// Generate time-based UUIDs (version 1).
///
/// RFC 9562 version 1: the current time in 100-nanosecond intervals since the Gregorian
/// reform, a clock sequence and a node. The node is a random multicast address of this
/// process unless `node` gives one, so no MAC address leaks. `id/decode` reads the time back.
/// For database keys prefer `uuid/v7` or `uuid/v6`, which sort by time.
#[op(post "/v1/uuid/v1" as uuidV1, tag = DeveloperUtilities,
     rejects = "a node that is not a MAC address",
     redact(".data.uuids", ".data.node"),
     example(typical, {}),
     example(three_with_node, {"count": 3, "node": "00:1a:2b:3c:4d:5e"}),
     example(bad_node, {"node": "00:1a:2b:3c:4d:zz"}, status = 400))]
async fn uuid_v1(input: TimedUuidInput) -> Result<TimedUuidOutput, ApiError> {
    timed(input, Uuid::now_v1)
}

/// Generate time-ordered UUIDs (version 6).
///
/// RFC 9562 version 6: version 1's fields with the timestamp's most significant bits first, so
/// the UUIDs sort by creation time as text and as bytes. Same clock sequence and node rules as
/// `uuid/v1`.
#[op(post "/v1/uuid/v6" as uuidV6, tag = DeveloperUtilities,
     rejects = "a node that is not a MAC address",
     redact(".data.uuids", ".data.node"),
     example(typical, {}),
     example(five, {"count": 5}),
     example(too_many, {"count": 101}, status = 400))]
async fn uuid_v6(input: TimedUuidInput) -> Result<TimedUuidOutput, ApiError> {
    timed(input, Uuid::now_v6)
}

#[cfg(test)]
mod tests {
    use std::time::SystemTime;

    use super::*;

    /// Each UUID carries the time it was made, the node asked for and the version, and no two
    /// are equal; version 6 sorts in the order made.
    #[tokio::test]
    async fn times_nodes_and_order() {
        let before = wrench_infra::time::unix_ms(SystemTime::now());
        let v1 = uuid_v1(TimedUuidInput { count: 100, node: Some("00-1A-2B-3C-4D-5E".into()) }).await.unwrap();
        let v6 = uuid_v6(TimedUuidInput { count: 100, node: None }).await.unwrap();
        let after = wrench_infra::time::unix_ms(SystemTime::now());
        assert_eq!(v1.node, "00:1a:2b:3c:4d:5e");
        assert_eq!(u8::from_str_radix(&v6.node[..2], 16).unwrap() & 1, 1, "multicast bit: {}", v6.node);
        let mut seen = std::collections::HashSet::new();
        for (list, version) in [(&v1.uuids, 1), (&v6.uuids, 6)] {
            for text in list.iter() {
                let u = Uuid::parse_str(text).unwrap();
                assert_eq!(u.get_version_num(), version);
                let (secs, nanos) = u.get_timestamp().unwrap().to_unix();
                let ms = secs * 1000 + u64::from(nanos / 1_000_000);
                assert!((before..=after).contains(&ms), "{text}: {ms} not in {before}..={after}");
                assert!(seen.insert(text.clone()));
            }
        }
        assert!(v1.uuids.iter().all(|u| u.ends_with("001a2b3c4d5e")));
        // Sorted by time as text: a later tick is a greater string (within one tick the clock
        // sequence orders them, unless it wraps).
        let tick = |t: &str| Uuid::parse_str(t).unwrap().get_timestamp().unwrap().to_gregorian().0;
        for w in v6.uuids.windows(2) {
            assert!(tick(&w[0]) <= tick(&w[1]), "{w:?}");
            assert!(tick(&w[0]) == tick(&w[1]) || w[0] < w[1], "{w:?}");
        }
        for bad in ["00:1a:2b:3c:4d", "00:1a:2b:3c:4d:5e:6f", "0g1a2b3c4d5e"] {
            let e = uuid_v1(TimedUuidInput { count: 1, node: Some(bad.into()) }).await.unwrap_err();
            assert_eq!(e.field.as_deref(), Some("node"), "{bad}");
        }
        assert_eq!(parse_node("001a.2b3c.4d5e").unwrap(), [0, 0x1a, 0x2b, 0x3c, 0x4d, 0x5e]);
    }
}
