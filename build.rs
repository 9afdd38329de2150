//! Generates the registry of operations from the files under `ops/`.
//!
//! Each directory under `ops/` is a group module and each `.rs` file in it a module; every
//! `#[op(...)]` function in those files is registered. The result is one explicit, sorted list
//! (no linker tricks, no life before main), so an operation cannot be silently dropped: a file
//! that does not compile fails the build, and the checked-in OpenAPI document plus the
//! operation-count test catch anything else.

use std::{
    fmt::Write as _,
    fs,
    path::{Path, PathBuf},
};

/// One file under `ops/<group>/`: its module name, path and `#[op]` functions.
struct OpsFile {
    module: String,
    path: PathBuf,
    functions: Vec<String>,
}

fn main() {
    let root = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").expect("cargo sets this")).join("ops");
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
            modules.push(OpsFile { module: module_name(&file), path: file.clone(), functions: op_functions(&text) });
        }
        groups.push((group, modules));
    }

    let mut out = String::new();
    let mut calls = Vec::new();
    for (group, modules) in &groups {
        writeln!(out, "pub(crate) mod {group} {{").unwrap();
        for OpsFile { module, path, functions } in modules {
            writeln!(out, "    #[path = {:?}]\n    pub(crate) mod {module};", path.display().to_string()).unwrap();
            for f in functions {
                calls.push(format!("{group}::{module}::__op_{f}()"));
            }
        }
        writeln!(out, "}}").unwrap();
    }
    writeln!(out, "/// Every operation declared under `ops/`, in file order.").unwrap();
    writeln!(out, "pub(crate) fn all() -> ::std::vec::Vec<crate::op::Operation> {{").unwrap();
    writeln!(out, "    ::std::vec![{}]", calls.join(",\n        ")).unwrap();
    writeln!(out, "}}").unwrap();
    let dest = PathBuf::from(std::env::var("OUT_DIR").expect("cargo sets this")).join("ops.rs");
    fs::write(dest, out).expect("writable OUT_DIR");
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
