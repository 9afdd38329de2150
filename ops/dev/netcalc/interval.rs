//! Address ranges as intervals of numbers (`wrench_kit::ip_numbers`), each with its family. Merging, subtracting and cutting into CIDR blocks
//! work on the numbers; `ipnet` writes the blocks.

use std::net::IpAddr;

use ipnet::{IpNet, Ipv4Net, Ipv6Net};

use wrench_contract::prelude::*;
use wrench_kit::ip_numbers;

/// Most blocks one answer lists.
pub(crate) const MAX_BLOCKS: usize = 4_096;

/// 4 or 6.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Family {
    V4,
    V6,
}

/// An inclusive range of addresses of one family.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) struct Interval {
    pub(crate) family: Family,
    pub(crate) start: u128,
    pub(crate) end: u128,
}

pub(crate) fn number(ip: IpAddr) -> (Family, u128) {
    (if ip.is_ipv4() { Family::V4 } else { Family::V6 }, ip_numbers::to_number(ip))
}

pub(crate) fn address(family: Family, n: u128) -> IpAddr {
    ip_numbers::from_number(family == Family::V4, n)
}

fn bits(family: Family) -> u32 {
    match family {
        Family::V4 => 32,
        Family::V6 => 128,
    }
}

/// An address or CIDR block (`10.0.0.0/8`, `2001:db8::/32`, or one address) as an interval;
/// host bits set below the prefix are a 400 naming the field, as Python's `ip_network` with
/// `strict=True` refuses them, unless `loose`.
pub(crate) fn parse_block(field: &str, text: &str) -> Result<Interval, ApiError> {
    let t = text.trim();
    let net: IpNet = if t.contains('/') {
        t.parse().map_err(|_| ApiError::invalid(field, format!("{text:?} is not a CIDR block")))?
    } else {
        let ip: IpAddr =
            t.parse().map_err(|_| ApiError::invalid(field, format!("{text:?} is not an address or CIDR block")))?;
        IpNet::from(ip)
    };
    if net.trunc() != net {
        return Err(ApiError::invalid(field, format!("{text:?} has host bits set; the block is {}", net.trunc())));
    }
    Ok(of_net(net))
}

pub(crate) fn of_net(net: IpNet) -> Interval {
    let (family, start) = number(net.network());
    let (_, end) = number(net.broadcast());
    Interval { family, start, end }
}

/// The last address of the block of 2^`size` addresses from `start`.
fn block_last(start: u128, size: u32) -> Option<u128> {
    if size >= 128 {
        return (start == 0).then_some(u128::MAX);
    }
    start.checked_add((1u128 << size) - 1)
}

/// The fewest CIDR blocks covering exactly `interval`, at most `limit` (None beyond).
pub(crate) fn blocks(interval: Interval, limit: usize) -> Option<Vec<IpNet>> {
    let width = bits(interval.family);
    let mut out = Vec::new();
    let mut start = interval.start;
    loop {
        // The largest block that starts at `start` (its alignment) and ends by `end`.
        let align = if start == 0 { width } else { start.trailing_zeros().min(width) };
        let mut size = align;
        while block_last(start, size).is_none_or(|l| l > interval.end) {
            // A block of one address always fits, so this stops.
            size -= 1;
        }
        let prefix = (width - size) as u8;
        let net = match interval.family {
            Family::V4 => IpNet::V4(Ipv4Net::new((start as u32).into(), prefix).ok()?),
            Family::V6 => IpNet::V6(Ipv6Net::new(start.into(), prefix).ok()?),
        };
        if out.len() == limit {
            return None;
        }
        out.push(net);
        let last = of_net(net).end;
        if last >= interval.end {
            return Some(out);
        }
        start = last + 1;
    }
}

/// Sorted, overlapping and adjacent intervals of one family joined.
pub(crate) fn merge(mut list: Vec<Interval>) -> Vec<Interval> {
    list.sort();
    let mut out: Vec<Interval> = Vec::new();
    for i in list {
        match out.last_mut() {
            Some(last)
                if last.family == i.family && (i.start <= last.end || last.end.checked_add(1) == Some(i.start)) =>
            {
                last.end = last.end.max(i.end);
            }
            _ => out.push(i),
        }
    }
    out
}

/// `include` less every interval of `exclude` (both merged first).
pub(crate) fn subtract(include: Vec<Interval>, exclude: Vec<Interval>) -> Vec<Interval> {
    let exclude = merge(exclude);
    let mut out = Vec::new();
    for mut i in merge(include) {
        let mut whole = true;
        for e in &exclude {
            if e.family != i.family || e.end < i.start || e.start > i.end {
                continue;
            }
            if e.start > i.start {
                out.push(Interval { family: i.family, start: i.start, end: e.start - 1 });
            }
            if e.end >= i.end {
                whole = false;
                break;
            }
            i.start = e.end + 1;
        }
        if whole {
            out.push(i);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blocks_cover_ranges_exactly() {
        let v4 = |a: &str, b: &str| Interval {
            family: Family::V4,
            start: number(a.parse().unwrap()).1,
            end: number(b.parse().unwrap()).1,
        };
        let got: Vec<String> =
            blocks(v4("192.168.0.1", "192.168.0.6"), 100).unwrap().iter().map(|n| n.to_string()).collect();
        assert_eq!(got, ["192.168.0.1/32", "192.168.0.2/31", "192.168.0.4/31", "192.168.0.6/32"]);
        let all: Vec<String> =
            blocks(v4("0.0.0.0", "255.255.255.255"), 1).unwrap().iter().map(|n| n.to_string()).collect();
        assert_eq!(all, ["0.0.0.0/0"]);
        let v6all = Interval { family: Family::V6, start: 0, end: u128::MAX };
        assert_eq!(blocks(v6all, 1).unwrap()[0].to_string(), "::/0");
        assert!(blocks(v4("0.0.0.1", "255.255.255.254"), 10).is_none());
        let cut = subtract(vec![v4("10.0.0.0", "10.0.0.255")], vec![v4("10.0.0.16", "10.0.0.31")]);
        assert_eq!(cut, vec![v4("10.0.0.0", "10.0.0.15"), v4("10.0.0.32", "10.0.0.255")]);
    }
}
