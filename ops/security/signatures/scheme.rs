//! The signature schemes of `signature/sign` and `signature/verify`, each bound to its kind of
//! key, and the two encodings of an ECDSA signature: DER (`Ecdsa-Sig-Value`, RFC 3279 section
//! 2.2.3, what OpenSSL and X.509 use) and raw `r || s` (what JOSE, WebCrypto and most hardware
//! use).

use wrench_contract::prelude::*;

use crate::security::keys::model::{Curve, Key, unsigned};

/// A signature scheme.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema, Validate)]
pub(crate) enum SignatureScheme {
    /// RSASSA-PKCS1-v1_5 (RFC 8017 section 8.2) with SHA-256.
    #[serde(rename = "rsa-pkcs1-sha256")]
    RsaPkcs1Sha256,
    #[serde(rename = "rsa-pkcs1-sha384")]
    RsaPkcs1Sha384,
    #[serde(rename = "rsa-pkcs1-sha512")]
    RsaPkcs1Sha512,
    /// RSASSA-PSS (RFC 8017 section 8.1) with SHA-256, MGF1 with SHA-256, and a salt as long as
    /// the hash.
    #[serde(rename = "rsa-pss-sha256")]
    RsaPssSha256,
    #[serde(rename = "rsa-pss-sha384")]
    RsaPssSha384,
    #[serde(rename = "rsa-pss-sha512")]
    RsaPssSha512,
    /// ECDSA with SHA-256, on a P-256 or secp256k1 key.
    #[serde(rename = "ecdsa-sha256")]
    EcdsaSha256,
    /// ECDSA with SHA-384, on a P-384 key.
    #[serde(rename = "ecdsa-sha384")]
    EcdsaSha384,
    /// ECDSA with SHA-512, on a P-521 key.
    #[serde(rename = "ecdsa-sha512")]
    EcdsaSha512,
    /// Ed25519 (RFC 8032), over the message itself.
    #[serde(rename = "ed25519")]
    Ed25519,
}

/// How an ECDSA signature is written.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema, Validate)]
#[serde(rename_all = "lowercase")]
pub(crate) enum EcdsaFormat {
    /// DER `SEQUENCE { r INTEGER, s INTEGER }`, as OpenSSL writes it.
    #[default]
    Der,
    /// `r || s`, each the curve's length, as JOSE and WebCrypto write it.
    Raw,
}

impl SignatureScheme {
    pub(crate) fn name(self) -> &'static str {
        match self {
            Self::RsaPkcs1Sha256 => "rsa-pkcs1-sha256",
            Self::RsaPkcs1Sha384 => "rsa-pkcs1-sha384",
            Self::RsaPkcs1Sha512 => "rsa-pkcs1-sha512",
            Self::RsaPssSha256 => "rsa-pss-sha256",
            Self::RsaPssSha384 => "rsa-pss-sha384",
            Self::RsaPssSha512 => "rsa-pss-sha512",
            Self::EcdsaSha256 => "ecdsa-sha256",
            Self::EcdsaSha384 => "ecdsa-sha384",
            Self::EcdsaSha512 => "ecdsa-sha512",
            Self::Ed25519 => "ed25519",
        }
    }

    pub(crate) fn is_ecdsa(self) -> bool {
        matches!(self, Self::EcdsaSha256 | Self::EcdsaSha384 | Self::EcdsaSha512)
    }

    /// The JWS algorithm that is this scheme on `key`, which does the work.
    fn jws(self, key: &Key) -> Result<super::super::jose::algorithm::JwsAlgorithm, String> {
        use super::super::jose::algorithm::JwsAlgorithm as J;
        let alg = match (self, key) {
            (Self::RsaPkcs1Sha256, _) => J::RS256,
            (Self::RsaPkcs1Sha384, _) => J::RS384,
            (Self::RsaPkcs1Sha512, _) => J::RS512,
            (Self::RsaPssSha256, _) => J::PS256,
            (Self::RsaPssSha384, _) => J::PS384,
            (Self::RsaPssSha512, _) => J::PS512,
            (Self::EcdsaSha256, Key::Ec { curve: Curve::Secp256k1, .. }) => J::ES256K,
            (Self::EcdsaSha256, _) => J::ES256,
            (Self::EcdsaSha384, _) => J::ES384,
            (Self::EcdsaSha512, _) => J::ES512,
            (Self::Ed25519, _) => J::EdDSA,
        };
        alg.fits(key).map_err(|_| {
            let wanted = match self {
                Self::EcdsaSha256 => "an EC key on P-256 or secp256k1".to_string(),
                _ => alg.key_kind(),
            };
            format!("{} takes {wanted}; the key is {}", self.name(), key.describe())
        })?;
        Ok(alg)
    }

    /// The signature of `message` under a private key, ECDSA in `format`.
    pub(crate) fn sign(self, key: &Key, message: &[u8], format: EcdsaFormat) -> Result<Vec<u8>, String> {
        let alg = self.jws(key)?;
        let raw = alg.sign(key, message)?;
        Ok(if self.is_ecdsa() && format == EcdsaFormat::Der { raw_to_der(&raw) } else { raw })
    }

    /// Whether `signature` (ECDSA in `format`) is this scheme's signature of `message` under
    /// `key`; Err when the key does not fit the scheme.
    pub(crate) fn verify(
        self,
        key: &Key,
        message: &[u8],
        signature: &[u8],
        format: EcdsaFormat,
    ) -> Result<bool, String> {
        let alg = self.jws(key)?;
        let raw = match (self.is_ecdsa(), format, key) {
            (true, EcdsaFormat::Der, Key::Ec { curve, .. }) => match der_to_raw(signature, curve.field_len()) {
                Some(raw) => raw,
                None => return Ok(false),
            },
            _ => signature.to_vec(),
        };
        alg.verify(key, message, &raw)
    }
}

/// `r || s` as DER.
pub(crate) fn raw_to_der(raw: &[u8]) -> Vec<u8> {
    let (r, s) = raw.split_at(raw.len() / 2);
    yasna::construct_der(|w| {
        w.write_sequence(|w| {
            w.next().write_bigint_bytes(&unsigned(r), true);
            w.next().write_bigint_bytes(&unsigned(s), true);
        })
    })
}

/// DER as `r || s` of `len` bytes each; None when it is not a DER signature of that size.
pub(crate) fn der_to_raw(der: &[u8], len: usize) -> Option<Vec<u8>> {
    let (r, s) = yasna::parse_der(der, |rd| {
        rd.read_sequence(|rd| Ok((rd.next().read_bigint_bytes()?, rd.next().read_bigint_bytes()?)))
    })
    .ok()?;
    let mut out = Vec::with_capacity(2 * len);
    for (v, positive) in [r, s] {
        let v = unsigned(&v);
        if !positive || v.len() > len {
            return None;
        }
        out.extend(std::iter::repeat_n(0, len - v.len()));
        out.extend_from_slice(&v);
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ecdsa_signatures_convert_both_ways() {
        let raw: Vec<u8> = [vec![0x80; 32], vec![0x01; 32]].concat();
        let der = raw_to_der(&raw);
        // r has its high bit set: a zero byte first, 33 bytes.
        assert_eq!(&der[..4], &[0x30, 0x45, 0x02, 0x21]);
        assert_eq!(der_to_raw(&der, 32), Some(raw));
        let small = [vec![0; 31], vec![5], vec![0; 31], vec![7]].concat();
        assert_eq!(der_to_raw(&raw_to_der(&small), 32), Some(small));
        assert_eq!(der_to_raw(b"\x30\x00", 32), None);
    }
}
