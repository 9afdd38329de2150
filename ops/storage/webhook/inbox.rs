//! Webhook inboxes: a URL that captures whatever is sent to it, for as long as its creator
//! asked (24 hours unless asked, at most the operator's `WRENCH_INBOX_MAX_TTL`).
//!
//! An inbox is a record (`inbox:{id}`: its settings and expiry) and a store log of deliveries
//! (`inbox:{id}:log`, one entry per delivery) that expires with it, so payloads never outlive
//! their inbox and nothing extends either. This file holds the inbox itself: creating, showing,
//! deleting and clearing it. Deliveries arrive in `receive.rs` and are read in
//! `payloads.rs`. Changing or deleting an inbox takes its manage token, shown once at
//! creation and kept only as a SHA-256 digest.

use std::time::Duration;

use wrench_kit::webhook::signatures::{self, Check, Scheme};

use super::model::{
    DEFAULT_PAYLOADS, ID_LEN, InboxAnswer, InboxRecord, legacy_key, load, log_key, meta_key, not_found, payload_count,
};
use crate::storage::shared::fields::{no_array, present, present_object};
use wrench_contract::prelude::*;
use wrench_infra::{random, time};

/// Lifetime of an inbox that does not ask for one.
const DEFAULT_TTL: Duration = Duration::from_secs(24 * 3600);
/// Headers a configured answer may not set: the server frames and routes its answers itself.
const RESERVED_HEADERS: &[&str] = &[
    "connection",
    "content-length",
    "content-type",
    "keep-alive",
    "proxy-connection",
    "te",
    "trailer",
    "transfer-encoding",
    "upgrade",
    "x-request-id",
];
/// Most header fields a configured answer may set.
const MAX_RESPONSE_HEADERS: usize = 20;
/// Longest value of one such field, in characters. 20 of them stay under the 100 KB of header
/// section that common clients (curl among them) read before giving up on an answer.
const MAX_RESPONSE_HEADER_VALUE: usize = 4096;

/// A configured answer's header value: text of at most 4,096 characters.
#[derive(Debug, Serialize, Deserialize)]
#[serde(transparent)]
struct HeaderText(String);

impl JsonSchema for HeaderText {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "HeaderText".into()
    }

    fn inline_schema() -> bool {
        true
    }

    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({"type": "string", "maxLength": MAX_RESPONSE_HEADER_VALUE})
    }
}

impl Validate for HeaderText {
    fn validate(&self, path: &str) -> Result<(), wrench_contract::validate::FieldError> {
        if self.0.chars().count() > MAX_RESPONSE_HEADER_VALUE {
            return Err(wrench_contract::validate::FieldError {
                path: path.to_string(),
                message: format!("is longer than {MAX_RESPONSE_HEADER_VALUE} characters"),
            });
        }
        Ok(())
    }
}

#[derive(Debug, Deserialize, JsonSchema, Validate)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct InboxResponseInput {
    /// Status of every answer, 200 to 599 (a 1xx is not a final answer); default 200.
    #[serde(default)]
    #[schemars(range(min = 200, max = 599))]
    status: Option<u16>,
    /// Header fields of every answer, `{name: value}`, at most 20, each value at most 4,096
    /// characters. The framing headers (Content-Length, Transfer-Encoding, Connection and the
    /// like), X-Request-Id and Content-Type (give `contentType`) are the server's own.
    #[serde(default)]
    headers: Option<std::collections::BTreeMap<String, HeaderText>>,
    /// Body of every answer, up to 65,536 characters.
    #[serde(default)]
    #[schemars(length(max = 65536))]
    body: Option<String>,
    /// Content-Type of the body; `text/plain; charset=utf-8` when a body is given without one.
    #[serde(default)]
    #[schemars(length(min = 1, max = 256))]
    content_type: Option<String>,
    /// Milliseconds to hold each answer back (a slow endpoint), 0 to 30,000.
    #[serde(default)]
    #[schemars(range(max = 30000))]
    delay_ms: Option<u64>,
}

fn response_of(r: InboxResponseInput) -> Result<InboxAnswer, ApiError> {
    let mut headers = Vec::new();
    let given = r.headers.unwrap_or_default();
    if given.len() > MAX_RESPONSE_HEADERS {
        return Err(ApiError::invalid(
            "response.headers",
            format!("at most {MAX_RESPONSE_HEADERS} fields (got {})", given.len()),
        ));
    }
    for (name, HeaderText(value)) in given {
        let field = format!("response.headers.{name}");
        let Ok(parsed) = http::HeaderName::from_bytes(name.as_bytes()) else {
            return Err(ApiError::invalid(&field, "is not a header name"));
        };
        if RESERVED_HEADERS.contains(&parsed.as_str()) {
            let why =
                if parsed == http::header::CONTENT_TYPE { "is set with `contentType`" } else { "is the server's own" };
            return Err(ApiError::invalid(&field, why));
        }
        if http::HeaderValue::from_str(&value).is_err() {
            return Err(ApiError::invalid(
                &field,
                "holds a character a header value cannot (control characters, line breaks)",
            ));
        }
        headers.push((parsed.as_str().to_string(), value));
    }
    let body = r.body.unwrap_or_default();
    let content_type = match r.content_type {
        Some(ct) if http::HeaderValue::from_str(&ct).is_err() => {
            return Err(ApiError::invalid("response.contentType", "is not a header value"));
        }
        Some(ct) => Some(ct),
        None if !body.is_empty() => Some("text/plain; charset=utf-8".to_string()),
        None => None,
    };
    Ok(InboxAnswer { status: r.status.unwrap_or(200), headers, body, content_type, delay_ms: r.delay_ms.unwrap_or(0) })
}

/// The inbox, when `X-Manage-Token` is its token.
async fn managed(ctx: &Ctx, id: &str) -> Result<InboxRecord, ApiError> {
    let record = load(ctx, id).await?;
    wrench_kit::tokens::require(ctx, "X-Manage-Token", record.manage_token_sha256.as_deref(), "inbox")?;
    Ok(record)
}

#[derive(Debug, Deserialize, JsonSchema, Validate)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct InboxVerifyInput {
    /// The signature scheme deliveries are checked with.
    scheme: Scheme,
    /// The signing secret (`whsec_...` for standard-webhooks, or a `whpk_...` public key for
    /// its ed25519 signatures; Stripe's `whsec_...`; GitHub's webhook secret; any HMAC key).
    #[schemars(length(min = 1, max = 512))]
    secret: String,
    /// Largest distance in seconds between a signed timestamp and the arrival (Standard
    /// Webhooks and Stripe sign one); default 300.
    #[serde(default)]
    #[schemars(range(min = 1, max = 86400))]
    tolerance_seconds: Option<u64>,
    /// For `hmac-sha256`: the header that carries the digest (hex or Base64, `sha256=` allowed).
    #[serde(default)]
    #[schemars(length(min = 1, max = 100))]
    header: Option<String>,
}

#[derive(Debug, Default, Deserialize, JsonSchema, Validate)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct InboxCreateInput {
    /// Seconds the inbox and its payloads live: 60 up to the operator's maximum (7 days unless
    /// configured otherwise); default 86,400 (24 hours).
    #[serde(default)]
    #[schemars(range(min = 60, max = 31_536_000))]
    ttl_seconds: Option<u64>,
    /// Payloads kept, the oldest dropped first: 1 up to the operator's maximum (1,000 unless
    /// configured otherwise); default 50.
    #[serde(default)]
    #[schemars(range(min = 1, max = 10_000))]
    max_payloads: Option<usize>,
    /// Check each delivery's signature; the verdict is stored with it (a delivery that fails is
    /// still stored).
    #[serde(default)]
    verify: Option<InboxVerifyInput>,
    /// Answer every delivery with this instead of the JSON envelope: status, headers, body,
    /// content type and a delay.
    #[serde(default, deserialize_with = "no_array")]
    response: Option<InboxResponseInput>,
    /// Relay every delivery to this http or https URL (its method, header fields and exact
    /// bytes), after answering the sender; the outcome is recorded on the payload. Private and
    /// internal addresses are refused when it is sent, as for every outbound request.
    #[serde(default)]
    #[schemars(length(min = 1, max = 2048))]
    forward_to: Option<String>,
}

fn forward_url(raw: &str) -> Result<String, ApiError> {
    let bad = |why: &str| ApiError::invalid("forwardTo", why.to_string());
    let url = url::Url::parse(raw.trim()).map_err(|e| bad(&format!("is not an absolute URL: {e}")))?;
    if !matches!(url.scheme(), "http" | "https") || url.host_str().is_none() {
        return Err(bad("must be an http or https URL with a host"));
    }
    if !url.username().is_empty() || url.password().is_some() {
        return Err(bad("must not hold a user name or password"));
    }
    Ok(url.to_string())
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct InboxInfo {
    /// The inbox id (16 letters and digits).
    id: String,
    /// When the inbox was created (RFC 3339, UTC).
    created_at: String,
    /// When the inbox and its payloads disappear (RFC 3339, UTC).
    expires_at: String,
    /// Absolute URL to send webhooks to, with any method; any sub-path after it is recorded.
    receive_url: String,
    /// Absolute URL that lists the captured payloads.
    payloads_url: String,
    /// Payloads currently kept.
    #[serde(rename = "payload_count")]
    payload_count: usize,
    /// Most payloads kept; older ones are dropped.
    max_payloads: usize,
    /// Absolute URL of the inbox's live stream of deliveries (Server-Sent Events).
    stream_url: String,
    /// Absolute URL of a page that shows the deliveries and adds new ones live.
    view_url: String,
    /// The signature scheme deliveries are checked with, if any.
    verify_scheme: Option<Scheme>,
    /// What every delivery is answered, when configured (otherwise the JSON envelope).
    response: Option<InboxAnswer>,
    /// Where every delivery is relayed, when configured.
    forward_to: Option<String>,
    /// Give as `X-Manage-Token` to change or delete the inbox or clear its payloads. Shown only
    /// in the answer that created the inbox.
    #[serde(skip_serializing_if = "Option::is_none")]
    manage_token: Option<String>,
}

fn info(ctx: &Ctx, id: String, r: InboxRecord, payload_count: usize) -> InboxInfo {
    let base = format!("{}/v1/webhook/inbox/{id}", ctx.config.public_base());
    InboxInfo {
        receive_url: format!("{base}/receive"),
        payloads_url: format!("{base}/payloads"),
        stream_url: format!("{base}/stream"),
        view_url: format!("{}/inbox/{id}", ctx.config.public_base()),
        max_payloads: r.max_payloads(&ctx.config),
        verify_scheme: r.verify.as_ref().map(|v| v.scheme),
        response: r.response.clone(),
        forward_to: r.forward_to.clone(),
        id,
        created_at: r.created_at,
        expires_at: r.expires_at,
        payload_count,
        manage_token: None,
    }
}

fn check_of(v: InboxVerifyInput) -> Result<Check, ApiError> {
    let header = v.header.map(|h| h.trim().to_ascii_lowercase());
    if let Some(why) = signatures::secret_problem(v.scheme, &v.secret, header.as_deref()) {
        let field = if why.contains("header") { "verify.header" } else { "verify.secret" };
        return Err(ApiError::invalid(field, why));
    }
    Ok(Check { scheme: v.scheme, secret: v.secret, tolerance_seconds: v.tolerance_seconds.unwrap_or(300), header })
}

/// Create a webhook inbox.
///
/// Returns an unguessable id, absolute URLs and a manage token (shown once). Send anything to
/// `receiveUrl`, with any method and any sub-path; read it back from `payloadsUrl`. The inbox
/// and its payloads live `ttlSeconds` (24 hours by default); nothing extends that. It keeps the
/// most recent `maxPayloads` (50 by default), and at most the operator's byte cap, dropping
/// the oldest. With `verify`, each delivery's signature is checked against its exact bytes and
/// the verdict stored with it. With `response`, every delivery is answered as configured
/// (status, headers, body, content type, delay up to 30 s) instead of the JSON envelope. An
/// empty body creates an inbox with every default.
#[op(post "/v1/webhook/inbox/create" as createWebhookInbox, tag = Storage,
     uses(store),
     rejects = "a ttlSeconds or maxPayloads above the operator's maximum, a verify secret the scheme cannot use, response headers that are more than 20, malformed or the server's own, or a forwardTo that is not an http or https URL",
     redact(".data.id", ".data.createdAt", ".data.expiresAt", ".data.receiveUrl", ".data.payloadsUrl", ".data.streamUrl",
            ".data.viewUrl", ".data.manageToken"),
     example(typical, {}),
     example(a_week_of_github_deliveries,
             {"ttlSeconds": 604800, "maxPayloads": 200, "verify": {"scheme": "github", "secret": "It's a Secret to Everybody"}}),
     example(unknown_field, {"name": "x"}, status = 400),
     example(hmac_without_header, {"verify": {"scheme": "hmac-sha256", "secret": "k"}}, status = 400))]
async fn create_webhook_inbox(input: InboxCreateInput, ctx: &Ctx) -> Result<InboxInfo, ApiError> {
    let max_ttl = ctx.config.inbox_max_ttl;
    let ttl = input.ttl_seconds.map_or(DEFAULT_TTL, Duration::from_secs);
    if ttl > max_ttl {
        return Err(ApiError::invalid(
            "ttlSeconds",
            format!("is at most {} here (WRENCH_INBOX_MAX_TTL)", max_ttl.as_secs()),
        ));
    }
    let max = ctx.config.inbox_max_payloads;
    let max_payloads = input.max_payloads.unwrap_or(DEFAULT_PAYLOADS.min(max));
    if max_payloads > max {
        return Err(ApiError::invalid("maxPayloads", format!("is at most {max} here (WRENCH_INBOX_MAX_PAYLOADS)")));
    }
    let verify = input.verify.map(check_of).transpose()?;
    let response = input.response.map(response_of).transpose()?;
    let forward_to = input.forward_to.as_deref().map(forward_url).transpose()?;
    let (token, token_digest) = wrench_kit::tokens::issue()?;
    let created = time::now();
    let expires = created + ttl;
    let record = InboxRecord {
        created_at: time::rfc3339(created),
        expires_at: time::rfc3339(expires),
        expires_at_ms: time::unix_ms(expires),
        max_payloads,
        manage_token_sha256: Some(token_digest),
        verify,
        response,
        forward_to,
    };
    let bytes = serde_json::to_vec(&record).map_err(|e| ApiError::internal(e.to_string()))?;
    let id = random::reserve(ctx.store.as_ref(), ID_LEN, random::ALPHANUMERIC, meta_key, &bytes, Some(ttl), "inbox id")
        .await?;
    let mut answer = info(ctx, id, record, 0);
    answer.manage_token = Some(token);
    Ok(answer)
}

#[derive(Debug, Deserialize, JsonSchema, Validate)]
#[serde(deny_unknown_fields)]
struct InboxIdInput {
    /// The inbox id. Any id that is not a live inbox (of any shape, such as the UUIDs other
    /// services issue) is 404 `INBOX_NOT_FOUND`.
    #[schemars(length(min = 1, max = 256))]
    id: String,
}

/// Show a webhook inbox.
///
/// Creation and expiry times, the absolute receive and payloads URLs, how many payloads it
/// holds and keeps, and its signature scheme. Unknown or expired inboxes are 404
/// `INBOX_NOT_FOUND`.
#[op(get "/v1/webhook/inbox/{id}" as getWebhookInbox, tag = Storage,
     uses(store), errors(INBOX_NOT_FOUND),
     example(unknown, {"id": "AAAAAAAAAAAAAAAA"}, status = 404),
     example(uuid_shaped, {"id": "3f2b8c1e-9d4a-4e7b-8a61-2c5d7e9f0b13"}, status = 404))]
async fn get_webhook_inbox(input: InboxIdInput, ctx: &Ctx) -> Result<InboxInfo, ApiError> {
    let record = load(ctx, &input.id).await?;
    let count = payload_count(ctx, &input.id).await?;
    Ok(info(ctx, input.id, record, count))
}

#[derive(Debug, Serialize, JsonSchema)]
struct InboxDeleted {
    /// Always true.
    deleted: bool,
}

/// Delete a webhook inbox.
///
/// Removes the inbox and every payload it holds at once; its URLs answer 404
/// `INBOX_NOT_FOUND` from then on. Needs the inbox's manage token as `X-Manage-Token` (403
/// `TOKEN_REJECTED` otherwise).
#[op(delete "/v1/webhook/inbox/{id}" as deleteWebhookInbox, tag = Storage,
     uses(store), errors(INBOX_NOT_FOUND, TOKEN_REJECTED),
     example(unknown, {"id": "AAAAAAAAAAAAAAAA"}, status = 404),
     example(uuid_shaped, {"id": "3f2b8c1e-9d4a-4e7b-8a61-2c5d7e9f0b13"}, status = 404))]
async fn delete_webhook_inbox(input: InboxIdInput, ctx: &Ctx) -> Result<InboxDeleted, ApiError> {
    managed(ctx, &input.id).await?;
    let id = &input.id;
    ctx.store.delete(&[&meta_key(id), &log_key(id), &legacy_key(id)]).await?;
    Ok(InboxDeleted { deleted: true })
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct PayloadsCleared {
    /// Payloads removed.
    removed: usize,
}

/// Clear a webhook inbox's payloads.
///
/// Removes every payload and keeps the inbox; payload ids go on from where they were, so a
/// stream reader never sees an id twice. Needs the inbox's manage token as `X-Manage-Token`
/// (403 `TOKEN_REJECTED` otherwise).
#[op(delete "/v1/webhook/inbox/{id}/payloads" as clearWebhookPayloads, tag = Storage,
     uses(store), errors(INBOX_NOT_FOUND, TOKEN_REJECTED),
     example(unknown, {"id": "AAAAAAAAAAAAAAAA"}, status = 404),
     example(other_shape, {"id": "bad id"}, status = 404))]
async fn clear_webhook_payloads(input: InboxIdInput, ctx: &Ctx) -> Result<PayloadsCleared, ApiError> {
    managed(ctx, &input.id).await?;
    let removed = payload_count(ctx, &input.id).await?;
    ctx.store.log_clear(&log_key(&input.id)).await?;
    ctx.store.delete(&[&legacy_key(&input.id)]).await?;
    Ok(PayloadsCleared { removed })
}

#[derive(Debug, Deserialize, JsonSchema, Validate)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct InboxUpdateInput {
    /// The inbox id.
    #[schemars(length(min = 1, max = 256))]
    id: String,
    /// A new signature check; null removes it. Absent: unchanged.
    #[serde(default, deserialize_with = "present")]
    verify: Option<Option<InboxVerifyInput>>,
    /// A new answer to deliveries; null goes back to the JSON envelope. Absent: unchanged.
    #[serde(default, deserialize_with = "present_object")]
    response: Option<Option<InboxResponseInput>>,
    /// A new URL to relay deliveries to; null stops relaying. Absent: unchanged.
    #[serde(default, deserialize_with = "present")]
    #[schemars(length(min = 1, max = 2048))]
    forward_to: Option<Option<String>>,
    /// A new payload cap (up to the operator's maximum); an inbox over it drops its oldest
    /// payloads at the next delivery. Absent: unchanged.
    #[serde(default)]
    #[schemars(range(min = 1, max = 10_000))]
    max_payloads: Option<usize>,
}

/// Change a webhook inbox.
///
/// Replaces its signature check, its answer to deliveries, its forwarding URL or its payload
/// cap; a field left out is unchanged, and null removes a check, a configured answer or the
/// forwarding. Its lifetime does not change.
/// Needs the inbox's manage token as `X-Manage-Token` (403 `TOKEN_REJECTED` otherwise).
#[op(patch "/v1/webhook/inbox/{id}" as updateWebhookInbox, tag = Storage,
     uses(store), errors(INBOX_NOT_FOUND, TOKEN_REJECTED),
     rejects = "a maxPayloads above the operator's maximum, a verify secret the scheme cannot use, response headers that are more than 20, malformed or the server's own, or a forwardTo that is not an http or https URL",
     example(unknown, {"id": "AAAAAAAAAAAAAAAA", "response": {"status": 202}}, status = 404),
     example(bad_header, {"id": "AAAAAAAAAAAAAAAA", "response": {"headers": {"content-length": "1"}}}, status = 400))]
async fn update_webhook_inbox(input: InboxUpdateInput, ctx: &Ctx) -> Result<InboxInfo, ApiError> {
    // Checked before the inbox is looked up, so that a bad request says so whatever the id.
    let verify = input.verify.map(|v| v.map(check_of).transpose()).transpose()?;
    let response = input.response.map(|r| r.map(response_of).transpose()).transpose()?;
    let forward_to = input.forward_to.map(|f| f.as_deref().map(forward_url).transpose()).transpose()?;
    let max = ctx.config.inbox_max_payloads;
    if input.max_payloads.is_some_and(|n| n > max) {
        return Err(ApiError::invalid("maxPayloads", format!("is at most {max} here (WRENCH_INBOX_MAX_PAYLOADS)")));
    }
    let mut record = managed(ctx, &input.id).await?;
    if let Some(v) = verify {
        record.verify = v;
    }
    if let Some(r) = response {
        record.response = r;
    }
    if let Some(f) = forward_to {
        record.forward_to = f;
    }
    if let Some(n) = input.max_payloads {
        record.max_payloads = n;
    }
    let left = record.expires_at_ms.saturating_sub(time::unix_ms(time::now()));
    if left == 0 {
        return Err(not_found(&input.id));
    }
    let bytes = serde_json::to_vec(&record).map_err(|e| ApiError::internal(e.to_string()))?;
    ctx.store.put(&meta_key(&input.id), &bytes, Some(Duration::from_millis(left))).await?;
    let count = payload_count(ctx, &input.id).await?;
    Ok(info(ctx, input.id, record, count))
}
