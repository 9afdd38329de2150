//! `chmod` against GNU `chmod` itself: every symbolic change of a generated set applied to a
//! base mode, on a file and on a directory, in a shell whose umask is zero, and the mode `stat`
//! then reads (`%a`, `%A`) compared with what the operation answers.

use crate::common;
use crate::common::tools::{Scratch, client, have, lcg, output};

use serde_json::json;

#[tokio::test]
async fn chmod_answers_what_gnu_chmod_does() {
    if !have("chmod") || !have("stat") {
        return;
    }
    let cli = client();
    let dir = Scratch::new("chmod");
    let mut next = lcg(45);
    let whos = ["", "u", "g", "o", "a", "ug", "go", "uo"];
    let ops = ["+", "-", "="];
    let perms = ["r", "w", "x", "X", "rw", "rx", "wx", "rwx", "s", "t", "u", "g", "o", "", "rX", "xs", "wt"];
    let mut compared = 0;
    for case in 0..300 {
        let clauses: Vec<String> = (0..1 + next(2))
            .map(|_| format!("{}{}{}", whos[next(8) as usize], ops[next(3) as usize], perms[next(17) as usize]))
            .collect();
        let expr = clauses.join(",");
        let directory = case % 3 == 0;
        let base = format!("{:o}", next(0o1000));
        let path = dir.0.join(format!("t{case}"));
        let path = path.to_string_lossy().into_owned();
        let script = if directory {
            format!(
                "umask 000; mkdir '{path}' && chmod {base} '{path}' && chmod {expr} '{path}' && stat -c '%a %A' '{path}'"
            )
        } else {
            format!(
                "umask 000; : > '{path}' && chmod {base} '{path}' && chmod {expr} '{path}' && stat -c '%a %A' '{path}'"
            )
        };
        let (ok, said) = output(&["sh", "-c", &script], None);
        if !ok {
            continue; // an expression GNU chmod refuses (`o+s` alone is fine; some are not)
        }
        let said = String::from_utf8(said).unwrap();
        let (octal, ls) = said.trim().split_once(' ').unwrap();
        let (status, v) =
            common::post_json(&cli, "/v1/chmod", &json!({"mode": expr, "base": base, "directory": directory})).await;
        assert_eq!(status, 200, "{expr} on {base}: {}", v["error"]);
        assert_eq!(
            (u32::from_str_radix(v["data"]["octal"].as_str().unwrap(), 8).unwrap(), v["data"]["ls"].as_str().unwrap()),
            (u32::from_str_radix(octal, 8).unwrap(), ls),
            "chmod {expr} on {base} ({})",
            if directory { "directory" } else { "file" }
        );
        compared += 1;
    }
    assert!(compared > 250, "only {compared} expressions compared");
    eprintln!("chmod: {compared} symbolic changes answered as GNU chmod applies them");
}
