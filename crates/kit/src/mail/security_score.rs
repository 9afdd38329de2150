//! The score, grade and recommendations of `email-security/report`, from what the records
//! say. The point table is in `lookups/mail/security.rs`'s description and the operation's.

use crate::mail::policies::{Dkim, DkimKey, Dmarc, MtaSts, TaggedRecord};
use crate::mail::spf::SpfReport;
use wrench_contract::prelude::*;

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Recommendation {
    /// `spf`, `dmarc`, `dkim`, `mta-sts`, `tls-rpt` or `bimi`.
    pub record: &'static str,
    /// `high`, `medium` or `low`.
    pub severity: &'static str,
    pub message: String,
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Score {
    pub spf: u32,
    pub dmarc: u32,
    pub dkim: u32,
    pub mta_sts: u32,
    pub tls_rpt: u32,
}

pub fn grade(score: u32) -> &'static str {
    match score {
        90.. => "A",
        75..=89 => "B",
        60..=74 => "C",
        40..=59 => "D",
        _ => "F",
    }
}

/// The score and the recommendations of a report.
pub fn assess(
    spf: &SpfReport,
    dmarc: &Dmarc,
    dkim: &Dkim,
    mta: &MtaSts,
    tls_rpt: &TaggedRecord,
    bimi: &TaggedRecord,
) -> (Score, Vec<Recommendation>) {
    let mut recs = Vec::new();
    let mut rec = |record, severity, message: String| recs.push(Recommendation { record, severity, message });
    let spf_score = if !spf.valid {
        let why =
            if spf.errors.is_empty() { "the policy cannot be evaluated".to_string() } else { spf.errors.join("; ") };
        rec("spf", "high", format!("Publish one valid SPF record that receivers can evaluate: {why}."));
        0
    } else {
        let all = match spf.all.as_deref() {
            Some("-all") => 20,
            Some("~all") | Some("redirect") => 15,
            Some("?all") => 5,
            _ => 0,
        };
        match spf.all.as_deref() {
            Some("+all") => {
                rec("spf", "high", "End the SPF record with -all: +all lets any server send as the domain.".into())
            }
            Some("?all") | None => {
                rec("spf", "medium", "End the SPF record with -all (or ~all) so that other servers fail SPF.".into())
            }
            Some("~all") => {
                rec("spf", "low", "Once all senders are listed, end the SPF record with -all instead of ~all.".into())
            }
            _ => {}
        }
        if spf.lookups >= 8 {
            rec(
                "spf",
                "low",
                format!(
                    "The SPF policy needs {} of its 10 DNS lookups; flatten includes before it breaks.",
                    spf.lookups
                ),
            );
        }
        10 + all
    };
    let dmarc_score = if dmarc.record.is_none() {
        rec(
            "dmarc",
            "high",
            "Publish a DMARC record at _dmarc (start with p=none and rua= reports, then enforce).".into(),
        );
        0
    } else if !dmarc.valid {
        rec("dmarc", "high", format!("Fix the DMARC record: {}.", dmarc.errors.join("; ")));
        0
    } else {
        let policy = match dmarc.policy.as_deref() {
            Some("reject") => 20,
            Some("quarantine") => 15,
            _ => 0,
        };
        match dmarc.policy.as_deref() {
            Some("none") => rec(
                "dmarc",
                "high",
                "Move the DMARC policy from p=none to quarantine, then reject: p=none only monitors.".into(),
            ),
            Some("quarantine") => rec(
                "dmarc",
                "low",
                "Move the DMARC policy to p=reject once reports show legitimate mail passing.".into(),
            ),
            _ => {}
        }
        if dmarc.pct < 100 && dmarc.policy.as_deref() != Some("none") {
            rec(
                "dmarc",
                "medium",
                format!("The DMARC policy applies to {}% of failing mail; raise pct to 100.", dmarc.pct),
            );
        }
        let reports = if dmarc.aggregate_reports.is_empty() {
            rec("dmarc", "medium", "Add rua= to the DMARC record to receive aggregate reports.".into());
            0
        } else {
            5
        };
        10 + policy * u32::from(dmarc.pct) / 100 + reports
    };
    let usable: Vec<&DkimKey> = dkim.keys.iter().filter(|k| !k.revoked && k.error.is_none()).collect();
    let dkim_score = if usable.is_empty() {
        rec(
            "dkim",
            "high",
            format!(
                "No DKIM key was found under the {} selectors tried; sign outgoing mail with DKIM (or name your selector).",
                dkim.selectors_tried
            ),
        );
        0
    } else {
        let strong = usable.iter().all(|k| k.key_type == "ed25519" || k.bits.is_some_and(|b| b >= 2048));
        for k in usable.iter().filter(|k| k.key_type == "rsa" && k.bits.is_some_and(|b| b < 2048)) {
            rec(
                "dkim",
                if k.bits.is_some_and(|b| b < 1024) { "high" } else { "medium" },
                format!("The DKIM key under {} is {} bits; use 2048-bit RSA.", k.selector, k.bits.unwrap_or(0)),
            );
        }
        15 + if strong { 5 } else { 0 }
    };
    let mta_score = match (mta.record.is_some(), mta.mode.as_deref(), mta.errors.is_empty()) {
        (false, _, _) => {
            rec(
                "mta-sts",
                "medium",
                "Publish MTA-STS (a _mta-sts record and a policy at mta-sts.<domain>) so that senders require TLS."
                    .into(),
            );
            0
        }
        (true, Some("enforce"), true) => 10,
        (true, Some("testing"), true) => {
            rec("mta-sts", "low", "Move the MTA-STS policy from testing to enforce.".into());
            5
        }
        _ => {
            rec(
                "mta-sts",
                "medium",
                format!(
                    "Fix MTA-STS: {}.",
                    if mta.errors.is_empty() { "the policy mode is none".to_string() } else { mta.errors.join("; ") }
                ),
            );
            2
        }
    };
    let tls_score = if tls_rpt.valid {
        5
    } else {
        let why = if tls_rpt.record.is_none() {
            "Publish a TLS-RPT record (_smtp._tls) to receive reports of TLS failures.".to_string()
        } else {
            format!("Fix the TLS-RPT record: {}.", tls_rpt.errors.join("; "))
        };
        rec("tls-rpt", "low", why);
        0
    };
    if bimi.record.is_none() && matches!(dmarc.policy.as_deref(), Some("reject" | "quarantine")) && dmarc.valid {
        rec(
            "bimi",
            "low",
            "With DMARC enforced, a BIMI record (default._bimi) can show the brand's logo in supporting inboxes."
                .into(),
        );
    } else if bimi.record.is_some() && !bimi.valid {
        rec("bimi", "low", format!("Fix the BIMI record: {}.", bimi.errors.join("; ")));
    }
    (Score { spf: spf_score, dmarc: dmarc_score, dkim: dkim_score, mta_sts: mta_score, tls_rpt: tls_score }, recs)
}
