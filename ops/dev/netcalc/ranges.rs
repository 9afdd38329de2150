//! `ip/range-to-cidr` and `ip/cidr-to-range`: an address range as the fewest CIDR blocks, and a
//! block as its first and last address.

use wrench_contract::prelude::*;
use wrench_kit::ip_numbers::{count, parse_ip};

use super::interval::{Family, Interval, MAX_BLOCKS, address, blocks, number, parse_block};

#[derive(Debug, Deserialize, JsonSchema, Validate)]
#[serde(deny_unknown_fields)]
struct RangeToCidrInput {
    /// The first address (IPv4 or IPv6).
    #[schemars(length(min = 1, max = 64))]
    start: String,
    /// The last address, of the same family, not before `start`.
    #[schemars(length(min = 1, max = 64))]
    end: String,
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct RangeToCidrOutput {
    /// The blocks, in order, covering exactly the range.
    cidrs: Vec<String>,
    /// Addresses in the range, as a decimal string (IPv6 counts outgrow JSON numbers).
    count: String,
}

/// Convert an address range to CIDR blocks.
///
/// Answers the fewest CIDR blocks that cover exactly the addresses from `start` to `end`
/// (IPv4 or IPv6), in order, as Python's `ipaddress.summarize_address_range` does, and how many
/// addresses the range holds.
#[op(post "/v1/ip/range-to-cidr" as ipRangeToCidr, tag = DeveloperUtilities,
     rejects = "addresses of two families, or an end before the start",
     example(v4_range, {"start": "192.168.0.1", "end": "192.168.0.6"}),
     example(v6_range, {"start": "2001:db8::", "end": "2001:db8::1:ffff"}),
     example(backwards, {"start": "10.0.0.9", "end": "10.0.0.1"}, status = 400))]
async fn ip_range_to_cidr(input: RangeToCidrInput) -> Result<RangeToCidrOutput, ApiError> {
    let (fs, start) = number(parse_ip("start", &input.start)?);
    let (fe, end) = number(parse_ip("end", &input.end)?);
    if fs != fe {
        return Err(ApiError::invalid("end", "is not of the family of start"));
    }
    if end < start {
        return Err(ApiError::invalid("end", "comes before start"));
    }
    let list = blocks(Interval { family: fs, start, end }, MAX_BLOCKS)
        .ok_or_else(|| ApiError::invalid("end", format!("the range needs more than {MAX_BLOCKS} blocks")))?;
    Ok(RangeToCidrOutput { cidrs: list.iter().map(ToString::to_string).collect(), count: count(start, end) })
}

#[derive(Debug, Deserialize, JsonSchema, Validate)]
#[serde(deny_unknown_fields)]
struct CidrToRangeInput {
    /// A CIDR block (`10.1.0.0/16`, `2001:db8::/48`); host bits must be clear.
    #[schemars(length(min = 1, max = 64))]
    cidr: String,
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct CidrToRangeOutput {
    first: String,
    last: String,
    /// Addresses in the block, as a decimal string.
    count: String,
    /// 4 or 6.
    version: u8,
}

/// Convert a CIDR block to its address range.
///
/// Answers the first and last address of a CIDR block and how many it holds (a decimal
/// string). A block written with host bits set is refused, naming the block it would be, as
/// Python's `ipaddress.ip_network` refuses it.
#[op(post "/v1/ip/cidr-to-range" as ipCidrToRange, tag = DeveloperUtilities,
     rejects = "a block with host bits set",
     example(v4_block, {"cidr": "10.1.0.0/16"}),
     example(v6_block, {"cidr": "2001:db8::/48"}),
     example(host_bits, {"cidr": "10.1.2.3/16"}, status = 400))]
async fn ip_cidr_to_range(input: CidrToRangeInput) -> Result<CidrToRangeOutput, ApiError> {
    let i = parse_block("cidr", &input.cidr)?;
    Ok(CidrToRangeOutput {
        first: address(i.family, i.start).to_string(),
        last: address(i.family, i.end).to_string(),
        count: count(i.start, i.end),
        version: if i.family == Family::V4 { 4 } else { 6 },
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Python's `ipaddress` on 80 ranges and 80 blocks (tests/fixtures/netcalc.py).
    #[tokio::test]
    async fn ranges_and_blocks_are_pythons() {
        let f = crate::testing::fixture("netcalc.json");
        for c in f["rangeToCidr"].as_array().unwrap() {
            let input =
                RangeToCidrInput { start: c["start"].as_str().unwrap().into(), end: c["end"].as_str().unwrap().into() };
            let out = ip_range_to_cidr(input).await.unwrap();
            assert_eq!(serde_json::to_value(&out.cidrs).unwrap(), c["cidrs"], "{} - {}", c["start"], c["end"]);
            assert_eq!(out.count, c["count"].as_str().unwrap());
        }
        for c in f["cidrToRange"].as_array().unwrap() {
            let out = ip_cidr_to_range(CidrToRangeInput { cidr: c["cidr"].as_str().unwrap().into() }).await.unwrap();
            assert_eq!(
                (out.first.as_str(), out.last.as_str(), out.count.as_str()),
                (c["first"].as_str().unwrap(), c["last"].as_str().unwrap(), c["count"].as_str().unwrap()),
                "{}",
                c["cidr"]
            );
        }
        let whole = ip_cidr_to_range(CidrToRangeInput { cidr: "::/0".into() }).await.unwrap();
        // 2^128, one more than a u128 holds.
        assert_eq!(whole.count, "340282366920938463463374607431768211456");
    }
}
