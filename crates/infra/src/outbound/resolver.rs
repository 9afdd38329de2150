//! The one resolver every lookup goes through (hickory), and the shape of its answers.
//!
//! Upstreams come from `WRENCH_DNS_SERVERS` (public resolvers by default, so a deployment
//! inside a company network answers nothing about internal zones unless its operator says so).
//! `/etc/hosts` is never read and no search domain applies: every name is asked as the fully
//! qualified name it is. Answers are cached within their TTL, in a cache of bounded size. This
//! module decides nothing about which addresses may be contacted; `policy.rs` does.

use std::{
    net::{IpAddr, SocketAddr},
    time::{Duration, Instant},
};

use hickory_resolver::{
    TokioResolver,
    config::{LookupIpStrategy, NameServerConfig, ResolveHosts, ResolverConfig, ResolverOpts},
    net::{NetError, runtime::TokioRuntimeProvider},
    proto::{
        op::ResponseCode,
        rr::{Name, RData, Record, RecordType},
    },
};
use serde::Serialize;

use crate::config::outbound::DnsServers;

/// Responses cached, at most (hickory counts responses, not records).
const CACHE_ENTRIES: u64 = 4096;
/// One question to one upstream; the resolver tries each upstream in turn.
const QUERY_TIMEOUT: Duration = Duration::from_secs(3);

/// How a question was answered.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub enum DnsStatus {
    /// The name exists and records of the type were returned.
    #[serde(rename = "NOERROR")]
    NoError,
    /// The name exists but has no records of the type.
    #[serde(rename = "NODATA")]
    NoData,
    /// The name does not exist.
    #[serde(rename = "NXDOMAIN")]
    NxDomain,
}

/// The answer to one question.
#[derive(Debug, Clone)]
pub struct DnsAnswer {
    pub status: DnsStatus,
    pub records: Vec<Record>,
    pub elapsed: Duration,
}

/// A question nobody answered properly.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DnsFailure {
    Timeout,
    /// SERVFAIL, REFUSED, a malformed answer, no upstream reachable...
    Failed(String),
}

impl std::fmt::Display for DnsFailure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            DnsFailure::Timeout => f.write_str("no resolver answered in time"),
            DnsFailure::Failed(why) => f.write_str(why),
        }
    }
}

/// A hickory resolver with wrench's settings, and a description of its upstreams.
pub struct Resolver {
    inner: TokioResolver,
    upstreams: String,
    /// One resolver per upstream that keeps no answers, in the configured order: questions
    /// whose point is freshness ([`Resolver::lookup_fresh`]) go through these.
    fresh: Vec<(SocketAddr, TokioResolver)>,
}

impl Resolver {
    /// The resolver of `WRENCH_DNS_SERVERS`.
    pub fn new(servers: &DnsServers) -> Result<Resolver, String> {
        let addresses = match servers {
            DnsServers::List(list) => list.clone(),
            DnsServers::System => {
                let (config, _) = hickory_resolver::system_conf::read_system_conf()
                    .map_err(|e| format!("WRENCH_DNS_SERVERS=system: the host's resolver settings: {e}"))?;
                // The host's servers, but not its search domains or options: names are asked
                // as written.
                let mut seen = Vec::new();
                for ns in config.name_servers() {
                    for c in &ns.connections {
                        let a = SocketAddr::new(ns.ip, c.port);
                        if !seen.contains(&a) {
                            seen.push(a);
                        }
                    }
                }
                if seen.is_empty() {
                    return Err("WRENCH_DNS_SERVERS=system: the host names no resolver".into());
                }
                seen
            }
        };
        Ok(Resolver::with_upstreams(&addresses, CACHE_ENTRIES))
    }

    /// A resolver that asks exactly `addresses`, in order. `cache` is the number of responses
    /// kept (0 keeps none).
    pub fn with_upstreams(addresses: &[SocketAddr], cache: u64) -> Resolver {
        let inner = build(addresses, cache);
        // A resolver of one upstream that keeps nothing (the propagation resolvers) is already
        // fresh: it is its own twin rather than a second one built at start-up.
        let fresh = match addresses {
            [only] if cache == 0 => vec![(*only, inner.clone())],
            _ => addresses.iter().map(|a| (*a, build(std::slice::from_ref(a), 0))).collect(),
        };
        let upstreams = addresses.iter().map(|a| a.to_string()).collect::<Vec<_>>().join(", ");
        Resolver { inner, upstreams, fresh }
    }

    /// The upstreams, as answers report where they came from: `1.1.1.1:53, 8.8.8.8:53`.
    pub fn upstreams(&self) -> &str {
        &self.upstreams
    }

    /// Records of `rtype` at `name` (a fully qualified name; a missing final dot is added).
    pub async fn lookup(&self, name: &Name, rtype: RecordType) -> Result<DnsAnswer, DnsFailure> {
        lookup_with(&self.inner, name, rtype).await
    }

    /// [`Resolver::lookup`] asked afresh: no answer kept from an earlier question is used, and
    /// none is kept. The upstreams are asked in order until one answers (NXDOMAIN and NODATA
    /// are answers); the answer comes with the upstream that gave it. The failure is the last
    /// upstream's.
    pub async fn lookup_fresh(&self, name: &Name, rtype: RecordType) -> Result<(DnsAnswer, SocketAddr), DnsFailure> {
        let mut last = DnsFailure::Failed("no upstream resolver is configured".into());
        for (address, resolver) in &self.fresh {
            match lookup_with(resolver, name, rtype).await {
                Ok(answer) => return Ok((answer, *address)),
                Err(e) => last = e,
            }
        }
        Err(last)
    }

    /// Every address `host` resolves to (A and AAAA), or why there are none: `Ok(None)` when
    /// the name does not exist or has no address.
    pub async fn addresses(&self, host: &str) -> Result<(Option<Vec<IpAddr>>, Duration), DnsFailure> {
        let name =
            Name::from_ascii(host).map_err(|e| DnsFailure::Failed(format!("{host:?} is not a DNS name: {e}")))?;
        let mut name = name;
        name.set_fqdn(true);
        let started = Instant::now();
        match self.inner.lookup_ip(name).await {
            Ok(ips) => {
                let mut out: Vec<IpAddr> = ips.iter().collect();
                out.dedup();
                Ok((Some(out).filter(|o| !o.is_empty()), started.elapsed()))
            }
            Err(e) if no_records(&e).is_some() => Ok((None, started.elapsed())),
            Err(e) => Err(failure(&e)),
        }
    }
}

/// A hickory resolver asking exactly `addresses`, in order, keeping `cache` answers.
fn build(addresses: &[SocketAddr], cache: u64) -> TokioResolver {
    let servers = addresses
        .iter()
        .map(|a| {
            let mut ns = NameServerConfig::udp_and_tcp(a.ip());
            for c in &mut ns.connections {
                c.port = a.port();
            }
            ns
        })
        .collect();
    let config = ResolverConfig::from_parts(None, Vec::new(), servers);
    let mut opts = ResolverOpts::default();
    opts.use_hosts_file = ResolveHosts::Never;
    opts.ndots = 0;
    opts.timeout = QUERY_TIMEOUT;
    opts.attempts = 1;
    opts.cache_size = cache;
    opts.ip_strategy = LookupIpStrategy::Ipv4AndIpv6;
    opts.num_concurrent_reqs = 1;
    opts.server_ordering_strategy = hickory_resolver::config::ServerOrderingStrategy::UserProvidedOrder;
    opts.try_tcp_on_error = true;
    // Upstream answers keep their own TTLs, so a cached answer is never older than its TTL.
    TokioResolver::builder_with_config(config, TokioRuntimeProvider::default())
        .with_options(opts)
        .build()
        .expect("a resolver from parsed settings builds")
}

/// Records of `rtype` at `name` asked through `resolver`.
async fn lookup_with(resolver: &TokioResolver, name: &Name, rtype: RecordType) -> Result<DnsAnswer, DnsFailure> {
    let mut name = name.clone();
    name.set_fqdn(true);
    let started = Instant::now();
    match resolver.lookup(name, rtype).await {
        Ok(lookup) => {
            let records: Vec<Record> = lookup.answers().to_vec();
            let status = if records.is_empty() { DnsStatus::NoData } else { DnsStatus::NoError };
            Ok(DnsAnswer { status, records, elapsed: started.elapsed() })
        }
        Err(e) => match no_records(&e) {
            Some(status) => Ok(DnsAnswer { status, records: Vec::new(), elapsed: started.elapsed() }),
            None => Err(failure(&e)),
        },
    }
}

/// NXDOMAIN or NODATA, which are answers rather than failures.
fn no_records(e: &NetError) -> Option<DnsStatus> {
    if e.is_nx_domain() {
        Some(DnsStatus::NxDomain)
    } else if e.is_no_records_found() {
        Some(DnsStatus::NoData)
    } else {
        None
    }
}

fn failure(e: &NetError) -> DnsFailure {
    use hickory_resolver::net::DnsError;
    match e {
        NetError::Timeout => DnsFailure::Timeout,
        NetError::Dns(DnsError::ResponseCode(code)) => DnsFailure::Failed(format!(
            "the resolver answered {}",
            match code {
                ResponseCode::ServFail => "SERVFAIL (the zone's servers failed)".to_string(),
                ResponseCode::Refused => "REFUSED".to_string(),
                other => other.to_string(),
            }
        )),
        other => DnsFailure::Failed(format!("the lookup failed: {other}")),
    }
}

/// One record in the words answers use.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct DnsRecord {
    /// The owner name, fully qualified.
    pub name: String,
    /// The record type (`A`, `MX`, ...).
    #[serde(rename = "type")]
    pub kind: String,
    /// Seconds the record may be cached.
    pub ttl: u32,
    /// The record's data in zone-file notation (`10 mail.example.com.` for MX).
    pub value: String,
    /// MX preference or SRV priority.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub priority: Option<u16>,
    /// SRV weight.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub weight: Option<u16>,
    /// SRV port.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub port: Option<u16>,
    /// The name a CNAME, NS, PTR, MX or SRV record points to.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub target: Option<String>,
    /// The strings of a TXT record, each decoded as UTF-8 (invalid bytes replaced).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub strings: Option<Vec<String>>,
    /// The fields of an SOA record.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub soa: Option<SoaFields>,
    /// The fields of a CAA record.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub caa: Option<CaaFields>,
}

#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct SoaFields {
    pub primary_ns: String,
    /// The responsible mailbox, in DNS notation (`hostmaster.example.com.`).
    pub admin: String,
    pub serial: u32,
    pub refresh: i32,
    pub retry: i32,
    pub expire: i32,
    /// The negative-caching TTL.
    pub minimum: u32,
}

#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct CaaFields {
    pub critical: bool,
    pub tag: String,
    pub value: String,
}

impl DnsRecord {
    pub fn from_record(r: &Record) -> DnsRecord {
        let mut out = DnsRecord {
            name: r.name.to_ascii(),
            kind: r.record_type().to_string(),
            ttl: r.ttl,
            value: r.data.to_string(),
            priority: None,
            weight: None,
            port: None,
            target: None,
            strings: None,
            soa: None,
            caa: None,
        };
        match &r.data {
            RData::MX(mx) => {
                out.priority = Some(mx.preference);
                out.target = Some(mx.exchange.to_ascii());
            }
            RData::SRV(srv) => {
                out.priority = Some(srv.priority);
                out.weight = Some(srv.weight);
                out.port = Some(srv.port);
                out.target = Some(srv.target.to_ascii());
            }
            RData::CNAME(n) => out.target = Some(n.0.to_ascii()),
            RData::NS(n) => out.target = Some(n.0.to_ascii()),
            RData::PTR(n) => out.target = Some(n.0.to_ascii()),
            RData::TXT(txt) => {
                let strings: Vec<String> =
                    txt.txt_data.iter().map(|b| String::from_utf8_lossy(b).into_owned()).collect();
                out.value = strings.concat();
                out.strings = Some(strings);
            }
            RData::SOA(soa) => {
                out.soa = Some(SoaFields {
                    primary_ns: soa.mname.to_ascii(),
                    admin: soa.rname.to_ascii(),
                    serial: soa.serial,
                    refresh: soa.refresh,
                    retry: soa.retry,
                    expire: soa.expire,
                    minimum: soa.minimum,
                })
            }
            RData::CAA(caa) => {
                let value = String::from_utf8_lossy(&caa.value).into_owned();
                out.caa = Some(CaaFields { critical: caa.issuer_critical, tag: caa.tag.clone(), value });
            }
            _ => {}
        }
        out
    }
}
