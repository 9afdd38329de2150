//! Pointers into a recipe's run, and what a schema says about the value one names.
//!
//! A run is `{input, steps: {<id>: <data>}}`; a step of a `forEach` also has `$item` (the
//! element) and `$index` (its position). Pointers are RFC 6901 JSON Pointers into that, so
//! `/steps/raw/decoded` is the field `decoded` of step `raw`'s data.
//!
//! Before a recipe runs, each pointer into a step is followed through the step operation's
//! output schema, which names the fields it can hold: a pointer to a field the schema does not
//! declare, or to a value of a type the receiving input cannot take, is refused then.

use serde_json::{Map, Value};

/// Where a pointer leads.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Ref {
    /// Into the recipe's input.
    Input(Vec<String>),
    /// Into the data of the step at `index`.
    Step { index: usize, rest: Vec<String> },
    /// Into the current element of a `forEach`.
    Item(Vec<String>),
    /// The current element's position.
    Index,
}

/// The tokens of a JSON Pointer (`/a~1b/0` is `["a/b", "0"]`), or `None` if it does not
/// start with `/`.
pub(crate) fn tokens(pointer: &str) -> Option<Vec<String>> {
    if pointer.is_empty() {
        return Some(Vec::new());
    }
    let rest = pointer.strip_prefix('/')?;
    Some(rest.split('/').map(|t| t.replace("~1", "/").replace("~0", "~")).collect())
}

/// The value at `tokens` inside `value`.
pub(crate) fn follow<'v>(value: &'v Value, tokens: &[String]) -> Option<&'v Value> {
    tokens.iter().try_fold(value, |v, t| match v {
        Value::Object(m) => m.get(t),
        Value::Array(a) => t.parse::<usize>().ok().filter(|_| t == "0" || !t.starts_with('0')).and_then(|i| a.get(i)),
        _ => None,
    })
}

/// `tokens` written back as a pointer.
pub(crate) fn write(tokens: &[String]) -> String {
    tokens.iter().map(|t| format!("/{}", t.replace('~', "~0").replace('/', "~1"))).collect()
}

/// JSON types a schema allows; `None` when it does not say (any value).
pub(crate) type Types = Option<Vec<&'static str>>;

const ALL_TYPES: [&str; 7] = ["string", "number", "integer", "boolean", "object", "array", "null"];

/// What following a pointer through a schema found: the subschema reached, `None` when the
/// schema stops saying what is there (an open value), or the position of the first token it
/// does not declare, with the fields it does.
pub(crate) type Walked<'s> = Result<Option<&'s Map<String, Value>>, (usize, Vec<String>)>;

/// Follows `tokens` through `schema`, whose `$ref`s point into `root`'s `$defs`.
pub(crate) fn walk<'s>(root: &'s Map<String, Value>, schema: &'s Map<String, Value>, tokens: &[String]) -> Walked<'s> {
    let mut here = deref(root, schema);
    for (i, token) in tokens.iter().enumerate() {
        match step_into(root, here, token) {
            Step::Into(next) => here = deref(root, next),
            Step::Open => return Ok(None),
            Step::Undeclared(fields) => return Err((i, fields)),
        }
    }
    Ok(Some(here))
}

enum Step<'s> {
    Into(&'s Map<String, Value>),
    Open,
    Undeclared(Vec<String>),
}

fn step_into<'s>(root: &'s Map<String, Value>, schema: &'s Map<String, Value>, token: &str) -> Step<'s> {
    // An optional value is `anyOf: [T, null]`: the token is looked for in each branch.
    for key in ["anyOf", "oneOf"] {
        if let Some(branches) = schema.get(key).and_then(Value::as_array) {
            let mut fields = Vec::new();
            for b in branches.iter().filter_map(Value::as_object) {
                let b = deref(root, b);
                if is_null_only(b) {
                    continue;
                }
                match step_into(root, b, token) {
                    Step::Undeclared(f) => fields.extend(f),
                    found => return found,
                }
            }
            return Step::Undeclared(fields);
        }
    }
    if let Some(props) = schema.get("properties").and_then(Value::as_object) {
        if let Some(p) = props.get(token).and_then(Value::as_object) {
            return Step::Into(p);
        }
        return match schema.get("additionalProperties") {
            Some(Value::Object(extra)) => Step::Into(extra),
            Some(Value::Bool(true)) => Step::Open,
            _ => Step::Undeclared(props.keys().cloned().collect()),
        };
    }
    if let Some(extra) = schema.get("additionalProperties").and_then(Value::as_object) {
        return Step::Into(extra);
    }
    if let Some(items) = schema.get("items").and_then(Value::as_object) {
        return if token.parse::<usize>().is_ok() {
            Step::Into(items)
        } else {
            Step::Undeclared(vec!["0, 1, …".into()])
        };
    }
    match types(root, schema) {
        Some(t) if !t.iter().any(|t| *t == "object" || *t == "array") => Step::Undeclared(Vec::new()),
        _ => Step::Open,
    }
}

fn is_null_only(schema: &Map<String, Value>) -> bool {
    schema.get("type") == Some(&Value::String("null".into()))
}

/// `schema`, or the definition its `$ref` names.
fn deref<'s>(root: &'s Map<String, Value>, schema: &'s Map<String, Value>) -> &'s Map<String, Value> {
    let mut here = schema;
    for _ in 0..16 {
        let Some(target) = here.get("$ref").and_then(Value::as_str) else { break };
        let found =
            target.strip_prefix('#').and_then(tokens).and_then(|t| follow_map(root, &t)).and_then(Value::as_object);
        match found {
            Some(f) => here = f,
            None => break,
        }
    }
    here
}

fn follow_map<'v>(root: &'v Map<String, Value>, tokens: &[String]) -> Option<&'v Value> {
    let (first, rest) = tokens.split_first()?;
    follow(root.get(first)?, rest)
}

/// The JSON types `schema` allows, when it says.
pub(crate) fn types(root: &Map<String, Value>, schema: &Map<String, Value>) -> Types {
    let schema = deref(root, schema);
    match schema.get("type") {
        Some(Value::String(t)) => return Some(vec![known(t)?]),
        Some(Value::Array(ts)) => return ts.iter().map(|t| t.as_str().and_then(known)).collect(),
        _ => {}
    }
    for key in ["anyOf", "oneOf"] {
        if let Some(branches) = schema.get(key).and_then(Value::as_array) {
            let mut all = Vec::new();
            for b in branches {
                all.extend(types(root, b.as_object()?)?);
            }
            return Some(all);
        }
    }
    if let Some(values) = schema.get("enum").and_then(Value::as_array) {
        return values.iter().map(|v| Some(type_of(v))).collect();
    }
    schema.get("const").map(|v| vec![type_of(v)])
}

fn known(t: &str) -> Option<&'static str> {
    ALL_TYPES.iter().copied().find(|k| *k == t)
}

/// The JSON type of a value (`integer` for a whole number).
pub(crate) fn type_of(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(n) if n.is_i64() || n.is_u64() => "integer",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

/// Whether a value of one of `given` types may be one `wanted` takes (an integer is a
/// number, and a number may be whole). Unknown types are taken as fitting.
pub(crate) fn fits(given: &Types, wanted: &Types) -> bool {
    let (Some(given), Some(wanted)) = (given, wanted) else { return true };
    given.iter().any(|g| {
        wanted.iter().any(|w| g == w || (*g == "integer" && *w == "number") || (*g == "number" && *w == "integer"))
    })
}

/// `types` in words: `a string`, `a string or null`.
pub(crate) fn describe(types: &[&str]) -> String {
    let mut seen: Vec<&str> = Vec::new();
    for t in types {
        if !seen.contains(t) {
            seen.push(t);
        }
    }
    let words: Vec<String> = seen
        .iter()
        .map(|t| match *t {
            "integer" => "an integer".to_string(),
            "array" => "an array".to_string(),
            "object" => "an object".to_string(),
            "null" => "null".to_string(),
            other => format!("a {other}"),
        })
        .collect();
    words.join(" or ")
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn pointers_follow_rfc_6901() {
        // RFC 6901 section 5's document and pointers.
        let doc = json!({"foo": ["bar", "baz"], "": 0, "a/b": 1, "c%d": 2, "e^f": 3, "g|h": 4,
                         "i\\j": 5, "k\"l": 6, " ": 7, "m~n": 8});
        let at = |p: &str| follow(&doc, &tokens(p).unwrap()).cloned();
        assert_eq!(at(""), Some(doc.clone()));
        assert_eq!(at("/foo"), Some(json!(["bar", "baz"])));
        assert_eq!(at("/foo/0"), Some(json!("bar")));
        assert_eq!(at("/"), Some(json!(0)));
        assert_eq!(at("/a~1b"), Some(json!(1)));
        assert_eq!(at("/c%d"), Some(json!(2)));
        assert_eq!(at("/e^f"), Some(json!(3)));
        assert_eq!(at("/g|h"), Some(json!(4)));
        assert_eq!(at("/i\\j"), Some(json!(5)));
        assert_eq!(at("/k\"l"), Some(json!(6)));
        assert_eq!(at("/ "), Some(json!(7)));
        assert_eq!(at("/m~0n"), Some(json!(8)));
        assert_eq!(at("/foo/01"), None, "leading zeros are not indexes");
        assert_eq!(at("/foo/2"), None);
        assert_eq!(tokens("foo"), None);
        assert_eq!(write(&tokens("/a~1b/m~0n").unwrap()), "/a~1b/m~0n");
    }

    #[test]
    fn schemas_are_walked_through_refs_options_and_arrays() {
        let root = json!({
            "type": "object",
            "properties": {
                "decoded": {"type": "string"},
                "list": {"type": "array", "items": {"$ref": "#/$defs/Item"}},
                "maybe": {"anyOf": [{"$ref": "#/$defs/Item"}, {"type": "null"}]},
                "open": {}
            },
            "$defs": {"Item": {"type": "object", "properties": {"n": {"type": "integer"}}}}
        });
        let root = root.as_object().unwrap();
        let walked = |p: &str| walk(root, root, &tokens(p).unwrap()).map(|s| s.map(|s| types(root, s)));
        assert_eq!(walked("/decoded"), Ok(Some(Some(vec!["string"]))));
        assert_eq!(walked("/list/3/n"), Ok(Some(Some(vec!["integer"]))));
        assert_eq!(walked("/maybe/n"), Ok(Some(Some(vec!["integer"]))));
        assert_eq!(walked("/open/anything"), Ok(None));
        let (at, fields) = walked("/decodd").unwrap_err();
        assert_eq!(at, 0);
        assert!(fields.contains(&"decoded".to_string()));
        assert_eq!(walked("/list/3/m").unwrap_err().0, 2);
        assert_eq!(walked("/decoded/x").unwrap_err().0, 1, "a string has no fields");
        assert!(fits(&Some(vec!["integer"]), &Some(vec!["number"])));
        assert!(!fits(&Some(vec!["string"]), &Some(vec!["object", "null"])));
        assert!(fits(&None, &Some(vec!["object"])));
    }
}
