//! `toml/to-json` and `toml/to-toml`: TOML 1.1 read to JSON, and a JSON object written as TOML,
//! keys in the order given.
//!
//! JSON has no dates: a TOML date-time, local date-time, date or time becomes its TOML text
//! (`1979-05-27T07:32:00Z`, seconds always written), and `toml/to-toml` turns such strings back into TOML dates only
//! when asked. TOML has no null, and JSON no infinity or NaN: those are refused by name.

use serde_json::Value;

use wrench_contract::prelude::*;

#[derive(Debug, Deserialize, JsonSchema, Validate)]
#[serde(deny_unknown_fields)]
struct TomlToJsonInput {
    /// The TOML document.
    toml: String,
}

#[derive(Debug, Serialize, JsonSchema)]
struct TomlToJsonOutput {
    /// The document as a JSON object, keys in document order.
    json: Value,
}

/// `(line, column)`, 1-based, of byte `offset` in `text`.
fn position(text: &str, offset: usize) -> (usize, usize) {
    let before = &text[..offset.min(text.len())];
    let line = before.matches('\n').count() + 1;
    let column = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
    (line, column)
}

fn to_json(v: toml::Value, path: &str) -> Result<Value, ApiError> {
    Ok(match v {
        toml::Value::String(s) => Value::String(s),
        toml::Value::Integer(i) => Value::from(i),
        toml::Value::Float(f) => Value::from(
            serde_json::Number::from_f64(f)
                .ok_or_else(|| ApiError::invalid("toml", format!("{path} is {f}, which JSON cannot hold")))?,
        ),
        toml::Value::Boolean(b) => Value::Bool(b),
        toml::Value::Datetime(mut d) => {
            // TOML 1.1 lets seconds be left out (`07:32`); JSON gets them written (`07:32:00`),
            // as RFC 3339 requires.
            if let Some(t) = d.time.as_mut() {
                t.second.get_or_insert(0);
            }
            Value::String(d.to_string())
        }
        toml::Value::Array(a) => Value::Array(
            a.into_iter().enumerate().map(|(i, x)| to_json(x, &format!("{path}[{i}]"))).collect::<Result<_, _>>()?,
        ),
        toml::Value::Table(t) => Value::Object(
            t.into_iter()
                .map(|(k, x)| Ok((k.clone(), to_json(x, &format!("{path}.{k}"))?)))
                .collect::<Result<_, ApiError>>()?,
        ),
    })
}

/// Convert TOML to JSON.
///
/// Reads a TOML 1.1 document (tables, arrays of tables, inline tables, dotted keys, every
/// string and number form) and answers it as a JSON object in document order. Dates and times
/// become their TOML text; an infinite or NaN float is a 400, as JSON cannot hold it. A
/// document that is not TOML is a 400 with its line and column.
#[op(post "/v1/toml/to-json" as tomlToJson, tag = TextAndData, pipe(toml -> json),
     rejects = "text that is not TOML, or a float JSON cannot hold",
     example(config, {"toml": "title = \"wrench\"\n\n[server]\nport = 8080\nhosts = [\"a\", \"b\"]\nstarted = 1979-05-27T07:32:00Z\n\n[[users]]\nname = \"ada\"\n"}),
     example(invalid, {"toml": "a = 1\na = 2\n"}, status = 400))]
async fn toml_to_json(input: TomlToJsonInput) -> Result<TomlToJsonOutput, ApiError> {
    let table: toml::Table = toml::from_str(&input.toml).map_err(|e| {
        let (line, column) = e.span().map_or((1, 1), |s| position(&input.toml, s.start));
        ApiError::invalid("toml", format!("not TOML at line {line}, column {column}: {}", e.message()))
    })?;
    Ok(TomlToJsonOutput { json: to_json(toml::Value::Table(table), "$")? })
}

#[derive(Debug, Deserialize, JsonSchema, Validate)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct JsonToTomlInput {
    /// The JSON object to write as TOML (a TOML document is a table).
    json: serde_json::Map<String, Value>,
    /// Strings that are TOML dates or times (`1979-05-27`, `07:32:00`,
    /// `1979-05-27T07:32:00Z`) are written as TOML dates rather than strings.
    #[serde(default)]
    parse_datetimes: bool,
}

#[derive(Debug, Serialize, JsonSchema)]
struct JsonToTomlOutput {
    /// The TOML document.
    toml: String,
}

fn to_toml(v: &Value, path: &str, dates: bool) -> Result<toml::Value, ApiError> {
    Ok(match v {
        Value::Null => return Err(ApiError::invalid("json", format!("{path} is null, which TOML cannot hold"))),
        Value::Bool(b) => toml::Value::Boolean(*b),
        Value::Number(n) => match n.as_i64() {
            Some(i) => toml::Value::Integer(i),
            None if n.is_u64() => {
                return Err(ApiError::invalid("json", format!("{path} is {n}, past TOML's 64-bit signed integers")));
            }
            None => toml::Value::Float(n.as_f64().unwrap_or(f64::NAN)),
        },
        Value::String(s) => match s.parse::<toml::value::Datetime>() {
            Ok(d) if dates => toml::Value::Datetime(d),
            _ => toml::Value::String(s.clone()),
        },
        Value::Array(a) => toml::Value::Array(
            a.iter().enumerate().map(|(i, x)| to_toml(x, &format!("{path}[{i}]"), dates)).collect::<Result<_, _>>()?,
        ),
        Value::Object(o) => toml::Value::Table(
            o.iter()
                .map(|(k, x)| Ok((k.clone(), to_toml(x, &format!("{path}.{k}"), dates)?)))
                .collect::<Result<_, ApiError>>()?,
        ),
    })
}

/// Convert a JSON object to TOML.
///
/// Writes the object as a TOML document: nested objects as tables, arrays of objects as
/// arrays of tables, keys in the order given and quoted when they need it. `null`, which TOML
/// lacks, is a 400 naming where it is; with `parseDatetimes`, strings that are TOML dates or
/// times become dates.
#[op(post "/v1/toml/to-toml" as tomlToToml, tag = TextAndData, pipe(json -> toml),
     rejects = "a null anywhere, or an integer past 64-bit signed",
     example(config, {"json": {"title": "wrench", "server": {"port": 8080, "hosts": ["a", "b"]}, "users": [{"name": "ada"}, {"name": "alan"}]}}),
     example(dates, {"json": {"released": "1979-05-27T07:32:00Z", "day": "1979-05-27"}, "parseDatetimes": true}),
     example(null_value, {"json": {"a": null}}, status = 400))]
async fn toml_to_toml(input: JsonToTomlInput) -> Result<JsonToTomlOutput, ApiError> {
    let toml::Value::Table(table) = to_toml(&Value::Object(input.json), "$", input.parse_datetimes)? else {
        unreachable!("an object becomes a table")
    };
    let toml =
        toml::to_string(&table).map_err(|e| ApiError::invalid("json", format!("cannot be written as TOML: {e}")))?;
    Ok(JsonToTomlOutput { toml })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// toml-test's expected value (`{"type": "integer", "value": "1"}`) as plain JSON, or `None`
    /// for a float JSON cannot hold.
    fn untag(v: &Value) -> Option<Value> {
        match v {
            Value::Object(o) if o.len() == 2 && o.contains_key("type") && o["value"].is_string() => {
                let text = o["value"].as_str().unwrap();
                Some(match o["type"].as_str().unwrap() {
                    "integer" => Value::from(text.parse::<i64>().unwrap()),
                    "float" => {
                        Value::from(serde_json::Number::from_f64(text.parse::<f64>().ok().filter(|f| f.is_finite())?)?)
                    }
                    "bool" => Value::Bool(text == "true"),
                    _ => Value::String(text.to_string()),
                })
            }
            Value::Object(o) => {
                Some(Value::Object(o.iter().map(|(k, x)| Some((k.clone(), untag(x)?))).collect::<Option<_>>()?))
            }
            Value::Array(a) => Some(Value::Array(a.iter().map(untag).collect::<Option<_>>()?)),
            other => Some(other.clone()),
        }
    }

    /// Dates as toml-test writes them and as TOML writes them may differ in precision only
    /// (`07:32:00` and `07:32:00.000`): compare their parsed values.
    fn same(a: &Value, b: &Value) -> bool {
        match (a, b) {
            (Value::String(x), Value::String(y)) if x != y => {
                matches!((x.parse::<toml::value::Datetime>(), y.parse::<toml::value::Datetime>()), (Ok(p), Ok(q)) if p == q)
            }
            (Value::Array(x), Value::Array(y)) => x.len() == y.len() && x.iter().zip(y).all(|(x, y)| same(x, y)),
            (Value::Object(x), Value::Object(y)) => {
                x.len() == y.len() && x.iter().all(|(k, v)| y.get(k).is_some_and(|w| same(v, w)))
            }
            (Value::Number(x), Value::Number(y)) => x.as_f64() == y.as_f64(),
            _ => a == b,
        }
    }

    /// BurntSushi's toml-test, TOML 1.1 (tests/fixtures/toml_test.json): every valid document
    /// reads to the expected value and writes back as TOML that reads to it again; every
    /// invalid one is refused with a position. The suite's invalid files that are not UTF-8 are
    /// left out: a JSON string cannot carry them.
    #[tokio::test]
    async fn toml_test_suite() {
        let f = crate::testing::fixture("toml_test.json");
        let mut failures = Vec::new();
        for t in f["valid"].as_array().unwrap() {
            let name = t["name"].as_str().unwrap();
            let Some(want) = untag(&t["json"]) else { continue };
            match toml_to_json(TomlToJsonInput { toml: t["toml"].as_str().unwrap().into() }).await {
                Ok(out) if same(&out.json, &want) => {
                    let Value::Object(o) = out.json.clone() else { unreachable!() };
                    let written = toml_to_toml(JsonToTomlInput { json: o, parse_datetimes: false }).await.unwrap();
                    let again = toml_to_json(TomlToJsonInput { toml: written.toml.clone() }).await;
                    if !again.as_ref().is_ok_and(|a| a.json == out.json) {
                        failures.push(format!("{name}: written as {:?}", written.toml));
                    }
                }
                Ok(out) => failures.push(format!("{name}: {} is not {want}", out.json)),
                Err(e) => failures.push(format!("{name}: {}", e.message)),
            }
        }
        for t in f["invalid"].as_array().unwrap() {
            let name = t["name"].as_str().unwrap();
            match toml_to_json(TomlToJsonInput { toml: t["toml"].as_str().unwrap().into() }).await {
                Ok(out) => failures.push(format!("{name} read as {}", out.json)),
                Err(e) if !e.message.contains("line ") => {
                    failures.push(format!("{name}: no position in {}", e.message))
                }
                Err(_) => {}
            }
        }
        assert!(failures.is_empty(), "{}:\n{}", failures.len(), failures.join("\n"));
    }

    #[tokio::test]
    async fn nulls_and_dates() {
        let json = serde_json::json!({"a": {"b": [1, null]}});
        let Value::Object(o) = json else { unreachable!() };
        let e = toml_to_toml(JsonToTomlInput { json: o, parse_datetimes: false }).await.unwrap_err();
        assert!(e.message.contains("$.a.b[1]"), "{}", e.message);
        let json = serde_json::json!({"d": "1979-05-27"});
        let Value::Object(o) = json else { unreachable!() };
        let out = toml_to_toml(JsonToTomlInput { json: o.clone(), parse_datetimes: true }).await.unwrap();
        assert_eq!(out.toml, "d = 1979-05-27\n");
        let out = toml_to_toml(JsonToTomlInput { json: o, parse_datetimes: false }).await.unwrap();
        assert_eq!(out.toml, "d = \"1979-05-27\"\n");
    }
}
