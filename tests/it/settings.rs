//! The settings as people meet them: the README's tables list exactly the settings the
//! configuration structs declare, and the command line explains itself.

use std::{collections::BTreeSet, process::Command};

/// Every `WRENCH_*` name in the first cell of a README table row; `<NAME>` patterns stand for
/// every provider.
fn documented() -> BTreeSet<String> {
    let readme = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/README.md")).unwrap();
    let providers: BTreeSet<String> = wrench_infra::config::Config::variable_names()
        .into_iter()
        .filter_map(|n| n.strip_prefix("WRENCH_PROVIDER_").and_then(|r| r.rsplit_once('_')).map(|(p, _)| p.to_string()))
        .collect();
    let mut out = BTreeSet::new();
    for line in readme.lines().filter(|l| l.starts_with("| `WRENCH_")) {
        let cell = line.split('|').nth(1).unwrap();
        for name in cell.split('`').filter(|s| s.starts_with("WRENCH_")) {
            if name.contains("<NAME>") {
                for p in &providers {
                    out.insert(name.replace("<NAME>", p));
                }
            } else {
                out.insert(name.to_string());
            }
        }
    }
    out
}

#[test]
fn the_readme_lists_every_setting_and_nothing_else() {
    let mut declared: BTreeSet<String> = wrench_infra::config::Config::variable_names().into_iter().collect();
    // The file's path is read before the file, so it is no field; the README lists it.
    declared.insert("WRENCH_CONFIG".to_string());
    let documented = documented();
    assert!(declared.len() > 60, "{declared:?}");
    let undocumented: Vec<&String> = declared.difference(&documented).collect();
    let unknown: Vec<&String> = documented.difference(&declared).collect();
    assert!(undocumented.is_empty(), "settings the README does not list: {undocumented:?}");
    assert!(unknown.is_empty(), "README rows that are no setting: {unknown:?}");
}

fn wrench(args: &[&str], env: &[(&str, &str)]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_wrench")).args(args).envs(env.iter().copied()).output().unwrap();
    let text = |b: Vec<u8>| String::from_utf8(b).unwrap();
    (out.status.code().unwrap_or(-1), text(out.stdout), text(out.stderr))
}

#[test]
fn the_command_line_explains_itself_and_takes_flags_in_any_order() {
    let (code, help, _) = wrench(&["--help"], &[]);
    assert_eq!(code, 0);
    for word in ["serve", "mcp", "openapi", "data", "keys", "--config", "--version"] {
        assert!(help.contains(word), "{word} missing from:\n{help}");
    }
    let (code, help, _) = wrench(&["serve", "--help"], &[]);
    assert!(code == 0 && help.contains("--dev") && help.contains("--config"), "{help}");
    let (code, version, _) = wrench(&["--version"], &[]);
    assert!(code == 0 && version.starts_with(&format!("wrench {} (API ", env!("CARGO_PKG_VERSION"))), "{version}");
    // Flags in any order, --config on every command.
    let (a, first, _) = wrench(&["openapi", "--spec", "3.0", "--config", "/dev/null"], &[]);
    let (b, second, _) = wrench(&["--config", "/dev/null", "openapi", "--spec", "3.0"], &[]);
    assert!(a == 0 && b == 0 && first == second && first.contains("\"openapi\": \"3.0.3\""));
    let (code, _, err) = wrench(&["openapi", "--spec", "2.0"], &[]);
    assert!(code == 2 && err.contains("3.1") && err.contains("3.0"), "{err}");
    let (code, _, err) = wrench(&["openapi", "--dev"], &[]);
    assert_eq!(code, 2, "{err}");
    let (code, _, err) = wrench(&["sreve"], &[]);
    assert!(code == 2 && err.contains("serve"), "{err}");
}

#[test]
fn a_misspelt_variable_stops_the_server_naming_the_setting() {
    let (code, _, err) = wrench(&["serve"], &[("WRENCH_LISTN", "127.0.0.1:1")]);
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("WRENCH_LISTN: unknown setting; did you mean WRENCH_LISTEN?"), "{err}");
    let (code, _, err) = wrench(&["data"], &[("WRENCH_LISTN", "x"), ("WRENCH_ALLOW_UNKNOWN", "1")]);
    assert_eq!(code, 0, "{err}");
}
