//! `json/query`: values picked out of a JSON document by an RFC 9535 JSONPath query or a
//! JMESPath expression, within the bounds of `query_bounds.rs`, or computed by a jq program in
//! a worker process that can be stopped (`wrench_kit::jq`).

use serde_json::Value;
use serde_json_path::JsonPath;

use wrench_contract::prelude::*;

use super::query_bounds::{
    MAX_FANOUT, MAX_OUTPUT, MAX_RESULTS, MAX_WORK, descendants_in_filters, fanout, jmespath_to_json, json_size,
    node_count,
};

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize, Serialize, JsonSchema, Validate)]
#[serde(rename_all = "lowercase")]
enum QueryLanguage {
    /// RFC 9535 JSONPath: `$.store.book[?@.price < 10].title`.
    #[default]
    Jsonpath,
    /// JMESPath (the AWS CLI's `--query`): `store.book[?price < `10`].title`.
    Jmespath,
    /// jq: `.store.book[] | select(.price < 10) | .title`.
    Jq,
}

#[derive(Debug, Deserialize, JsonSchema, Validate)]
#[serde(deny_unknown_fields)]
struct JsonQueryInput {
    /// The document: any JSON value.
    json: Value,
    /// The query, in `language`.
    #[schemars(length(min = 1, max = 4096))]
    query: String,
    /// `jsonpath` (the default), `jmespath` or `jq`.
    #[serde(default)]
    language: QueryLanguage,
}

#[derive(Debug, Serialize, JsonSchema)]
struct JsonQueryOutput {
    /// JSONPath: every node the query selects, in document order. JMESPath: one value, the
    /// expression's result (null when nothing matched). jq: every value the program outputs,
    /// in order.
    results: Vec<Value>,
    /// JSONPath: each result's normalized path (RFC 9535 section 2.7), `$['store']['book'][0]`.
    /// JMESPath and jq: null.
    paths: Option<Vec<String>>,
    /// How many results.
    count: usize,
    language: QueryLanguage,
}

/// A location as RFC 9535 section 2.7 writes a normalized path: names in single quotes with
/// `\b \f \n \r \t \' \\` escaped and other control characters as `\u00xx`.
fn normalized_path(location: &serde_json_path::NormalizedPath<'_>) -> String {
    use serde_json_path::PathElement;
    let mut out = String::from("$");
    for element in location.iter() {
        match element {
            PathElement::Index(i) => out.push_str(&format!("[{i}]")),
            PathElement::Name(name) => {
                out.push_str("['");
                for c in name.chars() {
                    match c {
                        '\u{8}' => out.push_str("\\b"),
                        '\u{c}' => out.push_str("\\f"),
                        '\n' => out.push_str("\\n"),
                        '\r' => out.push_str("\\r"),
                        '\t' => out.push_str("\\t"),
                        '\'' => out.push_str("\\'"),
                        '\\' => out.push_str("\\\\"),
                        c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
                        c => out.push(c),
                    }
                }
                out.push_str("']");
            }
        }
    }
    out
}

fn jsonpath(doc: &Value, query: &str) -> Result<(Vec<Value>, Option<Vec<String>>), ApiError> {
    let path = JsonPath::parse(query).map_err(|e| ApiError::invalid("query", format!("not RFC 9535 JSONPath: {e}")))?;
    let k = descendants_in_filters(query);
    if k > 0 {
        let work = (node_count(doc) as f64).powi(1 + k as i32);
        if work > MAX_WORK {
            return Err(ApiError::invalid(
                "query",
                format!(
                    "has {k} descendant segment(s) inside filters, about {work:.0} steps on this document (the most is {MAX_WORK:.0}); filter a smaller part of it"
                ),
            ));
        }
    }
    let located = path.query_located(doc);
    let mut results = Vec::new();
    let mut paths = Vec::new();
    let mut budget = MAX_OUTPUT;
    for node in located.iter() {
        if results.len() == MAX_RESULTS {
            return Err(ApiError::invalid("query", format!("selects more than {MAX_RESULTS} nodes")));
        }
        let size = json_size(node.node(), budget)
            .ok_or_else(|| ApiError::invalid("query", format!("selects more than {MAX_OUTPUT} bytes of JSON")))?;
        budget -= size;
        results.push(node.node().clone());
        paths.push(normalized_path(node.location()));
    }
    Ok((results, Some(paths)))
}

/// JMESPath's built-in functions, with `avg` of an empty array answering null as the
/// specification says (the library's own fails dividing by zero).
static JMESPATH: std::sync::LazyLock<jmespath::Runtime> = std::sync::LazyLock::new(|| {
    use jmespath::functions::{ArgumentType, CustomFunction, Signature};
    use jmespath::{Rcvar, Variable};
    let mut runtime = jmespath::Runtime::new();
    runtime.register_builtin_functions();
    let numbers = Signature::new(vec![ArgumentType::TypedArray(Box::new(ArgumentType::Number))], None);
    let avg = CustomFunction::new(
        numbers,
        Box::new(|args: &[Rcvar], _: &mut jmespath::Context<'_>| {
            let values = args[0].as_array().map(Vec::as_slice).unwrap_or_default();
            let sum: f64 = values.iter().filter_map(|v| v.as_number()).sum();
            let mean = (!values.is_empty()).then(|| serde_json::Number::from_f64(sum / values.len() as f64)).flatten();
            Ok(Rcvar::new(mean.map_or(Variable::Null, Variable::Number)))
        }),
    );
    runtime.register_function("avg", Box::new(avg));
    runtime
});

fn jmespath(doc: &Value, query: &str) -> Result<(Vec<Value>, Option<Vec<String>>), ApiError> {
    let expr = JMESPATH
        .compile(query)
        .map_err(|e| ApiError::invalid("query", format!("not JMESPath at character {}: {}", e.offset + 1, e.reason)))?;
    let spread = fanout(expr.as_ast());
    if spread > MAX_FANOUT {
        return Err(ApiError::invalid(
            "query",
            format!("multiplies values {spread} times through its multiselects (the most is {MAX_FANOUT})"),
        ));
    }
    let found = expr
        .search(doc)
        .map_err(|e| ApiError::invalid("query", format!("failed at character {}: {}", e.offset + 1, e.reason)))?;
    let mut budget = MAX_OUTPUT;
    let value = jmespath_to_json(&found, &mut budget)
        .ok_or_else(|| ApiError::invalid("query", format!("answers more than {MAX_OUTPUT} bytes of JSON")))?;
    Ok((vec![value], None))
}

fn jq(doc: &Value, program: &str) -> Result<(Vec<Value>, Option<Vec<String>>), ApiError> {
    use wrench_kit::jq::{Fault, Limits, run};
    let limits = Limits { max_results: MAX_RESULTS, max_output: MAX_OUTPUT, ..Limits::default() };
    run(program, doc, &limits).map(|results| (results, None)).map_err(|f| match f {
        Fault::Syntax { message, offset } => {
            let at = offset.map(|o| format!(" at character {}", program[..o.min(program.len())].chars().count() + 1));
            ApiError::invalid("query", format!("not jq{}: {message}", at.unwrap_or_default()))
        }
        Fault::Runtime(m) => ApiError::invalid("query", format!("failed {m}")),
        Fault::TooLarge(m) | Fault::Stopped(m) => ApiError::invalid("query", m),
        Fault::Unavailable(m) => ApiError::internal(m),
    })
}

/// Query JSON with JSONPath, JMESPath or jq.
///
/// Runs an RFC 9535 JSONPath query (filters, slices, descendants and the standard functions
/// `length`, `count`, `match`, `search`, `value`) and answers every selected node with its
/// normalized path, or evaluates a JMESPath expression (projections, filters, multiselects,
/// pipes and the built-in functions) and answers its value, or runs a jq program (jq's
/// language and standard library as jaq implements them, without environment, inputs or
/// modules) and answers every value it outputs. A query that does not parse is a 400 naming the
/// position. Queries are bounded: descendants inside filters and JMESPath multiselects are
/// limited by the work they imply; a jq program runs in a worker process stopped after 5
/// seconds or 512 MiB; answers hold at most 100,000 values and 4 MiB.
#[op(post "/v1/json/query" as jsonQuery, tag = TextAndData, pipe(json -> results), cpu,
     rejects = "a query that does not parse, fails, or passes the work and answer bounds",
     example(jsonpath_filter, {"json": {"store": {"book": [{"title": "Sayings", "price": 8.95}, {"title": "Sword", "price": 12.99}]}}, "query": "$.store.book[?@.price < 10].title"}),
     example(jsonpath_descendants, {"json": {"a": {"id": 1, "b": {"id": 2}}, "c": [{"id": 3}]}, "query": "$..id"}),
     example(jmespath_projection, {"json": {"people": [{"name": "Ada", "age": 36}, {"name": "Alan", "age": 41}]}, "query": "people[?age > `40`].name", "language": "jmespath"}),
     example(bad_query, {"json": {}, "query": "$.a[", "language": "jsonpath"}, status = 400))]
async fn json_query(input: JsonQueryInput) -> Result<JsonQueryOutput, ApiError> {
    let (results, paths) = match input.language {
        QueryLanguage::Jsonpath => jsonpath(&input.json, &input.query)?,
        QueryLanguage::Jmespath => jmespath(&input.json, &input.query)?,
        QueryLanguage::Jq => jq(&input.json, &input.query)?,
    };
    Ok(JsonQueryOutput { count: results.len(), results, paths, language: input.language })
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    /// The JSONPath Compliance Test Suite (RFC 9535's, tests/fixtures/jsonpath_cts.json): every
    /// valid selector gives one of the results the suite allows, with their paths, and every
    /// invalid one is refused as a 400 naming `query`.
    #[tokio::test]
    async fn jsonpath_compliance_suite() {
        let f = crate::testing::fixture("jsonpath_cts.json");
        let mut checked = 0;
        for t in f["tests"].as_array().unwrap() {
            let name = t["name"].as_str().unwrap();
            let query = t["selector"].as_str().unwrap();
            let doc = t.get("document").cloned().unwrap_or(Value::Null);
            let out = jsonpath(&doc, query);
            if t["invalid_selector"].as_bool() == Some(true) {
                let e = out.expect_err(name);
                assert_eq!(e.field.as_deref(), Some("query"), "{name}");
            } else {
                let (results, paths) = out.unwrap_or_else(|e| panic!("{name}: {}", e.message));
                let results = Value::Array(results);
                let paths = json!(paths.unwrap());
                match (t.get("result"), t.get("results")) {
                    (Some(want), _) => {
                        assert_eq!(&results, want, "{name}");
                        if let Some(p) = t.get("result_paths") {
                            assert_eq!(&paths, p, "{name}");
                        }
                    }
                    (None, Some(any)) => {
                        let i = any.as_array().unwrap().iter().position(|w| w == &results);
                        assert!(i.is_some(), "{name}: {results} is none of {any}");
                    }
                    _ => panic!("{name}: no expected result"),
                }
            }
            checked += 1;
        }
        assert!(checked > 600, "{checked}");
    }

    // Equal as JMESPath compares values: numbers by value (its functions compute in floats, so
    // `abs(-1)` is 1.0 where the tests write 1).
    use crate::testing::same_by_value as same;

    /// JMESPath's compliance tests (tests/fixtures/jmespath_compliance.json, from the
    /// specification's repository): every expression's result, and every error case refused.
    #[tokio::test]
    async fn jmespath_compliance_suite() {
        let f = crate::testing::fixture("jmespath_compliance.json");
        let mut checked = 0;
        let mut failures = Vec::new();
        for file in f.as_array().unwrap() {
            for group in file["groups"].as_array().unwrap() {
                let given = &group["given"];
                for case in group["cases"].as_array().unwrap() {
                    let expr = case["expression"].as_str().unwrap();
                    let out = jmespath(given, expr);
                    let ok = match (case.get("error"), case.get("result"), &out) {
                        (Some(_), _, out) => out.is_err(),
                        (None, Some(want), Ok((results, _))) => same(&results[0], want),
                        (None, Some(_), Err(_)) => false,
                        (None, None, _) => true,
                    };
                    if !ok {
                        failures.push(format!(
                            "{}: {expr} -> {:?}",
                            file["name"],
                            out.map(|o| o.0).map_err(|e| e.message)
                        ));
                    }
                    checked += 1;
                }
            }
        }
        assert!(failures.is_empty(), "{} of {checked} failed:\n{}", failures.len(), failures.join("\n"));
        assert!(checked > 700, "{checked}");
    }

    #[tokio::test]
    async fn hostile_queries_are_refused_before_they_run() {
        let big: Value = (0..20_000).map(|i| json!({"x": i})).collect();
        let e = jsonpath(&big, "$..[?@..x]").unwrap_err();
        assert!(e.message.contains("descendant"), "{}", e.message);
        assert!(jsonpath(&json!([{"x": 1}]), "$..[?@..x]").is_ok());
        let doubling = (0..10).map(|_| "[@, @]").collect::<Vec<_>>().join(" | ");
        let e = jmespath(&json!(1), &doubling).unwrap_err();
        assert!(e.message.contains("multiselect"), "{}", e.message);
        // Within the fan-out bound but past the answer's: 256 copies of a 40 KB document.
        let wide: Value = json!("y".repeat(40_000));
        let e = jmespath(&wide, "[@, @, @, @] | [@, @, @, @] | [@, @, @, @] | [@, @, @, @]").unwrap_err();
        assert!(e.message.contains("bytes"), "{}", e.message);
        let e = jsonpath(&Value::Array(vec![json!("z".repeat(50_000)); 100]), "$[*]").unwrap_err();
        assert!(e.message.contains("bytes"), "{}", e.message);
    }

    /// The jq worker of this test binary: the binary itself, running only [`jq_worker_entry`].
    fn this_binary_runs_jq() {
        let exe = std::env::current_exe().expect("the test binary");
        let name = "text::formats::json_query::tests::jq_worker_entry";
        let args = ["--exact", name, "--nocapture", "--test-threads=1", "-q"].map(std::ffi::OsString::from).to_vec();
        wrench_kit::jq::set_worker(exe, args, vec![("WRENCH_JQ_WORKER".into(), "1".into())]);
    }

    /// In a worker started by [`this_binary_runs_jq`], evaluates the request and ends the
    /// process; run as an ordinary test, does nothing.
    #[test]
    fn jq_worker_entry() {
        if std::env::var_os("WRENCH_JQ_WORKER").is_some() {
            std::process::exit(wrench_kit::jq::worker::main());
        }
    }

    fn jq_on(doc: Value, program: &str) -> Result<Vec<Value>, ApiError> {
        this_binary_runs_jq();
        jq(&doc, program).map(|(results, paths)| {
            assert!(paths.is_none());
            results
        })
    }

    #[test]
    fn jq_programs_answer_every_output() {
        let doc = json!({"store": {"book": [{"title": "Sayings", "price": 8.95}, {"title": "Sword", "price": 12.99}]}});
        assert_eq!(jq_on(doc.clone(), ".store.book[] | select(.price < 10) | .title").unwrap(), [json!("Sayings")]);
        assert_eq!(jq_on(doc.clone(), ".store.book | map(.title) | join(\", \")").unwrap(), [json!("Sayings, Sword")]);
        assert_eq!(jq_on(json!([3, 1, 2]), ".[] , (sort | length)").unwrap(), [json!(3), json!(1), json!(2), json!(3)]);
        assert_eq!(jq_on(json!(null), "empty").unwrap(), Vec::<Value>::new());
        assert!(jq_on(json!({"a": 1}), "$ENV").unwrap_err().message.contains("not defined"));
        assert_eq!(jq_on(json!(null), "[nan, infinite]").unwrap(), [json!([null, f64::MAX])]);
    }

    #[test]
    fn jq_faults_say_what_went_wrong() {
        let e = jq_on(json!(1), ".a | (").unwrap_err();
        assert!(e.message.starts_with("query: not jq at character"), "{}", e.message);
        let e = jq_on(json!(1), "nosuch(1)").unwrap_err();
        assert!(e.message.contains("nosuch") && e.message.contains("character 1"), "{}", e.message);
        let e = jq_on(json!(1), "1, error(\"boom\")").unwrap_err();
        assert!(e.message.contains("after 1 values") && e.message.contains("boom"), "{}", e.message);
        let e = jq_on(json!({}), "import \"x\" as x; .").unwrap_err();
        assert!(e.message.starts_with("query: "), "{}", e.message);
    }

    /// Programs that never end, recurse without end, allocate without end or answer without
    /// end are each stopped with a 400 that says which, and the next program runs as before.
    #[test]
    fn hostile_jq_programs_are_stopped() {
        for (program, words) in [
            ("def f: f; f", "stopped"),
            ("def f: [f]; f", "stopped"),
            ("last(range(1e18))", "stopped"),
            ("[range(1e9)] | length", "stopped"),
            ("repeat(1)", "more than 100000 values"),
            ("[range(1000000)]", "bytes"),
            ("halt", "halted"),
        ] {
            let e = jq_on(json!(null), program).map(|r| r.len()).unwrap_err();
            assert!(e.message.contains(words), "{program}: {}", e.message);
        }
        assert_eq!(jq_on(json!([1, 2]), "add").unwrap(), [json!(3)]);
    }

    /// Programs over jq's language and library (tests/fixtures/jq_programs.py) answer what
    /// libjq 1.8 answers: the same values in the same order (numbers by value), or a failure
    /// where it fails. The departures are listed with their reasons.
    ///
    /// The departures, each for a reason: jaq's own documented choices (updates of `null` by
    /// an index and `del` of several indices, `limit` of a negative count, `"x" * 0`, NaN and
    /// infinity written by name, `pick` on arrays, `todate` of a broken-down time), what the
    /// worker withholds on purpose (the environment, inputs, modules, `halt`), builtins jaq
    /// does not have (`$__loc__`, `have_decnum`), and the regular expression engine, which
    /// has no Unicode classes or lookaround and counts empty matches differently.
    const JQ_DEPARTURES: &[&str] = &[
        "del(.store.book[1, 2]) | .store.book | length",
        "input_line_number? // 0",
        "$__loc__",
        "[nan] | tojson",
        "infinite | tostring",
        "\"x\" * 0",
        "[range(10)] | del(.[2, 4])",
        "1425599621 | gmtime | todate",
        "pick(.[0])?",
        "have_decnum",
        "limit(-1; 1, 2)",
        "input?",
        "[inputs]",
        "input_filename",
        "$ENV | type",
        "env.HOME",
        "halt_error?",
        "get_search_list?",
        ".s | [match(\"\"; \"g\").offset] | length",
        ".s | test(\"\\\\p{L}+\")?",
        ".s | splits(\"(?=,)\")?",
    ];

    #[test]
    fn jq_programs_answer_as_libjq_answers() {
        let f = crate::testing::fixture("jq_programs.json");
        let mut failures = Vec::new();
        let mut departed = Vec::new();
        for case in f["cases"].as_array().unwrap() {
            let program = case["program"].as_str().unwrap();
            let doc = f["documents"][case["doc"].as_str().unwrap()].clone();
            let got = jq_on(doc, program);
            let ok = match (&got, case.get("results")) {
                (Ok(mine), Some(Value::Array(want))) => {
                    mine.len() == want.len() && mine.iter().zip(want).all(|(a, b)| same(a, b))
                }
                (Err(_), None) => true,
                _ => false,
            };
            if JQ_DEPARTURES.contains(&program) {
                assert!(!ok, "{program:?} no longer departs from libjq; take it off the list");
                departed.push(program);
                continue;
            }
            if !ok {
                let shown = |v: String| v.chars().take(300).collect::<String>();
                let mine = match &got {
                    Ok(r) => shown(json!(r).to_string()),
                    Err(e) => format!("error {}", e.message),
                };
                let want =
                    case.get("results").map_or_else(|| format!("error {}", case["error"]), |r| shown(r.to_string()));
                failures.push(format!("{program:?} on {}\n   wrench {mine}\n   libjq  {want}", case["doc"]));
            }
        }
        assert!(
            failures.is_empty(),
            "{} of {}:\n{}",
            failures.len(),
            f["cases"].as_array().unwrap().len(),
            failures.join("\n")
        );
        assert_eq!(departed.len(), JQ_DEPARTURES.len(), "every departure is a case of the fixture");
    }
}
