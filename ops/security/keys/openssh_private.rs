//! OpenSSH private keys (`OPENSSH PRIVATE KEY`, the `openssh-key-v1` format of OpenSSH's
//! PROTOCOL.key): RSA, ECDSA on the NIST curves and Ed25519, in the clear or sealed with
//! bcrypt_pbkdf and AES-256-CTR as `ssh-keygen` seals them.
//!
//! wrench writes [`WRITE_ROUNDS`] bcrypt_pbkdf rounds (ssh-keygen's default) and reads up to
//! [`MAX_ROUNDS`]; the AEAD ciphers (`aes256-gcm@openssh.com`, `chacha20-poly1305@openssh.com`)
//! are named and refused. The two check numbers before the key are what tells a wrong
//! passphrase; it is one error with a damaged key.

use aes::cipher::{KeyIvInit, StreamCipher};
use base64::{Engine, engine::general_purpose::STANDARD};

use super::model::{Curve, Key, RsaPrivate, uncompressed_point, unsigned};
use super::ssh::{self, Wire, put, put_mpint};

const MAGIC: &[u8] = b"openssh-key-v1\0";
/// bcrypt_pbkdf rounds of the keys wrench seals (ssh-keygen's default).
pub(crate) const WRITE_ROUNDS: u32 = 16;
/// Most rounds of a key wrench opens: each round is a full bcrypt_pbkdf pass.
pub(crate) const MAX_ROUNDS: u32 = 512;

/// The private fields of `key` after its type name, as PROTOCOL.key lists them.
fn private_fields(key: &Key, out: &mut Vec<u8>) -> Result<(), String> {
    match key {
        Key::Rsa { n, e, private: Some(p) } => {
            put(out, b"ssh-rsa");
            for v in [n, e, &p.d, &p.qi, &p.p, &p.q] {
                put_mpint(out, v);
            }
        }
        Key::Ec { curve, x, y, d: Some(d) } => {
            let name = curve.ssh_name().ok_or("OpenSSH has no form for secp256k1 keys")?;
            put(out, format!("ecdsa-sha2-{name}").as_bytes());
            put(out, name.as_bytes());
            put(out, &uncompressed_point(x, y));
            put_mpint(out, d);
        }
        Key::Ed25519 { x, d: Some(d) } => {
            put(out, b"ssh-ed25519");
            put(out, x);
            put(out, &[d.as_slice(), x.as_slice()].concat());
        }
        Key::X25519 { .. } => return Err("OpenSSH has no form for X25519 keys".into()),
        _ => return Err("an OpenSSH private key needs a private key".into()),
    }
    Ok(())
}

fn kdf_key(passphrase: &[u8], salt: &[u8], rounds: u32) -> Result<[u8; 48], String> {
    let mut out = [0u8; 48];
    bcrypt_pbkdf::bcrypt_pbkdf(passphrase, salt, rounds, &mut out)
        .map_err(|_| "the passphrase is empty".to_string())?;
    Ok(out)
}

fn ctr(key_iv: &[u8; 48], data: &mut [u8]) {
    ctr::Ctr128BE::<aes::Aes256>::new_from_slices(&key_iv[..32], &key_iv[32..])
        .expect("32-byte key, 16-byte counter")
        .apply_keystream(data);
}

/// The armoured key, sealed when a passphrase is given.
pub(crate) fn write(key: &Key, comment: &str, passphrase: Option<&[u8]>) -> Result<String, String> {
    let (_, public) = ssh::blob(key).ok_or("OpenSSH has no form for this key")?;
    let mut check = [0u8; 4];
    getrandom::fill(&mut check).expect("the system's random source works");
    let mut section = Vec::new();
    section.extend_from_slice(&check);
    section.extend_from_slice(&check);
    private_fields(key, &mut section)?;
    put(&mut section, comment.as_bytes());
    let block = if passphrase.is_some() { 16 } else { 8 };
    let mut pad = 1u8;
    while section.len() % block != 0 {
        section.push(pad);
        pad += 1;
    }
    let mut out = MAGIC.to_vec();
    match passphrase {
        None => {
            put(&mut out, b"none");
            put(&mut out, b"none");
            put(&mut out, b"");
        }
        Some(p) => {
            let mut salt = [0u8; 16];
            getrandom::fill(&mut salt).expect("the system's random source works");
            let key_iv = kdf_key(p, &salt, WRITE_ROUNDS)?;
            ctr(&key_iv, &mut section);
            put(&mut out, b"aes256-ctr");
            put(&mut out, b"bcrypt");
            let mut options = Vec::new();
            put(&mut options, &salt);
            options.extend_from_slice(&WRITE_ROUNDS.to_be_bytes());
            put(&mut out, &options);
        }
    }
    out.extend_from_slice(&1u32.to_be_bytes());
    put(&mut out, &public);
    put(&mut out, &section);
    // ssh-keygen wraps at 70 characters.
    let b64 = STANDARD.encode(out);
    let mut text = String::from("-----BEGIN OPENSSH PRIVATE KEY-----\n");
    for line in b64.as_bytes().chunks(70) {
        text.push_str(std::str::from_utf8(line).unwrap_or_default());
        text.push('\n');
    }
    text.push_str("-----END OPENSSH PRIVATE KEY-----\n");
    Ok(text)
}

/// The key of an `openssh-key-v1` blob (the DER of its armour) and its comment.
pub(crate) fn read(blob: &[u8], passphrase: Option<&[u8]>) -> Result<(Key, String), String> {
    let mut r = Wire(blob.strip_prefix(MAGIC).ok_or("is not an openssh-key-v1 private key")?);
    let cipher = r.string()?.to_vec();
    let kdf = r.string()?.to_vec();
    let options = r.string()?.to_vec();
    if r.u32()? != 1 {
        return Err("holds more than one key".into());
    }
    let _public = r.string()?;
    let mut section = r.string()?.to_vec();
    match (cipher.as_slice(), kdf.as_slice()) {
        (b"none", b"none") => {}
        (b"aes256-ctr", b"bcrypt") => {
            let passphrase = passphrase.ok_or("is encrypted: give its passphrase")?;
            let mut o = Wire(&options);
            let salt = o.string()?.to_vec();
            let rounds = o.u32()?;
            if rounds > MAX_ROUNDS {
                return Err(format!(
                    "asks for {rounds} bcrypt_pbkdf rounds; wrench opens keys of at most {MAX_ROUNDS}"
                ));
            }
            ctr(&kdf_key(passphrase, &salt, rounds)?, &mut section);
        }
        (c, _) => {
            return Err(format!(
                "is encrypted with {}, which wrench does not open; re-encrypt it with `ssh-keygen -p -Z aes256-ctr`",
                String::from_utf8_lossy(c)
            ));
        }
    }
    let wrong = || "cannot be decrypted: the passphrase is wrong or the key is damaged".to_string();
    let mut s = Wire(&section);
    if s.u32().map_err(|_| wrong())? != s.u32().map_err(|_| wrong())? {
        return Err(wrong());
    }
    let kind = s.string()?.to_vec();
    let key = match kind.as_slice() {
        b"ssh-ed25519" => {
            let _x = s.string()?;
            let both = s.string()?;
            if both.len() != 64 {
                return Err("the Ed25519 private key is not 64 bytes".into());
            }
            let key = super::der::ed25519_from_seed(&both[..32])?;
            if let Key::Ed25519 { x, .. } = &key
                && x.as_slice() != &both[32..]
            {
                return Err("the Ed25519 public key stored is not the private key's".into());
            }
            key
        }
        b"ssh-rsa" => {
            let n = unsigned(s.string()?);
            let e = unsigned(s.string()?);
            let d = unsigned(s.string()?);
            let qi = unsigned(s.string()?);
            let p = unsigned(s.string()?);
            let q = unsigned(s.string()?);
            let (dp, dq) = crt_exponents(&d, &p, &q);
            Key::Rsa { n, e, private: Some(Box::new(RsaPrivate { d, p, q, dp, dq, qi })) }
        }
        name if name.starts_with(b"ecdsa-sha2-") => {
            let curve_name = String::from_utf8_lossy(s.string()?).into_owned();
            let curve = Curve::ALL
                .into_iter()
                .find(|c| c.ssh_name() == Some(curve_name.as_str()))
                .ok_or_else(|| format!("the curve {curve_name} is not one wrench reads"))?;
            let point = s.string()?.to_vec();
            let d = unsigned(s.string()?);
            let mut full = vec![0u8; curve.field_len().saturating_sub(d.len())];
            full.extend_from_slice(&d);
            let key = super::der::ec_from_scalar(curve, &full)?;
            if let Key::Ec { x, y, .. } = &key
                && point.get(1..) != Some([x.as_slice(), y.as_slice()].concat().as_slice())
            {
                return Err("the ECDSA public point stored is not the private key's".into());
            }
            key
        }
        other => return Err(format!("holds a {} key, which wrench does not read", String::from_utf8_lossy(other))),
    };
    let comment = String::from_utf8_lossy(s.string()?).into_owned();
    Ok((key, comment))
}

/// `d mod (p-1)` and `d mod (q-1)`, which OpenSSH does not store.
fn crt_exponents(d: &[u8], p: &[u8], q: &[u8]) -> (Vec<u8>, Vec<u8>) {
    (big::rem(d, &big::minus_one(p)), big::rem(d, &big::minus_one(q)))
}

/// The little big-number arithmetic the CRT exponents need: subtracting one and a remainder,
/// on big-endian bytes, by shift and subtract (a few thousand bits, once per key read).
mod big {
    pub(super) fn minus_one(v: &[u8]) -> Vec<u8> {
        let mut out = v.to_vec();
        for b in out.iter_mut().rev() {
            if *b == 0 {
                *b = 0xff;
            } else {
                *b -= 1;
                break;
            }
        }
        out
    }

    fn ge(a: &[u8], b: &[u8]) -> bool {
        let a = super::unsigned(a);
        let b = super::unsigned(b);
        if a.len() != b.len() {
            return a.len() > b.len();
        }
        a >= b
    }

    fn sub(a: &mut Vec<u8>, b: &[u8]) {
        let mut borrow = 0i16;
        let offset = a.len() - b.len().min(a.len());
        for i in (0..a.len()).rev() {
            let bi = if i >= offset { i16::from(b[i - offset]) } else { 0 };
            let mut v = i16::from(a[i]) - bi - borrow;
            borrow = 0;
            if v < 0 {
                v += 256;
                borrow = 1;
            }
            a[i] = v as u8;
        }
        *a = super::unsigned(a);
    }

    /// `a mod m`, bit by bit from the top.
    pub(super) fn rem(a: &[u8], m: &[u8]) -> Vec<u8> {
        let m = super::unsigned(m);
        let mut r: Vec<u8> = vec![0];
        for byte in a {
            for bit in (0..8).rev() {
                // r = r * 2 + bit
                let mut carry = (byte >> bit) & 1;
                for x in r.iter_mut().rev() {
                    let next = *x >> 7;
                    *x = (*x << 1) | carry;
                    carry = next;
                }
                if carry == 1 {
                    r.insert(0, 1);
                }
                if ge(&r, &m) {
                    let len = r.len().max(m.len());
                    let mut padded = vec![0; len - r.len()];
                    padded.extend_from_slice(&r);
                    r = padded;
                    sub(&mut r, &m);
                }
            }
        }
        super::unsigned(&r)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn remainders_are_right() {
        assert_eq!(big::rem(&[0x01, 0x00], &[0x07]), vec![(256 % 7) as u8]);
        assert_eq!(big::rem(&[0xff, 0xff, 0xff], &[0x01, 0x00, 0x01]), {
            let v = 0xffffffu32 % 0x10001;
            unsigned(&v.to_be_bytes())
        });
        assert_eq!(big::minus_one(&[1, 0, 0]), vec![0, 0xff, 0xff]);
    }
}
