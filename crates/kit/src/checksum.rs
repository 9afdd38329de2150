//! The Luhn (mod 10) check digit of ISO/IEC 7812-1 annex B, shared by payment cards, MSI
//! barcodes and the VAT numbers that use it (France's SIREN, Italy, Sweden).

/// The sum the Luhn check is built on: from the right, every second digit doubled (and 9
/// taken off when that exceeds 9), starting with the rightmost when `check_included` is false
/// (the digit about to be appended would sit to its right).
fn weighted_sum(digits: &[u8], check_included: bool) -> u32 {
    let doubled_first = if check_included { 1 } else { 0 };
    digits
        .iter()
        .rev()
        .enumerate()
        .map(|(i, &d)| {
            let d = d as u32;
            if i % 2 == doubled_first {
                let x = 2 * d;
                if x > 9 { x - 9 } else { x }
            } else {
                d
            }
        })
        .sum()
}

/// Whether `digits` (each 0-9, check digit last) pass the Luhn check.
pub fn luhn_valid(digits: &[u8]) -> bool {
    !digits.is_empty() && weighted_sum(digits, true).is_multiple_of(10)
}

/// The Luhn check digit to append to `digits`.
pub fn luhn_check_digit(digits: &[u8]) -> u8 {
    ((10 - weighted_sum(digits, false) % 10) % 10) as u8
}

/// The digits of `text` (each 0-9), or None when it holds anything else.
pub fn digits(text: &str) -> Option<Vec<u8>> {
    text.bytes().map(|b| b.is_ascii_digit().then(|| b - b'0')).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn iso_7812_example_and_round_trips() {
        // ISO/IEC 7812-1 annex B: 7992739871 has check digit 3.
        let payload = digits("7992739871").unwrap();
        assert_eq!(luhn_check_digit(&payload), 3);
        for d in 0..10 {
            let mut full = payload.clone();
            full.push(d);
            assert_eq!(luhn_valid(&full), d == 3);
        }
        for n in 0..2_000u32 {
            let mut d = digits(&n.to_string()).unwrap();
            d.push(luhn_check_digit(&d));
            assert!(luhn_valid(&d), "{n}");
        }
        assert!(!luhn_valid(&[]));
        assert_eq!(digits("12a"), None);
    }
}
