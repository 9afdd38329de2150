//! Semantic versions as SemVer 2.0.0 defines them: validation and precedence.
//!
//! Parsing is strict SemVer 2.0.0 (no leading `v`, no leading zeros, no missing parts), and
//! precedence ignores build metadata, as section 10 of the specification requires (Cargo's
//! ordering, which sorts by build metadata too, is not used).

use std::cmp::Ordering;

use semver::Version;

use wrench_contract::prelude::*;

/// The version, or why `text` is not one.
fn parse(text: &str) -> Result<Version, String> {
    Version::parse(text).map_err(|e| {
        let hint = if text.starts_with(['v', 'V']) && Version::parse(&text[1..]).is_ok() {
            format!(" (a leading v is not part of a semantic version: {} is)", &text[1..])
        } else {
            String::new()
        };
        format!("{text:?} is not a semantic version: {e}{hint}")
    })
}

#[derive(Debug, Deserialize, JsonSchema, Validate)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
#[schemars(transform = wrench_contract::validate::declare_aliases::<Self>)]
struct SemverCompareInput {
    /// The first version, e.g. `1.0.0-alpha.1`.
    #[schemars(length(max = 256))]
    #[serde(rename = "version_a", alias = "versionA")]
    version_a: String,
    /// The second version.
    #[schemars(length(max = 256))]
    #[serde(rename = "version_b", alias = "versionB")]
    version_b: String,
}

#[derive(Debug, Serialize, JsonSchema, Clone, Copy)]
#[serde(rename_all = "lowercase")]
enum Relation {
    Greater,
    Less,
    Equal,
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct SemverCompareOutput {
    /// How version_a relates to version_b: greater, less or equal precedence.
    result: Relation,
    /// The same as a number: 1, -1 or 0.
    comparison: i8,
    /// The higher-precedence version (version_a when equal).
    greater: String,
    /// Whether the two differ only in build metadata (equal precedence, different text).
    differ_only_in_build: bool,
}

/// Compare two semantic versions.
///
/// Precedence as SemVer 2.0.0 section 11 defines it: major, minor and patch numerically; a
/// pre-release version is lower than the release; pre-release identifiers compare one by one,
/// numbers numerically and below text, and a longer list wins when all before are equal. Build
/// metadata does not count (`1.0.0+a` and `1.0.0+b` are equal). Invalid versions are a 400
/// naming the field.
#[op(post "/v1/semver/compare" as semverCompare, tag = DeveloperUtilities,
     rejects = "a version that is not a valid SemVer 2.0.0 version",
     example(pre_release, {"version_a": "1.0.0-beta.11", "version_b": "1.0.0-beta.2"}),
     example(build_metadata_ignored, {"version_a": "1.0.0+build.1", "version_b": "1.0.0+build.2"}),
     example(leading_v, {"version_a": "v1.2.3", "version_b": "1.2.3"}, status = 400))]
async fn semver_compare(input: SemverCompareInput) -> Result<SemverCompareOutput, ApiError> {
    let a = parse(&input.version_a).map_err(|e| ApiError::invalid("version_a", e))?;
    let b = parse(&input.version_b).map_err(|e| ApiError::invalid("version_b", e))?;
    let ord = a.cmp_precedence(&b);
    let (result, comparison) = match ord {
        Ordering::Greater => (Relation::Greater, 1),
        Ordering::Less => (Relation::Less, -1),
        Ordering::Equal => (Relation::Equal, 0),
    };
    Ok(SemverCompareOutput {
        result,
        comparison,
        greater: if ord == Ordering::Less { input.version_b.clone() } else { input.version_a.clone() },
        differ_only_in_build: ord == Ordering::Equal && a.build != b.build,
    })
}

#[derive(Debug, Deserialize, JsonSchema, Validate)]
#[serde(deny_unknown_fields)]
struct SemverValidateInput {
    /// The text to check.
    #[schemars(length(max = 256))]
    version: String,
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct SemverValidateOutput {
    /// Whether the text is a valid SemVer 2.0.0 version.
    valid: bool,
    /// Major version; null when invalid.
    major: Option<u64>,
    /// Minor version; null when invalid.
    minor: Option<u64>,
    /// Patch version; null when invalid.
    patch: Option<u64>,
    /// Pre-release identifiers (`alpha.1` gives `["alpha", "1"]`); empty for a release.
    prerelease: Vec<String>,
    /// Build metadata identifiers; empty when absent.
    build: Vec<String>,
    /// Whether it is a pre-release.
    is_prerelease: bool,
    /// Why the text is not valid; null when valid.
    error: Option<String>,
}

/// Validate a semantic version and split it into parts.
///
/// Strict SemVer 2.0.0: three numeric parts without leading zeros, optional pre-release and
/// build identifiers. Invalid text is `valid: false` with the reason (including a hint when a
/// leading `v` is the only problem), not an error.
#[op(post "/v1/semver/validate" as semverValidate, tag = DeveloperUtilities,
     example(pre_release_and_build, {"version": "1.2.3-rc.1+build.5"}),
     example(leading_zero, {"version": "1.02.3"}),
     example(leading_v, {"version": "v2.0.0"}))]
async fn semver_validate(input: SemverValidateInput) -> Result<SemverValidateOutput, ApiError> {
    Ok(match parse(&input.version) {
        Ok(v) => SemverValidateOutput {
            valid: true,
            major: Some(v.major),
            minor: Some(v.minor),
            patch: Some(v.patch),
            prerelease: if v.pre.is_empty() {
                Vec::new()
            } else {
                v.pre.as_str().split('.').map(str::to_string).collect()
            },
            build: if v.build.is_empty() {
                Vec::new()
            } else {
                v.build.as_str().split('.').map(str::to_string).collect()
            },
            is_prerelease: !v.pre.is_empty(),
            error: None,
        },
        Err(e) => SemverValidateOutput {
            valid: false,
            major: None,
            minor: None,
            patch: None,
            prerelease: Vec::new(),
            build: Vec::new(),
            is_prerelease: false,
            error: Some(e),
        },
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    async fn cmp(a: &str, b: &str) -> i8 {
        semver_compare(SemverCompareInput { version_a: a.into(), version_b: b.into() }).await.unwrap().comparison
    }

    #[tokio::test]
    async fn precedence_follows_the_examples_of_semver_org() {
        // SemVer 2.0.0, section 11: each is lower than the next.
        let chains = [
            &["1.0.0", "2.0.0", "2.1.0", "2.1.1"][..],
            &[
                "1.0.0-alpha",
                "1.0.0-alpha.1",
                "1.0.0-alpha.beta",
                "1.0.0-beta",
                "1.0.0-beta.2",
                "1.0.0-beta.11",
                "1.0.0-rc.1",
                "1.0.0",
            ][..],
        ];
        for chain in chains {
            for (i, a) in chain.iter().enumerate() {
                for (j, b) in chain.iter().enumerate() {
                    assert_eq!(cmp(a, b).await, (i.cmp(&j) as i8), "{a} vs {b}");
                }
            }
        }
        assert_eq!(cmp("1.0.0+build.1", "1.0.0+build.2").await, 0, "build metadata has no precedence");
        assert_eq!(cmp("1.0.0-alpha+001", "1.0.0-alpha").await, 0);
    }

    #[tokio::test]
    async fn validation_is_strict_semver() {
        for ok in ["0.0.4", "1.2.3", "10.20.30", "1.1.2-prerelease+meta", "1.0.0-alpha.beta.1", "1.0.0-0A.is.legal"] {
            assert!(semver_validate(SemverValidateInput { version: ok.into() }).await.unwrap().valid, "{ok}");
        }
        for bad in ["1", "1.2", "1.2.3.4", "01.1.1", "1.2.3-0123", "1.2.3-", "v1.2.3", "1.2.3+", " 1.2.3"] {
            let out = semver_validate(SemverValidateInput { version: bad.into() }).await.unwrap();
            assert!(!out.valid && out.error.is_some(), "{bad}");
        }
        let v = semver_validate(SemverValidateInput { version: "v1.2.3".into() }).await.unwrap();
        assert!(v.error.unwrap().contains("leading v"));
    }
}
