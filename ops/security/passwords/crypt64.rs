//! The Base64 of Unix crypt strings: the alphabet `./0-9A-Za-z`, bytes taken three at a time
//! little-endian and written six bits at a time from the lowest. md5-crypt, sha256-crypt,
//! sha512-crypt and scrypt's `$7$` write their digests this way (after each scheme's own
//! reordering of the digest's bytes), and `$7$` its parameters.

const ALPHABET: &[u8; 64] = b"./0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

/// Whether `c` is a character of the alphabet (crypt salts are drawn from it).
pub(super) fn is_crypt_char(c: u8) -> bool {
    ALPHABET.contains(&c)
}

/// Writes `bytes`, three at a time; a last group of one or two bytes takes two or three
/// characters.
pub(super) fn encode(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for group in bytes.chunks(3) {
        let mut value = group.iter().rev().fold(0u32, |v, &b| (v << 8) | u32::from(b));
        for _ in 0..=group.len() {
            out.push(char::from(ALPHABET[(value & 63) as usize]));
            value >>= 6;
        }
    }
    out
}

/// Reads what [`encode`] writes; `None` for a character outside the alphabet or a length no
/// encoding has.
pub(super) fn decode(text: &str) -> Option<Vec<u8>> {
    let digits: Vec<u32> =
        text.bytes().map(|c| ALPHABET.iter().position(|&a| a == c).map(|p| p as u32)).collect::<Option<_>>()?;
    if digits.len() % 4 == 1 {
        return None;
    }
    let mut out = Vec::with_capacity(digits.len() * 3 / 4);
    for group in digits.chunks(4) {
        let value = group.iter().rev().fold(0u32, |v, &d| (v << 6) | d);
        for i in 0..group.len() - 1 {
            out.push((value >> (8 * i)) as u8);
        }
    }
    Some(out)
}

/// Reads a little-endian number written in `text` (scrypt's `$7$` parameters).
pub(super) fn decode_number(text: &str) -> Option<u64> {
    text.bytes().rev().try_fold(0u64, |v, c| {
        let d = ALPHABET.iter().position(|&a| a == c)? as u64;
        v.checked_mul(64).map(|v| v | d)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_every_length() {
        for n in 0..40u8 {
            let bytes: Vec<u8> = (0..n).map(|i| i.wrapping_mul(37).wrapping_add(200)).collect();
            assert_eq!(decode(&encode(&bytes)).unwrap(), bytes, "{n}");
        }
        assert_eq!(encode(&[0xff]), "z1");
        assert!(decode("a").is_none());
        assert!(decode("ab+c").is_none());
        assert_eq!(decode_number("/...."), Some(1));
        assert_eq!(decode_number("./..."), Some(64));
    }
}
