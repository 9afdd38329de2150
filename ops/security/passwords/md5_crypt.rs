//! md5-crypt (`$1$`, Poul-Henning Kamp's FreeBSD scheme) and Apache's `$apr1$`, which differs
//! only in its prefix: MD5 over the password, the prefix and a salt of up to 8 characters, then
//! 1,000 rounds mixing them. Broken as password storage (fast MD5, fixed rounds); offered to
//! check and migrate old hashes, and because Apache's htpasswd still writes it. Written from
//! the scheme's description and checked against passlib, `openssl passwd` and `htpasswd`.

use md5::{Digest, Md5};

use super::crypt64;

/// The digest's bytes in the order the string writes them: the scheme's own interleaving.
const ORDER: [usize; 16] = [12, 6, 0, 13, 7, 1, 14, 8, 2, 15, 9, 3, 5, 10, 4, 11];

/// The 22 characters of the digest for `password` with `salt` (at most 8 characters, already
/// cut) under `prefix` (`$1$` or `$apr1$`).
pub(super) fn digest(password: &[u8], salt: &[u8], prefix: &str) -> String {
    let alternate = Md5::new().chain_update(password).chain_update(salt).chain_update(password).finalize();
    let mut ctx = Md5::new().chain_update(password).chain_update(prefix.as_bytes()).chain_update(salt);
    for chunk_end in (1..=password.len()).rev().step_by(16) {
        ctx.update(&alternate[..chunk_end.min(16)]);
    }
    // One byte per bit of the length, lowest first: a zero byte for a set bit, else the
    // password's first byte.
    let mut n = password.len();
    while n > 0 {
        ctx.update(if n & 1 == 1 { &[0u8][..] } else { &password[..1] });
        n >>= 1;
    }
    let mut last = ctx.finalize();
    for i in 0..1000 {
        let mut round = Md5::new();
        if i % 2 == 1 {
            round.update(password);
        } else {
            round.update(last);
        }
        if i % 3 != 0 {
            round.update(salt);
        }
        if i % 7 != 0 {
            round.update(password);
        }
        if i % 2 == 1 {
            round.update(last);
        } else {
            round.update(password);
        }
        last = round.finalize();
    }
    let ordered: Vec<u8> = ORDER.iter().map(|&i| last[i]).collect();
    crypt64::encode(&ordered)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Apache's documented `$apr1$` example, and an md5-crypt hash `openssl passwd -1` and
    /// passlib both write (the fixture test covers many more).
    #[test]
    fn matches_known_hashes() {
        assert_eq!(digest(b"U*U*U*U*", b"dXc3I7Rw", "$1$"), "ctlgjDdWJLMT.qwHsWhXR1");
        assert_eq!(digest(b"myPassword", b"r31.....", "$apr1$"), "HqJZimcKQFAMYayBlzkrA/");
    }
}
