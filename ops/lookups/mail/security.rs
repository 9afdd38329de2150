//! How well a domain's mail is protected against spoofing and interception (`email-security/report`): SPF (`wrench_kit::mail::spf`), DMARC with the organisational-domain
//! fallback, DKIM keys under common and given selectors, MTA-STS (its TXT record and the
//! policy fetched over HTTPS through the guard), TLS-RPT and BIMI, read in parallel within one
//! time budget; a score, a grade and recommendations, each tied to the record that caused it.
//!
//! Scoring, 100 points:
//! - SPF, 30: a valid policy 10; `-all` 20, `~all` or a redirect 15, `?all` 5, `+all` 0.
//! - DMARC, 35: a valid record 10; `p=reject` 20, `quarantine` 15, `none` 0, scaled by `pct`;
//!   aggregate reports (`rua`) 5.
//! - DKIM, 20: a key under a selector tried 15; every key found at least 2048-bit RSA or
//!   Ed25519, 5.
//! - MTA-STS, 10: `enforce` 10, `testing` 5, a record whose policy cannot be fetched 2.
//! - TLS-RPT, 5: a valid record.
//!
//! Grades: A from 90, B from 75, C from 60, D from 40, F below. BIMI earns nothing (it needs
//! an enforced DMARC policy to matter); its record is reported.

use wrench_contract::prelude::*;
use wrench_infra::time::now_rfc3339;
use wrench_kit::hosts::dns::parse_domain;
use wrench_kit::mail::policies::{
    COMMON_SELECTORS, Dkim, Dmarc, MtaSts, TaggedRecord, dkim, dmarc, dmarc_empty, mta_sts, tagged,
};
use wrench_kit::mail::security_score::{Recommendation, Score, assess, grade};
use wrench_kit::mail::spf::{self, SpfReport};

#[derive(Debug, Deserialize, JsonSchema, Validate)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct EmailSecurityInput {
    /// The mail domain (`example.com`).
    #[schemars(length(min = 1, max = 253))]
    domain: String,
    /// DKIM selectors to try beside the common ones (`s2024`), at most 10.
    #[serde(default)]
    #[schemars(length(max = 10))]
    dkim_selectors: Vec<String>,
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct EmailSecurityOutput {
    domain: String,
    /// A to F.
    grade: &'static str,
    /// 0 to 100 (see the operation's description).
    score: u32,
    breakdown: Score,
    spf: SpfReport,
    dmarc: Dmarc,
    dkim: Dkim,
    mta_sts: MtaSts,
    tls_rpt: TaggedRecord,
    bimi: TaggedRecord,
    recommendations: Vec<Recommendation>,
    resolver: String,
    checked_at: String,
}

/// `step`, or `empty` with a note when the time budget runs out first.
async fn budget<T>(
    deadline: tokio::time::Instant,
    step: impl std::future::Future<Output = T>,
    late: impl FnOnce() -> T,
) -> T {
    tokio::time::timeout_at(deadline, step).await.unwrap_or_else(|_| late())
}

/// Audit a domain's e-mail authentication.
///
/// Reads SPF (followed through every include and redirect, DNS lookups counted against the
/// limit of 10), DMARC (the domain's record, or its organisational domain's), DKIM keys under
/// 26 common selectors and up to 10 given ones (key type and size), MTA-STS (the record, and
/// the policy fetched from `https://mta-sts.<domain>/.well-known/mta-sts.txt` through the
/// guarded client), TLS-RPT and BIMI, in parallel within one outbound timeout. Scores 100
/// points: SPF 30 (valid 10; `-all` 20, `~all` or redirect 15, `?all` 5), DMARC 35 (valid 10;
/// reject 20, quarantine 15, none 0, scaled by pct; `rua` 5), DKIM 20 (a key 15; all keys
/// 2048-bit RSA or Ed25519 5), MTA-STS 10 (enforce 10, testing 5, broken 2), TLS-RPT 5.
/// Grades: A from 90, B from 75, C from 60, D from 40, F below. Each recommendation names
/// the record it is about.
#[op(post "/v1/email-security/report" as emailSecurityReport, tag = Lookups,
     rejects = "a domain that is not a DNS name, or a selector that is not a DNS label",
     redact(".data.checkedAt"),
     example(well_protected, {"domain": "mailer.site.example"}),
     example(weak, {"domain": "weak.site.example", "dkimSelectors": ["s2024"]}),
     example(not_a_domain, {"domain": "https://example.com/"}, status = 400))]
async fn email_security_report(input: EmailSecurityInput, ctx: &Ctx) -> Result<EmailSecurityOutput, ApiError> {
    let name = parse_domain("domain", &input.domain)?;
    let domain = name.to_ascii().trim_end_matches('.').to_ascii_lowercase();
    let mut selectors: Vec<String> = COMMON_SELECTORS.iter().map(|s| s.to_string()).collect();
    for (i, s) in input.dkim_selectors.iter().enumerate() {
        let s = s.trim().to_ascii_lowercase();
        let label_ok = |l: &str| {
            !l.is_empty() && l.len() <= 63 && l.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
        };
        if !s.split('.').all(label_ok) {
            return Err(ApiError::invalid(
                &format!("dkimSelectors[{i}]"),
                format!("{s:?} is not a DKIM selector (DNS labels of letters, digits, - or _)"),
            ));
        }
        if !selectors.contains(&s) {
            selectors.push(s);
        }
    }
    let resolver = &ctx.net.resolver;
    let deadline = tokio::time::Instant::now() + ctx.net.config.timeout;
    let late = || {
        format!("no answer within the time budget ({} s, WRENCH_OUTBOUND_TIMEOUT)", ctx.net.config.timeout.as_secs())
    };
    let (tls_rpt_name, bimi_name) = (format!("_smtp._tls.{domain}"), format!("default._bimi.{domain}"));
    let (spf, dmarc, dkim, mta, tls_rpt, bimi) = tokio::join!(
        budget(deadline, spf::check(resolver, &domain), || SpfReport {
            errors: vec![late()],
            complete: false,
            ..spf::empty()
        }),
        budget(deadline, dmarc(resolver, &domain), || Dmarc { errors: vec![late()], ..dmarc_empty() }),
        budget(deadline, dkim(resolver, &domain, &selectors), || Dkim {
            selectors_tried: 0,
            keys: Vec::new(),
            note: "the DKIM lookups did not finish within the time budget"
        }),
        budget(deadline, mta_sts(ctx, &domain), || MtaSts { errors: vec![late()], ..Default::default() }),
        budget(deadline, tagged(resolver, &tls_rpt_name, "v=TLSRPTv1", &["rua"]), || TaggedRecord {
            errors: vec![late()],
            ..Default::default()
        }),
        budget(deadline, tagged(resolver, &bimi_name, "v=BIMI1", &["l"]), || TaggedRecord {
            errors: vec![late()],
            ..Default::default()
        }),
    );
    let (breakdown, recommendations) = assess(&spf, &dmarc, &dkim, &mta, &tls_rpt, &bimi);
    let score = breakdown.spf + breakdown.dmarc + breakdown.dkim + breakdown.mta_sts + breakdown.tls_rpt;
    Ok(EmailSecurityOutput {
        domain,
        grade: grade(score),
        score,
        breakdown,
        spf,
        dmarc,
        dkim,
        mta_sts: mta,
        tls_rpt,
        bimi,
        recommendations,
        resolver: resolver.upstreams().to_string(),
        checked_at: now_rfc3339(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    async fn report(domain: &str) -> EmailSecurityOutput {
        let ctx = crate::testing::fake_ctx(&[]);
        email_security_report(EmailSecurityInput { domain: domain.into(), dkim_selectors: vec!["s2024".into()] }, &ctx)
            .await
            .unwrap()
    }

    /// The fixtures' keys were made by openssl at 2048 and 1024 bits; the lookup counts are
    /// RFC 7208's (a, mx, ptr, exists, include and redirect cost one each, through includes).
    #[tokio::test]
    async fn records_are_read_and_counted() {
        let good = report("mailer.site.example").await;
        assert_eq!(
            good.dkim.keys.iter().map(|k| (k.selector.as_str(), k.bits)).collect::<Vec<_>>(),
            [("selector1", Some(2048))]
        );
        assert_eq!((good.spf.lookups, good.spf.valid, good.spf.all.as_deref()), (3, true, Some("-all")));
        assert_eq!(good.spf.tree.len(), 2);
        assert_eq!(good.dmarc.policy.as_deref(), Some("reject"));
        assert_eq!(good.dmarc.dkim_alignment, "strict");
        assert!(good.tls_rpt.valid && good.bimi.valid);
        let weak = report("weak.site.example").await;
        assert_eq!(weak.dkim.keys[0].bits, Some(1024));
        assert_eq!(weak.spf.lookups, 11);
        assert!(!weak.spf.valid);
        assert!(weak.spf.errors.iter().any(|e| e.contains("11 DNS lookups")), "{:?}", weak.spf.errors);
        assert_eq!(weak.grade, "F");
        assert!(weak.recommendations.iter().any(|r| r.record == "dmarc" && r.message.contains("p=none")));
    }

    #[tokio::test]
    async fn an_spf_loop_is_followed_once() {
        let r = report("loop.site.example").await;
        assert_eq!(r.spf.tree.len(), 2, "{:?}", r.spf.tree);
        assert!(r.spf.tree[1].error.as_deref().is_some_and(|e| e.contains("loop")));
        assert!(!r.spf.valid);
        // A domain with no records at all scores nothing and is told what to publish.
        let none = report("nowhere.site.example").await;
        assert_eq!((none.score, none.grade), (0, "F"));
        for record in ["spf", "dmarc", "dkim", "mta-sts", "tls-rpt"] {
            assert!(none.recommendations.iter().any(|r| r.record == record), "{record}");
        }
    }
}
