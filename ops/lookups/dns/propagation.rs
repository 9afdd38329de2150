//! The same DNS question to several resolvers at once: has a change reached
//! them all, and where do they disagree?
//!
//! The resolvers are those of `WRENCH_DNS_PROPAGATION_RESOLVERS` (five well-known public ones
//! by default), each asked directly and without a cache, so the answers are theirs as of now.
//! Answers are compared by their values (sorted, duplicates removed); TTLs and order differ
//! between resolvers and mean nothing here.

use std::collections::BTreeMap;

use wrench_contract::prelude::*;
use wrench_infra::time::now_rfc3339;
use wrench_kit::hosts::dns::{DnsType, TypeAnswer, ask_all, parse_domain, unique_types};

#[derive(Debug, Deserialize, JsonSchema, Validate)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct PropagationInput {
    /// The name to check.
    #[schemars(length(min = 1, max = 253))]
    domain: String,
    /// The record type (A by default).
    #[serde(default, rename = "type")]
    kind: DnsType,
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct ResolverAnswer {
    /// The resolver's name in `WRENCH_DNS_PROPAGATION_RESOLVERS`.
    resolver: String,
    /// Its address.
    address: String,
    #[serde(flatten)]
    answer: TypeAnswer,
    /// The values of the records of the type asked, sorted: what is compared.
    values: Vec<String>,
    /// Whether this resolver gives the most common answer.
    agrees: bool,
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct PropagationOutput {
    domain: String,
    #[serde(rename = "type")]
    kind: DnsType,
    /// Whether every resolver answered, and all with the same values.
    consistent: bool,
    /// How many different answers were given (failures not counted).
    distinct_answers: usize,
    /// The most common answer's values.
    majority: Vec<String>,
    resolvers: Vec<ResolverAnswer>,
    checked_at: String,
}

/// The most common answer among the successful ones, with ties going to the first resolver.
fn majority(answers: &[(Vec<String>, bool)]) -> Vec<String> {
    let mut counts: Vec<(&Vec<String>, usize)> = Vec::new();
    for (values, _) in answers.iter().filter(|(_, ok)| *ok) {
        match counts.iter_mut().find(|(v, _)| *v == values) {
            Some((_, n)) => *n += 1,
            None => counts.push((values, 1)),
        }
    }
    let best = counts.iter().map(|(_, n)| *n).max().unwrap_or(0);
    counts.into_iter().find(|(_, n)| *n == best).map(|(v, _)| v.clone()).unwrap_or_default()
}

/// Asks each propagation resolver `kind` at `name`: per-resolver answers, and how they agree.
async fn survey(
    ctx: &Ctx,
    name: &hickory_resolver::proto::rr::Name,
    kind: DnsType,
) -> (Vec<ResolverAnswer>, bool, usize) {
    let questions = ctx.net.propagation.iter().map(|(label, resolver)| async move {
        let answer = ask_all(resolver, name, &[kind]).await.remove(0);
        (label.clone(), resolver.upstreams().to_string(), answer)
    });
    let answers = futures_util::future::join_all(questions).await;
    let compared: Vec<(Vec<String>, bool)> = answers.iter().map(|(_, _, a)| (a.values(), a.error.is_none())).collect();
    let best = majority(&compared);
    let mut distinct: Vec<&Vec<String>> = Vec::new();
    for (v, ok) in &compared {
        if *ok && !distinct.contains(&v) {
            distinct.push(v);
        }
    }
    let consistent = compared.iter().all(|(_, ok)| *ok) && distinct.len() <= 1;
    let distinct = distinct.len();
    let out = answers
        .into_iter()
        .map(|(resolver, address, answer)| {
            let values = answer.values();
            let agrees = answer.error.is_none() && values == best;
            ResolverAnswer { resolver, address, answer, values, agrees }
        })
        .collect();
    (out, consistent, distinct)
}

/// Check whether a DNS record has propagated to public resolvers.
///
/// Asks each resolver of `WRENCH_DNS_PROPAGATION_RESOLVERS` (by default Cloudflare, Google,
/// Quad9, OpenDNS and AdGuard) for the records of `type` at `domain`, at the same time and
/// without any cache, and reports each resolver's answer, its time, and whether they all
/// agree. A resolver that fails or times out is reported as such and makes the answer
/// inconsistent.
#[op(post "/v1/dns/propagation" as dnsPropagation, tag = Lookups,
     rejects = "a domain that is not a DNS name",
     redact(".data.resolvers[].queryTimeMs", ".data.checkedAt"),
     example(a_record, {"domain": "example.com"}),
     example(mx_record, {"domain": "example.com", "type": "MX"}),
     example(not_a_name, {"domain": "exa mple.com"}, status = 400))]
async fn dns_propagation(input: PropagationInput, ctx: &Ctx) -> Result<PropagationOutput, ApiError> {
    let name = parse_domain("domain", &input.domain)?;
    let (resolvers, consistent, distinct_answers) = survey(ctx, &name, input.kind).await;
    let majority = resolvers.iter().find(|r| r.agrees).map(|r| r.values.clone()).unwrap_or_default();
    Ok(PropagationOutput {
        domain: name.to_ascii(),
        kind: input.kind,
        consistent,
        distinct_answers,
        majority,
        resolvers,
        checked_at: now_rfc3339(),
    })
}

fn compare_default() -> Vec<DnsType> {
    vec![DnsType::A, DnsType::Aaaa, DnsType::Mx, DnsType::Ns, DnsType::Txt]
}

#[derive(Debug, Deserialize, JsonSchema, Validate)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct CompareInput {
    /// The name to compare.
    #[schemars(length(min = 1, max = 253))]
    domain: String,
    /// The record types, each at most once (A, AAAA, MX, NS and TXT when omitted).
    #[serde(default = "compare_default")]
    #[schemars(length(min = 1, max = 10))]
    types: Vec<DnsType>,
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct Difference {
    /// The resolver that differs from the majority.
    resolver: String,
    /// Values the majority has and this resolver does not.
    missing: Vec<String>,
    /// Values this resolver has and the majority does not.
    extra: Vec<String>,
    /// Why the resolver gave no answer, when it failed.
    #[serde(skip_serializing_if = "Option::is_none")]
    error: Option<String>,
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct TypeComparison {
    #[serde(rename = "type")]
    kind: DnsType,
    consistent: bool,
    /// The most common answer's values.
    majority: Vec<String>,
    /// Each resolver's values, by resolver name.
    answers: BTreeMap<String, Vec<String>>,
    /// How each resolver that differs from the majority differs.
    differences: Vec<Difference>,
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct CompareOutput {
    domain: String,
    /// The resolvers asked, by name, with their addresses.
    resolvers: BTreeMap<String, String>,
    /// Whether every type was answered alike by every resolver.
    consistent: bool,
    types: Vec<TypeComparison>,
    checked_at: String,
}

/// Compare a domain's DNS records across resolvers.
///
/// Asks every resolver of `WRENCH_DNS_PROPAGATION_RESOLVERS` for every type of `types` (A,
/// AAAA, MX, NS and TXT by default) at `domain`, and reports, per type, the majority answer and
/// how each other resolver differs from it: the values it lacks, the values it adds, or why it
/// failed.
#[op(post "/v1/dns/compare" as dnsCompare, tag = Lookups,
     rejects = "a domain that is not a DNS name, or a type given twice",
     redact(".data.checkedAt"),
     example(defaults, {"domain": "example.com"}),
     example(two_types, {"domain": "example.com", "types": ["A", "SOA"]}),
     example(repeated_type, {"domain": "example.com", "types": ["MX", "MX"]}, status = 400))]
async fn dns_compare(input: CompareInput, ctx: &Ctx) -> Result<CompareOutput, ApiError> {
    unique_types("types", &input.types)?;
    let name = parse_domain("domain", &input.domain)?;
    let surveys = futures_util::future::join_all(input.types.iter().map(|&t| survey(ctx, &name, t))).await;
    let mut types = Vec::new();
    for (&kind, (answers, consistent, _)) in input.types.iter().zip(surveys) {
        let majority = answers.iter().find(|r| r.agrees).map(|r| r.values.clone()).unwrap_or_default();
        let differences = answers
            .iter()
            .filter(|r| !r.agrees)
            .map(|r| Difference {
                resolver: r.resolver.clone(),
                missing: majority.iter().filter(|v| !r.values.contains(v)).cloned().collect(),
                extra: r.values.iter().filter(|v| !majority.contains(v)).cloned().collect(),
                error: r.answer.error.clone(),
            })
            .collect();
        let answers = answers.into_iter().map(|r| (r.resolver, r.values)).collect();
        types.push(TypeComparison { kind, consistent, majority, answers, differences });
    }
    Ok(CompareOutput {
        domain: name.to_ascii(),
        resolvers: ctx.net.propagation.iter().map(|(n, r)| (n.clone(), r.upstreams().to_string())).collect(),
        consistent: types.iter().all(|t| t.consistent),
        types,
        checked_at: now_rfc3339(),
    })
}

#[cfg(test)]
mod tests {
    use super::majority;

    #[test]
    fn the_majority_is_the_most_common_successful_answer() {
        let v = |s: &[&str]| s.iter().map(|x| x.to_string()).collect::<Vec<_>>();
        assert_eq!(majority(&[(v(&["a"]), true), (v(&["b"]), true), (v(&["b"]), true)]), v(&["b"]));
        assert_eq!(majority(&[(v(&["a"]), true), (v(&["b"]), true)]), v(&["a"]), "a tie goes to the first");
        assert_eq!(majority(&[(v(&[]), false), (v(&[]), false), (v(&["c"]), true)]), v(&["c"]), "failures never win");
        assert!(majority(&[]).is_empty());
    }
}
