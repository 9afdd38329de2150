//! DNS lookups through the service's resolver: one type, several types at once, and
//! the names of an address.

use std::{net::IpAddr, time::Instant};

use wrench_contract::prelude::*;
use wrench_infra::outbound::resolver::DnsRecord;
use wrench_infra::time::now_rfc3339;
use wrench_kit::hosts::dns::{DnsType, TypeAnswer, ask_all, dns_error, parse_domain, reverse_name, unique_types};

#[derive(Debug, Deserialize, JsonSchema, Validate)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct DnsLookupInput {
    /// The name to look up (`example.com`; Unicode names are accepted). For PTR, an IP address
    /// is accepted too and turned into its reverse name.
    #[schemars(length(min = 1, max = 253))]
    domain: String,
    /// The record type.
    #[serde(default, rename = "type")]
    kind: DnsType,
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct DnsLookupOutput {
    /// The name asked about, fully qualified, in ASCII.
    domain: String,
    #[serde(flatten)]
    answer: TypeAnswer,
    /// The resolvers asked (`WRENCH_DNS_SERVERS`).
    resolver: String,
    /// When the answer was obtained (RFC 3339, UTC).
    checked_at: String,
}

/// Look up DNS records of one type.
///
/// Asks the service's resolver (public resolvers unless the operator chose others) for the
/// records of `type` (A by default; AAAA, MX, TXT, CNAME, NS, SOA, PTR, SRV, CAA) at `domain`.
/// Each record comes with its TTL, its value in zone-file notation and, for MX, SRV, SOA, CAA
/// and TXT, its fields. A name that does not exist is an answer (`status: NXDOMAIN`), not an
/// error; a resolver that fails is 502, one that does not answer within 3 s 504. For PTR an
/// IP address may be given; addresses that are not global are refused.
#[op(post "/v1/dns/lookup" as dnsLookup, tag = Lookups,
     rejects = "a domain that is not a DNS name (a URL, spaces, an empty or overlong label)",
     uses(network),
     redact(".data.queryTimeMs", ".data.checkedAt"),
     example(a_records, {"domain": "example.com"}),
     example(mx, {"domain": "example.com", "type": "MX"}),
     example(cname_followed, {"domain": "www.example.com", "type": "A"}),
     example(srv, {"domain": "_sip._tcp.example.com", "type": "SRV"}),
     example(no_such_name, {"domain": "no-such-name.example.com"}),
     example(url_given, {"domain": "https://example.com/"}, status = 400))]
async fn dns_lookup(input: DnsLookupInput, ctx: &Ctx) -> Result<DnsLookupOutput, ApiError> {
    let name = match (input.kind, input.domain.trim().parse::<IpAddr>()) {
        (DnsType::Ptr, Ok(ip)) => reverse_name(&ctx.net, "domain", ip)?,
        _ => parse_domain("domain", &input.domain)?,
    };
    let resolver = &ctx.net.resolver;
    let started = Instant::now();
    let answer = resolver.lookup(&name, input.kind.record_type()).await.map_err(|e| dns_error(resolver, &name, e))?;
    Ok(DnsLookupOutput {
        domain: name.to_ascii(),
        answer: TypeAnswer::from(input.kind, Ok(answer), started),
        resolver: resolver.upstreams().to_string(),
        checked_at: now_rfc3339(),
    })
}

fn batch_default() -> Vec<DnsType> {
    vec![DnsType::A, DnsType::Aaaa, DnsType::Mx, DnsType::Txt, DnsType::Ns]
}

#[derive(Debug, Deserialize, JsonSchema, Validate)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct DnsBatchInput {
    /// The name to look up.
    #[schemars(length(min = 1, max = 253))]
    domain: String,
    /// The record types, each at most once (A, AAAA, MX, TXT and NS when omitted).
    #[serde(default = "batch_default")]
    #[schemars(length(min = 1, max = 10))]
    types: Vec<DnsType>,
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct DnsBatchOutput {
    domain: String,
    /// One answer per type, in the order asked. A type whose question failed has `error`
    /// instead of `status`; the others are still answered.
    results: Vec<TypeAnswer>,
    resolver: String,
    checked_at: String,
}

/// Look up several DNS record types at once.
///
/// Asks for every type of `types` at `domain` at the same time (A, AAAA, MX, TXT and NS by
/// default; up to 10 types). Each answer is reported as by `dns/lookup`; a type whose
/// question fails says why in its own `error` and does not fail the others.
#[op(post "/v1/dns/batch" as dnsBatch, tag = Lookups,
     rejects = "a domain that is not a DNS name, or a type given twice",
     redact(".data.results[].queryTimeMs", ".data.checkedAt"),
     example(defaults, {"domain": "example.com"}),
     example(chosen_types, {"domain": "example.com", "types": ["SOA", "CAA", "NS"]}),
     example(repeated_type, {"domain": "example.com", "types": ["A", "A"]}, status = 400))]
async fn dns_batch(input: DnsBatchInput, ctx: &Ctx) -> Result<DnsBatchOutput, ApiError> {
    unique_types("types", &input.types)?;
    let name = parse_domain("domain", &input.domain)?;
    let resolver = &ctx.net.resolver;
    Ok(DnsBatchOutput {
        domain: name.to_ascii(),
        results: ask_all(resolver, &name, &input.types).await,
        resolver: resolver.upstreams().to_string(),
        checked_at: now_rfc3339(),
    })
}

#[derive(Debug, Deserialize, JsonSchema, Validate)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct ReverseInput {
    /// An IPv4 or IPv6 address.
    #[schemars(length(min = 2, max = 45), extend("anyOf" = [{"format": "ipv4"}, {"format": "ipv6"}]))]
    ip: String,
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct ReverseOutput {
    ip: String,
    /// The reverse-lookup name asked about (`8.8.8.8.in-addr.arpa.`).
    reverse_name: String,
    /// The first name the address points to, or null when it has none.
    ptr: Option<String>,
    /// Every name the address points to.
    hostnames: Vec<String>,
    /// The records as the resolver gave them.
    records: Vec<DnsRecord>,
    status: wrench_infra::outbound::resolver::DnsStatus,
    query_time_ms: f64,
    resolver: String,
    checked_at: String,
}

/// The PTR lookup of an address: the reverse name, the answer, its records and the host
/// names. Non-global addresses are refused (403), as `ip/reverse` documents.
pub(crate) async fn ptr_lookup(
    ctx: &Ctx,
    ip: IpAddr,
) -> Result<
    (hickory_resolver::proto::rr::Name, wrench_infra::outbound::resolver::DnsAnswer, Vec<DnsRecord>, Vec<String>),
    ApiError,
> {
    let name = reverse_name(&ctx.net, "ip", ip)?;
    let resolver = &ctx.net.resolver;
    let answer = resolver
        .lookup(&name, hickory_resolver::proto::rr::RecordType::PTR)
        .await
        .map_err(|e| dns_error(resolver, &name, e))?;
    let records: Vec<DnsRecord> = answer.records.iter().map(DnsRecord::from_record).collect();
    let hostnames: Vec<String> = records.iter().filter(|r| r.kind == "PTR").filter_map(|r| r.target.clone()).collect();
    Ok((name, answer, records, hostnames))
}

/// Find the host names of an IP address.
///
/// Looks up the PTR records of the address's reverse name (`in-addr.arpa` or `ip6.arpa`).
/// Addresses that are not global (private, loopback, link-local, CGNAT, documentation and the
/// other special-purpose ranges) are refused with 403: their names can describe an internal
/// network.
#[op(post "/v1/ip/reverse" as ipReverse, tag = Lookups,
     uses(network),
     redact(".data.queryTimeMs", ".data.checkedAt"),
     example(google_dns, {"ip": "8.8.8.8"}),
     example(no_name, {"ip": "9.9.9.9"}),
     example(private_address, {"ip": "10.0.0.1"}, status = 403),
     example(not_an_address, {"ip": "8.8.8"}, status = 400))]
async fn ip_reverse(input: ReverseInput, ctx: &Ctx) -> Result<ReverseOutput, ApiError> {
    let ip: IpAddr = input
        .ip
        .trim()
        .parse()
        .map_err(|_| ApiError::invalid("ip", format!("{:?} is not an IPv4 or IPv6 address", input.ip)))?;
    let (name, answer, records, hostnames) = ptr_lookup(ctx, ip).await?;
    let resolver = &ctx.net.resolver;
    Ok(ReverseOutput {
        ip: ip.to_string(),
        reverse_name: name.to_ascii(),
        ptr: hostnames.first().cloned(),
        hostnames,
        records,
        status: answer.status,
        query_time_ms: wrench_kit::hosts::dns::millis(answer.elapsed),
        resolver: resolver.upstreams().to_string(),
        checked_at: now_rfc3339(),
    })
}
