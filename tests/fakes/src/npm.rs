//! A fake npm registry under `/providers/npm/`: full package documents (`application/json`),
//! abbreviated ones (`application/vnd.npm.install-v1+json`) and version documents
//! (`/{name}/{version}`), in the registry's formats; scoped names arrive as `@scope%2Fname`.
//!
//! Packages: `left-pad` (three versions, the latest deprecated), `@fixture/widgets` (scoped,
//! two dependencies), `latest-is-rc` (the `latest` tag on a pre-release), `prerelease-only`,
//! and `giant-fixture`, whose full document is 17 MiB (a long readme), over what wrench reads.

const NOT_FOUND: &str = r#"{"error":"Not found"}"#;

fn manifest(name: &str, version: &str, extra: &str) -> String {
    format!(
        r#"{{"name":"{name}","version":"{version}","dist":{{"tarball":"https://registry.site.example/{name}/-/{version}.tgz"}}{extra}}}"#
    )
}

/// (name, full document's fields besides versions, versions with their extra fields).
fn package(name: &str) -> Option<(String, Vec<(&'static str, String)>)> {
    let p = match name {
        "left-pad" => (
            r#""dist-tags":{"latest":"1.3.0"},"description":"String left pad","maintainers":[{"name":"stevemao"}],"time":{"created":"2014-03-19T07:59:26.000Z","modified":"2022-06-19T11:41:06.000Z","1.0.0":"2014-03-19T07:59:26.000Z","1.2.0":"2017-11-23T03:31:14.000Z","1.3.0":"2018-04-09T01:46:29.000Z"}"#.to_string(),
            vec![
                ("1.0.0", String::new()),
                ("1.2.0", r#","license":"WTFPL""#.to_string()),
                ("1.3.0", r#","description":"String left pad","license":"WTFPL","keywords":["leftpad","left","pad","padding"],"repository":{"type":"git","url":"git+https://github.com/left-pad/left-pad.git"},"homepage":"https://github.com/left-pad/left-pad#readme","deprecated":"use String.prototype.padStart()","devDependencies":{"tape":"*"}"#.to_string()),
            ],
        ),
        "@fixture/widgets" => (
            r#""dist-tags":{"latest":"2.1.0","next":"3.0.0-alpha.1"},"maintainers":[{"name":"a"},{"name":"b"}],"time":{"created":"2024-01-02T03:04:05.000Z","modified":"2026-10-01T00:00:00.000Z","2.1.0":"2026-10-01T00:00:00.000Z"}"#.to_string(),
            vec![
                ("2.0.0", String::new()),
                ("2.1.0", r#","description":"Widgets for fixtures","license":{"type":"MIT"},"repository":"github:fixture/widgets","dependencies":{"a":"^1.0.0","b":"^2.0.0"},"peerDependencies":{"react":"*"}"#.to_string()),
                ("3.0.0-alpha.1", String::new()),
            ],
        ),
        "latest-is-rc" => (
            r#""dist-tags":{"latest":"2.0.0-rc.1"},"time":{"created":"2025-01-01T00:00:00.000Z","modified":"2026-01-01T00:00:00.000Z"}"#.to_string(),
            vec![("1.4.0", String::new()), ("1.5.0", r#","license":"ISC""#.to_string()), ("2.0.0-rc.1", String::new())],
        ),
        "prerelease-only" => (
            r#""dist-tags":{"latest":"0.1.0-beta.2"},"time":{"created":"2026-05-01T00:00:00.000Z","modified":"2026-06-01T00:00:00.000Z"}"#.to_string(),
            vec![("0.1.0-beta.1", String::new()), ("0.1.0-beta.2", String::new())],
        ),
        "giant-fixture" => (
            format!(
                r#""dist-tags":{{"latest":"3.0.0"}},"time":{{"created":"2015-01-01T00:00:00.000Z","modified":"2026-11-01T10:00:00.000Z"}},"readme":"{}""#,
                "x".repeat(17 * 1024 * 1024)
            ),
            vec![
                ("1.0.0", String::new()),
                ("2.0.0", String::new()),
                ("3.0.0", r#","license":"MIT","dependencies":{"tiny":"1"}"#.to_string()),
            ],
        ),
        _ => return None,
    };
    Some(p)
}

/// The answer to `/providers/npm/{path}` with the request's `Accept`.
pub fn route(path: &str, accept: Option<&str>) -> (u16, &'static str, String) {
    let json = "application/json";
    let decoded = path.replace("%2F", "/").replace("%2f", "/");
    // `@scope/name`, `name`, `@scope/name/version` or `name/version`.
    let parts: Vec<&str> = decoded.split('/').collect();
    let (name, version) = match (decoded.starts_with('@'), parts.len()) {
        (true, 2) | (false, 1) => (decoded.clone(), None),
        (true, 3) => (format!("{}/{}", parts[0], parts[1]), Some(parts[2])),
        (false, 2) => (parts[0].to_string(), Some(parts[1])),
        _ => return (404, json, NOT_FOUND.into()),
    };
    let Some((fields, versions)) = package(&name) else {
        return (404, json, NOT_FOUND.into());
    };
    if let Some(v) = version {
        return match versions.iter().find(|(n, _)| *n == v) {
            Some((n, extra)) => (200, json, manifest(&name, n, extra)),
            None => (404, json, format!(r#""version not found: {v}""#)),
        };
    }
    let abbreviated = accept.is_some_and(|a| a.contains("application/vnd.npm.install-v1+json"));
    let listed: Vec<String> =
        versions.iter().map(|(n, extra)| format!(r#""{n}":{}"#, manifest(&name, n, extra))).collect();
    if abbreviated {
        // Tags and versions only, and the time of the last change.
        let tags_end = fields.find("},").map_or(fields.len(), |i| i + 1);
        let modified = fields.split(r#""modified":""#).nth(1).and_then(|r| r.split('"').next()).unwrap_or_default();
        return (
            200,
            "application/vnd.npm.install-v1+json",
            format!(
                r#"{{"name":"{name}","modified":"{modified}",{},"versions":{{{}}}}}"#,
                &fields[..tags_end],
                listed.join(",")
            ),
        );
    }
    (200, json, format!(r#"{{"_id":"{name}","name":"{name}",{fields},"versions":{{{}}}}}"#, listed.join(",")))
}
