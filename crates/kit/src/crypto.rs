//! Cryptographic building blocks shared by operations: HMAC over MD5, SHA-1, SHA-2 and SHA-3.

use hmac::{Hmac, KeyInit, Mac};
use md5::Md5;
use sha1::Sha1;
use sha2::{Sha224, Sha256, Sha384, Sha512};
use sha3::{Sha3_224, Sha3_256, Sha3_384, Sha3_512};

/// The hash functions HMAC is offered with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MacHash {
    Md5,
    Sha1,
    Sha224,
    Sha256,
    Sha384,
    Sha512,
    Sha3_224,
    Sha3_256,
    Sha3_384,
    Sha3_512,
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
        MacHash::Md5 => run::<Hmac<Md5>>(key, data),
        MacHash::Sha1 => run::<Hmac<Sha1>>(key, data),
        MacHash::Sha224 => run::<Hmac<Sha224>>(key, data),
        MacHash::Sha256 => run::<Hmac<Sha256>>(key, data),
        MacHash::Sha384 => run::<Hmac<Sha384>>(key, data),
        MacHash::Sha512 => run::<Hmac<Sha512>>(key, data),
        MacHash::Sha3_224 => run::<Hmac<Sha3_224>>(key, data),
        MacHash::Sha3_256 => run::<Hmac<Sha3_256>>(key, data),
        MacHash::Sha3_384 => run::<Hmac<Sha3_384>>(key, data),
        MacHash::Sha3_512 => run::<Hmac<Sha3_512>>(key, data),
    }
}

/// The digest of `data` with one of the hashes HMAC is offered with.
pub fn digest(hash: MacHash, data: &[u8]) -> Vec<u8> {
    use sha2::Digest;
    match hash {
        MacHash::Md5 => Md5::digest(data).to_vec(),
        MacHash::Sha1 => Sha1::digest(data).to_vec(),
        MacHash::Sha224 => Sha224::digest(data).to_vec(),
        MacHash::Sha256 => Sha256::digest(data).to_vec(),
        MacHash::Sha384 => Sha384::digest(data).to_vec(),
        MacHash::Sha512 => Sha512::digest(data).to_vec(),
        MacHash::Sha3_224 => Sha3_224::digest(data).to_vec(),
        MacHash::Sha3_256 => Sha3_256::digest(data).to_vec(),
        MacHash::Sha3_384 => Sha3_384::digest(data).to_vec(),
        MacHash::Sha3_512 => Sha3_512::digest(data).to_vec(),
    }
}

/// OpenSSL's EVP_BytesToKey, with which `openssl enc -pass` (without `-pbkdf2`) and crypto-js
/// turn a passphrase into a key and an IV: D1 = H^count(secret | salt), then
/// Di = H^count(D(i-1) | secret | salt), concatenated and cut to `n` bytes (OpenSSL documents
/// it with the function). Not a sound password hash: one round of a fast hash by default.
pub fn evp_bytes_to_key(hash: MacHash, secret: &[u8], salt: &[u8], count: u32, n: usize) -> Vec<u8> {
    let mut out = Vec::with_capacity(n + 64);
    let mut previous: Vec<u8> = Vec::new();
    while out.len() < n {
        let mut d = digest(hash, &[&previous[..], secret, salt].concat());
        for _ in 1..count {
            d = digest(hash, &d);
        }
        out.extend_from_slice(&d);
        previous = d;
    }
    out.truncate(n);
    out
}
