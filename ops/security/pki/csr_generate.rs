//! `csr/generate`: a PKCS#10 certificate signing request, with a new key or the caller's.

use wrench_contract::prelude::*;

use super::request::{self, MAX_SANS, NewKeyType, SubjectInput};
use crate::security::keys::{der, jwk, load::KeyInput, pem};

#[derive(Debug, Deserialize, JsonSchema, Validate)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct CsrGenerateInput {
    /// The subject's attributes: `cn`, `o`, `ou`, `l`, `st`, `c`, `email`.
    #[serde(default, deserialize_with = "wrench_contract::decode::no_array")]
    subject: Option<SubjectInput>,
    /// Subject alternative names: DNS names, IP addresses, e-mail addresses (with `@`) and URIs
    /// (with `://`), each typed by its form.
    #[serde(default)]
    #[schemars(length(max = 100))]
    sans: Vec<String>,
    /// The type of a new key: `ec-p256` (the default), `ec-p384`, `rsa-2048`, `rsa-3072`,
    /// `rsa-4096` or `ed25519`. Not with `privateKey`.
    key_type: Option<NewKeyType>,
    /// Sign with this key instead of a new one (PEM, JWK or OpenSSH private key).
    private_key: Option<KeyInput>,
    /// The passphrase of an encrypted `privateKey`.
    #[schemars(length(min = 1, max = 1024))]
    passphrase: Option<String>,
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct CsrGenerateOutput {
    /// The request, PEM (`CERTIFICATE REQUEST`).
    csr: String,
    /// The new key as PKCS#8 PEM; null when `privateKey` was given.
    private_key: Option<String>,
    /// The public key as SubjectPublicKeyInfo PEM.
    public_key: String,
    /// RFC 7638 thumbprint of the public key.
    key_thumbprint: String,
}

/// Generate a certificate signing request.
///
/// Writes a PKCS#10 request for the subject (CN, O, OU, L, ST, C, e-mail) and subject
/// alternative names given (DNS names, IP addresses, e-mail addresses and URIs, each typed by
/// its form), signed with a new key (EC P-256 by default, P-384, RSA 2048 to 4096, Ed25519) or
/// with the caller's private key. The new key comes back as PKCS#8 PEM and is not kept.
#[op(post "/v1/csr/generate" as csrGenerate, tag = SecurityAndValidation, cpu,
     rejects = "no subject and no names, a name that is not one of the four forms, or a key certificates are not signed with",
     redact(".data.csr", ".data.privateKey", ".data.publicKey", ".data.keyThumbprint"),
     example(web_server, {"subject": {"cn": "example.com", "o": "Example Ltd", "c": "GB"}, "sans": ["example.com", "www.example.com", "192.0.2.10"]}),
     example(with_own_key, {"subject": {"cn": "svc.internal"},
        "privateKey": {"kty": "OKP", "crv": "Ed25519", "d": "nWGxne_9WmC6hEr0kuwsxERJxWl7MmkZcDusAxyuf2A", "x": "11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo"}}),
     example(nothing_to_certify, {"keyType": "ec-p256"}, status = 400))]
async fn csr_generate(input: CsrGenerateInput) -> Result<CsrGenerateOutput, ApiError> {
    let subject = input.subject.unwrap_or_default();
    if subject.is_empty() && input.sans.is_empty() {
        return Err(ApiError::invalid("subject", "give a subject or at least one name in sans"));
    }
    if input.sans.len() > MAX_SANS {
        return Err(ApiError::invalid("sans", format!("must have at most {MAX_SANS} items")));
    }
    let (key, new) = request::signing_key(input.key_type, input.private_key.as_ref(), input.passphrase.as_deref())?;
    let pair = request::rcgen_key(&key)?;
    let mut params = rcgen::CertificateParams::default();
    params.distinguished_name = subject.name()?;
    params.subject_alt_names = request::sans(&input.sans)?;
    let csr = params
        .serialize_request(&pair)
        .and_then(|r| r.pem())
        .map_err(|e| ApiError::internal(format!("the request could not be written: {e}")))?;
    let public = key.public();
    Ok(CsrGenerateOutput {
        csr,
        private_key: if new { Some(pem::pkcs8(&key).map_err(ApiError::internal)?) } else { None },
        public_key: pem::armour("PUBLIC KEY", &der::write_spki(&public).map_err(ApiError::internal)?),
        key_thumbprint: jwk::thumbprint(&public),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A request wrench writes reads back, through csr/parse, to what was asked, signed by the
    /// key answered.
    #[tokio::test]
    async fn requests_read_back_to_what_was_asked() {
        for key_type in ["ec-p256", "ec-p384", "rsa-2048", "ed25519"] {
            let input = json!({"subject": {"cn": "a, b.example", "o": "Org", "ou": "Unit", "l": "Town", "st": "Shire", "c": "GB", "email": "ops@b.example"},
                "sans": ["b.example", "192.0.2.1", "2001:db8::2", "ops@b.example", "https://b.example/x"], "keyType": key_type});
            let out = csr_generate(serde_json::from_value(input).unwrap()).await.unwrap();
            let parsed = super::super::csr_parse::tests_support::parse(&out.csr).await;
            assert_eq!(parsed["signatureValid"], true, "{key_type}");
            assert_eq!(
                parsed["subject"]["rfc4514"],
                "1.2.840.113549.1.9.1=ops@b.example,CN=a\\, b.example,OU=Unit,O=Org,L=Town,ST=Shire,C=GB",
                "{key_type}"
            );
            assert_eq!(
                parsed["sans"],
                json!({"dns": ["b.example"], "ip": ["192.0.2.1", "2001:db8::2"], "email": ["ops@b.example"], "uri": ["https://b.example/x"]})
            );
            let spki = pem::blocks(&out.public_key, 1).unwrap().remove(0).der;
            use base64::Engine;
            let pin = base64::engine::general_purpose::STANDARD.encode(<sha2::Sha256 as sha2::Digest>::digest(&spki));
            assert_eq!(parsed["publicKey"]["spkiSha256"], pin, "{key_type}");
            assert!(out.private_key.is_some());
        }
        let e = csr_generate(serde_json::from_value(json!({"sans": ["has space"]})).unwrap()).await.unwrap_err();
        assert_eq!(e.field.as_deref(), Some("sans[0]"));
        let e = csr_generate(serde_json::from_value(json!({"sans": ["x.example"], "keyType": "ec-p256",
            "privateKey": {"kty": "OKP", "crv": "Ed25519", "d": "nWGxne_9WmC6hEr0kuwsxERJxWl7MmkZcDusAxyuf2A", "x": "11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo"}})).unwrap())
            .await
            .unwrap_err();
        assert_eq!(e.field.as_deref(), Some("keyType"));
    }
}
