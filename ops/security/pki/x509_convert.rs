//! `x509/convert`: certificates (and a key) between PEM, DER, PKCS#7 and PKCS#12.

use base64::{Engine, engine::general_purpose::STANDARD};

use wrench_contract::prelude::*;
use wrench_kit::byte_encoding::{self, InputEncoding};

use super::{pkcs7, pkcs12};
use crate::security::keys::{
    der,
    load::{self, KeyInput},
    pem,
};

/// Most certificates converted at once.
const MAX_CERTIFICATES: usize = 64;

/// A container of certificates.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema, Validate)]
#[serde(rename_all = "lowercase")]
enum CertificateForm {
    /// PEM `CERTIFICATE` blocks, one after another.
    Pem,
    /// One certificate in DER.
    Der,
    /// PKCS#7 certificates-only SignedData (`.p7b`), DER; PEM `PKCS7` is read too.
    Pkcs7,
    /// PKCS#12 (`.p12`, `.pfx`) with `password`; holds a private key too.
    Pkcs12,
}

#[derive(Debug, Deserialize, JsonSchema, Validate)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct X509ConvertInput {
    /// The certificates: text for PEM, bytes in `inputEncoding` for the others.
    #[schemars(length(min = 1, max = 1048576))]
    input: String,
    /// How binary input is written: `base64` (the default), `base64url` or `hex`. PEM is read
    /// as text whatever this says.
    #[serde(default = "wrench_kit::byte_encoding::base64_input")]
    input_encoding: InputEncoding,
    /// The input's form.
    from: CertificateForm,
    /// The output's form. DER holds one certificate: the first.
    to: CertificateForm,
    /// The PKCS#12 password, to open the input or to protect the output (it may be empty, as
    /// `openssl pkcs12 -passout pass:` allows).
    #[schemars(length(max = 1024))]
    password: Option<String>,
    /// A private key to put in a PKCS#12 output beside the certificates (PEM, JWK or OpenSSH);
    /// it must belong to the first certificate.
    private_key: Option<KeyInput>,
    /// The passphrase of an encrypted `privateKey`.
    #[schemars(length(min = 1, max = 1024))]
    key_passphrase: Option<String>,
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct X509ConvertOutput {
    to: CertificateForm,
    /// The result: PEM text, or the bytes in Base64 (`outputEncoding`).
    output: String,
    /// `utf-8` for PEM, `base64` for the binary forms.
    output_encoding: String,
    /// Certificates in the result.
    certificates: usize,
    /// Whether the result holds a private key (PKCS#12 only).
    has_private_key: bool,
    /// The PKCS#12 input's private key as PKCS#8 PEM, when it held one and the output is not
    /// PKCS#12.
    private_key: Option<String>,
}

/// Convert certificates between PEM, DER, PKCS#7 and PKCS#12.
///
/// Reads certificates as PEM, one DER certificate, a PKCS#7 bundle (`.p7b`) or a PKCS#12 file
/// (with its password; its private key is answered as PKCS#8 PEM), and writes them as PEM, DER
/// (the first certificate), PKCS#7, or PKCS#12 protected by `password` (PBES2 with AES-256-CBC
/// and an HMAC-SHA256 MAC, as OpenSSL 3 writes), with the private key given or carried over.
#[op(post "/v1/x509/convert" as x509Convert, tag = SecurityAndValidation, cpu,
     rejects = "input that is not the form named, a wrong PKCS#12 password, or a key that does not belong to the first certificate",
     redact(".data.output"),
     example(pem_to_pkcs7, {"from": "pem", "to": "pkcs7", "input": "-----BEGIN CERTIFICATE-----
MIIBlzCCAT2gAwIBAgIUVZiUNoHK3P1dhYVD0YnZ6p0pzakwCgYIKoZIzj0EAwIw
FjEUMBIGA1UEAwwLZXhhbXBsZS5jb20wHhcNMjYxMTI5MDQ0NTMwWhcNMzYxMTI2
MDQ0NTMwWjAWMRQwEgYDVQQDDAtleGFtcGxlLmNvbTBZMBMGByqGSM49AgEGCCqG
SM49AwEHA0IABEOa5PiSpevUux/1GV2Z7yxR/nElewVi4il+DKrDj+f+HXoakBVM
FJe1+Nua/+WbeOd3TRlkbb5maGLNwbSCRH+jaTBnMB0GA1UdDgQWBBRUTNEgdWCq
n+/vOvytiTd+mZViqDAfBgNVHSMEGDAWgBRUTNEgdWCqn+/vOvytiTd+mZViqDAU
BgNVHREEDTALgglsb2NhbGhvc3QwDwYDVR0TAQH/BAUwAwEB/zAKBggqhkjOPQQD
AgNIADBFAiEAkhVQ8b4rlfgvUEHjoCbipV33+FCStdi5xVdZdgACNLYCIE6m1OEY
zIAXMgo3HqXq6do2esjOkeIVYGfNHQ+TfWgy
-----END CERTIFICATE-----
"}),
     example(pem_to_pkcs12, {"from": "pem", "to": "pkcs12", "password": "correct horse", "input": "-----BEGIN CERTIFICATE-----
MIIBlzCCAT2gAwIBAgIUVZiUNoHK3P1dhYVD0YnZ6p0pzakwCgYIKoZIzj0EAwIw
FjEUMBIGA1UEAwwLZXhhbXBsZS5jb20wHhcNMjYxMTI5MDQ0NTMwWhcNMzYxMTI2
MDQ0NTMwWjAWMRQwEgYDVQQDDAtleGFtcGxlLmNvbTBZMBMGByqGSM49AgEGCCqG
SM49AwEHA0IABEOa5PiSpevUux/1GV2Z7yxR/nElewVi4il+DKrDj+f+HXoakBVM
FJe1+Nua/+WbeOd3TRlkbb5maGLNwbSCRH+jaTBnMB0GA1UdDgQWBBRUTNEgdWCq
n+/vOvytiTd+mZViqDAfBgNVHSMEGDAWgBRUTNEgdWCqn+/vOvytiTd+mZViqDAU
BgNVHREEDTALgglsb2NhbGhvc3QwDwYDVR0TAQH/BAUwAwEB/zAKBggqhkjOPQQD
AgNIADBFAiEAkhVQ8b4rlfgvUEHjoCbipV33+FCStdi5xVdZdgACNLYCIE6m1OEY
zIAXMgo3HqXq6do2esjOkeIVYGfNHQ+TfWgy
-----END CERTIFICATE-----
"}),
     example(not_pkcs7, {"from": "pkcs7", "to": "pem", "input": "AAAA"}, status = 400))]
async fn x509_convert(input: X509ConvertInput) -> Result<X509ConvertOutput, ApiError> {
    let bad = |m: String| ApiError::invalid("input", m);
    let text = input.input.trim();
    let binary = |text: &str| byte_encoding::decode(text, input.input_encoding, "input");
    let mut carried_key: Option<Vec<u8>> = None;
    let certificates: Vec<Vec<u8>> = match input.from {
        CertificateForm::Pem => {
            let blocks = pem::blocks(text, MAX_CERTIFICATES * 2).map_err(bad)?;
            blocks.into_iter().filter(|b| b.label.ends_with("CERTIFICATE")).map(|b| b.der).collect()
        }
        CertificateForm::Der => vec![binary(text)?],
        CertificateForm::Pkcs7 => {
            let der = if pem::looks_like_pem(text) {
                pem::blocks(text, 4)
                    .map_err(bad)?
                    .into_iter()
                    .find(|b| b.label == "PKCS7")
                    .map(|b| b.der)
                    .ok_or_else(|| bad("holds no PKCS7 PEM block".into()))?
            } else {
                binary(text)?
            };
            pkcs7::read(&der).map_err(bad)?
        }
        CertificateForm::Pkcs12 => {
            let password = input.password.as_deref().unwrap_or("");
            let contents = pkcs12::read(&binary(text)?, password).map_err(bad)?;
            carried_key = contents.key;
            contents.certificates
        }
    };
    if certificates.is_empty() {
        return Err(bad("holds no certificate".into()));
    }
    if certificates.len() > MAX_CERTIFICATES {
        return Err(bad(format!("holds more than {MAX_CERTIFICATES} certificates")));
    }
    for (i, c) in certificates.iter().enumerate() {
        der::read_certificate_key(c).map_err(|e| bad(format!("certificate {} {e}", i + 1)))?;
    }
    let given_key = match &input.private_key {
        None => None,
        Some(k) => {
            if input.to != CertificateForm::Pkcs12 {
                return Err(ApiError::invalid("privateKey", "only a PKCS#12 output holds a private key"));
            }
            let (key, _) = load::read_with("privateKey", k, input.key_passphrase.as_deref().map(str::as_bytes))?;
            let first = der::read_certificate_key(&certificates[0]).map_err(bad)?;
            if !key.is_private() || !key.same_public(&first) {
                return Err(ApiError::invalid("privateKey", "does not belong to the first certificate"));
            }
            Some(der::write_pkcs8(&key).map_err(|e| ApiError::invalid("privateKey", e))?)
        }
    };
    let (output, encoding, count, has_key) = match input.to {
        CertificateForm::Pem => {
            let text: String = certificates.iter().map(|c| pem::armour("CERTIFICATE", c)).collect();
            (text, "utf-8", certificates.len(), false)
        }
        CertificateForm::Der => (STANDARD.encode(&certificates[0]), "base64", 1, false),
        CertificateForm::Pkcs7 => (STANDARD.encode(pkcs7::write(&certificates)), "base64", certificates.len(), false),
        CertificateForm::Pkcs12 => {
            let password = input
                .password
                .as_deref()
                .ok_or_else(|| ApiError::invalid("password", "a PKCS#12 output needs a password (it may be empty)"))?;
            let key = given_key.or(carried_key.take());
            let p12 = pkcs12::write(&certificates, key.as_deref(), password);
            (STANDARD.encode(p12), "base64", certificates.len(), key.is_some())
        }
    };
    // A key read from a PKCS#12 input comes back as PEM unless it went into a PKCS#12 output.
    let private_key = carried_key.as_ref().map(|k| pem::armour("PRIVATE KEY", k));
    Ok(X509ConvertOutput {
        to: input.to,
        output,
        output_encoding: encoding.to_string(),
        certificates: count,
        has_private_key: has_key,
        private_key,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::fixture;

    async fn convert(input: serde_json::Value) -> Result<X509ConvertOutput, ApiError> {
        x509_convert(serde_json::from_value(input).expect("the test input reads")).await
    }

    /// A chain through every form and back comes out as it went in, with the key.
    #[tokio::test]
    async fn every_form_round_trips() {
        let x509 = fixture("x509.json");
        let chain: String = x509.as_array().unwrap().iter().take(3).map(|c| c["pem"].as_str().unwrap()).collect();
        let p7 = convert(json!({"input": chain, "from": "pem", "to": "pkcs7"})).await.unwrap();
        let back = convert(json!({"input": p7.output, "from": "pkcs7", "to": "pem"})).await.unwrap();
        assert_eq!(back.output, chain.replace("\r", ""));
        let der = convert(json!({"input": chain, "from": "pem", "to": "der"})).await.unwrap();
        let one = convert(json!({"input": der.output, "from": "der", "to": "pem"})).await.unwrap();
        assert!(chain.starts_with(&one.output));

        let keys = fixture("jose.json")["keys"].clone();
        let cert = keys["p256"]["certificate"].as_str().unwrap();
        let p12 = convert(json!({"input": cert, "from": "pem", "to": "pkcs12", "password": "pw", "privateKey": keys["p256"]["pkcs8"]}))
            .await
            .unwrap();
        assert!(p12.has_private_key);
        let out = convert(json!({"input": p12.output, "from": "pkcs12", "to": "pem", "password": "pw"})).await.unwrap();
        assert_eq!(out.output, cert);
        assert_eq!(out.private_key.as_deref(), keys["p256"]["pkcs8"].as_str());
        let wrong =
            convert(json!({"input": p12.output, "from": "pkcs12", "to": "pem", "password": "no"})).await.unwrap_err();
        assert!(wrong.message.contains("password is wrong"), "{}", wrong.message);
        // A key that is not the certificate's.
        let e = convert(json!({"input": cert, "from": "pem", "to": "pkcs12", "password": "pw", "privateKey": keys["p384"]["pkcs8"]}))
            .await
            .unwrap_err();
        assert_eq!(e.field.as_deref(), Some("privateKey"));
    }
}
