//! `asn1/parse`: the tree of a DER or BER encoding, node by node, as `openssl asn1parse -i`
//! lists it (offset, depth, header length, length, primitive or constructed, type) with each
//! primitive value read.
//!
//! The walker is our own and strict about what it cannot walk: a length past the end, a
//! high-tag number over 32 bits, an indefinite length on a primitive, nesting past
//! [`MAX_DEPTH`] or more than [`MAX_NODES`] nodes are a 400 naming the offset. BER's indefinite
//! lengths are read on constructed values, as OpenSSL reads them.

use wrench_contract::prelude::*;
use wrench_kit::byte_encoding::{self, InputEncoding};

use crate::security::keys::pem;

/// Deepest nesting walked.
const MAX_DEPTH: usize = 64;
/// Most nodes listed.
const MAX_NODES: usize = 20_000;
/// Longest value text, in characters: longer values are cut (`truncated`).
const MAX_VALUE: usize = 1_024;

#[derive(Debug, Deserialize, JsonSchema, Validate)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct Asn1ParseInput {
    /// The encoding: PEM (its first block is read; detected whatever `inputEncoding` says), or
    /// bytes in `inputEncoding`.
    input: String,
    /// `base64` (the default), `hex`, `base64url` or `utf-8`.
    #[serde(default = "wrench_kit::byte_encoding::base64_input")]
    input_encoding: InputEncoding,
}

/// The class of a tag.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
enum TagClass {
    Universal,
    Application,
    ContextSpecific,
    Private,
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct Asn1Node {
    /// Where the node's header starts, in bytes from the start.
    offset: usize,
    depth: usize,
    /// Bytes of tag and length.
    header_length: usize,
    /// Bytes of content (for an indefinite length, up to the end-of-contents octets).
    length: usize,
    /// Whether the length was indefinite (BER).
    indefinite: bool,
    constructed: bool,
    class: TagClass,
    /// The tag number.
    tag: u32,
    /// The universal type's name (`SEQUENCE`, `INTEGER`, `OBJECT`...), or `[n]` for other
    /// classes, as OpenSSL names them.
    #[serde(rename = "type")]
    kind: String,
    /// A primitive's value: an OID dotted, an integer in hexadecimal (as OpenSSL) with its
    /// decimal when it has at most 38 digits, strings and times as text, other bytes in hex.
    value: Option<String>,
    /// The decimal value of a small INTEGER or ENUMERATED.
    decimal: Option<String>,
    /// The short name of an OID that has one (`commonName`, `sha256WithRSAEncryption`).
    oid_name: Option<String>,
    /// The value was longer than 1,024 characters and was cut.
    truncated: bool,
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct Asn1ParseOutput {
    /// Every node, in order (a parent before its children).
    nodes: Vec<Asn1Node>,
    /// Bytes read.
    bytes: usize,
    /// The PEM label, when the input was PEM.
    pem_label: Option<String>,
}

fn universal_name(tag: u32) -> &'static str {
    match tag {
        0 => "EOC",
        1 => "BOOLEAN",
        2 => "INTEGER",
        3 => "BIT STRING",
        4 => "OCTET STRING",
        5 => "NULL",
        6 => "OBJECT",
        7 => "OBJECT DESCRIPTOR",
        8 => "EXTERNAL",
        9 => "REAL",
        10 => "ENUMERATED",
        12 => "UTF8STRING",
        13 => "RELATIVE-OID",
        16 => "SEQUENCE",
        17 => "SET",
        18 => "NUMERICSTRING",
        19 => "PRINTABLESTRING",
        20 => "T61STRING",
        21 => "VIDEOTEXSTRING",
        22 => "IA5STRING",
        23 => "UTCTIME",
        24 => "GENERALIZEDTIME",
        25 => "GRAPHICSTRING",
        26 => "VISIBLESTRING",
        27 => "GENERALSTRING",
        28 => "UNIVERSALSTRING",
        30 => "BMPSTRING",
        _ => "",
    }
}

struct Walker<'a> {
    bytes: &'a [u8],
    nodes: Vec<Asn1Node>,
}

fn bad(offset: usize, what: impl std::fmt::Display) -> ApiError {
    ApiError::invalid("input", format!("at byte {offset}: {what}"))
}

/// Dotted form of an OID's content octets.
fn oid_text(content: &[u8]) -> Option<String> {
    let mut arcs: Vec<u128> = Vec::new();
    let mut value: u128 = 0;
    for (i, b) in content.iter().enumerate() {
        if value == 0 && *b == 0x80 {
            return None; // a non-minimal encoding
        }
        value = value.checked_mul(128)? | u128::from(b & 0x7f);
        if b & 0x80 == 0 {
            if arcs.is_empty() {
                let first = (value / 40).min(2);
                arcs.push(first);
                arcs.push(value - first * 40);
            } else {
                arcs.push(value);
            }
            value = 0;
        } else if i == content.len() - 1 {
            return None;
        }
    }
    if arcs.is_empty() {
        return None;
    }
    Some(arcs.iter().map(u128::to_string).collect::<Vec<_>>().join("."))
}

fn oid_name(dotted: &str) -> Option<String> {
    let oid: x509_parser::der_parser::oid::Oid<'static> = dotted.parse().ok()?;
    x509_parser::objects::oid2sn(&oid, x509_parser::objects::oid_registry()).ok().map(str::to_string)
}

/// A two's-complement integer's decimal, when it fits in 128 bits.
fn decimal(content: &[u8]) -> Option<String> {
    if content.is_empty() || content.len() > 16 {
        return None;
    }
    let negative = content[0] & 0x80 != 0;
    let mut v: i128 = if negative { -1 } else { 0 };
    for b in content {
        v = (v << 8) | i128::from(*b);
    }
    Some(v.to_string())
}

fn text_of(tag: u32, content: &[u8]) -> Option<String> {
    match tag {
        12 | 18 | 19 | 20 | 21 | 22 | 23 | 24 | 25 | 26 | 27 => Some(String::from_utf8_lossy(content).into_owned()),
        30 => {
            let units: Vec<u16> =
                content.chunks(2).map(|c| u16::from_be_bytes([c[0], *c.get(1).unwrap_or(&0)])).collect();
            Some(String::from_utf16_lossy(&units))
        }
        28 => Some(
            content
                .chunks(4)
                .filter_map(|c| {
                    (c.len() == 4).then(|| char::from_u32(u32::from_be_bytes([c[0], c[1], c[2], c[3]]))).flatten()
                })
                .collect(),
        ),
        _ => None,
    }
}

impl Walker<'_> {
    /// Reads the node at `at`; returns where it ends.
    fn node(&mut self, at: usize, depth: usize, end: usize) -> Result<usize, ApiError> {
        if depth > MAX_DEPTH {
            return Err(bad(at, format!("nesting deeper than {MAX_DEPTH} levels, the limit")));
        }
        if self.nodes.len() == MAX_NODES {
            return Err(bad(at, format!("more than {MAX_NODES} nodes, the limit")));
        }
        let b = self.bytes;
        let first = *b.get(at).ok_or_else(|| bad(at, "the encoding ends where a tag should be"))?;
        let class = match first >> 6 {
            0 => TagClass::Universal,
            1 => TagClass::Application,
            2 => TagClass::ContextSpecific,
            _ => TagClass::Private,
        };
        let constructed = first & 0x20 != 0;
        let mut pos = at + 1;
        let mut tag = u32::from(first & 0x1f);
        if tag == 0x1f {
            tag = 0;
            loop {
                let byte =
                    *b.get(pos).filter(|_| pos < end).ok_or_else(|| bad(at, "the tag number runs past the end"))?;
                pos += 1;
                tag = tag.checked_mul(128).ok_or_else(|| bad(at, "a tag number of more than 32 bits"))?
                    | u32::from(byte & 0x7f);
                if byte & 0x80 == 0 {
                    break;
                }
            }
        }
        let len_byte =
            *b.get(pos).filter(|_| pos < end).ok_or_else(|| bad(at, "the encoding ends where a length should be"))?;
        pos += 1;
        let (length, indefinite) = if len_byte == 0x80 {
            if !constructed {
                return Err(bad(at, "an indefinite length on a primitive value"));
            }
            (None, true)
        } else if len_byte & 0x80 != 0 {
            let n = usize::from(len_byte & 0x7f);
            if n > 8 || pos + n > end {
                return Err(bad(at, "the length's own length runs past the end"));
            }
            let mut l: usize = 0;
            for i in 0..n {
                l = l.checked_mul(256).ok_or_else(|| bad(at, "a length too large"))? | usize::from(b[pos + i]);
            }
            pos += n;
            (Some(l), false)
        } else {
            (Some(usize::from(len_byte)), false)
        };
        let header_length = pos - at;
        if let Some(l) = length
            && pos.checked_add(l).is_none_or(|e| e > end)
        {
            return Err(bad(at, format!("a length of {l} bytes runs past the end ({} left)", end - pos)));
        }
        let kind = match class {
            TagClass::Universal if !universal_name(tag).is_empty() => universal_name(tag).to_string(),
            TagClass::Universal => format!("UNIVERSAL {tag}"),
            TagClass::Application => format!("appl [ {tag} ]"),
            TagClass::ContextSpecific => format!("cont [ {tag} ]"),
            TagClass::Private => format!("priv [ {tag} ]"),
        };
        let index = self.nodes.len();
        self.nodes.push(Asn1Node {
            offset: at,
            depth,
            header_length,
            length: length.unwrap_or(0),
            indefinite,
            constructed,
            class,
            tag,
            kind,
            value: None,
            decimal: None,
            oid_name: None,
            truncated: false,
        });
        if constructed {
            let limit = length.map_or(end, |l| pos + l);
            let mut child = pos;
            loop {
                if length.is_some() && child >= limit {
                    break;
                }
                if indefinite && b.get(child..child + 2) == Some(&[0, 0][..]) {
                    self.nodes[index].length = child - pos;
                    return Ok(child + 2);
                }
                if child >= limit {
                    return Err(bad(at, "an indefinite length without its end-of-contents octets"));
                }
                child = self.node(child, depth + 1, limit)?;
            }
            return Ok(limit);
        }
        let content = &b[pos..pos + length.unwrap_or(0)];
        let node = &mut self.nodes[index];
        let (value, dec, name) = match (class, tag) {
            (TagClass::Universal, 1) => {
                (Some(if content.first().is_some_and(|v| *v != 0) { "true" } else { "false" }.to_string()), None, None)
            }
            (TagClass::Universal, 2 | 10) => (Some(hex::encode_upper(content)), decimal(content), None),
            (TagClass::Universal, 5) => (None, None, None),
            (TagClass::Universal, 6) => {
                let dotted = oid_text(content).ok_or_else(|| bad(at, "an OBJECT that is not a valid OID"))?;
                let name = oid_name(&dotted);
                (Some(dotted), None, name)
            }
            (TagClass::Universal, t) => match text_of(t, content) {
                Some(text) => (Some(text), None, None),
                None => (Some(hex::encode_upper(content)), None, None),
            },
            _ => (Some(hex::encode_upper(content)), None, None),
        };
        node.decimal = dec.filter(|d| d.trim_start_matches('-').len() <= 38);
        node.oid_name = name;
        if let Some(mut v) = value {
            if v.chars().count() > MAX_VALUE {
                v = v.chars().take(MAX_VALUE).collect();
                node.truncated = true;
            }
            node.value = Some(v);
        }
        Ok(pos + content.len())
    }
}

/// Parse DER or BER into its tree of nodes.
///
/// Walks an ASN.1 encoding (a certificate, key, CSR, signature or any other) and lists every
/// node as `openssl asn1parse -i` does: offset, depth, header and content lengths, primitive or
/// constructed, and type, with each primitive value read (OIDs with their names, integers in
/// hex and decimal, strings and times as text). PEM input is detected and unwrapped.
#[op(post "/v1/asn1/parse" as asn1Parse, tag = SecurityAndValidation, cpu,
     rejects = "bytes that are not a complete ASN.1 encoding, or that pass the depth or node limits",
     example(ed25519_public_key, {"input": "-----BEGIN PUBLIC KEY-----\nMCowBQYDK2VwAyEA11qYAYKxCrfVS/7TyWQHOg7hcvPapiMlrwIaaPcHURo=\n-----END PUBLIC KEY-----\n"}),
     example(hex_integer_and_oid, {"input": "300c020500ffffffff0603551d11", "inputEncoding": "hex"}),
     example(truncated, {"input": "3005020102", "inputEncoding": "hex"}, status = 400))]
async fn asn1_parse(input: Asn1ParseInput) -> Result<Asn1ParseOutput, ApiError> {
    let text = input.input.trim();
    let (bytes, pem_label) = if pem::looks_like_pem(text) {
        let mut blocks = pem::blocks(text, 64).map_err(|e| ApiError::invalid("input", e))?;
        let first = blocks.remove(0);
        if first.legacy_encrypted {
            return Err(ApiError::invalid("input", "the PEM block is encrypted (Proc-Type: 4,ENCRYPTED)"));
        }
        (first.der, Some(first.label))
    } else {
        (byte_encoding::decode(&input.input, input.input_encoding, "input")?, None)
    };
    if bytes.is_empty() {
        return Err(ApiError::invalid("input", "is empty"));
    }
    let mut walker = Walker { bytes: &bytes, nodes: Vec::new() };
    let mut at = 0;
    while at < bytes.len() {
        at = walker.node(at, 0, bytes.len())?;
    }
    Ok(Asn1ParseOutput { nodes: walker.nodes, bytes: bytes.len(), pem_label })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn oids_and_integers_read_as_the_standards_say() {
        // X.690 section 8.19.5's example: 2.100.3 is 0x813403.
        assert_eq!(oid_text(&[0x81, 0x34, 0x03]).as_deref(), Some("2.100.3"));
        assert_eq!(
            oid_text(&[0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x01, 0x0b]).as_deref(),
            Some("1.2.840.113549.1.1.11")
        );
        assert_eq!(oid_text(&[0x2a, 0x80, 0x01]), None);
        assert_eq!(oid_text(&[0x2a, 0x86]), None);
        assert_eq!(oid_name("2.5.4.3").as_deref(), Some("commonName"));
        assert_eq!(decimal(&[0xff]).as_deref(), Some("-1"));
        assert_eq!(decimal(&[0x00, 0xff]).as_deref(), Some("255"));
    }

    #[tokio::test]
    async fn ber_indefinite_lengths_and_limits() {
        let parse = |hex: &str| asn1_parse(Asn1ParseInput { input: hex.into(), input_encoding: InputEncoding::Hex });
        // SEQUENCE (indefinite) { INTEGER 1 } EOC
        let out = parse("3080020101 0000".replace(' ', "").as_str()).await.unwrap();
        assert_eq!(out.nodes.len(), 2);
        assert!(out.nodes[0].indefinite);
        assert_eq!(out.nodes[0].length, 3);
        assert_eq!(out.nodes[1].decimal.as_deref(), Some("1"));
        assert!(parse("0280").await.unwrap_err().message.contains("indefinite length on a primitive"));
        assert!(parse("3080020101").await.unwrap_err().message.contains("end-of-contents"));
        let deep = "3080".repeat(70);
        assert!(parse(&deep).await.unwrap_err().message.contains("deeper than 64"));
        // A high tag number: [APPLICATION 300] primitive.
        let out = parse("5f822c0100").await.unwrap();
        assert_eq!((out.nodes[0].tag, out.nodes[0].kind.as_str()), (300, "appl [ 300 ]"));
    }
}
