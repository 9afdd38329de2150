//! The workspace is layered, and Cargo enforces it: a crate can only name the crates it
//! depends on, and Cargo refuses a circle among them. What Cargo cannot know is which way the
//! edges are meant to point, so the first test pins the layers: each crate may depend only on
//! crates of a lower layer. Inside each crate, top-level modules form layers too: the second
//! test reads every `crate::module` a module's non-test code names and fails on a circle with
//! the modules that form it, and operation groups never name each other (what two groups share
//! belongs in `wrench-kit`).

use std::{
    collections::{BTreeMap, BTreeSet},
    path::{Path, PathBuf},
};

/// The workspace's crates, bottom layer first, with the folder of each.
const LAYERS: &[&[(&str, &str)]] = &[
    &[("wrench-path-template", "crates/path_template"), ("wrench-fakes", "tests/fakes")],
    &[("wrench-infra", "crates/infra"), ("wrench-macros", "macros")],
    &[("wrench-contract", "crates/contract")],
    &[("wrench-kit", "crates/kit"), ("wrench-server", "crates/server")],
    &[("wrench-ops", "ops")],
    &[("wrench", ".")],
];

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Every package a manifest lists in `section` (`dependencies` or `dev-dependencies`).
fn section_deps(manifest: &str, section: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    let mut inside = false;
    for line in manifest.lines() {
        let line = line.trim();
        if line.starts_with('[') {
            inside = line == format!("[{section}]");
            continue;
        }
        let name: String = line.chars().take_while(|c| c.is_ascii_alphanumeric() || *c == '-' || *c == '_').collect();
        if inside && !name.is_empty() {
            out.insert(name);
        }
    }
    out
}

/// The `wrench*` packages a manifest lists in `section`.
fn workspace_deps(manifest: &str, section: &str) -> BTreeSet<String> {
    section_deps(manifest, section).into_iter().filter(|name| name.starts_with("wrench")).collect()
}

#[test]
fn every_crate_depends_only_on_lower_layers() {
    let layer_of: BTreeMap<&str, usize> =
        LAYERS.iter().enumerate().flat_map(|(i, l)| l.iter().map(move |(name, _)| (*name, i))).collect();
    // Every member of the workspace has a place in the layers.
    let manifest = std::fs::read_to_string(root().join("Cargo.toml")).unwrap();
    let members = manifest.lines().find(|l| l.starts_with("members")).expect("a members list");
    for (_, dir) in LAYERS.iter().flat_map(|l| l.iter()) {
        assert!(*dir == "." || members.contains(&format!("\"{dir}\"")), "{dir} is not a workspace member");
    }
    assert_eq!(members.matches('"').count() / 2 + 1, layer_of.len(), "a workspace member has no layer: {members}");
    for (layer, crates) in LAYERS.iter().enumerate() {
        for (name, dir) in *crates {
            let text = std::fs::read_to_string(root().join(dir).join("Cargo.toml")).unwrap();
            // Tests' dependencies point down too: a test-only edge up would close a circle
            // among the test builds (the operations' tests once needed the whole binary).
            for section in ["dependencies", "dev-dependencies"] {
                for dep in workspace_deps(&text, section) {
                    let below = layer_of.get(dep.as_str()).unwrap_or_else(|| panic!("{name} depends on unknown {dep}"));
                    assert!(
                        *below < layer,
                        "{name} (layer {layer}) has {dep} (layer {below}) in [{section}], which is not below it"
                    );
                }
            }
        }
    }
    // The server knows no operation: the binary hands it the registry of wrench-ops.
    let server = std::fs::read_to_string(root().join("crates/server/Cargo.toml")).unwrap();
    for dep in ["wrench-kit", "wrench-ops"] {
        assert!(!workspace_deps(&server, "dependencies").contains(dep), "the server depends on {dep}");
    }
}

/// The HTTP framework and the writing of answers belong to the server: every other crate
/// speaks in operations, errors and `http` types, and only tests may drive a poem app.
#[test]
fn poem_is_the_servers_alone() {
    for (name, dir) in LAYERS.iter().flat_map(|l| l.iter()) {
        let text = std::fs::read_to_string(root().join(dir).join("Cargo.toml")).unwrap();
        let uses = section_deps(&text, "dependencies").contains("poem");
        assert_eq!(uses, *name == "wrench-server", "{name}: poem in [dependencies] is {uses}");
    }
    // The check reads what it should: the server's test helpers also list it for tests.
    let server = std::fs::read_to_string(root().join("crates/server/Cargo.toml")).unwrap();
    assert!(section_deps(&server, "dev-dependencies").contains("poem"));
}

/// Every `.rs` file under `dir`, with its top-level module (the first component below `dir`).
fn sources(dir: &Path) -> Vec<(String, PathBuf)> {
    let mut files = Vec::new();
    let mut dirs = vec![dir.to_path_buf()];
    while let Some(d) = dirs.pop() {
        for entry in std::fs::read_dir(&d).unwrap() {
            let path = entry.unwrap().path();
            let name = path.file_name().unwrap().to_string_lossy().to_string();
            if path.is_dir() && !["target", "snapshots"].contains(&name.as_str()) {
                dirs.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") {
                let rel = path.strip_prefix(dir).unwrap();
                let top =
                    rel.components().next().unwrap().as_os_str().to_string_lossy().trim_end_matches(".rs").to_string();
                files.push((top, path));
            }
        }
    }
    files
}

/// Top-level modules of the crate whose sources are in `dir`, and the top-level modules each
/// names in its non-test code (by `crate::`, or by `super::` past its own top). The crate root
/// and test-only modules sit outside the layers.
fn dependencies(dir: &Path) -> BTreeMap<String, BTreeSet<String>> {
    let mut graph: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (top, path) in sources(dir) {
        if ["lib", "main", "mod", "build", "prelude", "testing", "op_fixtures", "expansion_tests"]
            .contains(&top.as_str())
        {
            continue;
        }
        let text = std::fs::read_to_string(&path).unwrap();
        let code = text.split("#[cfg(test)]\nmod tests").next().unwrap();
        let deps = graph.entry(top.clone()).or_default();
        for named in named_paths(code, &module_of(dir, &path)) {
            if let Some(name) = named.into_iter().next()
                && name != top
                && name != "self"
            {
                deps.insert(name);
            }
        }
    }
    graph
}

/// The modules of `graph` in layers, bottom first; panics naming a circle.
fn layered(what: &str, graph: &BTreeMap<String, BTreeSet<String>>) -> Vec<Vec<String>> {
    // Peel off modules that depend on nothing left; whatever remains forms a circle.
    let mut left = graph.clone();
    let mut layers = Vec::new();
    while !left.is_empty() {
        let ready: Vec<String> = left
            .iter()
            .filter(|(_, deps)| deps.iter().all(|d| !left.contains_key(d)))
            .map(|(m, _)| m.clone())
            .collect();
        assert!(!ready.is_empty(), "an import circle in {what} among {left:?}");
        for m in &ready {
            left.remove(m);
        }
        layers.push(ready);
    }
    layers
}

#[test]
fn no_module_reaches_up_in_any_crate() {
    for (name, dir) in LAYERS.iter().flat_map(|l| l.iter()) {
        let src = if *name == "wrench-ops" { root().join(dir) } else { root().join(dir).join("src") };
        let graph = dependencies(&src);
        // wrench-path-template is one file; every other crate has modules to walk.
        assert!(
            !graph.is_empty() || *name == "wrench-path-template",
            "the walk over {} found no modules",
            src.display()
        );
        let layers = layered(name, &graph);
        eprintln!("{name}, bottom first: {layers:?}");
        if *name == "wrench-infra" {
            let depth = |m: &str| layers.iter().position(|l| l.iter().any(|x| x == m)).unwrap();
            for (low, high) in [("envelope", "store"), ("time", "store"), ("config", "store"), ("store", "rate")] {
                assert!(depth(low) < depth(high), "{low} must sit below {high}: {layers:?}");
            }
        }
    }
}

/// The module path of each `.rs` file under `dir` (`a/b.rs` and `a/b/mod.rs` are `a::b`; the
/// crate root is the empty path).
fn file_modules(dir: &Path) -> BTreeMap<Vec<String>, PathBuf> {
    let mut out = BTreeMap::new();
    for (_, path) in sources(dir) {
        let module = module_of(dir, &path);
        if module == ["build"] {
            continue;
        }
        out.insert(module, path);
    }
    out
}

/// The module path of the file at `path` under `dir`.
fn module_of(dir: &Path, path: &Path) -> Vec<String> {
    let rel = path.strip_prefix(dir).unwrap().with_extension("");
    let mut parts: Vec<String> = rel.components().map(|c| c.as_os_str().to_string_lossy().to_string()).collect();
    if matches!(parts.last().map(String::as_str), Some("mod" | "lib" | "main")) {
        parts.pop();
    }
    parts
}

/// Every path a file's non-test code names from `crate::`, `super::` or `self::`, absolute
/// (each item of a `{a, b::c}` group apart), as segments.
fn named_paths(code: &str, module: &[String]) -> Vec<Vec<String>> {
    let mut out = Vec::new();
    let bytes = code.as_bytes();
    let mut i = 0;
    while i < code.len() {
        let rest = &code[i..];
        let starts = ["crate::", "super::", "self::"];
        let Some(head) = starts.iter().find(|h| rest.starts_with(**h)) else {
            i += rest.chars().next().map_or(1, char::len_utf8);
            continue;
        };
        if i > 0 && (bytes[i - 1].is_ascii_alphanumeric() || bytes[i - 1] == b'_' || bytes[i - 1] == b':') {
            i += head.len();
            continue;
        }
        // The module a relative path starts from: a file `a/b.rs` is module a::b, whose
        // `super` is a; `self` is the module itself.
        let mut base: Vec<String> = match *head {
            "crate::" => vec![],
            "self::" => module.to_vec(),
            _ => module[..module.len().saturating_sub(1)].to_vec(),
        };
        let mut j = i + head.len();
        while code[j..].starts_with("super::") {
            base.pop();
            j += "super::".len();
        }
        let (paths, end) = path_items(&code[j..]);
        for p in paths {
            let mut full = base.clone();
            full.extend(p);
            out.push(full);
        }
        i = j + end.max(1);
    }
    out
}

/// The paths at the start of `s` (`a::b`, `a::{b, c::d}`), as segments, and where they end.
fn path_items(s: &str) -> (Vec<Vec<String>>, usize) {
    let mut segs = Vec::new();
    let mut k = 0;
    loop {
        let ident: String = s[k..].chars().take_while(|c| c.is_ascii_alphanumeric() || *c == '_').collect();
        if ident.is_empty() {
            if s[k..].starts_with('{') {
                // A group: each top-level item is a path of its own after the prefix.
                let mut out = Vec::new();
                let mut depth = 0usize;
                let mut start = k + 1;
                let mut end = s.len();
                for (n, c) in s[k + 1..].char_indices() {
                    let at = k + 1 + n;
                    match c {
                        '{' => depth += 1,
                        '}' if depth == 0 => {
                            end = at;
                            break;
                        }
                        '}' => depth -= 1,
                        ',' if depth == 0 => {
                            let (inner, _) = path_items(s[start..at].trim_start());
                            out.extend(inner.into_iter().map(|p| [segs.clone(), p].concat()));
                            start = at + 1;
                        }
                        _ => {}
                    }
                }
                let (inner, _) = path_items(s[start..end].trim_start());
                out.extend(inner.into_iter().map(|p| [segs.clone(), p].concat()));
                return (out, end + 1);
            }
            return (vec![segs], k);
        }
        k += ident.len();
        segs.push(ident);
        if s[k..].starts_with("::") {
            k += 2;
        } else {
            return (vec![segs], k);
        }
    }
}

/// Files in no circle: in every crate, the graph of its files (an edge from a file to the file
/// of each module it names, its own ancestors aside, since a parent declares its children and
/// holds what they share) has no circle, so each file reads without the files that read it.
#[test]
fn no_files_name_each_other_in_a_circle() {
    for (name, dir) in LAYERS.iter().flat_map(|l| l.iter()) {
        let src = if *name == "wrench-ops" { root().join(dir) } else { root().join(dir).join("src") };
        let modules = file_modules(&src);
        let mut graph: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
        for (module, path) in &modules {
            let text = std::fs::read_to_string(path).unwrap();
            let code = text.split("#[cfg(test)]\nmod tests").next().unwrap();
            let me = module.join("::");
            let deps = graph.entry(me.clone()).or_default();
            for named in named_paths(code, module) {
                // The deepest module the path reaches is the file it names.
                let target = (0..=named.len()).rev().map(|n| &named[..n]).find(|p| modules.contains_key(*p));
                let Some(target) = target else { continue };
                if target.len() <= module.len() && module.starts_with(target) {
                    continue; // itself or an ancestor
                }
                deps.insert(target.join("::"));
            }
        }
        layered(&format!("{name}'s files"), &graph);
    }
}

/// Each folder of `ops/` is one tag's group of operations; what two groups share is a library
/// in `wrench-kit`, so no group names another.
#[test]
fn operation_groups_never_name_each_other() {
    let graph = dependencies(&root().join("ops"));
    let groups: BTreeSet<&String> = graph.keys().collect();
    assert_eq!(groups.len(), 7, "one folder per tag: {groups:?}");
    for (group, deps) in &graph {
        let named: Vec<&String> = deps.iter().filter(|d| groups.contains(d)).collect();
        assert!(named.is_empty(), "ops/{group} names the groups {named:?}");
    }
}

#[test]
fn references_are_read_from_use_groups_too() {
    let code = "use crate::{config::Config, envelope::{ApiError, ErrorCode}, store};\nfn f() { crate::time::now(); }";
    let got: Vec<String> = named_paths(code, &[]).iter().map(|p| p.join("::")).collect();
    assert_eq!(got, ["config::Config", "envelope::ApiError", "envelope::ErrorCode", "store", "time::now"]);
}

#[test]
fn named_paths_are_resolved_from_the_file_that_names_them() {
    let module: Vec<String> = ["store", "embedded", "log"].map(String::from).to_vec();
    let code = "use super::{values::{VALUES, live}, file::db_err};\nuse crate::time;\nlet x = self::inner::f();";
    let got: Vec<String> = named_paths(code, &module).iter().map(|p| p.join("::")).collect();
    assert_eq!(
        got,
        [
            "store::embedded::values::VALUES",
            "store::embedded::values::live",
            "store::embedded::file::db_err",
            "time",
            "store::embedded::log::inner::f"
        ]
    );
}

/// Each provider is declared once, in `crates/infra/src/providers.rs`: elsewhere a `Provider`
/// is only ever a variant of a declared one (`Provider { cache_for: ..., ..COINGECKO }`), which
/// keeps its id, and so its settings, budget and cache.
#[test]
fn providers_are_declared_once() {
    let mut variants = 0;
    for dir in ["ops", "crates", "src"] {
        for (_, path) in sources(&root().join(dir)) {
            if path.ends_with("crates/infra/src/providers.rs") {
                continue;
            }
            let code = std::fs::read_to_string(&path).unwrap();
            for (at, _) in code.match_indices("Provider {") {
                if code[..at].ends_with("impl ") {
                    continue;
                }
                let literal = &code[at..at + code[at..].find('}').expect("a closing brace")];
                assert!(
                    literal.contains("..") && !literal.contains("id:"),
                    "{}: a provider declared outside providers.rs: {literal}",
                    path.display()
                );
                variants += 1;
            }
        }
    }
    assert!(variants >= 1, "the check reads the variants it allows");
}
