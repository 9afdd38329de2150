//! What the DNS operations share: the record types they ask for, how a domain is read, and
//! how a question is asked and its answer reported.
//!
//! A domain is taken as a DNS name: Unicode names become their IDNA ASCII form, a final dot is
//! optional, and anything that is not a name (a URL, spaces, an empty label) is refused with
//! the reason. Questions go to the resolver of `WRENCH_DNS_SERVERS`; an answer always says
//! which resolver gave it, how long it took and when.

use std::{net::IpAddr, time::Duration};

use hickory_resolver::proto::rr::{Name, RecordType};

use wrench_contract::prelude::*;
use wrench_infra::outbound::{
    Net,
    resolver::{DnsAnswer, DnsFailure, DnsRecord, DnsStatus, Resolver},
};

/// The record types the DNS operations ask for.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Deserialize, Serialize, JsonSchema, Validate, Default,
)]
#[serde(rename_all = "UPPERCASE")]
pub enum DnsType {
    #[default]
    A,
    Aaaa,
    Mx,
    Txt,
    Cname,
    Ns,
    Soa,
    Ptr,
    Srv,
    Caa,
}

impl DnsType {
    pub fn record_type(self) -> RecordType {
        match self {
            DnsType::A => RecordType::A,
            DnsType::Aaaa => RecordType::AAAA,
            DnsType::Mx => RecordType::MX,
            DnsType::Txt => RecordType::TXT,
            DnsType::Cname => RecordType::CNAME,
            DnsType::Ns => RecordType::NS,
            DnsType::Soa => RecordType::SOA,
            DnsType::Ptr => RecordType::PTR,
            DnsType::Srv => RecordType::SRV,
            DnsType::Caa => RecordType::CAA,
        }
    }
}

/// `field` read as a DNS name: IDNA to ASCII, at most 253 characters, labels of 1 to 63
/// letters, digits, `-` or `_` (service labels such as `_sip._tcp` are names too).
pub fn parse_domain(field: &str, text: &str) -> Result<Name, ApiError> {
    let t = text.trim();
    if t.contains("://") || t.contains('/') {
        return Err(ApiError::invalid(field, "is a URL or path; give the domain name alone, such as example.com"));
    }
    let bare = t.strip_suffix('.').unwrap_or(t);
    if bare.is_empty() {
        return Err(ApiError::invalid(field, "is empty; give a domain name such as example.com"));
    }
    // Service labels (`_sip`) are not IDNA; only convert names that need it.
    let ascii = if bare.is_ascii() {
        bare.to_ascii_lowercase()
    } else {
        idna::domain_to_ascii(bare)
            .map_err(|_| ApiError::invalid(field, "is not a valid internationalised domain name"))?
    };
    if ascii.len() > 253 {
        return Err(ApiError::invalid(
            field,
            format!("is {} characters long; a domain name has at most 253", ascii.len()),
        ));
    }
    for label in ascii.split('.') {
        if label.is_empty() || label.len() > 63 {
            return Err(ApiError::invalid(field, "has an empty label or one longer than 63 characters"));
        }
        if !label.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_') {
            return Err(ApiError::invalid(
                field,
                format!("has the label {label:?}; labels are letters, digits, `-` and `_`"),
            ));
        }
    }
    let mut name = Name::from_ascii(&ascii).map_err(|e| ApiError::invalid(field, format!("is not a DNS name: {e}")))?;
    name.set_fqdn(true);
    Ok(name)
}

/// The reverse-lookup name of `ip` (`8.8.8.8.in-addr.arpa.`), refused for addresses that are
/// not global: the names of internal addresses can describe an internal network.
pub fn reverse_name(net: &Net, field: &str, ip: IpAddr) -> Result<Name, ApiError> {
    if let Err(r) = net.policy.check(ip) {
        return Err(ApiError::new(
            ErrorCode::TargetForbidden,
            format!("{field}: {}; the names of such addresses are not looked up", r.describe(ip)),
        ));
    }
    Ok(Name::from(ip))
}

/// Milliseconds, to the microsecond.
pub fn millis(d: Duration) -> f64 {
    (d.as_secs_f64() * 1e6).round() / 1e3
}

/// A resolver failure as the envelope: a slow resolver is 504, a failing one 502.
pub fn dns_error(resolver: &Resolver, name: &Name, e: DnsFailure) -> ApiError {
    let code = if e == DnsFailure::Timeout { ErrorCode::UpstreamTimeout } else { ErrorCode::UpstreamError };
    ApiError::new(code, format!("asking {} about {name}: {e}", resolver.upstreams()))
}

/// The answer to one question, as the DNS operations report it.
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct TypeAnswer {
    /// The record type asked for.
    #[serde(rename = "type")]
    pub kind: DnsType,
    /// `NOERROR` (records found), `NODATA` (the name exists, no records of this type) or
    /// `NXDOMAIN` (the name does not exist). Absent when the question failed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub status: Option<DnsStatus>,
    /// The records, in the order the resolver gave them (CNAMEs followed on the way first).
    pub records: Vec<DnsRecord>,
    pub query_time_ms: f64,
    /// Why the question failed (the resolver timed out or answered with an error).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

impl TypeAnswer {
    pub fn from(kind: DnsType, answer: Result<DnsAnswer, DnsFailure>, started: std::time::Instant) -> TypeAnswer {
        match answer {
            Ok(a) => TypeAnswer {
                kind,
                status: Some(a.status),
                records: a.records.iter().map(DnsRecord::from_record).collect(),
                query_time_ms: millis(a.elapsed),
                error: None,
            },
            Err(e) => TypeAnswer {
                kind,
                status: None,
                records: Vec::new(),
                query_time_ms: millis(started.elapsed()),
                error: Some(e.to_string()),
            },
        }
    }

    /// The answer's values, sorted, for comparing answers: what differs between resolvers, not
    /// the order or the TTLs they report.
    pub fn values(&self) -> Vec<String> {
        let mut v: Vec<String> = self
            .records
            .iter()
            .filter(|r| r.kind == self.kind.record_type().to_string())
            .map(|r| r.value.clone())
            .collect();
        v.sort();
        v.dedup();
        v
    }
}

/// Asks `resolver` every type of `types` about `name`, at once.
pub async fn ask_all(resolver: &Resolver, name: &Name, types: &[DnsType]) -> Vec<TypeAnswer> {
    let questions = types.iter().map(|&t| async move {
        let started = std::time::Instant::now();
        TypeAnswer::from(t, resolver.lookup(name, t.record_type()).await, started)
    });
    futures_util::future::join_all(questions).await
}

/// [`ask_all`] asked afresh: no answer the resolver kept from an earlier question is used. Each
/// answer comes with the upstream that gave it (none when the question failed).
pub async fn ask_all_fresh(
    resolver: &Resolver,
    name: &Name,
    types: &[DnsType],
) -> Vec<(TypeAnswer, Option<std::net::SocketAddr>)> {
    let questions = types.iter().map(|&t| async move {
        let started = std::time::Instant::now();
        match resolver.lookup_fresh(name, t.record_type()).await {
            Ok((answer, upstream)) => (TypeAnswer::from(t, Ok(answer), started), Some(upstream)),
            Err(e) => (TypeAnswer::from(t, Err(e), started), None),
        }
    });
    futures_util::future::join_all(questions).await
}

/// Refuses repeated types, so every answer in a list stands for one question.
pub fn unique_types(field: &str, types: &[DnsType]) -> Result<(), ApiError> {
    for (i, t) in types.iter().enumerate() {
        if types[..i].contains(t) {
            return Err(ApiError::invalid(&format!("{field}[{i}]"), format!("repeats {}", t.record_type())));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn domains_are_read_as_dns_names() {
        for (text, want) in [
            ("example.com", "example.com."),
            ("Example.COM.", "example.com."),
            ("_sip._tcp.example.com", "_sip._tcp.example.com."),
            ("bücher.example", "xn--bcher-kva.example."),
            (" example.com ", "example.com."),
        ] {
            assert_eq!(parse_domain("domain", text).unwrap().to_ascii(), want, "{text}");
        }
        for text in [
            "",
            ".",
            "https://example.com",
            "a..b",
            "exa mple.com",
            "example.com/x",
            &format!("{}.com", "a".repeat(64)),
        ] {
            let e = parse_domain("domain", text).unwrap_err();
            assert_eq!((e.code, e.field.as_deref()), (ErrorCode::ValidationError, Some("domain")), "{text:?}");
        }
    }
}
