//! `ip/subnets`: a block cut into subnets of a longer prefix.

use ipnet::IpNet;

use wrench_contract::prelude::*;

use super::interval::{MAX_BLOCKS, parse_block};

#[derive(Debug, Deserialize, JsonSchema, Validate)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct SubnetsInput {
    /// The block to cut (`10.0.0.0/16`), host bits clear.
    #[schemars(length(min = 1, max = 64))]
    cidr: String,
    /// The subnets' prefix length; longer than the block's, at most 32 (IPv4) or 128 (IPv6).
    #[schemars(range(min = 0, max = 128))]
    new_prefix: Option<u8>,
    /// Or how many subnets at least: the prefix is the shortest that gives this many.
    #[schemars(range(min = 1, max = 4096))]
    count: Option<u32>,
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct SubnetsOutput {
    /// The subnets' prefix length.
    new_prefix: u8,
    /// Every subnet, in order.
    subnets: Vec<String>,
    /// Addresses in each subnet, as a decimal string.
    addresses_each: String,
}

/// Split a CIDR block into subnets.
///
/// Cuts a block into every subnet of `newPrefix`, or of the shortest prefix that gives at least
/// `count` subnets, in order, as Python's `ipaddress` `subnets(new_prefix=)` does. At most 4,096
/// subnets are listed; a cut into more is refused.
#[op(post "/v1/ip/subnets" as ipSubnets, tag = DeveloperUtilities,
     rejects = "neither or both of newPrefix and count, a prefix not longer than the block's, or more than 4,096 subnets",
     example(by_prefix, {"cidr": "10.0.0.0/22", "newPrefix": 24}),
     example(by_count, {"cidr": "2001:db8::/48", "count": 5}),
     example(too_many, {"cidr": "10.0.0.0/8", "newPrefix": 24}, status = 400))]
async fn ip_subnets(input: SubnetsInput) -> Result<SubnetsOutput, ApiError> {
    let i = parse_block("cidr", &input.cidr)?;
    let net: IpNet = super::interval::blocks(i, 1)
        .and_then(|b| b.first().copied())
        .ok_or_else(|| ApiError::internal("a block is one block"))?;
    let max = net.max_prefix_len();
    let new_prefix = match (input.new_prefix, input.count) {
        (Some(p), None) => p,
        (None, Some(c)) => {
            let extra = u32::BITS - (c - 1).leading_zeros(); // ceil(log2(c))
            net.prefix_len().saturating_add(extra as u8)
        }
        _ => return Err(ApiError::invalid("newPrefix", "give one of newPrefix and count")),
    };
    if new_prefix <= net.prefix_len() || new_prefix > max {
        let field = if input.count.is_some() { "count" } else { "newPrefix" };
        return Err(ApiError::invalid(
            field,
            format!("the subnets' prefix must be longer than /{} and at most /{max}", net.prefix_len()),
        ));
    }
    let extra = u32::from(new_prefix - net.prefix_len());
    if extra > 12 {
        return Err(ApiError::invalid(
            if input.count.is_some() { "count" } else { "newPrefix" },
            format!("makes 2^{extra} subnets; wrench lists at most {MAX_BLOCKS}"),
        ));
    }
    let subnets: Vec<String> =
        net.subnets(new_prefix).map_err(|e| ApiError::internal(e.to_string()))?.map(|s| s.to_string()).collect();
    // new_prefix is longer than the block's, so each subnet holds at most 2^127 addresses.
    let each = (1u128 << (max - new_prefix)).to_string();
    Ok(SubnetsOutput { new_prefix, subnets, addresses_each: each })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Python's `subnets(new_prefix=)` (tests/fixtures/netcalc.py), and `count` choosing the
    /// shortest prefix that gives as many.
    #[tokio::test]
    async fn subnets_are_pythons() {
        let f = crate::testing::fixture("netcalc.json");
        for c in f["subnets"].as_array().unwrap() {
            let input = SubnetsInput {
                cidr: c["cidr"].as_str().unwrap().into(),
                new_prefix: c["newPrefix"].as_u64().map(|p| p as u8),
                count: None,
            };
            let out = ip_subnets(input).await.unwrap();
            assert_eq!(serde_json::to_value(&out.subnets).unwrap(), c["subnets"], "{}", c["cidr"]);
        }
        let out =
            ip_subnets(SubnetsInput { cidr: "10.0.0.0/24".into(), new_prefix: None, count: Some(5) }).await.unwrap();
        assert_eq!((out.new_prefix, out.subnets.len(), out.addresses_each.as_str()), (27, 8, "32"));
    }
}
