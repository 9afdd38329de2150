//! Linear barcode encoders: data to a row of modules (true = bar), with check digits.
//!
//! Tables and rules from the symbology standards: Code 128 (ISO/IEC 15417), EAN-13, EAN-8
//! and UPC-A (ISO/IEC 15420, GS1 General Specifications), ITF-14 (ISO/IEC 16390, GS1), and MSI
//! Plessey with its mod 10 (Luhn) check digit.

/// Code 128 bar and space widths for symbol values 0-105 (each sums to 11 modules), then stop.
const CODE128: [&str; 107] = [
    "212222", "222122", "222221", "121223", "121322", "131222", "122213", "122312", "132212", "221213", "221312",
    "231212", "112232", "122132", "122231", "113222", "123122", "123221", "223211", "221132", "221231", "213212",
    "223112", "312131", "311222", "321122", "321221", "312212", "322112", "322211", "212123", "212321", "232121",
    "111323", "131123", "131321", "112313", "132113", "132311", "211313", "231113", "231311", "112133", "112331",
    "132131", "113123", "113321", "133121", "313121", "211331", "231131", "213113", "213311", "213131", "311123",
    "311321", "331121", "312113", "312311", "332111", "314111", "221411", "431111", "111224", "111422", "121124",
    "121421", "141122", "141221", "112214", "112412", "122114", "122411", "142112", "142211", "241211", "221114",
    "413111", "241112", "134111", "111242", "121142", "121241", "114212", "124112", "124211", "411212", "421112",
    "421211", "212141", "214121", "412121", "111143", "111341", "131141", "114113", "114311", "411113", "411311",
    "113141", "114131", "311141", "411131", "211412", "211214", "211232", "2331112",
];
const START_B: usize = 104;
const STOP: usize = 106;

/// EAN/UPC left-hand odd-parity (L) patterns; R is their complement, G the reverse of R.
const EAN_L: [&str; 10] =
    ["0001101", "0011001", "0010011", "0111101", "0100011", "0110001", "0101111", "0111011", "0110111", "0001011"];
/// EAN-13 parity of the left six digits, chosen by the first digit.
const EAN13_PARITY: [&str; 10] =
    ["LLLLLL", "LLGLGG", "LLGGLG", "LLGGGL", "LGLLGG", "LGGLLG", "LGGGLL", "LGLGLG", "LGLGGL", "LGGLGL"];
/// Interleaved 2 of 5: narrow (N) and wide (W) elements per digit.
const ITF: [&str; 10] = ["NNWWN", "WNNNW", "NWNNW", "WWNNN", "NNWNW", "WNWNN", "NWWNN", "NNNWW", "WNNWN", "NWNWN"];

fn push_widths(out: &mut Vec<bool>, widths: &str, start_with_bar: bool) {
    let mut bar = start_with_bar;
    for w in widths.bytes() {
        out.extend(std::iter::repeat_n(bar, (w - b'0') as usize));
        bar = !bar;
    }
}

fn push_bits(out: &mut Vec<bool>, bits: &str) {
    out.extend(bits.bytes().map(|b| b == b'1'));
}

/// Code 128 with code set B (ASCII 32-127), with its mod 103 check symbol.
pub fn code128b(data: &str) -> Result<Vec<bool>, String> {
    let mut values = vec![START_B];
    for (i, c) in data.chars().enumerate() {
        let v = c as u32;
        if !(32..=127).contains(&v) {
            return Err(format!("Code 128 B encodes ASCII 32-127; character {} ({c:?}) is not", i + 1));
        }
        values.push((v - 32) as usize);
    }
    let check = values.iter().enumerate().map(|(i, v)| if i == 0 { *v } else { i * v }).sum::<usize>() % 103;
    values.push(check);
    values.push(STOP);
    let mut out = Vec::new();
    for v in values {
        push_widths(&mut out, CODE128[v], true);
    }
    Ok(out)
}

/// GS1 check digit: weights 3 and 1 alternating from the right of the data digits.
pub fn gs1_check(digits: &[u8]) -> u8 {
    let sum: u32 = digits.iter().rev().enumerate().map(|(i, d)| *d as u32 * if i % 2 == 0 { 3 } else { 1 }).sum();
    ((10 - sum % 10) % 10) as u8
}

/// The digits of `data` with a GS1 check digit: computed when `data` has `len - 1` digits,
/// verified when it has `len`.
pub fn with_gs1_check(data: &str, len: usize, name: &str) -> Result<Vec<u8>, String> {
    let digits = crate::checksum::digits(data).ok_or_else(|| format!("{name} encodes digits only"))?;
    match digits.len() {
        n if n == len - 1 => {
            let mut d = digits.clone();
            d.push(gs1_check(&digits));
            Ok(d)
        }
        n if n == len => {
            let expected = gs1_check(&digits[..len - 1]);
            if digits[len - 1] == expected {
                Ok(digits)
            } else {
                Err(format!("the {name} check digit is {}, the data says {}", expected, digits[len - 1]))
            }
        }
        n => Err(format!("{name} takes {} digits (or {} with the check digit), not {n}", len - 1, len)),
    }
}

fn r_code(d: u8) -> String {
    EAN_L[d as usize].bytes().map(|b| if b == b'0' { '1' } else { '0' }).collect()
}

/// EAN-13 from its 13 digits (check digit included).
pub fn ean13(d: &[u8]) -> Vec<bool> {
    let mut out = Vec::new();
    push_bits(&mut out, "101");
    for (i, parity) in EAN13_PARITY[d[0] as usize].bytes().enumerate() {
        let digit = d[i + 1];
        let code =
            if parity == b'L' { EAN_L[digit as usize].to_string() } else { r_code(digit).chars().rev().collect() };
        push_bits(&mut out, &code);
    }
    push_bits(&mut out, "01010");
    for &digit in &d[7..13] {
        push_bits(&mut out, &r_code(digit));
    }
    push_bits(&mut out, "101");
    out
}

/// EAN-8 from its 8 digits (check digit included).
pub fn ean8(d: &[u8]) -> Vec<bool> {
    let mut out = Vec::new();
    push_bits(&mut out, "101");
    for &digit in &d[..4] {
        push_bits(&mut out, EAN_L[digit as usize]);
    }
    push_bits(&mut out, "01010");
    for &digit in &d[4..] {
        push_bits(&mut out, &r_code(digit));
    }
    push_bits(&mut out, "101");
    out
}

/// Interleaved 2 of 5 over an even number of digits; `wide` modules per wide element.
pub fn itf(d: &[u8], wide: u8) -> Vec<bool> {
    let width = |e: u8| if e == b'W' { wide } else { 1 };
    let mut out = Vec::new();
    push_widths(&mut out, "1111", true);
    for pair in d.chunks(2) {
        let (bars, spaces) = (ITF[pair[0] as usize].as_bytes(), ITF[pair[1] as usize].as_bytes());
        for i in 0..5 {
            out.extend(std::iter::repeat_n(true, width(bars[i]) as usize));
            out.extend(std::iter::repeat_n(false, width(spaces[i]) as usize));
        }
    }
    out.extend(std::iter::repeat_n(true, wide as usize));
    out.push(false);
    out.push(true);
    out
}

/// MSI's mod 10 check digit: the Luhn check digit.
pub fn luhn_check(digits: &[u8]) -> u8 {
    crate::checksum::luhn_check_digit(digits)
}

/// MSI Plessey: each digit as four bits (1 = `110`, 0 = `100`), start `110`, stop `1001`.
pub fn msi(d: &[u8]) -> Vec<bool> {
    let mut out = Vec::new();
    push_bits(&mut out, "110");
    for &digit in d {
        for bit in (0..4).rev() {
            push_bits(&mut out, if digit >> bit & 1 == 1 { "110" } else { "100" });
        }
    }
    push_bits(&mut out, "1001");
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bits(v: &[bool]) -> String {
        v.iter().map(|b| if *b { '1' } else { '0' }).collect()
    }

    fn theirs(v: Vec<u8>) -> String {
        v.iter().map(|b| if *b == 1 { '1' } else { '0' }).collect()
    }

    #[test]
    fn code128_table_is_well_formed() {
        for (i, w) in CODE128.iter().enumerate() {
            let sum: u32 = w.bytes().map(|b| (b - b'0') as u32).sum();
            assert_eq!(sum, if i == STOP { 13 } else { 11 }, "symbol {i}");
        }
    }

    #[test]
    fn modules_match_the_barcoders_crate() {
        // barcoders (an independent implementation) takes Code 128 data after a code-set
        // selector, Ɓ for set B.
        for data in ["Hello, World!", "wrench-0.1", "ABC abc 123 ~{}|"] {
            let mine = bits(&code128b(data).unwrap());
            let other = theirs(barcoders::sym::code128::Code128::new(format!("Ɓ{data}")).unwrap().encode());
            assert_eq!(mine, other, "Code 128 {data}");
        }
        for data in ["400638133393", "750103131130", "978020137962"] {
            let d = with_gs1_check(data, 13, "EAN-13").unwrap();
            assert_eq!(
                bits(&ean13(&d)),
                theirs(barcoders::sym::ean13::EAN13::new(data).unwrap().encode()),
                "EAN-13 {data}"
            );
        }
        for data in ["9638507", "5512345"] {
            let d = with_gs1_check(data, 8, "EAN-8").unwrap();
            assert_eq!(
                bits(&ean8(&d)),
                theirs(barcoders::sym::ean8::EAN8::new(data).unwrap().encode()),
                "EAN-8 {data}"
            );
        }
        for data in ["1540014128876", "0001234560001"] {
            let d = with_gs1_check(data, 14, "ITF-14").unwrap();
            let text: String = d.iter().map(|x| (b'0' + x) as char).collect();
            // Start and digits as barcoders draws them (wide = 3 modules); its stop pattern has a
            // two-module bar where ISO/IEC 16390 has a wide one, so the stops are compared apart.
            let mine = bits(&itf(&d, 3));
            let other = theirs(barcoders::sym::tf::TF::interleaved(text).unwrap().encode());
            assert_eq!(mine[..mine.len() - 5], other[..other.len() - 4], "ITF {data}");
            assert!(mine.ends_with("11101"), "stop: wide bar, narrow space, narrow bar");
        }
    }

    #[test]
    fn published_check_digits() {
        // GS1's own examples and well-known product codes.
        assert_eq!(with_gs1_check("400638133393", 13, "EAN-13").unwrap()[12], 1);
        assert_eq!(with_gs1_check("978020137962", 13, "EAN-13").unwrap()[12], 4);
        assert_eq!(with_gs1_check("9638507", 8, "EAN-8").unwrap()[7], 4);
        assert_eq!(with_gs1_check("03600029145", 12, "UPC-A").unwrap()[11], 2);
        assert!(with_gs1_check("4006381333932", 13, "EAN-13").unwrap_err().contains("check digit is 1"));
        assert_eq!(luhn_check(&[1, 2, 3, 4, 5, 6, 7]), 4);
    }

    #[test]
    fn ean13_and_msi_module_patterns() {
        // EAN-13 5901234123457: guards, L/G parity for first digit 5 (LGGLLG), R codes.
        let d = with_gs1_check("590123412345", 13, "EAN-13").unwrap();
        assert_eq!(d[12], 7);
        let m = bits(&ean13(&d));
        assert_eq!(m.len(), 95);
        assert!(m.starts_with("101") && m.ends_with("101") && &m[45..50] == "01010");
        assert_eq!(&m[3..10], "0001011", "9 in L");
        assert_eq!(&m[10..17], "0100111", "0 in G");
        // MSI 1234 + Luhn check 4: start, 5 digits x 12 modules, stop.
        let msi_digits = [1, 2, 3, 4, luhn_check(&[1, 2, 3, 4])];
        let m = bits(&msi(&msi_digits));
        assert_eq!(m.len(), 3 + 5 * 12 + 4);
        assert_eq!(&m[3..15], "100100100110", "digit 1 = 0001");
    }
}
