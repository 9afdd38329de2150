//! `text/compare-lists`: two lists compared as sets: what both hold, what either holds, what
//! one holds and the other does not.

use std::collections::HashSet;

use wrench_contract::prelude::*;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize, JsonSchema, Validate)]
#[serde(rename_all = "kebab-case")]
enum CompareMode {
    /// Items in both lists (`comm -12`).
    Intersection,
    /// Items in either list.
    Union,
    /// Items only in `a` (`comm -23`).
    AOnly,
    /// Items only in `b` (`comm -13`).
    BOnly,
    /// Items in exactly one of the lists.
    Symmetric,
}

/// A list: an array of strings, or a text whose lines are the items.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(untagged)]
enum ListInput {
    Items(#[schemars(length(max = 100000))] Vec<String>),
    Text(String),
}

impl Validate for ListInput {
    fn validate(&self, path: &str) -> Result<(), wrench_contract::validate::FieldError> {
        match self {
            ListInput::Items(items) => wrench_contract::validate::check_length(items, path, None, Some(100_000)),
            ListInput::Text(_) => Ok(()),
        }
    }
}

#[derive(Debug, Deserialize, JsonSchema, Validate)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct CompareListsInput {
    /// The first list: an array of up to 100,000 strings, or a text with one item a line.
    a: ListInput,
    /// The second list, in the same forms.
    b: ListInput,
    /// Which items to answer (default `intersection`).
    #[serde(default = "intersection")]
    mode: CompareMode,
    /// Items equal but for letter case (Unicode lower case) are the same item; the first
    /// spelling met is answered.
    #[serde(default)]
    ignore_case: bool,
    /// Remove whitespace at both ends of every item first (default true), and skip items
    /// left empty.
    #[serde(default = "yes")]
    trim: bool,
}

fn intersection() -> CompareMode {
    CompareMode::Intersection
}

fn yes() -> bool {
    true
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct ListCounts {
    /// Distinct items in `a`.
    a: usize,
    /// Distinct items in `b`.
    b: usize,
    /// Distinct items in both.
    both: usize,
    /// Distinct items only in `a`.
    a_only: usize,
    /// Distinct items only in `b`.
    b_only: usize,
}

#[derive(Debug, Serialize, JsonSchema)]
struct CompareListsOutput {
    /// The items of the mode, each once, in the order first met (`a`'s items, then `b`'s).
    items: Vec<String>,
    mode: CompareMode,
    counts: ListCounts,
}

/// A list's distinct items in order, as (key, spelling).
fn distinct(list: &ListInput, trim: bool, ignore_case: bool) -> Vec<(String, String)> {
    let raw: Vec<&str> = match list {
        ListInput::Items(items) => items.iter().map(String::as_str).collect(),
        ListInput::Text(text) => super::run::split_lines(text),
    };
    let mut seen = HashSet::new();
    let mut out = Vec::new();
    for item in raw {
        let item = if trim { item.trim() } else { item };
        if trim && item.is_empty() {
            continue;
        }
        let key = if ignore_case { item.to_lowercase() } else { item.to_string() };
        if seen.insert(key.clone()) {
            out.push((key, item.to_string()));
        }
    }
    out
}

/// Compare two lists: intersection, union, differences.
///
/// Takes two lists (arrays, or texts of one item a line) and answers the items of `mode`:
/// `intersection`, `union`, `a-only`, `b-only` or `symmetric`, each item once, in the order
/// first met, with the counts of every part. Items are trimmed first unless `trim` is false;
/// `ignoreCase` makes letter case not matter.
#[op(post "/v1/text/compare-lists" as textCompareLists, tag = TextAndData,
     example(intersection, {"a": ["alice", "bob", "carol"], "b": ["bob", "dave", "carol"]}),
     example(a_only_text, {"a": "alice\nbob\ncarol\n", "b": "Bob\n", "mode": "a-only", "ignoreCase": true}),
     example(unknown_mode, {"a": [], "b": [], "mode": "everything"}, status = 400))]
async fn text_compare_lists(input: CompareListsInput) -> Result<CompareListsOutput, ApiError> {
    let a = distinct(&input.a, input.trim, input.ignore_case);
    let b = distinct(&input.b, input.trim, input.ignore_case);
    let a_keys: HashSet<&str> = a.iter().map(|(k, _)| k.as_str()).collect();
    let b_keys: HashSet<&str> = b.iter().map(|(k, _)| k.as_str()).collect();
    let in_a = |k: &str| a_keys.contains(k);
    let in_b = |k: &str| b_keys.contains(k);
    let from_a = a.iter().filter(|(k, _)| match input.mode {
        CompareMode::Intersection => in_b(k),
        CompareMode::Union => true,
        CompareMode::AOnly | CompareMode::Symmetric => !in_b(k),
        CompareMode::BOnly => false,
    });
    let from_b = b.iter().filter(|(k, _)| match input.mode {
        CompareMode::BOnly | CompareMode::Union | CompareMode::Symmetric => !in_a(k),
        _ => false,
    });
    let items = from_a.chain(from_b).map(|(_, spelling)| spelling.clone()).collect();
    let both = a.iter().filter(|(k, _)| in_b(k)).count();
    let counts = ListCounts { a: a.len(), b: b.len(), both, a_only: a.len() - both, b_only: b.len() - both };
    Ok(CompareListsOutput { items, mode: input.mode, counts })
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    async fn compare(
        a: serde_json::Value,
        b: serde_json::Value,
        mode: &str,
        extra: serde_json::Value,
    ) -> CompareListsOutput {
        let mut body = json!({"a": a, "b": b, "mode": mode});
        body.as_object_mut().unwrap().extend(extra.as_object().unwrap().clone());
        text_compare_lists(serde_json::from_value(body).unwrap()).await.unwrap()
    }

    /// `comm -12`, `-23` and `-13` on sorted unique lists give the same items as the modes (in
    /// sorted order, as `comm` needs them; see tests/it/system_tools.rs for the run against
    /// `comm` itself), and Python's sets agree on the rest.
    #[tokio::test]
    async fn modes_are_set_operations() {
        let a = json!(["x", " y ", "z", "x", ""]);
        let b = json!("z\nw\ny\n");
        let out = compare(a.clone(), b.clone(), "intersection", json!({})).await;
        assert_eq!(out.items, ["y", "z"]);
        assert_eq!(
            (out.counts.a, out.counts.b, out.counts.both, out.counts.a_only, out.counts.b_only),
            (3, 3, 2, 1, 1)
        );
        assert_eq!(compare(a.clone(), b.clone(), "union", json!({})).await.items, ["x", "y", "z", "w"]);
        assert_eq!(compare(a.clone(), b.clone(), "a-only", json!({})).await.items, ["x"]);
        assert_eq!(compare(a.clone(), b.clone(), "b-only", json!({})).await.items, ["w"]);
        assert_eq!(compare(a.clone(), b.clone(), "symmetric", json!({})).await.items, ["x", "w"]);
        let untrimmed = compare(a, b, "a-only", json!({"trim": false})).await;
        assert_eq!(untrimmed.items, ["x", " y ", ""]);
        let folded =
            compare(json!(["Straße", "ABC"]), json!(["straße", "abd"]), "intersection", json!({"ignoreCase": true}))
                .await;
        assert_eq!(folded.items, ["Straße"]);
    }
}
