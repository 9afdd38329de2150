//! The ciphers and modes themselves: AES (128, 192, 256) in GCM, CBC, CTR, CFB, OFB and ECB,
//! ChaCha20-Poly1305 and XChaCha20-Poly1305 both ways, and for reading old data Triple DES,
//! DES and Blowfish in CBC and ECB, and RC4. All from RustCrypto except RC4, a few lines
//! written from its published description.
//!
//! Callers check key and IV lengths first (`Cipher::key_lengths`, `iv_length`); a failure here
//! to decrypt is one error whatever went wrong (tag, padding), so no answer tells an attacker
//! which.

use aes::cipher::block_padding::{NoPadding, Pkcs7};
use aes::cipher::{BlockModeDecrypt, BlockModeEncrypt, InnerIvInit, KeyInit, KeyIvInit, StreamCipher};
use aes_gcm::aead::AeadInOut;
use aws_lc_rs::aead;

/// A cipher, independent of its mode.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Cipher {
    Aes128,
    Aes192,
    Aes256,
    ChaCha20Poly1305,
    XChaCha20Poly1305,
    TripleDes,
    Des,
    Blowfish,
    Rc4,
}

/// How a block cipher is run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Mode {
    Gcm,
    Cbc,
    Ctr,
    Cfb,
    Ofb,
    Ecb,
    /// The cipher is a stream or an AEAD of its own (ChaCha20-Poly1305, RC4).
    Own,
}

/// Why a decryption gave nothing: always the same, whatever failed.
#[derive(Debug)]
pub(super) struct Failed;

impl Cipher {
    /// The key lengths it takes, in bytes.
    pub(super) fn key_lengths(self) -> (usize, usize) {
        match self {
            Cipher::Aes128 => (16, 16),
            Cipher::Aes192 => (24, 24),
            Cipher::Aes256 | Cipher::ChaCha20Poly1305 | Cipher::XChaCha20Poly1305 => (32, 32),
            // Two-key (16) or three-key (24) Triple DES.
            Cipher::TripleDes => (16, 24),
            Cipher::Des => (8, 8),
            Cipher::Blowfish => (4, 56),
            Cipher::Rc4 => (1, 256),
        }
    }

    /// Its block size in bytes (1 for stream ciphers).
    pub(super) fn block(self) -> usize {
        match self {
            Cipher::Aes128 | Cipher::Aes192 | Cipher::Aes256 => 16,
            Cipher::TripleDes | Cipher::Des | Cipher::Blowfish => 8,
            _ => 1,
        }
    }

    /// Whether it authenticates (GCM or Poly1305).
    pub(super) fn authenticates(self, mode: Mode) -> bool {
        matches!(self, Cipher::ChaCha20Poly1305 | Cipher::XChaCha20Poly1305) || mode == Mode::Gcm
    }

    /// The IV (nonce) length it takes in `mode`; 0 when it takes none.
    pub(super) fn iv_length(self, mode: Mode) -> usize {
        match (self, mode) {
            (Cipher::ChaCha20Poly1305, _) => 12,
            (Cipher::XChaCha20Poly1305, _) => 24,
            (Cipher::Rc4, _) | (_, Mode::Ecb) => 0,
            (_, Mode::Gcm) => 12,
            _ => self.block(),
        }
    }
}

/// Runs `$body` with `$c` bound to the AES type of the key's size.
macro_rules! with_aes {
    ($cipher:expr, $c:ident, $body:expr) => {
        match $cipher {
            Cipher::Aes128 => {
                type $c = aes::Aes128;
                $body
            }
            Cipher::Aes192 => {
                type $c = aes::Aes192;
                $body
            }
            _ => {
                type $c = aes::Aes256;
                $body
            }
        }
    };
}

/// Runs `$body` with `$c` bound to the block cipher (AES of any size, Triple DES, DES,
/// Blowfish).
macro_rules! with_block {
    ($cipher:expr, $key:expr, $c:ident, $body:expr) => {
        match $cipher {
            Cipher::TripleDes if $key.len() == 16 => {
                type $c = des::TdesEde2;
                $body
            }
            Cipher::TripleDes => {
                type $c = des::TdesEde3;
                $body
            }
            Cipher::Des => {
                type $c = des::Des;
                $body
            }
            Cipher::Blowfish => {
                type $c = blowfish::Blowfish;
                $body
            }
            other => with_aes!(other, $c, $body),
        }
    };
}

/// RC4's keystream XORed over `data` (the key scheduling and generation of its published
/// description). Decrypt-only in the API: it is broken.
fn rc4(key: &[u8], data: &mut [u8]) {
    let mut s: [u8; 256] = std::array::from_fn(|i| i as u8);
    let mut j = 0u8;
    for i in 0..256 {
        j = j.wrapping_add(s[i]).wrapping_add(key[i % key.len()]);
        s.swap(i, usize::from(j));
    }
    let (mut i, mut j) = (0u8, 0u8);
    for byte in data {
        i = i.wrapping_add(1);
        j = j.wrapping_add(s[usize::from(i)]);
        s.swap(usize::from(i), usize::from(j));
        *byte ^= s[usize::from(s[usize::from(i)].wrapping_add(s[usize::from(j)]))];
    }
}

/// OFB over an already keyed cipher: the wrapper's own constructor insists on the cipher's
/// largest key, which Blowfish's shorter keys are not.
macro_rules! ofb {
    ($c:ty, $key:expr, $iv:expr) => {
        <$c>::new_from_slice($key)
            .ok()
            .and_then(|cipher| ofb::OfbCore::<$c>::inner_iv_slice_init(cipher, $iv).ok())
            .map(ofb::Ofb::from_core)
    };
}

/// AES-GCM's key on aws-lc-rs, whose assembly (AES-NI, carry-less multiplication) runs at
/// OpenSSL's speed, several times the portable crates'; the other modes stay on RustCrypto.
fn gcm_key(cipher: Cipher, key: &[u8]) -> aead::LessSafeKey {
    let algorithm = match cipher {
        Cipher::Aes128 => &aead::AES_128_GCM,
        Cipher::Aes192 => &aead::AES_192_GCM,
        _ => &aead::AES_256_GCM,
    };
    aead::LessSafeKey::new(aead::UnboundKey::new(algorithm, key).expect("key length checked"))
}

fn gcm_nonce(iv: &[u8]) -> Option<aead::Nonce> {
    aead::Nonce::try_assume_unique_for_key(iv).ok()
}

/// Encrypts `data`; the answer is the ciphertext and, for AEADs, the 16-byte tag apart.
pub(super) fn encrypt(
    cipher: Cipher,
    mode: Mode,
    key: &[u8],
    iv: &[u8],
    aad: &[u8],
    pad: bool,
    data: &[u8],
) -> (Vec<u8>, Option<Vec<u8>>) {
    let mut out = data.to_vec();
    let tag = match (cipher, mode) {
        (Cipher::ChaCha20Poly1305, _) => {
            let c = chacha20poly1305::ChaCha20Poly1305::new_from_slice(key).expect("key length checked");
            let tag =
                c.encrypt_inout_detached(iv.try_into().expect("nonce length checked"), aad, out.as_mut_slice().into());
            Some(tag.expect("the message fits").to_vec())
        }
        (Cipher::XChaCha20Poly1305, _) => {
            let c = chacha20poly1305::XChaCha20Poly1305::new_from_slice(key).expect("key length checked");
            let tag =
                c.encrypt_inout_detached(iv.try_into().expect("nonce length checked"), aad, out.as_mut_slice().into());
            Some(tag.expect("the message fits").to_vec())
        }
        (Cipher::Rc4, _) => {
            rc4(key, &mut out);
            None
        }
        (_, Mode::Gcm) => {
            let tag = gcm_key(cipher, key)
                .seal_in_place_separate_tag(
                    gcm_nonce(iv).expect("nonce length checked"),
                    aead::Aad::from(aad),
                    &mut out,
                )
                .expect("the message fits");
            Some(tag.as_ref().to_vec())
        }
        (_, Mode::Cbc) => {
            out = with_block!(cipher, key, C, {
                let e = cbc::Encryptor::<C>::new_from_slices(key, iv).expect("lengths checked");
                if pad { e.encrypt_padded_vec::<Pkcs7>(data) } else { e.encrypt_padded_vec::<NoPadding>(data) }
            });
            None
        }
        (_, Mode::Ecb) => {
            out = with_block!(cipher, key, C, {
                let e = ecb::Encryptor::<C>::new_from_slice(key).expect("key length checked");
                if pad { e.encrypt_padded_vec::<Pkcs7>(data) } else { e.encrypt_padded_vec::<NoPadding>(data) }
            });
            None
        }
        (_, Mode::Ctr) => {
            with_aes!(
                cipher,
                C,
                ctr::Ctr128BE::<C>::new_from_slices(key, iv).expect("lengths checked").apply_keystream(&mut out)
            );
            None
        }
        (_, Mode::Ofb) => {
            with_block!(cipher, key, C, ofb!(C, key, iv).expect("lengths checked").apply_keystream(&mut out));
            None
        }
        (_, Mode::Cfb) => {
            with_block!(
                cipher,
                key,
                C,
                cfb_mode::Encryptor::<C>::new_from_slices(key, iv).expect("lengths checked").encrypt(&mut out)
            );
            None
        }
        (_, Mode::Own) => unreachable!("block ciphers always have a mode"),
    };
    (out, tag)
}

/// Decrypts `data`; `tag` is the AEAD's tag. Any failure is [`Failed`], the same for all.
#[allow(clippy::too_many_arguments)]
pub(super) fn decrypt(
    cipher: Cipher,
    mode: Mode,
    key: &[u8],
    iv: &[u8],
    aad: &[u8],
    tag: &[u8],
    pad: bool,
    data: &[u8],
) -> Result<Vec<u8>, Failed> {
    let mut out = data.to_vec();
    match (cipher, mode) {
        (Cipher::ChaCha20Poly1305, _) => {
            let c = chacha20poly1305::ChaCha20Poly1305::new_from_slice(key).map_err(|_| Failed)?;
            let tag = tag.try_into().map_err(|_| Failed)?;
            c.decrypt_inout_detached(iv.try_into().map_err(|_| Failed)?, aad, out.as_mut_slice().into(), tag)
                .map_err(|_| Failed)?;
        }
        (Cipher::XChaCha20Poly1305, _) => {
            let c = chacha20poly1305::XChaCha20Poly1305::new_from_slice(key).map_err(|_| Failed)?;
            let tag = tag.try_into().map_err(|_| Failed)?;
            c.decrypt_inout_detached(iv.try_into().map_err(|_| Failed)?, aad, out.as_mut_slice().into(), tag)
                .map_err(|_| Failed)?;
        }
        (Cipher::Rc4, _) => rc4(key, &mut out),
        (_, Mode::Gcm) => {
            if tag.len() != 16 {
                return Err(Failed);
            }
            gcm_key(cipher, key)
                .open_in_place_separate_tag(gcm_nonce(iv).ok_or(Failed)?, aead::Aad::from(aad), tag, &mut out)
                .map_err(|_| Failed)?;
        }
        (_, Mode::Cbc) => {
            out = with_block!(cipher, key, C, {
                let d = cbc::Decryptor::<C>::new_from_slices(key, iv).map_err(|_| Failed)?;
                if pad { d.decrypt_padded_vec::<Pkcs7>(data) } else { d.decrypt_padded_vec::<NoPadding>(data) }
            })
            .map_err(|_| Failed)?;
        }
        (_, Mode::Ecb) => {
            out = with_block!(cipher, key, C, {
                let d = ecb::Decryptor::<C>::new_from_slice(key).map_err(|_| Failed)?;
                if pad { d.decrypt_padded_vec::<Pkcs7>(data) } else { d.decrypt_padded_vec::<NoPadding>(data) }
            })
            .map_err(|_| Failed)?;
        }
        (_, Mode::Ctr) => {
            with_aes!(
                cipher,
                C,
                ctr::Ctr128BE::<C>::new_from_slices(key, iv).map_err(|_| Failed)?.apply_keystream(&mut out)
            );
        }
        (_, Mode::Ofb) => {
            with_block!(cipher, key, C, ofb!(C, key, iv).ok_or(Failed)?.apply_keystream(&mut out));
        }
        (_, Mode::Cfb) => {
            with_block!(
                cipher,
                key,
                C,
                cfb_mode::Decryptor::<C>::new_from_slices(key, iv).map_err(|_| Failed)?.decrypt(&mut out)
            );
        }
        (_, Mode::Own) => return Err(Failed),
    }
    Ok(out)
}
