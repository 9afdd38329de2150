//! Addresses as numbers: an IPv4 address is a `u32`, an IPv6 one a `u128`, both carried as
//! `u128`; and the count of a range written as a decimal string, since an IPv6 range may hold
//! 2^128 addresses, one more than a `u128` holds and far more than a JSON number carries
//! exactly. The range and CIDR operations share these.

use std::net::IpAddr;

use wrench_contract::prelude::ApiError;

/// `text` as an IPv4 or IPv6 address, or a 400 naming `field`.
pub fn parse_ip(field: &str, text: &str) -> Result<IpAddr, ApiError> {
    text.trim().parse().map_err(|_| ApiError::invalid(field, format!("{text:?} is not an IPv4 or IPv6 address")))
}

/// The address as a number.
pub fn to_number(ip: IpAddr) -> u128 {
    match ip {
        IpAddr::V4(a) => u128::from(u32::from(a)),
        IpAddr::V6(a) => u128::from(a),
    }
}

/// The address of number `n`, IPv4 when `v4`.
pub fn from_number(v4: bool, n: u128) -> IpAddr {
    if v4 { IpAddr::V4((n as u32).into()) } else { IpAddr::V6(n.into()) }
}

/// How many addresses run from `first` to `last` (inclusive), in decimal.
pub fn count(first: u128, last: u128) -> String {
    match (last - first).checked_add(1) {
        Some(n) => n.to_string(),
        // Every IPv6 address: 2^128.
        None => "340282366920938463463374607431768211456".to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_and_counts() {
        assert_eq!(to_number("10.0.0.1".parse().unwrap()), 0x0a00_0001);
        assert_eq!(from_number(false, 1).to_string(), "::1");
        assert_eq!(count(5, 5), "1");
        assert_eq!(count(0, u128::MAX), "340282366920938463463374607431768211456");
        assert_eq!(count(0, u128::MAX - 1), u128::MAX.to_string());
    }
}
