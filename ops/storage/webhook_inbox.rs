//! Webhook inboxes: a URL that captures whatever is sent to it, for as long as its creator
//! asked (24 hours unless asked, at most the operator's `WRENCH_INBOX_MAX_TTL`).
//!
//! An inbox is a record (`inbox:{id}`: its settings and expiry) and a store log of deliveries
//! (`inbox:{id}:log`, one entry per delivery) that expires with it, so payloads never outlive
//! their inbox and nothing extends either. This file holds the inbox itself: creating, showing,
//! deleting and clearing it. Deliveries arrive in `webhook_receive.rs` and are read in
//! `webhook_payloads.rs`. Changing or deleting an inbox takes its manage token, shown once at
//! creation and kept only as a SHA-256 digest.

use std::time::Duration;

use sha2::Digest;
use wrench_kit::webhook::signatures::{self, Check, Scheme};

use crate::{prelude::*, random, time};

/// Lifetime of an inbox that does not ask for one.
const DEFAULT_TTL: Duration = Duration::from_secs(24 * 3600);
/// Payloads kept by an inbox that does not ask.
const DEFAULT_PAYLOADS: usize = 50;
/// Length of inbox ids: 16 letters and digits, about 95 bits.
pub(super) const ID_LEN: usize = 16;
const TOKEN_LEN: usize = 32;

pub(super) fn meta_key(id: &str) -> String {
    format!("inbox:{{{id}}}")
}
pub(super) fn log_key(id: &str) -> String {
    format!("inbox:{{{id}}}:log")
}
/// Where inboxes created before deliveries were logged kept their payloads (a list of JSON
/// records); still read, so that an upgrade loses nothing an inbox holds.
pub(super) fn legacy_key(id: &str) -> String {
    format!("inbox:{{{id}}}:payloads")
}

pub(super) fn valid_id(id: &str) -> bool {
    id.len() == ID_LEN && id.bytes().all(|b| b.is_ascii_alphanumeric())
}

pub(super) fn not_found(id: &str) -> ApiError {
    ApiError::new(ErrorCode::InboxNotFound, format!("no inbox {id:?}: it never existed or has expired"))
}

/// An inbox as stored. Fields added since the first version default, so older records read.
#[derive(Debug, Serialize, Deserialize)]
pub(super) struct InboxRecord {
    pub created_at: String,
    pub expires_at: String,
    pub expires_at_ms: u64,
    /// 0 in records older than the setting: the operator's default then applies.
    #[serde(default)]
    pub max_payloads: usize,
    #[serde(default)]
    pub manage_token_sha256: Option<String>,
    #[serde(default)]
    pub verify: Option<Check>,
}

impl InboxRecord {
    pub(super) fn max_payloads(&self, config: &wrench_infra::config::Config) -> usize {
        if self.max_payloads == 0 { DEFAULT_PAYLOADS.min(config.inbox_max_payloads) } else { self.max_payloads }
    }
}

pub(super) async fn load(ctx: &Ctx, id: &str) -> Result<InboxRecord, ApiError> {
    if !valid_id(id) {
        return Err(not_found(id));
    }
    let raw = ctx.store.get(&meta_key(id)).await?.ok_or_else(|| not_found(id))?;
    serde_json::from_slice(&raw).map_err(|e| ApiError::internal(format!("stored inbox unreadable: {e}")))
}

/// The inbox, when `X-Manage-Token` is its token.
async fn managed(ctx: &Ctx, id: &str) -> Result<InboxRecord, ApiError> {
    let record = load(ctx, id).await?;
    let given = ctx.headers.get("x-manage-token").map(|v| v.as_bytes()).unwrap_or_default();
    let Some(digest) = record.manage_token_sha256.as_deref().and_then(|d| hex::decode(d).ok()) else {
        return Err(ApiError::new(
            ErrorCode::TokenRejected,
            "this inbox was created before inboxes had manage tokens: it cannot be changed, only left to expire",
        ));
    };
    let given = sha2::Sha256::digest(given);
    // Digests of equal length, compared without an early exit.
    let differs = given.iter().zip(&digest).fold(digest.len() ^ given.len(), |acc, (a, b)| acc | usize::from(a ^ b));
    if given.is_empty() || differs != 0 {
        return Err(ApiError::new(
            ErrorCode::TokenRejected,
            "X-Manage-Token is missing or is not this inbox's manage token (shown once, when it was created)",
        ));
    }
    Ok(record)
}

#[derive(Debug, Deserialize, JsonSchema, Validate)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct VerifyInput {
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
struct CreateInput {
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
    verify: Option<VerifyInput>,
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
    /// The signature scheme deliveries are checked with, if any.
    verify_scheme: Option<Scheme>,
    /// Give as `X-Manage-Token` to delete the inbox or clear its payloads. Shown only in the
    /// answer that created the inbox.
    #[serde(skip_serializing_if = "Option::is_none")]
    manage_token: Option<String>,
}

fn info(ctx: &Ctx, id: String, r: InboxRecord, payload_count: usize) -> InboxInfo {
    let base = format!("{}/v1/webhook/inbox/{id}", ctx.config.public_base());
    InboxInfo {
        receive_url: format!("{base}/receive"),
        payloads_url: format!("{base}/payloads"),
        max_payloads: r.max_payloads(&ctx.config),
        verify_scheme: r.verify.as_ref().map(|v| v.scheme),
        id,
        created_at: r.created_at,
        expires_at: r.expires_at,
        payload_count,
        manage_token: None,
    }
}

fn check_of(v: VerifyInput) -> Result<Check, ApiError> {
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
/// the verdict stored with it. An empty body creates an inbox with every default.
#[op(post "/v1/webhook/inbox/create" as createWebhookInbox, tag = Storage,
     uses(store),
     rejects = "a ttlSeconds or maxPayloads above the operator's maximum, or a verify secret the scheme cannot use",
     redact(".data.id", ".data.createdAt", ".data.expiresAt", ".data.receiveUrl", ".data.payloadsUrl", ".data.manageToken"),
     example(typical, {}),
     example(a_week_of_github_deliveries,
             {"ttlSeconds": 604800, "maxPayloads": 200, "verify": {"scheme": "github", "secret": "It's a Secret to Everybody"}}),
     example(unknown_field, {"name": "x"}, status = 400),
     example(hmac_without_header, {"verify": {"scheme": "hmac-sha256", "secret": "k"}}, status = 400))]
async fn create_webhook_inbox(input: CreateInput, ctx: &Ctx) -> Result<InboxInfo, ApiError> {
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
    let token = random::token(TOKEN_LEN, random::ALPHANUMERIC)?;
    let created = time::now();
    let expires = created + ttl;
    let record = InboxRecord {
        created_at: time::rfc3339(created),
        expires_at: time::rfc3339(expires),
        expires_at_ms: time::unix_ms(expires),
        max_payloads,
        manage_token_sha256: Some(hex::encode(sha2::Sha256::digest(token.as_bytes()))),
        verify,
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

pub(super) async fn payload_count(ctx: &Ctx, id: &str) -> Result<usize, ApiError> {
    let logged = ctx.store.log_state(&log_key(id)).await?.len() as usize;
    Ok(logged + ctx.store.list_len(&legacy_key(id)).await?)
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
struct Deleted {
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
async fn delete_webhook_inbox(input: InboxIdInput, ctx: &Ctx) -> Result<Deleted, ApiError> {
    managed(ctx, &input.id).await?;
    let id = &input.id;
    ctx.store.delete(&[&meta_key(id), &log_key(id), &legacy_key(id)]).await?;
    Ok(Deleted { deleted: true })
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct Cleared {
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
async fn clear_webhook_payloads(input: InboxIdInput, ctx: &Ctx) -> Result<Cleared, ApiError> {
    managed(ctx, &input.id).await?;
    let removed = payload_count(ctx, &input.id).await?;
    ctx.store.log_clear(&log_key(&input.id)).await?;
    ctx.store.delete(&[&legacy_key(&input.id)]).await?;
    Ok(Cleared { removed })
}
