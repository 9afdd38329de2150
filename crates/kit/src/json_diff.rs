//! Structural differences of two JSON documents, shared by json/diff and the object diff of
//! the diff operation: every added, removed or changed value with a JSONPath-like path from
//! `$` (`$.a.b[0]`, `$['a key']`). Objects compare by key, arrays by index, numbers by value.

use schemars::JsonSchema;
use serde::Serialize;
use serde_json::Value;
use wrench_infra::{bounds::OutputBudget, envelope::ApiError};

#[derive(Debug, Serialize, JsonSchema, PartialEq, Clone, Copy)]
#[serde(rename_all = "lowercase")]
pub enum ChangeType {
    Added,
    Removed,
    Changed,
}

#[derive(Debug, Serialize, JsonSchema, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct Difference {
    /// Where, JSONPath-like from the root `$`: `$.a.b[0]`, `$['key with spaces']`.
    pub path: String,
    /// What happened there.
    #[serde(rename = "type")]
    pub kind: ChangeType,
    /// The value in `a` (absent for added).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub old_value: Option<Value>,
    /// The value in `b` (absent for removed).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub new_value: Option<Value>,
}

fn key_path(base: &str, key: &str) -> String {
    let mut chars = key.chars();
    let plain = chars.next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_' || c == '$')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '$');
    if plain {
        format!("{base}.{key}")
    } else {
        let mut out = format!("{base}['");
        for c in key.chars() {
            match c {
                '\'' => out.push_str("\\'"),
                '\\' => out.push_str("\\\\"),
                c => out.push(c),
            }
        }
        out.push_str("']");
        out
    }
}

/// Numbers are equal when their values are (`1` and `1.0`), as JSON compares them.
fn same_number(a: &serde_json::Number, b: &serde_json::Number) -> bool {
    if a == b {
        return true;
    }
    match (a.as_i128(), b.as_i128()) {
        (Some(x), Some(y)) => x == y,
        _ => a.as_f64().zip(b.as_f64()).is_some_and(|(x, y)| x == y),
    }
}

/// Adds one difference, counted against `budget`: its path, kind and punctuation, then its
/// values.
fn record(out: &mut Vec<Difference>, budget: &mut OutputBudget, d: Difference) -> Result<(), ApiError> {
    budget.add_json_string(&d.path)?;
    budget.add(48)?;
    for v in [&d.old_value, &d.new_value].into_iter().flatten() {
        budget.add(wrench_infra::bounds::json_size(v))?;
    }
    out.push(d);
    Ok(())
}

/// Every difference between `a` and `b` under `path` (`$` for the root), in document order.
/// Each one is counted against `budget` as it is found: paths repeat their prefixes, so the
/// answer can be much larger than the two documents.
pub fn diff(
    path: &str,
    a: &Value,
    b: &Value,
    out: &mut Vec<Difference>,
    budget: &mut OutputBudget,
) -> Result<(), ApiError> {
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => {
            for (k, va) in x {
                match y.get(k) {
                    Some(vb) => diff(&key_path(path, k), va, vb, out, budget)?,
                    None => record(
                        out,
                        budget,
                        Difference {
                            path: key_path(path, k),
                            kind: ChangeType::Removed,
                            old_value: Some(va.clone()),
                            new_value: None,
                        },
                    )?,
                }
            }
            for (k, vb) in y {
                if !x.contains_key(k) {
                    record(
                        out,
                        budget,
                        Difference {
                            path: key_path(path, k),
                            kind: ChangeType::Added,
                            old_value: None,
                            new_value: Some(vb.clone()),
                        },
                    )?;
                }
            }
        }
        (Value::Array(x), Value::Array(y)) => {
            for i in 0..x.len().max(y.len()) {
                let p = format!("{path}[{i}]");
                match (x.get(i), y.get(i)) {
                    (Some(va), Some(vb)) => diff(&p, va, vb, out, budget)?,
                    (Some(va), None) => record(
                        out,
                        budget,
                        Difference { path: p, kind: ChangeType::Removed, old_value: Some(va.clone()), new_value: None },
                    )?,
                    (None, Some(vb)) => record(
                        out,
                        budget,
                        Difference { path: p, kind: ChangeType::Added, old_value: None, new_value: Some(vb.clone()) },
                    )?,
                    (None, None) => {}
                }
            }
        }
        (Value::Number(x), Value::Number(y)) if same_number(x, y) => {}
        _ if a == b => {}
        _ => record(
            out,
            budget,
            Difference {
                path: path.to_string(),
                kind: ChangeType::Changed,
                old_value: Some(a.clone()),
                new_value: Some(b.clone()),
            },
        )?,
    }
    Ok(())
}
