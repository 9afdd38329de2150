//! Keys in DER: SubjectPublicKeyInfo (RFC 5280), PKCS#8 (RFC 5208 and 5958), PKCS#1 (RFC 8017
//! appendix A.1), SEC1 `ECPrivateKey` (RFC 5915) and the key inside a certificate, read into
//! and written from [`Key`].
//!
//! Reading is strict DER (yasna in DER mode). An elliptic-curve private key is handed to
//! aws-lc-rs, which checks the scalar and derives the public point: a file whose stored point
//! is not the scalar's is refused instead of trusted. Writers emit what OpenSSL writes: PKCS#8
//! version 1 and the SEC1 key inside it with its public point.

use aws_lc_rs::signature::KeyPair;
use yasna::{ASN1Result, BERReader, DERWriter, Tag, models::ObjectIdentifier};

use super::model::{Curve, Key, RsaPrivate, oid, uncompressed_point, unsigned};

fn oid_of(arcs: &[u64]) -> ObjectIdentifier {
    ObjectIdentifier::from_slice(arcs)
}

/// An AlgorithmIdentifier: its OID and, when the parameters are an OID, that one.
struct AlgorithmId {
    oid: Vec<u64>,
    parameter_oid: Option<Vec<u64>>,
}

fn read_algorithm(r: BERReader) -> ASN1Result<AlgorithmId> {
    r.read_sequence(|r| {
        let oid = r.next().read_oid()?.components().clone();
        let parameter_oid = r.read_optional(|r| r.read_oid())?.map(|o| o.components().clone());
        // A NULL (RSA) or anything else: skipped.
        while r.read_optional(|r| r.read_der())?.is_some() {}
        Ok(AlgorithmId { oid, parameter_oid })
    })
}

fn number(r: BERReader) -> ASN1Result<Vec<u8>> {
    let (bytes, non_negative) = r.read_bigint_bytes()?;
    if !non_negative {
        return Err(yasna::ASN1Error::new(yasna::ASN1ErrorKind::Invalid));
    }
    Ok(unsigned(&bytes))
}

/// `bytes` left-padded with zeros to `len` (a scalar or coordinate at its full length).
fn padded(bytes: &[u8], len: usize) -> Result<Vec<u8>, String> {
    let bytes = unsigned(bytes);
    if bytes.len() > len {
        return Err(format!("a value of {} bytes where the curve has {len}", bytes.len()));
    }
    let mut out = vec![0; len - bytes.len()];
    out.extend_from_slice(&bytes);
    Ok(out)
}

fn der_error(what: &str) -> impl Fn(yasna::ASN1Error) -> String + '_ {
    move |e| format!("is not a DER {what}: {e}")
}

/// The public point `04 || x || y` split into coordinates, checked on the curve.
pub(crate) fn ec_point(curve: Curve, point: &[u8]) -> Result<(Vec<u8>, Vec<u8>), String> {
    let len = curve.field_len();
    if point.first() != Some(&4) || point.len() != 1 + 2 * len {
        return Err(format!("the public point is not an uncompressed {} point", curve.jwk_name()));
    }
    aws_lc_rs::signature::ParsedPublicKey::new(curve.verifying(), point)
        .map_err(|_| format!("the public point is not on {}", curve.jwk_name()))?;
    Ok((point[1..=len].to_vec(), point[1 + len..].to_vec()))
}

/// A SubjectPublicKeyInfo.
pub(crate) fn read_spki(der: &[u8]) -> Result<Key, String> {
    let (alg, bits) = yasna::parse_der(der, |r| {
        r.read_sequence(|r| {
            let alg = read_algorithm(r.next())?;
            let (bits, _) = r.next().read_bitvec_bytes()?;
            Ok((alg, bits))
        })
    })
    .map_err(der_error("SubjectPublicKeyInfo"))?;
    match alg.oid.as_slice() {
        oid::RSA => read_pkcs1_public(&bits),
        oid::EC => {
            let curve = alg_curve(&alg)?;
            let (x, y) = ec_point(curve, &bits)?;
            Ok(Key::Ec { curve, x, y, d: None })
        }
        oid::ED25519 | oid::X25519 if bits.len() != 32 => Err("the public key is not 32 bytes".into()),
        oid::ED25519 => Ok(Key::Ed25519 { x: bits, d: None }),
        oid::X25519 => Ok(Key::X25519 { x: bits, d: None }),
        other => Err(unsupported(other)),
    }
}

fn alg_curve(alg: &AlgorithmId) -> Result<Curve, String> {
    let arcs = alg.parameter_oid.as_deref().ok_or("the EC key names no curve (explicit parameters are not read)")?;
    Curve::from_oid(arcs)
        .ok_or_else(|| format!("the curve {} is not one wrench reads (P-256, P-384, P-521, secp256k1)", dotted(arcs)))
}

fn dotted(arcs: &[u64]) -> String {
    arcs.iter().map(u64::to_string).collect::<Vec<_>>().join(".")
}

fn unsupported(arcs: &[u64]) -> String {
    let name = match arcs {
        [1, 3, 101, 113] => "Ed448",
        [1, 3, 101, 111] => "X448",
        [1, 2, 840, 10040, 4, 1] => "DSA",
        [1, 2, 840, 113549, 1, 1, 10] => "RSA-PSS (restricted)",
        _ => "",
    };
    if name.is_empty() {
        format!("holds a key of algorithm {}, which wrench does not read", dotted(arcs))
    } else {
        format!("holds an {name} key, which wrench does not read")
    }
}

/// PKCS#1 `RSAPublicKey`.
pub(crate) fn read_pkcs1_public(der: &[u8]) -> Result<Key, String> {
    let (n, e) = yasna::parse_der(der, |r| r.read_sequence(|r| Ok((number(r.next())?, number(r.next())?))))
        .map_err(der_error("RSA public key"))?;
    Ok(Key::Rsa { n, e, private: None })
}

/// PKCS#1 `RSAPrivateKey` (two primes).
pub(crate) fn read_pkcs1_private(der: &[u8]) -> Result<Key, String> {
    let parts = yasna::parse_der(der, |r| {
        r.read_sequence(|r| {
            let version = r.next().read_u8()?;
            let mut values = Vec::with_capacity(8);
            for _ in 0..8 {
                values.push(number(r.next())?);
            }
            while r.read_optional(|r| r.read_der())?.is_some() {}
            Ok((version, values))
        })
    })
    .map_err(der_error("RSA private key"))?;
    let (version, mut v) = parts;
    if version != 0 {
        return Err("is a multi-prime RSA key, which wrench does not read".into());
    }
    let private = RsaPrivate {
        qi: v.pop().unwrap_or_default(),
        dq: v.pop().unwrap_or_default(),
        dp: v.pop().unwrap_or_default(),
        q: v.pop().unwrap_or_default(),
        p: v.pop().unwrap_or_default(),
        d: v.pop().unwrap_or_default(),
    };
    let e = v.pop().unwrap_or_default();
    let n = v.pop().unwrap_or_default();
    Ok(Key::Rsa { n, e, private: Some(Box::new(private)) })
}

/// SEC1 `ECPrivateKey`; `curve` from the PKCS#8 wrapper when the key itself names none.
pub(crate) fn read_sec1(der: &[u8], curve: Option<Curve>) -> Result<Key, String> {
    let (scalar, named, stored_point) = yasna::parse_der(der, |r| {
        r.read_sequence(|r| {
            let _version = r.next().read_u8()?;
            let scalar = r.next().read_bytes()?;
            let named = r.read_optional(|r| r.read_tagged(Tag::context(0), |r| r.read_oid()))?;
            let point = r.read_optional(|r| r.read_tagged(Tag::context(1), |r| r.read_bitvec_bytes()))?;
            Ok((scalar, named.map(|o| o.components().clone()), point.map(|(p, _)| p)))
        })
    })
    .map_err(der_error("EC private key"))?;
    let curve = match (named, curve) {
        (Some(arcs), _) => {
            Curve::from_oid(&arcs).ok_or_else(|| format!("the curve {} is not one wrench reads", dotted(&arcs)))?
        }
        (None, Some(c)) => c,
        (None, None) => return Err("the EC private key names no curve".into()),
    };
    let d = padded(&scalar, curve.field_len())?;
    let key = ec_from_scalar(curve, &d)?;
    if let (Some(stored), Key::Ec { x, y, .. }) = (stored_point, &key)
        && stored.get(1..) != Some([x.as_slice(), y.as_slice()].concat().as_slice())
    {
        return Err("the public point stored with the EC private key is not the private key's".into());
    }
    Ok(key)
}

/// The key of private scalar `d` on `curve`, its public point derived by aws-lc-rs.
pub(crate) fn ec_from_scalar(curve: Curve, d: &[u8]) -> Result<Key, String> {
    let sec1 = yasna::construct_der(|w| {
        w.write_sequence(|w| {
            w.next().write_u8(1);
            w.next().write_bytes(d);
            w.next().write_tagged(Tag::context(0), |w| w.write_oid(&oid_of(curve.oid())));
        })
    });
    let pair = aws_lc_rs::signature::EcdsaKeyPair::from_private_key_der(curve.signing(), &sec1)
        .map_err(|_| format!("the private scalar is not a valid {} key", curve.jwk_name()))?;
    let (x, y) = ec_point(curve, pair.public_key().as_ref())?;
    Ok(Key::Ec { curve, x, y, d: Some(d.to_vec()) })
}

/// The Ed25519 key of a 32-byte seed.
pub(crate) fn ed25519_from_seed(seed: &[u8]) -> Result<Key, String> {
    let pair = aws_lc_rs::signature::Ed25519KeyPair::from_seed_unchecked(seed)
        .map_err(|_| "the Ed25519 private key is not 32 bytes".to_string())?;
    Ok(Key::Ed25519 { x: pair.public_key().as_ref().to_vec(), d: Some(seed.to_vec()) })
}

/// The X25519 key of a 32-byte private key.
pub(crate) fn x25519_from_private(d: &[u8]) -> Result<Key, String> {
    use aws_lc_rs::agreement;
    let private = agreement::PrivateKey::from_private_key(&agreement::X25519, d)
        .map_err(|_| "the X25519 private key is not 32 bytes".to_string())?;
    let public = private.compute_public_key().map_err(|_| "the X25519 private key is not usable".to_string())?;
    Ok(Key::X25519 { x: public.as_ref().to_vec(), d: Some(d.to_vec()) })
}

/// PKCS#8 `PrivateKeyInfo` / `OneAsymmetricKey` (unencrypted).
pub(crate) fn read_pkcs8(der: &[u8]) -> Result<Key, String> {
    let (alg, inner) = yasna::parse_der(der, |r| {
        r.read_sequence(|r| {
            let _version = r.next().read_u8()?;
            let alg = read_algorithm(r.next())?;
            let inner = r.next().read_bytes()?;
            while r.read_optional(|r| r.read_der())?.is_some() {}
            Ok((alg, inner))
        })
    })
    .map_err(der_error("PKCS#8 private key"))?;
    match alg.oid.as_slice() {
        oid::RSA => read_pkcs1_private(&inner),
        oid::EC => read_sec1(&inner, Some(alg_curve(&alg)?)),
        oid::ED25519 | oid::X25519 => {
            let seed = yasna::parse_der(&inner, |r| r.read_bytes()).map_err(der_error("curve private key"))?;
            if alg.oid.as_slice() == oid::ED25519 { ed25519_from_seed(&seed) } else { x25519_from_private(&seed) }
        }
        other => Err(unsupported(other)),
    }
}

fn write_algorithm(w: DERWriter, arcs: &[u64], parameter: Option<&[u64]>, null: bool) {
    w.write_sequence(|w| {
        w.next().write_oid(&oid_of(arcs));
        if let Some(p) = parameter {
            w.next().write_oid(&oid_of(p));
        } else if null {
            w.next().write_null();
        }
    })
}

fn pkcs1_public(n: &[u8], e: &[u8]) -> Vec<u8> {
    yasna::construct_der(|w| {
        w.write_sequence(|w| {
            w.next().write_bigint_bytes(n, true);
            w.next().write_bigint_bytes(e, true);
        })
    })
}

/// The public half as a SubjectPublicKeyInfo. A secret has none.
pub(crate) fn write_spki(key: &Key) -> Result<Vec<u8>, String> {
    let (alg, param, null, bits): (&[u64], Option<&[u64]>, bool, Vec<u8>) = match key {
        Key::Rsa { n, e, .. } => (oid::RSA, None, true, pkcs1_public(n, e)),
        Key::Ec { curve, x, y, .. } => (oid::EC, Some(curve.oid()), false, uncompressed_point(x, y)),
        Key::Ed25519 { x, .. } => (oid::ED25519, None, false, x.clone()),
        Key::X25519 { x, .. } => (oid::X25519, None, false, x.clone()),
        Key::Secret(_) => return Err("a secret has no public key".into()),
    };
    Ok(yasna::construct_der(|w| {
        w.write_sequence(|w| {
            write_algorithm(w.next(), alg, param, null);
            w.next().write_bitvec_bytes(&bits, bits.len() * 8);
        })
    }))
}

/// PKCS#1 `RSAPublicKey` of an RSA key.
pub(crate) fn write_pkcs1_public(key: &Key) -> Option<Vec<u8>> {
    match key {
        Key::Rsa { n, e, .. } => Some(pkcs1_public(n, e)),
        _ => None,
    }
}

/// PKCS#1 `RSAPrivateKey` of a private RSA key.
pub(crate) fn write_pkcs1_private(key: &Key) -> Option<Vec<u8>> {
    let Key::Rsa { n, e, private: Some(p) } = key else { return None };
    Some(yasna::construct_der(|w| {
        w.write_sequence(|w| {
            w.next().write_u8(0);
            for v in [n, e, &p.d, &p.p, &p.q, &p.dp, &p.dq, &p.qi] {
                w.next().write_bigint_bytes(v, true);
            }
        })
    }))
}

/// SEC1 `ECPrivateKey` of a private EC key, with its curve and public point.
pub(crate) fn write_sec1(key: &Key, with_curve: bool) -> Option<Vec<u8>> {
    let Key::Ec { curve, x, y, d: Some(d) } = key else { return None };
    let point = uncompressed_point(x, y);
    Some(yasna::construct_der(|w| {
        w.write_sequence(|w| {
            w.next().write_u8(1);
            w.next().write_bytes(d);
            if with_curve {
                w.next().write_tagged(Tag::context(0), |w| w.write_oid(&oid_of(curve.oid())));
            }
            w.next().write_tagged(Tag::context(1), |w| w.write_bitvec_bytes(&point, point.len() * 8));
        })
    }))
}

/// PKCS#8 version 1 of a private key.
pub(crate) fn write_pkcs8(key: &Key) -> Result<Vec<u8>, String> {
    let (alg, param, null, inner): (&[u64], Option<&[u64]>, bool, Vec<u8>) = match key {
        Key::Rsa { private: Some(_), .. } => (oid::RSA, None, true, write_pkcs1_private(key).unwrap_or_default()),
        Key::Ec { curve, d: Some(_), .. } => {
            (oid::EC, Some(curve.oid()), false, write_sec1(key, false).unwrap_or_default())
        }
        Key::Ed25519 { d: Some(d), .. } => (oid::ED25519, None, false, yasna::construct_der(|w| w.write_bytes(d))),
        Key::X25519 { d: Some(d), .. } => (oid::X25519, None, false, yasna::construct_der(|w| w.write_bytes(d))),
        Key::Secret(_) => return Err("a secret has no PKCS#8 form".into()),
        _ => return Err("the key is public; there is no private key to write".into()),
    };
    Ok(yasna::construct_der(|w| {
        w.write_sequence(|w| {
            w.next().write_u8(0);
            write_algorithm(w.next(), alg, param, null);
            w.next().write_bytes(&inner);
        })
    }))
}

/// The public key of a DER certificate.
pub(crate) fn read_certificate_key(der: &[u8]) -> Result<Key, String> {
    use x509_parser::prelude::{FromDer, X509Certificate};
    let (_, cert) = X509Certificate::from_der(der).map_err(|e| format!("is not a DER certificate: {e}"))?;
    read_spki(cert.public_key().raw)
}
