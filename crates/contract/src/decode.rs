//! Turning a request into an operation's input type, with errors a client can act on.
//!
//! Syntax errors in the body become `INVALID_JSON` with line and column; everything else that
//! serde or the derived `Validate` refuses becomes `VALIDATION_ERROR` naming the field in the
//! client's spelling (`data[2].name`, `count`). serde's messages are rephrased where they speak
//! of Rust rather than of the request ("missing field" becomes "is required").

use std::cell::Cell;

use serde::{Deserialize, de::DeserializeOwned};

use crate::{
    envelope::{ApiError, ErrorCode},
    op::{InputKind, OpRequest},
    validate::Validate,
};

/// JSON's whitespace (RFC 8259 section 2): space, tab, line feed, carriage return. Not form
/// feed or vertical tab, which `u8::is_ascii_whitespace` would also accept.
fn json_whitespace(b: &u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | b'\r')
}

/// Decodes the input the way the route that received the request reads it: a JSON body, or
/// the query string and path parameters.
pub fn input<T: DeserializeOwned + Validate>(req: &OpRequest) -> Result<T, ApiError> {
    match req.input {
        InputKind::Body => body(req),
        InputKind::Query => query(req),
        // `#[op]` gives raw and input-less routes no decoder; reaching this is a bug.
        InputKind::Raw | InputKind::None => Err(ApiError::internal("this route has no input to decode")),
    }
}

/// Decodes the JSON body. An empty body counts as `{}`, so operations without required
/// fields can be called with no body at all.
pub fn body<T: DeserializeOwned + Validate>(req: &OpRequest) -> Result<T, ApiError> {
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
    if crate::bounds::json_deeper_than(bytes, crate::bounds::MAX_NESTING + 1) {
        return Err(ApiError::invalid(
            "body",
            format!("a field's value is nested deeper than {} levels, the limit", crate::bounds::MAX_NESTING),
        ));
    }
    let mut de = serde_json::Deserializer::from_slice(bytes);
    de.disable_recursion_limit();
    let value: T = match serde_path_to_error::deserialize(&mut de) {
        Ok(v) => v,
        Err(e) => {
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

thread_local! {
    /// Set while query-string and path parameters are decoded: there every value arrives as
    /// text, so [`integer`] reads numbers from strings. In a JSON body it never does (the
    /// document says `integer`, and `"2"` is a string).
    static TEXT_NUMBERS: Cell<bool> = const { Cell::new(false) };
}

fn valid_json(bytes: &[u8]) -> bool {
    let mut de = serde_json::Deserializer::from_slice(bytes);
    serde::de::IgnoredAny::deserialize(&mut de).and_then(|_| de.end()).is_ok()
}

/// Decodes query-string and path parameters (path parameters win over a query parameter of
/// the same name).
pub fn query<T: DeserializeOwned + Validate>(req: &OpRequest) -> Result<T, ApiError> {
    crate::flag::while_set(&TEXT_NUMBERS, || query_text(req))
}

fn query_text<T: DeserializeOwned + Validate>(req: &OpRequest) -> Result<T, ApiError> {
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
fn decode_pairs<T: DeserializeOwned + Validate>(pairs: &[(String, String)]) -> Result<T, ApiError> {
    let encoded = serde_urlencoded::to_string(pairs).map_err(|e| ApiError::invalid("query", e))?;
    let de = serde_urlencoded::Deserializer::new(form_urlencoded::parse(encoded.as_bytes()));
    let value: T = serde_path_to_error::deserialize(de).map_err(|e| {
        let path = e.path().to_string();
        let (field, message) = rephrase(&path, &e.inner().to_string());
        ApiError::invalid(&field, message)
    })?;
    value.validate("")?;
    Ok(value)
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
    if msg.contains("untagged enum IntLike") {
        return (or_body(base), "must be an integer".to_string());
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

fn or_body(base: String) -> String {
    if base.is_empty() { "body".to_string() } else { base }
}

/// Deserializes an integer field the way JSON Schema counts integers: `15` and `15.0` are both
/// the integer 15, while `15.5`, an out-of-range value or (in a JSON body) a string is refused.
/// Query and path parameters arrive as text and are read from it. Use it on every integer
/// input field:
/// `#[serde(deserialize_with = "crate::decode::integer")]`.
pub fn integer<'de, D, T>(d: D) -> Result<T, D::Error>
where
    D: serde::Deserializer<'de>,
    T: TryFrom<i128>,
{
    use serde::de::{Error, Unexpected};

    #[derive(Deserialize)]
    #[serde(untagged)]
    enum IntLike {
        Number(serde_json::Number),
        Text(String),
    }
    let (shown, whole): (String, Option<i128>) = match IntLike::deserialize(d)? {
        IntLike::Number(n) => (
            n.to_string(),
            n.as_i128().or_else(|| n.as_f64().filter(|f| f.fract() == 0.0 && f.abs() < 1e30).map(|f| f as i128)),
        ),
        IntLike::Text(s) if !TEXT_NUMBERS.get() => {
            return Err(D::Error::invalid_type(Unexpected::Str(&s), &"an integer"));
        }
        IntLike::Text(s) => {
            let t = s.trim();
            let parsed = t.parse::<i128>().ok().or_else(|| {
                t.parse::<f64>().ok().filter(|f| f.is_finite() && f.fract() == 0.0 && f.abs() < 1e30).map(|f| f as i128)
            });
            (format!("{s:?}"), parsed)
        }
    };
    match whole {
        Some(i) => T::try_from(i).map_err(|_| D::Error::custom(format!("{shown} is out of range"))),
        None => Err(D::Error::invalid_type(Unexpected::Other(&shown), &"an integer")),
    }
}

/// [`integer`] for an optional field: `null` or absence is `None`. Use with
/// `#[serde(default, deserialize_with = "crate::decode::optional_integer")]`.
pub fn optional_integer<'de, D, T>(d: D) -> Result<Option<T>, D::Error>
where
    D: serde::Deserializer<'de>,
    T: TryFrom<i128>,
{
    use serde::de::Error;
    match Option::<serde_json::Value>::deserialize(d)? {
        None | Some(serde_json::Value::Null) => Ok(None),
        Some(v) => integer(v).map(Some).map_err(D::Error::custom),
    }
}

/// `true`, for `#[serde(default = "crate::decode::yes")]` on boolean fields that default on.
pub fn yes() -> bool {
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, serde::Deserialize)]
    struct Count {
        #[serde(deserialize_with = "integer")]
        n: u8,
    }

    #[derive(Debug, serde::Deserialize)]
    struct Maybe {
        #[serde(default, deserialize_with = "optional_integer")]
        n: Option<u8>,
    }

    #[test]
    fn optional_integers_take_null_and_absence() {
        assert_eq!(serde_json::from_str::<Maybe>(r#"{}"#).unwrap().n, None);
        assert_eq!(serde_json::from_str::<Maybe>(r#"{"n": null}"#).unwrap().n, None);
        assert_eq!(serde_json::from_str::<Maybe>(r#"{"n": 3.0}"#).unwrap().n, Some(3));
        assert!(serde_json::from_str::<Maybe>(r#"{"n": 3.5}"#).is_err());
    }

    #[test]
    fn integers_as_json_schema_counts_them() {
        for ok in [r#"{"n": 7}"#, r#"{"n": 7.0}"#, r#"{"n": 7e0}"#] {
            assert_eq!(serde_json::from_str::<Count>(ok).unwrap().n, 7, "{ok}");
        }
        for bad in [
            r#"{"n": 7.5}"#,
            // One unit in the last place below 1: a number JSON Schema calls not an integer,
            // which a parser rounding to the nearest float but one would read as 1.
            r#"{"n": 0.9999999999999999}"#,
            r#"{"n": 7.000000000000001}"#,
            r#"{"n": 256}"#,
            r#"{"n": -1}"#,
            r#"{"n": "x"}"#,
            r#"{"n": true}"#,
            r#"{"n": null}"#,
            r#"{"n": "7"}"#,
        ] {
            assert!(serde_json::from_str::<Count>(bad).is_err(), "{bad}");
        }
        // Strings are numbers only where everything is text: query and path parameters.
        let req = OpRequest { query: "n=7".into(), ..OpRequest::default() };
        #[derive(Debug, serde::Deserialize)]
        struct Q {
            #[serde(deserialize_with = "integer")]
            n: u8,
        }
        impl Validate for Q {
            fn validate(&self, _: &str) -> Result<(), crate::validate::FieldError> {
                Ok(())
            }
        }
        assert_eq!(query::<Q>(&req).unwrap().n, 7);
        assert!(serde_json::from_str::<Count>(r#"{"n": "7"}"#).is_err(), "the flag does not outlive the query");
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
