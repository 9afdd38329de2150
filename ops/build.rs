//! Generates the registry of operations from the files under `ops/`.
//!
//! Each directory under `ops/` is a group module and each `.rs` file in it a module, declared
//! by checked-in `mod` lines (`ops/mod.rs`, `ops/<group>/mod.rs`) so that rustfmt and readers
//! see them; every `#[op(...)]` function in those files is registered. The result is one
//! explicit list (no linker tricks, no life before main), so an operation cannot be silently
//! dropped: a file or group without its `mod` line fails the build with the line to add, a
//! file that does not compile fails it too, and the checked-in OpenAPI document plus the
//! operation-count test catch anything else.

use std::{
    fmt::Write as _,
    fs,
    path::{Path, PathBuf},
};

/// One file under `ops/<group>/`: its module name and `#[op]` functions.
struct OpsFile {
    module: String,
    functions: Vec<String>,
}

fn main() {
    let root = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").expect("cargo sets this"));
    println!("cargo:rerun-if-changed={}", root.display());
    let mut groups: Vec<(String, Vec<OpsFile>)> = Vec::new();
    let mut dirs: Vec<PathBuf> = fs::read_dir(&root)
        .expect("ops/ exists")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.is_dir())
        .collect();
    dirs.sort();
    for dir in dirs {
        println!("cargo:rerun-if-changed={}", dir.display());
        let group = module_name(&dir);
        let mut files: Vec<PathBuf> = fs::read_dir(&dir)
            .expect("readable ops group")
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|x| x == "rs"))
            .collect();
        files.sort();
        let mut modules = Vec::new();
        for file in files {
            println!("cargo:rerun-if-changed={}", file.display());
            let text = fs::read_to_string(&file).expect("readable ops file");
            modules.push(OpsFile { module: module_name(&file), functions: op_functions(&text) });
        }
        groups.push((group, modules));
    }

    let mut missing = Vec::new();
    let top = fs::read_to_string(root.join("lib.rs")).unwrap_or_default();
    let mut calls = Vec::new();
    for (group, modules) in &groups {
        if !declares(&top, group) {
            missing.push(format!("add `pub(crate) mod {group};` to ops/lib.rs"));
        }
        let group_mod = fs::read_to_string(root.join(group).join("mod.rs")).unwrap_or_default();
        for OpsFile { module, functions, .. } in modules {
            if module == "mod" {
                continue;
            }
            if !declares(&group_mod, module) {
                missing.push(format!("add `pub(crate) mod {module};` to ops/{group}/mod.rs"));
            }
            for f in functions {
                calls.push(format!("(\"{group}\", {group}::{module}::__op_{f}())"));
            }
        }
    }
    if !missing.is_empty() {
        panic!("files under ops/ that no `mod` line declares:\n  {}", missing.join("\n  "));
    }
    let mut out = String::new();
    writeln!(out, "/// Every operation declared under `ops/`, in file order, with the folder it is in.").unwrap();
    writeln!(out, "pub(crate) fn placed() -> ::std::vec::Vec<(&'static str, crate::op::Operation)> {{").unwrap();
    writeln!(out, "    ::std::vec![{}]", calls.join(",\n        ")).unwrap();
    writeln!(out, "}}").unwrap();
    let dest = PathBuf::from(std::env::var("OUT_DIR").expect("cargo sets this")).join("registry.rs");
    fs::write(dest, out).expect("writable OUT_DIR");
}

/// Whether `mod_rs` has a `mod name;` line (any visibility).
fn declares(mod_rs: &str, name: &str) -> bool {
    mod_rs.lines().any(|l| {
        let l = l.trim();
        l.strip_suffix(';').and_then(|l| l.rsplit_once("mod ")).is_some_and(|(vis, n)| {
            n.trim() == name && vis.split_whitespace().all(|w| w == "pub" || w.starts_with("pub("))
        })
    })
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
