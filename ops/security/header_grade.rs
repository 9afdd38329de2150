//! A grade for a site's security headers (`security/grade`), from the headers of its
//! final answer, fetched through the outbound layer.
//!
//! The scoring table is ours, written out in the operation's description and applied here in
//! one function per header, so that each point gained or lost comes with its reason.

use wrench_contract::prelude::*;
use wrench_kit::hosts::http_fetch::{fetch_headers, header, hsts_max_age as max_age, url_input};

#[derive(Debug, Deserialize, JsonSchema, Validate)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct GradeInput {
    /// An http or https URL. Redirects are followed; the last answer is graded.
    #[schemars(length(min = 1, max = 2048))]
    url: String,
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct HeaderCheck {
    header: &'static str,
    present: bool,
    /// The value sent, when present.
    value: Option<String>,
    points: u32,
    max_points: u32,
    /// Why the header earned what it earned.
    reason: String,
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct GradeOutput {
    url: String,
    /// The URL whose answer was graded, after redirects.
    final_url: String,
    /// Whether that answer came over HTTPS.
    https: bool,
    /// A+, A, B, C, D, E or F.
    grade: String,
    score: u32,
    max_score: u32,
    checks: Vec<HeaderCheck>,
    checked_at: String,
}

fn check(header: &'static str, value: Option<String>, max: u32, points: u32, reason: impl Into<String>) -> HeaderCheck {
    HeaderCheck { header, present: value.is_some(), value, points, max_points: max, reason: reason.into() }
}

fn hsts(value: Option<String>, https: bool) -> HeaderCheck {
    const H: &str = "Strict-Transport-Security";
    if !https {
        return check(H, value, 25, 0, "the answer came over plain HTTP, where HSTS has no effect");
    }
    let Some(v) = value else { return check(H, None, 25, 0, "missing: browsers may still reach the site over HTTP") };
    let subdomains = v.to_ascii_lowercase().contains("includesubdomains");
    match max_age(&v) {
        Some(age) if age >= 15_552_000 => {
            let points = if subdomains { 25 } else { 20 };
            let why = if subdomains {
                "max-age of 180 days or more, subdomains included"
            } else {
                "max-age of 180 days or more; includeSubDomains would add 5"
            };
            check(H, Some(v), 25, points, why)
        }
        Some(0) => check(H, Some(v), 25, 0, "max-age=0 switches HSTS off"),
        Some(_) => check(H, Some(v), 25, if subdomains { 15 } else { 10 }, "max-age under 180 days"),
        None => check(H, Some(v), 25, 0, "no valid max-age directive"),
    }
}

/// The sources of `directive` in a CSP, if the policy has it.
fn csp_directive<'a>(policy: &'a str, directive: &str) -> Option<&'a str> {
    policy.split(';').map(str::trim).find_map(|d| {
        let (name, rest) = d.split_once(char::is_whitespace).unwrap_or((d, ""));
        name.eq_ignore_ascii_case(directive).then_some(rest)
    })
}

fn csp(value: Option<String>, report_only: bool) -> HeaderCheck {
    const H: &str = "Content-Security-Policy";
    let Some(v) = value else {
        return if report_only {
            check(H, None, 25, 5, "only Content-Security-Policy-Report-Only: violations are reported, not blocked")
        } else {
            check(H, None, 25, 0, "missing: nothing limits where scripts and other content may come from")
        };
    };
    let scripts = csp_directive(&v, "script-src").or_else(|| csp_directive(&v, "default-src")).unwrap_or("");
    let (inline, eval) = (scripts.contains("'unsafe-inline'"), scripts.contains("'unsafe-eval'"));
    let points = 15 + if inline { 0 } else { 5 } + if eval { 0 } else { 5 };
    let why = match (inline, eval) {
        (false, false) => "present, and scripts may not be inline or evaluated".to_string(),
        _ => format!(
            "present, but scripts may {}",
            [(inline, "be inline ('unsafe-inline')"), (eval, "be evaluated ('unsafe-eval')")]
                .iter()
                .filter(|(on, _)| *on)
                .map(|(_, w)| *w)
                .collect::<Vec<_>>()
                .join(" and ")
        ),
    };
    check(H, Some(v), 25, points, why)
}

fn nosniff(value: Option<String>) -> HeaderCheck {
    const H: &str = "X-Content-Type-Options";
    match value {
        Some(v) if v.trim().eq_ignore_ascii_case("nosniff") => {
            check(H, Some(v), 10, 10, "nosniff: browsers keep to the declared media type")
        }
        Some(v) => check(H, Some(v), 10, 0, "the only meaningful value is nosniff"),
        None => check(H, None, 10, 0, "missing: browsers may guess media types"),
    }
}

fn framing(value: Option<String>, csp: Option<&str>) -> HeaderCheck {
    const H: &str = "X-Frame-Options";
    let ancestors = csp.and_then(|p| csp_directive(p, "frame-ancestors")).is_some();
    match value {
        Some(v) if ["deny", "sameorigin"].contains(&v.trim().to_ascii_lowercase().as_str()) => {
            check(H, Some(v), 15, 15, "the page may not be framed by other sites")
        }
        _ if ancestors => check(H, None, 15, 15, "framing is controlled by the CSP frame-ancestors directive"),
        Some(v) if v.trim().to_ascii_lowercase().starts_with("allow-from") => {
            check(H, Some(v), 15, 5, "ALLOW-FROM is obsolete and ignored by current browsers")
        }
        Some(v) => check(H, Some(v), 15, 0, "not DENY or SAMEORIGIN"),
        None => check(H, None, 15, 0, "missing, and no CSP frame-ancestors: the page can be framed (clickjacking)"),
    }
}

fn referrer(value: Option<String>) -> HeaderCheck {
    const H: &str = "Referrer-Policy";
    let Some(v) = value else { return check(H, None, 10, 0, "missing: the browser's default applies") };
    // With several values the last one the browser knows wins (W3C Referrer Policy, 11.1).
    let known = [
        "no-referrer",
        "same-origin",
        "strict-origin",
        "strict-origin-when-cross-origin",
        "origin",
        "origin-when-cross-origin",
        "no-referrer-when-downgrade",
        "unsafe-url",
    ];
    let lower = v.to_ascii_lowercase();
    let policy = lower.split(',').map(str::trim).rfind(|p| known.contains(p));
    match policy {
        Some(p @ ("no-referrer" | "same-origin" | "strict-origin" | "strict-origin-when-cross-origin")) => {
            let why = format!("{p}: full URLs do not leave the site");
            check(H, Some(v), 10, 10, why)
        }
        Some(p @ ("origin" | "origin-when-cross-origin" | "no-referrer-when-downgrade")) => {
            let why = format!("{p}: leaks the origin or, to HTTPS sites, the full URL");
            check(H, Some(v), 10, 5, why)
        }
        Some(p) => {
            let why = format!("{p}: sends the full URL everywhere");
            check(H, Some(v), 10, 0, why)
        }
        None => check(H, Some(v), 10, 0, "no policy a browser knows"),
    }
}

fn permissions(value: Option<String>, legacy: Option<String>) -> HeaderCheck {
    const H: &str = "Permissions-Policy";
    match (value, legacy) {
        (Some(v), _) if !v.trim().is_empty() => check(H, Some(v), 15, 15, "present: powerful features are limited"),
        (_, Some(_)) => check(H, None, 15, 5, "only the legacy Feature-Policy header"),
        (v, None) => check(H, v, 15, 0, "missing: nothing limits camera, microphone, geolocation and the like"),
    }
}

fn grade(score: u32, https: bool) -> &'static str {
    match score {
        95.. if https => "A+",
        85.. => "A",
        70.. => "B",
        55.. => "C",
        40.. => "D",
        25.. => "E",
        _ => "F",
    }
}

/// Grade a site's security headers, A+ to F.
///
/// Fetches `url` (redirects followed) and scores the last answer's headers out of 100:
/// Strict-Transport-Security 25 (max-age of 180 days or more 20, under 180 days 10, +5 for
/// includeSubDomains; 0 over plain HTTP), Content-Security-Policy 25 (present 15, +5 when
/// scripts may not be inline, +5 when they may not be evaluated; Report-Only alone 5),
/// X-Content-Type-Options 10 (nosniff), X-Frame-Options 15 (DENY or SAMEORIGIN, or a CSP
/// frame-ancestors directive; ALLOW-FROM 5), Referrer-Policy 10 (no-referrer, same-origin,
/// strict-origin or strict-origin-when-cross-origin 10; origin, origin-when-cross-origin or
/// no-referrer-when-downgrade 5), Permissions-Policy 15 (legacy Feature-Policy alone 5).
/// Grades: A+ for 95 or more over HTTPS, A 85, B 70, C 55, D 40, E 25, F below. Every check
/// says why it earned its points.
#[op(post "/v1/security/grade" as securityGrade, tag = SecurityAndValidation,
     rejects = "text that is not an absolute http or https URL",
     uses(network),
     redact(".data.checkedAt"),
     example(https_all_headers, {"url": "https://secure.site.example:8443/"}),
     example(http_all_headers, {"url": "http://www.site.example:8080/"}),
     example(no_headers, {"url": "http://bare.site.example:8080/bare"}),
     example(private_address, {"url": "http://10.0.0.1/"}, status = 403))]
async fn security_grade(input: GradeInput, ctx: &Ctx) -> Result<GradeOutput, ApiError> {
    let url = url_input("url", &input.url)?;
    let chain = fetch_headers(ctx, url.clone(), true).await?;
    let last = chain.last().ok_or_else(|| ApiError::internal("a fetch that ended well has an answer"))?;
    let https = last.url.scheme() == "https";
    let policy = header(last, "content-security-policy");
    let checks = vec![
        hsts(header(last, "strict-transport-security"), https),
        csp(policy.clone(), header(last, "content-security-policy-report-only").is_some()),
        nosniff(header(last, "x-content-type-options")),
        framing(header(last, "x-frame-options"), policy.as_deref()),
        referrer(header(last, "referrer-policy")),
        permissions(header(last, "permissions-policy"), header(last, "feature-policy")),
    ];
    let score = checks.iter().map(|c| c.points).sum();
    let max_score = checks.iter().map(|c| c.max_points).sum();
    Ok(GradeOutput {
        url: url.to_string(),
        final_url: last.url.to_string(),
        https,
        grade: grade(score, https).to_string(),
        score,
        max_score,
        checks,
        checked_at: wrench_infra::time::now_rfc3339(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_header_scores_by_the_table() {
        let s = |v: &str| Some(v.to_string());
        assert_eq!(hsts(s("max-age=31536000; includeSubDomains"), true).points, 25);
        assert_eq!(hsts(s("max-age=31536000"), true).points, 20);
        assert_eq!(hsts(s("max-age=86400; includesubdomains"), true).points, 15);
        assert_eq!(hsts(s("max-age=0"), true).points, 0);
        assert_eq!(hsts(s("max-age=31536000"), false).points, 0);
        assert_eq!(csp(s("default-src 'self'"), false).points, 25);
        assert_eq!(csp(s("script-src 'self' 'unsafe-inline'; default-src 'none'"), false).points, 20);
        assert_eq!(csp(s("default-src * 'unsafe-inline' 'unsafe-eval'"), false).points, 15);
        assert_eq!(csp(None, true).points, 5);
        assert_eq!(nosniff(s("NoSniff")).points, 10);
        assert_eq!(framing(None, Some("default-src 'self'; frame-ancestors 'none'")).points, 15);
        assert_eq!(framing(s("ALLOW-FROM https://a.example"), None).points, 5);
        assert_eq!(referrer(s("no-referrer, unsafe-url")).points, 0, "the last known value wins");
        assert_eq!(referrer(s("unsafe-url, strict-origin-when-cross-origin, x-unknown")).points, 10);
        assert_eq!(referrer(s("origin")).points, 5);
        assert_eq!(permissions(None, s("camera 'none'")).points, 5);
        assert_eq!((grade(100, true), grade(100, false), grade(84, true), grade(24, true)), ("A+", "A", "B", "F"));
    }
}
