//! PKCS#12 (RFC 7292): certificates and a private key in one password-protected file (`.p12`,
//! `.pfx`).
//!
//! wrench writes what OpenSSL 3 writes by default: the certificates in an encrypted bag and the
//! key in a shrouded bag, both PBES2 (PBKDF2-HMAC-SHA256, AES-256-CBC), and an HMAC-SHA256
//! integrity MAC keyed by the PKCS#12 key derivation (RFC 7292 appendix B). It reads that, the
//! same with other PBES2 choices, and the older files whose bags use
//! pbeWithSHAAnd3-KeyTripleDES-CBC; bags under RC2 (OpenSSL's `-legacy` certificates, old
//! Windows exports) are named and refused. The MAC is checked before anything is decrypted, so
//! a wrong password is one error.

use aes::cipher::block_padding::Pkcs7;
use aes::cipher::{BlockModeDecrypt, KeyIvInit};
use sha2::Digest;
use yasna::{Tag, models::ObjectIdentifier};

use wrench_kit::crypto::{self, MacHash};

use crate::security::keys::pkcs8_sealed;

/// Iterations of the MAC key derivation wrench writes (OpenSSL 3's default).
const MAC_ITERATIONS: u32 = 2048;
/// Most iterations of a MAC or legacy key derivation wrench follows.
const MAX_ITERATIONS: u64 = 2_000_000;

const DATA: &[u64] = &[1, 2, 840, 113549, 1, 7, 1];
const ENCRYPTED_DATA: &[u64] = &[1, 2, 840, 113549, 1, 7, 6];
const KEY_BAG: &[u64] = &[1, 2, 840, 113549, 1, 12, 10, 1, 1];
const SHROUDED_KEY_BAG: &[u64] = &[1, 2, 840, 113549, 1, 12, 10, 1, 2];
const CERT_BAG: &[u64] = &[1, 2, 840, 113549, 1, 12, 10, 1, 3];
const X509_CERT: &[u64] = &[1, 2, 840, 113549, 1, 9, 22, 1];
const LOCAL_KEY_ID: &[u64] = &[1, 2, 840, 113549, 1, 9, 21];
const SHA1: &[u64] = &[1, 3, 14, 3, 2, 26];
const SHA256: &[u64] = &[2, 16, 840, 1, 101, 3, 4, 2, 1];
const PBE_SHA1_3DES: &[u64] = &[1, 2, 840, 113549, 1, 12, 1, 3];
const PBE_SHA1_RC2_40: &[u64] = &[1, 2, 840, 113549, 1, 12, 1, 6];
const PBE_SHA1_RC2_128: &[u64] = &[1, 2, 840, 113549, 1, 12, 1, 5];
const PBES2: &[u64] = &[1, 2, 840, 113549, 1, 5, 13];

fn oid(arcs: &[u64]) -> ObjectIdentifier {
    ObjectIdentifier::from_slice(arcs)
}

/// The password as PKCS#12's legacy derivation takes it: BMPString (UTF-16BE) with a
/// terminating zero (RFC 7292 appendix B.1); nothing at all for no password.
fn bmp(password: &str) -> Vec<u8> {
    if password.is_empty() {
        return Vec::new();
    }
    let mut out: Vec<u8> = password.encode_utf16().flat_map(u16::to_be_bytes).collect();
    out.extend_from_slice(&[0, 0]);
    out
}

/// Output and block sizes (u and v) of the digests PKCS#12's derivation uses.
fn sizes(hash: MacHash) -> (usize, usize) {
    match hash {
        MacHash::Sha1 => (20, 64),
        _ => (32, 64),
    }
}

/// RFC 7292 appendix B.2: `n` bytes of key material of purpose `id` (1 key, 2 IV, 3 MAC key).
fn kdf(hash: MacHash, password: &[u8], salt: &[u8], id: u8, iterations: u64, n: usize) -> Vec<u8> {
    let (u, v) = sizes(hash);
    let fill = |src: &[u8]| -> Vec<u8> {
        if src.is_empty() {
            return Vec::new();
        }
        let len = v * src.len().div_ceil(v);
        src.iter().copied().cycle().take(len).collect()
    };
    let d = vec![id; v];
    let mut i = [fill(salt), fill(password)].concat();
    let mut out = Vec::with_capacity(n + u);
    while out.len() < n {
        let mut a = crypto::digest(hash, &[d.as_slice(), &i].concat());
        for _ in 1..iterations {
            a = crypto::digest(hash, &a);
        }
        let b: Vec<u8> = a.iter().copied().cycle().take(v).collect();
        for block in i.chunks_mut(v) {
            // block = (block + b + 1) mod 2^(8v)
            let mut carry = 1u16;
            for k in (0..v).rev() {
                let sum = u16::from(block[k]) + u16::from(b[k]) + carry;
                block[k] = sum as u8;
                carry = sum >> 8;
            }
        }
        out.extend_from_slice(&a);
    }
    out.truncate(n);
    out
}

fn random<const N: usize>() -> [u8; N] {
    let mut out = [0u8; N];
    getrandom::fill(&mut out).expect("the system's random source works");
    out
}

/// A PFX of `certificates` (DER, the first being the key's) and an optional PKCS#8 `key`.
pub(crate) fn write(certificates: &[Vec<u8>], key: Option<&[u8]>, password: &str) -> Vec<u8> {
    let key_id = certificates.first().map(|c| sha1::Sha1::digest(c).to_vec()).unwrap_or_default();
    let local_key_id = |w: &mut yasna::DERWriterSeq, first: bool| {
        if first && key.is_some() {
            w.next().write_set(|w| {
                w.next().write_sequence(|w| {
                    w.next().write_oid(&oid(LOCAL_KEY_ID));
                    w.next().write_set(|w| w.next().write_bytes(&key_id));
                })
            });
        }
    };
    let cert_bags = yasna::construct_der(|w| {
        w.write_sequence(|w| {
            for (i, c) in certificates.iter().enumerate() {
                w.next().write_sequence(|w| {
                    w.next().write_oid(&oid(CERT_BAG));
                    w.next().write_tagged(Tag::context(0), |w| {
                        w.write_sequence(|w| {
                            w.next().write_oid(&oid(X509_CERT));
                            w.next().write_tagged(Tag::context(0), |w| w.write_bytes(c));
                        })
                    });
                    local_key_id(w, i == 0);
                });
            }
        })
    });
    // The certificates' bag, sealed as a PKCS#8 would be: the same PBES2 parameters.
    let sealed = pkcs8_sealed::seal_bytes(&cert_bags, password.as_bytes());
    let mut safes: Vec<Vec<u8>> = vec![yasna::construct_der(|w| {
        w.write_sequence(|w| {
            w.next().write_oid(&oid(ENCRYPTED_DATA));
            w.next().write_tagged(Tag::context(0), |w| {
                w.write_sequence(|w| {
                    w.next().write_u8(0);
                    w.next().write_sequence(|w| {
                        w.next().write_oid(&oid(DATA));
                        w.next().write_der(&sealed.algorithm);
                        w.next().write_tagged_implicit(Tag::context(0), |w| w.write_bytes(&sealed.data));
                    });
                })
            });
        })
    })];
    if let Some(pkcs8) = key {
        let shrouded = pkcs8_sealed::seal(pkcs8, password.as_bytes());
        let key_bags = yasna::construct_der(|w| {
            w.write_sequence(|w| {
                w.next().write_sequence(|w| {
                    w.next().write_oid(&oid(SHROUDED_KEY_BAG));
                    w.next().write_tagged(Tag::context(0), |w| w.write_der(&shrouded));
                    local_key_id(w, true);
                })
            })
        });
        safes.push(yasna::construct_der(|w| {
            w.write_sequence(|w| {
                w.next().write_oid(&oid(DATA));
                w.next().write_tagged(Tag::context(0), |w| w.write_bytes(&key_bags));
            })
        }));
    }
    let auth_safe = yasna::construct_der(|w| {
        w.write_sequence(|w| {
            for s in &safes {
                w.next().write_der(s);
            }
        })
    });
    let salt: [u8; 16] = random();
    let mac_key = kdf(MacHash::Sha256, &bmp(password), &salt, 3, u64::from(MAC_ITERATIONS), 32);
    let mac = crypto::hmac(MacHash::Sha256, &mac_key, &auth_safe);
    yasna::construct_der(|w| {
        w.write_sequence(|w| {
            w.next().write_u8(3);
            w.next().write_sequence(|w| {
                w.next().write_oid(&oid(DATA));
                w.next().write_tagged(Tag::context(0), |w| w.write_bytes(&auth_safe));
            });
            w.next().write_sequence(|w| {
                w.next().write_sequence(|w| {
                    w.next().write_sequence(|w| {
                        w.next().write_oid(&oid(SHA256));
                        w.next().write_null();
                    });
                    w.next().write_bytes(&mac);
                });
                w.next().write_bytes(&salt);
                w.next().write_u32(MAC_ITERATIONS);
            });
        })
    })
}

/// What a PFX holds.
pub(crate) struct Contents {
    pub(crate) certificates: Vec<Vec<u8>>,
    /// The first private key, PKCS#8 DER.
    pub(crate) key: Option<Vec<u8>>,
}

fn err(e: yasna::ASN1Error) -> String {
    format!("is not a PKCS#12 file: {e}")
}

/// Decrypts a bag's content under a legacy PKCS#12 scheme or PBES2 (`algorithm` is the DER of
/// the AlgorithmIdentifier).
fn decrypt(algorithm: &[u8], data: &[u8], password: &str) -> Result<Vec<u8>, String> {
    let (scheme, params) = yasna::parse_der(algorithm, |r| {
        r.read_sequence(|r| {
            let scheme = r.next().read_oid()?.components().clone();
            let params = r.next().read_der()?;
            Ok((scheme, params))
        })
    })
    .map_err(err)?;
    let wrong = || "cannot be opened: the password is wrong or the file is damaged".to_string();
    match scheme.as_slice() {
        PBES2 => pkcs8_sealed::open_bytes(algorithm, data, password.as_bytes())
            .map_err(|e| if e.contains("passphrase is wrong") { wrong() } else { e }),
        PBE_SHA1_3DES => {
            let (salt, iterations) =
                yasna::parse_der(&params, |r| r.read_sequence(|r| Ok((r.next().read_bytes()?, r.next().read_u64()?))))
                    .map_err(err)?;
            if iterations > MAX_ITERATIONS {
                return Err(format!("asks for {iterations} iterations; wrench follows at most {MAX_ITERATIONS}"));
            }
            let pass = bmp(password);
            let key = kdf(MacHash::Sha1, &pass, &salt, 1, iterations, 24);
            let iv = kdf(MacHash::Sha1, &pass, &salt, 2, iterations, 8);
            cbc::Decryptor::<des::TdesEde3>::new_from_slices(&key, &iv)
                .map_err(|_| wrong())?
                .decrypt_padded_vec::<Pkcs7>(data)
                .map_err(|_| wrong())
        }
        PBE_SHA1_RC2_40 | PBE_SHA1_RC2_128 => Err(
            "holds a bag encrypted with RC2 (OpenSSL's -legacy, old Windows exports), which wrench does not decrypt; \
             re-export it with `openssl pkcs12 -export -certpbe AES-256-CBC -keypbe AES-256-CBC`"
                .into(),
        ),
        other => Err(format!(
            "holds a bag encrypted with {}, which wrench does not decrypt",
            other.iter().map(u64::to_string).collect::<Vec<_>>().join(".")
        )),
    }
}

/// The bags of one SafeContents: certificates and keys (shrouded keys opened with `password`).
fn bags(safe_contents: &[u8], password: &str, out: &mut Contents) -> Result<(), String> {
    let list = yasna::parse_ber(safe_contents, |r| {
        r.collect_sequence_of(|r| {
            r.read_sequence(|r| {
                let kind = r.next().read_oid()?.components().clone();
                let value = r.next().read_tagged(Tag::context(0), |r| r.read_der())?;
                while r.read_optional(|r| r.read_der())?.is_some() {}
                Ok((kind, value))
            })
        })
    })
    .map_err(err)?;
    for (kind, value) in list {
        match kind.as_slice() {
            CERT_BAG => {
                let (cert_type, cert) = yasna::parse_ber(&value, |r| {
                    r.read_sequence(|r| {
                        let t = r.next().read_oid()?.components().clone();
                        let c = r.next().read_tagged(Tag::context(0), |r| r.read_bytes())?;
                        Ok((t, c))
                    })
                })
                .map_err(err)?;
                if cert_type == X509_CERT {
                    out.certificates.push(cert);
                }
            }
            KEY_BAG if out.key.is_none() => out.key = Some(value),
            SHROUDED_KEY_BAG if out.key.is_none() => {
                let (algorithm, data) = yasna::parse_ber(&value, |r| {
                    r.read_sequence(|r| Ok((r.next().read_der()?, r.next().read_bytes()?)))
                })
                .map_err(err)?;
                out.key = Some(decrypt(&algorithm, &data, password)?);
            }
            _ => {}
        }
    }
    Ok(())
}

/// The certificates and key of a PFX, its MAC checked with `password` first.
pub(crate) fn read(der: &[u8], password: &str) -> Result<Contents, String> {
    let (auth_safe, mac) = yasna::parse_ber(der, |r| {
        r.read_sequence(|r| {
            let version = r.next().read_u8()?;
            if version != 3 {
                return Err(yasna::ASN1Error::new(yasna::ASN1ErrorKind::Invalid));
            }
            let auth_safe = r.next().read_sequence(|r| {
                let kind = r.next().read_oid()?.components().clone();
                if kind != DATA {
                    return Err(yasna::ASN1Error::new(yasna::ASN1ErrorKind::Invalid));
                }
                r.next().read_tagged(Tag::context(0), |r| r.read_bytes())
            })?;
            let mac = r.read_optional(|r| {
                r.read_sequence(|r| {
                    let (hash, digest) = r.next().read_sequence(|r| {
                        let hash = r.next().read_sequence(|r| {
                            let h = r.next().read_oid()?.components().clone();
                            while r.read_optional(|r| r.read_der())?.is_some() {}
                            Ok(h)
                        })?;
                        Ok((hash, r.next().read_bytes()?))
                    })?;
                    let salt = r.next().read_bytes()?;
                    let iterations = r.read_optional(|r| r.read_u64())?.unwrap_or(1);
                    Ok((hash, digest, salt, iterations))
                })
            })?;
            Ok((auth_safe, mac))
        })
    })
    .map_err(err)?;
    let wrong = "cannot be opened: the password is wrong or the file is damaged".to_string();
    if let Some((hash, digest, salt, iterations)) = mac {
        if iterations > MAX_ITERATIONS {
            return Err(format!("its MAC asks for {iterations} iterations; wrench follows at most {MAX_ITERATIONS}"));
        }
        let expected = match hash.as_slice() {
            SHA256 => crypto::hmac(
                MacHash::Sha256,
                &kdf(MacHash::Sha256, &bmp(password), &salt, 3, iterations, 32),
                &auth_safe,
            ),
            SHA1 => {
                crypto::hmac(MacHash::Sha1, &kdf(MacHash::Sha1, &bmp(password), &salt, 3, iterations, 20), &auth_safe)
            }
            _ => return Err("its MAC uses a hash other than SHA-1 or SHA-256".into()),
        };
        use subtle::ConstantTimeEq;
        if expected.len() != digest.len() || !bool::from(expected.ct_eq(&digest)) {
            return Err(wrong);
        }
    }
    let safes = yasna::parse_ber(&auth_safe, |r| {
        r.collect_sequence_of(|r| {
            r.read_sequence(|r| {
                let kind = r.next().read_oid()?.components().clone();
                let content = r.next().read_tagged(Tag::context(0), |r| r.read_der())?;
                Ok((kind, content))
            })
        })
    })
    .map_err(err)?;
    let mut out = Contents { certificates: Vec::new(), key: None };
    for (kind, content) in safes {
        match kind.as_slice() {
            DATA => {
                let inner = yasna::parse_ber(&content, |r| r.read_bytes()).map_err(err)?;
                bags(&inner, password, &mut out)?;
            }
            ENCRYPTED_DATA => {
                let (algorithm, data) = yasna::parse_ber(&content, |r| {
                    r.read_sequence(|r| {
                        let _version = r.next().read_u8()?;
                        r.next().read_sequence(|r| {
                            let _type = r.next().read_oid()?;
                            let algorithm = r.next().read_der()?;
                            let data = r.next().read_tagged_implicit(Tag::context(0), |r| r.read_bytes())?;
                            Ok((algorithm, data))
                        })
                    })
                })
                .map_err(err)?;
                let plain = decrypt(&algorithm, &data, password)?;
                bags(&plain, password, &mut out)?;
            }
            _ => return Err(
                "holds content that is neither data nor password-encrypted data (public-key encryption is not read)"
                    .into(),
            ),
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The PKCS#12 derivation of RFC 7292 appendix B on the long-published key and IV vector
    /// for the password "smeg" (SHA-1, one iteration, salt 0A58CF64530D823F). OpenSSL reading
    /// what wrench writes, and the reverse, is in tests/it/secret_tools.rs.
    #[test]
    fn the_pkcs12_derivation() {
        let salt = hex::decode("0a58cf64530d823f").unwrap();
        let key = kdf(MacHash::Sha1, &bmp("smeg"), &salt, 1, 1, 24);
        assert_eq!(hex::encode(key), "8aaae6297b6cb04642ab5b077851284eb7128f1a2a7fbca3");
        let iv = kdf(MacHash::Sha1, &bmp("smeg"), &salt, 2, 1, 8);
        assert_eq!(hex::encode(iv), "79993dfe048d3b76");
    }
}
