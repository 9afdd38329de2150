//! The JWS algorithms of RFC 7518 section 3, ES256K (RFC 8812) and EdDSA with Ed25519
//! (RFC 8037), each bound to the one kind of key it may use.
//!
//! The binding is the defence against algorithm confusion: an HMAC algorithm takes only a
//! secret, so an RSA public key can never be used as an HMAC secret, and `none` is not an
//! algorithm here at all. RSA keys must have at least 2048 bits (RFC 7518 section 3.3 and 3.5).

use aws_lc_rs::{rand::SystemRandom, signature as sig};
use subtle::ConstantTimeEq;

use wrench_contract::prelude::*;
use wrench_kit::crypto::{self, MacHash};

use crate::security::keys::model::{Curve, Key, uncompressed_point};

/// A JWS `alg`.
#[allow(clippy::upper_case_acronyms)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema, Validate)]
pub(crate) enum JwsAlgorithm {
    HS256,
    HS384,
    HS512,
    RS256,
    RS384,
    RS512,
    PS256,
    PS384,
    PS512,
    ES256,
    ES384,
    ES512,
    ES256K,
    EdDSA,
}

/// The least RSA modulus a JWS may use.
const MIN_RSA_BITS: u32 = 2048;

impl JwsAlgorithm {
    pub(crate) const ALL: [JwsAlgorithm; 14] = [
        Self::HS256,
        Self::HS384,
        Self::HS512,
        Self::RS256,
        Self::RS384,
        Self::RS512,
        Self::PS256,
        Self::PS384,
        Self::PS512,
        Self::ES256,
        Self::ES384,
        Self::ES512,
        Self::ES256K,
        Self::EdDSA,
    ];

    pub(crate) fn name(self) -> &'static str {
        match self {
            Self::HS256 => "HS256",
            Self::HS384 => "HS384",
            Self::HS512 => "HS512",
            Self::RS256 => "RS256",
            Self::RS384 => "RS384",
            Self::RS512 => "RS512",
            Self::PS256 => "PS256",
            Self::PS384 => "PS384",
            Self::PS512 => "PS512",
            Self::ES256 => "ES256",
            Self::ES384 => "ES384",
            Self::ES512 => "ES512",
            Self::ES256K => "ES256K",
            Self::EdDSA => "EdDSA",
        }
    }

    pub(crate) fn from_name(name: &str) -> Option<JwsAlgorithm> {
        Self::ALL.into_iter().find(|a| a.name() == name)
    }

    pub(crate) fn is_hmac(self) -> bool {
        matches!(self, Self::HS256 | Self::HS384 | Self::HS512)
    }

    fn mac_hash(self) -> Option<(MacHash, usize)> {
        match self {
            Self::HS256 => Some((MacHash::Sha256, 32)),
            Self::HS384 => Some((MacHash::Sha384, 48)),
            Self::HS512 => Some((MacHash::Sha512, 64)),
            _ => None,
        }
    }

    /// The curve an ECDSA algorithm is defined on.
    fn curve(self) -> Option<Curve> {
        match self {
            Self::ES256 => Some(Curve::P256),
            Self::ES384 => Some(Curve::P384),
            Self::ES512 => Some(Curve::P521),
            Self::ES256K => Some(Curve::Secp256k1),
            _ => None,
        }
    }

    /// The kind of key the algorithm takes, in words.
    pub(crate) fn key_kind(self) -> String {
        if self.is_hmac() {
            return "a secret".into();
        }
        if let Some(c) = self.curve() {
            return format!("an EC key on {}", c.jwk_name());
        }
        match self {
            Self::EdDSA => "an Ed25519 key".into(),
            _ => format!("an RSA key of at least {MIN_RSA_BITS} bits"),
        }
    }

    /// Whether `key` is the kind this algorithm takes; the reason when not.
    pub(crate) fn fits(self, key: &Key) -> Result<(), String> {
        let ok = match key {
            Key::Secret(_) => self.is_hmac(),
            Key::Rsa { .. } => {
                matches!(self, Self::RS256 | Self::RS384 | Self::RS512 | Self::PS256 | Self::PS384 | Self::PS512)
                    && key.bits() >= MIN_RSA_BITS
            }
            Key::Ec { curve, .. } => self.curve() == Some(*curve),
            Key::Ed25519 { .. } => self == Self::EdDSA,
            Key::X25519 { .. } => false,
        };
        if ok {
            Ok(())
        } else {
            Err(format!("{} takes {}; the key is {}", self.name(), self.key_kind(), key.describe()))
        }
    }

    /// Whether a JWK's own `alg`, when it has one, allows this algorithm.
    pub(crate) fn allowed_by_jwk(self, jwk_alg: Option<&str>) -> bool {
        jwk_alg.is_none_or(|a| a == self.name())
    }

    fn rsa_encoding(self) -> Option<&'static dyn sig::RsaEncoding> {
        Some(match self {
            Self::RS256 => &sig::RSA_PKCS1_SHA256,
            Self::RS384 => &sig::RSA_PKCS1_SHA384,
            Self::RS512 => &sig::RSA_PKCS1_SHA512,
            Self::PS256 => &sig::RSA_PSS_SHA256,
            Self::PS384 => &sig::RSA_PSS_SHA384,
            Self::PS512 => &sig::RSA_PSS_SHA512,
            _ => return None,
        })
    }

    fn rsa_verification(self) -> Option<&'static sig::RsaParameters> {
        Some(match self {
            Self::RS256 => &sig::RSA_PKCS1_2048_8192_SHA256,
            Self::RS384 => &sig::RSA_PKCS1_2048_8192_SHA384,
            Self::RS512 => &sig::RSA_PKCS1_2048_8192_SHA512,
            Self::PS256 => &sig::RSA_PSS_2048_8192_SHA256,
            Self::PS384 => &sig::RSA_PSS_2048_8192_SHA384,
            Self::PS512 => &sig::RSA_PSS_2048_8192_SHA512,
            _ => return None,
        })
    }

    /// The HMAC of an HS algorithm (None for the others).
    fn mac(self, key: &[u8], input: &[u8]) -> Option<Vec<u8>> {
        self.mac_hash().map(|(h, _)| crypto::hmac(h, key, input))
    }

    /// The signature of `input` (the JWS signing input) under a private key or secret.
    pub(crate) fn sign(self, key: &Key, input: &[u8]) -> Result<Vec<u8>, String> {
        self.fits(key)?;
        let unusable = |what: &str| format!("the {what} private key is not usable (its parts do not agree)");
        match key {
            Key::Secret(k) => self.mac(k, input).ok_or_else(|| "no MAC".to_string()),
            Key::Rsa { n, e, private: Some(p) } => {
                let components = aws_lc_rs::rsa::KeyPairComponents {
                    public_key: aws_lc_rs::rsa::PublicKeyComponents { n: n.as_slice(), e: e.as_slice() },
                    d: p.d.as_slice(),
                    p: p.p.as_slice(),
                    q: p.q.as_slice(),
                    dP: p.dp.as_slice(),
                    dQ: p.dq.as_slice(),
                    qInv: p.qi.as_slice(),
                };
                let pair = sig::RsaKeyPair::from_components(&components).map_err(|_| unusable("RSA"))?;
                let mut out = vec![0; pair.public_modulus_len()];
                let encoding = self.rsa_encoding().ok_or_else(|| unusable("RSA"))?;
                pair.sign(encoding, &SystemRandom::new(), input, &mut out).map_err(|_| unusable("RSA"))?;
                Ok(out)
            }
            Key::Ec { curve, x, y, d: Some(d) } => {
                let point = uncompressed_point(x, y);
                let pair = sig::EcdsaKeyPair::from_private_key_and_public_key(curve.signing(), d, &point)
                    .map_err(|_| unusable("EC"))?;
                let s = pair.sign(&SystemRandom::new(), input).map_err(|_| unusable("EC"))?;
                Ok(s.as_ref().to_vec())
            }
            Key::Ed25519 { x, d: Some(d) } => {
                let pair = sig::Ed25519KeyPair::from_seed_and_public_key(d, x).map_err(|_| unusable("Ed25519"))?;
                Ok(pair.sign(input).as_ref().to_vec())
            }
            _ => Err(format!("signing needs a private key; the key is {}", key.describe())),
        }
    }

    /// Whether `signature` is this algorithm's signature of `input` under `key` (a public or
    /// private key, or a secret); Err when the key is not one this algorithm takes.
    pub(crate) fn verify(self, key: &Key, input: &[u8], signature: &[u8]) -> Result<bool, String> {
        self.fits(key)?;
        Ok(match key {
            Key::Secret(k) => {
                let expected = self.mac(k, input).unwrap_or_default();
                expected.len() == signature.len() && bool::from(expected.ct_eq(signature))
            }
            Key::Rsa { n, e, .. } => match self.rsa_verification() {
                Some(params) => {
                    let public = sig::RsaPublicKeyComponents { n: n.as_slice(), e: e.as_slice() };
                    public.verify(params, input, signature).is_ok()
                }
                None => false,
            },
            Key::Ec { curve, x, y, .. } => {
                let point = uncompressed_point(x, y);
                sig::UnparsedPublicKey::new(curve.verifying(), &point).verify(input, signature).is_ok()
            }
            Key::Ed25519 { x, .. } => sig::UnparsedPublicKey::new(&sig::ED25519, x).verify(input, signature).is_ok(),
            Key::X25519 { .. } => false,
        })
    }

    /// A warning for an HMAC secret shorter than its hash (RFC 7518 section 3.2).
    pub(crate) fn weak_secret(self, key: &Key) -> Option<String> {
        let (_, least) = self.mac_hash()?;
        match key {
            Key::Secret(k) if k.len() < least => Some(format!(
                "the secret is {} bytes; RFC 7518 section 3.2 asks for at least {least} for {}",
                k.len(),
                self.name()
            )),
            _ => None,
        }
    }
}
