//! PEM armour (RFC 7468): the labelled Base64 blocks keys, certificates and requests travel in.
//!
//! Text outside the blocks is ignored, as OpenSSL ignores it (a certificate's `-text` dump may
//! precede it). A block with RFC 1421 header lines (`Proc-Type: 4,ENCRYPTED`, the legacy
//! OpenSSL encryption) is reported as encrypted rather than read as Base64.

use base64::{Engine, engine::general_purpose::STANDARD};

/// One `-----BEGIN label-----` ... `-----END label-----` block.
#[derive(Debug)]
pub(crate) struct Block {
    pub(crate) label: String,
    pub(crate) der: Vec<u8>,
    /// The block carries `Proc-Type: 4,ENCRYPTED` (its body is ciphertext).
    pub(crate) legacy_encrypted: bool,
}

/// Whether `text` holds PEM armour at all.
pub(crate) fn looks_like_pem(text: &str) -> bool {
    text.contains("-----BEGIN ")
}

/// Every block of `text`, in order; at most `max` (more is an error naming the limit).
pub(crate) fn blocks(text: &str, max: usize) -> Result<Vec<Block>, String> {
    let mut out = Vec::new();
    for (i, block) in text.split("-----BEGIN ").skip(1).enumerate() {
        let (label, rest) =
            block.split_once("-----").ok_or_else(|| format!("PEM block {} has no end to its BEGIN line", i + 1))?;
        let end = format!("-----END {label}-----");
        let (body, _) =
            rest.split_once(&end).ok_or_else(|| format!("PEM block {} ({label}) has no `{end}` line", i + 1))?;
        if out.len() == max {
            return Err(format!("holds more than {max} PEM blocks, the limit"));
        }
        let legacy_encrypted = body.lines().any(|l| l.trim().eq_ignore_ascii_case("Proc-Type: 4,ENCRYPTED"));
        let payload: String = if body.contains(':') {
            // RFC 1421 headers end at the first empty line.
            body.split_once("\n\n").or_else(|| body.split_once("\r\n\r\n")).map_or(body, |(_, b)| b).to_string()
        } else {
            body.to_string()
        };
        let b64: String = payload.chars().filter(|c| !c.is_whitespace()).collect();
        let der = if legacy_encrypted {
            Vec::new()
        } else {
            STANDARD.decode(&b64).map_err(|e| format!("PEM block {} ({label}) is not Base64: {e}", i + 1))?
        };
        out.push(Block { label: label.to_string(), der, legacy_encrypted });
    }
    if out.is_empty() {
        return Err("holds `-----BEGIN` but no complete PEM block".into());
    }
    Ok(out)
}

/// A private key as PKCS#8 PEM (`PRIVATE KEY`).
pub(crate) fn pkcs8(key: &super::model::Key) -> Result<String, String> {
    Ok(armour("PRIVATE KEY", &super::der::write_pkcs8(key)?))
}

/// `der` armoured under `label`, lines of 64 characters (RFC 7468 section 2).
pub(crate) fn armour(label: &str, der: &[u8]) -> String {
    let b64 = STANDARD.encode(der);
    let mut out = format!("-----BEGIN {label}-----\n");
    for line in b64.as_bytes().chunks(64) {
        out.push_str(std::str::from_utf8(line).unwrap_or_default());
        out.push('\n');
    }
    out.push_str(&format!("-----END {label}-----\n"));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blocks_round_trip_and_broken_armour_is_named() {
        let der: Vec<u8> = (0..=255).collect();
        let text = format!("leading text\n{}{}", armour("PUBLIC KEY", &der), armour("CERTIFICATE", b"x"));
        let read = blocks(&text, 4).unwrap();
        assert_eq!(read.len(), 2);
        assert_eq!((read[0].label.as_str(), read[0].der.clone()), ("PUBLIC KEY", der));
        assert!(text.lines().all(|l| l.len() <= 64));
        assert!(blocks(&text, 1).unwrap_err().contains("more than 1"));
        assert!(blocks("-----BEGIN X-----\nAAAA\n", 4).unwrap_err().contains("-----END X-----"));
        assert!(blocks("-----BEGIN X-----\n!!!!\n-----END X-----", 4).unwrap_err().contains("not Base64"));
        let legacy = "-----BEGIN RSA PRIVATE KEY-----\nProc-Type: 4,ENCRYPTED\nDEK-Info: AES-128-CBC,00\n\nAAAA\n-----END RSA PRIVATE KEY-----\n";
        assert!(blocks(legacy, 4).unwrap()[0].legacy_encrypted);
    }
}
