//! A DNS server answering from fixtures, over UDP and TCP.
//!
//! It answers authoritatively for the names in its zone, follows CNAMEs inside the zone, says
//! NXDOMAIN for unknown names and NODATA (with the SOA) for known names without records of the
//! asked type. One name changes its answer between queries, to test rebinding: its first A
//! query gets an address the tests allow, every later one a loopback address. Another counts
//! its TXT queries in its answer (with an hour's TTL), so a test can tell a fresh answer from
//! one a resolver kept.

use std::{
    collections::HashMap,
    net::SocketAddr,
    sync::{
        Arc,
        atomic::{AtomicUsize, Ordering},
    },
};

use hickory_proto::{
    op::{Message, MessageType, OpCode, ResponseCode},
    rr::{Name, RData, Record, RecordType},
};
use tokio::{
    io::{AsyncReadExt, AsyncWriteExt},
    net::{TcpListener, UdpSocket},
};

/// The name whose answer changes after the first query.
pub const REBINDING_NAME: &str = "rebind.site.example.";

/// The name whose TXT record is `"asked N"`, N its TXT queries so far, with a TTL of an hour.
pub const COUNTING_NAME: &str = "counter.site.example.";

/// Zone-file lines: name, TTL, type, data.
pub type Fixture = [(&'static str, u32, &'static str, &'static str)];

/// The zone the tests and the documentation's examples are answered from.
pub const ZONE: &Fixture = &[
    ("example.com.", 3600, "A", "93.184.215.14"),
    ("example.com.", 3600, "AAAA", "2606:2800:21f:cb07:6820:80da:af6b:8b2c"),
    ("example.com.", 86400, "MX", "0 ."),
    ("example.com.", 86400, "TXT", "\"v=spf1 -all\""),
    ("example.com.", 86400, "TXT", "\"wgyf8z8cgvm2qmxpnbnldrcltvk4xqfn\""),
    ("example.com.", 86400, "NS", "a.iana-servers.net."),
    ("example.com.", 86400, "NS", "b.iana-servers.net."),
    ("example.com.", 3600, "SOA", "ns.icann.org. noc.dns.icann.org. 2025011631 7200 3600 1209600 3600"),
    ("example.com.", 86400, "CAA", "0 issue \"digicert.com\""),
    ("www.example.com.", 300, "CNAME", "example.com."),
    ("_sip._tcp.example.com.", 3600, "SRV", "10 60 5060 sip.example.com."),
    ("sip.example.com.", 3600, "A", "93.184.215.15"),
    ("8.8.8.8.in-addr.arpa.", 86400, "PTR", "dns.google."),
    ("1.1.1.1.in-addr.arpa.", 1800, "PTR", "one.one.one.one."),
    ("dns.google.", 900, "A", "8.8.8.8"),
    // The fixture web sites, served by the fake HTTP(S) servers on 127.0.0.2.
    ("site.example.", 300, "A", "127.0.0.2"),
    ("www.site.example.", 300, "A", "127.0.0.2"),
    ("secure.site.example.", 300, "A", "127.0.0.2"),
    ("bare.site.example.", 300, "A", "127.0.0.2"),
    ("v6.site.example.", 300, "AAAA", "::ffff:127.0.0.2"),
    ("company.site.example.", 300, "A", "127.0.0.2"),
    ("unranked.site.example.", 300, "A", "127.0.0.2"),
    ("green.site.example.", 300, "A", "127.0.0.2"),
    ("tech.site.example.", 300, "A", "127.0.0.2"),
    // Mail domains: MX records, an address but no MX, a null MX (RFC 7505).
    ("mailer.site.example.", 300, "MX", "10 mx1.mailer.site.example."),
    ("mailer.site.example.", 300, "MX", "20 mx2.mailer.site.example."),
    ("mx1.mailer.site.example.", 300, "A", "127.0.0.2"),
    ("mx2.mailer.site.example.", 300, "A", "127.0.0.2"),
    ("nomx.site.example.", 300, "A", "127.0.0.2"),
    // A mail domain whose misspelling mailcheck corrects to another that does not exist
    // (wrx-mail.cmo -> wrx-mail.ca): only DNS tells the right one.
    ("wrx-mail.com.", 300, "MX", "10 mx.wrx-mail.com."),
    ("mx.wrx-mail.com.", 300, "A", "127.0.0.2"),
    ("nullmx.site.example.", 300, "MX", "0 ."),
    // Mail authentication: a well-protected domain and a weak one.
    ("mailer.site.example.", 300, "TXT", "\"v=spf1 ip4:192.0.2.0/24 include:_spf.mailer.site.example -all\""),
    ("_spf.mailer.site.example.", 300, "TXT", "\"v=spf1 ip6:2001:db8::/32 a mx ~all\""),
    (
        "_dmarc.mailer.site.example.",
        300,
        "TXT",
        "\"v=DMARC1; p=reject; rua=mailto:dmarc@mailer.site.example; adkim=s; pct=100\"",
    ),
    (
        "selector1._domainkey.mailer.site.example.",
        300,
        "TXT",
        "\"v=DKIM1; k=rsa; \" \"p=MIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEA0WJ/3mhIuKkwUY7ZJuovYVcdVyuUB+Lsk3sFYJH9Bjwx/lQj8up89mbH4yOMEG3BWlpNnWb9nT2q3IvBinhGxjULNEqlWdRvjIQ+ahsW7ndL5uEBwxgEy31IVdx5WWfl75vRcPDaA7040Y+A9SrzMI9cue\" \"804ztz8onNQfgekVDBBR3KUPyfdc08KXMOs2X/xzDgtDMnYw2Ig/7nevDgRL4ZDYS2WU7JblzkAIk7W3QpJb5qm/tyd9hXsmke+bViGKxeYozlnTl76rgY0trH0JikvUsY/ROoW8tKwmmD1lbfwTB6ExPIp5wbwfK2PfQGcC2Xc90JJIiHBNy+c+YgpwIDAQAB\"",
    ),
    ("_mta-sts.mailer.site.example.", 300, "TXT", "\"v=STSv1; id=20261101T000000\""),
    ("_smtp._tls.mailer.site.example.", 300, "TXT", "\"v=TLSRPTv1; rua=mailto:tlsrpt@mailer.site.example\""),
    ("default._bimi.mailer.site.example.", 300, "TXT", "\"v=BIMI1; l=https://mailer.site.example/logo.svg\""),
    ("weak.site.example.", 300, "MX", "10 mx1.mailer.site.example."),
    (
        "weak.site.example.",
        300,
        "TXT",
        "\"v=spf1 a mx ptr exists:x.weak.site.example include:_spf.mailer.site.example include:gone.weak.site.example a:1.weak.site.example a:2.weak.site.example mx:3.weak.site.example ?all\"",
    ),
    ("weak.site.example.", 300, "TXT", "\"google-site-verification=abc\""),
    ("_dmarc.weak.site.example.", 300, "TXT", "\"v=DMARC1; p=none\""),
    (
        "s2024._domainkey.weak.site.example.",
        300,
        "TXT",
        "\"v=DKIM1; k=rsa; p=MIGfMA0GCSqGSIb3DQEBAQUAA4GNADCBiQKBgQDK/K2p9ERDcqcUo6osWjqaB7hYNsJUcFf27GYPDhicYAqJlInE6M1biD4P4Jqom2IYt7zia2strF31iBKQTHZecKx3EOywqgnHSY+FuFT1AoaTWodg5WQltyGyicaRWdGApFrqE2xqVDp/w1iILt92cYvCCXy/eLEYc3llCYVcSwIDAQAB\"",
    ),
    ("loop.site.example.", 300, "TXT", "\"v=spf1 include:loop.site.example -all\""),
    ("expired.site.example.", 300, "A", "127.0.0.2"),
    ("expiring.site.example.", 300, "A", "127.0.0.2"),
    ("self-signed.site.example.", 300, "A", "127.0.0.2"),
    ("wrong-name.site.example.", 300, "A", "127.0.0.2"),
    ("incomplete.site.example.", 300, "A", "127.0.0.2"),
    ("site.example.", 300, "SOA", "ns.site.example. admin.site.example. 1 7200 3600 1209600 300"),
    // Names that lead where no caller may go.
    ("loopback.evil.example.", 60, "A", "127.0.0.1"),
    ("private.evil.example.", 60, "A", "10.0.0.1"),
    ("metadata.evil.example.", 60, "A", "169.254.169.254"),
    ("cgnat.evil.example.", 60, "A", "100.100.100.200"),
    ("zero.evil.example.", 60, "A", "0.0.0.0"),
    ("v6loop.evil.example.", 60, "AAAA", "::1"),
    ("mapped.evil.example.", 60, "AAAA", "::ffff:127.0.0.1"),
    ("ula.evil.example.", 60, "AAAA", "fd00:ec2::254"),
    ("nat64.evil.example.", 60, "AAAA", "64:ff9b::a9fe:a9fe"),
    ("mixed.evil.example.", 60, "A", "127.0.0.2"),
    ("mixed.evil.example.", 60, "A", "127.0.0.1"),
    ("alias.evil.example.", 60, "CNAME", "loopback.evil.example."),
    ("localhost.evil.example.", 60, "A", "127.0.0.1"),
];

/// The same zone as seen by a resolver that has not caught up: one address differs.
pub const LAGGING_ZONE: &Fixture = &[
    ("example.com.", 3600, "A", "93.184.216.34"),
    ("example.com.", 3600, "AAAA", "2606:2800:21f:cb07:6820:80da:af6b:8b2c"),
    ("example.com.", 86400, "MX", "0 ."),
    ("example.com.", 86400, "TXT", "\"v=spf1 -all\""),
    ("example.com.", 86400, "NS", "a.iana-servers.net."),
    ("example.com.", 86400, "NS", "b.iana-servers.net."),
    ("example.com.", 3600, "SOA", "ns.icann.org. noc.dns.icann.org. 2025011630 7200 3600 1209600 3600"),
];

/// A running fake DNS server.
#[derive(Clone)]
pub struct DnsServer {
    pub address: SocketAddr,
    queries: Arc<AtomicUsize>,
}

impl DnsServer {
    /// Queries answered so far.
    pub fn queries(&self) -> usize {
        self.queries.load(Ordering::SeqCst)
    }
}

struct Zone {
    records: HashMap<(Name, RecordType), Vec<Record>>,
    names: Vec<Name>,
    soa: Vec<Record>,
    rebinding: AtomicUsize,
    counted: AtomicUsize,
}

fn name(s: &str) -> Name {
    Name::from_ascii(s).unwrap_or_else(|e| panic!("fixture name {s}: {e}"))
}

impl Zone {
    fn new(fixture: &Fixture) -> Zone {
        let mut records: HashMap<(Name, RecordType), Vec<Record>> = HashMap::new();
        let mut names = Vec::new();
        let mut soa = Vec::new();
        for &(owner, ttl, kind, data) in fixture {
            let kind: RecordType = kind.parse().unwrap_or_else(|_| panic!("fixture type {kind}"));
            let rdata =
                RData::try_from_str(kind, data).unwrap_or_else(|e| panic!("fixture {owner} {kind} {data}: {e}"));
            let record = Record::from_rdata(name(owner), ttl, rdata);
            if kind == RecordType::SOA {
                soa.push(record.clone());
            }
            let key = (name(owner).to_lowercase(), kind);
            names.push(key.0.clone());
            records.entry(key).or_default().push(record);
        }
        names.push(name(REBINDING_NAME));
        names.push(name(COUNTING_NAME));
        Zone { records, names, soa, rebinding: AtomicUsize::new(0), counted: AtomicUsize::new(0) }
    }

    /// The answer section for `qname`/`qtype`, following CNAMEs inside the zone, and the code.
    fn answer(&self, qname: &Name, qtype: RecordType) -> (ResponseCode, Vec<Record>) {
        let mut out = Vec::new();
        let mut current = qname.to_lowercase();
        for _ in 0..8 {
            if current == name(REBINDING_NAME) {
                if qtype == RecordType::A {
                    let n = self.rebinding.fetch_add(1, Ordering::SeqCst);
                    let ip = if n == 0 { "127.0.0.2" } else { "127.0.0.1" };
                    out.push(Record::from_rdata(
                        current.clone(),
                        0,
                        RData::try_from_str(RecordType::A, ip).expect("an address"),
                    ));
                }
                return (ResponseCode::NoError, out);
            }
            if current == name(COUNTING_NAME) {
                if qtype == RecordType::TXT {
                    let n = self.counted.fetch_add(1, Ordering::SeqCst) + 1;
                    let txt = format!("\"asked {n}\"");
                    out.push(Record::from_rdata(
                        current.clone(),
                        3600,
                        RData::try_from_str(RecordType::TXT, &txt).expect("a TXT record"),
                    ));
                }
                return (ResponseCode::NoError, out);
            }
            if let Some(found) = self.records.get(&(current.clone(), qtype)) {
                out.extend(found.iter().cloned());
                return (ResponseCode::NoError, out);
            }
            match self.records.get(&(current.clone(), RecordType::CNAME)) {
                Some(cname) if qtype != RecordType::CNAME => {
                    out.extend(cname.iter().cloned());
                    let RData::CNAME(target) = &cname[0].data else { break };
                    current = target.0.to_lowercase();
                }
                _ => break,
            }
        }
        if out.is_empty() && !self.names.contains(&current) {
            return (ResponseCode::NXDomain, out);
        }
        (ResponseCode::NoError, out)
    }

    fn respond(&self, query: &[u8]) -> Option<Vec<u8>> {
        let request = Message::from_vec(query).ok()?;
        let mut response = Message::response(request.metadata.id, OpCode::Query);
        response.metadata.message_type = MessageType::Response;
        response.metadata.authoritative = true;
        response.metadata.recursion_desired = request.metadata.recursion_desired;
        response.metadata.recursion_available = true;
        match request.queries.first() {
            Some(q) => {
                response.add_query(q.clone());
                let (code, answers) = self.answer(q.name(), q.query_type());
                response.metadata.response_code = code;
                if answers.is_empty() {
                    response.add_authorities(self.soa.iter().take(1).cloned());
                }
                response.add_answers(answers);
            }
            None => response.metadata.response_code = ResponseCode::FormErr,
        }
        response.to_vec().ok()
    }
}

/// Serves `fixture` on `address` (UDP and TCP), on the current runtime.
pub async fn serve(address: SocketAddr, fixture: &'static Fixture) -> std::io::Result<DnsServer> {
    let zone = Arc::new(Zone::new(fixture));
    let queries = Arc::new(AtomicUsize::new(0));
    let udp = UdpSocket::bind(address).await?;
    let address = udp.local_addr()?;
    let tcp = TcpListener::bind(address).await?;
    {
        let (zone, queries) = (zone.clone(), queries.clone());
        tokio::spawn(async move {
            let mut buf = vec![0u8; 4096];
            while let Ok((n, peer)) = udp.recv_from(&mut buf).await {
                queries.fetch_add(1, Ordering::SeqCst);
                if let Some(answer) = zone.respond(&buf[..n]) {
                    let _ = udp.send_to(&answer, peer).await;
                }
            }
        });
    }
    {
        let queries = queries.clone();
        tokio::spawn(async move {
            while let Ok((mut stream, _)) = tcp.accept().await {
                let (zone, queries) = (zone.clone(), queries.clone());
                tokio::spawn(async move {
                    loop {
                        let mut len = [0u8; 2];
                        if stream.read_exact(&mut len).await.is_err() {
                            return;
                        }
                        let mut query = vec![0u8; u16::from_be_bytes(len) as usize];
                        if stream.read_exact(&mut query).await.is_err() {
                            return;
                        }
                        queries.fetch_add(1, Ordering::SeqCst);
                        let Some(answer) = zone.respond(&query) else { return };
                        let mut framed = (answer.len() as u16).to_be_bytes().to_vec();
                        framed.extend(answer);
                        if stream.write_all(&framed).await.is_err() {
                            return;
                        }
                    }
                });
            }
        });
    }
    Ok(DnsServer { address, queries })
}
