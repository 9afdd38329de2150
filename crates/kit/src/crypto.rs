//! Cryptographic building blocks shared by operations: HMAC over the SHA family.

use hmac::{Hmac, KeyInit, Mac};
use sha1::Sha1;
use sha2::{Sha256, Sha512};

/// The hash functions HMAC is offered with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MacHash {
    Sha1,
    Sha256,
    Sha512,
}

/// HMAC (RFC 2104) of `data` under `key`. Keys of any length are valid: longer than a block
/// they are hashed first, shorter ones are padded.
pub fn hmac(hash: MacHash, key: &[u8], data: &[u8]) -> Vec<u8> {
    fn run<M: Mac + KeyInit>(key: &[u8], data: &[u8]) -> Vec<u8> {
        let mut m = <M as KeyInit>::new_from_slice(key).expect("HMAC accepts keys of any length");
        m.update(data);
        m.finalize().into_bytes().to_vec()
    }
    match hash {
        MacHash::Sha1 => run::<Hmac<Sha1>>(key, data),
        MacHash::Sha256 => run::<Hmac<Sha256>>(key, data),
        MacHash::Sha512 => run::<Hmac<Sha512>>(key, data),
    }
}
