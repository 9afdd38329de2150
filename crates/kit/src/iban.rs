//! The SWIFT IBAN registry: each country's (and territory's) BBAN structure and where its bank
//! and branch identifiers sit.
//!
//! Facts from the SWIFT IBAN Registry (ISO 13616), taken from the copy the Python library
//! schwifty 2026.10.1 ships, with its corrections of bank and branch positions; see
//! THIRD_PARTY_DATA.md. `tests/fixtures/iban_registry.py` prints this table and the fixture
//! that tests it. Structures use the registry's notation: `4!a16!c` is four upper-case letters
//! then sixteen letters or digits (`n` digits, `a` letters, `c` either). Positions are 0-based
//! byte ranges of the BBAN.

/// (country code, BBAN structure, bank identifier, branch identifier)
pub type Entry = (&'static str, &'static str, Option<(usize, usize)>, Option<(usize, usize)>);

pub const REGISTRY: &[Entry] = &[
    ("AD", "4!n4!n12!c", Some((0, 4)), Some((4, 8))),
    ("AE", "3!n16!n", Some((0, 3)), None),
    ("AL", "8!n16!c", Some((0, 3)), Some((3, 7))),
    ("AT", "5!n11!n", Some((0, 5)), None),
    ("AX", "3!n11!n", Some((0, 3)), None),
    ("AZ", "4!a20!c", Some((0, 4)), None),
    ("BA", "3!n3!n8!n2!n", Some((0, 3)), Some((3, 6))),
    ("BE", "3!n7!n2!n", Some((0, 3)), None),
    ("BG", "4!a4!n2!n8!c", Some((0, 4)), Some((4, 8))),
    ("BH", "4!a14!c", Some((0, 4)), None),
    ("BI", "5!n5!n11!n2!n", Some((0, 5)), Some((5, 10))),
    ("BL", "5!n5!n11!c2!n", Some((0, 5)), Some((5, 10))),
    ("BR", "8!c5!n10!n1!c1!c", Some((0, 8)), Some((8, 13))),
    ("BY", "4!c4!n16!c", Some((0, 4)), None),
    ("CH", "5!n12!c", Some((0, 5)), None),
    ("CR", "4!n14!n", Some((0, 4)), None),
    ("CY", "3!n5!n16!c", Some((0, 3)), Some((3, 8))),
    ("CZ", "4!n16!n", Some((0, 4)), Some((4, 10))),
    ("DE", "8!n10!n", Some((0, 8)), None),
    ("DJ", "5!n5!n11!n2!n", Some((0, 5)), Some((5, 10))),
    ("DK", "4!n9!n1!n", Some((0, 4)), None),
    ("DO", "4!c20!n", Some((0, 4)), None),
    ("EE", "2!n14!n", Some((0, 2)), Some((2, 4))),
    ("EG", "4!n4!n17!n", Some((0, 4)), Some((4, 8))),
    ("ES", "4!n4!n1!n1!n10!n", Some((0, 4)), Some((4, 8))),
    ("FI", "3!n11!n", Some((0, 3)), None),
    ("FK", "2!a12!n", Some((0, 2)), None),
    ("FO", "4!n9!n1!n", Some((0, 4)), None),
    ("FR", "5!n5!n11!c2!n", Some((0, 5)), Some((5, 10))),
    ("GB", "4!a6!n8!n", Some((0, 4)), Some((4, 10))),
    ("GE", "2!a16!n", Some((0, 2)), None),
    ("GF", "5!n5!n11!c2!n", Some((0, 5)), Some((5, 10))),
    ("GG", "4!a6!n8!n", Some((0, 4)), Some((4, 10))),
    ("GI", "4!a15!c", Some((0, 4)), None),
    ("GL", "4!n9!n1!n", Some((0, 4)), None),
    ("GP", "5!n5!n11!c2!n", Some((0, 5)), Some((5, 10))),
    ("GR", "3!n4!n16!c", Some((0, 3)), Some((3, 7))),
    ("GT", "4!c20!c", Some((0, 4)), None),
    ("HN", "4!a20!n", Some((0, 4)), None),
    ("HR", "7!n10!n", Some((0, 7)), None),
    ("HU", "3!n4!n1!n15!n1!n", Some((0, 3)), Some((3, 7))),
    ("IE", "4!a6!n8!n", Some((0, 4)), Some((4, 10))),
    ("IL", "3!n3!n13!n", Some((0, 3)), Some((3, 6))),
    ("IM", "4!a6!n8!n", Some((0, 4)), Some((4, 10))),
    ("IQ", "4!a3!n12!n", Some((0, 4)), Some((4, 7))),
    ("IS", "4!n2!n6!n10!n", Some((0, 2)), Some((2, 4))),
    ("IT", "1!a5!n5!n12!c", Some((1, 6)), Some((6, 11))),
    ("JE", "4!a6!n8!n", Some((0, 4)), Some((4, 10))),
    ("JO", "4!a4!n18!c", Some((0, 4)), Some((4, 8))),
    ("KW", "4!a22!c", Some((0, 4)), None),
    ("KZ", "3!n13!c", Some((0, 3)), None),
    ("LB", "4!n20!c", Some((0, 4)), None),
    ("LC", "4!a24!c", Some((0, 4)), None),
    ("LI", "5!n12!c", Some((0, 5)), None),
    ("LT", "5!n11!n", Some((0, 5)), None),
    ("LU", "3!n13!c", Some((0, 3)), None),
    ("LV", "4!a13!c", Some((0, 4)), None),
    ("LY", "3!n3!n15!n", Some((0, 3)), Some((3, 6))),
    ("MC", "5!n5!n11!c2!n", Some((0, 5)), Some((5, 10))),
    ("MD", "2!c18!c", Some((0, 2)), None),
    ("ME", "3!n13!n2!n", Some((0, 3)), None),
    ("MF", "5!n5!n11!c2!n", Some((0, 5)), Some((5, 10))),
    ("MK", "3!n10!c2!n", Some((0, 3)), None),
    ("MN", "4!n12!n", Some((0, 4)), None),
    ("MQ", "5!n5!n11!c2!n", Some((0, 5)), Some((5, 10))),
    ("MR", "5!n5!n11!n2!n", Some((0, 5)), Some((5, 10))),
    ("MT", "4!a5!n18!c", Some((0, 4)), Some((4, 9))),
    ("MU", "4!a2!n2!n12!n3!n3!a", Some((0, 6)), Some((6, 8))),
    ("NC", "5!n5!n11!c2!n", Some((0, 5)), Some((5, 10))),
    ("NI", "4!a20!n", Some((0, 4)), None),
    ("NL", "4!a10!n", Some((0, 4)), None),
    ("NO", "4!n6!n1!n", Some((0, 4)), None),
    ("OM", "3!n16!c", Some((0, 3)), None),
    ("PF", "5!n5!n11!c2!n", Some((0, 5)), Some((5, 10))),
    ("PK", "4!a16!c", Some((0, 4)), None),
    ("PL", "8!n16!n", Some((0, 8)), None),
    ("PM", "5!n5!n11!c2!n", Some((0, 5)), Some((5, 10))),
    ("PS", "4!a21!c", Some((0, 4)), None),
    ("PT", "4!n4!n11!n2!n", Some((0, 4)), Some((4, 8))),
    ("QA", "4!a21!c", Some((0, 4)), None),
    ("RE", "5!n5!n11!c2!n", Some((0, 5)), Some((5, 10))),
    ("RO", "4!a16!c", Some((0, 4)), None),
    ("RS", "3!n13!n2!n", Some((0, 3)), None),
    ("RU", "9!n5!n15!c", Some((0, 9)), Some((9, 14))),
    ("SA", "2!n18!c", Some((0, 2)), None),
    ("SC", "4!a2!n2!n16!n3!a", Some((0, 6)), Some((6, 8))),
    ("SD", "2!n12!n", Some((0, 2)), None),
    ("SE", "3!n16!n1!n", Some((0, 3)), None),
    ("SI", "5!n8!n2!n", Some((0, 2)), Some((2, 5))),
    ("SK", "4!n6!n10!n", Some((0, 4)), Some((4, 10))),
    ("SM", "1!a5!n5!n12!c", Some((1, 6)), Some((6, 11))),
    ("SO", "4!n3!n12!n", Some((0, 4)), Some((4, 7))),
    ("ST", "4!n4!n11!n2!n", Some((0, 4)), Some((4, 8))),
    ("SV", "4!a20!n", Some((0, 4)), None),
    ("TF", "5!n5!n11!c2!n", Some((0, 5)), Some((5, 10))),
    ("TL", "3!n14!n2!n", Some((0, 3)), None),
    ("TN", "2!n3!n13!n2!n", Some((0, 2)), Some((2, 5))),
    ("TR", "5!n1!n16!c", Some((0, 5)), None),
    ("UA", "6!n19!c", Some((0, 6)), None),
    ("VA", "3!n15!n", Some((0, 3)), None),
    ("VG", "4!a16!n", Some((0, 4)), None),
    ("WF", "5!n5!n11!c2!n", Some((0, 5)), Some((5, 10))),
    ("XK", "4!n10!n2!n", Some((0, 2)), Some((2, 4))),
    ("YE", "4!a4!n18!c", Some((0, 4)), Some((4, 8))),
    ("YT", "5!n5!n11!c2!n", Some((0, 5)), None),
];

/// The registry entry of `country`.
pub fn entry(country: &str) -> Option<&'static Entry> {
    REGISTRY.binary_search_by(|e| e.0.cmp(country)).ok().map(|i| &REGISTRY[i])
}

/// The segments of a structure: (count, kind) with kind `n`, `a` or `c`.
pub fn segments(spec: &str) -> impl Iterator<Item = (usize, u8)> + '_ {
    spec.split_inclusive(['n', 'a', 'c']).filter_map(|seg| {
        let (count, kind) = seg.split_once('!')?;
        Some((count.parse().ok()?, *kind.as_bytes().first()?))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sorted_unique_and_well_formed() {
        assert!(REGISTRY.windows(2).all(|w| w[0].0 < w[1].0), "sorted by country code, no repeats");
        for (code, spec, bank, branch) in REGISTRY {
            let len: usize = segments(spec).map(|(n, _)| n).sum();
            assert!(len > 0 && len <= 30, "{code} {spec}");
            assert!(segments(spec).all(|(_, k)| matches!(k, b'n' | b'a' | b'c')), "{code} {spec}");
            for (s, e) in [bank, branch].into_iter().flatten() {
                assert!(s < e && *e <= len, "{code}: {s}..{e} outside {len}");
            }
        }
        assert_eq!(entry("PK").map(|e| e.1), Some("4!a16!c"));
    }
}
