//! A registry's lookup services from fixtures: RDAP answers (served by the fake web site under
//! `/rdap/`, see [`rdap_route`]) and a WHOIS server on port 43's protocol (RFC 3912).
//!
//! The bootstrap file the fakes publish sends `.example` to the fake RDAP server; the WHOIS
//! server answers for `.example` and `.test`. So:
//! - `site.example`: RDAP knows it;
//! - `broken.example`: RDAP fails (500), WHOIS knows it;
//! - other `.example` names: RDAP says 404 (not registered);
//! - `registered.test`: no RDAP service for `.test`; WHOIS knows it;
//! - other `.test` names: WHOIS says there is no match;
//! - addresses in 8.8.8.0/24 and AS numbers 64496 to 64511 (the documentation range of RFC
//!   5398): RDAP knows one network and one AS number of each, with fixture data
//!   (`FIXTURE-...` handles), and says 404 for the others.

use std::net::SocketAddr;

use tokio::{
    io::{AsyncReadExt, AsyncWriteExt},
    net::TcpListener,
};

/// The answer to an RDAP path (after `/rdap`), as (status, JSON body).
pub fn rdap_route(path: &str) -> Option<(u16, String)> {
    let service = |entries: &str| {
        format!(
            r#"{{"description":"RDAP bootstrap file for the tests' registry","publication":"2026-11-01T00:00:00Z","version":"1.0","services":[[[{entries}],["http://{}/rdap/"]]]}}"#,
            crate::HTTP
        )
    };
    match path {
        "/bootstrap/dns.json" => return Some((200, service(r#""example""#))),
        "/bootstrap/ipv4.json" => return Some((200, service(r#""8.8.8.0/24""#))),
        "/bootstrap/ipv6.json" => return Some((200, service(r#""2001:4860::/32""#))),
        "/bootstrap/asn.json" => return Some((200, service(r#""64496-64511""#))),
        "/ip/8.8.8.8" => return Some((200, NETWORK.to_string())),
        "/autnum/64500" => return Some((200, AUTNUM.to_string())),
        _ if path.starts_with("/ip/") || path.starts_with("/autnum/") => {
            return Some((404, r#"{"errorCode":404,"title":"Not Found"}"#.to_string()));
        }
        _ => {}
    }
    let domain = path.strip_prefix("/domain/")?.to_ascii_lowercase();
    Some(match domain.as_str() {
        "site.example" => (200, SITE_EXAMPLE.to_string()),
        "broken.example" => (500, r#"{"errorCode":500,"title":"Internal Server Error"}"#.to_string()),
        _ => (
            404,
            r#"{"errorCode":404,"title":"Not Found","description":["The domain is not registered."]}"#.to_string(),
        ),
    })
}

const SITE_EXAMPLE: &str = r#"{
  "objectClassName": "domain",
  "rdapConformance": ["rdap_level_0"],
  "handle": "D-SITE-EXAMPLE",
  "ldhName": "SITE.EXAMPLE",
  "status": ["client transfer prohibited", "server delete prohibited"],
  "events": [
    {"eventAction": "registration", "eventDate": "2001-03-15T12:00:00Z"},
    {"eventAction": "last changed", "eventDate": "2026-02-01T08:30:00Z"},
    {"eventAction": "expiration", "eventDate": "2031-03-15T12:00:00Z"},
    {"eventAction": "last update of RDAP database", "eventDate": "2026-11-01T00:00:00Z"}
  ],
  "entities": [
    {"objectClassName": "entity", "roles": ["registrar"],
     "publicIds": [{"type": "IANA Registrar ID", "identifier": "9999"}],
     "vcardArray": ["vcard", [["version", {}, "text", "4.0"], ["fn", {}, "text", "Fixture Registrar Ltd"]]]}
  ],
  "nameservers": [
    {"objectClassName": "nameserver", "ldhName": "NS1.SITE.EXAMPLE"},
    {"objectClassName": "nameserver", "ldhName": "NS2.SITE.EXAMPLE"}
  ],
  "secureDNS": {"delegationSigned": false}
}"#;

const NETWORK: &str = r#"{
  "objectClassName": "ip network",
  "rdapConformance": ["rdap_level_0"],
  "handle": "FIXTURE-NET-8-8-8-0",
  "startAddress": "8.8.8.0",
  "endAddress": "8.8.8.255",
  "ipVersion": "v4",
  "name": "FIXTURE-NET",
  "type": "DIRECT ALLOCATION",
  "country": "ZZ",
  "parentHandle": "FIXTURE-NET-8-0-0-0",
  "status": ["active"],
  "events": [
    {"eventAction": "registration", "eventDate": "2014-03-14T00:00:00Z"},
    {"eventAction": "last changed", "eventDate": "2024-01-01T00:00:00Z"}
  ],
  "entities": [
    {"objectClassName": "entity", "roles": ["registrant"],
     "vcardArray": ["vcard", [["version", {}, "text", "4.0"], ["fn", {}, "text", "Fixture Network Holder"]]]}
  ]
}"#;

const AUTNUM: &str = r#"{
  "objectClassName": "autnum",
  "handle": "FIXTURE-AS64500",
  "startAutnum": 64500,
  "endAutnum": 64500,
  "name": "FIXTURE-AS",
  "type": "DIRECT ALLOCATION",
  "country": "ZZ",
  "status": ["active"],
  "events": [{"eventAction": "registration", "eventDate": "2009-09-09T00:00:00Z"}],
  "entities": [
    {"objectClassName": "entity", "roles": ["registrant"],
     "vcardArray": ["vcard", [["version", {}, "text", "4.0"], ["fn", {}, "text", "Fixture Network Holder"]]],
     "entities": [
       {"objectClassName": "entity", "roles": ["abuse"],
        "vcardArray": ["vcard", [["version", {}, "text", "4.0"], ["fn", {}, "text", "Abuse desk"],
                                 ["email", {}, "text", "abuse@fixture-network.test"]]]}
     ]}
  ]
}"#;

fn whois_answer(query: &str) -> String {
    let domain = query.trim().to_ascii_lowercase();
    match domain.as_str() {
        "registered.test" | "broken.example" => format!(
            "Domain Name: {}\r\nRegistry Domain ID: D42-FIXTURE\r\nUpdated Date: 2025-06-01T10:00:00Z\r\n\
             Creation Date: 2010-04-20T09:15:00Z\r\nRegistry Expiry Date: 2027-04-20T09:15:00Z\r\n\
             Registrar: Fixture Registrar Ltd\r\nRegistrar IANA ID: 9999\r\n\
             Domain Status: clientTransferProhibited https://icann.org/epp#clientTransferProhibited\r\n\
             Domain Status: ok https://icann.org/epp#ok\r\n\
             Name Server: NS1.{}\r\nName Server: NS2.{}\r\nDNSSEC: signedDelegation\r\n\
             >>> Last update of WHOIS database: 2026-11-01T00:00:00Z <<<\r\n",
            domain.to_ascii_uppercase(),
            domain.to_ascii_uppercase(),
            domain.to_ascii_uppercase()
        ),
        _ => format!(
            "No match for \"{}\".\r\n>>> Last update of WHOIS database: 2026-11-01T00:00:00Z <<<\r\n",
            domain.to_ascii_uppercase()
        ),
    }
}

/// Serves WHOIS on `address`: one query line, one answer, then the connection closes.
pub async fn serve(address: SocketAddr) -> std::io::Result<SocketAddr> {
    let listener = TcpListener::bind(address).await?;
    let address = listener.local_addr()?;
    tokio::spawn(async move {
        while let Ok((mut stream, _)) = listener.accept().await {
            tokio::spawn(async move {
                let mut line = Vec::new();
                let mut buf = [0u8; 512];
                while !line.contains(&b'\n') && line.len() < 4096 {
                    match tokio::time::timeout(std::time::Duration::from_secs(5), stream.read(&mut buf)).await {
                        Ok(Ok(n)) if n > 0 => line.extend_from_slice(&buf[..n]),
                        _ => return,
                    }
                }
                let answer = whois_answer(&String::from_utf8_lossy(&line));
                let _ = stream.write_all(answer.as_bytes()).await;
                let _ = stream.shutdown().await;
            });
        }
    });
    Ok(address)
}
