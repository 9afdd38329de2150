//! `json/patch` (RFC 6902 JSON Patch) and `json/merge-patch` (RFC 7396 JSON Merge Patch): a
//! document changed by a patch, all or nothing.
//!
//! A JSON Patch's `copy` can double a document with each operation, so the size of what the
//! operations add is counted before each is applied and the result kept within [`MAX_RESULT`].

use json_patch::PatchOperation;
use serde_json::Value;

use wrench_contract::prelude::*;

use super::query_bounds::json_size;

/// The largest patched document, in bytes of JSON.
const MAX_RESULT: usize = 8 << 20;

#[derive(Debug, Deserialize, JsonSchema, Validate)]
#[serde(deny_unknown_fields)]
struct JsonPatchInput {
    /// The document to change: any JSON value.
    document: Value,
    /// The operations (`add`, `remove`, `replace`, `move`, `copy`, `test`), applied in order;
    /// at most 1,000.
    #[schemars(length(max = 1000))]
    patch: Vec<Value>,
}

#[derive(Debug, Serialize, JsonSchema)]
struct JsonPatchOutput {
    /// The changed document.
    result: Value,
    /// How many operations were applied (all of them).
    applied: usize,
}

/// Apply a JSON Patch (RFC 6902) to a document.
///
/// Applies `add`, `remove`, `replace`, `move`, `copy` and `test` operations in order, with JSON
/// Pointers (RFC 6901) for paths. All or nothing: an operation that cannot apply (a missing
/// path, an index out of bounds, a failed `test`) is a 400 naming it (`patch[2]`) and why, and
/// no result is given. The result is at most 8 MiB of JSON.
#[op(post "/v1/json/patch" as jsonPatch, tag = TextAndData, pipe(document -> result), cpu,
     rejects = "an operation that is malformed or cannot apply, a failed test, or a result past 8 MiB",
     example(add_replace_remove, {"document": {"name": "wrench", "tags": ["api"], "draft": true}, "patch": [{"op": "add", "path": "/tags/-", "value": "rust"}, {"op": "replace", "path": "/name", "value": "wrench2"}, {"op": "remove", "path": "/draft"}]}),
     example(test_then_move, {"document": {"a": {"b": 1}}, "patch": [{"op": "test", "path": "/a/b", "value": 1}, {"op": "move", "from": "/a/b", "path": "/c"}]}),
     example(failed_test, {"document": {"a": 1}, "patch": [{"op": "test", "path": "/a", "value": 2}]}, status = 400))]
async fn json_patch(input: JsonPatchInput) -> Result<JsonPatchOutput, ApiError> {
    let mut doc = input.document;
    let mut size = json_size(&doc, MAX_RESULT).unwrap_or(MAX_RESULT);
    for (i, raw) in input.patch.iter().enumerate() {
        let field = format!("patch[{i}]");
        let op: PatchOperation = serde_json::from_value(raw.clone())
            .map_err(|e| ApiError::invalid(&field, format!("is not a JSON Patch operation: {e}")))?;
        let added = match &op {
            PatchOperation::Add(a) => json_size(&a.value, MAX_RESULT),
            PatchOperation::Replace(r) => json_size(&r.value, MAX_RESULT),
            PatchOperation::Copy(c) => doc.pointer(c.from.as_str()).map_or(Some(0), |v| json_size(v, MAX_RESULT)),
            _ => Some(0),
        };
        size = added.and_then(|a| size.checked_add(a)).filter(|s| *s <= MAX_RESULT).ok_or_else(|| {
            ApiError::invalid(&field, format!("would make the document larger than {MAX_RESULT} bytes"))
        })?;
        json_patch::patch(&mut doc, std::slice::from_ref(&op))
            .map_err(|e| ApiError::invalid(&field, format!("cannot apply at {}: {}", e.path, e.kind)))?;
    }
    Ok(JsonPatchOutput { result: doc, applied: input.patch.len() })
}

#[derive(Debug, Deserialize, JsonSchema, Validate)]
#[serde(deny_unknown_fields)]
struct MergePatchInput {
    /// The document to change: any JSON value.
    document: Value,
    /// The merge patch: members replace the document's, `null` removes one, objects merge
    /// recursively; anything but an object replaces the whole document.
    patch: Value,
}

#[derive(Debug, Serialize, JsonSchema)]
struct MergePatchOutput {
    /// The changed document.
    result: Value,
}

/// Apply a JSON Merge Patch (RFC 7396) to a document.
///
/// The patch's members replace the document's, a `null` member removes one, nested objects
/// merge recursively, and a patch that is not an object replaces the document. Arrays are
/// replaced whole, never merged.
#[op(post "/v1/json/merge-patch" as jsonMergePatch, tag = TextAndData, pipe(document -> result),
     example(merge, {"document": {"title": "Goodbye!", "author": {"givenName": "John", "familyName": "Doe"}, "tags": ["example", "sample"]}, "patch": {"title": "Hello!", "author": {"familyName": null}, "tags": ["example"]}}),
     example(replace_all, {"document": {"a": 1}, "patch": [1, 2]}),
     example(missing_patch, {"document": {}}, status = 400))]
async fn json_merge_patch(input: MergePatchInput) -> Result<MergePatchOutput, ApiError> {
    let mut doc = input.document;
    json_patch::merge(&mut doc, &input.patch);
    Ok(MergePatchOutput { result: doc })
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    /// json-patch-tests (tests/fixtures/json_patch_tests.json: the suite's own tests and those
    /// from RFC 6902's appendix A): each expected document is produced, and each case the suite
    /// marks as an error is refused.
    #[tokio::test]
    async fn json_patch_tests_suite() {
        let f = crate::testing::fixture("json_patch_tests.json");
        let mut failures = Vec::new();
        let mut checked = 0;
        for t in f["tests"].as_array().unwrap().iter().chain(f["spec"].as_array().unwrap()) {
            if t.get("disabled").and_then(Value::as_bool) == Some(true) {
                continue;
            }
            let name = t.get("comment").and_then(Value::as_str).unwrap_or("?");
            let patch = t["patch"].as_array().cloned().unwrap_or_default();
            let out = json_patch(JsonPatchInput { document: t["doc"].clone(), patch }).await;
            let ok = match (t.get("expected"), t.get("error"), &out) {
                (_, Some(_), out) => out.is_err(),
                (Some(want), None, Ok(o)) => &o.result == want,
                (None, None, out) => out.is_ok(),
                _ => false,
            };
            if !ok {
                failures.push(format!("{name}: {:?}", out.map(|o| o.result).map_err(|e| e.message)));
            }
            checked += 1;
        }
        assert!(failures.is_empty(), "{} of {checked}:\n{}", failures.len(), failures.join("\n"));
        assert!(checked > 100, "{checked}");
    }

    /// RFC 7396 appendix A: every example.
    #[tokio::test]
    async fn rfc_7396_examples() {
        let cases = [
            (json!({"a": "b"}), json!({"a": "c"}), json!({"a": "c"})),
            (json!({"a": "b"}), json!({"b": "c"}), json!({"a": "b", "b": "c"})),
            (json!({"a": "b"}), json!({"a": null}), json!({})),
            (json!({"a": "b", "b": "c"}), json!({"a": null}), json!({"b": "c"})),
            (json!({"a": ["b"]}), json!({"a": "c"}), json!({"a": "c"})),
            (json!({"a": "c"}), json!({"a": ["b"]}), json!({"a": ["b"]})),
            (json!({"a": {"b": "c"}}), json!({"a": {"b": "d", "c": null}}), json!({"a": {"b": "d"}})),
            (json!({"a": [{"b": "c"}]}), json!({"a": [1]}), json!({"a": [1]})),
            (json!(["a", "b"]), json!(["c", "d"]), json!(["c", "d"])),
            (json!({"a": "b"}), json!(["c"]), json!(["c"])),
            (json!({"a": "foo"}), json!(null), json!(null)),
            (json!({"a": "foo"}), json!("bar"), json!("bar")),
            (json!({"e": null}), json!({"a": 1}), json!({"e": null, "a": 1})),
            (json!([1, 2]), json!({"a": "b", "c": null}), json!({"a": "b"})),
            (json!({}), json!({"a": {"bb": {"ccc": null}}}), json!({"a": {"bb": {}}})),
        ];
        for (document, patch, want) in cases {
            let out =
                json_merge_patch(MergePatchInput { document: document.clone(), patch: patch.clone() }).await.unwrap();
            assert_eq!(out.result, want, "{document} + {patch}");
        }
    }

    #[tokio::test]
    async fn copies_cannot_grow_without_bound() {
        let doc = json!({"a": "x".repeat(100_000)});
        let patch: Vec<Value> = (0..100).map(|i| json!({"op": "copy", "from": "", "path": format!("/c{i}")})).collect();
        let e = json_patch(JsonPatchInput { document: doc, patch }).await.unwrap_err();
        assert!(e.field.as_deref().is_some_and(|f| f.starts_with("patch[")), "{:?}", e.field);
        assert!(e.message.contains("larger"), "{}", e.message);
    }
}
