//! Which domains a name could have (`domain-search/search`): a name, or a phrase
//! turned into name candidates, under a list of top-level domains, each looked up in its
//! registry's RDAP service (RFC 9224 bootstrap; a 404 means the registry holds no such
//! domain, RFC 7480 section 5.3) with DNS as a hint and as the fallback where a registry has
//! no RDAP service. Lookups run [`CONCURRENCY`] at a time within one outbound timeout.
//!
//! "Available" is what the registry's records say; a registry may still reserve, block or
//! price the name as premium, which only a registrar can tell.

use futures_util::{StreamExt, stream};
use hickory_resolver::proto::rr::{Name, RecordType};

use wrench_contract::prelude::*;
use wrench_infra::outbound::resolver::DnsStatus;
use wrench_infra::time::now_rfc3339;
use wrench_kit::hosts::rdap;

/// Lookups at once.
const CONCURRENCY: usize = 8;
/// Top-level domains asked when none are given.
const DEFAULT_TLDS: &[&str] = &["com", "net", "org", "io", "dev", "app", "co", "ai"];

#[derive(Debug, Deserialize, JsonSchema, Validate)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct DomainSearchInput {
    /// A name (`acme`), a phrase (`acme widgets`, tried joined and hyphenated) or a domain
    /// (`acme.io`, whose top-level domain is asked first).
    #[schemars(length(min = 1, max = 100))]
    query: String,
    /// Top-level domains to ask (`com`, `co.uk`), at most 20; by default com, net, org, io,
    /// dev, app, co and ai.
    #[schemars(length(max = 20))]
    tlds: Option<Vec<String>>,
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct DomainResult {
    domain: String,
    /// `registered`, `available` or `unknown`.
    status: &'static str,
    /// What the status rests on: `rdap` (the registry's records) or `dns` (delegation only,
    /// where the registry has no RDAP service or it failed).
    basis: Option<&'static str>,
    /// The DNS answer for the name's NS records: `NOERROR`, `NODATA` or `NXDOMAIN`.
    dns: Option<DnsStatus>,
    registrar: Option<String>,
    expires: Option<String>,
    /// The RDAP service asked.
    rdap_server: Option<String>,
    /// Why the status is unknown or rests on DNS alone.
    note: Option<String>,
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct DomainSearchOutput {
    query: String,
    /// The name candidates tried (IDNA ASCII).
    candidates: Vec<String>,
    tlds: Vec<String>,
    results: Vec<DomainResult>,
    registered: usize,
    available: usize,
    unknown: usize,
    note: &'static str,
    checked_at: String,
}

impl DomainResult {
    /// A result that knows nothing yet, or never will (`note` says why).
    fn unknown(domain: &str, note: Option<String>) -> DomainResult {
        DomainResult {
            domain: domain.to_string(),
            status: "unknown",
            basis: None,
            dns: None,
            registrar: None,
            expires: None,
            rdap_server: None,
            note,
        }
    }
}

/// A DNS label of letters, digits and inner hyphens, in IDNA ASCII.
fn label(text: &str) -> Option<String> {
    let ascii = idna::domain_to_ascii(text).ok()?;
    let ok = !ascii.is_empty()
        && ascii.len() <= 63
        && !ascii.contains('.')
        && ascii.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-')
        && !ascii.starts_with('-')
        && !ascii.ends_with('-');
    ok.then_some(ascii)
}

/// The name candidates of `query` and the top-level domain it names, if any.
fn candidates(query: &str) -> Result<(Vec<String>, Option<String>), ApiError> {
    let q = query.trim().to_lowercase();
    if let Some((name, tld)) = q.split_once('.').filter(|_| !q.contains(char::is_whitespace)) {
        let name = label(name).ok_or_else(|| ApiError::invalid("query", format!("{name:?} is not a domain label")))?;
        return Ok((vec![name], Some(tld.to_string())));
    }
    let words: Vec<String> = q
        .split(|c: char| !(c.is_alphanumeric() || c == '-'))
        .map(|w| w.trim_matches('-').to_string())
        .filter(|w| !w.is_empty())
        .collect();
    if words.is_empty() {
        return Err(ApiError::invalid("query", "has no letters or digits to make a name of"));
    }
    let mut out = Vec::new();
    for joined in [words.concat(), words.join("-")] {
        match label(&joined) {
            Some(l) if !out.contains(&l) => out.push(l),
            Some(_) => {}
            None if out.is_empty() => {
                return Err(ApiError::invalid(
                    "query",
                    format!("{joined:?} does not make a domain label (at most 63 characters)"),
                ));
            }
            None => {}
        }
    }
    Ok((out, None))
}

/// The top-level domains to ask, checked.
fn tld_list(given: Option<&[String]>, named: Option<String>) -> Result<Vec<String>, ApiError> {
    let mut out: Vec<String> = named.into_iter().collect();
    let given: Vec<String> = match given {
        Some(g) => g.to_vec(),
        None => DEFAULT_TLDS.iter().map(|s| s.to_string()).collect(),
    };
    for (i, t) in given.iter().enumerate() {
        let t = t.trim().trim_start_matches('.').to_lowercase();
        if t.is_empty() || t.split('.').any(|l| label(l).is_none()) {
            return Err(ApiError::invalid(
                &format!("tlds[{i}]"),
                format!("{t:?} is not a top-level domain such as com or co.uk"),
            ));
        }
        let ascii = t.split('.').filter_map(label).collect::<Vec<_>>().join(".");
        if !out.contains(&ascii) {
            out.push(ascii);
        }
    }
    if out.len() > 20 {
        return Err(ApiError::invalid("tlds", "names more than 20 top-level domains"));
    }
    Ok(out)
}

async fn look_up(ctx: &Ctx, domain: String, bootstrap: Option<&rdap::Bootstrap>) -> DomainResult {
    let mut out = DomainResult::unknown(&domain, None);
    let dns = async {
        let name = Name::from_ascii(&domain).ok()?;
        ctx.net.resolver.lookup(&name, RecordType::NS).await.ok().map(|a| a.status)
    };
    let rdap = async {
        let base = bootstrap.and_then(|b| b.server_for(&domain))?;
        let url = url::Url::parse(&base).and_then(|b| b.join(&format!("domain/{domain}"))).ok()?;
        let answer = ctx.net.get(url.clone()).await;
        Some((url, answer))
    };
    let (dns, rdap) = tokio::join!(dns, rdap);
    out.dns = dns;
    let mut problem = None;
    match rdap {
        None => problem = Some("the registry publishes no RDAP service".to_string()),
        Some((url, answer)) => {
            out.rdap_server = Some(url.to_string());
            match answer.as_ref().map(|c| (c.last().map_or(0, |h| h.status), c.body.as_deref().unwrap_or_default())) {
                Ok((404, _)) => {
                    out.status = "available";
                    out.basis = Some("rdap");
                }
                Ok((200, body)) => match serde_json::from_slice::<Value>(body) {
                    Ok(v) if v.get("objectClassName").and_then(Value::as_str) == Some("domain") => {
                        let record = rdap::parse_domain(&v);
                        out.status = "registered";
                        out.basis = Some("rdap");
                        out.registrar = record.registrar;
                        out.expires = record.expires;
                    }
                    _ => problem = Some("the RDAP answer is not a domain object".into()),
                },
                Ok((status, _)) => problem = Some(format!("the RDAP service answered {status}")),
                Err(e) => problem = Some(format!("the RDAP service failed: {e}")),
            }
        }
    }
    if let Some(problem) = problem {
        // DNS as the fallback: a delegated name is registered; a name DNS does not know is
        // probably free.
        match out.dns {
            Some(DnsStatus::NoError | DnsStatus::NoData) => {
                out.status = "registered";
                out.basis = Some("dns");
                out.note = Some(format!("{problem}; the name exists in DNS"));
            }
            Some(DnsStatus::NxDomain) => {
                out.status = "available";
                out.basis = Some("dns");
                out.note = Some(format!("{problem}; DNS does not know the name, so it is probably free"));
            }
            None => out.note = Some(format!("{problem}, and DNS gave no answer")),
        }
    }
    out
}

/// Search domains for a name.
///
/// Turns `query` into name candidates (a phrase is tried joined and hyphenated; Unicode names
/// in their IDNA form) and asks, for each under each of `tlds` (at most 20; by default com,
/// net, org, io, dev, app, co, ai), the registry's RDAP service found through the IANA
/// bootstrap: a domain object means registered (with its registrar and expiry), 404 means the
/// registry holds no such domain. The name's NS records are asked too, as a hint and as the
/// fallback where a registry has no RDAP service or it fails. Lookups run 8 at a time within
/// one outbound timeout; what does not finish is `unknown`.
#[op(post "/v1/domain-search/search" as domainSearch, tag = Lookups,
     rejects = "a query without letters or digits, or a top-level domain that is not a DNS name",
     redact(".data.checkedAt"),
     example(name, {"query": "site", "tlds": ["example", "test"]}),
     example(phrase, {"query": "Fresh Widgets", "tlds": ["example"]}),
     example(bad_tld, {"query": "site", "tlds": ["not a tld"]}, status = 400))]
async fn domain_search(input: DomainSearchInput, ctx: &Ctx) -> Result<DomainSearchOutput, ApiError> {
    let (candidates, named) = candidates(&input.query)?;
    let tlds = tld_list(input.tlds.as_deref(), named)?;
    let bootstrap = rdap::bootstrap(&ctx.net, rdap::Registry::Dns).await;
    let domains: Vec<String> = candidates.iter().flat_map(|c| tlds.iter().map(move |t| format!("{c}.{t}"))).collect();
    let deadline = tokio::time::Instant::now() + ctx.net.config.timeout;
    let lookups: Vec<_> = domains.iter().map(|d| look_up(ctx, d.clone(), bootstrap.as_deref())).collect();
    let mut stream = stream::iter(lookups).buffered(CONCURRENCY);
    let mut results = Vec::new();
    while let Ok(Some(r)) = tokio::time::timeout_at(deadline, stream.next()).await {
        results.push(r);
    }
    for d in &domains[results.len()..] {
        let late = format!("not looked up within the time budget ({} s)", ctx.net.config.timeout.as_secs());
        results.push(DomainResult::unknown(d, Some(late)));
    }
    let count = |s: &str| results.iter().filter(|r| r.status == s).count();
    Ok(DomainSearchOutput {
        query: input.query.trim().to_string(),
        registered: count("registered"),
        available: count("available"),
        unknown: count("unknown"),
        candidates,
        tlds,
        results,
        note: "available means the registry holds no such domain; it may still be reserved or premium-priced, which only a registrar can tell",
        checked_at: now_rfc3339(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn phrases_become_labels() {
        assert_eq!(candidates("Acme").unwrap(), (vec!["acme".to_string()], None));
        assert_eq!(candidates(" fresh  widgets! ").unwrap().0, ["freshwidgets", "fresh-widgets"]);
        assert_eq!(candidates("acme.io").unwrap(), (vec!["acme".to_string()], Some("io".to_string())));
        // Punycode as Python's idna codec writes it.
        assert_eq!(candidates("Bücher Haus").unwrap().0, ["xn--bcherhaus-q9a", "xn--bcher-haus-9db"]);
        assert!(candidates("!!!").is_err());
        assert!(candidates(&"a".repeat(64)).is_err());
        assert_eq!(
            tld_list(Some(&[".COM".into(), "co.uk".into(), "com".into()]), Some("io".into())).unwrap(),
            ["io", "com", "co.uk"]
        );
        assert!(tld_list(Some(&["no tld".into()]), None).is_err());
    }

    /// A registry whose RDAP service fails leaves DNS to decide, and the answer says so.
    #[tokio::test]
    async fn a_failing_registry_falls_back_to_dns() {
        let ctx = crate::testing::fake_ctx(&[]);
        let input = DomainSearchInput { query: "broken".into(), tlds: Some(vec!["example".into()]) };
        let out = domain_search(input, &ctx).await.unwrap();
        let r = &out.results[0];
        assert_eq!((r.status, r.basis, r.dns), ("available", Some("dns"), Some(DnsStatus::NxDomain)));
        assert!(r.note.as_deref().is_some_and(|n| n.contains("answered 500")), "{:?}", r.note);
    }
}
