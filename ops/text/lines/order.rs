//! Two of GNU `sort`'s orders, in the C locale, so `text/lines` sorts as `LC_ALL=C sort -V` and
//! `LC_ALL=C sort -n` of coreutils 9.1 do (tests/it/text_tools.rs runs both on the same lines).
//!
//! Version order (`-V`, as coreutils documents it under "Details about version sort"): a name's
//! file suffix (the longest run of `.letter-or-tilde` then letters, digits and tildes at its end)
//! is set aside; the rest is read as alternating runs of non-digits and digits. Non-digit runs
//! compare byte by byte with `~` before the end of a run, the end before letters, letters by
//! byte, and anything else after letters; digit runs compare as numbers. Equal stems then
//! compare with their suffixes, and names still equal by bytes. Before all that, the empty name,
//! `.` and `..` sort first, then names starting with `.` before the others.
//!
//! Numeric order (`-n`): leading blanks, an optional `-`, digits and one optional `.` with more
//! digits; a line without that prefix counts as zero. Numbers compare exactly (as decimal
//! strings, any length), and lines with equal numbers fall back to comparing all their bytes,
//! which is what GNU `sort` does unless told `-s`.

use std::cmp::Ordering;

/// How much of `s` comes before its file suffix: the longest run of `.` then a letter or `~`,
/// then letters, digits and `~`, repeated, that ends the name. A hidden name's own leading dot
/// may start it, so `.bashrc` is all suffix, as GNU coreutils 9.1 reads it.
fn stem_len(s: &[u8]) -> usize {
    let suffix_start = |c: Option<&u8>| c.is_some_and(|c| c.is_ascii_alphabetic() || *c == b'~');
    let mut i = 0;
    loop {
        let start = i;
        while i < s.len() && s[i] == b'.' && suffix_start(s.get(i + 1)) {
            i += 2;
            while i < s.len() && (s[i].is_ascii_alphanumeric() || s[i] == b'~') {
                i += 1;
            }
        }
        if i >= s.len() {
            return start;
        }
        i += 1;
    }
}

/// The weight of the byte at `i` in a non-digit run: `~` lowest, then the end of the text,
/// then a digit (which ends the run), letters by byte, and everything else after letters.
fn weight(s: &[u8], i: usize) -> i32 {
    match s.get(i) {
        None => -1,
        Some(c) if c.is_ascii_digit() => 0,
        Some(c) if c.is_ascii_alphabetic() => i32::from(*c),
        Some(b'~') => -2,
        Some(c) => i32::from(*c) + 256,
    }
}

/// Compares two texts by alternating non-digit and digit runs.
fn runs_cmp(a: &[u8], b: &[u8]) -> Ordering {
    let (mut i, mut j) = (0, 0);
    let non_digit = |s: &[u8], k: usize| k < s.len() && !s[k].is_ascii_digit();
    while i < a.len() || j < b.len() {
        while non_digit(a, i) || non_digit(b, j) {
            let (wa, wb) = (weight(a, i), weight(b, j));
            if wa != wb {
                return wa.cmp(&wb);
            }
            i += 1;
            j += 1;
        }
        // Digit runs, as numbers: leading zeros skipped, then the longer is larger, then bytes.
        while i < a.len() && a[i] == b'0' {
            i += 1;
        }
        while j < b.len() && b[j] == b'0' {
            j += 1;
        }
        let da = a[i..].iter().take_while(|c| c.is_ascii_digit()).count();
        let db = b[j..].iter().take_while(|c| c.is_ascii_digit()).count();
        let by_number = da.cmp(&db).then_with(|| a[i..i + da].cmp(&b[j..j + db]));
        if by_number != Ordering::Equal {
            return by_number;
        }
        i += da;
        j += db;
    }
    Ordering::Equal
}

/// GNU `sort -V`'s order of two lines, its last resort (all bytes) included.
pub(super) fn version_cmp(a: &str, b: &str) -> Ordering {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    // The empty name, then ".", "..", other names with a leading dot, and the rest.
    let rank = |s: &[u8]| match s {
        b"" => 0,
        b"." => 1,
        b".." => 2,
        _ if s[0] == b'.' => 3,
        _ => 4,
    };
    let (ra, rb) = (rank(a), rank(b));
    if ra != rb || ra < 3 {
        return ra.cmp(&rb).then_with(|| a.cmp(b));
    }
    let (sa, sb) = (stem_len(a), stem_len(b));
    let stems = runs_cmp(&a[..sa], &b[..sb]);
    let whole = if stems == Ordering::Equal && (sa < a.len() || sb < b.len()) { runs_cmp(a, b) } else { stems };
    whole.then_with(|| a.cmp(b))
}

/// A line's leading number as GNU `sort -n` reads it: negative, integer digits (leading zeros
/// dropped) and fraction digits (trailing zeros dropped).
fn leading_number(line: &str) -> (bool, &str, &str) {
    let s = line.trim_start_matches([' ', '\t']);
    let (negative, s) = match s.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, s),
    };
    let int_len = s.bytes().take_while(u8::is_ascii_digit).count();
    let int = s[..int_len].trim_start_matches('0');
    let frac = match s[int_len..].strip_prefix('.') {
        Some(rest) => rest[..rest.bytes().take_while(u8::is_ascii_digit).count()].trim_end_matches('0'),
        None => "",
    };
    // Negative zero is zero.
    let negative = negative && !(int.is_empty() && frac.is_empty());
    (negative, int, frac)
}

/// GNU `sort -n`'s order of two lines, the byte comparison included as its last resort.
pub(super) fn numeric_cmp(a: &str, b: &str) -> Ordering {
    let (na, ia, fa) = leading_number(a);
    let (nb, ib, fb) = leading_number(b);
    let magnitude = ia.len().cmp(&ib.len()).then_with(|| ia.cmp(ib)).then_with(|| fa.cmp(fb));
    let by_number = match (na, nb) {
        (false, false) => magnitude,
        (true, true) => magnitude.reverse(),
        (true, false) => Ordering::Less,
        (false, true) => Ordering::Greater,
    };
    by_number.then_with(|| a.as_bytes().cmp(b.as_bytes()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn orders_of_the_coreutils_manual() {
        let mut v = vec!["a10", "a2", "a1.tar.gz", "a1", ".hidden", "a1~", "b", "", "a01", ".."];
        v.sort_by(|a, b| version_cmp(a, b));
        assert_eq!(v, ["", "..", ".hidden", "a1~", "a01", "a1", "a1.tar.gz", "a2", "a10", "b"]);
        let mut n = vec!["10", "9", "-1", "abc", "0.5", "  3", "-0", "1e3"];
        n.sort_by(|a, b| numeric_cmp(a, b));
        assert_eq!(n, ["-1", "-0", "abc", "0.5", "1e3", "  3", "9", "10"]);
    }
}
