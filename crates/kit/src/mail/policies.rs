//! The mail policies a domain publishes beside SPF (`spf.rs`), read for
//! `email-security/report`: DMARC with the organisational-domain fallback (RFC 7489 section
//! 6.6.3), DKIM keys under a list of selectors with their type and size (RFC 6376, RFC 8463),
//! MTA-STS with its policy fetched over HTTPS through the guard (RFC 8461), and the tag-list
//! records of TLS-RPT (RFC 8460) and BIMI.

use futures_util::{StreamExt, stream};

use crate::mail::records::{tag, tags, txt, versioned};
use wrench_contract::prelude::*;
use wrench_infra::outbound::{FetchOptions, resolver::Resolver};

/// Selectors tried when none are given: those of widely used mail services and defaults of
/// common mail software.
pub const COMMON_SELECTORS: &[&str] = &[
    "default",
    "dkim",
    "mail",
    "selector1",
    "selector2",
    "google",
    "k1",
    "k2",
    "k3",
    "s1",
    "s2",
    "smtp",
    "mandrill",
    "mxvault",
    "everlytickey1",
    "everlytickey2",
    "fm1",
    "fm2",
    "fm3",
    "protonmail",
    "protonmail2",
    "protonmail3",
    "zoho",
    "sendgrid",
    "mailjet",
    "amazonses",
];

/// Selectors queried at once.
pub const DKIM_CONCURRENCY: usize = 8;

/// Bytes of an MTA-STS policy read (RFC 8461 section 3.2 allows 64 KiB).
pub const MTA_STS_MAX: usize = 64 * 1024;

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Dmarc {
    pub record: Option<String>,
    /// Where the record was found: the domain's `_dmarc`, or its organisational domain's.
    pub found_at: Option<String>,
    pub valid: bool,
    /// `none`, `quarantine` or `reject`.
    pub policy: Option<String>,
    pub subdomain_policy: Option<String>,
    /// Percentage of failing mail the policy applies to.
    pub pct: u8,
    /// `relaxed` or `strict`.
    pub dkim_alignment: &'static str,
    pub spf_alignment: &'static str,
    pub aggregate_reports: Vec<String>,
    pub forensic_reports: Vec<String>,
    pub errors: Vec<String>,
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct DkimKey {
    pub selector: String,
    /// `rsa` or `ed25519`.
    pub key_type: String,
    /// Key size in bits, when the key could be read.
    pub bits: Option<usize>,
    /// The key is withdrawn (empty `p=`).
    pub revoked: bool,
    /// `y` (testing) among the flags.
    pub testing: bool,
    pub error: Option<String>,
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Dkim {
    /// Selectors tried.
    pub selectors_tried: usize,
    pub keys: Vec<DkimKey>,
    /// A note that a key under another selector cannot be ruled out.
    pub note: &'static str,
}

#[derive(Debug, Default, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct MtaSts {
    pub record: Option<String>,
    pub id: Option<String>,
    pub policy_url: Option<String>,
    /// `enforce`, `testing` or `none`, from the fetched policy.
    pub mode: Option<String>,
    pub mx: Vec<String>,
    pub max_age: Option<u64>,
    pub errors: Vec<String>,
}

#[derive(Debug, Default, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct TaggedRecord {
    pub record: Option<String>,
    pub valid: bool,
    /// The record's tags, as written.
    pub tags: std::collections::BTreeMap<String, String>,
    pub errors: Vec<String>,
}

pub fn list_tag(value: Option<&str>) -> Vec<String> {
    value.map(|v| v.split(',').map(|s| s.trim().to_string()).filter(|s| !s.is_empty()).collect()).unwrap_or_default()
}

pub fn dmarc_empty() -> Dmarc {
    Dmarc {
        record: None,
        found_at: None,
        valid: false,
        policy: None,
        subdomain_policy: None,
        pct: 100,
        dkim_alignment: "relaxed",
        spf_alignment: "relaxed",
        aggregate_reports: Vec::new(),
        forensic_reports: Vec::new(),
        errors: Vec::new(),
    }
}

pub async fn dmarc(resolver: &Resolver, domain: &str) -> Dmarc {
    let mut out = dmarc_empty();
    // RFC 7489 section 6.6.3: the domain's own record, else its organisational domain's.
    let org = psl::domain_str(domain).filter(|o| *o != domain);
    for at in std::iter::once(domain).chain(org) {
        let name = format!("_dmarc.{at}");
        let records = match txt(resolver, &name).await {
            Ok(r) => r.unwrap_or_default(),
            Err(e) => {
                out.errors.push(format!("the TXT lookup of {name} failed: {e}"));
                return out;
            }
        };
        let found = versioned(&records, "v=DMARC1");
        if found.len() > 1 {
            out.errors.push(format!("{name} has {} DMARC records; receivers ignore them all", found.len()));
            return out;
        }
        let Some(record) = found.first() else { continue };
        out.record = Some(record.to_string());
        out.found_at = Some(name);
        let (list, bad) = tags(record);
        out.errors.extend(bad.into_iter().map(|b| format!("{b:?} is not a tag=value pair")));
        out.policy = tag(&list, "p").map(str::to_ascii_lowercase);
        out.subdomain_policy = tag(&list, "sp").map(str::to_ascii_lowercase);
        for (p, which) in [(&out.policy, "p"), (&out.subdomain_policy, "sp")] {
            if let Some(p) = p.as_deref().filter(|p| !matches!(*p, "none" | "quarantine" | "reject")) {
                out.errors.push(format!("{which}={p} is not none, quarantine or reject"));
            }
        }
        if out.policy.is_none() {
            out.errors.push("the record has no p= policy, which is required".into());
        }
        match tag(&list, "pct").map(|p| p.parse::<u8>()) {
            Some(Ok(p)) if p <= 100 => out.pct = p,
            Some(_) => out.errors.push("pct= is not a whole number from 0 to 100".into()),
            None => {}
        }
        let alignment =
            |v: Option<&str>| if v.is_some_and(|v| v.eq_ignore_ascii_case("s")) { "strict" } else { "relaxed" };
        out.dkim_alignment = alignment(tag(&list, "adkim"));
        out.spf_alignment = alignment(tag(&list, "aspf"));
        out.aggregate_reports = list_tag(tag(&list, "rua"));
        out.forensic_reports = list_tag(tag(&list, "ruf"));
        out.valid = out.errors.is_empty();
        return out;
    }
    out
}

/// The key of one DKIM record.
pub fn dkim_key(selector: &str, record: &str) -> DkimKey {
    let (list, _) = tags(record);
    let key_type = tag(&list, "k").unwrap_or("rsa").to_ascii_lowercase();
    let p: String = tag(&list, "p").unwrap_or("").chars().filter(|c| !c.is_whitespace()).collect();
    let testing = tag(&list, "t").is_some_and(|t| t.split(':').any(|f| f.trim() == "y"));
    let mut key =
        DkimKey { selector: selector.to_string(), key_type, bits: None, revoked: p.is_empty(), testing, error: None };
    if key.revoked {
        return key;
    }
    use base64::Engine;
    let der = match base64::engine::general_purpose::STANDARD.decode(&p) {
        Ok(d) => d,
        Err(e) => {
            key.error = Some(format!("p= is not base64: {e}"));
            return key;
        }
    };
    if key.key_type == "ed25519" {
        // RFC 8463: the bare 32-byte public key.
        if der.len() == 32 {
            key.bits = Some(256);
        } else {
            key.error = Some(format!("an Ed25519 key is 32 bytes, this one {}", der.len()));
        }
        return key;
    }
    use x509_parser::prelude::FromDer;
    let Ok((_, spki)) = x509_parser::x509::SubjectPublicKeyInfo::from_der(&der) else {
        key.error = Some("p= is not a DER public key (SubjectPublicKeyInfo)".into());
        return key;
    };
    match spki.parsed() {
        Ok(x509_parser::public_key::PublicKey::RSA(rsa)) => key.bits = Some(rsa.key_size()),
        Ok(_) => key.error = Some("the key is not an RSA key".into()),
        Err(_) => key.error = Some("p= holds a public key that cannot be read".into()),
    }
    key
}

pub async fn dkim(resolver: &Resolver, domain: &str, selectors: &[String]) -> Dkim {
    let lookups: Vec<_> = selectors
        .iter()
        .map(|s| async move {
            let name = format!("{s}._domainkey.{domain}");
            let records = txt(resolver, &name).await.ok().flatten().unwrap_or_default();
            // A key record has `p=`; `v=DKIM1`, when present, comes first (RFC 6376 3.6.1).
            records.iter().find(|r| tags(r).0.iter().any(|(k, _)| k == "p")).map(|r| dkim_key(s, r))
        })
        .collect();
    let keys: Vec<DkimKey> =
        stream::iter(lookups).buffered(DKIM_CONCURRENCY).filter_map(|k| async { k }).collect().await;
    Dkim {
        selectors_tried: selectors.len(),
        keys,
        note: "DKIM selectors cannot be listed: a key under a selector not tried cannot be ruled out",
    }
}

/// An MTA-STS policy file (RFC 8461 section 3.2): `key: value` lines.
pub fn read_policy(text: &str, out: &mut MtaSts) {
    for line in text.lines() {
        let Some((k, v)) = line.split_once(':') else { continue };
        let v = v.trim();
        match k.trim() {
            "version" if v != "STSv1" => out.errors.push(format!("the policy's version is {v:?}, not STSv1")),
            "mode" => out.mode = Some(v.to_string()),
            "mx" => out.mx.push(v.to_string()),
            "max_age" => out.max_age = v.parse().ok(),
            _ => {}
        }
    }
    match out.mode.as_deref() {
        Some("enforce" | "testing" | "none") => {}
        Some(m) => out.errors.push(format!("the policy's mode {m:?} is not enforce, testing or none")),
        None => out.errors.push("the policy has no mode".into()),
    }
    if out.max_age.is_none() {
        out.errors.push("the policy has no valid max_age".into());
    }
    if out.mode.as_deref() != Some("none") && out.mx.is_empty() {
        out.errors.push("the policy names no mx".into());
    }
}

pub async fn mta_sts(ctx: &Ctx, domain: &str) -> MtaSts {
    let mut out = MtaSts::default();
    let records = match txt(&ctx.net.resolver, &format!("_mta-sts.{domain}")).await {
        Ok(r) => r.unwrap_or_default(),
        Err(e) => {
            out.errors.push(format!("the TXT lookup failed: {e}"));
            return out;
        }
    };
    let found = versioned(&records, "v=STSv1");
    let Some(record) = found.first() else { return out };
    out.record = Some(record.to_string());
    out.id = tag(&tags(record).0, "id").map(str::to_string);
    if out.id.is_none() {
        out.errors.push("the record has no id=".into());
    }
    // RFC 8461 section 3.3: the policy is served over HTTPS (valid certificate) at this URL.
    let url = format!("https://mta-sts.{domain}/.well-known/mta-sts.txt");
    out.policy_url = Some(url.clone());
    let Ok(url) = url::Url::parse(&url) else { return out };
    let chain = ctx.net.fetch(url, FetchOptions { follow: false, read_body: true }).await;
    match chain.into_result(0) {
        Ok(c) if c.last().is_some_and(|h| h.status == 200) => {
            let body = c.body.unwrap_or_default();
            read_policy(&String::from_utf8_lossy(&body[..body.len().min(MTA_STS_MAX)]), &mut out);
        }
        Ok(c) => out.errors.push(format!("the policy answered {}", c.last().map_or(0, |h| h.status))),
        Err(e) => out.errors.push(format!("the policy could not be fetched: {e}")),
    }
    out
}

/// A `v=...` tag-list record at `name` (TLS-RPT, BIMI).
pub async fn tagged(resolver: &Resolver, name: &str, version: &str, required: &[&str]) -> TaggedRecord {
    let mut out = TaggedRecord::default();
    let records = match txt(resolver, name).await {
        Ok(r) => r.unwrap_or_default(),
        Err(e) => {
            out.errors.push(format!("the TXT lookup of {name} failed: {e}"));
            return out;
        }
    };
    let found = versioned(&records, version);
    if found.len() > 1 {
        out.errors.push(format!("{name} has {} records; there must be one", found.len()));
    }
    let Some(record) = found.first() else { return out };
    out.record = Some(record.to_string());
    let (list, bad) = tags(record);
    out.errors.extend(bad.into_iter().map(|b| format!("{b:?} is not a tag=value pair")));
    for r in required {
        if tag(&list, r).is_none() {
            out.errors.push(format!("the record has no {r}="));
        }
    }
    out.tags = list.into_iter().collect();
    out.valid = out.errors.is_empty();
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mta_sts_policies_are_read() {
        let mut out = MtaSts::default();
        read_policy(
            "version: STSv1\r\nmode: enforce\r\nmx: mail.example.com\r\nmx: *.example.net\r\nmax_age: 604800\r\n",
            &mut out,
        );
        assert_eq!((out.mode.as_deref(), out.mx.len(), out.max_age), (Some("enforce"), 2, Some(604800)));
        assert!(out.errors.is_empty(), "{:?}", out.errors);
        let mut bad = MtaSts::default();
        read_policy("version: STSv2\nmode: strict\n", &mut bad);
        assert_eq!(bad.errors.len(), 4, "{:?}", bad.errors);
    }
}
