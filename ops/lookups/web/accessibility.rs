//! An accessibility check of a web page (`accessibility/check`): the page is fetched
//! through the guard and its HTML judged by the rules of `a11y_rules.rs` (16 rules named as
//! axe-core names them, and checked against axe-core itself on a fixture page), each failing element reported with its rule, a CSS selector that
//! finds it, its start tag and the WCAG criterion; a score by the formula below.
//!
//! Score: 100, less for each rule that fails its impact's weight (critical 10, serious 7,
//! moderate 4, minor 2) plus one point per further failing element, at most five; never
//! below 0.

use scraper::Html;

use wrench_contract::prelude::*;
use wrench_infra::time::now_rfc3339;
use wrench_kit::web::a11y_rules::{self, RULES};
use wrench_kit::web::page::{MAX_TAGS, check_nesting, fetch_page};

#[derive(Debug, Deserialize, JsonSchema, Validate)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct AccessibilityInput {
    /// The page, an http:// or https:// URL.
    #[schemars(length(min = 1, max = 2048), pattern("^[\\x00-\\x20]*[Hh][Tt][Tt][Pp][Ss]?:"))]
    url: String,
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct Issue {
    /// The rule's name, as axe-core names it (`image-alt`, `label`, `color-contrast`...).
    rule: &'static str,
    /// `critical`, `serious`, `moderate` or `minor`.
    impact: &'static str,
    /// The WCAG 2 success criterion.
    wcag: &'static str,
    /// What is wrong with this element.
    message: String,
    /// A CSS selector matching the element alone.
    selector: String,
    /// The element's start tag (at most 200 characters).
    html: String,
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct RuleResult {
    rule: &'static str,
    description: &'static str,
    impact: &'static str,
    wcag: &'static str,
    /// `passed`, `failed`, or `inapplicable` when the page has nothing the rule applies to.
    status: &'static str,
    /// Elements the rule applied to.
    checked: usize,
    /// Of those, the failing ones.
    failed: usize,
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct AccessibilityOutput {
    url: String,
    final_url: String,
    /// 0 to 100, by `scoreFormula`.
    score: u32,
    score_formula: &'static str,
    /// Failing elements, in rule order then page order; the first 200 found are listed.
    issues: Vec<Issue>,
    /// All failing elements, listed or not.
    issue_count: usize,
    rules: Vec<RuleResult>,
    /// What the check cannot see.
    limitations: &'static str,
    checked_at: String,
}

fn weight(impact: &str) -> u32 {
    match impact {
        "critical" => 10,
        "serious" => 7,
        "moderate" => 4,
        _ => 2,
    }
}

/// Check a web page's accessibility.
///
/// Fetches `url` through the guarded client and applies 16 rules to its HTML, named as
/// axe-core names them: image-alt, label, select-name, html-has-lang, html-lang-valid,
/// document-title, heading-order, link-name, button-name, input-button-name, duplicate-id,
/// tabindex, td-has-header (data tables of 3 by 3 or more, told from layout tables as axe-core
/// does), aria-roles, aria-valid-attr and color-contrast (only where an element's inline style
/// gives both colours). Each failing element is reported with its rule, impact, WCAG criterion, a CSS
/// selector that finds it and its start tag; each rule with its status. Score: 100 less, per
/// failing rule, its impact's weight (critical 10, serious 7, moderate 4, minor 2) plus one per
/// further failing element up to five; at least 0. No CSS cascade, script or layout is
/// evaluated.
#[op(post "/v1/accessibility/check" as accessibilityCheck, tag = Lookups,
     rejects = "a URL whose host is not a valid host name or address",
     uses(network),
     redact(".data.checkedAt"),
     example(flawed_page, {"url": "http://www.site.example:8080/a11y"}),
     example(clean_page, {"url": "http://www.site.example:8080/"}),
     example(not_http, {"url": "ftp://example.com/"}, status = 400))]
async fn accessibility_check(input: AccessibilityInput, ctx: &Ctx) -> Result<AccessibilityOutput, ApiError> {
    let page = fetch_page(ctx, &input.url).await?;
    check_nesting(&page, &page.html, "")?;
    let html = page.html.clone();
    let outcome = wrench_infra::cpu::run(move || {
        let doc = Html::parse_document(&html);
        let outcome = a11y_rules::check(&doc);
        Ok(outcome)
    })
    .await?;
    let mut score: u32 = 100;
    let mut rules = Vec::new();
    let mut issues = Vec::new();
    for rule in RULES {
        let failing: Vec<&a11y_rules::Finding> = outcome.findings.iter().filter(|f| f.rule == rule.id).collect();
        let checked = outcome.applicable.get(rule.id).copied().unwrap_or(0);
        let failed = outcome.failed.get(rule.id).copied().unwrap_or(0);
        if failed > 0 {
            score = score.saturating_sub(weight(rule.impact) + (failed as u32 - 1).min(5));
        }
        rules.push(RuleResult {
            rule: rule.id,
            description: rule.description,
            impact: rule.impact,
            wcag: rule.wcag,
            status: if failed > 0 {
                "failed"
            } else if checked == 0 {
                "inapplicable"
            } else {
                "passed"
            },
            checked,
            failed,
        });
        for f in failing {
            if issues.len() < MAX_TAGS {
                issues.push(Issue {
                    rule: rule.id,
                    impact: rule.impact,
                    wcag: rule.wcag,
                    message: f.detail.clone(),
                    selector: f.selector.clone(),
                    html: f.html.clone(),
                });
            }
        }
    }
    Ok(AccessibilityOutput {
        url: page.url.to_string(),
        final_url: page.final_url.to_string(),
        score,
        score_formula: "100 - sum over failing rules of (impact weight: critical 10, serious 7, moderate 4, minor 2) + min(failing elements - 1, 5); at least 0",
        issue_count: outcome.failed.values().sum(),
        issues,
        rules,
        limitations: "the HTML as served is judged: no CSS cascade, script or layout; contrast only where an element's inline style gives both colours",
        checked_at: now_rfc3339(),
    })
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use scraper::Selector;

    use super::*;
    use wrench_kit::web::a11y_rules::contrast;

    /// WCAG contrast figures as WebAIM's checker states them: #777 on white 4.48:1, #767676 on
    /// white 4.54:1, black on white 21:1.
    #[test]
    fn contrast_ratios_match_published_figures() {
        let white = [255, 255, 255];
        assert!((contrast([0x77, 0x77, 0x77], white) - 4.48).abs() < 0.005);
        assert!((contrast([0x76, 0x76, 0x76], white) - 4.54).abs() < 0.005);
        assert!((contrast([0, 0, 0], white) - 21.0).abs() < 1e-9);
        assert!((contrast(white, white) - 1.0).abs() < 1e-9);
    }

    /// Every rule fails where the fixture breaks it and nowhere else, and every selector finds
    /// exactly the element it names in the same document (scraper's selector engine).
    #[tokio::test]
    async fn each_rule_fails_where_the_fixture_breaks_it() {
        let ctx = crate::testing::fake_ctx(&[]);
        let out = accessibility_check(AccessibilityInput { url: "http://www.site.example:8080/a11y".into() }, &ctx)
            .await
            .unwrap();
        let mut by_rule: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
        for i in &out.issues {
            by_rule.entry(i.rule).or_default().push(i.html.as_str());
        }
        let want: BTreeMap<&str, Vec<&str>> = [
            ("image-alt", vec!["<img src=\"/a.png\">"]),
            ("label", vec!["<input name=\"q\" type=\"text\">"]),
            ("select-name", vec!["<select name=\"s\">"]),
            ("html-has-lang", vec!["<html>"]),
            ("document-title", vec!["<html>"]),
            ("heading-order", vec!["<h3 id=\"skipped\">"]),
            ("link-name", vec!["<a href=\"/one\">"]),
            ("button-name", vec!["<button>"]),
            ("input-button-name", vec!["<input type=\"button\">"]),
            ("duplicate-id", vec!["<p id=\"dup\">"]),
            ("tabindex", vec!["<div tabindex=\"3\">"]),
            ("td-has-header", vec!["<table>"]),
            ("aria-roles", vec!["<div role=\"buton\">"]),
            ("aria-valid-attr", vec!["<div aria-labeledby=\"x\" aria-pressed=\"false\" role=\"button\">"]),
            ("color-contrast", vec!["<p style=\"color: #777777; background-color: #ffffff\">"]),
        ]
        .into_iter()
        .collect();
        // Attributes come in the parser's order (sorted by name).
        assert_eq!(by_rule, want);
        assert_eq!(out.issue_count, 15);
        let lang_valid = out.rules.iter().find(|r| r.rule == "html-lang-valid").unwrap();
        assert_eq!(lang_valid.status, "inapplicable");
        // 15 failing rules, one element each: critical 10 x 8, serious 7 x 5, moderate 4,
        // minor 2: more than 100 points, so 0.
        assert_eq!(out.score, 0);
        let doc = Html::parse_document(wrench_fakes::http::A11Y_PAGE);
        for i in &out.issues {
            let found: Vec<_> = doc.select(&Selector::parse(&i.selector).unwrap()).collect();
            assert_eq!(found.len(), 1, "{} matches {} elements", i.selector, found.len());
            assert!(i.html.starts_with(&format!("<{}", found[0].value().name())), "{} -> {}", i.selector, i.html);
        }
    }

    /// axe-core 4.14.1 itself, run in jsdom on the same page (`tests/fixtures/axe_a11y.json`,
    /// written by `tests/fixtures/axe_a11y.js`), finds the same failing elements for every
    /// rule but colour contrast, which it cannot judge without a layout engine.
    #[tokio::test]
    async fn the_same_elements_fail_as_under_axe_core() {
        let axe: Value = serde_json::from_str(include_str!("../../../tests/fixtures/axe_a11y.json")).unwrap();
        let ctx = crate::testing::fake_ctx(&[]);
        let out = accessibility_check(AccessibilityInput { url: "http://www.site.example:8080/a11y".into() }, &ctx)
            .await
            .unwrap();
        // A start tag as (name, sorted attributes), whichever order it was written in.
        let shape = |tag: &str| {
            let doc = Html::parse_fragment(&format!(
                "{tag}</{}>",
                tag.trim_start_matches('<').split([' ', '>']).next().unwrap()
            ));
            let first = doc.root_element().descendants().filter_map(scraper::ElementRef::wrap).nth(1);
            let e = first.map(|e| e.value().clone());
            match e {
                Some(e) => (
                    e.name().to_string(),
                    e.attrs().map(|(k, v)| format!("{k}={v}")).collect::<std::collections::BTreeSet<_>>(),
                ),
                None => (tag.to_string(), Default::default()),
            }
        };
        let mut compared = 0;
        for rule in RULES.iter().filter(|r| r.id != "color-contrast") {
            let theirs: Vec<_> = axe["violations"][rule.id]
                .as_array()
                .map(|a| a.iter().map(|t| shape(t.as_str().unwrap())).collect())
                .unwrap_or_default();
            let ours: Vec<_> = out.issues.iter().filter(|i| i.rule == rule.id).map(|i| shape(&i.html)).collect();
            assert_eq!(ours, theirs, "{}", rule.id);
            compared += ours.len();
        }
        assert_eq!(compared, 14);
    }
}
