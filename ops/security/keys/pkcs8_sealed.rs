//! Encrypted PKCS#8 (`ENCRYPTED PRIVATE KEY`, RFC 5958 section 3) with PBES2 (RFC 8018 section
//! 6.2): PBKDF2 and AES-CBC, what `openssl pkcs8 -topk8 -v2 aes-256-cbc` and PyPI
//! cryptography write.
//!
//! wrench writes PBKDF2-HMAC-SHA256 at [`WRITE_ITERATIONS`] (OWASP's 2023 figure for PBKDF2
//! with SHA-256), a 16-byte salt and AES-256-CBC. It reads any HMAC-SHA PRF and AES key size, at
//! most [`MAX_ITERATIONS`] iterations, the cap the password operations use; scrypt and the old
//! PBES1 schemes are named and refused. A wrong passphrase and a damaged key are one error.

use aes::cipher::block_padding::Pkcs7;
use aes::cipher::{BlockModeDecrypt, BlockModeEncrypt, KeyIvInit};
use yasna::models::ObjectIdentifier;

/// PBKDF2 iterations of the keys wrench encrypts.
pub(crate) const WRITE_ITERATIONS: u32 = 600_000;
/// Most PBKDF2 iterations of a key wrench decrypts.
pub(crate) const MAX_ITERATIONS: u64 = 2_000_000;

const PBES2: &[u64] = &[1, 2, 840, 113549, 1, 5, 13];
const PBKDF2: &[u64] = &[1, 2, 840, 113549, 1, 5, 12];
const SCRYPT: &[u64] = &[1, 3, 6, 1, 4, 1, 11591, 4, 11];
const HMAC_SHA1: &[u64] = &[1, 2, 840, 113549, 2, 7];
const HMAC_SHA256: &[u64] = &[1, 2, 840, 113549, 2, 9];
const HMAC_SHA384: &[u64] = &[1, 2, 840, 113549, 2, 10];
const HMAC_SHA512: &[u64] = &[1, 2, 840, 113549, 2, 11];
const AES128_CBC: &[u64] = &[2, 16, 840, 1, 101, 3, 4, 1, 2];
const AES192_CBC: &[u64] = &[2, 16, 840, 1, 101, 3, 4, 1, 22];
const AES256_CBC: &[u64] = &[2, 16, 840, 1, 101, 3, 4, 1, 42];

fn oid(arcs: &[u64]) -> ObjectIdentifier {
    ObjectIdentifier::from_slice(arcs)
}

/// Bytes sealed under a passphrase: the PBES2 AlgorithmIdentifier (DER) and the ciphertext.
pub(crate) struct SealedBytes {
    pub(crate) algorithm: Vec<u8>,
    pub(crate) data: Vec<u8>,
}

/// `plain` sealed under `passphrase` with PBES2 (PBKDF2-HMAC-SHA256, AES-256-CBC): what an
/// encrypted PKCS#8 key and a PKCS#12 bag hold.
pub(crate) fn seal_bytes(plain: &[u8], passphrase: &[u8]) -> SealedBytes {
    let mut salt = [0u8; 16];
    let mut iv = [0u8; 16];
    getrandom::fill(&mut salt).expect("the system's random source works");
    getrandom::fill(&mut iv).expect("the system's random source works");
    let mut key = [0u8; 32];
    pbkdf2::pbkdf2_hmac::<sha2::Sha256>(passphrase, &salt, WRITE_ITERATIONS, &mut key);
    let data = cbc::Encryptor::<aes::Aes256>::new_from_slices(&key, &iv)
        .expect("32-byte key, 16-byte IV")
        .encrypt_padded_vec::<Pkcs7>(plain);
    let algorithm = yasna::construct_der(|w| {
        w.write_sequence(|w| {
            w.next().write_oid(&oid(PBES2));
            w.next().write_sequence(|w| {
                w.next().write_sequence(|w| {
                    w.next().write_oid(&oid(PBKDF2));
                    w.next().write_sequence(|w| {
                        w.next().write_bytes(&salt);
                        w.next().write_u32(WRITE_ITERATIONS);
                        w.next().write_sequence(|w| {
                            w.next().write_oid(&oid(HMAC_SHA256));
                            w.next().write_null();
                        });
                    });
                });
                w.next().write_sequence(|w| {
                    w.next().write_oid(&oid(AES256_CBC));
                    w.next().write_bytes(&iv);
                });
            });
        })
    });
    SealedBytes { algorithm, data }
}

/// `pkcs8` (DER) sealed under `passphrase`: an EncryptedPrivateKeyInfo.
pub(crate) fn seal(pkcs8: &[u8], passphrase: &[u8]) -> Vec<u8> {
    let sealed = seal_bytes(pkcs8, passphrase);
    yasna::construct_der(|w| {
        w.write_sequence(|w| {
            w.next().write_der(&sealed.algorithm);
            w.next().write_bytes(&sealed.data);
        })
    })
}

/// The parameters of PBES2 with PBKDF2.
struct Sealed {
    kdf: Vec<u64>,
    salt: Vec<u8>,
    iterations: u64,
    prf: Vec<u64>,
    cipher: Vec<u64>,
    iv: Vec<u8>,
}

/// The scheme of an AlgorithmIdentifier (DER) and, for PBES2, its parameters.
fn parse_algorithm(algorithm: &[u8]) -> yasna::ASN1Result<(Vec<u64>, Option<Sealed>)> {
    yasna::parse_der(algorithm, |r| {
        r.read_sequence(|r| {
            let scheme = r.next().read_oid()?.components().clone();
            if scheme != PBES2 {
                while r.read_optional(|r| r.read_der())?.is_some() {}
                return Ok((scheme, None));
            }
            let sealed = r.next().read_sequence(|r| {
                let (kdf, salt, iterations, prf) = r.next().read_sequence(|r| {
                    let kdf = r.next().read_oid()?.components().clone();
                    if kdf != PBKDF2 {
                        while r.read_optional(|r| r.read_der())?.is_some() {}
                        return Ok((kdf, Vec::new(), 0, Vec::new()));
                    }
                    let (salt, iterations, prf) = r.next().read_sequence(|r| {
                        let salt = r.next().read_bytes()?;
                        let iterations = r.next().read_u64()?;
                        let _key_length = r.read_optional(|r| r.read_u64())?;
                        let prf = r
                            .read_optional(|r| {
                                r.read_sequence(|r| {
                                    let prf = r.next().read_oid()?.components().clone();
                                    while r.read_optional(|r| r.read_der())?.is_some() {}
                                    Ok(prf)
                                })
                            })?
                            .unwrap_or_else(|| HMAC_SHA1.to_vec());
                        Ok((salt, iterations, prf))
                    })?;
                    Ok((kdf, salt, iterations, prf))
                })?;
                let (cipher, iv) = r.next().read_sequence(|r| {
                    let cipher = r.next().read_oid()?.components().clone();
                    let iv = r.read_optional(|r| r.read_bytes())?.unwrap_or_default();
                    while r.read_optional(|r| r.read_der())?.is_some() {}
                    Ok((cipher, iv))
                })?;
                Ok(Sealed { kdf, salt, iterations, prf, cipher, iv })
            })?;
            Ok((scheme, Some(sealed)))
        })
    })
}

/// The PKCS#8 DER inside a sealed key.
pub(crate) fn open(der: &[u8], passphrase: &[u8]) -> Result<Vec<u8>, String> {
    let (algorithm, data) =
        yasna::parse_der(der, |r| r.read_sequence(|r| Ok((r.next().read_der()?, r.next().read_bytes()?))))
            .map_err(|e| format!("is not a DER encrypted PKCS#8 key: {e}"))?;
    open_bytes(&algorithm, &data, passphrase)
}

/// `data` opened under the PBES2 AlgorithmIdentifier `algorithm` (DER).
pub(crate) fn open_bytes(algorithm: &[u8], data: &[u8], passphrase: &[u8]) -> Result<Vec<u8>, String> {
    let (scheme, sealed) =
        parse_algorithm(algorithm).map_err(|e| format!("names an encryption that does not parse: {e}"))?;
    let Some(s) = sealed else {
        return Err(format!(
            "is encrypted with the PBES1 scheme {} (DES or RC2 era), which wrench does not decrypt; re-encrypt it with `openssl pkcs8 -topk8 -v2 aes-256-cbc`",
            scheme.iter().map(u64::to_string).collect::<Vec<_>>().join(".")
        ));
    };
    if s.kdf == SCRYPT {
        return Err("is encrypted with scrypt, which wrench does not decrypt yet; re-encrypt it with PBKDF2 (`openssl pkcs8 -topk8 -v2 aes-256-cbc`)".into());
    }
    if s.kdf != PBKDF2 {
        return Err("is encrypted with a key derivation other than PBKDF2".into());
    }
    if s.iterations > MAX_ITERATIONS {
        return Err(format!("asks for {} PBKDF2 iterations; wrench decrypts at most {MAX_ITERATIONS}", s.iterations));
    }
    let key_len = match s.cipher.as_slice() {
        AES128_CBC => 16,
        AES192_CBC => 24,
        AES256_CBC => 32,
        _ => return Err("is encrypted with a cipher other than AES-CBC, which wrench does not decrypt".into()),
    };
    let mut key = vec![0u8; key_len];
    let n = s.iterations as u32;
    match s.prf.as_slice() {
        HMAC_SHA1 => pbkdf2::pbkdf2_hmac::<sha1::Sha1>(passphrase, &s.salt, n, &mut key),
        HMAC_SHA256 => pbkdf2::pbkdf2_hmac::<sha2::Sha256>(passphrase, &s.salt, n, &mut key),
        HMAC_SHA384 => pbkdf2::pbkdf2_hmac::<sha2::Sha384>(passphrase, &s.salt, n, &mut key),
        HMAC_SHA512 => pbkdf2::pbkdf2_hmac::<sha2::Sha512>(passphrase, &s.salt, n, &mut key),
        _ => return Err("names a PBKDF2 hash wrench does not use".into()),
    }
    let wrong = || "cannot be decrypted: the passphrase is wrong or the key is damaged".to_string();
    if s.iv.len() != 16 {
        return Err(wrong());
    }
    let plain = match key_len {
        16 => cbc::Decryptor::<aes::Aes128>::new_from_slices(&key, &s.iv)
            .map_err(|_| wrong())?
            .decrypt_padded_vec::<Pkcs7>(data),
        24 => cbc::Decryptor::<aes::Aes192>::new_from_slices(&key, &s.iv)
            .map_err(|_| wrong())?
            .decrypt_padded_vec::<Pkcs7>(data),
        _ => cbc::Decryptor::<aes::Aes256>::new_from_slices(&key, &s.iv)
            .map_err(|_| wrong())?
            .decrypt_padded_vec::<Pkcs7>(data),
    }
    .map_err(|_| wrong())?;
    // A wrong passphrase passes the padding check one time in about 256: what was sealed (a
    // PKCS#8 key, a PKCS#12 bag) is a DER sequence, so anything else is the wrong passphrase.
    if plain.first() != Some(&0x30) {
        return Err(wrong());
    }
    Ok(plain)
}
