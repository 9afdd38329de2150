//! Distinguished names: each attribute with its type and value, and the whole name as an RFC
//! 4514 string (the last RDN first, attributes of one RDN joined by `+`, the characters the
//! RFC's section 2.4 names escaped).

use x509_parser::x509::X509Name;

use wrench_contract::prelude::*;

/// One attribute of a name.
#[derive(Debug, Serialize, JsonSchema)]
pub(super) struct NamePart {
    /// Its short name (`CN`, `O`, `emailAddress`), or the OID when it has none.
    #[serde(rename = "type")]
    kind: String,
    /// Its OID, dotted.
    oid: String,
    /// Its value as text.
    value: String,
}

/// A distinguished name.
#[derive(Debug, Serialize, JsonSchema)]
pub(super) struct Name {
    /// RFC 4514's string form (`CN=example.com,O=Example,C=US`).
    rfc4514: String,
    /// The attributes in the order the certificate holds them.
    parts: Vec<NamePart>,
}

/// The short names RFC 4514 section 3 lists; other types are written as their OID there.
fn rfc4514_key(oid: &str) -> Option<&'static str> {
    Some(match oid {
        "2.5.4.3" => "CN",
        "2.5.4.7" => "L",
        "2.5.4.8" => "ST",
        "2.5.4.10" => "O",
        "2.5.4.11" => "OU",
        "2.5.4.6" => "C",
        "2.5.4.9" => "STREET",
        "0.9.2342.19200300.100.1.25" => "DC",
        "0.9.2342.19200300.100.1.1" => "UID",
        _ => return None,
    })
}

/// A value escaped as RFC 4514 section 2.4 requires.
fn escape(value: &str) -> String {
    let mut out = String::with_capacity(value.len());
    for c in value.chars() {
        match c {
            '\\' | '"' | '+' | ',' | ';' | '<' | '>' => {
                out.push('\\');
                out.push(c);
            }
            '\0' => out.push_str("\\00"),
            _ => out.push(c),
        }
    }
    if out.starts_with('#') || out.starts_with(' ') {
        out.insert(0, '\\');
    }
    if out.ends_with(' ') && !out.ends_with("\\ ") {
        out.pop();
        out.push_str("\\ ");
    }
    out
}

pub(super) fn name(name: &X509Name<'_>) -> Name {
    let registry = x509_parser::objects::oid_registry();
    let mut parts = Vec::new();
    let mut rdns = Vec::new();
    for rdn in name.iter() {
        let mut rendered = Vec::new();
        for attr in rdn.iter() {
            let oid = attr.attr_type().to_id_string();
            let value = attr
                .as_str()
                .map(str::to_string)
                .or_else(|_| attr.attr_value().as_bmpstring().map(|s| s.string()))
                .unwrap_or_else(|_| format!("#{}", hex::encode(attr.attr_value().data)));
            let short = x509_parser::objects::oid2sn(attr.attr_type(), registry).ok().map(str::to_string);
            let key = rfc4514_key(&oid).map(str::to_string).unwrap_or_else(|| oid.clone());
            rendered.push(format!("{key}={}", escape(&value)));
            parts.push(NamePart { kind: short.unwrap_or_else(|| oid.clone()), oid, value });
        }
        rdns.push(rendered.join("+"));
    }
    rdns.reverse();
    Name { rfc4514: rdns.join(","), parts }
}
