//! Payment card brands by issuer prefix, as the card networks publish their ranges: shared by
//! the card check and the BIN lookup.

/// A brand: identifier, display name, prefix ranges (inclusive, compared on as many leading
/// digits as the bounds have) and the lengths its numbers take. Ranges as the card networks
/// publish them (Mastercard's 2-series from 2017, Discover's including its UnionPay
/// co-brand range).
pub struct Brand {
    pub id: &'static str,
    pub name: &'static str,
    ranges: &'static [(u32, u32)],
    pub lengths: &'static [usize],
}

/// Checked in order; the most specific ranges come first.
const BRANDS: &[Brand] = &[
    Brand { id: "amex", name: "American Express", ranges: &[(34, 34), (37, 37)], lengths: &[15] },
    Brand {
        id: "diners",
        name: "Diners Club",
        ranges: &[(300, 305), (36, 36), (38, 39)],
        lengths: &[14, 15, 16, 17, 18, 19],
    },
    Brand { id: "jcb", name: "JCB", ranges: &[(3528, 3589)], lengths: &[16, 17, 18, 19] },
    Brand { id: "mir", name: "Mir", ranges: &[(2200, 2204)], lengths: &[16, 17, 18, 19] },
    Brand { id: "mastercard", name: "Mastercard", ranges: &[(51, 55), (2221, 2720)], lengths: &[16] },
    Brand {
        id: "discover",
        name: "Discover",
        ranges: &[(6011, 6011), (644, 649), (65, 65), (622126, 622925)],
        lengths: &[16, 17, 18, 19],
    },
    Brand { id: "unionpay", name: "UnionPay", ranges: &[(62, 62), (81, 81)], lengths: &[14, 15, 16, 17, 18, 19] },
    Brand {
        id: "maestro",
        name: "Maestro",
        ranges: &[(493698, 493698), (500000, 506698), (506779, 508999), (56, 59), (63, 63), (67, 67), (6, 6)],
        lengths: &[12, 13, 14, 15, 16, 17, 18, 19],
    },
    Brand { id: "visa", name: "Visa", ranges: &[(4, 4)], lengths: &[13, 16, 19] },
];

fn digits_of(n: u32) -> usize {
    n.to_string().len()
}

pub fn brand_of(digits: &str) -> Option<&'static Brand> {
    BRANDS.iter().find(|b| {
        b.ranges.iter().any(|&(lo, hi)| {
            let width = digits_of(lo);
            digits.len() >= width && digits[..width].parse::<u32>().is_ok_and(|p| (lo..=hi).contains(&p))
        })
    })
}
