//! The access line each request writes at `info` (target `wrench::request`), built by hand.
//!
//! The line reads like every other line of the log: the same timestamp, level and target, and
//! `key=value` fields in text or one flat object in JSON (`WRENCH_LOG_FORMAT`). It costs a
//! fraction of what the same line costs through `tracing`'s formatter. The line is written
//! into a buffer each thread keeps and reuses, with no allocation per field, then appended to
//! one shared batch. A thread of its own hands the batch to the log's background writer
//! (`logging::init`) every [`DRAIN_EVERY`], or at once when it passes [`BATCH_BYTES`]: a
//! request pays for a short lock and a copy, not for a message and a wake-up of the writer
//! each. So an access line can reach the log up to [`DRAIN_EVERY`] after lines logged
//! directly; its timestamp is the request's. [`flush`] writes what is left when the server
//! stops. BENCHMARKS.md ("Footprint and speed") has the figures that led to this.
//!
//! When the log goes to a terminal (coloured), or `WRENCH_LOG` filters `wrench::request` out,
//! [`install`] is not called and the HTTP layer falls back to `tracing` (or writes nothing).

use std::{
    cell::RefCell,
    fmt::Write as _,
    io::Write as _,
    sync::{Mutex, OnceLock},
    time::{Duration, SystemTime, UNIX_EPOCH},
};

use tracing_appender::non_blocking::NonBlocking;
use tracing_subscriber::fmt::MakeWriter;

/// How often the batch of access lines goes to the log writer.
pub(crate) const DRAIN_EVERY: Duration = Duration::from_millis(50);
/// A batch this large goes to the writer at once, by the request that filled it.
pub(crate) const BATCH_BYTES: usize = 256 * 1024;

struct Sink {
    writer: NonBlocking,
    json: bool,
    /// The lines not yet handed to the writer; none when the draining thread could not start,
    /// and each line then goes to the writer itself.
    batch: Option<Mutex<Vec<u8>>>,
}

static SINK: OnceLock<Sink> = OnceLock::new();

/// Sends access lines to `writer`, as JSON objects or as text, in batches.
pub(crate) fn install(writer: NonBlocking, json: bool) {
    if SINK.get().is_some() {
        return;
    }
    // The thread starts first, so that whether there is a batch is known when the sink is
    // set; it finds the sink at its first turn, 50 ms on.
    let drainer = std::thread::Builder::new().name("wrench-access-log".into()).spawn(|| {
        loop {
            std::thread::sleep(DRAIN_EVERY);
            flush();
        }
    });
    let batch = drainer.is_ok().then(|| Mutex::new(Vec::with_capacity(16 * 1024)));
    let _ = SINK.set(Sink { writer, json, batch });
}

/// Hands the pending access lines to the log writer; the server calls it when it stops.
pub(crate) fn flush() {
    let Some(Sink { writer, batch: Some(batch), .. }) = SINK.get() else { return };
    let pending = {
        let mut batch = batch.lock().unwrap_or_else(|e| e.into_inner());
        if batch.is_empty() {
            return;
        }
        std::mem::replace(&mut *batch, Vec::with_capacity(16 * 1024))
    };
    let _ = writer.make_writer().write_all(&pending);
}

/// One request's line: what [`write`] needs.
pub(crate) struct Line<'a> {
    pub request_id: &'a str,
    pub method: &'a str,
    pub path: &'a str,
    pub operation: &'a str,
    pub status: u16,
    pub duration_ms: f64,
}

/// Writes `line` if [`install`] was called; false when it was not (the caller logs through
/// `tracing` instead).
pub(crate) fn write(line: &Line<'_>) -> bool {
    let Some(sink) = SINK.get() else { return false };
    thread_local! {
        static BUFFER: RefCell<String> = RefCell::new(String::with_capacity(256));
    }
    BUFFER.with(|buffer| {
        let mut out = buffer.borrow_mut();
        out.clear();
        format_line(&mut out, line, sink.json, SystemTime::now());
        match &sink.batch {
            Some(batch) => {
                let full = {
                    let mut batch = batch.lock().unwrap_or_else(|e| e.into_inner());
                    batch.extend_from_slice(out.as_bytes());
                    batch.len() >= BATCH_BYTES
                };
                if full {
                    flush();
                }
            }
            None => {
                let _ = sink.writer.make_writer().write_all(out.as_bytes());
            }
        }
        // A path of many kilobytes would otherwise keep its buffer that large.
        if out.capacity() > 4096 {
            *out = String::with_capacity(256);
        }
    });
    true
}

/// The line for `line` at `now`, as `tracing_subscriber::fmt` would write it, newline included.
fn format_line(out: &mut String, line: &Line<'_>, json: bool, now: SystemTime) {
    if json {
        out.push_str("{\"timestamp\":\"");
        timestamp(out, now);
        out.push_str("\",\"level\":\"INFO\",\"message\":\"request\",\"request_id\":");
        json_string(out, line.request_id);
        out.push_str(",\"method\":");
        json_string(out, line.method);
        out.push_str(",\"path\":");
        json_string(out, line.path);
        out.push_str(",\"operation\":");
        json_string(out, line.operation);
        let _ = write!(
            out,
            ",\"status\":{},\"duration_ms\":{:?},\"target\":\"wrench::request\"}}",
            line.status, line.duration_ms
        );
    } else {
        timestamp(out, now);
        // `%` fields are written as they are, plain `&str` fields quoted (`{:?}`), as the
        // formatter does.
        let _ = write!(
            out,
            "  INFO wrench::request: request request_id={} method={} path={} operation={:?} status={} duration_ms={:?}",
            line.request_id, line.method, line.path, line.operation, line.status, line.duration_ms
        );
    }
    out.push('\n');
}

/// `out` += `text` as a JSON string.
fn json_string(out: &mut String, text: &str) {
    out.push('"');
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
}

/// `out` += `now` in RFC 3339, UTC, to the microsecond (`2026-11-27T16:20:00.123456Z`).
fn timestamp(out: &mut String, now: SystemTime) {
    let since = now.duration_since(UNIX_EPOCH).unwrap_or_default();
    let secs = since.as_secs();
    let (year, month, day) = civil_from_days((secs / 86_400) as i64);
    let of_day = secs % 86_400;
    let _ = write!(
        out,
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}.{:06}Z",
        of_day / 3600,
        of_day / 60 % 60,
        of_day % 60,
        since.subsec_micros()
    );
}

/// The proleptic Gregorian date of a day counted from 1970-01-01 (Howard Hinnant's
/// `civil_from_days`, from "chrono-Compatible Low-Level Date Algorithms").
fn civil_from_days(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let month = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let year = yoe + era * 400 + i64::from(month <= 2);
    (year, month, day)
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    #[test]
    fn timestamps_agree_with_jiff_across_four_centuries() {
        // Every 7,919th day from 1970 to 2400, leap days and century years included, at an
        // instant with microseconds; and the day boundaries of 2000-02-29 and 2100-03-01.
        let mut days: Vec<u64> = (0..157_000).step_by(7_919).collect();
        days.extend([11_016, 11_017, 47_541, 47_542]);
        for d in days {
            let at = UNIX_EPOCH + Duration::from_secs(d * 86_400 + 45_296) + Duration::from_micros(789_012);
            let mut ours = String::new();
            timestamp(&mut ours, at);
            let theirs = jiff::Timestamp::try_from(at).unwrap();
            assert_eq!(ours, format!("{theirs:.6}"), "day {d}");
        }
    }

    fn sample() -> Line<'static> {
        Line {
            request_id: "0123456789abcdef0123456789abcdef",
            method: "POST",
            path: "/v1/uuid/v4",
            operation: "uuidV4",
            status: 200,
            duration_ms: 0.125,
        }
    }

    /// The hand-built lines match what `tracing_subscriber::fmt` writes for the event the HTTP
    /// layer would log, in both formats.
    #[test]
    fn lines_match_the_formatter() {
        use std::sync::{Arc, Mutex};
        #[derive(Clone, Default)]
        struct Captured(Arc<Mutex<Vec<u8>>>);
        impl std::io::Write for Captured {
            fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
                self.0.lock().unwrap().extend_from_slice(b);
                Ok(b.len())
            }
            fn flush(&mut self) -> std::io::Result<()> {
                Ok(())
            }
        }
        let line = sample();
        for json in [false, true] {
            let captured = Captured::default();
            let sink = captured.clone();
            let builder = tracing_subscriber::fmt().with_ansi(false).with_writer(move || sink.clone());
            let event = || {
                tracing::info!(
                    target: "wrench::request",
                    request_id = %line.request_id,
                    method = %line.method,
                    path = %line.path,
                    operation = line.operation,
                    status = line.status,
                    duration_ms = line.duration_ms,
                    "request"
                )
            };
            if json {
                tracing::subscriber::with_default(builder.json().flatten_event(true).finish(), event);
            } else {
                tracing::subscriber::with_default(builder.finish(), event);
            }
            let theirs = String::from_utf8(captured.0.lock().unwrap().clone()).unwrap();
            let mut ours = String::new();
            format_line(&mut ours, &line, json, SystemTime::now());
            // The timestamps differ by the moments they were taken at; the rest is the same.
            let cut = |s: &str| s[s.find('Z').unwrap()..].to_string();
            if json {
                let (a, b): (serde_json::Value, serde_json::Value) =
                    (serde_json::from_str(&theirs).unwrap(), serde_json::from_str(&ours).unwrap());
                let strip = |mut v: serde_json::Value| {
                    v.as_object_mut().unwrap().remove("timestamp");
                    v
                };
                assert_eq!(strip(a), strip(b));
                assert_eq!(theirs.len(), ours.len(), "{theirs}{ours}");
            } else {
                assert_eq!(cut(&theirs), cut(&ours));
            }
        }
    }

    #[test]
    fn json_strings_are_escaped() {
        let mut out = String::new();
        json_string(&mut out, "a\"b\\c\u{1}\né");
        assert_eq!(out, "\"a\\\"b\\\\c\\u0001\\né\"");
        let back: String = serde_json::from_str(&out).unwrap();
        assert_eq!(back, "a\"b\\c\u{1}\né");
    }
}
