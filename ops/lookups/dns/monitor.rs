//! DNS change monitoring: the records now, against the snapshot the previous check
//! of the same domain left in the store.
//!
//! "Now" means now: every question is asked afresh, past the resolver's answer cache (which
//! would repeat an answer for up to its TTL, so a change made a minute ago would read as
//! unchanged), and each type says which upstream answered it.
//!
//! A snapshot is kept per domain and record type, for 30 days after the check that wrote it.
//! Only answered questions replace a snapshot: a resolver failure is reported, never taken for
//! the records having gone. Changes are reported per type: values that appeared are additions,
//! values that went are removals, and a type that both gained and lost values is one
//! modification with its records before and after.

use std::time::Duration;

use wrench_contract::prelude::*;
use wrench_infra::time::now_rfc3339;
use wrench_kit::hosts::dns::{DnsType, ask_all_fresh, parse_domain, unique_types};

/// How long a snapshot outlives the check that wrote it.
const SNAPSHOT_TTL: Duration = Duration::from_secs(30 * 86_400);

fn monitor_default() -> Vec<DnsType> {
    vec![DnsType::A, DnsType::Aaaa, DnsType::Mx, DnsType::Txt, DnsType::Ns, DnsType::Cname]
}

#[derive(Debug, Deserialize, JsonSchema, Validate)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct MonitorInput {
    /// The domain to watch.
    #[schemars(length(min = 1, max = 253))]
    domain: String,
    /// The record types watched, each at most once (A, AAAA, MX, TXT, NS and CNAME when
    /// omitted).
    #[serde(default = "monitor_default")]
    #[schemars(length(min = 1, max = 10))]
    types: Vec<DnsType>,
}

/// What the store keeps per domain and type.
#[derive(Debug, Serialize, Deserialize)]
struct Snapshot {
    values: Vec<String>,
    checked_at: String,
}

#[derive(Debug, Serialize, JsonSchema, PartialEq)]
#[serde(rename_all = "camelCase")]
struct RecordChange {
    #[serde(rename = "type")]
    kind: DnsType,
    value: String,
}

#[derive(Debug, Serialize, JsonSchema, PartialEq)]
#[serde(rename_all = "camelCase")]
struct Modification {
    #[serde(rename = "type")]
    kind: DnsType,
    before: Vec<String>,
    after: Vec<String>,
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct CurrentRecords {
    #[serde(rename = "type")]
    kind: DnsType,
    /// The values now, sorted.
    values: Vec<String>,
    /// When this type was last checked before now, if it was.
    previous_check_at: Option<String>,
    /// The upstream resolver that answered (`address:port`), asked afresh; absent when none
    /// answered.
    #[serde(skip_serializing_if = "Option::is_none")]
    answered_by: Option<String>,
    /// Why the question failed now; the stored snapshot of this type is then kept as it was.
    #[serde(skip_serializing_if = "Option::is_none")]
    error: Option<String>,
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct MonitorOutput {
    domain: String,
    /// True when no type of this domain had been checked before (or its snapshot expired):
    /// there is nothing to compare with, and this check becomes the baseline.
    first_check: bool,
    /// Whether anything changed since the previous check.
    changed: bool,
    additions: Vec<RecordChange>,
    removals: Vec<RecordChange>,
    modifications: Vec<Modification>,
    records: Vec<CurrentRecords>,
    /// The upstream resolvers that answered, in the order configured (`WRENCH_DNS_SERVERS`);
    /// every question was asked afresh, with no cached answer.
    resolver: String,
    checked_at: String,
    /// Days a snapshot is kept after the check that wrote it.
    snapshot_ttl_days: u64,
}

fn key(domain: &str, kind: DnsType) -> String {
    format!("dns-monitor:{domain}:{}", kind.record_type())
}

/// Additions, removals and modifications of one type, from its values before and now.
fn compare(
    kind: DnsType,
    before: &[String],
    after: &[String],
) -> (Vec<RecordChange>, Vec<RecordChange>, Option<Modification>) {
    let added: Vec<&String> = after.iter().filter(|v| !before.contains(v)).collect();
    let removed: Vec<&String> = before.iter().filter(|v| !after.contains(v)).collect();
    let change = |v: &&String| RecordChange { kind, value: (*v).clone() };
    match (added.is_empty(), removed.is_empty()) {
        (false, false) => {
            (Vec::new(), Vec::new(), Some(Modification { kind, before: before.to_vec(), after: after.to_vec() }))
        }
        _ => (added.iter().map(change).collect(), removed.iter().map(change).collect(), None),
    }
}

/// Check a domain's DNS records for changes since the last check.
///
/// Looks up every type of `types` at `domain`, afresh (no cached answer; each type says which
/// upstream resolver answered), and compares the values with the snapshot the
/// previous check left (kept 30 days). The first check says so (`firstCheck`) and becomes the
/// baseline. Changes are additions and removals of values, and modifications of a type whose
/// values were both added and removed (a changed address, an SOA with a new serial). A type
/// whose question fails keeps its snapshot and is reported with the error.
#[op(post "/v1/dns-monitor/check" as dnsMonitorCheck, tag = Lookups,
     rejects = "a domain that is not a DNS name, or a type given twice",
     uses(store),
     redact(".data.checkedAt"),
     example(first_check, {"domain": "example.com"}),
     example(chosen_types, {"domain": "example.com", "types": ["A", "SOA"]}),
     example(repeated_type, {"domain": "example.com", "types": ["NS", "NS"]}, status = 400))]
async fn dns_monitor_check(input: MonitorInput, ctx: &Ctx) -> Result<MonitorOutput, ApiError> {
    unique_types("types", &input.types)?;
    let name = parse_domain("domain", &input.domain)?;
    let domain = name.to_ascii();
    let answers = ask_all_fresh(&ctx.net.resolver, &name, &input.types).await;
    let mut answered_by: Vec<std::net::SocketAddr> = Vec::new();
    let checked_at = now_rfc3339();
    let (mut additions, mut removals, mut modifications, mut records) =
        (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    let mut any_previous = false;
    for (answer, upstream) in answers {
        if let Some(u) = upstream.filter(|u| !answered_by.contains(u)) {
            answered_by.push(u);
        }
        let k = key(&domain, answer.kind);
        let previous: Option<Snapshot> = match ctx.store.get(&k).await? {
            Some(bytes) => serde_json::from_slice(&bytes).ok(),
            None => None,
        };
        any_previous |= previous.is_some();
        let values = answer.values();
        if answer.error.is_none() {
            if let Some(p) = &previous {
                let (added, removed, modified) = compare(answer.kind, &p.values, &values);
                additions.extend(added);
                removals.extend(removed);
                modifications.extend(modified);
            }
            let snapshot = Snapshot { values: values.clone(), checked_at: checked_at.clone() };
            let bytes = serde_json::to_vec(&snapshot).map_err(|e| ApiError::internal(e.to_string()))?;
            ctx.store.put(&k, &bytes, Some(SNAPSHOT_TTL)).await?;
        }
        records.push(CurrentRecords {
            kind: answer.kind,
            values,
            previous_check_at: previous.map(|p| p.checked_at),
            answered_by: upstream.map(|u| u.to_string()),
            error: answer.error,
        });
    }
    Ok(MonitorOutput {
        domain,
        first_check: !any_previous,
        changed: !(additions.is_empty() && removals.is_empty() && modifications.is_empty()),
        additions,
        removals,
        modifications,
        records,
        resolver: if answered_by.is_empty() {
            format!("none of {} answered", ctx.net.resolver.upstreams())
        } else {
            answered_by.iter().map(|u| u.to_string()).collect::<Vec<_>>().join(", ")
        },
        checked_at,
        snapshot_ttl_days: SNAPSHOT_TTL.as_secs() / 86_400,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn strings(v: &[&str]) -> Vec<String> {
        v.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn changes_are_additions_removals_or_modifications() {
        let (a, r, m) = compare(DnsType::A, &strings(&["1.1.1.1"]), &strings(&["1.1.1.1", "2.2.2.2"]));
        assert_eq!((a.len(), r.len(), m), (1, 0, None));
        assert_eq!(a[0].value, "2.2.2.2");
        let (a, r, m) = compare(DnsType::Ns, &strings(&["a.", "b."]), &strings(&["a."]));
        assert_eq!((a.len(), r[0].value.as_str(), m), (0, "b.", None));
        let (a, r, m) = compare(DnsType::A, &strings(&["1.1.1.1"]), &strings(&["3.3.3.3"]));
        assert!(a.is_empty() && r.is_empty());
        assert_eq!(m.unwrap().after, strings(&["3.3.3.3"]));
        let (a, r, m) = compare(DnsType::Mx, &strings(&["x"]), &strings(&["x"]));
        assert!(a.is_empty() && r.is_empty() && m.is_none());
    }

    /// A second check against a snapshot that differs reports the difference, keeps the
    /// snapshot of a failed type, and replaces the others.
    #[tokio::test]
    async fn a_second_check_reports_what_changed_since_the_first() {
        let mut ctx = Ctx::for_tests();
        ctx.config = std::sync::Arc::new(crate::testing::test_config());
        ctx.net = std::sync::Arc::new(wrench_infra::outbound::Net::new(&ctx.config.outbound, "http://test").unwrap());
        let input = || MonitorInput { domain: "example.com".into(), types: vec![DnsType::A, DnsType::Ns, DnsType::Mx] };
        let first = dns_monitor_check(input(), &ctx).await.unwrap();
        assert!(first.first_check && !first.changed);
        // The stored baseline says the address was another one, and one NS record more.
        let stale = |values: &[&str]| {
            serde_json::to_vec(&Snapshot { values: strings(values), checked_at: "then".into() }).unwrap()
        };
        ctx.store.put(&key("example.com.", DnsType::A), &stale(&["93.184.216.34"]), None).await.unwrap();
        ctx.store
            .put(
                &key("example.com.", DnsType::Ns),
                &stale(&["a.iana-servers.net.", "b.iana-servers.net.", "c.iana-servers.net."]),
                None,
            )
            .await
            .unwrap();
        let second = dns_monitor_check(input(), &ctx).await.unwrap();
        assert!(!second.first_check && second.changed);
        assert_eq!(
            second.modifications,
            vec![Modification {
                kind: DnsType::A,
                before: strings(&["93.184.216.34"]),
                after: strings(&["93.184.215.14"])
            }]
        );
        assert_eq!(second.removals, vec![RecordChange { kind: DnsType::Ns, value: "c.iana-servers.net.".into() }]);
        assert!(second.additions.is_empty());
        assert_eq!(second.records[0].previous_check_at.as_deref(), Some("then"));
        let third = dns_monitor_check(input(), &ctx).await.unwrap();
        assert!(!third.changed, "the second check became the baseline");
        assert!(third.records.iter().all(|r| r.answered_by.is_some()), "{:?}", third.records);
        assert_eq!(third.resolver, ctx.net.resolver.upstreams());
    }

    /// A record whose every answer differs (the fake DNS counts its questions) and whose TTL is
    /// an hour: a cached answer would read as unchanged, a fresh one shows the change.
    #[tokio::test]
    async fn every_check_asks_afresh_past_the_answer_cache() {
        let mut ctx = Ctx::for_tests();
        ctx.config = std::sync::Arc::new(crate::testing::test_config());
        ctx.net = std::sync::Arc::new(wrench_infra::outbound::Net::new(&ctx.config.outbound, "http://test").unwrap());
        let domain = wrench_fakes::dns::COUNTING_NAME.trim_end_matches('.').to_string();
        // The resolver's cache holds an answer, as it would after any other operation asked.
        let name = parse_domain("domain", &domain).unwrap();
        let cached = ctx.net.resolver.lookup(&name, DnsType::Txt.record_type()).await.unwrap();
        assert_eq!(cached.records.len(), 1);
        let input = || MonitorInput { domain: domain.clone(), types: vec![DnsType::Txt] };
        let first = dns_monitor_check(input(), &ctx).await.unwrap();
        let second = dns_monitor_check(input(), &ctx).await.unwrap();
        assert!(second.changed, "{:?} then {:?}", first.records, second.records);
        let (before, after) = (&second.modifications[0].before, &second.modifications[0].after);
        assert_ne!(before, after);
        // The cached answer is still the first one the resolver was given: not used here.
        let again = ctx.net.resolver.lookup(&name, DnsType::Txt.record_type()).await.unwrap();
        assert_eq!(format!("{:?}", again.records), format!("{:?}", cached.records));
    }
}
