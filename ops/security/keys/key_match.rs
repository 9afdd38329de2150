//! `keys/match`: whether a private key belongs to a certificate or a public key.

use wrench_contract::prelude::*;

use super::load::{self, KeyInput};
use super::{der, jwk, pem};

#[derive(Debug, Deserialize, JsonSchema, Validate)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct KeysMatchInput {
    /// The private key: PEM (PKCS#8, PKCS#1 or SEC1), a JWK, or Base64 DER.
    private_key: KeyInput,
    /// The passphrase of an encrypted private key (PKCS#8 or OpenSSH).
    #[schemars(length(min = 1, max = 1024))]
    passphrase: Option<String>,
    /// The certificate (PEM, or DER in Base64) the key should belong to. One of `certificate`
    /// and `publicKey`.
    #[schemars(length(min = 1, max = 65536))]
    certificate: Option<String>,
    /// The public key (PEM, a JWK, an OpenSSH line, Base64 DER) the key should belong to.
    public_key: Option<KeyInput>,
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct KeysMatchOutput {
    /// Whether the private key's public half is the other key.
    #[serde(rename = "match")]
    matches: bool,
    /// Why, in words.
    reason: String,
    /// RFC 7638 thumbprint of the private key's public half.
    private_key_thumbprint: String,
    /// RFC 7638 thumbprint of the other key.
    other_thumbprint: String,
}

/// Check that a private key belongs to a certificate or public key.
///
/// Derives the private key's public half and compares it with the certificate's key or the
/// public key given (modulus and exponent, curve and point, or the Ed25519 key), answering
/// whether they are one key pair and both RFC 7638 thumbprints.
#[op(post "/v1/keys/match" as keysMatch, tag = SecurityAndValidation, cpu,
     rejects = "a public key where the private key goes, neither or both of certificate and publicKey, or a key wrench cannot read",
     example(same_pair, {"privateKey": {"kty": "OKP", "crv": "Ed25519", "d": "nWGxne_9WmC6hEr0kuwsxERJxWl7MmkZcDusAxyuf2A", "x": "11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo"},
        "publicKey": "-----BEGIN PUBLIC KEY-----\nMCowBQYDK2VwAyEA11qYAYKxCrfVS/7TyWQHOg7hcvPapiMlrwIaaPcHURo=\n-----END PUBLIC KEY-----\n"}),
     example(other_type, {"privateKey": {"kty": "OKP", "crv": "Ed25519", "d": "nWGxne_9WmC6hEr0kuwsxERJxWl7MmkZcDusAxyuf2A", "x": "11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo"},
        "publicKey": {"kty": "EC", "crv": "P-256", "x": "f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU", "y": "x_FEzRu9m36HLN_tue659LNpXW6pCyStikYjKIWI5a0"}}),
     example(public_as_private, {"privateKey": "-----BEGIN PUBLIC KEY-----\nMCowBQYDK2VwAyEA11qYAYKxCrfVS/7TyWQHOg7hcvPapiMlrwIaaPcHURo=\n-----END PUBLIC KEY-----\n",
        "publicKey": "-----BEGIN PUBLIC KEY-----\nMCowBQYDK2VwAyEA11qYAYKxCrfVS/7TyWQHOg7hcvPapiMlrwIaaPcHURo=\n-----END PUBLIC KEY-----\n"}, status = 400))]
async fn keys_match(input: KeysMatchInput) -> Result<KeysMatchOutput, ApiError> {
    let (private, _) =
        load::read_with("privateKey", &input.private_key, input.passphrase.as_deref().map(str::as_bytes))?;
    if !private.is_private_pair() {
        return Err(ApiError::invalid("privateKey", format!("is {}, not a private key", private.describe())));
    }
    let other = match (&input.certificate, &input.public_key) {
        (Some(cert), None) => {
            let text = cert.trim();
            let der = if pem::looks_like_pem(text) {
                let blocks = pem::blocks(text, 16).map_err(|e| ApiError::invalid("certificate", e))?;
                blocks
                    .into_iter()
                    .find(|b| b.label.ends_with("CERTIFICATE"))
                    .map(|b| b.der)
                    .ok_or_else(|| ApiError::invalid("certificate", "holds no CERTIFICATE PEM block"))?
            } else {
                wrench_kit::byte_encoding::decode(
                    text,
                    wrench_kit::byte_encoding::InputEncoding::Base64,
                    "certificate",
                )?
            };
            der::read_certificate_key(&der).map_err(|e| ApiError::invalid("certificate", e))?
        }
        (None, Some(key)) => load::read("publicKey", key)?.0,
        _ => return Err(ApiError::invalid("publicKey", "give one of `certificate` and `publicKey`")),
    };
    let matches = private.same_public(&other);
    let reason = if matches {
        format!("the private key is {} whose public half is the other key", private.describe())
    } else if private.kind() != other.kind() {
        format!("the private key is {}; the other is {}", private.describe(), other.describe())
    } else {
        format!("both are {} keys, but not one pair: the public values differ", private.kind())
    };
    Ok(KeysMatchOutput {
        matches,
        reason,
        private_key_thumbprint: jwk::thumbprint(&private.public()),
        other_thumbprint: jwk::thumbprint(&other.public()),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::fixture;

    #[tokio::test]
    async fn pairs_match_and_strangers_do_not() {
        let f = fixture("jose.json");
        let keys = f["keys"].as_object().unwrap();
        for (a, ka) in keys {
            for (b, kb) in keys {
                let input = KeysMatchInput {
                    private_key: KeyInput::Text(ka["pkcs8"].as_str().unwrap().into()),
                    passphrase: None,
                    certificate: None,
                    public_key: Some(KeyInput::Text(kb["spki"].as_str().unwrap().into())),
                };
                let out = keys_match(input).await.unwrap();
                assert_eq!(out.matches, a == b, "{a} against {b}: {}", out.reason);
            }
        }
        // Certificates made by PyPI cryptography, against their own keys and the others.
        for (a, ka) in keys {
            for (b, kb) in keys.iter().filter(|(_, k)| k["certificate"].is_string()) {
                let input = KeysMatchInput {
                    private_key: KeyInput::Jwk(ka["jwkPrivate"].as_object().unwrap().clone()),
                    passphrase: None,
                    certificate: Some(kb["certificate"].as_str().unwrap().into()),
                    public_key: None,
                };
                let out = keys_match(input).await.unwrap();
                assert_eq!(out.matches, a == b, "{a} against the certificate of {b}: {}", out.reason);
            }
        }
    }
}
