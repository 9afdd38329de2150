//! An SPF policy followed through its `include:`s and `redirect=`, counting the DNS lookups a
//! receiver would make against RFC 7208's limit of 10 (section 4.6.4); past it, receivers
//! answer PermError and the policy fails as a whole. Void lookups (a target with no SPF
//! record) are counted against their limit of 2.
//!
//! Bounded: at most [`MAX_RECORDS`] records are fetched and none twice, so a loop or a fan-out
//! of includes costs at most that many lookups.

use std::collections::HashSet;

use schemars::JsonSchema;
use serde::Serialize;

use crate::mail::records::{SpfTerm, spf_terms, txt};
use wrench_infra::outbound::resolver::Resolver;

/// The lookup limit of RFC 7208 section 4.6.4.
pub const LOOKUP_LIMIT: usize = 10;
/// The void lookup limit of the same section.
pub const VOID_LIMIT: usize = 2;
/// Records fetched at most while following one policy.
pub const MAX_RECORDS: usize = 25;

/// One record of the policy's tree.
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct SpfNode {
    pub domain: String,
    /// `policy` for the domain's own record, `include` or `redirect`.
    pub via: &'static str,
    /// How deep in the tree (0 for the domain's own record).
    pub depth: usize,
    pub record: Option<String>,
    /// Lookups this record's own terms cost.
    pub lookups: usize,
    pub error: Option<String>,
}

/// The policy as a receiver would see it.
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct SpfReport {
    /// The domain's SPF record, when it has exactly one.
    pub record: Option<String>,
    /// SPF records published at the domain (more than one is an error).
    pub records_found: usize,
    /// Whether a receiver could evaluate the policy (PermError otherwise).
    pub valid: bool,
    /// The result for mail from elsewhere: the `all` mechanism with its qualifier (`-all`,
    /// `~all`, `?all`, `+all`), or `redirect` when the policy is another domain's.
    pub all: Option<String>,
    /// DNS lookups the whole policy costs.
    pub lookups: usize,
    pub lookup_limit: usize,
    pub void_lookups: usize,
    /// Every record followed, the domain's own first.
    pub tree: Vec<SpfNode>,
    /// What is wrong, when something is.
    pub errors: Vec<String>,
    /// Whether the tree was followed to its end (not cut by the record bound or the time
    /// budget).
    pub complete: bool,
}

/// The SPF record of `domain`, or why there is not exactly one.
async fn spf_of(resolver: &Resolver, domain: &str) -> Result<String, (String, bool)> {
    match txt(resolver, domain).await {
        Err(e) => Err((format!("the TXT lookup failed: {e}"), false)),
        Ok(None) => Err(("the domain does not exist".into(), true)),
        Ok(Some(records)) => {
            let spf = versioned_spf(&records);
            match spf.len() {
                0 => Err(("no SPF record".into(), true)),
                1 => Ok(spf[0].clone()),
                n => Err((format!("{n} SPF records; RFC 7208 allows one (PermError)"), false)),
            }
        }
    }
}

/// SPF records are `v=spf1` followed by a space or nothing (RFC 7208 section 4.5).
fn versioned_spf(records: &[String]) -> Vec<&String> {
    records
        .iter()
        .filter(|r| r.eq_ignore_ascii_case("v=spf1") || r.to_ascii_lowercase().starts_with("v=spf1 "))
        .collect()
}

/// A report of nothing read yet.
pub fn empty() -> SpfReport {
    SpfReport {
        record: None,
        records_found: 0,
        valid: false,
        all: None,
        lookups: 0,
        lookup_limit: LOOKUP_LIMIT,
        void_lookups: 0,
        tree: Vec::new(),
        errors: Vec::new(),
        complete: true,
    }
}

/// Follows the SPF policy of `domain`.
pub async fn check(resolver: &Resolver, domain: &str) -> SpfReport {
    let mut report = empty();
    match txt(resolver, domain).await {
        Ok(Some(records)) => report.records_found = versioned_spf(&records).len(),
        Ok(None) => {}
        Err(e) => {
            report.errors.push(format!("the TXT lookup of {domain} failed: {e}"));
            report.complete = false;
            return report;
        }
    }
    let mut queue: Vec<(String, &'static str, usize)> = vec![(domain.to_string(), "policy", 0)];
    let mut seen: HashSet<String> = HashSet::new();
    while let Some((name, via, depth)) = queue.pop() {
        if report.tree.len() >= MAX_RECORDS {
            report.errors.push(format!("more than {MAX_RECORDS} records; the rest were not followed"));
            report.complete = false;
            break;
        }
        let mut node = SpfNode { domain: name.clone(), via, depth, record: None, lookups: 0, error: None };
        if !seen.insert(name.to_ascii_lowercase()) {
            node.error = Some("already followed: the policy includes itself (a loop)".into());
            report.errors.push(format!("{name} is included in a loop"));
            report.tree.push(node);
            continue;
        }
        let record = match spf_of(resolver, &name).await {
            Ok(r) => r,
            Err((e, void)) => {
                if via != "policy" && void {
                    report.void_lookups += 1;
                }
                if via == "policy" && void && report.records_found == 0 {
                    report.errors.push("the domain publishes no SPF record".into());
                } else {
                    report.errors.push(format!("{name} ({via}): {e}"));
                }
                node.error = Some(e);
                report.tree.push(node);
                continue;
            }
        };
        if via == "policy" {
            report.record = Some(record.clone());
        }
        node.record = Some(record.clone());
        match spf_terms(&record) {
            Err(e) => {
                report.errors.push(format!("{name}'s record {e}"));
                node.error = Some(format!("the record {e}"));
            }
            Ok(terms) => {
                node.lookups = terms.iter().filter(|t| t.costs_lookup()).count();
                report.lookups += node.lookups;
                let mut children = Vec::new();
                for t in &terms {
                    match t {
                        SpfTerm::Mechanism { qualifier, name: m, .. } if m == "all" && via == "policy" => {
                            report.all = Some(format!("{qualifier}all"));
                        }
                        SpfTerm::Mechanism { name: m, value: Some(target), .. } if m == "include" => {
                            children.push((target.clone(), "include"));
                        }
                        SpfTerm::Modifier { name: m, value } if m == "redirect" => {
                            // RFC 7208 section 6.1: a redirect is ignored when the record has `all`.
                            let has_all =
                                terms.iter().any(|t| matches!(t, SpfTerm::Mechanism { name, .. } if name == "all"));
                            if !has_all {
                                children.push((value.clone(), "redirect"));
                                if via == "policy" {
                                    report.all = Some("redirect".into());
                                }
                            }
                        }
                        _ => {}
                    }
                }
                // Depth first, in record order.
                for (target, kind) in children.into_iter().rev() {
                    if target.contains('%') {
                        report.tree.push(SpfNode {
                            domain: target,
                            via: kind,
                            depth: depth + 1,
                            record: None,
                            lookups: 0,
                            error: Some("uses SPF macros, which depend on the message; not followed".into()),
                        });
                        report.complete = false;
                    } else {
                        queue.push((target, kind, depth + 1));
                    }
                }
            }
        }
        report.tree.push(node);
    }
    if report.lookups > LOOKUP_LIMIT {
        report.errors.push(format!(
            "the policy needs {} DNS lookups; receivers stop at {LOOKUP_LIMIT} and fail it (PermError)",
            report.lookups
        ));
    }
    if report.void_lookups > VOID_LIMIT {
        report.errors.push(format!("{} includes lead nowhere; receivers allow {VOID_LIMIT}", report.void_lookups));
    }
    report.valid = report.record.is_some()
        && report.records_found == 1
        && report.lookups <= LOOKUP_LIMIT
        && report.void_lookups <= VOID_LIMIT
        && report.tree.iter().all(|n| n.error.is_none() || n.error.as_deref().is_some_and(|e| e.contains("macros")));
    report
}
