//! An inbox as the store holds it: its keys (`inbox:{id}` for the record, `inbox:{id}:log` for
//! the deliveries, which expire with it), the record and the answer it gives, and reading them
//! back. Every webhook file reads inboxes through this one.

use std::time::Duration;

use wrench_kit::webhook::signatures::Check;

use wrench_contract::prelude::*;

/// Payloads kept by an inbox that does not ask.
pub(in crate::storage) const DEFAULT_PAYLOADS: usize = 50;
/// Length of inbox ids: 16 letters and digits, about 95 bits.
pub(in crate::storage) const ID_LEN: usize = 16;

pub(in crate::storage) fn meta_key(id: &str) -> String {
    format!("inbox:{{{id}}}")
}
pub(in crate::storage) fn log_key(id: &str) -> String {
    format!("inbox:{{{id}}}:log")
}
/// Where inboxes created before deliveries were logged kept their payloads (a list of JSON
/// records); still read, so that an upgrade loses nothing an inbox holds.
pub(in crate::storage) fn legacy_key(id: &str) -> String {
    format!("inbox:{{{id}}}:payloads")
}

pub(in crate::storage) fn valid_id(id: &str) -> bool {
    id.len() == ID_LEN && id.bytes().all(|b| b.is_ascii_alphanumeric())
}

pub(in crate::storage) fn not_found(id: &str) -> ApiError {
    ApiError::new(ErrorCode::InboxNotFound, format!("no inbox {id:?}: it never existed or has expired"))
}

/// An inbox as stored. Fields added since the first version default, so older records read.
#[derive(Debug, Serialize, Deserialize)]
pub(in crate::storage) struct InboxRecord {
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
    #[serde(default)]
    pub response: Option<InboxAnswer>,
    #[serde(default)]
    pub forward_to: Option<String>,
}

/// What every delivery to an inbox is answered, when its creator said.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub(in crate::storage) struct InboxAnswer {
    /// Status of the answer.
    pub status: u16,
    /// Header fields of the answer, in order, each `[name, value]`.
    #[schemars(with = "Vec<Vec<String>>")]
    pub headers: Vec<(String, String)>,
    /// Body of the answer.
    pub body: String,
    /// Its Content-Type (none when the body is empty and none was given).
    pub content_type: Option<String>,
    /// How long the answer is held back, in milliseconds.
    pub delay_ms: u64,
}

impl InboxAnswer {
    /// The answer as the pipeline sends it. Every part was checked when it was configured.
    pub(in crate::storage) fn reply(&self) -> wrench_contract::op::RawReply {
        let mut headers: Vec<(http::HeaderName, http::HeaderValue)> = self
            .headers
            .iter()
            .filter_map(|(n, v)| {
                Some((http::HeaderName::from_bytes(n.as_bytes()).ok()?, http::HeaderValue::from_str(v).ok()?))
            })
            .collect();
        if let Some(ct) = self.content_type.as_deref().and_then(|ct| http::HeaderValue::from_str(ct).ok()) {
            headers.push((http::header::CONTENT_TYPE, ct));
        }
        wrench_contract::op::RawReply {
            status: self.status,
            headers,
            body: wrench_contract::op::RawBody::Bytes(self.body.clone().into()),
            delay: Duration::from_millis(self.delay_ms),
        }
    }
}

impl InboxRecord {
    pub(in crate::storage) fn max_payloads(&self, config: &wrench_infra::config::Config) -> usize {
        if self.max_payloads == 0 { DEFAULT_PAYLOADS.min(config.inbox_max_payloads) } else { self.max_payloads }
    }
}

pub(in crate::storage) async fn load(ctx: &Ctx, id: &str) -> Result<InboxRecord, ApiError> {
    parse(&load_raw(ctx, id).await?)
}

/// The stored bytes of inbox `id`'s record, unparsed (the delivery cache keeps them to append
/// only while the store still holds exactly these).
pub(in crate::storage) async fn load_raw(ctx: &Ctx, id: &str) -> Result<Vec<u8>, ApiError> {
    if !valid_id(id) {
        return Err(not_found(id));
    }
    ctx.store.get(&meta_key(id)).await?.ok_or_else(|| not_found(id))
}

/// An inbox record from its stored bytes.
pub(in crate::storage) fn parse(raw: &[u8]) -> Result<InboxRecord, ApiError> {
    serde_json::from_slice(raw).map_err(|e| ApiError::internal(format!("stored inbox unreadable: {e}")))
}

pub(in crate::storage) async fn payload_count(ctx: &Ctx, id: &str) -> Result<usize, ApiError> {
    let logged = ctx.store.log_state(&log_key(id)).await?.len() as usize;
    Ok(logged + ctx.store.list_len(&legacy_key(id)).await?)
}
