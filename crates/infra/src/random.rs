//! Unguessable identifiers from the operating system's CSPRNG, and their reservation in the
//! store.

use crate::envelope::ApiError;

/// Letters and digits: URL-safe, case-sensitive, 62 symbols.
pub const ALPHANUMERIC: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";

/// `len` symbols drawn uniformly from `alphabet` (rejection sampling, so no symbol is more
/// likely than another). `alphabet` must have between 2 and 256 symbols.
pub fn token(len: usize, alphabet: &[u8]) -> Result<String, ApiError> {
    debug_assert!((2..=256).contains(&alphabet.len()));
    // The largest multiple of the alphabet size that fits in a byte: bytes at or above it are
    // drawn again, since `b % n` would otherwise favour the first symbols.
    let limit = (256 / alphabet.len()) * alphabet.len();
    let mut out = String::with_capacity(len);
    let mut buf = [0u8; 64];
    while out.len() < len {
        getrandom::fill(&mut buf)
            .map_err(|e| ApiError::internal(format!("the system random generator failed: {e}")))?;
        for b in buf {
            if (b as usize) < limit && out.len() < len {
                out.push(alphabet[b as usize % alphabet.len()] as char);
            }
        }
    }
    Ok(out)
}

/// `N` random bytes (a secret, a salt).
pub fn bytes<const N: usize>() -> Result<[u8; N], ApiError> {
    let mut b = [0u8; N];
    getrandom::fill(&mut b).map_err(|e| ApiError::internal(format!("the system random generator failed: {e}")))?;
    Ok(b)
}

/// A number in `0..n`, uniformly, from the CSPRNG (rejection sampling over 32-bit draws).
/// `n` must be at least 1.
pub fn below(n: u32) -> Result<u32, ApiError> {
    debug_assert!(n >= 1);
    // Draws at or above the largest multiple of n that fits are redrawn, so no value is favoured.
    let limit = u32::MAX - (u32::MAX % n);
    loop {
        let mut b = [0u8; 4];
        getrandom::fill(&mut b).map_err(|e| ApiError::internal(format!("the system random generator failed: {e}")))?;
        let x = u32::from_le_bytes(b);
        if x < limit {
            return Ok(x % n);
        }
    }
}

/// Stores `value` under a fresh random id: draws `len` symbols from `alphabet`, writes at
/// `key(id)` only if nothing lives there, and draws again on the (astronomically rare)
/// collision. Returns the id. `what` names the thing in the error when every draw collided.
pub async fn reserve(
    store: &dyn crate::store::Store,
    len: usize,
    alphabet: &[u8],
    key: impl Fn(&str) -> String,
    value: &[u8],
    ttl: Option<std::time::Duration>,
    what: &str,
) -> Result<String, ApiError> {
    for _ in 0..8 {
        let id = token(len, alphabet)?;
        if store.put_new(&key(&id), value, ttl).await? {
            return Ok(id);
        }
    }
    Err(ApiError::internal(format!("could not find a free {what}")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_have_the_length_and_alphabet_asked_for_and_differ() {
        let a = token(8, ALPHANUMERIC).unwrap();
        let b = token(8, ALPHANUMERIC).unwrap();
        assert_eq!(a.len(), 8);
        assert!(a.bytes().all(|c| ALPHANUMERIC.contains(&c)));
        assert_ne!(a, b);
    }

    #[test]
    fn symbols_are_roughly_uniform() {
        let s = token(62_000, ALPHANUMERIC).unwrap();
        for sym in ALPHANUMERIC {
            let n = s.bytes().filter(|c| c == sym).count();
            // Expected 1000 each; 6 standard deviations is about 190.
            assert!((800..1200).contains(&n), "{} appeared {n} times", *sym as char);
        }
    }
}
