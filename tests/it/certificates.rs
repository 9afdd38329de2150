//! The certificate summaries of `ssl` and `ssl-cert/expiry` checked against a second reader:
//! the OpenSSL command-line tool, given each certificate the fake HTTPS sites show (leaves of
//! every kind and the intermediate). Fingerprint, serial number, validity, names and key size
//! must agree. Without an `openssl` executable the test says it skipped.

use crate::common;

use std::process::Command;

use wrench_infra::outbound::certificate::summarize;

fn openssl(der: &[u8], args: &[&str]) -> Option<String> {
    let dir = std::env::temp_dir().join(format!("wrench-cert-{}", std::process::id()));
    std::fs::create_dir_all(&dir).ok()?;
    let path = dir.join("cert.der");
    std::fs::write(&path, der).ok()?;
    let out = Command::new("openssl")
        .args(["x509", "-inform", "DER", "-in"])
        .arg(&path)
        .args(["-noout", "-nameopt", "RFC2253"])
        .args(args)
        .output()
        .ok()?;
    assert!(out.status.success(), "openssl failed: {}", String::from_utf8_lossy(&out.stderr));
    Some(String::from_utf8_lossy(&out.stdout).into_owned())
}

fn field<'a>(text: &'a str, prefix: &str) -> &'a str {
    text.lines().find_map(|l| l.strip_prefix(prefix)).unwrap_or_else(|| panic!("no {prefix} in {text}")).trim()
}

/// `Nov 25 11:38:32 2027 GMT` as RFC 3339.
fn openssl_date(text: &str) -> String {
    let t = jiff::fmt::strtime::parse("%b %e %H:%M:%S %Y GMT", text.split_whitespace().collect::<Vec<_>>().join(" "))
        .and_then(|t| t.to_datetime())
        .unwrap_or_else(|e| panic!("{text}: {e}"));
    t.to_zoned(jiff::tz::TimeZone::UTC).unwrap().timestamp().to_string()
}

#[test]
fn summaries_agree_with_openssl() {
    if Command::new("openssl").arg("version").output().is_err() {
        common::skipped("no openssl executable to compare certificate summaries with");
        return;
    }
    let certificates = wrench_fakes::tls::TestCa::new().site_certificates();
    let mut compared = 0;
    for (name, chain) in certificates.chains() {
        for der in &chain {
            let ours = summarize(der).unwrap();
            let text =
                openssl(der, &["-fingerprint", "-sha256", "-serial", "-startdate", "-enddate", "-subject", "-issuer"])
                    .expect("openssl runs");
            assert_eq!(ours.sha256_fingerprint, field(&text, "sha256 Fingerprint="), "{name}");
            let serial = field(&text, "serial=").trim_start_matches('0').to_ascii_lowercase();
            assert_eq!(ours.serial_number.replace(':', "").trim_start_matches('0'), serial, "{name}");
            assert_eq!(ours.not_before, openssl_date(field(&text, "notBefore=")), "{name}");
            assert_eq!(ours.not_after, openssl_date(field(&text, "notAfter=")), "{name}");
            let cn = |dn: &str| dn.split(',').find_map(|p| p.strip_prefix("CN=")).map(str::to_string);
            assert_eq!(ours.common_name, cn(field(&text, "subject=")), "{name}");
            assert_eq!(ours.issuer_common_name, cn(field(&text, "issuer=")), "{name}");
            let full = openssl(der, &["-text"]).expect("openssl runs");
            let bits = full
                .lines()
                .find_map(|l| l.trim().strip_prefix("Public-Key: ("))
                .and_then(|r| r.split(' ').next())
                .and_then(|n| n.parse::<u32>().ok());
            assert_eq!(ours.key_bits, bits, "{name}");
            let sans: Vec<String> = full
                .lines()
                .skip_while(|l| !l.contains("X509v3 Subject Alternative Name"))
                .nth(1)
                .map(|l| l.split(',').map(|s| s.trim().trim_start_matches("DNS:").to_string()).collect())
                .unwrap_or_default();
            assert_eq!(ours.subject_alt_names, sans, "{name}");
            assert_eq!(ours.is_ca, full.contains("CA:TRUE"), "{name}");
            compared += 1;
        }
    }
    assert!(compared >= 8, "only {compared} certificates compared");
}
