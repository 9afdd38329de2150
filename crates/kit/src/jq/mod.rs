//! jq programs run in a process of their own, so that any program can be stopped.
//!
//! A jq program is a full language: recursion, `repeat`, `until`, `range(1e18)`. An evaluator
//! inside the server could not be interrupted, and a program that recursed without end would
//! overflow a thread's stack and take the whole server down. So [`run`] starts a worker (the
//! server's own executable, `wrench jq-worker`, whose body is [`worker::main`]), gives it the
//! program and document on stdin, and reads one answer from stdout, within [`Limits`]: the
//! worker lowers its own memory and CPU limits, and the parent kills it when its clock runs
//! out, when it answers more than the output bound, or on any failure, then reports which.
//!
//! The request on stdin is three little-endian `u64`s (the program's length in bytes, the most
//! values and the most bytes of JSON to answer), the program, then the document as JSON. The
//! worker command is the running executable with `jq-worker`; a test binary names another with
//! [`set_worker`].

pub mod worker;

use std::ffi::OsString;
use std::io::{Read, Write};
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use serde_json::Value;

/// What starts every answer on the worker's stdout; anything before it (a test harness's own
/// lines) is skipped.
pub const MARK: &[u8] = b"\x1ewrench-jq-answer\n";

/// What one run may take.
#[derive(Debug, Clone)]
pub struct Limits {
    /// Wall-clock time from start to answer.
    pub timeout: Duration,
    /// CPU seconds the worker may use (its own limit, enforced by the kernel).
    pub cpu_seconds: u64,
    /// Address space of the worker (its own limit).
    pub memory_bytes: u64,
    /// Stack of the thread that evaluates.
    pub stack_bytes: usize,
    /// Most values an answer holds.
    pub max_results: usize,
    /// Most bytes of compact JSON an answer holds.
    pub max_output: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            timeout: Duration::from_secs(5),
            cpu_seconds: 5,
            memory_bytes: 512 << 20,
            stack_bytes: 64 << 20,
            max_results: 100_000,
            max_output: 4 << 20,
        }
    }
}

/// Why a run gave no results.
#[derive(Debug, PartialEq)]
pub enum Fault {
    /// The program does not parse or names what does not exist; `offset` is a byte offset in
    /// the program where known.
    Syntax { message: String, offset: Option<usize> },
    /// jq's own error while running (`error("x")`, `1 + "a"`), after some values.
    Runtime(String),
    /// The answer passed a bound on values or bytes.
    TooLarge(String),
    /// The program ran out of time, memory or stack, and the worker was stopped.
    Stopped(String),
    /// No worker could be started or spoke no answer: the server's fault, not the program's.
    Unavailable(String),
}

struct Worker {
    program: PathBuf,
    args: Vec<OsString>,
    env: Vec<(OsString, OsString)>,
}

static WORKER: OnceLock<Worker> = OnceLock::new();

/// Names the command that starts a worker: `program` with `args`, with `env` as its only
/// environment. For test binaries, which are not the server's executable; the first call wins.
pub fn set_worker(program: PathBuf, args: Vec<OsString>, env: Vec<(OsString, OsString)>) {
    let _ = WORKER.set(Worker { program, args, env });
}

fn worker() -> Result<&'static Worker, Fault> {
    if let Some(w) = WORKER.get() {
        return Ok(w);
    }
    let exe = std::env::current_exe().map_err(|e| Fault::Unavailable(format!("the server's executable: {e}")))?;
    Ok(WORKER.get_or_init(|| Worker { program: exe, args: vec!["jq-worker".into()], env: Vec::new() }))
}

/// Runs `program` on `doc` in a worker and answers its values.
pub fn run(program: &str, doc: &Value, limits: &Limits) -> Result<Vec<Value>, Fault> {
    let w = worker()?;
    let mut request = Vec::with_capacity(program.len() + 64);
    for word in [program.len(), limits.max_results, limits.max_output] {
        request.extend((word as u64).to_le_bytes());
    }
    request.extend(program.as_bytes());
    serde_json::to_writer(&mut request, doc).map_err(|e| Fault::Unavailable(format!("the document: {e}")))?;
    let mut child = Command::new(&w.program)
        .args(&w.args)
        .env_clear()
        .envs(w.env.iter().map(|(k, v)| (k, v)))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .map_err(|e| Fault::Unavailable(format!("a jq worker could not start: {e}")))?;
    let mut stdin = child.stdin.take().expect("piped");
    let mut stdout = child.stdout.take().expect("piped");
    // Writing and reading each on their own thread: a worker that answers before it has read
    // everything must not block against a parent still writing.
    let writer = std::thread::spawn(move || {
        let _ = stdin.write_all(&request);
    });
    let cap = limits.max_output * 2 + 4096;
    let reader = std::thread::spawn(move || {
        let mut out = Vec::new();
        let _ = (&mut stdout).take(cap as u64 + 1).read_to_end(&mut out);
        out
    });
    let deadline = Instant::now() + limits.timeout;
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break Some(status),
            Ok(None) if Instant::now() < deadline && !reader.is_finished() => {
                std::thread::sleep(Duration::from_millis(2))
            }
            Ok(None) if reader.is_finished() => match child.wait() {
                Ok(status) => break Some(status),
                Err(_) => break None,
            },
            _ => {
                let _ = child.kill();
                let _ = child.wait();
                break None;
            }
        }
    };
    let _ = writer.join();
    let out = reader.join().unwrap_or_default();
    if out.len() > cap {
        let _ = child.kill();
        return Err(Fault::TooLarge(format!("answers more than {} bytes of JSON", limits.max_output)));
    }
    let Some(status) = status else {
        return Err(Fault::Stopped(format!(
            "ran longer than {} seconds and was stopped",
            limits.timeout.as_secs_f64()
        )));
    };
    let Some(at) = out.windows(MARK.len()).position(|w| w == MARK) else {
        return Err(stopped(status));
    };
    let answer: Value = serde_json::from_slice(&out[at + MARK.len()..])
        .map_err(|e| Fault::TooLarge(format!("an answer that cannot be read back ({e}); values nest too deep")))?;
    if let Some(results) = answer.get("results").and_then(Value::as_array) {
        return Ok(results.clone());
    }
    let e = &answer["error"];
    let message = e["message"].as_str().unwrap_or("failed").to_owned();
    Err(match e["kind"].as_str() {
        Some("syntax") => Fault::Syntax { message, offset: e["offset"].as_u64().map(|o| o as usize) },
        Some("limit") => Fault::TooLarge(message),
        _ => Fault::Runtime(message),
    })
}

/// What a worker that ended without an answer ran into, read from how it ended.
fn stopped(status: std::process::ExitStatus) -> Fault {
    #[cfg(unix)]
    {
        use std::os::unix::process::ExitStatusExt;
        match status.signal() {
            Some(9) | Some(24) => return Fault::Stopped("used more than its share of CPU time and was stopped".into()),
            // Rust aborts on a failed allocation and on a stack overflow alike.
            Some(6) | Some(7) | Some(11) => {
                return Fault::Stopped("ran out of memory or stack (recursion too deep) and was stopped".into());
            }
            _ => {}
        }
    }
    match status.code() {
        Some(code) => Fault::Runtime(format!("halted with exit status {code} before answering")),
        None => Fault::Stopped(format!("was stopped ({status})")),
    }
}
