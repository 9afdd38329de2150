//! A store log as Server-Sent Events: one event per entry, live, for a webhook inbox's
//! deliveries and a short link's visits.
//!
//! The stream reads the log, the same store every instance writes to, so an entry written by
//! any instance behind one Redis (or Redis Cluster) reaches a stream held by any other, and the
//! embedded store works alike. It looks for new entries every 250 ms (one small read of the
//! log's state; the entries only when there are new ones), which keeps "within a second"
//! without any channel between instances. Event ids are entry numbers, so a client that
//! reconnects with `Last-Event-ID` (or `lastEventId`) gets exactly what it missed that the log
//! still holds, nothing twice. A comment line every 15 seconds keeps proxies from closing an
//! idle stream; a `gone` event ends the stream when the log's owner (its guard key) is deleted
//! or expires. Only a client that says it reads event streams (`Accept: text/event-stream`) is
//! kept open; any other request is a poll that ends after what is stored, so that no generic
//! HTTP client waits forever.

use std::{
    sync::atomic::{AtomicUsize, Ordering},
    time::{Duration, Instant},
};

use bytes::Bytes;

use wrench_contract::{
    op::{RawBody, RawReply},
    prelude::*,
};

/// How often a stream looks for new entries.
const POLL: Duration = Duration::from_millis(250);
/// Longest silence before a keep-alive comment.
const HEARTBEAT: Duration = Duration::from_secs(15);
/// Most entries one poll turns into events (and holds in memory); the rest wait for the next.
const BATCH: u64 = 8;
/// Most streams one instance holds open at once (each polls the store).
pub(in crate::storage) const MAX_STREAMS: usize = 1000;

static OPEN: AtomicUsize = AtomicUsize::new(0);

/// Counts an open stream for as long as it lives.
struct Slot;

impl Slot {
    fn take() -> Option<Slot> {
        let before = OPEN.fetch_add(1, Ordering::AcqRel);
        if before >= MAX_STREAMS {
            OPEN.fetch_sub(1, Ordering::AcqRel);
            return None;
        }
        Some(Slot)
    }
}

impl Drop for Slot {
    fn drop(&mut self) {
        OPEN.fetch_sub(1, Ordering::AcqRel);
    }
}

/// One Server-Sent Event: `name`, with entry number `id` as its id and `json` as its data (JSON
/// text holds no line break, so one `data:` line carries it).
pub(in crate::storage) fn framed(id: u64, name: &str, json: &str) -> Bytes {
    Bytes::from(format!("id: {id}\nevent: {name}\ndata: {json}\n\n"))
}

/// What a stream follows.
pub(in crate::storage) struct Follow {
    /// The key whose value lives as long as the log's owner: the stream ends when it is gone.
    pub guard: String,
    /// The log.
    pub log: String,
    /// One entry as an event, with its number as the event id.
    pub event: fn(u64, &[u8]) -> Option<Bytes>,
}

struct State {
    store: std::sync::Arc<dyn wrench_infra::store::Store>,
    follow: Follow,
    /// The last entry number sent (or skipped as already seen).
    cursor: u64,
    last_sent: Instant,
    pending: std::collections::VecDeque<Bytes>,
    /// The log holds more than the last poll sent: poll again without waiting.
    behind: bool,
    done: bool,
    /// Kept open for new deliveries; otherwise the answer ends once what is stored was sent.
    live: bool,
    /// For an answer that ends: bytes it may still take (the response limit).
    budget: usize,
    _slot: Slot,
}

impl State {
    /// The next piece of the stream, waiting as long as it takes; `None` once the guard is gone.
    async fn next(&mut self) -> Option<Bytes> {
        loop {
            if let Some(b) = self.pending.pop_front() {
                self.last_sent = Instant::now();
                return Some(b);
            }
            if self.done || (!self.live && !self.behind) {
                return None;
            }
            if self.last_sent.elapsed() >= HEARTBEAT {
                self.last_sent = Instant::now();
                return Some(Bytes::from_static(b": keep-alive\n\n"));
            }
            if !self.behind {
                tokio::time::sleep(POLL).await;
            }
            self.poll().await;
        }
    }

    async fn poll(&mut self) {
        self.behind = false;
        // A store that does not answer for a moment is waited out, not reported: the stream
        // picks up where it was when it answers again.
        let Ok(exists) = self.store.get(&self.follow.guard).await.map(|m| m.is_some()) else { return };
        if !exists {
            self.pending.push_back(Bytes::from_static(b"event: gone\ndata: {}\n\n"));
            self.done = true;
            return;
        }
        let Ok(state) = self.store.log_state(&self.follow.log).await else { return };
        if state.last <= self.cursor {
            return;
        }
        let from = (self.cursor + 1).max(state.first);
        let to = state.last.min(from + BATCH - 1);
        let Ok(entries) = self.store.log_read(&self.follow.log, from, to).await else { return };
        for (seq, stored) in &entries {
            let Some(e) = (self.follow.event)(*seq, stored) else { continue };
            if !self.live {
                // An answer that ends stays within the response limit; the client asks again
                // with the last id it got.
                if e.len() > self.budget {
                    self.done = true;
                    return;
                }
                self.budget -= e.len();
            }
            self.pending.push_back(e);
            self.cursor = *seq;
        }
        self.cursor = self.cursor.max(to);
        self.behind = to < state.last;
    }
}

/// The stream of `follow`'s log, from the entry after `Last-Event-ID` (the header, or
/// `last_event_id` when there is none) or from the next entry.
pub(in crate::storage) async fn stream(
    ctx: &Ctx,
    follow: Follow,
    last_event_id: Option<&str>,
) -> Result<RawReply, ApiError> {
    let header = ctx.headers.get("last-event-id").and_then(|v| v.to_str().ok()).map(str::trim);
    let resume = header.or(last_event_id).and_then(|v| v.parse::<u64>().ok());
    let last = ctx.store.log_state(&follow.log).await?.last;
    // An id from the future (another log's, a typo) resumes from now rather than never.
    let cursor = resume.map_or(last, |n| n.min(last));
    let slot = Slot::take().ok_or_else(|| {
        ApiError::new(ErrorCode::RateLimited, format!("this instance already holds {MAX_STREAMS} streams; retry later"))
            .with_header(http::header::RETRY_AFTER, http::HeaderValue::from_static("5"))
    })?;
    // A client that does not say it reads event streams gets what is stored and the end of
    // the answer: a poll, rather than a request that never finishes.
    let live = ctx
        .headers
        .get_all(http::header::ACCEPT)
        .iter()
        .any(|v| v.to_str().is_ok_and(|a| a.to_ascii_lowercase().contains("text/event-stream")));
    let mut state = State {
        live,
        budget: ctx.config.response_limit,
        store: ctx.store.clone(),
        follow,
        cursor,
        last_sent: Instant::now(),
        pending: Default::default(),
        behind: false,
        done: false,
        _slot: slot,
    };
    // What was missed comes at once, not after the first poll.
    if resume.is_some() {
        state.poll().await;
    }
    // The first bytes tell the client the stream is open (a browser's EventSource fires `open`).
    state.pending.push_front(Bytes::from_static(b": stream open\nretry: 1000\n\n"));
    let stream = futures_util::stream::unfold(state, |mut s| async move { s.next().await.map(|b| (b, s)) });
    Ok(RawReply {
        status: 200,
        headers: vec![
            (http::header::CONTENT_TYPE, http::HeaderValue::from_static("text/event-stream")),
            (http::header::CACHE_CONTROL, http::HeaderValue::from_static("no-cache")),
            (http::HeaderName::from_static("x-accel-buffering"), http::HeaderValue::from_static("no")),
        ],
        body: RawBody::Stream(Box::pin(stream)),
        delay: Duration::ZERO,
    })
}

/// Reading a stream as a client does, for the features' tests.
#[cfg(test)]
pub(crate) mod read {
    use serde_json::Value;

    /// The events of a stream's text as an SSE client dispatches them (blocks without `data`
    /// are not events; comment lines are skipped), each as the object the document's event
    /// schema describes, with `id` carried over from the last block that set one.
    pub(crate) fn events(text: &str) -> Vec<Value> {
        let (mut out, mut last_id) = (Vec::new(), None::<String>);
        for block in text.split("\n\n") {
            let (mut event, mut data) = (serde_json::Map::new(), Vec::new());
            for line in block.lines().filter(|l| !l.starts_with(':')) {
                let (field, value) =
                    line.split_once(':').map_or((line, ""), |(f, v)| (f, v.strip_prefix(' ').unwrap_or(v)));
                match field {
                    "data" => data.push(value),
                    "event" => drop(event.insert("event".into(), value.into())),
                    "id" => last_id = Some(value.to_string()),
                    "retry" => drop(event.insert("retry".into(), value.parse::<u64>().unwrap().into())),
                    _ => {}
                }
            }
            if data.is_empty() {
                continue;
            }
            event.entry("event").or_insert_with(|| "message".into());
            event.insert("data".into(), data.join("\n").into());
            if let Some(id) = &last_id {
                event.insert("id".into(), id.clone().into());
            }
            out.push(Value::Object(event));
        }
        out
    }

    /// Every event of `text` is one the document declares for `path`'s stream: only declared
    /// fields, the required ones present, an `id` of its pattern, `data` one JSON value.
    pub(crate) fn assert_declared(ops: &[wrench_contract::op::Operation], path: &str, text: &str) {
        let doc = wrench_server::openapi::document(ops);
        let schema = &doc["paths"][path]["get"]["responses"]["200"]["content"]["text/event-stream"]["schema"];
        assert_eq!(schema["type"], "object", "{path}: {schema}");
        let pattern = regex::Regex::new(schema["properties"]["id"]["pattern"].as_str().unwrap()).unwrap();
        let events = events(text);
        assert!(!events.is_empty(), "no events in {text}");
        for event in events {
            let fields = event.as_object().unwrap();
            for name in fields.keys() {
                assert!(schema["properties"].get(name).is_some(), "{name} is not declared: {event}");
            }
            for name in schema["required"].as_array().unwrap() {
                assert!(fields.contains_key(name.as_str().unwrap()), "{name} is missing: {event}");
            }
            if let Some(id) = fields.get("id") {
                assert!(pattern.is_match(id.as_str().unwrap()), "{event}");
            }
            assert_eq!(schema["properties"]["data"]["contentMediaType"], "application/json");
            serde_json::from_str::<Value>(fields["data"].as_str().unwrap()).expect("data is JSON");
        }
    }
}
