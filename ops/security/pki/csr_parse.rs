//! `csr/parse`: a PKCS#10 certificate signing request (RFC 2986): its subject, key, requested
//! extensions and attributes, and whether its signature verifies with its own key.

use x509_parser::certification_request::X509CertificationRequest;
use x509_parser::cri_attributes::ParsedCriAttribute;
use x509_parser::prelude::FromDer;

use wrench_contract::prelude::*;
use wrench_kit::byte_encoding::{self, InputEncoding};

use super::fields::{Extensions, KeyInfo, SubjectAltNames, extensions, key_info, oid_name, signature_verifies};
use super::names::{self, Name};
use crate::security::keys::pem;

#[derive(Debug, Deserialize, JsonSchema, Validate)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct CsrParseInput {
    /// The request: PEM (`CERTIFICATE REQUEST`), or DER written as `inputEncoding` says.
    #[schemars(length(min = 1, max = 65536))]
    input: String,
    /// How a DER request is written: `base64` (the default), `base64url` or `hex`. PEM is
    /// detected.
    #[serde(default = "wrench_kit::byte_encoding::base64_input")]
    input_encoding: InputEncoding,
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct CsrAttribute {
    oid: String,
    name: Option<String>,
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct CsrParseOutput {
    subject: Name,
    /// The subject alternative names requested.
    sans: SubjectAltNames,
    public_key: KeyInfo,
    /// The signature algorithm's name (`sha256WithRSAEncryption`, `ecdsa-with-SHA256`, `ED25519`).
    signature_algorithm: String,
    signature_algorithm_oid: String,
    /// Whether the request's signature verifies with its own key (proof of possession); null
    /// for a signature algorithm wrench does not verify.
    signature_valid: Option<bool>,
    /// PKCS#10 version (1).
    version: u32,
    /// The extensions requested (from the extensionRequest attribute).
    extensions: Extensions,
    /// Whether a challenge password is present (its value is not repeated).
    has_challenge_password: bool,
    /// Every attribute's OID and name.
    attributes: Vec<CsrAttribute>,
}

/// Parse a certificate signing request and check its signature.
///
/// Reads a PKCS#10 request (PEM or DER) and answers its subject (RFC 4514 and by attribute),
/// the subject alternative names and other extensions it asks for, its public key (type, size,
/// curve, SPKI pin), its signature algorithm, whether that signature verifies with the
/// request's own key, and its attributes. A challenge password is reported as present, never
/// repeated.
#[op(post "/v1/csr/parse" as csrParse, tag = SecurityAndValidation,
     rejects = "input that is not a PKCS#10 request",
     example(ed25519_request, {"input": "-----BEGIN CERTIFICATE REQUEST-----
MIHoMIGbAgEAMCgxFDASBgNVBAMMC2V4YW1wbGUuY29tMRAwDgYDVQQKDAdFeGFt
cGxlMCowBQYDK2VwAyEA11qYAYKxCrfVS/7TyWQHOg7hcvPapiMlrwIaaPcHURqg
QDA+BgkqhkiG9w0BCQ4xMTAvMC0GA1UdEQQmMCSCC2V4YW1wbGUuY29tgg93d3cu
ZXhhbXBsZS5jb22HBH8AAAEwBQYDK2VwA0EAC+p5PKIbGRTi6yH/lBaJyi/jP+KG
CJ3+6zbGSZlUEZNhmwNWPFoqLIkJZ2Beb13AoMz33oFW+xtC+bQVICoLCQ==
-----END CERTIFICATE REQUEST-----
"}),
     example(not_a_request, {"input": "-----BEGIN CERTIFICATE REQUEST-----\nAAAA\n-----END CERTIFICATE REQUEST-----\n"}, status = 400))]
async fn csr_parse(input: CsrParseInput) -> Result<CsrParseOutput, ApiError> {
    let text = input.input.trim();
    let der = if pem::looks_like_pem(text) {
        let blocks = pem::blocks(text, 16).map_err(|e| ApiError::invalid("input", e))?;
        blocks
            .into_iter()
            .find(|b| b.label == "CERTIFICATE REQUEST" || b.label == "NEW CERTIFICATE REQUEST")
            .map(|b| b.der)
            .ok_or_else(|| ApiError::invalid("input", "holds no CERTIFICATE REQUEST PEM block"))?
    } else {
        byte_encoding::decode(text, input.input_encoding, "input")?
    };
    let (rest, csr) = X509CertificationRequest::from_der(&der)
        .map_err(|e| ApiError::invalid("input", format!("is not a PKCS#10 certificate request: {e}")))?;
    if !rest.is_empty() {
        return Err(ApiError::invalid("input", format!("has {} bytes after the request", rest.len())));
    }
    let info = &csr.certification_request_info;
    let mut sans = SubjectAltNames { dns: Vec::new(), ip: Vec::new(), email: Vec::new(), uri: Vec::new() };
    let mut requested = Extensions::default();
    let mut has_challenge_password = false;
    let mut attributes = Vec::new();
    for attribute in info.attributes() {
        attributes.push(CsrAttribute { oid: attribute.oid.to_id_string(), name: oid_name(&attribute.oid) });
        match attribute.parsed_attribute() {
            ParsedCriAttribute::ExtensionRequest(request) => requested = extensions(&request.extensions, &mut sans),
            ParsedCriAttribute::ChallengePassword(_) => has_challenge_password = true,
            _ => {}
        }
    }
    Ok(CsrParseOutput {
        subject: names::name(&info.subject),
        sans,
        public_key: key_info(&info.subject_pki),
        signature_algorithm: oid_name(&csr.signature_algorithm.algorithm)
            .unwrap_or_else(|| csr.signature_algorithm.algorithm.to_id_string()),
        signature_algorithm_oid: csr.signature_algorithm.algorithm.to_id_string(),
        signature_valid: signature_verifies(
            &csr.signature_algorithm,
            &info.subject_pki,
            info.raw,
            &csr.signature_value.data,
        ),
        version: info.version.0 + 1,
        extensions: requested,
        has_challenge_password,
        attributes,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// PyPI cryptography's reading of requests it made (tests/fixtures/csrs.py).
    #[tokio::test]
    async fn cryptography_reads_the_same_fields() {
        let cases = crate::testing::fixture("csrs.json");
        for case in cases.as_array().unwrap() {
            let input =
                CsrParseInput { input: case["pem"].as_str().unwrap().into(), input_encoding: InputEncoding::Base64 };
            let got = serde_json::to_value(csr_parse(input).await.unwrap()).unwrap();
            let context = case["subject"].as_str().unwrap();
            assert_eq!(got["subject"]["rfc4514"], case["subject"], "{context}");
            assert_eq!(got["sans"], case["sans"], "{context}");
            assert_eq!(got["publicKey"], case["publicKey"], "{context}");
            assert_eq!(got["signatureAlgorithmOid"], case["signatureAlgorithmOid"], "{context}");
            assert_eq!(got["signatureValid"], case["signatureValid"], "{context}");
            assert_eq!(got["hasChallengePassword"], case["hasChallengePassword"], "{context}");
            let mut usages: Vec<String> = serde_json::from_value(got["extensions"]["keyUsage"].clone()).unwrap();
            usages.sort();
            assert_eq!(serde_json::to_value(usages).unwrap(), case["keyUsage"], "{context}");
            let mut ekus: Vec<String> = serde_json::from_value(got["extensions"]["extKeyUsage"].clone()).unwrap();
            ekus.sort();
            assert_eq!(serde_json::to_value(ekus).unwrap(), case["extKeyUsage"], "{context}");
            assert_eq!(got["extensions"]["basicConstraints"], case["basicConstraints"], "{context}");
        }
    }
}

/// csr/parse's answer as JSON, for the other operations' tests.
#[cfg(test)]
pub(super) mod tests_support {
    pub(in crate::security::pki) async fn parse(pem: &str) -> serde_json::Value {
        let input = super::CsrParseInput { input: pem.into(), input_encoding: super::InputEncoding::Base64 };
        serde_json::to_value(super::csr_parse(input).await.unwrap()).unwrap()
    }
}
