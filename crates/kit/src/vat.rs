//! National VAT number rules of the EU member states, Northern Ireland (XI) and Great Britain:
//! shape and check-digit algorithm per country, as each tax administration defines them.
//!
//! Each rule takes the number without its country prefix, upper-cased, without spaces, dots or
//! dashes, and answers Ok (valid), or Err with the reason. `Check::FormatOnly` marks the few
//! shapes whose numbers carry no check digit (Czech birth numbers issued before 1954).

/// What a rule could verify.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Check {
    /// The national check-digit algorithm passed.
    Checksum,
    /// The shape is right; numbers of this shape have no check digit.
    FormatOnly,
}

/// One country: code, name, expected format in words, and its rule.
pub struct Country {
    pub code: &'static str,
    pub name: &'static str,
    pub format: &'static str,
    pub rule: fn(&str) -> Result<Check, String>,
}

/// The Luhn check over all digits.
fn luhn(d: &[u32]) -> bool {
    crate::checksum::luhn_valid(&d.iter().map(|x| *x as u8).collect::<Vec<u8>>())
}

fn digits(s: &str) -> Option<Vec<u32>> {
    crate::checksum::digits(s).map(|d| d.into_iter().map(u32::from).collect())
}

/// Digits of exactly `len`, or the reason why not.
fn need(s: &str, lens: &[usize]) -> Result<Vec<u32>, String> {
    let d = digits(s).ok_or_else(|| "must be digits only".to_string())?;
    if lens.contains(&d.len()) {
        Ok(d)
    } else {
        Err(format!(
            "must have {} digits, not {}",
            lens.iter().map(usize::to_string).collect::<Vec<_>>().join(" or "),
            d.len()
        ))
    }
}

fn weighted(d: &[u32], w: &[u32]) -> u32 {
    d.iter().zip(w).map(|(a, b)| a * b).sum()
}

fn ok_if(cond: bool) -> Result<Check, String> {
    if cond { Ok(Check::Checksum) } else { Err("the check digit does not match".into()) }
}

/// ISO 7064 MOD 11,10 over all digits but the last, compared with the last.
fn mod_11_10(d: &[u32]) -> bool {
    let mut p = 10;
    for &x in &d[..d.len() - 1] {
        let mut s = (x + p) % 10;
        if s == 0 {
            s = 10;
        }
        p = (2 * s) % 11;
    }
    (11 - p) % 10 == d[d.len() - 1]
}

fn at(s: &str) -> Result<Check, String> {
    let rest = s.strip_prefix('U').ok_or("must start with U")?;
    let d = need(rest, &[8])?;
    let sum: u32 = (0..7)
        .map(|i| {
            let p = d[i] * if i % 2 == 0 { 1 } else { 2 };
            p / 10 + p % 10
        })
        .sum();
    ok_if((10 - (sum + 4) % 10) % 10 == d[7])
}

fn be(s: &str) -> Result<Check, String> {
    let s = if s.len() == 9 { format!("0{s}") } else { s.to_string() };
    let d = need(&s, &[10])?;
    if d[0] > 1 {
        return Err("must start with 0 or 1".into());
    }
    let first: u64 = s[..8].parse().map_err(|_| "must be digits only")?;
    let last: u64 = s[8..].parse().map_err(|_| "must be digits only")?;
    ok_if(97 - first % 97 == last)
}

fn bg(s: &str) -> Result<Check, String> {
    let d = need(s, &[9, 10])?;
    if d.len() == 9 {
        let mut c = weighted(&d[..8], &[1, 2, 3, 4, 5, 6, 7, 8]) % 11;
        if c == 10 {
            c = weighted(&d[..8], &[3, 4, 5, 6, 7, 8, 9, 10]) % 11;
        }
        return ok_if(c % 10 == d[8]);
    }
    // Ten digits: a personal number (EGN), a foreigner's number (PNF) or another entity.
    let egn = weighted(&d[..9], &[2, 4, 8, 5, 10, 9, 7, 3, 6]) % 11 % 10 == d[9];
    let pnf = weighted(&d[..9], &[21, 19, 17, 13, 11, 9, 7, 3, 1]) % 10 == d[9];
    let other = {
        let c = 11 - weighted(&d[..9], &[4, 3, 2, 7, 6, 5, 4, 3, 2]) % 11;
        c != 10 && c % 11 == d[9]
    };
    ok_if(egn || pnf || other)
}

fn cy(s: &str) -> Result<Check, String> {
    if s.len() != 9 || !s.is_ascii() {
        return Err("must be 8 digits and a letter".into());
    }
    let d = digits(&s[..8]).ok_or("must be 8 digits and a letter")?;
    let letter = s.as_bytes()[8];
    if !letter.is_ascii_uppercase() {
        return Err("must end with a letter".into());
    }
    if ![0, 1, 3, 4, 5, 9].contains(&d[0]) {
        return Err("cannot start with this digit".into());
    }
    const ODD: [u32; 10] = [1, 0, 5, 7, 9, 13, 15, 17, 19, 21];
    let sum: u32 = d.iter().enumerate().map(|(i, &x)| if i % 2 == 0 { ODD[x as usize] } else { x }).sum();
    ok_if(b'A' + (sum % 26) as u8 == letter)
}

fn cz(s: &str) -> Result<Check, String> {
    let d = need(s, &[8, 9, 10])?;
    match d.len() {
        8 => {
            if d[0] == 9 {
                return Err("an 8-digit number cannot start with 9".into());
            }
            let c = (11 - weighted(&d[..7], &[8, 7, 6, 5, 4, 3, 2]) % 11) % 11;
            ok_if((if c == 0 { 1 } else { c }) % 10 == d[7])
        }
        9 if d[0] == 6 => {
            let c = weighted(&d[1..8], &[8, 7, 6, 5, 4, 3, 2]) % 11;
            ok_if((8 + 11 - (10 + 11 - c) % 11) % 11 % 10 == d[8])
        }
        // A birth number of someone born before 1954: no check digit.
        9 => Ok(Check::FormatOnly),
        _ => {
            let first: u64 = s[..9].parse().map_err(|_| "must be digits only")?;
            ok_if((first % 11 % 10) as u32 == d[9])
        }
    }
}

fn de(s: &str) -> Result<Check, String> {
    let d = need(s, &[9])?;
    if d[0] == 0 {
        return Err("cannot start with 0".into());
    }
    ok_if(mod_11_10(&d))
}

fn dk(s: &str) -> Result<Check, String> {
    let d = need(s, &[8])?;
    if d[0] == 0 {
        return Err("cannot start with 0".into());
    }
    ok_if(weighted(&d, &[2, 7, 6, 5, 4, 3, 2, 1]).is_multiple_of(11))
}

fn ee(s: &str) -> Result<Check, String> {
    let d = need(s, &[9])?;
    ok_if(weighted(&d, &[3, 7, 1, 3, 7, 1, 3, 7, 1]).is_multiple_of(10))
}

fn el(s: &str) -> Result<Check, String> {
    let s = if s.len() == 8 { format!("0{s}") } else { s.to_string() };
    let d = need(&s, &[9])?;
    ok_if(weighted(&d[..8], &[256, 128, 64, 32, 16, 8, 4, 2]) % 11 % 10 == d[8])
}

fn es(s: &str) -> Result<Check, String> {
    const LETTERS: &[u8] = b"TRWAGMYFPDXBNJZSQVHLCKE";
    let b = s.as_bytes();
    if b.len() != 9 || !s.is_ascii() {
        return Err("must be 9 characters".into());
    }
    let last = b[8];
    let letter_of = |n: u64| LETTERS[(n % 23) as usize];
    match b[0] {
        b'0'..=b'9' => {
            let n: u64 = s[..8].parse().map_err(|_| "a DNI is 8 digits and a letter")?;
            ok_if(letter_of(n) == last)
        }
        b'X' | b'Y' | b'Z' => {
            let n: u64 = format!("{}{}", b[0] - b'X', &s[1..8])
                .parse()
                .map_err(|_| "an NIE is X, Y or Z, 7 digits and a letter")?;
            ok_if(letter_of(n) == last)
        }
        b'K' | b'L' | b'M' => {
            let n: u64 = s[1..8].parse().map_err(|_| "must be a letter, 7 digits and a letter")?;
            ok_if(letter_of(n) == last)
        }
        b'A'..=b'H' | b'J' | b'N' | b'P' | b'Q' | b'R' | b'S' | b'U' | b'V' | b'W' => {
            let d = digits(&s[1..8]).ok_or("a CIF is a letter, 7 digits and a check character")?;
            let sum: u32 = d
                .iter()
                .enumerate()
                .map(|(i, &x)| {
                    if i % 2 == 0 {
                        let y = 2 * x;
                        y / 10 + y % 10
                    } else {
                        x
                    }
                })
                .sum();
            let c = (10 - sum % 10) % 10;
            ok_if(last == b'0' + c as u8 || last == b"JABCDEFGHI"[c as usize])
        }
        _ => Err("cannot start with this letter".into()),
    }
}

fn fi(s: &str) -> Result<Check, String> {
    let d = need(s, &[8])?;
    ok_if(weighted(&d, &[7, 9, 10, 5, 8, 4, 2, 1]).is_multiple_of(11))
}

fn fr(s: &str) -> Result<Check, String> {
    const KEYS: &str = "0123456789ABCDEFGHJKLMNPQRSTUVWXYZ";
    if s.len() != 11 || !s.is_ascii() {
        return Err("must be a 2-character key and a 9-digit SIREN".into());
    }
    let (key, siren) = s.split_at(2);
    let siren_digits = digits(siren).ok_or("the SIREN (last 9 characters) must be digits")?;
    let idx: Vec<usize> = key
        .chars()
        .map(|c| KEYS.find(c))
        .collect::<Option<_>>()
        .ok_or("the key is digits or letters other than I and O")?;
    // Monaco's numbers have 000 where a SIREN starts and are not SIRENs.
    if &siren[..3] != "000" && !luhn(&siren_digits) {
        return Err("the SIREN's Luhn check fails".into());
    }
    let n: u64 = siren.parse().map_err(|_| "the SIREN must be digits")?;
    if key.bytes().all(|b| b.is_ascii_digit()) {
        let k: u64 = key.parse().map_err(|_| "bad key")?;
        return ok_if((n * 100 + 12) % 97 == k);
    }
    let check =
        if key.as_bytes()[0].is_ascii_digit() { idx[0] * 24 + idx[1] - 10 } else { idx[0] * 34 + idx[1] - 100 } as u64;
    ok_if((n + 1 + check / 11) % 11 == check % 11)
}

fn hr(s: &str) -> Result<Check, String> {
    ok_if(mod_11_10(&need(s, &[11])?))
}

fn hu(s: &str) -> Result<Check, String> {
    let d = need(s, &[8])?;
    ok_if(weighted(&d, &[9, 7, 3, 1, 9, 7, 3, 1]).is_multiple_of(10))
}

fn ie(s: &str) -> Result<Check, String> {
    const LETTERS: &[u8] = b"WABCDEFGHIJKLMNOPQRSTUV";
    if !s.is_ascii() || !(8..=9).contains(&s.len()) {
        return Err("must be 8 or 9 characters".into());
    }
    let b = s.as_bytes();
    // Old format: digit, letter or + or *, five digits, letter: rearranged to the new one.
    let s: String = if b[1].is_ascii_uppercase() || b[1] == b'+' || b[1] == b'*' {
        if s.len() != 8 {
            return Err("old-style numbers have 8 characters".into());
        }
        format!("0{}{}{}", &s[2..7], &s[0..1], &s[7..8])
    } else {
        s.to_string()
    };
    let d = digits(&s[..7]).ok_or("must start with 7 digits")?;
    let b = s.as_bytes();
    let mut sum = weighted(&d, &[8, 7, 6, 5, 4, 3, 2]);
    if b.len() == 9 {
        sum += match b[8] {
            b'W' => 0,
            c @ b'A'..=b'I' => 9 * (c - b'A' + 1) as u32,
            _ => return Err("the ninth character must be a letter A-I or W".into()),
        };
    }
    ok_if(LETTERS[(sum % 23) as usize] == b[7])
}

fn it(s: &str) -> Result<Check, String> {
    let d = need(s, &[11])?;
    if d[..7].iter().all(|&x| x == 0) {
        return Err("the company number cannot be all zeros".into());
    }
    let office: u32 = s[7..10].parse().map_err(|_| "must be digits only")?;
    if !((1..=100).contains(&office) || [120, 121, 888, 999].contains(&office)) {
        return Err(format!("{office:03} is not a province office code"));
    }
    ok_if(luhn(&d))
}

fn lt(s: &str) -> Result<Check, String> {
    let d = need(s, &[9, 12])?;
    if d[d.len() - 2] != 1 {
        return Err("the next-to-last digit must be 1".into());
    }
    let body = &d[..d.len() - 1];
    let sum =
        |shift: usize| body.iter().enumerate().map(|(i, &x)| (1 + ((i + shift) % 9) as u32) * x).sum::<u32>() % 11;
    let mut c = sum(0);
    if c == 10 {
        c = sum(2);
    }
    ok_if(c % 10 == d[d.len() - 1])
}

fn lu(s: &str) -> Result<Check, String> {
    need(s, &[8])?;
    let first: u32 = s[..6].parse().map_err(|_| "must be digits only")?;
    let last: u32 = s[6..].parse().map_err(|_| "must be digits only")?;
    ok_if(first % 89 == last)
}

fn lv(s: &str) -> Result<Check, String> {
    let d = need(s, &[11])?;
    if d[0] > 3 {
        return ok_if(weighted(&d, &[9, 1, 4, 8, 3, 10, 2, 5, 7, 6, 1]) % 11 == 3);
    }
    if !s.starts_with("32") {
        // A personal code with the date of birth DDMMYY and a century digit.
        let (day, month, year) = (d[0] * 10 + d[1], d[2] * 10 + d[3], d[4] * 10 + d[5]);
        let century = match d[6] {
            0 => 1800,
            1 => 1900,
            2 => 2000,
            _ => return Err("the seventh digit (century) must be 0, 1 or 2".into()),
        };
        if jiff::civil::Date::new((century + year) as i16, month as i8, day as i8).is_err() {
            return Err("the personal code's date of birth does not exist".into());
        }
    }
    ok_if((1 + weighted(&d[..10], &[10, 5, 8, 4, 2, 1, 6, 3, 7, 9])) % 11 % 10 == d[10])
}

fn mt(s: &str) -> Result<Check, String> {
    let d = need(s, &[8])?;
    if d[0] == 0 {
        return Err("cannot start with 0".into());
    }
    ok_if(37 - weighted(&d[..6], &[3, 4, 6, 7, 8, 9]) % 37 == d[6] * 10 + d[7])
}

fn nl(s: &str) -> Result<Check, String> {
    if s.len() != 12 || !s.is_ascii() || s.as_bytes()[9] != b'B' {
        return Err("must be 9 digits, B and 2 digits".into());
    }
    let d = digits(&s[..9]).ok_or("must be 9 digits, B and 2 digits")?;
    digits(&s[10..]).ok_or("must end with 2 digits")?;
    // Numbers before 2020 follow the BSN eleven-test; newer ones ISO 7064 MOD 97-10 over
    // "NL" and the number.
    let eleven = weighted(&d[..8], &[9, 8, 7, 6, 5, 4, 3, 2]) % 11 == d[8] && d[8] != 10;
    let mod97 = format!("NL{s}")
        .chars()
        .map(|c| c.to_digit(36).unwrap_or(0) as u64)
        .fold(0u64, |acc, v| if v >= 10 { (acc * 100 + v) % 97 } else { (acc * 10 + v) % 97 })
        == 1;
    ok_if(eleven || mod97)
}

fn pl(s: &str) -> Result<Check, String> {
    let d = need(s, &[10])?;
    ok_if(weighted(&d[..9], &[6, 5, 7, 2, 3, 4, 5, 6, 7]) % 11 == d[9])
}

fn pt(s: &str) -> Result<Check, String> {
    let d = need(s, &[9])?;
    if d[0] == 0 {
        return Err("cannot start with 0".into());
    }
    let c = 11 - weighted(&d[..8], &[9, 8, 7, 6, 5, 4, 3, 2]) % 11;
    ok_if((if c >= 10 { 0 } else { c }) == d[8])
}

fn ro(s: &str) -> Result<Check, String> {
    let d = need(s, &[2, 3, 4, 5, 6, 7, 8, 9, 10])?;
    if d[0] == 0 {
        return Err("cannot start with 0".into());
    }
    let mut body = vec![0u32; 10 - d.len()];
    body.extend_from_slice(&d[..d.len() - 1]);
    ok_if(10 * weighted(&body, &[7, 5, 3, 2, 1, 7, 5, 3, 2]) % 11 % 10 == d[d.len() - 1])
}

fn se(s: &str) -> Result<Check, String> {
    let d = need(s, &[12])?;
    if &s[10..] != "01" {
        return Err("must end with 01".into());
    }
    ok_if(luhn(&d[..10]))
}

fn si(s: &str) -> Result<Check, String> {
    let d = need(s, &[8])?;
    if d[0] == 0 {
        return Err("cannot start with 0".into());
    }
    let c = 11 - weighted(&d[..7], &[8, 7, 6, 5, 4, 3, 2]) % 11;
    ok_if(c != 11 && (if c == 10 { 0 } else { c }) == d[7])
}

fn sk(s: &str) -> Result<Check, String> {
    let d = need(s, &[10])?;
    if d[0] == 0 || ![2, 3, 4, 7, 8, 9].contains(&d[2]) {
        return Err("must not start with 0 and the third digit must be 2, 3, 4, 7, 8 or 9".into());
    }
    let n: u64 = s.parse().map_err(|_| "must be digits only")?;
    ok_if(n.is_multiple_of(11))
}

/// United Kingdom and Northern Ireland: 9 digits (12 with a branch), or GD/HA and 3 digits.
fn gb(s: &str) -> Result<Check, String> {
    if let Some(rest) = s.strip_prefix("GD").or_else(|| s.strip_prefix("HA")) {
        let n: u32 = need(rest, &[3]).and_then(|_| rest.parse().map_err(|_| "digits".to_string()))?;
        let government = s.starts_with("GD");
        return if government == (n < 500) {
            Ok(Check::FormatOnly)
        } else {
            Err("GD numbers are below 500, HA numbers 500 and above".into())
        };
    }
    let d = need(s, &[9, 12])?;
    let sum = weighted(&d[..9], &[8, 7, 6, 5, 4, 3, 2, 10, 1]);
    // The original mod-97 rule, and since 2010 the "9755" rule (sum + 55).
    ok_if(sum.is_multiple_of(97) || (sum + 55).is_multiple_of(97))
}

pub static COUNTRIES: &[Country] = &[
    Country { code: "AT", name: "Austria", format: "ATU followed by 8 digits", rule: at },
    Country { code: "BE", name: "Belgium", format: "BE followed by 10 digits starting with 0 or 1", rule: be },
    Country { code: "BG", name: "Bulgaria", format: "BG followed by 9 or 10 digits", rule: bg },
    Country { code: "CY", name: "Cyprus", format: "CY followed by 8 digits and a letter", rule: cy },
    Country { code: "CZ", name: "Czechia", format: "CZ followed by 8, 9 or 10 digits", rule: cz },
    Country { code: "DE", name: "Germany", format: "DE followed by 9 digits", rule: de },
    Country { code: "DK", name: "Denmark", format: "DK followed by 8 digits", rule: dk },
    Country { code: "EE", name: "Estonia", format: "EE followed by 9 digits", rule: ee },
    Country { code: "EL", name: "Greece", format: "EL followed by 9 digits", rule: el },
    Country {
        code: "ES",
        name: "Spain",
        format: "ES followed by 9 characters: a letter or digit, 7 digits, a letter or digit",
        rule: es,
    },
    Country { code: "FI", name: "Finland", format: "FI followed by 8 digits", rule: fi },
    Country {
        code: "FR",
        name: "France",
        format: "FR followed by a 2-character key (digits, or letters other than I and O) and the 9-digit SIREN",
        rule: fr,
    },
    Country { code: "HR", name: "Croatia", format: "HR followed by 11 digits", rule: hr },
    Country { code: "HU", name: "Hungary", format: "HU followed by 8 digits", rule: hu },
    Country {
        code: "IE",
        name: "Ireland",
        format: "IE followed by 7 digits and 1 or 2 letters (older: a digit, a letter, 5 digits, a letter)",
        rule: ie,
    },
    Country { code: "IT", name: "Italy", format: "IT followed by 11 digits", rule: it },
    Country { code: "LT", name: "Lithuania", format: "LT followed by 9 or 12 digits", rule: lt },
    Country { code: "LU", name: "Luxembourg", format: "LU followed by 8 digits", rule: lu },
    Country { code: "LV", name: "Latvia", format: "LV followed by 11 digits", rule: lv },
    Country { code: "MT", name: "Malta", format: "MT followed by 8 digits", rule: mt },
    Country { code: "NL", name: "Netherlands", format: "NL followed by 9 digits, B and 2 digits", rule: nl },
    Country { code: "PL", name: "Poland", format: "PL followed by 10 digits", rule: pl },
    Country { code: "PT", name: "Portugal", format: "PT followed by 9 digits", rule: pt },
    Country { code: "RO", name: "Romania", format: "RO followed by 2 to 10 digits", rule: ro },
    Country { code: "SE", name: "Sweden", format: "SE followed by 12 digits ending in 01", rule: se },
    Country { code: "SI", name: "Slovenia", format: "SI followed by 8 digits", rule: si },
    Country { code: "SK", name: "Slovakia", format: "SK followed by 10 digits", rule: sk },
    Country {
        code: "XI",
        name: "Northern Ireland",
        format: "XI followed by 9 or 12 digits, or GD or HA and 3 digits",
        rule: gb,
    },
    Country {
        code: "GB",
        name: "United Kingdom",
        format: "GB followed by 9 or 12 digits, or GD or HA and 3 digits",
        rule: gb,
    },
];
