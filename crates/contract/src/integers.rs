//! Integers as JSON Schema counts them, read by the input type alone.
//!
//! serde reads an integer field (`u32`, `Option<u8>`, ...) from a JSON integer only, and from
//! text in a query string only when the text is digits. The document says `integer`, and JSON
//! Schema counts `7.0` and `7e0` as the integer 7; a query string carries `7.0` as text. So
//! when serde refuses an input, the input's own schema (the one the document shows) is walked
//! and every value where it says `integer` that is a whole number is written as one; then the
//! input is read again. Nothing is asked of the field declarations, and a request that serde
//! reads at once costs nothing more.

use schemars::JsonSchema;
use serde_json::{Map, Number, Value};

use wrench_infra::envelope::ApiError;

/// The schema of `T`, with its definitions, as JSON.
pub(crate) fn schema_of<T: JsonSchema>() -> Value {
    let root = schemars::SchemaGenerator::default().into_root_schema_for::<T>();
    serde_json::to_value(root).unwrap_or(Value::Null)
}

/// Writes every whole number of `value` that `schema` (whose `$ref`s point into `root`) says
/// is an integer as an integer. Whether anything changed.
pub(crate) fn whole_numbers(root: &Value, schema: &Value, value: &mut Value) -> bool {
    let schema = resolve(root, schema);
    match value {
        Value::Number(n) if admits_integer(root, schema) && !(n.is_i64() || n.is_u64()) => match whole(n.as_f64()) {
            Some(i) => {
                *value = integer_value(i);
                true
            }
            None => false,
        },
        Value::Object(fields) => {
            let mut changed = false;
            for branch in branches(root, schema) {
                changed |= object(root, branch, fields);
            }
            changed
        }
        Value::Array(items) => {
            let mut changed = false;
            for branch in branches(root, schema) {
                if let Some(item) = branch.get("items") {
                    for v in items.iter_mut() {
                        changed |= whole_numbers(root, item, v);
                    }
                }
            }
            changed
        }
        _ => false,
    }
}

fn object(root: &Value, schema: &Value, fields: &mut Map<String, Value>) -> bool {
    let mut changed = false;
    let properties = schema.get("properties").and_then(Value::as_object);
    let additional = schema.get("additionalProperties").filter(|a| a.is_object());
    for (name, v) in fields.iter_mut() {
        if let Some(field) = properties.and_then(|p| p.get(name)).or(additional) {
            changed |= whole_numbers(root, field, v);
        }
    }
    changed
}

/// The query-string parameters whose schema says `integer` (and not also text), written as
/// integers when they are whole numbers (`7.0`, ` 7 `); a value that is no number is refused
/// here, naming the parameter. Whether anything changed.
pub(crate) fn query_integers(root: &Value, pairs: &mut [(String, String)]) -> Result<bool, ApiError> {
    let schema = resolve(root, root);
    let properties = schema.get("properties").and_then(Value::as_object);
    let mut changed = false;
    for (name, text) in pairs.iter_mut() {
        let Some(field) = properties.and_then(|p| p.get(name.as_str())) else { continue };
        let field = resolve(root, field);
        if !admits_integer(root, field) || admits(root, field, "string") {
            continue;
        }
        let t = text.trim();
        let parsed = t.parse::<i128>().ok().or_else(|| whole(t.parse::<f64>().ok()));
        match parsed {
            Some(i) if i.to_string() != *text => {
                *text = i.to_string();
                changed = true;
            }
            Some(_) => {}
            None => {
                return Err(ApiError::invalid(name, format!("has the wrong type: got {text:?}, expected an integer")));
            }
        }
    }
    Ok(changed)
}

/// The whole number `f` is, when it is finite, whole and small enough to be one exactly.
fn whole(f: Option<f64>) -> Option<i128> {
    f.filter(|f| f.is_finite() && f.fract() == 0.0 && f.abs() < 1e30).map(|f| f as i128)
}

fn integer_value(i: i128) -> Value {
    match (i64::try_from(i), u64::try_from(i)) {
        (Ok(n), _) => Value::Number(Number::from(n)),
        (_, Ok(n)) => Value::Number(Number::from(n)),
        // Beyond 64 bits no field can hold it; serde refuses it as the float it was.
        _ => Value::Number(Number::from_f64(i as f64).unwrap_or(Number::from(0))),
    }
}

/// The schema a `$ref` points to (in `root`'s `$defs` or `definitions`), or `schema` itself.
fn resolve<'a>(root: &'a Value, schema: &'a Value) -> &'a Value {
    let mut current = schema;
    // A chain of references is short; the bound only guards against a circle.
    for _ in 0..16 {
        let Some(pointer) = current.get("$ref").and_then(Value::as_str) else { break };
        match pointer.strip_prefix('#').and_then(|p| root.pointer(p)) {
            Some(target) => current = target,
            None => break,
        }
    }
    current
}

/// `schema` and the alternatives it allows (`anyOf`, `oneOf`, `allOf`), references resolved.
fn branches<'a>(root: &'a Value, schema: &'a Value) -> Vec<&'a Value> {
    let mut out = vec![schema];
    for key in ["anyOf", "oneOf", "allOf"] {
        for b in schema.get(key).and_then(Value::as_array).into_iter().flatten() {
            out.push(resolve(root, b));
        }
    }
    out
}

/// Whether `schema` (or one of its alternatives) says `type: integer`.
fn admits_integer(root: &Value, schema: &Value) -> bool {
    admits(root, schema, "integer")
}

fn admits(root: &Value, schema: &Value, kind: &str) -> bool {
    branches(root, schema).iter().any(|b| match b.get("type") {
        Some(Value::String(t)) => t == kind,
        Some(Value::Array(ts)) => ts.iter().any(|t| t == kind),
        _ => false,
    })
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn whole_numbers_become_integers_where_the_schema_says_integer() {
        let root = json!({
            "type": "object",
            "properties": {
                "n": {"type": "integer"},
                "maybe": {"type": ["integer", "null"]},
                "ratio": {"type": "number"},
                "list": {"type": "array", "items": {"$ref": "#/$defs/Item"}},
                "either": {"anyOf": [{"type": "integer"}, {"type": "string"}]}
            },
            "$defs": {"Item": {"type": "object", "properties": {"k": {"type": "integer"}}}}
        });
        let mut v = json!({"n": 7.0, "maybe": 3e0, "ratio": 2.0, "list": [{"k": 1.0}, {"k": 2.5}], "either": 4.0});
        assert!(whole_numbers(&root, &root, &mut v));
        assert_eq!(v, json!({"n": 7, "maybe": 3, "ratio": 2.0, "list": [{"k": 1}, {"k": 2.5}], "either": 4}));
        // Nothing to do: nothing changes, and serde's refusal stands.
        let mut v = json!({"n": 7, "ratio": 0.5});
        assert!(!whole_numbers(&root, &root, &mut v));
    }

    #[test]
    fn query_text_is_read_as_an_integer_or_refused_by_name() {
        let root = json!({"type": "object", "properties": {"n": {"type": "integer"}, "s": {"type": "string"}}});
        let mut pairs = vec![("n".to_string(), " 7.0 ".to_string()), ("s".to_string(), "7.0".to_string())];
        assert!(query_integers(&root, &mut pairs).unwrap());
        assert_eq!(pairs[0].1, "7");
        assert_eq!(pairs[1].1, "7.0");
        let mut bad = vec![("n".to_string(), "seven".to_string())];
        let e = query_integers(&root, &mut bad).unwrap_err();
        assert_eq!(e.field.as_deref(), Some("n"));
        assert!(e.message.contains("expected an integer"), "{}", e.message);
    }
}
