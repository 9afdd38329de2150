//! Reading what a webhook inbox captured: the list (newest first under the hood, shown oldest
//! first as the spec has it, with filters and paging), one payload, and one payload's exact
//! bytes.
//!
//! The log is read from its newest entry down in chunks, so that a page costs what it shows
//! and not what the inbox holds; filters are applied while reading. Payloads an inbox kept
//! before deliveries were logged (a list of JSON records) follow the logged ones as the oldest.

use serde_json::{Map, Value};
use wrench_kit::webhook::delivery::{self, Delivery};

use crate::storage::webhook::model::{legacy_key, load, log_key};
use wrench_contract::{
    op::{RawBody, RawReply},
    prelude::*,
};

/// Entries read from the log at a time.
const CHUNK: u64 = 32;

#[derive(Debug, Deserialize, JsonSchema, Validate)]
#[serde(deny_unknown_fields)]
struct PayloadsInput {
    /// The inbox id. Any id that is not a live inbox is 404 `INBOX_NOT_FOUND`.
    #[schemars(length(min = 1, max = 256))]
    id: String,
    /// Newest matching payloads to leave out, to page back through an inbox whose payloads do
    /// not fit in one answer.
    #[serde(default)]
    #[schemars(range(max = 10000))]
    skip: u32,
    /// Most payloads to list (default: all that fit in one answer).
    #[serde(default)]
    #[schemars(range(min = 1, max = 10000))]
    limit: Option<u32>,
    /// Only payloads sent with this method (`POST`, `put`...).
    #[serde(default)]
    #[schemars(length(min = 1, max = 16))]
    method: Option<String>,
    /// Only payloads whose raw body contains this text (case-sensitive, bytes as sent).
    #[serde(default)]
    #[schemars(length(min = 1, max = 256))]
    q: Option<String>,
    /// Only payloads with this header, `name:value` (name in any case, value exact), or `name`
    /// alone for any value.
    #[serde(default)]
    #[schemars(length(min = 1, max = 512))]
    header: Option<String>,
    /// Only payloads received at or after this instant (RFC 3339).
    #[serde(default)]
    #[schemars(length(min = 1, max = 64))]
    since: Option<String>,
    /// Only payloads received before this instant (RFC 3339).
    #[serde(default)]
    #[schemars(length(min = 1, max = 64))]
    until: Option<String>,
    /// Only payloads whose signature check passed (true) or failed (false); payloads of an
    /// inbox without a check match neither.
    #[serde(default)]
    verified: Option<bool>,
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct PayloadList {
    /// The inbox id.
    inbox_id: String,
    /// Number of payloads listed.
    #[serde(rename = "payload_count")]
    payload_count: usize,
    /// Payloads the inbox holds (before filters).
    total: usize,
    /// True when older matching payloads were left out (by `limit`, or because the answer
    /// would pass the response limit); ask again with `skip` set to the payloads seen so far.
    truncated: bool,
    /// The most recent matching payloads after `skip`, oldest first (sorted by `received_at`).
    payloads: Vec<Delivery>,
}

/// The filters of a listing, parsed once.
struct Filter {
    method: Option<String>,
    q: Option<Vec<u8>>,
    header: Option<(String, Option<String>)>,
    since: Option<jiff::Timestamp>,
    until: Option<jiff::Timestamp>,
    verified: Option<bool>,
}

fn instant(field: &str, text: &Option<String>) -> Result<Option<jiff::Timestamp>, ApiError> {
    text.as_deref()
        .map(|t| t.parse::<jiff::Timestamp>().map_err(|e| ApiError::invalid(field, format!("is not RFC 3339: {e}"))))
        .transpose()
}

impl Filter {
    fn of(input: &PayloadsInput) -> Result<Filter, ApiError> {
        let header = input.header.as_deref().map(|h| match h.split_once(':') {
            Some((name, value)) => (name.trim().to_ascii_lowercase(), Some(value.trim().to_string())),
            None => (h.trim().to_ascii_lowercase(), None),
        });
        Ok(Filter {
            method: input.method.as_ref().map(|m| m.to_ascii_uppercase()),
            q: input.q.as_ref().map(|q| q.as_bytes().to_vec()),
            header,
            since: instant("since", &input.since)?,
            until: instant("until", &input.until)?,
            verified: input.verified,
        })
    }

    fn admits(&self, d: &Delivery, body: &[u8]) -> bool {
        let at = d.received_at.parse::<jiff::Timestamp>().ok();
        self.method.as_ref().is_none_or(|m| *m == d.method)
            && self.q.as_ref().is_none_or(|q| body.windows(q.len()).any(|w| w == q.as_slice()))
            && self.header.as_ref().is_none_or(|(name, value)| {
                d.header_list.iter().any(|(n, v)| n == name && value.as_ref().is_none_or(|value| v == value))
            })
            && self.since.is_none_or(|s| at.is_some_and(|t| t >= s))
            && self.until.is_none_or(|u| at.is_some_and(|t| t < u))
            && self.verified.is_none_or(|want| d.verification.as_ref().is_some_and(|v| v.valid == want))
    }
}

/// A payload as inboxes stored them before deliveries were logged.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct LegacyPayload {
    id: String,
    #[serde(alias = "received_at")]
    received_at: String,
    #[serde(default)]
    headers: Map<String, Value>,
    #[serde(default, alias = "query_string")]
    query_string: String,
    #[serde(default, alias = "content_type")]
    content_type: Option<String>,
    #[serde(default)]
    body: Value,
    #[serde(default, alias = "raw_body")]
    raw_body: Option<String>,
    #[serde(default, alias = "raw_body_encoding")]
    raw_body_encoding: Option<String>,
}

/// A legacy payload in today's shape, with its body's bytes rebuilt from what it kept.
fn from_legacy(raw: &[u8]) -> Option<(Delivery, Vec<u8>)> {
    use base64::Engine;
    let p: LegacyPayload = serde_json::from_slice(raw).ok()?;
    let bytes = match (p.raw_body, p.raw_body_encoding.as_deref()) {
        (Some(b), Some("base64")) => base64::engine::general_purpose::STANDARD.decode(b).ok()?,
        (Some(text), _) => text.into_bytes(),
        (None, _) if p.body.is_null() => Vec::new(),
        (None, _) => serde_json::to_vec(&p.body).ok()?,
    };
    let header_list = p.headers.iter().map(|(k, v)| (k.clone(), v.as_str().unwrap_or_default().to_string())).collect();
    let recorded = delivery::Recorded {
        received_at: p.received_at,
        method: "POST".into(),
        path: "/".into(),
        query_string: p.query_string,
        header_list,
        content_type: p.content_type,
        sha256: hex::encode(<sha2::Sha256 as sha2::Digest>::digest(&bytes)),
        ip: String::new(),
        http_version: "HTTP/1.1".into(),
        form: None,
        verification: None,
        forward: None,
    };
    let mut shown = delivery::show(0, recorded, &bytes);
    shown.id = p.id;
    Some((shown, bytes))
}

/// Every payload of the inbox from the newest down, as (shown, body bytes), read lazily.
struct Newest<'a> {
    ctx: &'a Ctx,
    id: &'a str,
    next: u64,
    first: u64,
    buffer: Vec<(Delivery, Vec<u8>)>,
    legacy: Option<std::vec::IntoIter<Vec<u8>>>,
}

impl<'a> Newest<'a> {
    async fn open(ctx: &'a Ctx, id: &'a str) -> Result<(Newest<'a>, usize), ApiError> {
        let state = ctx.store.log_state(&log_key(id)).await?;
        let legacy = ctx.store.list(&legacy_key(id)).await?;
        let total = state.len() as usize + legacy.len();
        let reader = Newest {
            ctx,
            id,
            next: state.last,
            first: state.first,
            buffer: Vec::new(),
            legacy: Some(legacy.into_iter()),
        };
        Ok((reader, total))
    }

    async fn next(&mut self) -> Result<Option<(Delivery, Vec<u8>)>, ApiError> {
        while self.buffer.is_empty() && self.next >= self.first && self.next > 0 {
            let from = self.next.saturating_sub(CHUNK - 1).max(self.first);
            let entries = self.ctx.store.log_read(&log_key(self.id), from, self.next).await?;
            self.next = from - 1;
            // Kept oldest first, so that popping gives the newest.
            self.buffer = entries
                .into_iter()
                .filter_map(|(seq, stored)| {
                    let (recorded, body) = delivery::decode(&stored)?;
                    Some((delivery::show(seq, recorded, body), body.to_vec()))
                })
                .collect();
        }
        if let Some(item) = self.buffer.pop() {
            return Ok(Some(item));
        }
        Ok(self.legacy.as_mut().and_then(|l| l.by_ref().find_map(|raw| from_legacy(&raw))))
    }
}

async fn payloads(ctx: &Ctx, input: PayloadsInput) -> Result<PayloadList, ApiError> {
    let id = input.id.clone();
    load(ctx, &id).await?;
    let filter = Filter::of(&input)?;
    let (mut reader, total) = Newest::open(ctx, &id).await?;
    // Newest first: skip, then take as many as the limit and the response limit allow (50
    // payloads of 1 MiB would not fit in one answer).
    let mut budget = wrench_infra::bounds::OutputBudget::new(ctx.config.response_limit.saturating_sub(4096));
    let wanted = input.limit.map_or(usize::MAX, |l| l as usize);
    let (mut skipped, mut list, mut truncated) = (0usize, Vec::new(), false);
    while let Some((shown, body)) = reader.next().await? {
        if !filter.admits(&shown, &body) {
            continue;
        }
        if skipped < input.skip as usize {
            skipped += 1;
            continue;
        }
        // What this payload costs in the answer, counted exactly: escaping can make a body
        // six times its size (control characters), once as raw text and again as form values.
        if list.len() == wanted || budget.add(wrench_infra::bounds::json_size(&shown) + 1).is_err() {
            truncated = true;
            break;
        }
        list.push(shown);
    }
    list.reverse();
    Ok(PayloadList { inbox_id: id, payload_count: list.len(), total, truncated, payloads: list })
}

/// List a webhook inbox's payloads.
///
/// The most recent payloads (all the inbox keeps, 50 by default), oldest first, optionally
/// filtered by method, body text (`q`), header, time range and signature verdict. When they do
/// not all fit in one answer (the response limit, 8 MiB by default) the newest that fit are
/// listed with `truncated: true`; `skip` pages back to the older ones and `limit` caps the
/// count. Unknown or expired inboxes are 404 `INBOX_NOT_FOUND`. `POST .../list` is the older
/// form of the same read, kept for clients of the original API (its body is ignored); new
/// integrations use `GET .../payloads`.
#[op(get "/v1/webhook/inbox/{id}/payloads" as listWebhookPayloads,
     post "/v1/webhook/inbox/{id}/list" as listWebhookPayloadsPost,
     tag = Storage, input = query,
     uses(store), errors(INBOX_NOT_FOUND),
     rejects = "a since or until that is not an RFC 3339 instant",
     example(unknown, {"id": "AAAAAAAAAAAAAAAA"}, status = 404),
     example(other_shape, {"id": "bad id"}, status = 404))]
async fn list_webhook_payloads(input: PayloadsInput, ctx: &Ctx) -> Result<PayloadList, ApiError> {
    payloads(ctx, input).await
}

#[derive(Debug, Deserialize, JsonSchema, Validate)]
#[serde(deny_unknown_fields)]
struct PayloadInput {
    /// The inbox id.
    #[schemars(length(min = 1, max = 256))]
    id: String,
    /// The payload id, as listed.
    #[schemars(length(min = 1, max = 64))]
    pid: String,
}

pub(in crate::storage) fn payload_not_found(pid: &str) -> ApiError {
    ApiError::not_found(format!("this inbox holds no payload {pid:?}: it never existed or was dropped as older"))
}

/// Payload `pid` from the inbox's log: its number, recorded facts and bytes. `None` when `pid`
/// is no log number (the id of a payload stored before inboxes kept one entry per delivery),
/// 404 when the log does not hold it.
pub(in crate::storage) async fn logged(
    ctx: &Ctx,
    id: &str,
    pid: &str,
) -> Result<Option<(u64, delivery::Recorded, Vec<u8>)>, ApiError> {
    let Some(seq) = pid.parse::<u64>().ok().filter(|&n| n > 0) else { return Ok(None) };
    let found = ctx.store.log_read(&log_key(id), seq, seq).await?;
    let (recorded, body) =
        found.first().and_then(|(_, stored)| delivery::decode(stored)).ok_or_else(|| payload_not_found(pid))?;
    Ok(Some((seq, recorded, body.to_vec())))
}

/// One payload and its body bytes.
async fn one(ctx: &Ctx, input: &PayloadInput) -> Result<(Delivery, Vec<u8>), ApiError> {
    load(ctx, &input.id).await?;
    if let Some((seq, recorded, body)) = logged(ctx, &input.id, &input.pid).await? {
        return Ok((delivery::show(seq, recorded, &body), body));
    }
    let legacy = ctx.store.list(&legacy_key(&input.id)).await?;
    legacy
        .iter()
        .filter_map(|raw| from_legacy(raw))
        .find(|(d, _)| d.id == input.pid)
        .ok_or_else(|| payload_not_found(&input.pid))
}

/// Show one webhook payload.
///
/// Everything recorded of one delivery, as listed. Unknown or expired inboxes are 404
/// `INBOX_NOT_FOUND`; a payload the inbox does not hold (never received, or dropped as
/// older) is 404 `NOT_FOUND`.
#[op(get "/v1/webhook/inbox/{id}/payloads/{pid}" as getWebhookPayload, tag = Storage,
     uses(store), errors(INBOX_NOT_FOUND, NOT_FOUND),
     example(unknown, {"id": "AAAAAAAAAAAAAAAA", "pid": "1"}, status = 404),
     example(legacy_shaped_pid, {"id": "AAAAAAAAAAAAAAAA", "pid": "aB3dE6gH9jK2"}, status = 404))]
async fn get_webhook_payload(input: PayloadInput, ctx: &Ctx) -> Result<Delivery, ApiError> {
    Ok(one(ctx, &input).await?.0)
}

/// Download one webhook payload's exact bytes.
///
/// The body as it arrived, byte for byte, with the Content-Type it was sent with
/// (`application/octet-stream` when it had none, which is also how the document names it):
/// what a signature was computed over. It is
/// served as an attachment that a browser neither renders nor runs. Unknown or expired inboxes
/// are 404 `INBOX_NOT_FOUND`; a payload the inbox does not hold is 404 `NOT_FOUND`.
#[op(get "/v1/webhook/inbox/{id}/payloads/{pid}/raw" as getWebhookPayloadRaw, tag = Storage,
     output = raw("application/octet-stream"), uses(store), errors(INBOX_NOT_FOUND, NOT_FOUND),
     example(unknown, {"id": "AAAAAAAAAAAAAAAA", "pid": "1"}, status = 404),
     example(other_shape, {"id": "bad id", "pid": "0"}, status = 404))]
async fn get_webhook_payload_raw(input: PayloadInput, ctx: &Ctx) -> Result<RawReply, ApiError> {
    let (shown, body) = one(ctx, &input).await?;
    let content_type = shown
        .content_type
        .as_deref()
        .and_then(|ct| http::HeaderValue::from_str(ct).ok())
        .unwrap_or(http::HeaderValue::from_static("application/octet-stream"));
    let disposition = http::HeaderValue::from_str(&format!("attachment; filename=\"payload-{}\"", shown.id))
        .unwrap_or(http::HeaderValue::from_static("attachment"));
    Ok(RawReply {
        status: 200,
        headers: vec![
            (http::header::CONTENT_TYPE, content_type),
            (http::header::CONTENT_DISPOSITION, disposition),
            (http::header::CONTENT_SECURITY_POLICY, http::HeaderValue::from_static("default-src 'none'; sandbox")),
        ],
        body: RawBody::Bytes(body.into()),
        delay: std::time::Duration::ZERO,
    })
}

#[cfg(test)]
mod tests {
    use std::{sync::Arc, time::Duration};

    use poem::test::TestClient;
    use sha2::Digest;

    use super::*;
    use crate::testing::json_of;
    use wrench_infra::{config::Config, store::Store};

    fn ops() -> Vec<wrench_contract::op::Operation> {
        use crate::storage::webhook::{inbox, receive};
        vec![
            inbox::__op_create_webhook_inbox(),
            inbox::__op_get_webhook_inbox(),
            inbox::__op_delete_webhook_inbox(),
            inbox::__op_clear_webhook_payloads(),
            inbox::__op_update_webhook_inbox(),
            receive::__op_receive_webhook(),
            crate::storage::webhook::stream::__op_stream_webhook_payloads(),
            __op_list_webhook_payloads(),
            __op_get_webhook_payload(),
            __op_get_webhook_payload_raw(),
        ]
    }

    fn client_with(config: Config) -> (TestClient<wrench_server::http::App>, Arc<dyn Store>) {
        let store: Arc<dyn Store> = Arc::new(wrench_infra::store::embedded::EmbeddedStore::in_memory().unwrap());
        let app = wrench_server::http::app_with_store(Arc::new(config), store.clone(), ops()).unwrap();
        (TestClient::new(app), store)
    }

    async fn create(cli: &TestClient<wrench_server::http::App>, body: Value) -> (String, String) {
        let (status, created) = json_of(cli.post("/v1/webhook/inbox/create").body_json(&body).send().await).await;
        assert_eq!(status, 200, "{created}");
        (created["data"]["id"].as_str().unwrap().to_string(), created["data"]["manageToken"].as_str().unwrap().into())
    }

    async fn list(cli: &TestClient<wrench_server::http::App>, id: &str, query: &str) -> Vec<Value> {
        let (status, v) = json_of(cli.get(format!("/v1/webhook/inbox/{id}/payloads{query}")).send().await).await;
        assert_eq!(status, 200, "{v}");
        v["data"]["payloads"].as_array().unwrap().clone()
    }

    /// Payloads an inbox kept before deliveries were logged, under the names of that time,
    /// are still listed and readable: an upgrade loses nothing an inbox holds.
    #[tokio::test]
    async fn payloads_stored_before_the_log_are_kept() {
        let (cli, store) = client_with(Config::default());
        let (id, _) = create(&cli, json!({})).await;
        let old = json!({
            "id": "p1", "received_at": "2026-11-01T00:00:00Z", "body": null, "method": "POST",
            "headers": {"x-a": "1"}, "query": {}, "query_string": "a=1", "content_type": "text/plain",
            "size": 2, "raw_body": "hi", "raw_body_encoding": "utf-8"
        });
        let expires = std::time::SystemTime::now() + Duration::from_secs(60);
        store.push_capped(&legacy_key(&id), old.to_string().as_bytes(), 50, expires).await.unwrap();
        cli.post(format!("/v1/webhook/inbox/{id}/receive")).body("new").send().await.assert_status_is_ok();
        let p = list(&cli, &id, "").await;
        assert_eq!(p.len(), 2);
        assert_eq!((p[0]["id"].as_str(), p[0]["queryString"].as_str()), (Some("p1"), Some("a=1")), "the old one first");
        assert_eq!((p[0]["rawBody"].as_str(), p[0]["rawBodyEncoding"].as_str()), (Some("hi"), Some("utf-8")));
        assert_eq!(p[0]["received_at"], "2026-11-01T00:00:00Z");
        assert_eq!(p[1]["rawBody"], "new");
        let raw = cli.get(format!("/v1/webhook/inbox/{id}/payloads/p1/raw")).send().await;
        raw.assert_status_is_ok();
        raw.assert_bytes("hi").await;
    }

    #[tokio::test]
    async fn captures_every_method_sub_path_header_and_form() {
        let key_digest: [u8; 32] = sha2::Sha256::digest(b"owner-key").into();
        let (cli, _) = client_with(Config { api_keys: vec![key_digest], ..Config::default() });
        let (id, _) = create(&cli, json!({})).await;
        let receive = format!("/v1/webhook/inbox/{id}/receive");
        // A provider's own Authorization header is not a wrench key: stored, not refused.
        let (status, r) = json_of(
            cli.post(format!("{receive}?source=stripe&x=1&x=2"))
                .header("Authorization", "Bearer provider-secret")
                .header("X-Signature", "abc")
                .header("X-Multi", "one")
                .header("X-Multi", "two")
                .content_type("application/json")
                .body(r#"{"event":"charge.succeeded","amount":1200}"#)
                .send()
                .await,
        )
        .await;
        assert_eq!((status, &r["data"]["received"], &r["data"]["id"]), (200, &json!(true), &json!("1")), "{r}");
        cli.put(format!("{receive}/orders/42%2Fx")).body("put body").send().await.assert_status_is_ok();
        cli.get(format!("{receive}/ping?x=1")).send().await.assert_status_is_ok();
        cli.delete(&receive).send().await.assert_status_is_ok();
        cli.patch(format!("{receive}/")).body("p").send().await.assert_status_is_ok();
        let head = cli.head(&receive).send().await;
        head.assert_status_is_ok();
        cli.options(&receive).send().await.assert_status_is_ok();
        cli.post(&receive)
            .content_type("application/x-www-form-urlencoded")
            .body("name=Ada+L&lang=en")
            .send()
            .await
            .assert_status_is_ok();

        let p = list(&cli, &id, "").await;
        let methods: Vec<&str> = p.iter().map(|p| p["method"].as_str().unwrap()).collect();
        assert_eq!(methods, ["POST", "PUT", "GET", "DELETE", "PATCH", "HEAD", "OPTIONS", "POST"]);
        let paths: Vec<&str> = p.iter().map(|p| p["path"].as_str().unwrap()).collect();
        assert_eq!(paths, ["/", "/orders/42/x", "/ping", "/", "/", "/", "/", "/"]);
        assert_eq!(p[0]["body"], json!({"event": "charge.succeeded", "amount": 1200}));
        assert_eq!(p[0]["headers"]["authorization"], "Bearer provider-secret");
        assert_eq!(p[0]["headers"]["x-multi"], "one, two");
        let list_names: Vec<&str> =
            p[0]["headerList"].as_array().unwrap().iter().map(|h| h[0].as_str().unwrap()).collect();
        let (a, b) =
            (list_names.iter().position(|n| *n == "x-signature"), list_names.iter().position(|n| *n == "x-multi"));
        assert!(a < b, "headers in the order received: {list_names:?}");
        assert_eq!(p[0]["query"], json!({"source": "stripe", "x": "1"}));
        assert_eq!(p[0]["queryString"], "source=stripe&x=1&x=2");
        assert_eq!(p[0]["sha256"], hex::encode(sha2::Sha256::digest(br#"{"event":"charge.succeeded","amount":1200}"#)));
        assert_eq!((p[0]["httpVersion"].as_str(), p[0]["verification"].clone()), (Some("HTTP/1.1"), Value::Null));
        assert_eq!(p[1]["rawBody"], "put body");
        assert_eq!(
            p[7]["form"],
            json!([{"name": "name", "value": "Ada L", "size": 5}, {"name": "lang", "value": "en", "size": 2}])
        );
        // Filters.
        let put = list(&cli, &id, "?method=put").await;
        assert_eq!(put.len(), 1);
        assert_eq!(list(&cli, &id, "?q=charge.succeeded").await.len(), 1);
        assert_eq!(list(&cli, &id, "?header=X-Signature:abc").await.len(), 1);
        assert_eq!(list(&cli, &id, "?header=x-signature").await.len(), 1);
        assert_eq!(list(&cli, &id, "?header=x-signature:abd").await.len(), 0);
        assert_eq!(list(&cli, &id, "?since=2000-01-01T00:00:00Z&until=2999-01-01T00:00:00Z").await.len(), 8);
        assert_eq!(list(&cli, &id, "?until=2000-01-01T00:00:00Z").await.len(), 0);
        assert_eq!(list(&cli, &id, "?verified=true").await.len(), 0, "no check, no verdict");
        // One payload, and the POST form of the listing.
        let (status, one) = json_of(cli.get(format!("/v1/webhook/inbox/{id}/payloads/2")).send().await).await;
        assert_eq!((status, one["data"]["path"].as_str()), (200, Some("/orders/42/x")));
        let (status, _) = json_of(cli.get(format!("/v1/webhook/inbox/{id}/payloads/99")).send().await).await;
        assert_eq!(status, 404);
        let (_, same) =
            json_of(cli.post(format!("/v1/webhook/inbox/{id}/list")).body_json(&json!({})).send().await).await;
        assert_eq!(same["data"]["payloads"].as_array().unwrap().len(), 8, "the POST alias lists the same");
        let (_, meta) = json_of(cli.get(format!("/v1/webhook/inbox/{id}")).send().await).await;
        assert_eq!((meta["data"]["payload_count"].as_u64(), meta["data"]["maxPayloads"].as_u64()), (Some(8), Some(50)));
        assert!(meta["data"].get("manageToken").is_none(), "the token is shown once");
    }

    /// Random binary bodies, invalid UTF-8 and NULs included, come back from `/raw` byte for
    /// byte, with the SHA-256 recorded at arrival.
    #[tokio::test]
    async fn raw_bodies_come_back_byte_exact() {
        let (cli, _) = client_with(Config::default());
        let (id, _) = create(&cli, json!({})).await;
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        for (n, len) in [0usize, 1, 3, 1000, 65_537].into_iter().enumerate() {
            let body: Vec<u8> = (0..len)
                .map(|_| {
                    seed ^= seed << 13;
                    seed ^= seed >> 7;
                    seed ^= seed << 17;
                    (seed >> 24) as u8
                })
                .chain([0, 0xff, 0xc3].into_iter().take(if len == 0 { 0 } else { 3 }))
                .collect();
            cli.post(format!("/v1/webhook/inbox/{id}/receive"))
                .content_type("application/x-thing; q=1")
                .body(body.clone())
                .send()
                .await
                .assert_status_is_ok();
            let raw = cli.get(format!("/v1/webhook/inbox/{id}/payloads/{}/raw", n + 1)).send().await;
            raw.assert_status_is_ok();
            raw.assert_header("content-type", "application/x-thing; q=1");
            raw.assert_header("content-security-policy", "default-src 'none'; sandbox");
            let back = raw.0.into_body().into_vec().await.unwrap();
            assert_eq!(sha2::Sha256::digest(&back), sha2::Sha256::digest(&body), "body {n} of {len} bytes");
            let (_, shown) = json_of(cli.get(format!("/v1/webhook/inbox/{id}/payloads/{}", n + 1)).send().await).await;
            assert_eq!(shown["data"]["sha256"], hex::encode(sha2::Sha256::digest(&body)));
        }
    }

    /// GitHub's documented example, delivered for real: the verdict is stored and filterable,
    /// and a delivery that fails is kept too.
    #[tokio::test]
    async fn signatures_are_checked_and_every_delivery_kept() {
        let (cli, _) = client_with(Config::default());
        let (id, _) =
            create(&cli, json!({"verify": {"scheme": "github", "secret": "It's a Secret to Everybody"}})).await;
        let sig = "sha256=757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17";
        for body in ["Hello, World!", "Hello, World?"] {
            cli.post(format!("/v1/webhook/inbox/{id}/receive"))
                .header("X-Hub-Signature-256", sig)
                .body(body)
                .send()
                .await
                .assert_status_is_ok();
        }
        let p = list(&cli, &id, "").await;
        assert_eq!(p[0]["verification"]["valid"], true, "{}", p[0]["verification"]);
        assert_eq!(p[0]["verification"]["scheme"], "github");
        assert_eq!(p[1]["verification"]["valid"], false);
        assert_eq!(list(&cli, &id, "?verified=true").await[0]["rawBody"], "Hello, World!");
        assert_eq!(list(&cli, &id, "?verified=false").await[0]["rawBody"], "Hello, World?");
        for bad in [
            json!({"verify": {"scheme": "hmac-sha256", "secret": "k"}}),
            json!({"verify": {"scheme": "standard-webhooks", "secret": "whpk_AAAA"}}),
            json!({"verify": {"scheme": "rot13", "secret": "k"}}),
            json!({"ttlSeconds": 700000}),
            json!({"maxPayloads": 1001}),
            json!({"ttlSeconds": 10}),
            json!({"response": {"headers": {"x-long": "v".repeat(4097)}}}),
            json!({"response": {"headers": (0..21).map(|i| (format!("x-{i}"), json!("v"))).collect::<Map<_, _>>()}}),
        ] {
            let (status, v) = json_of(cli.post("/v1/webhook/inbox/create").body_json(&bad).send().await).await;
            assert_eq!((status, v["error"]["code"].as_str()), (400, Some("VALIDATION_ERROR")), "{bad}: {v}");
        }
    }

    #[tokio::test]
    async fn the_manage_token_deletes_and_clears() {
        let (cli, store) = client_with(Config::default());
        let (id, token) = create(&cli, json!({})).await;
        for i in 0..3 {
            cli.post(format!("/v1/webhook/inbox/{id}/receive")).body(format!("{i}")).send().await.assert_status_is_ok();
        }
        for wrong in [None, Some("nope"), Some(&token[..31])] {
            let mut req = cli.delete(format!("/v1/webhook/inbox/{id}/payloads"));
            if let Some(t) = wrong {
                req = req.header("X-Manage-Token", t);
            }
            let (status, v) = json_of(req.send().await).await;
            assert_eq!((status, v["error"]["code"].as_str()), (403, Some("TOKEN_REJECTED")), "{wrong:?}");
        }
        let (status, v) = json_of(
            cli.delete(format!("/v1/webhook/inbox/{id}/payloads")).header("X-Manage-Token", &token).send().await,
        )
        .await;
        assert_eq!((status, v["data"]["removed"].as_u64()), (200, Some(3)));
        assert!(list(&cli, &id, "").await.is_empty());
        let (_, r) = json_of(cli.post(format!("/v1/webhook/inbox/{id}/receive")).body("after").send().await).await;
        assert_eq!(r["data"]["id"], "4", "ids go on after a clear");
        let (status, _) =
            json_of(cli.delete(format!("/v1/webhook/inbox/{id}")).header("X-Manage-Token", &token).send().await).await;
        assert_eq!(status, 200);
        let (status, v) = json_of(cli.post(format!("/v1/webhook/inbox/{id}/receive")).body("x").send().await).await;
        assert_eq!((status, v["error"]["code"].as_str()), (404, Some("INBOX_NOT_FOUND")));
        assert!(store.log_read(&log_key(&id), 1, 10).await.unwrap().is_empty(), "nothing of it is left");
    }

    #[tokio::test]
    async fn payloads_larger_than_one_answer_are_paged_not_lost() {
        // Five payloads of about 600 KB under a 2 MiB response limit: three fit at a time.
        let (cli, _) = client_with(Config { response_limit: 2 << 20, ..Config::default() });
        let (id, _) = create(&cli, json!({})).await;
        for i in 0..5 {
            let body = format!("{{\"n\":{i},\"pad\":\"{}\"}}", "x".repeat(600_000));
            cli.post(format!("/v1/webhook/inbox/{id}/receive")).body(body).send().await.assert_status_is_ok();
        }
        let n = |list: &Value| -> Vec<i64> {
            list["data"]["payloads"].as_array().unwrap().iter().map(|p| p["body"]["n"].as_i64().unwrap()).collect()
        };
        let (status, first) = json_of(cli.get(format!("/v1/webhook/inbox/{id}/payloads")).send().await).await;
        assert_eq!(status, 200, "{first}");
        assert_eq!(
            (n(&first), first["data"]["total"].as_u64(), first["data"]["truncated"].as_bool()),
            (vec![2, 3, 4], Some(5), Some(true))
        );
        let (_, older) = json_of(cli.get(format!("/v1/webhook/inbox/{id}/payloads?skip=3")).send().await).await;
        assert_eq!((n(&older), older["data"]["truncated"].as_bool()), (vec![0, 1], Some(false)));
        let (_, newest) = json_of(cli.get(format!("/v1/webhook/inbox/{id}/payloads?limit=1")).send().await).await;
        assert_eq!(n(&newest), vec![4]);
    }

    #[tokio::test]
    async fn a_listing_counts_what_escaping_and_form_fields_add() {
        // Form bodies of 100 KB whose values are control characters: each payload shows its
        // raw text once and its decoded field escaped to six bytes a byte, about 300 KB.
        let limit = 1 << 20;
        let (cli, _) = client_with(Config { response_limit: limit, ..Config::default() });
        let (id, _) = create(&cli, json!({})).await;
        let form = format!("a={}", "%01".repeat(33_000));
        for _ in 0..6 {
            let resp = cli
                .post(format!("/v1/webhook/inbox/{id}/receive"))
                .content_type("application/x-www-form-urlencoded")
                .body(form.clone())
                .send()
                .await;
            resp.assert_status_is_ok();
        }
        let resp = cli.get(format!("/v1/webhook/inbox/{id}/payloads")).send().await;
        let bytes = resp.0.into_body().into_vec().await.unwrap();
        let v: Value = serde_json::from_slice(&bytes).unwrap();
        assert_eq!(v["data"]["truncated"], true, "{}", &v.to_string()[..300.min(v.to_string().len())]);
        let shown = v["data"]["payloads"].as_array().unwrap().len();
        assert!((1..6).contains(&shown), "{shown} shown");
        assert!(bytes.len() <= limit, "{} bytes answered", bytes.len());
        assert_eq!(v["data"]["payloads"][0]["form"][0]["size"], 33_000);
    }

    #[tokio::test]
    async fn keeps_only_the_most_recent_payloads_by_count_and_bytes() {
        let (cli, _) = client_with(Config { inbox_max_payloads: 3, inbox_max_bytes: 4096, ..Config::default() });
        let (id, _) = create(&cli, json!({})).await;
        for i in 1..=5 {
            let resp = cli.post(format!("/v1/webhook/inbox/{id}/receive")).body_json(&json!({"n": i})).send().await;
            resp.assert_status_is_ok();
        }
        let ns: Vec<i64> = list(&cli, &id, "").await.iter().map(|p| p["body"]["n"].as_i64().unwrap()).collect();
        assert_eq!(ns, vec![3, 4, 5]);
        // Two deliveries of 3 KB: the byte cap keeps the newest alone.
        for c in ["a", "b"] {
            cli.post(format!("/v1/webhook/inbox/{id}/receive")).body(c.repeat(3000)).send().await.assert_status_is_ok();
        }
        let kept = list(&cli, &id, "").await;
        assert_eq!(kept.len(), 1);
        assert_eq!(kept[0]["size"], 3000);
        let (_, answer) =
            json_of(cli.post("/v1/webhook/inbox/create").body_json(&json!({"maxPayloads": 2})).send().await).await;
        assert_eq!(answer["data"]["maxPayloads"], 2);
    }

    #[tokio::test]
    async fn unknown_and_expired_inboxes_are_404() {
        let (cli, _) = client_with(Config::default());
        for uri in ["/v1/webhook/inbox/AAAAAAAAAAAAAAAA", "/v1/webhook/inbox/AAAAAAAAAAAAAAAA/payloads"] {
            let (status, v) = json_of(cli.get(uri).send().await).await;
            assert_eq!((status, v["error"]["code"].as_str()), (404, Some("INBOX_NOT_FOUND")), "{uri}");
        }
        // Ids of other shapes (the UUIDs other services issue, odd characters) are unknown
        // inboxes too, on every path.
        for id in ["3f2b8c1e-9d4a-4e7b-8a61-2c5d7e9f0b13", "x", "a.b~c", &"z".repeat(256)] {
            for (method, path) in
                [("GET", ""), ("GET", "/payloads"), ("POST", "/list"), ("POST", "/receive"), ("PUT", "/receive/a/b")]
            {
                let uri = format!("/v1/webhook/inbox/{id}{path}");
                let resp = match method {
                    "GET" => cli.get(&uri).send().await,
                    "PUT" => cli.put(&uri).body("{}").send().await,
                    _ => cli.post(&uri).body("{}").send().await,
                };
                let (status, v) = json_of(resp).await;
                assert_eq!((status, v["error"]["code"].as_str()), (404, Some("INBOX_NOT_FOUND")), "{method} {uri}");
            }
        }
        // An inbox that asked for a minute, seen after it: written here with a short TTL.
        let (cli, store) = client_with(Config::default());
        let (id, _) = create(&cli, json!({"ttlSeconds": 60})).await;
        let record = store.get(&crate::storage::webhook::model::meta_key(&id)).await.unwrap().unwrap();
        store
            .put(&crate::storage::webhook::model::meta_key(&id), &record, Some(Duration::from_millis(200)))
            .await
            .unwrap();
        cli.post(format!("/v1/webhook/inbox/{id}/receive")).body("y").send().await.assert_status_is_ok();
        tokio::time::sleep(Duration::from_millis(300)).await;
        let (status, _) = json_of(cli.get(format!("/v1/webhook/inbox/{id}/payloads")).send().await).await;
        assert_eq!(status, 404);
        assert!(store.log_read(&log_key(&id), 1, 10).await.unwrap().is_empty(), "payloads expire with their inbox");
    }

    /// A configured answer: status, headers, body, type and delay; PATCH changes it and null
    /// goes back to the envelope. Every delivery is stored either way.
    #[tokio::test]
    async fn deliveries_are_answered_as_configured() {
        let (cli, _) = client_with(Config::default());
        let response = json!({"status": 202, "headers": {"X-Custom": "yes", "Retry-After": "3"},
                              "body": "<ok/>", "contentType": "application/xml", "delayMs": 300});
        let (id, token) = create(&cli, json!({"response": response})).await;
        let started = std::time::Instant::now();
        let resp = cli.put(format!("/v1/webhook/inbox/{id}/receive/x")).body("a").send().await;
        assert!(started.elapsed() >= Duration::from_millis(300), "held back {:?}", started.elapsed());
        resp.assert_status(poem::http::StatusCode::ACCEPTED);
        resp.assert_header("x-custom", "yes");
        resp.assert_header("retry-after", "3");
        resp.assert_header("content-type", "application/xml");
        resp.assert_text("<ok/>").await;
        // Changed without the token: refused; with it: the new answer, then the envelope again.
        let (status, _) = json_of(
            cli.patch(format!("/v1/webhook/inbox/{id}")).body_json(&json!({"response": {"status": 500}})).send().await,
        )
        .await;
        assert_eq!(status, 403);
        let patch = |body: Value| {
            cli.patch(format!("/v1/webhook/inbox/{id}")).header("X-Manage-Token", &token).body_json(&body).send()
        };
        let (status, v) = json_of(patch(json!({"response": {"status": 503}, "maxPayloads": 2})).await).await;
        assert_eq!(
            (status, v["data"]["response"]["status"].as_u64(), v["data"]["maxPayloads"].as_u64()),
            (200, Some(503), Some(2)),
            "{v}"
        );
        let resp = cli.post(format!("/v1/webhook/inbox/{id}/receive")).body("b").send().await;
        resp.assert_status(poem::http::StatusCode::SERVICE_UNAVAILABLE);
        resp.assert_text("").await;
        let (status, v) = json_of(patch(json!({"response": null})).await).await;
        assert_eq!((status, &v["data"]["response"]), (200, &Value::Null));
        let (status, r) = json_of(cli.post(format!("/v1/webhook/inbox/{id}/receive")).body("c").send().await).await;
        assert_eq!((status, r["data"]["received"].as_bool()), (200, Some(true)));
        // maxPayloads 2 took effect at the next delivery: b and c are kept.
        let bodies: Vec<String> =
            list(&cli, &id, "").await.iter().map(|p| p["rawBody"].as_str().unwrap().to_string()).collect();
        assert_eq!(bodies, ["b", "c"]);
        for bad in [
            json!({"response": {"headers": {"Content-Length": "5"}}}),
            json!({"response": {"headers": {"Content-Type": "text/html"}}}),
            json!({"response": {"headers": {"bad name": "x"}}}),
            json!({"response": {"headers": (0..21).map(|i| (format!("x-{i}"), json!("v"))).collect::<serde_json::Map<_, _>>()}}),
            json!({"response": {"status": 101}}),
            json!({"response": {"delayMs": 30001}}),
        ] {
            let (status, v) = json_of(patch(bad.clone()).await).await;
            assert_eq!((status, v["error"]["code"].as_str()), (400, Some("VALIDATION_ERROR")), "{bad}: {v}");
        }
    }

    /// The live stream on the embedded store: new deliveries as events, a resume with
    /// `Last-Event-ID` sends what was missed, and deleting the inbox ends the stream.
    #[tokio::test]
    async fn the_stream_sends_each_delivery_once() {
        use futures_util::StreamExt;
        let (cli, _) = client_with(Config::default());
        let (id, token) = create(&cli, json!({})).await;
        cli.post(format!("/v1/webhook/inbox/{id}/receive")).body("before").send().await.assert_status_is_ok();
        let resp = cli.get(format!("/v1/webhook/inbox/{id}/stream")).header("Accept", "text/event-stream").send().await;
        resp.assert_status_is_ok();
        resp.assert_header("content-type", "text/event-stream");
        let mut body = resp.0.into_body().into_bytes_stream();
        let mut text = String::new();
        let mut read_until = async |needle: &str, text: &mut String| {
            while !text.contains(needle) {
                let chunk =
                    tokio::time::timeout(Duration::from_secs(2), body.next()).await.expect("in time").unwrap().unwrap();
                text.push_str(&String::from_utf8_lossy(&chunk));
            }
        };
        read_until(": stream open", &mut text).await;
        for n in 2..=3 {
            cli.post(format!("/v1/webhook/inbox/{id}/receive"))
                .body(format!("n{n}"))
                .send()
                .await
                .assert_status_is_ok();
        }
        read_until("id: 3\n", &mut text).await;
        assert!(!text.contains("id: 1\n"), "a fresh stream starts with the next delivery: {text}");
        assert!(text.contains("id: 2\nevent: delivery\ndata: {") && text.contains("\"rawBody\":\"n2\""), "{text}");
        let (status, _) =
            json_of(cli.delete(format!("/v1/webhook/inbox/{id}")).header("X-Manage-Token", &token).send().await).await;
        assert_eq!(status, 200);
        read_until("event: gone", &mut text).await;
        assert!(tokio::time::timeout(Duration::from_secs(1), body.next()).await.unwrap().is_none(), "the stream ends");
        crate::storage::shared::log_stream::read::assert_declared(&ops(), "/v1/webhook/inbox/{id}/stream", &text);

        let (id, _) = create(&cli, json!({})).await;
        for n in 1..=40 {
            cli.post(format!("/v1/webhook/inbox/{id}/receive"))
                .body(format!("m{n}"))
                .send()
                .await
                .assert_status_is_ok();
        }
        let resp = cli
            .get(format!("/v1/webhook/inbox/{id}/stream"))
            .header("Accept", "text/event-stream")
            .header("Last-Event-ID", "5")
            .send()
            .await;
        let mut body = resp.0.into_body().into_bytes_stream();
        let mut text = String::new();
        while !text.contains("id: 40\n") {
            let chunk =
                tokio::time::timeout(Duration::from_secs(2), body.next()).await.expect("in time").unwrap().unwrap();
            text.push_str(&String::from_utf8_lossy(&chunk));
        }
        let ids: Vec<u64> = text.lines().filter_map(|l| l.strip_prefix("id: ")).map(|n| n.parse().unwrap()).collect();
        assert_eq!(ids, (6..=40).collect::<Vec<u64>>(), "what was missed, in order, once");
        // Without `Accept: text/event-stream` it is a poll: what is stored after the id, then the end.
        let resp = cli.get(format!("/v1/webhook/inbox/{id}/stream?lastEventId=37")).send().await;
        let text =
            tokio::time::timeout(Duration::from_secs(2), resp.0.into_body().into_string()).await.unwrap().unwrap();
        let ids: Vec<&str> = text.lines().filter_map(|l| l.strip_prefix("id: ")).collect();
        assert_eq!(ids, ["38", "39", "40"], "{text}");
        let resp = cli.get(format!("/v1/webhook/inbox/{id}/stream")).send().await;
        let text =
            tokio::time::timeout(Duration::from_secs(2), resp.0.into_body().into_string()).await.unwrap().unwrap();
        assert!(!text.contains("id: "), "no resume, nothing stored after now: {text}");
    }
}
