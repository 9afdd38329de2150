//! Turning a request into an operation's input type, with errors a client can act on.
//!
//! Syntax errors in the body become `INVALID_JSON` with line and column; everything else that
//! serde or the derived `Validate` refuses becomes `VALIDATION_ERROR` naming the field in the
//! client's spelling (`data[2].name`, `count`). serde's messages are rephrased where they speak
//! of Rust rather than of the request ("missing field" becomes "is required").

use schemars::JsonSchema;
use serde::{Deserialize, de::DeserializeOwned};

use crate::{
    op::{InputKind, OpRequest},
    validate::Validate,
};
use wrench_infra::envelope::{ApiError, ErrorCode};

/// Reads an object whose fields are all optional, which serde's derive would also read from an
/// array (`[]` as "every field absent"): the document says object, so an array is refused.
/// Use as `#[serde(default, deserialize_with = "no_array")]` on such a field.
pub fn no_array<'de, D: serde::Deserializer<'de>, T: DeserializeOwned>(d: D) -> Result<T, D::Error> {
    let value = serde_json::Value::deserialize(d)?;
    if value.is_array() {
        return Err(serde::de::Error::invalid_type(serde::de::Unexpected::Seq, &"a map"));
    }
    T::deserialize(value).map_err(serde::de::Error::custom)
}

/// JSON's whitespace (RFC 8259 section 2): space, tab, line feed, carriage return. Not form
/// feed or vertical tab, which `u8::is_ascii_whitespace` would also accept.
fn json_whitespace(b: &u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | b'\r')
}

/// Decodes the input the way the route that received the request reads it: a JSON body, or
/// the query string and path parameters.
pub fn input<T: DeserializeOwned + Validate + JsonSchema>(req: &OpRequest) -> Result<T, ApiError> {
    match req.input {
        InputKind::Body => body(req),
        InputKind::Query => query(req),
        // `#[op]` gives raw and input-less routes no decoder; reaching this is a bug.
        InputKind::Raw | InputKind::None => Err(ApiError::internal("this route has no input to decode")),
    }
}

/// Decodes the JSON body. An empty body counts as `{}`, so operations without required
/// fields can be called with no body at all.
pub fn body<T: DeserializeOwned + Validate + JsonSchema>(req: &OpRequest) -> Result<T, ApiError> {
    // Only a body of no bytes at all is "no body"; whitespace alone is not a JSON text.
    let bytes: &[u8] = if req.body.is_empty() { b"{}" } else { &req.body };
    // serde would read a struct from an array too; the contract says object.
    if bytes.iter().find(|b| !json_whitespace(b)) != Some(&b'{') {
        if let Err(e) = serde_json::from_slice::<serde::de::IgnoredAny>(bytes) {
            return Err(syntax_error(&e));
        }
        return Err(ApiError::invalid("body", "must be a JSON object"));
    }
    // The shared nesting limit holds for the values of fields, one level below the body's
    // object; serde_json's own guard, one level short of that, is off once it is checked.
    if wrench_infra::bounds::json_deeper_than(bytes, wrench_infra::bounds::MAX_NESTING + 1) {
        return Err(ApiError::invalid(
            "body",
            format!("a field's value is nested deeper than {} levels, the limit", wrench_infra::bounds::MAX_NESTING),
        ));
    }
    // A route with path parameters (`PATCH /v1/webhook/inbox/{id}`) reads them as fields of
    // the input beside the body's; the body may repeat one only with the same value.
    let merged;
    let bytes: &[u8] = if req.path_params.is_empty() {
        bytes
    } else {
        let mut object: serde_json::Map<String, serde_json::Value> = match serde_json::from_slice(bytes) {
            Ok(o) => o,
            Err(e) => return Err(syntax_error(&e)),
        };
        for (name, value) in &req.path_params {
            match object.get(name) {
                Some(v)
                    if v.as_str() != Some(percent_encoding::percent_decode_str(value).decode_utf8_lossy().as_ref()) =>
                {
                    return Err(ApiError::invalid(name, "is given in the path; the body may not name another"));
                }
                _ => {
                    let decoded = percent_encoding::percent_decode_str(value).decode_utf8_lossy().into_owned();
                    object.insert(name.clone(), serde_json::Value::String(decoded));
                }
            }
        }
        merged = serde_json::to_vec(&object).map_err(|e| ApiError::internal(e.to_string()))?;
        // The merged text is checked again (a path value is a string, but the check is cheap
        // next to the merge); a body read as it came was checked above.
        if wrench_infra::bounds::json_deeper_than(&merged, wrench_infra::bounds::MAX_NESTING + 1) {
            return Err(ApiError::invalid(
                "body",
                format!(
                    "a field's value is nested deeper than {} levels, the limit",
                    wrench_infra::bounds::MAX_NESTING
                ),
            ));
        }
        &merged
    };
    let mut de = serde_json::Deserializer::from_slice(bytes);
    de.disable_recursion_limit();
    let value: T = match serde_path_to_error::deserialize(&mut de) {
        Ok(v) => v,
        Err(e) => {
            // Integers written as whole numbers (`7.0`), which serde refuses for an integer
            // field and JSON Schema accepts: read again with them written as integers.
            if let Some(read) = with_whole_numbers::<T>(bytes) {
                let value = read?;
                value.validate("")?;
                return Ok(value);
            }
            let path = e.path().to_string();
            // serde_json reports a value of the wrong kind for an enum field (`"algorithm": 2`)
            // as a syntax error; when the body itself is JSON, it is the field's type.
            if e.inner().is_syntax() && !matches!(path.as_str(), "" | ".") && valid_json(bytes) {
                return Err(ApiError::invalid(
                    &path,
                    "has the wrong type: expected one of the names the document lists",
                ));
            }
            return Err(json_error(&path, e.inner()));
        }
    };
    if let Err(e) = de.end() {
        return Err(syntax_error(&e));
    }
    value.validate("")?;
    Ok(value)
}

fn valid_json(bytes: &[u8]) -> bool {
    let mut de = serde_json::Deserializer::from_slice(bytes);
    serde::de::IgnoredAny::deserialize(&mut de).and_then(|_| de.end()).is_ok()
}

/// Decodes query-string and path parameters (path parameters win over a query parameter of
/// the same name).
pub fn query<T: DeserializeOwned + Validate + JsonSchema>(req: &OpRequest) -> Result<T, ApiError> {
    let mut pairs: Vec<(String, String)> = req.path_params.iter().map(|(k, v)| (k.clone(), v.clone())).collect();
    for (k, v) in form_urlencoded::parse(req.query.as_bytes()) {
        if !req.path_params.contains_key(k.as_ref()) {
            pairs.push((k.into_owned(), v.into_owned()));
        }
    }
    // A query string cannot say "one of these two parameters" in the document, so a field
    // given in both its spellings is read from the spec's spelling and the other is ignored,
    // as the parameter's description says. (A JSON body can say it, and refuses the pair.)
    // The ignored value must still be one its parameter admits: it is decoded on its own first,
    // and a refusal names it.
    let has = |pairs: &[(String, String)], key: &str| pairs.iter().any(|(k, _)| k == key);
    let both: Vec<(&str, &str)> =
        T::ALIASES.iter().copied().filter(|(name, alias)| has(&pairs, name) && has(&pairs, alias)).collect();
    if !both.is_empty() {
        let others: Vec<(String, String)> =
            pairs.iter().filter(|(k, _)| !both.iter().any(|(name, _)| k == name)).cloned().collect();
        decode_pairs::<T>(&others).map_err(|mut e| {
            if let Some(&(_, alias)) = both.iter().find(|(name, _)| e.field.as_deref() == Some(*name)) {
                let named = format!("{}:", e.field.as_deref().unwrap_or_default());
                e.message = e.message.replacen(&named, &format!("{alias}:"), 1).into();
                e.field = Some(alias.to_string());
            }
            e
        })?;
        pairs.retain(|(k, _)| !both.iter().any(|(_, alias)| k == alias));
    }
    decode_pairs(&pairs)
}

/// Decodes and validates `T` from query-string pairs.
fn decode_pairs<T: DeserializeOwned + Validate + JsonSchema>(pairs: &[(String, String)]) -> Result<T, ApiError> {
    let value: T = match from_pairs(pairs) {
        Ok(v) => v,
        Err(first) => {
            // Integer parameters written as whole numbers (`7.0`, ` 7 `), or that are no number
            // at all, which serde's own message would put in Rust's words.
            let mut normalized = pairs.to_vec();
            if crate::integers::query_integers(&crate::integers::schema_of::<T>(), &mut normalized)? {
                from_pairs(&normalized)?
            } else {
                return Err(first);
            }
        }
    };
    value.validate("")?;
    Ok(value)
}

fn from_pairs<T: DeserializeOwned>(pairs: &[(String, String)]) -> Result<T, ApiError> {
    let encoded = serde_urlencoded::to_string(pairs).map_err(|e| ApiError::invalid("query", e))?;
    let de = serde_urlencoded::Deserializer::new(form_urlencoded::parse(encoded.as_bytes()));
    serde_path_to_error::deserialize(de).map_err(|e| {
        let path = e.path().to_string();
        let (field, message) = rephrase(&path, &e.inner().to_string());
        ApiError::invalid(&field, message)
    })
}

/// `T` read from the body again with whole numbers written as integers where its schema says
/// integer; `None` when there were none, so that the first refusal stands.
fn with_whole_numbers<T: DeserializeOwned + JsonSchema>(bytes: &[u8]) -> Option<Result<T, ApiError>> {
    let mut de = serde_json::Deserializer::from_slice(bytes);
    de.disable_recursion_limit();
    let mut value = serde_json::Value::deserialize(&mut de).ok()?;
    de.end().ok()?;
    let schema = crate::integers::schema_of::<T>();
    if !crate::integers::whole_numbers(&schema, &schema, &mut value) {
        return None;
    }
    Some(serde_path_to_error::deserialize(value).map_err(|e| json_error(&e.path().to_string(), e.inner())))
}

/// Hands the undecoded request to operations that take anything (`input = raw`).
pub fn raw<T: From<OpRequest>>(req: OpRequest) -> Result<T, ApiError> {
    Ok(T::from(req))
}

/// The INVALID_JSON error for a syntax error, with its position.
pub fn syntax_error(e: &serde_json::Error) -> ApiError {
    // serde_json says column 0 for an error at the very start of a line (the body ended right
    // after a line break); positions are 1-based, so that is column 1.
    let (line, column) = (e.line().max(1), e.column().max(1));
    let mut err = ApiError::new(
        ErrorCode::InvalidJson,
        format!("body is not valid JSON: {} at line {line} column {column}", strip_position(&e.to_string())),
    );
    err.line = Some(line);
    err.column = Some(column);
    err
}

fn json_error(path: &str, e: &serde_json::Error) -> ApiError {
    use serde_json::error::Category;
    match e.classify() {
        Category::Syntax | Category::Eof | Category::Io => syntax_error(e),
        Category::Data => {
            let (field, message) = rephrase(path, &strip_position(&e.to_string()));
            ApiError::invalid(&field, message)
        }
    }
}

/// serde's "... at line 1 column 7" suffix, which is noise for a field error.
fn strip_position(msg: &str) -> String {
    match msg.rfind(" at line ") {
        Some(i) => msg[..i].to_string(),
        None => msg.to_string(),
    }
}

/// Names between the first pair of backticks in a serde message.
fn quoted(msg: &str) -> Option<&str> {
    let start = msg.find('`')? + 1;
    let len = msg[start..].find('`')?;
    Some(&msg[start..start + len])
}

fn choices(msg: &str) -> String {
    match msg.find("expected one of ") {
        Some(i) => msg[i + "expected one of ".len()..].replace('`', ""),
        None => match msg.find("expected ") {
            Some(i) => msg[i + "expected ".len()..].replace('`', ""),
            None => String::new(),
        },
    }
}

/// Turns serde's path and message into (field, message) in the client's terms.
fn rephrase(path: &str, msg: &str) -> (String, String) {
    let base = if path == "." || path.is_empty() { String::new() } else { path.to_string() };
    let child = |name: &str| {
        if base.is_empty() { name.to_string() } else { format!("{base}.{name}") }
    };
    if msg.starts_with("missing field") {
        let name = quoted(msg).unwrap_or("?");
        return (child(name), "is required".to_string());
    }
    if msg.starts_with("unknown field") {
        let name = quoted(msg).unwrap_or("?");
        // serde_path_to_error already puts the unknown field at the end of the path.
        let child = |name: &str| {
            if base == name || base.ends_with(&format!(".{name}")) { base.clone() } else { child(name) }
        };
        let expected = choices(msg);
        let msg = if expected.is_empty() || msg.contains("there are no fields") {
            "is not a known field (this operation takes no fields)".to_string()
        } else {
            format!("is not a known field; expected one of {expected}")
        };
        return (child(name), msg);
    }
    if msg.starts_with("duplicate field") {
        // serde names the field by its main spelling, whichever spelling came second.
        let name = quoted(msg).unwrap_or("?");
        return (child(name), "is given twice: send it once, in one of its spellings".to_string());
    }
    if msg.starts_with("unknown variant") {
        let got = quoted(msg).unwrap_or("?");
        return (or_body(base), format!("must be one of {} (got {got:?})", choices(msg)));
    }
    if let Some(rest) = msg.strip_prefix("invalid value: integer `")
        && let Some((n, expected)) = rest.split_once("`, expected ")
        && is_rust_integer(expected)
    {
        return (or_body(base), format!("{n} is out of range"));
    }
    if msg.starts_with("invalid type") && base.is_empty() {
        return ("body".to_string(), "must be a JSON object".to_string());
    }
    if let Some(rest) = msg.strip_prefix("invalid type: ") {
        return (base, format!("has the wrong type: {}", json_words(rest)));
    }
    (or_body(base), msg.to_string())
}

/// serde's names for kinds of value, in JSON's words: "sequence, expected a map" reads
/// "got an array, expected an object".
fn json_words(rest: &str) -> String {
    let word = |w: &str| -> String {
        let w = w.trim();
        if is_rust_integer(w) {
            return "an integer".into();
        }
        if let Some(number) = w.strip_prefix("floating point `").and_then(|n| n.strip_suffix('`')) {
            return number.into();
        }
        match w {
            "sequence" | "a sequence" => "an array".into(),
            "map" | "a map" => "an object".into(),
            "unit value" | "unit" => "null".into(),
            w if w.starts_with("struct ") => "an object".into(),
            w => w.to_string(),
        }
    };
    match rest.split_once(", expected ") {
        Some((got, expected)) => format!("got {}, expected {}", word(got), word(expected)),
        None => word(rest),
    }
}

/// serde's name of an integer type (`u32`, `i64`, `usize`), which a client knows as "integer".
fn is_rust_integer(word: &str) -> bool {
    let digits = word.strip_prefix(['u', 'i']).unwrap_or("");
    matches!(digits, "8" | "16" | "32" | "64" | "128" | "size")
}

fn or_body(base: String) -> String {
    if base.is_empty() { "body".to_string() } else { base }
}

/// `true`, for `#[serde(default = "crate::decode::yes")]` on boolean fields that default on.
pub fn yes() -> bool {
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An integer field and an optional one, declared as plain types.
    #[derive(Debug, serde::Deserialize, schemars::JsonSchema)]
    struct Count {
        n: u8,
        #[serde(default)]
        maybe: Option<u8>,
    }

    impl Validate for Count {
        fn validate(&self, _: &str) -> Result<(), crate::validate::FieldError> {
            Ok(())
        }
    }

    fn from_body(text: &str) -> Result<Count, ApiError> {
        body(&OpRequest { input: InputKind::Body, body: text.to_string().into(), ..OpRequest::default() })
    }

    fn from_query(text: &str) -> Result<Count, ApiError> {
        query(&OpRequest { input: InputKind::Query, query: text.to_string(), ..OpRequest::default() })
    }

    #[test]
    fn integers_as_json_schema_counts_them() {
        for ok in [r#"{"n": 7}"#, r#"{"n": 7.0}"#, r#"{"n": 7e0}"#, r#"{"n": 7, "maybe": 3.0}"#] {
            assert_eq!(from_body(ok).unwrap().n, 7, "{ok}");
        }
        assert_eq!(from_body(r#"{"n": 7, "maybe": 3.0}"#).unwrap().maybe, Some(3));
        assert_eq!(from_body(r#"{"n": 7, "maybe": null}"#).unwrap().maybe, None);
        for (bad, message) in [
            (r#"{"n": 7.5}"#, "has the wrong type: got 7.5, expected an integer"),
            // One unit in the last place below 1: a number JSON Schema calls not an integer,
            // which a parser rounding to the nearest float but one would read as 1.
            (r#"{"n": 0.9999999999999999}"#, "has the wrong type: got 0.9999999999999999, expected an integer"),
            (r#"{"n": 7.000000000000001}"#, "has the wrong type: got 7.000000000000001, expected an integer"),
            (r#"{"n": 256}"#, "256 is out of range"),
            (r#"{"n": 256.0}"#, "256 is out of range"),
            (r#"{"n": -1}"#, "-1 is out of range"),
            (r#"{"n": "x"}"#, "has the wrong type: got string \"x\", expected an integer"),
            (r#"{"n": true}"#, "has the wrong type: got boolean `true`, expected an integer"),
            (r#"{"n": null}"#, "has the wrong type: got null, expected an integer"),
            (r#"{"n": "7"}"#, "has the wrong type: got string \"7\", expected an integer"),
            (r#"{"n": 7, "maybe": 1.5}"#, "has the wrong type: got 1.5, expected an integer"),
        ] {
            let e = from_body(bad).unwrap_err();
            let field = if bad.contains("maybe") { "maybe" } else { "n" };
            assert_eq!(
                (e.field.as_deref(), e.message.as_ref()),
                (Some(field), format!("{field}: {message}").as_str()),
                "{bad}"
            );
        }
        // Strings are numbers only where everything is text: query and path parameters.
        assert_eq!(from_query("n=7").unwrap().n, 7);
        assert_eq!(from_query("n=7.0&maybe=%203%20").unwrap().maybe, Some(3));
        let e = from_query("n=seven").unwrap_err();
        assert_eq!(
            (e.field.as_deref(), e.message.as_ref()),
            (Some("n"), "n: has the wrong type: got \"seven\", expected an integer")
        );
        assert!(from_query("n=7.5").is_err());
    }

    #[test]
    fn rephrases_serde_messages() {
        assert_eq!(rephrase(".", "missing field `text`"), ("text".into(), "is required".into()));
        assert_eq!(
            rephrase("opts", "unknown field `x`, expected `a` or `b`"),
            ("opts.x".into(), "is not a known field; expected one of a or b".into())
        );
        assert_eq!(
            rephrase(".", "duplicate field `max_length`"),
            ("max_length".into(), "is given twice: send it once, in one of its spellings".into())
        );
        assert_eq!(
            rephrase("to", "unknown variant `up`, expected one of `camel`, `snake`"),
            ("to".into(), "must be one of camel, snake (got \"up\")".into())
        );
        assert_eq!(
            rephrase("original", "invalid type: sequence, expected a map"),
            ("original".into(), "has the wrong type: got an array, expected an object".into())
        );
        assert_eq!(
            rephrase(".", "invalid type: sequence, expected struct X"),
            ("body".into(), "must be a JSON object".into())
        );
    }
}
