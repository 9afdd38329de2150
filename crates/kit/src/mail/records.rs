//! Reading the DNS records that describe a domain's mail: the `tag=value` lists of DMARC
//! (RFC 7489 section 6.3), DKIM keys (RFC 6376 section 3.6.1), MTA-STS (RFC 8461 section 3.1),
//! TLS-RPT (RFC 8460 section 3) and BIMI, and SPF terms (RFC 7208 section 4.6), with the TXT
//! lookups they need.

use hickory_resolver::proto::rr::{Name, RData, RecordType};

use wrench_infra::outbound::resolver::{DnsFailure, DnsStatus, Resolver};

/// The TXT records at `name`, each record's strings joined (RFC 7208 section 3.3); `Ok(None)`
/// when the name does not exist.
pub async fn txt(resolver: &Resolver, name: &str) -> Result<Option<Vec<String>>, DnsFailure> {
    let name = Name::from_ascii(name).map_err(|e| DnsFailure::Failed(format!("{name:?} is not a DNS name: {e}")))?;
    let answer = resolver.lookup(&name, RecordType::TXT).await?;
    if answer.status == DnsStatus::NxDomain {
        return Ok(None);
    }
    Ok(Some(
        answer
            .records
            .iter()
            .filter_map(|r| match &r.data {
                RData::TXT(t) => Some(t.txt_data.iter().map(|b| String::from_utf8_lossy(b)).collect::<String>()),
                _ => None,
            })
            .collect(),
    ))
}

/// The records of `records` that start with the version tag `version` (`v=DMARC1`),
/// compared without case and with spaces around `=` allowed.
pub fn versioned<'a>(records: &'a [String], version: &str) -> Vec<&'a String> {
    let (vk, vv) = version.split_once('=').unwrap_or((version, ""));
    records
        .iter()
        .filter(|r| {
            let first = r.split(';').next().unwrap_or("");
            first
                .split_once('=')
                .is_some_and(|(k, v)| k.trim().eq_ignore_ascii_case(vk) && v.trim().eq_ignore_ascii_case(vv))
        })
        .collect()
}

/// A `tag=value; tag=value` list: tags lower-cased, values trimmed, in order. Malformed
/// entries (no `=`) are returned apart, for reporting.
pub fn tags(record: &str) -> (Vec<(String, String)>, Vec<String>) {
    let mut out = Vec::new();
    let mut bad = Vec::new();
    for part in record.split(';').map(str::trim).filter(|p| !p.is_empty()) {
        match part.split_once('=') {
            Some((k, v)) => out.push((k.trim().to_ascii_lowercase(), v.trim().to_string())),
            None => bad.push(part.to_string()),
        }
    }
    (out, bad)
}

/// The value of `tag` in a parsed list.
pub fn tag<'a>(list: &'a [(String, String)], name: &str) -> Option<&'a str> {
    list.iter().find(|(k, _)| k == name).map(|(_, v)| v.as_str())
}

/// One SPF term (RFC 7208 section 4.6.1).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SpfTerm {
    /// A mechanism: qualifier (`+ - ~ ?`), name (`include`, `a`, `ip4`...), its argument.
    Mechanism { qualifier: char, name: String, value: Option<String> },
    /// A modifier: `redirect=`, `exp=` or an unknown one.
    Modifier { name: String, value: String },
}

impl SpfTerm {
    /// Whether evaluating the term costs a DNS lookup (RFC 7208 section 4.6.4).
    pub fn costs_lookup(&self) -> bool {
        match self {
            SpfTerm::Mechanism { name, .. } => matches!(name.as_str(), "include" | "a" | "mx" | "ptr" | "exists"),
            SpfTerm::Modifier { name, .. } => name == "redirect",
        }
    }
}

/// The terms of an SPF record (`v=spf1 ...`), or why it is malformed.
pub fn spf_terms(record: &str) -> Result<Vec<SpfTerm>, String> {
    let mut words = record.split_ascii_whitespace();
    if !words.next().is_some_and(|v| v.eq_ignore_ascii_case("v=spf1")) {
        return Err("does not start with v=spf1".into());
    }
    let mut out = Vec::new();
    for word in words {
        // A modifier is `name=value` whose name is not a mechanism followed by `:` or `/`.
        if let Some((name, value)) = word.split_once('=')
            && !name.contains([':', '/'])
            && name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_' || b == b'.')
        {
            out.push(SpfTerm::Modifier { name: name.to_ascii_lowercase(), value: value.to_string() });
            continue;
        }
        let (qualifier, rest) = match word.chars().next() {
            Some(q @ ('+' | '-' | '~' | '?')) => (q, &word[1..]),
            _ => ('+', word),
        };
        let (name, value) = match rest.find([':', '/']) {
            Some(i) if rest.as_bytes()[i] == b':' => (&rest[..i], Some(rest[i + 1..].to_string())),
            Some(i) => (&rest[..i], Some(rest[i..].to_string())),
            None => (rest, None),
        };
        let name = name.to_ascii_lowercase();
        let known = ["all", "include", "a", "mx", "ptr", "ip4", "ip6", "exists"];
        if !known.contains(&name.as_str()) {
            return Err(format!("has the unknown mechanism {word:?}"));
        }
        let needs_value = matches!(name.as_str(), "include" | "ip4" | "ip6" | "exists");
        if needs_value && value.as_deref().is_none_or(str::is_empty) {
            return Err(format!("has {word:?} without its argument"));
        }
        if name == "all" && value.is_some() {
            return Err(format!("has {word:?}: `all` takes no argument"));
        }
        out.push(SpfTerm::Mechanism { qualifier, name, value });
    }
    let redirects = out.iter().filter(|t| matches!(t, SpfTerm::Modifier { name, .. } if name == "redirect")).count();
    if redirects > 1 {
        return Err("has more than one redirect modifier".into());
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spf_records_are_read_as_rfc_7208_writes_them() {
        let terms = spf_terms(
            "v=spf1 ip4:192.0.2.0/24 a/24 -mx:mail.example.com include:_spf.example.net ~all exp=explain.example.com",
        )
        .unwrap();
        assert_eq!(
            terms[0],
            SpfTerm::Mechanism { qualifier: '+', name: "ip4".into(), value: Some("192.0.2.0/24".into()) }
        );
        assert_eq!(terms[1], SpfTerm::Mechanism { qualifier: '+', name: "a".into(), value: Some("/24".into()) });
        assert_eq!(
            terms[2],
            SpfTerm::Mechanism { qualifier: '-', name: "mx".into(), value: Some("mail.example.com".into()) }
        );
        assert_eq!(terms[4], SpfTerm::Mechanism { qualifier: '~', name: "all".into(), value: None });
        assert_eq!(terms[5], SpfTerm::Modifier { name: "exp".into(), value: "explain.example.com".into() });
        assert_eq!(terms.iter().filter(|t| t.costs_lookup()).count(), 3);
        assert!(spf_terms("v=spf1 include:").is_err());
        assert!(spf_terms("v=spf1 foo:bar").is_err());
        assert!(spf_terms("v=spf1 redirect=a.example redirect=b.example").is_err());
        assert!(spf_terms("v=spf2 -all").is_err());
    }

    #[test]
    fn tag_lists_keep_order_and_report_junk() {
        let (t, bad) = tags("v=DMARC1; p=reject ; rua=mailto:a@example.com,mailto:b@example.com; junk;");
        assert_eq!(tag(&t, "p"), Some("reject"));
        assert_eq!(tag(&t, "rua"), Some("mailto:a@example.com,mailto:b@example.com"));
        assert_eq!(bad, ["junk"]);
        let records = vec!["v = DMARC1; p=none".to_string(), "v=spf1 -all".to_string()];
        assert_eq!(versioned(&records, "v=DMARC1").len(), 1);
    }
}
