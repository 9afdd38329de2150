//! The crate is layered: config and time at the bottom, the store and the operation runtime
//! above them, HTTP on top, and no module reaches up. Read from the sources (every
//! `crate::module` a module's non-test code names), so an import circle fails here with the
//! modules that form it.

use std::{
    collections::{BTreeMap, BTreeSet},
    path::Path,
};

/// Top-level modules of `src/` and the top-level modules each names.
fn dependencies() -> BTreeMap<String, BTreeSet<String>> {
    let mut graph: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    let mut dirs = vec![src.clone()];
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                dirs.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") {
                files.push(path);
            }
        }
    }
    for path in files {
        let rel = path.strip_prefix(&src).unwrap();
        let top = rel.components().next().unwrap().as_os_str().to_string_lossy().trim_end_matches(".rs").to_string();
        // The crate root, the binary and test-only modules sit outside the layers.
        if ["lib", "main", "prelude", "testing", "op_fixtures"].contains(&top.as_str()) {
            continue;
        }
        let text = std::fs::read_to_string(&path).unwrap();
        let code = text.split("#[cfg(test)]\nmod tests").next().unwrap();
        let deps = graph.entry(top.clone()).or_default();
        for name in referenced(code) {
            if name != top && name != "self" {
                deps.insert(name);
            }
        }
    }
    graph
}

/// The first path segment after every `crate::`, including each item of `crate::{a, b::c}`.
fn referenced(code: &str) -> Vec<String> {
    let ident =
        |s: &str| -> String { s.trim_start().chars().take_while(|c| c.is_ascii_alphanumeric() || *c == '_').collect() };
    let mut out = Vec::new();
    let mut rest = code;
    while let Some(i) = rest.find("crate::") {
        rest = &rest[i + "crate::".len()..];
        if let Some(inner) = rest.strip_prefix('{') {
            let (mut depth, mut start, mut end) = (0usize, 0usize, inner.len());
            for (k, c) in inner.char_indices() {
                match c {
                    '{' => depth += 1,
                    '}' if depth == 0 => {
                        end = k;
                        break;
                    }
                    '}' => depth -= 1,
                    ',' if depth == 0 => {
                        out.push(ident(&inner[start..k]));
                        start = k + 1;
                    }
                    _ => {}
                }
            }
            out.push(ident(&inner[start..end]));
        } else {
            out.push(ident(rest));
        }
    }
    out.retain(|n| !n.is_empty());
    out
}

#[test]
fn no_module_reaches_up() {
    let graph = dependencies();
    assert!(graph.len() > 10, "the walk over src/ found too few modules: {graph:?}");
    // Peel off modules that depend on nothing left; whatever remains forms a circle.
    let mut left = graph.clone();
    let mut layers = Vec::new();
    while !left.is_empty() {
        let ready: Vec<String> = left
            .iter()
            .filter(|(_, deps)| deps.iter().all(|d| !left.contains_key(d)))
            .map(|(m, _)| m.clone())
            .collect();
        assert!(!ready.is_empty(), "an import circle among {:?}", left);
        for m in &ready {
            left.remove(m);
        }
        layers.push(ready);
    }
    eprintln!("layers, bottom first: {layers:?}");
    let depth = |m: &str| layers.iter().position(|l| l.iter().any(|x| x == m)).unwrap();
    for (low, high) in [("config", "store"), ("time", "store"), ("store", "op"), ("op", "http"), ("config", "http")] {
        assert!(depth(low) < depth(high), "{low} must sit below {high}: {layers:?}");
    }
    for (module, deps) in &graph {
        assert!(module == "http" || !deps.contains("http"), "{module} reaches up into http");
    }
}

#[test]
fn references_are_read_from_use_groups_too() {
    let code = "use crate::{config::Config, envelope::{ApiError, ErrorCode}, store};\nfn f() { crate::time::now(); }";
    assert_eq!(referenced(code), ["config", "envelope", "store", "time"]);
}
