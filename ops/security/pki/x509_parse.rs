//! `x509/parse`: every field of one certificate or a chain, PEM or DER, and whether the chain
//! is in order (each certificate signed by the next).

use sha1::Sha1;
use sha2::{Digest, Sha256};
use x509_parser::prelude::{FromDer, X509Certificate};

use wrench_contract::prelude::*;
use wrench_kit::byte_encoding::{self, InputEncoding};

use super::fields::{Extensions, KeyInfo, SubjectAltNames, extensions, key_info, oid_name, signature_verifies};
use super::names::{self, Name};

/// Whether `issuer`'s key verifies `cert`'s signature (see [`signature_verifies`]).
fn signed_by(cert: &X509Certificate<'_>, issuer: &X509Certificate<'_>) -> Option<bool> {
    signature_verifies(
        &cert.signature_algorithm,
        issuer.public_key(),
        cert.tbs_certificate.as_ref(),
        cert.signature_value.data.as_ref(),
    )
}

/// The most certificates one request may hold.
const MAX_CERTIFICATES: usize = 32;

#[derive(Debug, Deserialize, JsonSchema, Validate)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct X509ParseInput {
    /// One or more PEM certificates (`-----BEGIN CERTIFICATE-----`), or one DER certificate
    /// written as `inputEncoding` says.
    #[schemars(length(min = 1, max = 1048576))]
    input: String,
    /// How `input` carries its bytes: `utf-8` (the default, for PEM), `base64`, `base64url` or
    /// `hex` (for DER).
    #[serde(default)]
    input_encoding: InputEncoding,
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct Fingerprints {
    /// SHA-1 of the DER, lower-case hex.
    sha1: String,
    /// SHA-256 of the DER, lower-case hex.
    sha256: String,
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct Certificate {
    subject: Name,
    issuer: Name,
    /// The serial number, lower-case hex as encoded (no sign byte dropped).
    serial: String,
    /// The serial number in decimal.
    serial_decimal: String,
    /// X.509 version: 1, 2 or 3.
    version: u32,
    /// Start of validity, RFC 3339.
    not_before: String,
    /// End of validity, RFC 3339.
    not_after: String,
    /// Whole days from now until `notAfter` (negative once expired).
    days_remaining: i64,
    expired: bool,
    not_yet_valid: bool,
    sans: SubjectAltNames,
    public_key: KeyInfo,
    /// The signature algorithm's name (`sha256WithRSAEncryption`, `ecdsa-with-SHA256`).
    signature_algorithm: String,
    /// The signature algorithm's OID.
    signature_algorithm_oid: String,
    extensions: Extensions,
    fingerprints: Fingerprints,
    /// Whether subject and issuer are the same name.
    self_issued: bool,
    /// Whether it is self-issued and its signature verifies with its own key; null when its
    /// signature algorithm is one wrench does not verify.
    self_signed: Option<bool>,
    /// Whether basic constraints say it is a CA.
    is_ca: bool,
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct X509ParseOutput {
    /// Each certificate, in the order given.
    certificates: Vec<Certificate>,
    /// Whether each certificate's issuer is the next one's subject and the next one's key
    /// verifies its signature (a chain from the leaf up); null for one certificate, or when a
    /// signature algorithm is one wrench does not verify.
    chain_ordered: Option<bool>,
}

/// The DER certificates of `bytes`: every PEM `CERTIFICATE` block, or the bytes themselves.
fn certificates(bytes: &[u8]) -> Result<Vec<Vec<u8>>, ApiError> {
    let text = std::str::from_utf8(bytes).ok().filter(|t| t.contains("-----BEGIN"));
    let Some(text) = text else {
        return Ok(vec![bytes.to_vec()]);
    };
    let mut ders = Vec::new();
    for (i, block) in text.split("-----BEGIN ").skip(1).enumerate() {
        let (label, rest) = block
            .split_once("-----")
            .ok_or_else(|| ApiError::invalid("input", format!("PEM block {} has no header end", i + 1)))?;
        let (body, _) = rest
            .split_once("-----END ")
            .ok_or_else(|| ApiError::invalid("input", format!("PEM block {} ({label}) has no END line", i + 1)))?;
        if label != "CERTIFICATE" && label != "X509 CERTIFICATE" && label != "TRUSTED CERTIFICATE" {
            continue;
        }
        let b64: String = body.chars().filter(|c| !c.is_whitespace()).collect();
        let der = byte_encoding::decode(&b64, InputEncoding::Base64, "input")
            .map_err(|_| ApiError::invalid("input", format!("PEM block {} is not Base64", i + 1)))?;
        ders.push(der);
        if ders.len() > MAX_CERTIFICATES {
            return Err(ApiError::invalid("input", format!("holds more than {MAX_CERTIFICATES} certificates")));
        }
    }
    if ders.is_empty() {
        return Err(ApiError::invalid("input", "holds no CERTIFICATE PEM block"));
    }
    Ok(ders)
}

fn describe(der: &[u8], index: usize, now: i64) -> Result<(Certificate, X509Certificate<'_>), ApiError> {
    let (rest, cert) = X509Certificate::from_der(der).map_err(|e| {
        ApiError::invalid("input", format!("certificate {} is not an X.509 certificate: {e}", index + 1))
    })?;
    if !rest.is_empty() {
        return Err(ApiError::invalid("input", format!("certificate {} has {} bytes after it", index + 1, rest.len())));
    }
    let mut sans = SubjectAltNames { dns: Vec::new(), ip: Vec::new(), email: Vec::new(), uri: Vec::new() };
    let extensions = extensions(cert.extensions(), &mut sans);
    let not_before = cert.validity().not_before.timestamp();
    let not_after = cert.validity().not_after.timestamp();
    let self_issued = cert.subject().as_raw() == cert.issuer().as_raw();
    let self_signed = if self_issued { signed_by(&cert, &cert) } else { Some(false) };
    let rfc3339 = |t: i64| jiff::Timestamp::from_second(t).map(|t| t.to_string()).unwrap_or_else(|_| t.to_string());
    let summary = Certificate {
        subject: names::name(cert.subject()),
        issuer: names::name(cert.issuer()),
        serial: hex::encode(cert.raw_serial()),
        serial_decimal: cert.serial.to_string(),
        version: cert.version().0 + 1,
        not_before: rfc3339(not_before),
        not_after: rfc3339(not_after),
        days_remaining: (not_after - now).div_euclid(86_400),
        expired: now > not_after,
        not_yet_valid: now < not_before,
        sans,
        public_key: key_info(cert.public_key()),
        signature_algorithm: oid_name(&cert.signature_algorithm.algorithm)
            .unwrap_or_else(|| cert.signature_algorithm.algorithm.to_id_string()),
        signature_algorithm_oid: cert.signature_algorithm.algorithm.to_id_string(),
        is_ca: extensions.basic_constraints.as_ref().is_some_and(|b| b.ca),
        extensions,
        fingerprints: Fingerprints { sha1: hex::encode(Sha1::digest(der)), sha256: hex::encode(Sha256::digest(der)) },
        self_issued,
        self_signed,
    };
    Ok((summary, cert))
}

/// Parse an X.509 certificate or chain: names, dates, SANs, key, extensions.
///
/// Reads one or more PEM certificates, or one DER certificate in Base64 or hex, and answers
/// every field people look for: subject and issuer (RFC 4514 and by attribute), serial,
/// version, validity with the days left, subject alternative names, the public key (type,
/// size, curve, SPKI SHA-256 pin), the signature algorithm, the extensions (basic constraints,
/// key usages, key identifiers, CRL and OCSP URIs, policies, embedded SCTs, must-staple, and
/// every OID with its criticality), SHA-1 and SHA-256 fingerprints, and whether it is
/// self-signed. For a chain, `chainOrdered` says whether each certificate is signed by the
/// next. Nothing is fetched: revocation is not checked.
#[op(post "/v1/x509/parse" as x509Parse, tag = SecurityAndValidation,
     redact(".data.certificates[].daysRemaining", ".data.certificates[].expired", ".data.certificates[].notYetValid"),
     rejects = "input that holds no certificate, or one that does not parse",
     example(self_signed, {"input": "-----BEGIN CERTIFICATE-----
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
     example(not_a_certificate, {"input": "-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n"}, status = 400))]
async fn x509_parse(input: X509ParseInput) -> Result<X509ParseOutput, ApiError> {
    let bytes = byte_encoding::decode(&input.input, input.input_encoding, "input")?;
    let ders = certificates(&bytes)?;
    let now = wrench_infra::time::unix_secs() as i64;
    let mut parsed = Vec::with_capacity(ders.len());
    for (i, der) in ders.iter().enumerate() {
        parsed.push(describe(der, i, now)?);
    }
    let chain_ordered = if parsed.len() < 2 {
        None
    } else {
        let mut verdict = Some(true);
        for pair in parsed.windows(2) {
            let (child, parent) = (&pair[0].1, &pair[1].1);
            let linked = child.issuer().as_raw() == parent.subject().as_raw();
            verdict = match (verdict, if linked { signed_by(child, parent) } else { Some(false) }) {
                (Some(false), _) | (_, Some(false)) => Some(false),
                (None, _) | (_, None) => None,
                _ => Some(true),
            };
        }
        verdict
    };
    Ok(X509ParseOutput { certificates: parsed.into_iter().map(|(c, _)| c).collect(), chain_ordered })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// PyPI cryptography's reading of certificates it made (tests/fixtures/x509.py): every
    /// field x509/parse answers, for RSA, EC and Ed25519 keys, awkward names, every extension,
    /// and chains in and out of order.
    #[tokio::test]
    async fn cryptography_reads_the_same_fields() {
        let fixture = crate::testing::fixture("x509.json");
        let cases = fixture.as_array().unwrap();
        assert!(cases.len() >= 8);
        for case in cases {
            let input = X509ParseInput {
                input: case["pem"].as_str().unwrap().to_string(),
                input_encoding: InputEncoding::default(),
            };
            let out = x509_parse(input).await.unwrap();
            let got = serde_json::to_value(&out).unwrap();
            assert_eq!(got["chainOrdered"], case["chainOrdered"], "{}", case["pem"]);
            for (i, want) in case["expected"].as_array().unwrap().iter().enumerate() {
                let cert = &got["certificates"][i];
                let context = format!("certificate {i} of {}", case["pem"]);
                assert_eq!(cert["subject"]["rfc4514"], want["subject"], "{context}");
                assert_eq!(cert["issuer"]["rfc4514"], want["issuer"], "{context}");
                for field in [
                    "serialDecimal",
                    "version",
                    "notBefore",
                    "notAfter",
                    "sans",
                    "fingerprints",
                    "signatureAlgorithmOid",
                ] {
                    assert_eq!(cert[field], want[field], "{field} of {context}");
                }
                for (k, v) in want["publicKey"].as_object().unwrap() {
                    assert_eq!(&cert["publicKey"][k], v, "publicKey.{k} of {context}");
                }
                let ext = &cert["extensions"];
                for (k, v) in want["extensions"].as_object().unwrap() {
                    let mut got = ext[k].clone();
                    if let Some(list) = got.as_array_mut() {
                        list.sort_by_key(|v| v.to_string());
                    }
                    assert_eq!(&got, v, "extensions.{k} of {context}");
                }
                let oids: Vec<Value> =
                    ext["all"].as_array().unwrap().iter().map(|e| json!([e["oid"], e["critical"]])).collect();
                assert_eq!(Value::Array(oids), want["extensionOids"], "{context}");
                assert_eq!(cert["selfSigned"], case["selfSigned"][i], "{context}");
            }
        }
    }

    #[tokio::test]
    async fn der_and_broken_input_answer_as_documented() {
        let fixture = crate::testing::fixture("x509.json");
        let pem = fixture[0]["pem"].as_str().unwrap();
        let der = certificates(pem.as_bytes()).unwrap().remove(0);
        let hex_input = X509ParseInput { input: hex::encode(&der), input_encoding: InputEncoding::Hex };
        let out = x509_parse(hex_input).await.unwrap();
        assert_eq!(out.certificates.len(), 1);
        let mut cut = der.clone();
        cut.truncate(der.len() / 2);
        let e = x509_parse(X509ParseInput { input: hex::encode(&cut), input_encoding: InputEncoding::Hex })
            .await
            .unwrap_err();
        assert_eq!(e.field.as_deref(), Some("input"));
        let e = x509_parse(X509ParseInput {
            input: "-----BEGIN PUBLIC KEY-----\nAAAA\n-----END PUBLIC KEY-----\n".into(),
            input_encoding: InputEncoding::default(),
        })
        .await
        .unwrap_err();
        assert!(e.message.contains("no CERTIFICATE"), "{}", e.message);
    }
}
