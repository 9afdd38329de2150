//! Generates the registry of operations from the module tree under `ops/`.
//!
//! The walk starts at `lib.rs` and follows its `mod` lines, and those of every folder's
//! `mod.rs`, as deep as they go: a group folder (`lookups/`), a feature folder inside it
//! (`lookups/dns/`) and a file (`lookups/dns/records.rs`) are all just modules. Every
//! `#[op(...)]` function in a file the walk reaches is registered under the group of its first
//! folder. The result is one explicit list (no linker tricks, no life before main), so an
//! operation cannot be silently dropped: a `.rs` file the walk does not reach fails the build
//! with the `mod` line to add, a file that does not compile fails it too, and the checked-in
//! OpenAPI document plus the operation-count test catch anything else.

use std::{
    collections::BTreeSet,
    fmt::Write as _,
    fs,
    path::{Path, PathBuf},
};

/// What the walk found: a call per operation, and every file it reached.
#[derive(Default)]
struct Found {
    calls: Vec<String>,
    reached: BTreeSet<PathBuf>,
}

fn main() {
    let root = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").expect("cargo sets this"));
    // A directory here is scanned whole by cargo: any file added, changed or removed reruns this.
    println!("cargo:rerun-if-changed={}", root.display());
    let lib = root.join("lib.rs");
    let mut found = Found::default();
    found.reached.insert(lib.clone());
    found.reached.insert(root.join("build.rs"));
    walk(&root, &read(&lib), &[], &mut found);

    let mut missing = Vec::new();
    for file in rust_files(&root) {
        if !found.reached.contains(&file) {
            let rel = file.strip_prefix(&root).expect("under ops/");
            let (parent, name) = match rel.file_stem().and_then(|s| s.to_str()) {
                Some("mod") => (rel.parent().and_then(Path::parent), rel.parent().expect("a folder")),
                _ => (rel.parent(), rel),
            };
            let module = module_name(name);
            let holder = match parent {
                Some(p) if !p.as_os_str().is_empty() => format!("ops/{}/mod.rs", p.display()),
                _ => "ops/lib.rs".to_string(),
            };
            missing.push(format!("add `pub(crate) mod {module};` to {holder} (for ops/{})", rel.display()));
        }
    }
    if !missing.is_empty() {
        missing.sort();
        missing.dedup();
        panic!("files under ops/ that no `mod` line reaches:\n  {}", missing.join("\n  "));
    }
    let mut out = String::new();
    writeln!(out, "/// Every operation declared under `ops/`, in module order, with the group folder it is in.")
        .unwrap();
    writeln!(out, "pub(crate) fn placed() -> ::std::vec::Vec<(&'static str, wrench_contract::op::Operation)> {{")
        .unwrap();
    writeln!(out, "    ::std::vec![{}]", found.calls.join(",\n        ")).unwrap();
    writeln!(out, "}}").unwrap();
    let dest = PathBuf::from(std::env::var("OUT_DIR").expect("cargo sets this")).join("registry.rs");
    fs::write(dest, out).expect("writable OUT_DIR");
}

/// Follows the `mod` lines of `text` (the file of the module at `path`, whose children live in
/// `dir`): `name.rs` is a file module, `name/mod.rs` a folder module walked in turn. Operations
/// are registered under the group of their first folder.
fn walk(dir: &Path, text: &str, path: &[String], found: &mut Found) {
    for name in declared(text) {
        let (file, folder) = (dir.join(format!("{name}.rs")), dir.join(&name).join("mod.rs"));
        let module = [path, std::slice::from_ref(&name)].concat();
        let Some(source) = [&file, &folder].into_iter().find(|p| p.is_file()) else { continue };
        let text = read(source);
        found.reached.insert(source.clone());
        for f in op_functions(&text) {
            found.calls.push(format!("(\"{}\", {}::__op_{f}())", module[0], module.join("::")));
        }
        if *source == folder {
            walk(&dir.join(&name), &text, &module, found);
        }
    }
}

/// The names of the `mod name;` lines of a module file (any visibility, `cfg` or not).
fn declared(text: &str) -> Vec<String> {
    text.lines()
        .filter_map(|l| {
            let l = l.trim().strip_suffix(';')?;
            let (vis, name) = l.rsplit_once("mod ")?;
            let plain = vis.split_whitespace().all(|w| w == "pub" || w.starts_with("pub("));
            (plain && !name.trim().is_empty()).then(|| name.trim().to_string())
        })
        .collect()
}

/// Every `.rs` file under `dir`, sorted.
fn rust_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut entries: Vec<PathBuf> =
        fs::read_dir(dir).expect("readable ops folder").filter_map(|e| e.ok().map(|e| e.path())).collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            if path.file_name().is_some_and(|n| n != "target") {
                out.extend(rust_files(&path));
            }
        } else if path.extension().is_some_and(|x| x == "rs") {
            module_name(&path);
            out.push(path);
        }
    }
    out
}

fn read(path: &Path) -> String {
    fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn module_name(path: &Path) -> String {
    let stem = path.file_stem().and_then(|s| s.to_str()).expect("utf-8 file names under ops/");
    assert!(
        stem.chars().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_'),
        "ops/ file and folder names are snake_case module names: {}",
        path.display()
    );
    stem.to_string()
}

/// Names of the functions that follow an `#[op(` attribute.
fn op_functions(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut pending = false;
    for line in text.lines() {
        let t = line.trim_start();
        if t.starts_with("#[op(") {
            pending = true;
            continue;
        }
        if pending && let Some(i) = t.find("fn ") {
            let before = &t[..i];
            if before.split_whitespace().all(|w| matches!(w, "async" | "pub" | "pub(crate)")) {
                let name: String = t[i + 3..].chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
                out.push(name);
                pending = false;
            }
        }
    }
    out
}
