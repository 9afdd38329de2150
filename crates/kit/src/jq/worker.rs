//! The side of a jq run that evaluates: in its own process, started by [`super::run`], it reads
//! the program and document from stdin, runs the program with jaq (jaq-core, jaq-std,
//! jaq-json: jq's language in Rust) and writes one answer to stdout after [`super::MARK`].
//!
//! It first lowers its own limits (memory, CPU seconds), so that a program that allocates or
//! loops without end is stopped by the kernel even before the parent's clock runs out. It runs
//! with no environment (`$ENV` is not defined, and nothing of the server's settings can be
//! read), no inputs and no module search path.

use std::io::{Read, Write};

use jaq_core::load::{Arena, File, Loader};
use jaq_core::{Compiler, Ctx, Vars, data, unwrap_valr};
use jaq_json::{Num, Val};
use serde_json::{Map, Number, Value, json};

use super::{Limits, MARK};

/// Evaluates the request on stdin and writes the answer to stdout; returns the exit status.
pub fn main() -> i32 {
    let limits = Limits::default();
    set_own_limits(&limits);
    let mut request = Vec::new();
    if std::io::stdin().read_to_end(&mut request).is_err() {
        return 2;
    }
    // Deep recursion in a program is legitimate up to a point; past it the thread's guard page
    // ends the process, which the parent reports. jaq's values are not `Send`, so the thread
    // reads the request itself.
    let answer = std::thread::Builder::new()
        .stack_size(limits.stack_bytes)
        .spawn(move || {
            let word = |i: usize| request.get(i..i + 8).map(|b| u64::from_le_bytes(b.try_into().expect("eight bytes")));
            let (n, max_results, max_output) = (word(0)? as usize, word(8)? as usize, word(16)? as usize);
            let limits = Limits { max_results, max_output, ..limits };
            let (program, doc) = request.get(24..)?.split_at_checked(n)?;
            let (Ok(program), Ok(doc)) = (std::str::from_utf8(program), jaq_json::read::parse_single(doc)) else {
                return None;
            };
            Some(evaluate(program, doc, &limits))
        })
        .expect("a thread for the program")
        .join();
    let answer = match answer {
        Ok(Some(answer)) => answer,
        Ok(None) => return 2,
        Err(_) => json!({"error": {"kind": "runtime", "message": "the program failed inside jq's engine"}}),
    };
    let mut out = std::io::stdout().lock();
    let written = out
        .write_all(MARK)
        .and_then(|()| serde_json::to_writer(&mut out, &answer).map_err(std::io::Error::other))
        .and_then(|()| out.flush());
    if written.is_ok() { 0 } else { 2 }
}

#[cfg(target_os = "linux")]
fn set_own_limits(limits: &Limits) {
    use rustix::process::{Resource, Rlimit, setrlimit};
    let cap = |n: u64| Rlimit { current: Some(n), maximum: Some(n) };
    // Failing to lower a limit leaves the parent's clock and output bounds in force.
    let _ = setrlimit(Resource::As, cap(limits.memory_bytes));
    let _ = setrlimit(Resource::Cpu, cap(limits.cpu_seconds));
    let _ = setrlimit(Resource::Core, cap(0));
    // Under a container's memory limit, the kernel's choice falls on this process first.
    let _ = std::fs::write("/proc/self/oom_score_adj", "1000");
}

#[cfg(not(target_os = "linux"))]
fn set_own_limits(_: &Limits) {}

/// Runs `program` on `doc`: `{"results": [...]}`, or `{"error": {kind, message, offset?}}`.
fn evaluate(program: &str, doc: Val, limits: &Limits) -> Value {
    let file = File { code: program, path: () };
    let extra = jaq_core::load::parse(EXTRA_DEFS, |p| p.defs()).expect("the extra definitions parse");
    let loader = Loader::new(jaq_core::defs().chain(jaq_std::defs()).chain(jaq_json::defs()).chain(extra));
    let arena = Arena::default();
    let modules = match loader.load(&arena, file) {
        Ok(m) => m,
        Err(errors) => return syntax_error(program, &errors),
    };
    let funs = jaq_core::funs().chain(jaq_std::funs()).chain(jaq_json::funs()).chain(tables());
    let filter = match Compiler::default().with_funs(funs).compile(modules) {
        Ok(f) => f,
        Err(errors) => {
            let (at, message) = errors
                .first()
                .and_then(|(_, undefined)| undefined.first())
                .map(|(name, u)| {
                    (jaq_core::load::span(program, name).start, format!("the {} {name} is not defined", u.as_str()))
                })
                .unwrap_or((0, "the program does not compile".into()));
            return error("syntax", &message, Some(at));
        }
    };
    let ctx = Ctx::<data::JustLut<Val>>::new(&filter.lut, Vars::new([]));
    let mut results = Vec::new();
    let mut size = 0usize;
    for out in filter.id.run((ctx, doc)).map(unwrap_valr) {
        match out {
            Ok(v) => {
                if results.len() == limits.max_results {
                    return error("limit", &format!("answers more than {} values", limits.max_results), None);
                }
                let Some(json) = to_json(&v, &mut size, limits.max_output) else {
                    return error("limit", &format!("answers more than {} bytes of JSON", limits.max_output), None);
                };
                results.push(json);
            }
            Err(e) => return error("runtime", &format!("after {} values: {e}", results.len()), None),
        }
    }
    json!({"results": results})
}

/// jq builtins that jaq's library leaves out, written here in jq: membership (`IN`), keyed
/// objects (`INDEX`), and the streaming form (`tostream`, `fromstream`), whose events are
/// `[path, leaf]` for each scalar or empty container and `[path]` after a container's last
/// child. `fromstream` builds its value with `_stream_put`, since jaq refuses to update `null`
/// by an index, or an array past its end, where jq creates the container.
const EXTRA_DEFS: &str = r#"
def IN(s): any(s == .; .);
def IN(src; s): any(src == s; .);
def INDEX(rows; key): reduce rows as $row ({}; .[$row | key | tostring] = $row);
def INDEX(key): INDEX(.[]; key);
def tostream:
  def children_first: (.[]? | children_first), .;
  path(children_first) as $at | getpath($at)
  | if (type == "array" or type == "object") and length > 0
    then [$at + [if type == "array" then length - 1 else (keys_unsorted | last) end]]
    else [$at, .] end;
def _stream_put($at; $leaf):
  if ($at | length) == 0 then $leaf
  else $at[0] as $k
    | (if . == null then (if ($k | type) == "number" then [] else {} end) else . end)
    | if ($k | type) == "number" and $k >= length then . + [null | _stream_put($at[1:]; $leaf)]
      else .[$k] |= _stream_put($at[1:]; $leaf) end
  end;
def fromstream(events):
  {value: null, done: false} as $start
  | foreach events as $e ($start;
      (if .done then $start else . end)
      | if ($e | length) == 2
        then .value |= _stream_put($e[0]; $e[1]) | .done = (($e[0] | length) == 0)
        else .done = (($e[0] | length) == 1) end;
      if .done then .value else empty end);
"#;

/// `@csv` and `@tsv`, which jaq's library leaves out: an array of scalars as one row.
fn tables<D: for<'a> jaq_core::DataT<V<'a> = Val>>() -> impl Iterator<Item = jaq_core::native::Fun<D>> {
    table_filters().into_vec().into_iter().map(jaq_core::native::run)
}

fn table_filters<D: for<'a> jaq_core::DataT<V<'a> = Val>>() -> Box<[jaq_core::native::Filter<jaq_core::RunPtr<D>>]> {
    use jaq_core::native::{bome, v};
    Box::new([("@csv", v(0), |cv| bome(row(&cv.1, true))), ("@tsv", v(0), |cv| bome(row(&cv.1, false)))])
}

/// One CSV row (strings quoted, quotes doubled) or TSV row (tab, line breaks and backslash
/// escaped); numbers and booleans as their JSON text, null as nothing.
fn row(v: &Val, csv: bool) -> jaq_core::ValR<Val> {
    let fail = |what: &dyn std::fmt::Display| {
        jaq_json::Error::str(format_args!("{what} is not valid in a {} row", if csv { "csv" } else { "tsv" }))
    };
    let Val::Arr(cells) = v else { return Err(fail(v)) };
    let mut out = String::new();
    for (i, cell) in cells.iter().enumerate() {
        if i > 0 {
            out.push(if csv { ',' } else { '\t' });
        }
        match cell {
            Val::Null => {}
            Val::Bool(_) | Val::Num(_) => out.push_str(&cell.to_string()),
            Val::TStr(b) | Val::BStr(b) => {
                let s = String::from_utf8_lossy(b);
                if csv {
                    out.push('"');
                    out.push_str(&s.replace('"', "\"\""));
                    out.push('"');
                } else {
                    for c in s.chars() {
                        match c {
                            '\\' => out.push_str("\\\\"),
                            '\t' => out.push_str("\\t"),
                            '\n' => out.push_str("\\n"),
                            '\r' => out.push_str("\\r"),
                            c => out.push(c),
                        }
                    }
                }
            }
            other => return Err(fail(other)),
        }
    }
    Ok(Val::utf8_str(out.into_bytes()))
}

fn error(kind: &str, message: &str, offset: Option<usize>) -> Value {
    let mut e = json!({"kind": kind, "message": message});
    if let Some(at) = offset {
        e["offset"] = json!(at);
    }
    json!({"error": e})
}

fn syntax_error<P>(program: &str, errors: &jaq_core::load::Errors<&str, P>) -> Value {
    use jaq_core::load::Error;
    let Some((_, first)) = errors.first() else { return error("syntax", "the program does not parse", None) };
    let (message, at) = match first {
        Error::Io(e) => {
            (format!("cannot load modules: {}", e.first().map(|(p, m)| format!("{p}: {m}")).unwrap_or_default()), None)
        }
        Error::Lex(e) => e
            .first()
            .map(|(expect, part)| {
                (format!("expected {}", expect.as_str()), Some(jaq_core::load::span(program, part).start))
            })
            .unwrap_or(("the program does not parse".into(), None)),
        Error::Parse(e) => e
            .first()
            .map(|(expect, part)| {
                let found = if part.is_empty() {
                    "the end".to_owned()
                } else {
                    format!("{:?}", part.chars().take(20).collect::<String>())
                };
                (
                    format!("expected {}, found {found}", expect.as_str()),
                    Some(jaq_core::load::span(program, part).start),
                )
            })
            .unwrap_or(("the program does not parse".into(), None)),
    };
    error("syntax", &message, at)
}

/// A jaq value as JSON, counting its compact size against `max`; `None` once past it. As jq
/// writes them: NaN is null, infinities the largest finite doubles, byte strings and invalid
/// UTF-8 as text with replacement characters, non-string keys as their JSON text.
fn to_json(v: &Val, size: &mut usize, max: usize) -> Option<Value> {
    *size += 8;
    if *size > max {
        return None;
    }
    Some(match v {
        Val::Null => Value::Null,
        Val::Bool(b) => Value::Bool(*b),
        Val::Num(n) => number(n),
        Val::TStr(b) | Val::BStr(b) => {
            *size += b.len();
            Value::String(String::from_utf8_lossy(b).into_owned())
        }
        Val::Arr(a) => Value::Array(a.iter().map(|x| to_json(x, size, max)).collect::<Option<_>>()?),
        Val::Obj(o) => {
            let mut m = Map::new();
            for (k, x) in o.iter() {
                let key = match k {
                    Val::TStr(b) | Val::BStr(b) => String::from_utf8_lossy(b).into_owned(),
                    other => other.to_string(),
                };
                *size += key.len();
                m.insert(key, to_json(x, size, max)?);
            }
            Value::Object(m)
        }
    })
    .filter(|_| *size <= max)
}

fn number(n: &Num) -> Value {
    let float = |f: f64| {
        if f.is_nan() {
            Value::Null
        } else {
            Value::Number(Number::from_f64(f.clamp(f64::MIN, f64::MAX)).expect("finite"))
        }
    };
    match n {
        Num::Int(i) => Value::Number((*i as i64).into()),
        Num::BigInt(b) => {
            let text = b.to_string();
            text.parse::<i64>()
                .map(|i| Value::Number(i.into()))
                .or_else(|_| text.parse::<u64>().map(|u| Value::Number(u.into())))
                .unwrap_or_else(|_| float(text.parse().unwrap_or(f64::NAN)))
        }
        Num::Float(f) => float(*f),
        // A number written in the input, kept as it was written while nothing computed on it.
        Num::Dec(s) => serde_json::from_str::<Number>(s)
            .map(Value::Number)
            .unwrap_or_else(|_| float(s.parse().unwrap_or(f64::NAN))),
    }
}
