//! A webhook inbox's live stream: Server-Sent Events, one `delivery` event per payload, by
//! the log stream every storage feature shares (`log_stream.rs`).

use bytes::Bytes;
use wrench_kit::webhook::delivery;

use crate::storage::{
    shared::log_stream::{self, Follow},
    webhook::model::{load, log_key, meta_key},
};
use wrench_contract::{op::RawReply, prelude::*};

#[derive(Debug, Deserialize, JsonSchema, Validate)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct InboxStreamInput {
    /// The inbox id.
    #[schemars(length(min = 1, max = 256))]
    id: String,
    /// Resume after this payload id (what a browser sends as the `Last-Event-ID` header, which
    /// is read too and wins): every later payload the inbox still holds is sent first.
    #[serde(default)]
    #[schemars(length(min = 1, max = 20), pattern("^[0-9]+$"))]
    last_event_id: Option<String>,
}

/// One `delivery` event.
fn event(seq: u64, stored: &[u8]) -> Option<Bytes> {
    let (recorded, body) = delivery::decode(stored)?;
    let json = serde_json::to_string(&delivery::show(seq, recorded, body)).ok()?;
    Some(log_stream::framed(seq, "delivery", &json))
}

/// Stream a webhook inbox's deliveries live.
///
/// Server-Sent Events (`text/event-stream`): one `delivery` event per payload as it arrives,
/// `id:` the payload id and `data:` the payload as listed, within a second of its arrival at
/// any instance sharing the store. Reconnecting with `Last-Event-ID` (or `lastEventId`) first
/// sends every later payload the inbox still holds; without it the stream starts with the next
/// delivery. The stream stays open for a client that sends `Accept: text/event-stream`, as
/// browsers' `EventSource` and SSE clients do (`curl -N -H 'Accept: text/event-stream'`); any
/// other request gets the events stored after `lastEventId` and the end of the answer, a poll. A comment line every 15 seconds keeps the connection open through proxies; a
/// `gone` event ends the stream when the inbox is deleted or expires. One instance holds at
/// most 1,000 streams (429 `RATE_LIMITED` past that). Unknown or expired inboxes are 404
/// `INBOX_NOT_FOUND`.
#[op(get "/v1/webhook/inbox/{id}/stream" as streamWebhookPayloads, tag = Storage,
     output = raw("text/event-stream"), uses(store), errors(INBOX_NOT_FOUND),
     example(unknown, {"id": "AAAAAAAAAAAAAAAA"}, status = 404),
     example(other_shape, {"id": "bad id", "lastEventId": "3"}, status = 404))]
async fn stream_webhook_payloads(input: InboxStreamInput, ctx: &Ctx) -> Result<RawReply, ApiError> {
    load(ctx, &input.id).await?;
    let follow = Follow { guard: meta_key(&input.id), log: log_key(&input.id), event };
    log_stream::stream(ctx, follow, input.last_event_id.as_deref()).await
}
