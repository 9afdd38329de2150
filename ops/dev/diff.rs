//! Differences: line-by-line unified diffs of two texts, and structural differences of two
//! JSON objects.
//!
//! Text diffs use the Myers algorithm (similar) with a time budget: past it the diff is still
//! correct (applying it gives the modified text) but may be longer than the minimal one.

use std::time::Duration;

use similar::{ChangeTag, TextDiff};

use wrench_contract::prelude::*;
use wrench_infra::bounds::OutputBudget;
use wrench_kit::json_diff::{ChangeType, diff as json_diff};

/// How long the minimal-diff search may run before it settles for a coarser (still correct)
/// result.
const DIFF_BUDGET: Duration = Duration::from_secs(2);

#[derive(Debug, Deserialize, JsonSchema, Validate)]
#[serde(deny_unknown_fields)]
struct DiffInput {
    /// The original text.
    original: String,
    /// The modified text.
    modified: String,
    /// Unchanged lines shown around each change.
    #[serde(default = "three")]
    #[schemars(range(min = 0, max = 100))]
    context: u32,
}

fn three() -> u32 {
    3
}

#[derive(Debug, Serialize, JsonSchema, Clone, Copy, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
enum LineKind {
    Context,
    Added,
    Removed,
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct DiffLine {
    /// context, added or removed.
    #[serde(rename = "type")]
    kind: LineKind,
    /// The line without its line break.
    content: String,
    /// 1-based line number in the original; null for added lines.
    old_line: Option<usize>,
    /// 1-based line number in the modified text; null for removed lines.
    new_line: Option<usize>,
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct Hunk {
    /// The unified-diff hunk header, `@@ -l,s +l,s @@`.
    header: String,
    /// First original line covered (1-based; the line before, 0 at the start, when empty).
    old_start: usize,
    /// Original lines covered.
    old_lines: usize,
    /// First modified line covered.
    new_start: usize,
    /// Modified lines covered.
    new_lines: usize,
    /// The lines of the hunk.
    lines: Vec<DiffLine>,
}

#[derive(Debug, Serialize, JsonSchema)]
struct DiffStats {
    /// Lines added.
    additions: usize,
    /// Lines removed.
    deletions: usize,
    /// Lines unchanged.
    unchanged: usize,
}

#[derive(Debug, Serialize, JsonSchema)]
struct DiffOutput {
    /// Whether the texts are equal.
    identical: bool,
    /// The unified diff (`--- original` / `+++ modified` headers, then hunks), as `diff -u`
    /// prints it; empty when identical. `patch` applies it.
    unified: String,
    /// The same hunks, structured.
    hunks: Vec<Hunk>,
    /// Line counts.
    stats: DiffStats,
    /// Similarity of the two texts, 0-1.
    similarity: f64,
}

/// Line-by-line unified diff of two texts.
///
/// Myers' algorithm over lines; `context` (0-100, default 3) unchanged lines around each
/// change. The unified text uses the `--- original` / `+++ modified` headers and `@@` hunk
/// headers and marks a missing final line break with `\ No newline at end of file`, so `patch`
/// and `git apply` take it. The search for the shortest diff is bounded at 2 seconds; past
/// that the diff is still exact but may not be minimal.
#[op(post "/v1/diff" as textDiff, tag = DeveloperUtilities,
     example(one_change, {"original": "alpha\nbeta\ngamma\n", "modified": "alpha\nBETA\ngamma\ndelta\n"}),
     example(identical, {"original": "same\n", "modified": "same\n"}),
     example(no_final_newline, {"original": "a\nb", "modified": "a\nc", "context": 0}),
     cpu)]
async fn text_diff(ctx: &Ctx, input: DiffInput) -> Result<DiffOutput, ApiError> {
    let diff = TextDiff::configure().timeout(DIFF_BUDGET).diff_lines(&input.original, &input.modified);
    let identical = input.original == input.modified;
    // Every shown line appears twice (in `unified` and in `hunks`, with its numbers), and
    // short lines cost more in punctuation than in text: count before building.
    let mut budget = OutputBudget::new(ctx.config.response_limit);
    for group in diff.grouped_ops(input.context as usize) {
        budget.add(160)?;
        for op in &group {
            for change in diff.iter_changes(op) {
                let line = change.value().as_bytes();
                budget.add(2 * wrench_infra::bounds::json_escaped_len(line) + 72)?;
            }
        }
    }
    let unified = if identical {
        String::new()
    } else {
        diff.unified_diff().context_radius(input.context as usize).header("original", "modified").to_string()
    };
    let mut stats = DiffStats { additions: 0, deletions: 0, unchanged: 0 };
    for change in diff.iter_all_changes() {
        match change.tag() {
            ChangeTag::Equal => stats.unchanged += 1,
            ChangeTag::Insert => stats.additions += 1,
            ChangeTag::Delete => stats.deletions += 1,
        }
    }
    let mut hunks = Vec::new();
    for group in diff.grouped_ops(input.context as usize) {
        let (Some(first), Some(last)) = (group.first(), group.last()) else { continue };
        let (old_start, old_end) = (first.old_range().start, last.old_range().end);
        let (new_start, new_end) = (first.new_range().start, last.new_range().end);
        let mut lines = Vec::new();
        for op in &group {
            for change in diff.iter_changes(op) {
                lines.push(DiffLine {
                    kind: match change.tag() {
                        ChangeTag::Equal => LineKind::Context,
                        ChangeTag::Insert => LineKind::Added,
                        ChangeTag::Delete => LineKind::Removed,
                    },
                    content: change.value().trim_end_matches(['\n', '\r']).to_string(),
                    old_line: change.old_index().map(|i| i + 1),
                    new_line: change.new_index().map(|i| i + 1),
                });
            }
        }
        // Unified-diff numbering: an empty range names the line before it.
        let start = |s: usize, len: usize| if len == 0 { s } else { s + 1 };
        hunks.push(Hunk {
            header: similar::udiff::UnifiedHunkHeader::new(&group).to_string(),
            old_start: start(old_start, old_end - old_start),
            old_lines: old_end - old_start,
            new_start: start(new_start, new_end - new_start),
            new_lines: new_end - new_start,
            lines,
        });
    }
    Ok(DiffOutput { identical, similarity: (diff.ratio() as f64 * 10_000.0).round() / 10_000.0, unified, hunks, stats })
}

#[derive(Debug, Deserialize, JsonSchema, Validate)]
#[serde(deny_unknown_fields)]
struct JsonObjectDiffInput {
    /// The original object.
    original: serde_json::Map<String, Value>,
    /// The modified object.
    modified: serde_json::Map<String, Value>,
}

#[derive(Debug, Serialize, JsonSchema)]
struct Added {
    /// Where, from the root `$`: `$.a.b[0]`, `$['key with spaces']`.
    path: String,
    /// The new value.
    value: Value,
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct Changed {
    /// Where, from the root `$`.
    path: String,
    /// The value in `original`.
    old_value: Value,
    /// The value in `modified`.
    new_value: Value,
}

#[derive(Debug, Serialize, JsonSchema)]
struct JsonChangeCounts {
    additions: usize,
    deletions: usize,
    changes: usize,
}

#[derive(Debug, Serialize, JsonSchema)]
struct JsonObjectDiffOutput {
    /// Whether the two are equal as JSON values (`1` equals `1.0`; key order does not count).
    identical: bool,
    /// Paths present only in `modified`.
    additions: Vec<Added>,
    /// Paths present only in `original` (the value is the removed one).
    deletions: Vec<Added>,
    /// Paths present in both with different values (including a change of type).
    changes: Vec<Changed>,
    /// How many of each.
    summary: JsonChangeCounts,
}

/// Structural differences of two JSON objects.
///
/// Objects are compared key by key and arrays index by index, recursively; a value whose type
/// changed is one change at its path. Paths are JSONPath-like from `$`. Key order never counts;
/// numbers compare by value.
#[op(post "/v1/diff/json" as jsonObjectDiff, tag = DeveloperUtilities,
     example(typical, {"original": {"name": "wrench", "version": 1, "tags": ["a", "b"]},
                       "modified": {"name": "wrench", "version": 2, "tags": ["a"], "license": "MIT"}}),
     example(identical, {"original": {"a": 1, "b": 2}, "modified": {"b": 2, "a": 1.0}}),
     example(not_objects, {"original": [1], "modified": {}}, status = 400),
     cpu)]
async fn json_object_diff(ctx: &Ctx, input: JsonObjectDiffInput) -> Result<JsonObjectDiffOutput, ApiError> {
    let mut found = Vec::new();
    let mut budget = OutputBudget::new(ctx.config.response_limit);
    json_diff("$", &Value::Object(input.original), &Value::Object(input.modified), &mut found, &mut budget)?;
    let (mut additions, mut deletions, mut changes) = (Vec::new(), Vec::new(), Vec::new());
    for d in found {
        match d.kind {
            ChangeType::Added => additions.push(Added { path: d.path, value: d.new_value.unwrap_or(Value::Null) }),
            ChangeType::Removed => deletions.push(Added { path: d.path, value: d.old_value.unwrap_or(Value::Null) }),
            ChangeType::Changed => changes.push(Changed {
                path: d.path,
                old_value: d.old_value.unwrap_or(Value::Null),
                new_value: d.new_value.unwrap_or(Value::Null),
            }),
        }
    }
    Ok(JsonObjectDiffOutput {
        identical: additions.is_empty() && deletions.is_empty() && changes.is_empty(),
        summary: JsonChangeCounts { additions: additions.len(), deletions: deletions.len(), changes: changes.len() },
        additions,
        deletions,
        changes,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    async fn unified(original: &str, modified: &str, context: u32) -> DiffOutput {
        let ctx = Ctx::for_tests();
        text_diff(&ctx, DiffInput { original: original.into(), modified: modified.into(), context }).await.unwrap()
    }

    /// Texts with insertions, deletions, moves, blank lines and missing final newlines.
    fn cases() -> Vec<(String, String)> {
        let long: String = (1..=200).map(|i| format!("line {i}\n")).collect();
        let edited = long.replace("line 5\n", "").replace("line 100\n", "line 100 changed\n") + "tail";
        vec![
            ("a\nb\nc\n".into(), "a\nc\nd\n".into()),
            ("".into(), "new\nfile\n".into()),
            ("gone\n".into(), "".into()),
            ("x\ny".into(), "x\ny\n".into()),
            ("1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n".into(), "0\n1\n2\n3\n4\n5\n6\n7\n8\n9\n".into()),
            ("\n\n\nsame\n\n".into(), "\nsame\n\n\n\n".into()),
            (long, edited),
        ]
    }

    #[tokio::test]
    async fn gnu_patch_applies_the_unified_diff() {
        // An independent consumer of the format: GNU patch must turn original into modified.
        if std::process::Command::new("patch").arg("--version").output().is_err() {
            eprintln!("skipped: no `patch` program on this machine");
            return;
        }
        let dir = std::env::temp_dir().join(format!("wrench-diff-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        for (i, (a, b)) in cases().into_iter().enumerate() {
            for context in [0, 3] {
                let out = unified(&a, &b, context).await;
                let file = dir.join(format!("case{i}-{context}"));
                std::fs::write(&file, &a).unwrap();
                let status = std::process::Command::new("patch")
                    .args(["--quiet", "--force", "--no-backup-if-mismatch"])
                    .arg(&file)
                    .stdin(std::process::Stdio::piped())
                    .spawn()
                    .and_then(|mut child| {
                        use std::io::Write;
                        child.stdin.take().unwrap().write_all(out.unified.as_bytes())?;
                        child.wait()
                    })
                    .unwrap();
                assert!(status.success(), "patch failed on case {i}:\n{}", out.unified);
                assert_eq!(std::fs::read_to_string(&file).unwrap(), b, "case {i}, context {context}");
            }
        }
        std::fs::remove_dir_all(&dir).ok();
    }

    #[tokio::test]
    async fn structured_hunks_rebuild_the_modified_text() {
        for (a, b) in cases() {
            let out = unified(&a, &b, 2).await;
            let old: Vec<&str> = a.lines().collect();
            let mut rebuilt: Vec<String> = Vec::new();
            let mut next_old = 1;
            for h in &out.hunks {
                let first_old = if h.old_lines == 0 { h.old_start + 1 } else { h.old_start };
                rebuilt.extend(old[next_old - 1..first_old - 1].iter().map(|s| s.to_string()));
                next_old = first_old + h.old_lines;
                for l in &h.lines {
                    if l.kind != LineKind::Removed {
                        rebuilt.push(l.content.clone());
                    }
                }
                assert_eq!(h.lines.iter().filter(|l| l.kind != LineKind::Added).count(), h.old_lines);
                assert_eq!(h.lines.iter().filter(|l| l.kind != LineKind::Removed).count(), h.new_lines);
            }
            rebuilt.extend(old[(next_old - 1).min(old.len())..].iter().map(|s| s.to_string()));
            assert_eq!(rebuilt, b.lines().collect::<Vec<_>>());
            assert_eq!(out.stats.unchanged + out.stats.deletions, a.lines().count());
            assert_eq!(out.stats.unchanged + out.stats.additions, b.lines().count());
        }
    }

    #[tokio::test]
    async fn hunk_headers_are_those_of_diff_u() {
        // As GNU diff -u prints them for the same inputs.
        let out = unified("a\nb\nc\n", "a\nc\nd\n", 3).await;
        assert_eq!(out.unified, "--- original\n+++ modified\n@@ -1,3 +1,3 @@\n a\n-b\n c\n+d\n");
        let out = unified("", "x\n", 3).await;
        assert_eq!(out.hunks[0].header, "@@ -0,0 +1 @@");
        assert_eq!(
            unified("x", "y", 3).await.unified,
            "--- original\n+++ modified\n@@ -1 +1 @@\n-x\n\\ No newline at end of file\n+y\n\\ No newline at end of file\n"
        );
    }

    #[tokio::test]
    async fn json_differences_are_classified_with_paths() {
        let out = json_object_diff(
            &Ctx::for_tests(),
            JsonObjectDiffInput {
                original: serde_json::from_value(json!({"a": 1, "b": {"c": [1, 2]}, "gone": true, "t": "1"})).unwrap(),
                modified: serde_json::from_value(json!({"a": 1.0, "b": {"c": [1, 3, 4]}, "t": 1, "new key": null}))
                    .unwrap(),
            },
        )
        .await
        .unwrap();
        let adds: Vec<&str> = out.additions.iter().map(|a| a.path.as_str()).collect();
        let dels: Vec<&str> = out.deletions.iter().map(|a| a.path.as_str()).collect();
        let changes: Vec<&str> = out.changes.iter().map(|a| a.path.as_str()).collect();
        assert_eq!(adds, ["$.b.c[2]", "$['new key']"]);
        assert_eq!(dels, ["$.gone"]);
        assert_eq!(changes, ["$.b.c[1]", "$.t"]);
        assert!(!out.identical);
    }
}
