//! A webhook inbox's receive URL: every method, any sub-path, any body, stored byte for byte.
//!
//! The URL is called by third parties: it takes any body and media type, does not read API
//! keys (their Authorization headers belong to the inbox owner and are stored, never logged),
//! and answers at once. Each delivery becomes one entry of the inbox's log, with what was
//! received (method, sub-path, query, headers in order, address, HTTP version, exact bytes and
//! their SHA-256), the form fields of a form body and, when the inbox checks signatures, the
//! verdict.

use std::time::Duration;

use sha2::Digest;
use wrench_kit::webhook::{
    delivery::{self, Recorded},
    form, signatures,
};

use crate::storage::{
    webhook::cache,
    webhook::model::{InboxRecord, log_key, not_found},
};
use wrench_contract::{
    op::{IntoReply, OpRequest, RawReply, Reply},
    prelude::*,
};
use wrench_infra::{
    store::{Appended, LogAppend},
    time,
};

/// The undecoded delivery, handed over whole by the pipeline.
struct Delivery(OpRequest);

impl From<OpRequest> for Delivery {
    fn from(r: OpRequest) -> Delivery {
        Delivery(r)
    }
}

#[derive(Debug, Serialize, JsonSchema)]
struct Received {
    /// Always true.
    received: bool,
    /// The payload id.
    id: String,
}

/// What a delivery is answered: the envelope, or the answer the inbox's creator configured.
enum Answer {
    Envelope(Received),
    Configured(RawReply),
}

impl IntoReply for Answer {
    fn into_reply(self, response_limit: usize) -> Result<Reply, ApiError> {
        match self {
            Answer::Envelope(r) => Reply::json(&r, response_limit),
            Answer::Configured(raw) => Ok(Reply::Raw(raw)),
        }
    }

    fn envelope_schema(generator: &mut schemars::SchemaGenerator) -> Option<schemars::Schema> {
        Some(generator.subschema_for::<Received>())
    }
}

/// The sub-path after `/receive`, percent-decoded (`/` when there is none).
fn sub_path(req: &OpRequest) -> String {
    let rest = req.path_params.get("path").map(String::as_str).unwrap_or("");
    let decoded = percent_encoding::percent_decode_str(rest).decode_utf8_lossy();
    format!("/{}", decoded.trim_start_matches('/'))
}

async fn record(req: &OpRequest, inbox: &InboxRecord, ctx: &Ctx) -> Recorded {
    let header_list: Vec<(String, String)> = req
        .headers
        .iter()
        .map(|(name, value)| (name.as_str().to_string(), String::from_utf8_lossy(value.as_bytes()).into_owned()))
        .collect();
    let now = time::now();
    let verification = inbox
        .verify
        .as_ref()
        .map(|check| signatures::verify(check, &req.headers, &req.body, time::unix_ms(now) as i64 / 1000));
    Recorded {
        received_at: time::rfc3339(now),
        method: req.method.clone(),
        path: sub_path(req),
        query_string: req.query.clone(),
        header_list,
        content_type: req.content_type.clone(),
        sha256: hex::encode(sha2::Sha256::digest(&req.body)),
        ip: ctx.client_ip.map(|ip| ip.to_string()).unwrap_or_default(),
        http_version: req.http_version.to_string(),
        form: form::parse(req.content_type.as_deref(), &req.body).await,
        verification,
        forward: None,
    }
}

/// Relays a stored delivery to the inbox's `forwardTo` and records how it went on the payload.
/// It runs after the sender was answered, so a slow target never delays a provider.
fn forward(ctx: &Ctx, id: &str, seq: u64, url: &str, mut recorded: Recorded, body: bytes::Bytes) {
    let (net, store, log, url) = (ctx.net.clone(), ctx.store.clone(), log_key(id), url.to_string());
    tokio::spawn(async move {
        let started = std::time::Instant::now();
        let outcome = match (url::Url::parse(&url), delivery::outgoing(&recorded, &body, None)) {
            (Ok(target), Some(request)) => net.relay(target, &request, 0).await.map_err(|e| e.message().to_string()),
            _ => Err("the forward URL or the stored method cannot be sent".to_string()),
        };
        let duration_ms = started.elapsed().as_millis() as u64;
        recorded.forward = Some(match outcome {
            Ok(answer) => delivery::Forwarded { url, status: Some(answer.status), duration_ms, error: None },
            Err(error) => delivery::Forwarded { url, status: None, duration_ms, error: Some(error) },
        });
        // Gone since (dropped as older, the inbox deleted): nothing to record.
        let _ = store.log_update(&log, seq, &delivery::encode(&recorded, &body)).await;
    });
}

/// Receive a webhook.
///
/// The URL to give a webhook provider: any method (GET, HEAD, POST, PUT, PATCH, DELETE,
/// OPTIONS), with or without a sub-path after `/receive` (recorded as `path`), any body up to
/// the body limit (1 MiB by default) of any media type. The exact bytes are kept with the
/// method, headers in order, query, sender address and SHA-256: `body` is the parsed JSON, or
/// null with the body in `rawBody` when it is not JSON, and `form` lists the fields of a form
/// body. API keys are not read here, so a provider's own Authorization header does no harm.
/// Deliveries do not count against the sender's anonymous rate limit; each inbox takes up to
/// 600 a minute (the operator's `WRENCH_INBOX_RATE_PER_MINUTE`), past which deliveries get 429
/// with `Retry-After`, which providers retry. Unknown or expired inboxes are 404
/// `INBOX_NOT_FOUND`. A stored delivery is answered with the JSON envelope below, or with the
/// answer the inbox was configured to give (`response` at creation: any status, headers, body
/// and delay). An inbox with `forwardTo` then relays the delivery there (same method, header
/// fields and bytes, through the outbound layer's address checks) and records the outcome on
/// the payload as `forward`.
#[op(post "/v1/webhook/inbox/{id}/receive" as receiveWebhook,
     get "/v1/webhook/inbox/{id}/receive" as receiveWebhookGet,
     put "/v1/webhook/inbox/{id}/receive" as receiveWebhookPut,
     patch "/v1/webhook/inbox/{id}/receive" as receiveWebhookPatch,
     delete "/v1/webhook/inbox/{id}/receive" as receiveWebhookDelete,
     head "/v1/webhook/inbox/{id}/receive" as receiveWebhookHead,
     options "/v1/webhook/inbox/{id}/receive" as receiveWebhookOptions,
     post "/v1/webhook/inbox/{id}/receive/{path...}" as receiveWebhookAtPath,
     get "/v1/webhook/inbox/{id}/receive/{path...}" as receiveWebhookAtPathGet,
     put "/v1/webhook/inbox/{id}/receive/{path...}" as receiveWebhookAtPathPut,
     patch "/v1/webhook/inbox/{id}/receive/{path...}" as receiveWebhookAtPathPatch,
     delete "/v1/webhook/inbox/{id}/receive/{path...}" as receiveWebhookAtPathDelete,
     head "/v1/webhook/inbox/{id}/receive/{path...}" as receiveWebhookAtPathHead,
     options "/v1/webhook/inbox/{id}/receive/{path...}" as receiveWebhookAtPathOptions,
     tag = Storage, input = raw, output = raw("application/json", "*/*"),
     uses(store), errors(INBOX_NOT_FOUND, RATE_LIMITED),
     example(unknown_inbox, {"id": "AAAAAAAAAAAAAAAA", "event": "ping"}, status = 404),
     example(malformed_id, {"id": "nope", "event": "ping"}, status = 404))]
async fn receive_webhook(input: Delivery, ctx: &Ctx) -> Result<Answer, ApiError> {
    let req = input.0;
    let id = req.path_params.get("id").cloned().unwrap_or_default();
    let (mut raw, mut inbox) = match cache::get(ctx, &id) {
        Some(known) => known,
        None => cache::load(ctx, &id).await?,
    };
    // Deliveries do not count against the sender's anonymous quota (one provider address
    // serves many inboxes); each inbox has a bound of its own instead, a window per clock
    // minute counted in the same step as the append.
    let per_minute = ctx.config.inbox_rate_per_minute;
    let (minute, reset) = wrench_infra::rate::window_at(time::unix_secs(), 60);
    let window_key = format!("inbox:{{{id}}}:deliveries:{minute}");
    let window = (per_minute > 0).then(|| (window_key.as_str(), i64::from(per_minute), Duration::from_secs(reset + 1)));
    let (guard, log) = (crate::storage::webhook::model::meta_key(&id), log_key(&id));
    // The delivery is decided with the inbox as this instance last read it, and appended only
    // while the store still holds that record: one round trip. A record changed since (by any
    // instance) comes back instead, and the delivery is decided again with it.
    let mut tries = 0;
    let (seq, recorded) = loop {
        tries += 1;
        let recorded = record(&req, &inbox, ctx).await;
        let stored = delivery::encode(&recorded, &req.body);
        let append = LogAppend {
            guard: &guard,
            log: &log,
            value: &stored,
            max_entries: inbox.max_payloads(&ctx.config),
            max_bytes: ctx.config.inbox_max_bytes,
            window,
            guard_is: Some(raw.as_slice()),
        };
        match ctx.store.log_append(append).await? {
            Appended::Done { seq, .. } => break (seq, recorded),
            Appended::Changed(held) if tries < 3 => (raw, inbox) = cache::put(ctx, &id, held)?,
            Appended::Changed(_) => {
                let busy = "the inbox kept changing during the delivery; send it again";
                return Err(ApiError::new(ErrorCode::StoreUnavailable, busy).with_retry_after(1));
            }
            Appended::NoGuard => {
                cache::forget(ctx, &id);
                return Err(not_found(&id));
            }
            Appended::Limited(_) => {
                return Err(wrench_infra::rate::limited(per_minute, reset, "deliveries", " to this inbox"));
            }
        }
    };
    if let Some(url) = &inbox.forward_to {
        forward(ctx, &id, seq, url, recorded, req.body.clone());
    }
    Ok(match &inbox.response {
        Some(configured) => Answer::Configured(configured.reply()),
        None => Answer::Envelope(Received { received: true, id: seq.to_string() }),
    })
}
