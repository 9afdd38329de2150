//! Licence lookup by SPDX identifier: the SPDX License List facts (bundled by the spdx crate)
//! and, for the licences choosealicense.com covers, its permissions, conditions and
//! limitations (embedded from `data/licenses/choosealicense.json`; see THIRD_PARTY_DATA.md).

use std::{collections::BTreeMap, sync::LazyLock};

use wrench_contract::prelude::*;

#[derive(Debug, Deserialize)]
struct Rule {
    label: String,
    description: String,
}

#[derive(Debug, Deserialize)]
struct Summary {
    nickname: Option<String>,
    description: String,
    permissions: Vec<String>,
    conditions: Vec<String>,
    limitations: Vec<String>,
}

#[derive(Debug, Deserialize)]
struct ChooseALicense {
    rules: BTreeMap<String, BTreeMap<String, Rule>>,
    licenses: BTreeMap<String, Summary>,
}

/// Builds the embedded table now (the warm-up and `wrench tables` call it).
pub(crate) fn warm() {
    let _ = &*SUMMARIES;
}

static SUMMARIES: LazyLock<ChooseALicense> = LazyLock::new(|| {
    serde_json::from_slice(&wrench_infra::blobs::LICENCE_SUMMARIES.bytes())
        .expect("the embedded licence summaries are valid JSON (checked by a test)")
});

#[derive(Debug, Deserialize, JsonSchema, Validate)]
#[serde(deny_unknown_fields)]
struct LicenseInput {
    /// An SPDX licence identifier, any case: `MIT`, `apache-2.0`, `GPL-3.0-or-later`.
    #[schemars(length(min = 1, max = 100))]
    id: String,
}

#[derive(Debug, Serialize, JsonSchema)]
struct Term {
    /// Machine-readable tag, e.g. `commercial-use`.
    tag: String,
    /// Short label, e.g. "Commercial use".
    label: String,
    /// What it means.
    description: String,
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct LicenseOutput {
    /// The identifier in its SPDX spelling.
    id: &'static str,
    /// The licence's full name.
    name: &'static str,
    /// The SPDX licence page.
    reference_url: String,
    /// Approved by the Open Source Initiative.
    osi_approved: bool,
    /// Considered free (libre) by the Free Software Foundation.
    fsf_libre: bool,
    /// Deprecated in the SPDX list (e.g. `GPL-3.0`, which became `-only` and `-or-later`).
    deprecated: bool,
    /// Identifiers that replace a deprecated one; empty otherwise.
    replaced_by: Vec<String>,
    /// A copyleft licence, per the spdx crate's classification.
    copyleft: bool,
    /// A one-paragraph summary (choosealicense.com); null when not covered.
    description: Option<String>,
    /// A common short name ("GNU GPLv3"); null when none.
    nickname: Option<String>,
    /// What the licence allows; null when choosealicense.com does not cover it.
    permissions: Option<Vec<Term>>,
    /// What it requires; null when not covered.
    conditions: Option<Vec<Term>>,
    /// What it disclaims or withholds; null when not covered.
    limitations: Option<Vec<Term>>,
    /// Version of the SPDX License List consulted.
    spdx_list_version: &'static str,
}

fn terms(kind: &str, tags: &[String]) -> Vec<Term> {
    tags.iter()
        .map(|tag| {
            let rule = SUMMARIES.rules.get(kind).and_then(|r| r.get(tag));
            Term {
                tag: tag.clone(),
                label: rule.map_or_else(|| tag.clone(), |r| r.label.clone()),
                description: rule.map_or_else(String::new, |r| r.description.clone()),
            }
        })
        .collect()
}

/// choosealicense.com names GNU licences without `-only` / `-or-later`; both share one text.
fn summary_key(id: &str) -> &str {
    id.trim_end_matches('+').trim_end_matches("-only").trim_end_matches("-or-later")
}

/// Look up a licence by SPDX identifier.
///
/// Identifiers match case-insensitively against SPDX License List 3.29 (bundled, no network).
/// Every licence gets its name, OSI approval, FSF libre status, deprecation (with the
/// replacing identifiers), copyleft flag and SPDX page; the 39 licences choosealicense.com
/// describes also get permissions, conditions and limitations (null for the others). Unknown
/// identifiers are a 404 naming the closest ones.
#[op(post "/v1/license/lookup" as licenseLookup, tag = DeveloperUtilities,
     errors(NOT_FOUND),
     example(mit, {"id": "mit"}),
     example(gpl_or_later, {"id": "GPL-3.0-or-later"}),
     example(deprecated, {"id": "GPL-2.0"}),
     example(unknown, {"id": "Apache2"}, status = 404))]
async fn license_lookup(input: LicenseInput) -> Result<LicenseOutput, ApiError> {
    let wanted = input.id.trim();
    let lic = spdx::identifiers::LICENSES
        .iter()
        .find(|l| l.name.eq_ignore_ascii_case(wanted))
        .and_then(|l| spdx::license_id(l.name))
        .ok_or_else(|| ApiError::not_found(not_found_message(wanted)))?;
    let summary = SUMMARIES.licenses.get(summary_key(lic.name));
    let replaced_by: Vec<String> = if lic.is_deprecated() {
        let base = lic.name.trim_end_matches('+');
        let or_later = lic.name.ends_with('+');
        let candidates = if or_later {
            vec![format!("{base}-or-later")]
        } else {
            vec![format!("{base}-only"), format!("{base}-or-later")]
        };
        candidates.into_iter().filter(|c| spdx::license_id(c).is_some()).collect()
    } else {
        Vec::new()
    };
    Ok(LicenseOutput {
        id: lic.name,
        name: lic.full_name,
        reference_url: format!("https://spdx.org/licenses/{}.html", lic.name),
        osi_approved: lic.is_osi_approved(),
        fsf_libre: lic.is_fsf_free_libre(),
        deprecated: lic.is_deprecated(),
        replaced_by,
        copyleft: lic.is_copyleft(),
        description: summary.map(|s| s.description.clone()),
        nickname: summary.and_then(|s| s.nickname.clone()),
        permissions: summary.map(|s| terms("permissions", &s.permissions)),
        conditions: summary.map(|s| terms("conditions", &s.conditions)),
        limitations: summary.map(|s| terms("limitations", &s.limitations)),
        spdx_list_version: spdx::license_version(),
    })
}

/// "no SPDX licence ...; closest: ..." with up to five near identifiers.
fn not_found_message(wanted: &str) -> String {
    let lower = wanted.to_ascii_lowercase();
    let ids: Vec<String> = spdx::identifiers::LICENSES.iter().map(|l| l.name.to_ascii_lowercase()).collect();
    let refs: Vec<&str> = ids.iter().map(String::as_str).collect();
    let mut closest: Vec<&'static str> = Vec::new();
    // Names people write instead of identifiers ("Apache 2", "GPLv3") first.
    if let Some((lic, _)) = spdx::imprecise_license_id(wanted) {
        closest.push(lic.name);
    }
    for m in similar::get_close_matches(lower.as_str(), &refs, 5, 0.6) {
        if let Some(l) = spdx::identifiers::LICENSES.iter().find(|l| l.name.eq_ignore_ascii_case(m))
            && !closest.contains(&l.name)
        {
            closest.push(l.name);
        }
    }
    closest.truncate(5);
    if closest.is_empty() {
        format!("no SPDX licence has the identifier {wanted:?}")
    } else {
        format!("no SPDX licence has the identifier {wanted:?}; closest: {}", closest.join(", "))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    async fn lookup(id: &str) -> Result<LicenseOutput, ApiError> {
        license_lookup(LicenseInput { id: id.into() }).await
    }

    #[tokio::test]
    async fn spdx_facts() {
        let mit = lookup("mit").await.unwrap();
        assert_eq!((mit.id, mit.name), ("MIT", "MIT License"));
        assert!(mit.osi_approved && mit.fsf_libre && !mit.deprecated && !mit.copyleft);
        let tags: Vec<&str> = mit.permissions.as_ref().unwrap().iter().map(|t| t.tag.as_str()).collect();
        assert_eq!(tags, ["commercial-use", "modifications", "distribution", "private-use"]);
        assert_eq!(
            mit.limitations.unwrap().iter().map(|t| t.label.as_str()).collect::<Vec<_>>(),
            ["Liability", "Warranty"]
        );

        let gpl = lookup("gpl-3.0-or-later").await.unwrap();
        assert!(gpl.copyleft && gpl.osi_approved && !gpl.deprecated);
        assert!(gpl.conditions.unwrap().iter().any(|t| t.tag == "disclose-source"));
        let old = lookup("GPL-2.0").await.unwrap();
        assert!(old.deprecated);
        assert_eq!(old.replaced_by, ["GPL-2.0-only", "GPL-2.0-or-later"]);
        // Outside choosealicense.com's list: SPDX facts only, summaries null.
        let json = lookup("json").await.unwrap();
        assert_eq!(json.id, "JSON");
        assert!(!json.osi_approved && json.permissions.is_none());
    }

    #[tokio::test]
    async fn unknown_ids_are_404_with_suggestions() {
        let e = lookup("Apache2").await.err().unwrap();
        assert_eq!(e.code, wrench_infra::envelope::ErrorCode::NotFound);
        assert!(e.message.contains("closest: Apache-2.0"), "{}", e.message);
        let e = lookup("BSD3Clause").await.err().unwrap();
        assert!(e.message.contains("BSD-3-Clause"), "{}", e.message);
    }

    #[test]
    fn every_summary_names_a_real_spdx_licence_and_known_rules() {
        for (id, s) in &SUMMARIES.licenses {
            assert!(spdx::license_id(id).is_some() || spdx::license_id(&format!("{id}-only")).is_some(), "{id}");
            for (kind, tags) in
                [("permissions", &s.permissions), ("conditions", &s.conditions), ("limitations", &s.limitations)]
            {
                for tag in tags {
                    assert!(SUMMARIES.rules[kind].contains_key(tag), "{id}: {kind} {tag}");
                }
            }
        }
        assert_eq!(SUMMARIES.licenses.len(), 39);
    }
}
