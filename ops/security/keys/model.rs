//! One model of every key wrench reads or writes: RSA, the four elliptic curves JOSE and
//! OpenSSH name (P-256, P-384, P-521, secp256k1), Ed25519, X25519, and symmetric secrets.
//!
//! Numbers are big-endian bytes without leading zeros, coordinates and scalars are the curve's
//! full field length (RFC 7518 section 6.2.1.2), so that every writer gets one canonical form.
//! A key's `Debug` names what it is and never prints a private part: keys reach no log line.

/// A named elliptic curve.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Curve {
    P256,
    P384,
    P521,
    Secp256k1,
}

/// Object identifiers used in key structures, as arcs.
pub(crate) mod oid {
    pub(crate) const RSA: &[u64] = &[1, 2, 840, 113549, 1, 1, 1];
    pub(crate) const EC: &[u64] = &[1, 2, 840, 10045, 2, 1];
    pub(crate) const X25519: &[u64] = &[1, 3, 101, 110];
    pub(crate) const ED25519: &[u64] = &[1, 3, 101, 112];
    pub(crate) const P256: &[u64] = &[1, 2, 840, 10045, 3, 1, 7];
    pub(crate) const P384: &[u64] = &[1, 3, 132, 0, 34];
    pub(crate) const P521: &[u64] = &[1, 3, 132, 0, 35];
    pub(crate) const SECP256K1: &[u64] = &[1, 3, 132, 0, 10];
}

impl Curve {
    pub(crate) const ALL: [Curve; 4] = [Curve::P256, Curve::P384, Curve::P521, Curve::Secp256k1];

    /// The name JWK (`crv`) and wrench's answers use.
    pub(crate) fn jwk_name(self) -> &'static str {
        match self {
            Curve::P256 => "P-256",
            Curve::P384 => "P-384",
            Curve::P521 => "P-521",
            Curve::Secp256k1 => "secp256k1",
        }
    }

    pub(crate) fn from_jwk_name(name: &str) -> Option<Curve> {
        Curve::ALL.into_iter().find(|c| c.jwk_name() == name)
    }

    pub(crate) fn oid(self) -> &'static [u64] {
        match self {
            Curve::P256 => oid::P256,
            Curve::P384 => oid::P384,
            Curve::P521 => oid::P521,
            Curve::Secp256k1 => oid::SECP256K1,
        }
    }

    pub(crate) fn from_oid(arcs: &[u64]) -> Option<Curve> {
        Curve::ALL.into_iter().find(|c| c.oid() == arcs)
    }

    /// Bytes of a coordinate or a private scalar.
    pub(crate) fn field_len(self) -> usize {
        match self {
            Curve::P256 | Curve::Secp256k1 => 32,
            Curve::P384 => 48,
            Curve::P521 => 66,
        }
    }

    pub(crate) fn bits(self) -> u32 {
        match self {
            Curve::P256 | Curve::Secp256k1 => 256,
            Curve::P384 => 384,
            Curve::P521 => 521,
        }
    }

    /// OpenSSH's name for the curve (`nistp256`); secp256k1 has none.
    pub(crate) fn ssh_name(self) -> Option<&'static str> {
        match self {
            Curve::P256 => Some("nistp256"),
            Curve::P384 => Some("nistp384"),
            Curve::P521 => Some("nistp521"),
            Curve::Secp256k1 => None,
        }
    }

    /// The ECDSA signing algorithm aws-lc-rs uses for keys of this curve (fixed-length r||s).
    pub(crate) fn signing(self) -> &'static aws_lc_rs::signature::EcdsaSigningAlgorithm {
        use aws_lc_rs::signature as s;
        match self {
            Curve::P256 => &s::ECDSA_P256_SHA256_FIXED_SIGNING,
            Curve::P384 => &s::ECDSA_P384_SHA384_FIXED_SIGNING,
            Curve::P521 => &s::ECDSA_P521_SHA512_FIXED_SIGNING,
            Curve::Secp256k1 => &s::ECDSA_P256K1_SHA256_FIXED_SIGNING,
        }
    }

    /// The verifying counterpart of [`Curve::signing`].
    pub(crate) fn verifying(self) -> &'static aws_lc_rs::signature::EcdsaVerificationAlgorithm {
        use aws_lc_rs::signature as s;
        match self {
            Curve::P256 => &s::ECDSA_P256_SHA256_FIXED,
            Curve::P384 => &s::ECDSA_P384_SHA384_FIXED,
            Curve::P521 => &s::ECDSA_P521_SHA512_FIXED,
            Curve::Secp256k1 => &s::ECDSA_P256K1_SHA256_FIXED,
        }
    }
}

/// The private half of an RSA key, with its CRT values (two primes only).
#[derive(Clone)]
pub(crate) struct RsaPrivate {
    pub(crate) d: Vec<u8>,
    pub(crate) p: Vec<u8>,
    pub(crate) q: Vec<u8>,
    pub(crate) dp: Vec<u8>,
    pub(crate) dq: Vec<u8>,
    pub(crate) qi: Vec<u8>,
}

/// A key, public or private.
#[derive(Clone)]
pub(crate) enum Key {
    Rsa {
        n: Vec<u8>,
        e: Vec<u8>,
        private: Option<Box<RsaPrivate>>,
    },
    /// `x` and `y` are the public point's coordinates, `d` the private scalar.
    Ec {
        curve: Curve,
        x: Vec<u8>,
        y: Vec<u8>,
        d: Option<Vec<u8>>,
    },
    /// `x` is the public key, `d` the 32-byte seed.
    Ed25519 {
        x: Vec<u8>,
        d: Option<Vec<u8>>,
    },
    X25519 {
        x: Vec<u8>,
        d: Option<Vec<u8>>,
    },
    /// A symmetric secret (JWK `oct`).
    Secret(Vec<u8>),
}

impl std::fmt::Debug for Key {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Key({})", self.describe())
    }
}

/// An EC public point in uncompressed form (SEC 1 section 2.3.3): `04 || x || y`.
pub(crate) fn uncompressed_point(x: &[u8], y: &[u8]) -> Vec<u8> {
    [&[4u8][..], x, y].concat()
}

/// Big-endian bytes without leading zeros (one zero byte for the number zero).
pub(crate) fn unsigned(bytes: &[u8]) -> Vec<u8> {
    let start = bytes.iter().position(|b| *b != 0).unwrap_or(bytes.len().saturating_sub(1));
    bytes[start..].to_vec()
}

/// Bits of a big-endian number.
pub(crate) fn bit_len(bytes: &[u8]) -> u32 {
    let n = unsigned(bytes);
    match n.first() {
        None | Some(0) => 0,
        Some(first) => (n.len() as u32 - 1) * 8 + (8 - first.leading_zeros()),
    }
}

impl Key {
    /// `rsa`, `ec`, `ed25519`, `x25519` or `oct`.
    pub(crate) fn kind(&self) -> &'static str {
        match self {
            Key::Rsa { .. } => "rsa",
            Key::Ec { .. } => "ec",
            Key::Ed25519 { .. } => "ed25519",
            Key::X25519 { .. } => "x25519",
            Key::Secret(_) => "oct",
        }
    }

    pub(crate) fn is_private(&self) -> bool {
        match self {
            Key::Rsa { private, .. } => private.is_some(),
            Key::Ec { d, .. } | Key::Ed25519 { d, .. } | Key::X25519 { d, .. } => d.is_some(),
            Key::Secret(_) => true,
        }
    }

    /// Whether it is the private half of a key pair (a secret is not).
    pub(crate) fn is_private_pair(&self) -> bool {
        self.is_private() && !matches!(self, Key::Secret(_))
    }

    /// The key's size: RSA's modulus, a curve's order, a secret's length in bits.
    pub(crate) fn bits(&self) -> u32 {
        match self {
            Key::Rsa { n, .. } => bit_len(n),
            Key::Ec { curve, .. } => curve.bits(),
            Key::Ed25519 { .. } | Key::X25519 { .. } => 256,
            Key::Secret(k) => k.len() as u32 * 8,
        }
    }

    pub(crate) fn curve(&self) -> Option<&'static str> {
        match self {
            Key::Ec { curve, .. } => Some(curve.jwk_name()),
            Key::Ed25519 { .. } => Some("Ed25519"),
            Key::X25519 { .. } => Some("X25519"),
            _ => None,
        }
    }

    /// The public half (a secret has none and stays as it is).
    pub(crate) fn public(&self) -> Key {
        match self {
            Key::Rsa { n, e, .. } => Key::Rsa { n: n.clone(), e: e.clone(), private: None },
            Key::Ec { curve, x, y, .. } => Key::Ec { curve: *curve, x: x.clone(), y: y.clone(), d: None },
            Key::Ed25519 { x, .. } => Key::Ed25519 { x: x.clone(), d: None },
            Key::X25519 { x, .. } => Key::X25519 { x: x.clone(), d: None },
            Key::Secret(k) => Key::Secret(k.clone()),
        }
    }

    /// Whether two keys have the same public half (secrets: the same bytes).
    pub(crate) fn same_public(&self, other: &Key) -> bool {
        use subtle::ConstantTimeEq;
        match (self, other) {
            (Key::Rsa { n: a, e: ea, .. }, Key::Rsa { n: b, e: eb, .. }) => a == b && ea == eb,
            (Key::Ec { curve: ca, x: xa, y: ya, .. }, Key::Ec { curve: cb, x: xb, y: yb, .. }) => {
                ca == cb && xa == xb && ya == yb
            }
            (Key::Ed25519 { x: a, .. }, Key::Ed25519 { x: b, .. })
            | (Key::X25519 { x: a, .. }, Key::X25519 { x: b, .. }) => a == b,
            (Key::Secret(a), Key::Secret(b)) => a.len() == b.len() && bool::from(a.ct_eq(b)),
            _ => false,
        }
    }

    /// In words, for messages: "an RSA public key of 2048 bits".
    pub(crate) fn describe(&self) -> String {
        let half = if self.is_private() { "private" } else { "public" };
        match self {
            Key::Rsa { .. } => format!("an RSA {half} key of {} bits", self.bits()),
            Key::Ec { curve, .. } => format!("an EC {half} key on {}", curve.jwk_name()),
            Key::Ed25519 { .. } => format!("an Ed25519 {half} key"),
            Key::X25519 { .. } => format!("an X25519 {half} key"),
            Key::Secret(k) => format!("a secret of {} bytes", k.len()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_are_trimmed_and_measured() {
        assert_eq!(unsigned(&[0, 0, 1, 2]), vec![1, 2]);
        assert_eq!(unsigned(&[0, 0]), vec![0]);
        assert_eq!(bit_len(&[0, 0x01, 0]), 9);
        assert_eq!(bit_len(&[0x80; 256]), 2048);
        assert_eq!(bit_len(&[0]), 0);
        assert_eq!(format!("{:?}", Key::Secret(b"hunter2".to_vec())), "Key(a secret of 7 bytes)");
    }
}
