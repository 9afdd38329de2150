//! `ip/aggregate` and `ip/exclude`: lists of blocks merged into the fewest blocks, and a set of
//! blocks less another (what a WireGuard `AllowedIPs` of "everything but the LAN" needs).

use wrench_contract::prelude::*;

use super::interval::{MAX_BLOCKS, blocks, merge, parse_block, subtract};

/// One address or CIDR block.
#[derive(Debug, Deserialize, JsonSchema, Validate)]
#[serde(transparent)]
struct Block(#[schemars(length(min = 1, max = 64))] String);

#[derive(Debug, Deserialize, JsonSchema, Validate)]
#[serde(deny_unknown_fields)]
struct AggregateInput {
    /// Addresses and CIDR blocks, IPv4 and IPv6 mixed, host bits clear.
    #[schemars(length(min = 1, max = 4096))]
    cidrs: Vec<Block>,
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct CidrsOutput {
    /// The fewest blocks covering the same addresses, IPv4 first, in order.
    cidrs: Vec<String>,
}

fn to_blocks(field: &str, list: Vec<super::interval::Interval>) -> Result<Vec<String>, ApiError> {
    let mut out = Vec::new();
    for i in list {
        let part = blocks(i, MAX_BLOCKS - out.len())
            .ok_or_else(|| ApiError::invalid(field, format!("the answer needs more than {MAX_BLOCKS} blocks")))?;
        out.extend(part.iter().map(ToString::to_string));
    }
    Ok(out)
}

/// Merge CIDR blocks into the fewest that cover them.
///
/// Joins overlapping and adjacent addresses and blocks, IPv4 and IPv6 apart, into the fewest
/// CIDR blocks covering exactly the same addresses, as Python's `ipaddress.collapse_addresses`
/// does.
#[op(post "/v1/ip/aggregate" as ipAggregate, tag = DeveloperUtilities, pipe(cidrs -> cidrs),
     rejects = "an entry that is not an address or block, or has host bits set",
     example(adjacent, {"cidrs": ["10.0.0.0/25", "10.0.0.128/25", "10.0.1.0/24", "10.0.0.7", "2001:db8::/33", "2001:db8:8000::/33"]}),
     example(host_bits, {"cidrs": ["10.0.0.1/24"]}, status = 400))]
async fn ip_aggregate(input: AggregateInput) -> Result<CidrsOutput, ApiError> {
    let list = input
        .cidrs
        .iter()
        .enumerate()
        .map(|(i, b)| parse_block(&format!("cidrs[{i}]"), &b.0))
        .collect::<Result<Vec<_>, _>>()?;
    Ok(CidrsOutput { cidrs: to_blocks("cidrs", merge(list))? })
}

#[derive(Debug, Deserialize, JsonSchema, Validate)]
#[serde(deny_unknown_fields)]
struct ExcludeInput {
    /// What to cover: addresses and blocks (`0.0.0.0/0`, `::/0` for everything).
    #[schemars(length(min = 1, max = 1024))]
    include: Vec<Block>,
    /// What to leave out.
    #[schemars(length(max = 1024))]
    exclude: Vec<Block>,
}

/// Subtract CIDR blocks from others.
///
/// Answers the fewest CIDR blocks that cover `include` but none of `exclude`, as Python's
/// `ipaddress` `address_exclude` and `collapse_addresses` together do: the `AllowedIPs` of a
/// VPN that routes everything except some networks.
#[op(post "/v1/ip/exclude" as ipExclude, tag = DeveloperUtilities,
     rejects = "an entry that is not an address or block, or an answer of more than 4,096 blocks",
     example(all_but_private, {"include": ["0.0.0.0/0"], "exclude": ["10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16"]}),
     example(bad_block, {"include": ["10.0.0.0/8"], "exclude": ["10.0.0.0/33"]}, status = 400))]
async fn ip_exclude(input: ExcludeInput) -> Result<CidrsOutput, ApiError> {
    let parse = |name: &str, list: &[Block]| {
        list.iter().enumerate().map(|(i, b)| parse_block(&format!("{name}[{i}]"), &b.0)).collect::<Result<Vec<_>, _>>()
    };
    let include = parse("include", &input.include)?;
    let exclude = parse("exclude", &input.exclude)?;
    Ok(CidrsOutput { cidrs: to_blocks("exclude", subtract(include, exclude))? })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Python's `collapse_addresses` and `address_exclude` (tests/fixtures/netcalc.py).
    #[tokio::test]
    async fn merges_and_exclusions_are_pythons() {
        let f = crate::testing::fixture("netcalc.json");
        let blocks = |v: &serde_json::Value| {
            v.as_array().unwrap().iter().map(|s| Block(s.as_str().unwrap().into())).collect::<Vec<_>>()
        };
        for c in f["aggregate"].as_array().unwrap() {
            let out = ip_aggregate(AggregateInput { cidrs: blocks(&c["cidrs"]) }).await.unwrap();
            assert_eq!(serde_json::to_value(&out.cidrs).unwrap(), c["merged"], "{}", c["cidrs"]);
        }
        for c in f["exclude"].as_array().unwrap() {
            let out = ip_exclude(ExcludeInput { include: blocks(&c["include"]), exclude: blocks(&c["exclude"]) })
                .await
                .unwrap();
            assert_eq!(serde_json::to_value(&out.cidrs).unwrap(), c["cidrs"], "{} less {}", c["include"], c["exclude"]);
        }
    }
}
