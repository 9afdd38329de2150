//! `npm/info`: a package's metadata from the npm registry the operator names in
//! `WRENCH_PROVIDER_NPM_URL` (no registry address is written into wrench; without the setting
//! the operation answers 503 naming it). A key, when set, is sent as a bearer token, for
//! private registries.
//!
//! The registry's full document of a package (every version, and the `time` map with its
//! creation date) is read up to [`FULL_LIMIT`] (8 MiB, two at a time); the largest packages' documents are bigger, and
//! for them the abbreviated document (`application/vnd.npm.install-v1+json`: versions and tags,
//! no times but `modified`) and the chosen version's own document are read instead, and the
//! answer says the creation date could not be read. Answers are reused for 10 minutes.

use reqwest::header::{ACCEPT, AUTHORIZATION, HeaderMap, HeaderValue};

use wrench_contract::prelude::*;
use wrench_infra::{
    outbound::{
        OutboundError,
        provider::{self, Answer},
    },
    providers::NPM,
};

/// The largest document read; the registry's full documents of a few of its largest packages
/// are bigger. Parsed, a document takes several times its size, so at most
/// [`AT_ONCE`] are read at a time.
const FULL_LIMIT: usize = NPM.max_bytes;
const AT_ONCE: usize = 2;

#[derive(Debug, Deserialize, JsonSchema, Validate)]
#[serde(deny_unknown_fields)]
struct NpmInput {
    /// The package's name; a scoped name in full (`@types/node`).
    #[schemars(length(min = 1, max = 214))]
    package: String,
}

#[derive(Debug, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct NpmOutput {
    name: String,
    /// The latest stable version (the `latest` tag, or the highest stable version when that
    /// tag names a pre-release); a pre-release only when the package has nothing else.
    version: String,
    description: Option<String>,
    /// The SPDX expression (or the legacy form's type).
    license: Option<String>,
    homepage: Option<String>,
    /// The repository's URL as the package gives it, `git+` prefix and `.git` suffix removed.
    repository: Option<String>,
    keywords: Vec<String>,
    /// Direct production dependencies of that version (not dev, peer or transitive). Spelt as
    /// the spec spells it.
    #[serde(rename = "dependencies_count")]
    dependencies_count: usize,
    /// Every version published and not unpublished.
    versions_count: usize,
    /// The distribution tags (`latest`, `next`...).
    dist_tags: std::collections::BTreeMap<String, String>,
    maintainers_count: Option<usize>,
    /// When the package was first published (RFC 3339); null when only the abbreviated
    /// document could be read (`notes` says so).
    created: Option<String>,
    /// When the package last changed.
    modified: Option<String>,
    /// When `version` was published.
    published: Option<String>,
    /// The deprecation message of `version`; null when it is not deprecated.
    deprecated: Option<String>,
    /// What could not be read, and why.
    notes: Vec<String>,
    /// `the npm registry`.
    source: String,
    /// When the registry answered (answers are reused for 10 minutes).
    fetched_at: String,
}

/// Checks a name by npm's rules (`validate-npm-package-name`, for names that exist: the legacy
/// upper-case names are accepted) and gives the path segment the registry expects.
fn path_of(name: &str) -> Result<String, ApiError> {
    let bad = |why: &str| ApiError::invalid("package", format!("{name:?} is not an npm package name: {why}"));
    if name.is_empty() || name.len() > 214 {
        return Err(bad("1 to 214 characters"));
    }
    if name.trim() != name {
        return Err(bad("no leading or trailing spaces"));
    }
    let (scope, bare) = match name.strip_prefix('@') {
        Some(rest) => {
            let (scope, bare) = rest.split_once('/').ok_or_else(|| bad("a scope is followed by `/name`"))?;
            (Some(scope), bare)
        }
        None => (None, name),
    };
    let part_ok = |p: &str| {
        !p.is_empty()
            && !p.starts_with('.')
            && !p.starts_with('_')
            && p.bytes().all(|b| b.is_ascii_alphanumeric() || b"-._~".contains(&b))
    };
    if !scope.is_none_or(part_ok) || !part_ok(bare) {
        return Err(bad("letters, digits and `-._~`, not starting with `.` or `_`"));
    }
    Ok(match scope {
        Some(scope) => format!("@{scope}%2F{bare}"),
        None => bare.to_string(),
    })
}

fn text(v: &Value) -> Option<String> {
    v.as_str().map(str::trim).filter(|s| !s.is_empty()).map(str::to_string)
}

/// The version to describe: see `NpmOutput::version`.
fn chosen_version(tags: &serde_json::Map<String, Value>, versions: &[String]) -> Option<String> {
    let parsed: Vec<semver::Version> = versions.iter().filter_map(|v| semver::Version::parse(v).ok()).collect();
    if let Some(latest) = tags.get("latest").and_then(Value::as_str)
        && semver::Version::parse(latest).is_ok_and(|v| v.pre.is_empty())
    {
        return Some(latest.to_string());
    }
    if let Some(stable) = parsed.iter().filter(|v| v.pre.is_empty()).max() {
        return Some(stable.to_string());
    }
    tags.get("latest")
        .and_then(Value::as_str)
        .map(str::to_string)
        .or_else(|| parsed.iter().max().map(|v| v.to_string()))
}

fn license_of(manifest: &Value) -> Option<String> {
    match &manifest["license"] {
        Value::String(s) => text(&Value::String(s.clone())),
        Value::Object(o) => o.get("type").and_then(text),
        _ => manifest["licenses"].as_array().and_then(|l| {
            let types: Vec<String> = l.iter().filter_map(|x| text(&x["type"])).collect();
            (!types.is_empty()).then(|| types.join(" OR "))
        }),
    }
}

fn repository_of(manifest: &Value) -> Option<String> {
    let raw = match &manifest["repository"] {
        Value::String(s) => s.clone(),
        Value::Object(o) => o.get("url").and_then(Value::as_str)?.to_string(),
        _ => return None,
    };
    let trimmed = raw.trim().trim_start_matches("git+");
    let trimmed = trimmed.strip_suffix(".git").unwrap_or(trimmed);
    Some(trimmed.to_string()).filter(|s| !s.is_empty())
}

/// `GET {base}{path}` with `accept` and the key as a bearer token.
async fn ask(ctx: &Ctx, path: &str, accept: &'static str) -> Result<Result<Answer, OutboundError>, ApiError> {
    let base = NPM.url(ctx)?;
    let url = base.join(path).map_err(|e| NPM.malformed(e))?;
    let mut headers = HeaderMap::new();
    headers.insert(ACCEPT, HeaderValue::from_static(accept));
    if let Some(key) = NPM.key(ctx) {
        let value = HeaderValue::from_str(&format!("Bearer {}", key.expose()))
            .map_err(|_| ApiError::internal("the npm registry key"))?;
        headers.insert(AUTHORIZATION, value);
    }
    NPM.fetch(ctx, url, &headers).await
}

/// The JSON of a registry answer; 404 is the package's absence.
fn document(answer: Answer, name: &str) -> Result<(Value, Answer), ApiError> {
    match answer.status {
        200 => Ok((answer.json(&NPM)?, answer)),
        404 => Err(ApiError::not_found(format!("the npm registry has no package named {name:?}"))),
        s => Err(NPM.failed(s)),
    }
}

/// Look up an npm package.
///
/// Metadata of `package`'s latest stable version (the `latest` tag, or the highest stable
/// version when that tag names a pre-release; a pre-release only when nothing else exists):
/// version, description, licence, homepage, repository, keywords, the count of its direct
/// production dependencies, the package's version count, distribution tags, maintainers,
/// creation, modification and publication dates, and deprecation. From the registry named in
/// `WRENCH_PROVIDER_NPM_URL`; unknown packages are 404. Answers are reused for 10 minutes.
#[op(post "/v1/npm/info" as npmInfo, tag = Lookups,
     rejects = "a name that breaks npm's naming rules",
     uses(provider), errors(NOT_FOUND),
     redact(".data.fetchedAt"),
     example(package, {"package": "left-pad"}),
     example(scoped, {"package": "@fixture/widgets"}),
     example(unknown, {"package": "no-such-package-fixture"}, status = 404),
     example(bad_name, {"package": "Bad Name"}, status = 400))]
async fn npm_info(ctx: &Ctx, input: NpmInput) -> Result<NpmOutput, ApiError> {
    let path = path_of(&input.package)?;
    // The answer is kept, not the registry's documents, which can be megabytes.
    let cache_key = format!("cache:npm:{path}");
    if let Some(bytes) = provider::cached(ctx, &cache_key).await
        && let Ok(out) = serde_json::from_slice::<NpmOutput>(&bytes)
    {
        return Ok(out);
    }
    static READING: tokio::sync::Semaphore = tokio::sync::Semaphore::const_new(AT_ONCE);
    let out = {
        let _turn = READING.acquire().await.map_err(|_| ApiError::internal("the npm reading semaphore closed"))?;
        describe(ctx, input.package, &path).await?
    };
    if let Ok(bytes) = serde_json::to_vec(&out) {
        NPM.remember(ctx, &cache_key, &bytes).await;
    }
    Ok(out)
}

/// The answer for package `name` (at registry path `path`), from the registry.
async fn describe(ctx: &Ctx, name: String, path: &str) -> Result<NpmOutput, ApiError> {
    let mut notes = Vec::new();
    // `abbreviated`: the version's manifest is not in the document and is read on its own.
    let (full, abbreviated, answer) = match ask(ctx, path, "application/json").await? {
        Ok(answer) => {
            let (doc, answer) = document(answer, &name)?;
            (doc, false, answer)
        }
        Err(OutboundError::TooLarge(_)) => {
            notes.push(format!(
                "the registry's full document of this package is over {} MiB, more than this service reads; the \
                 abbreviated one was read instead, which has no creation or publication dates",
                FULL_LIMIT / (1024 * 1024)
            ));
            let answer = ask(ctx, path, "application/vnd.npm.install-v1+json").await?.map_err(|e| NPM.blame(e))?;
            let (doc, answer) = document(answer, &name)?;
            (doc, true, answer)
        }
        Err(e) => return Err(NPM.blame(e)),
    };
    let tags = full["dist-tags"].as_object().cloned().unwrap_or_default();
    let versions: Vec<String> = full["versions"].as_object().map(|v| v.keys().cloned().collect()).unwrap_or_default();
    let version = chosen_version(&tags, &versions)
        .ok_or_else(|| ApiError::not_found(format!("the npm package {name:?} has no published version")))?;
    let manifest = if abbreviated {
        let answer = ask(ctx, &format!("{path}/{version}"), "application/json").await?.map_err(|e| NPM.blame(e))?;
        document(answer, &name)?.0
    } else {
        full["versions"][&version].clone()
    };
    if !manifest.is_object() {
        return Err(NPM.malformed(format!("no document for version {version}")));
    }
    let time = &full["time"];
    let keywords = manifest["keywords"].as_array().map(|k| k.iter().filter_map(text).collect()).unwrap_or_default();
    Ok(NpmOutput {
        description: text(&manifest["description"]).or_else(|| text(&full["description"])),
        license: license_of(&manifest),
        homepage: text(&manifest["homepage"]),
        repository: repository_of(&manifest),
        keywords,
        dependencies_count: manifest["dependencies"].as_object().map_or(0, |d| d.len()),
        versions_count: versions.len(),
        dist_tags: tags.iter().filter_map(|(k, v)| Some((k.clone(), v.as_str()?.to_string()))).collect(),
        maintainers_count: full["maintainers"].as_array().or(manifest["maintainers"].as_array()).map(Vec::len),
        created: text(&time["created"]),
        modified: text(&time["modified"]).or_else(|| text(&full["modified"])),
        published: text(&time[&version]),
        deprecated: text(&manifest["deprecated"]),
        notes,
        name: text(&full["name"]).unwrap_or(name),
        version,
        source: NPM.name.to_string(),
        fetched_at: answer.fetched_at(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ask_for(ctx: &Ctx, name: &str) -> impl std::future::Future<Output = Result<NpmOutput, ApiError>> {
        npm_info(ctx, NpmInput { package: name.into() })
    }

    #[test]
    fn names_by_npms_rules() {
        assert_eq!(path_of("left-pad").unwrap(), "left-pad");
        assert_eq!(path_of("@types/node").unwrap(), "@types%2Fnode");
        assert_eq!(path_of("JSONStream").unwrap(), "JSONStream");
        for bad in ["", " x", ".hidden", "_under", "a b", "@scope", "@/x", "x/y", "ünïcode", "a?b"] {
            assert!(path_of(bad).is_err(), "{bad:?}");
        }
    }

    #[tokio::test]
    async fn versions_dates_and_counts_from_the_registry() {
        let ctx = crate::testing::fake_ctx(&[]);
        let p = ask_for(&ctx, "left-pad").await.unwrap();
        assert_eq!((p.version.as_str(), p.versions_count, p.dependencies_count), ("1.3.0", 3, 0));
        assert_eq!(p.deprecated.as_deref(), Some("use String.prototype.padStart()"));
        assert_eq!(p.license.as_deref(), Some("WTFPL"));
        assert_eq!(p.repository.as_deref(), Some("https://github.com/left-pad/left-pad"));
        assert_eq!(
            (p.created.as_deref(), p.published.as_deref()),
            (Some("2014-03-19T07:59:26.000Z"), Some("2018-04-09T01:46:29.000Z"))
        );
        let scoped = ask_for(&ctx, "@fixture/widgets").await.unwrap();
        assert_eq!((scoped.version.as_str(), scoped.dependencies_count), ("2.1.0", 2));
        // The scoped name travels as one path segment, as the registry expects.
        assert!(!wrench_fakes::live::requests("/npm/@fixture%2Fwidgets").is_empty());
        // The `latest` tag names a pre-release while stable versions exist: the highest stable.
        assert_eq!(ask_for(&ctx, "latest-is-rc").await.unwrap().version, "1.5.0");
        // Only pre-releases: the latest of them.
        assert_eq!(ask_for(&ctx, "prerelease-only").await.unwrap().version, "0.1.0-beta.2");
        let e = ask_for(&ctx, "no-such-package-fixture").await.unwrap_err();
        assert_eq!(e.code, ErrorCode::NotFound);
    }

    #[tokio::test]
    async fn a_document_over_the_limit_is_read_abbreviated_and_says_so() {
        let ctx = crate::testing::fake_ctx(&[]);
        let p = ask_for(&ctx, "giant-fixture").await.unwrap();
        assert_eq!((p.version.as_str(), p.versions_count, p.dependencies_count), ("3.0.0", 3, 1));
        assert_eq!((p.created, p.modified.as_deref()), (None, Some("2026-11-01T10:00:00.000Z")));
        assert!(p.notes[0].contains("over 8 MiB"), "{:?}", p.notes);
        let accepts: Vec<String> = wrench_fakes::live::requests("/npm/giant-fixture")
            .iter()
            .map(|r| format!("{} {}", r.path, r.header("accept").unwrap_or_default()))
            .collect();
        assert!(accepts.iter().any(|a| a.contains("vnd.npm.install-v1+json")), "{accepts:?}");
    }

    #[tokio::test]
    async fn without_a_registry_the_setting_is_named() {
        let ctx = crate::testing::fake_ctx(&[("WRENCH_PROVIDER_NPM_URL", "")]);
        let e = ask_for(&ctx, "left-pad").await.unwrap_err();
        assert_eq!(e.code, ErrorCode::ProviderNotConfigured);
        assert!(e.message.contains("WRENCH_PROVIDER_NPM_URL"), "{}", e.message);
    }
}
