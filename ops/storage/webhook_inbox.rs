//! Webhook inboxes: a URL that captures whatever is POSTed to it, for 24 hours.
//!
//! An inbox is a metadata record (`inbox:{id}`, TTL 24 h) and a capped list of payloads
//! (`inbox:{id}:payloads`) that expires at the same instant, so payloads never outlive their
//! inbox and nothing extends either. The receive URL is called by third parties: it takes any
//! body and media type, does not read API keys (their Authorization headers belong to the
//! inbox owner and are stored, never logged), and answers at once.

use std::time::Duration;

use base64::Engine;
use serde_json::Map;

use crate::{
    op::OpRequest,
    prelude::*,
    random,
    store::{GuardedPush, Pushed},
    time,
};

/// Lifetime of an inbox and of everything it received.
const LIFETIME: Duration = Duration::from_secs(24 * 3600);
/// Length of inbox ids: 16 letters and digits, about 95 bits.
const ID_LEN: usize = 16;
const PAYLOAD_ID_LEN: usize = 12;

fn meta_key(id: &str) -> String {
    format!("inbox:{{{id}}}")
}
fn payloads_key(id: &str) -> String {
    format!("inbox:{{{id}}}:payloads")
}

fn valid_id(id: &str) -> bool {
    id.len() == ID_LEN && id.bytes().all(|b| b.is_ascii_alphanumeric())
}

fn not_found(id: &str) -> ApiError {
    ApiError::new(
        ErrorCode::InboxNotFound,
        format!("no inbox {id:?}: it never existed or has expired (inboxes live 24 hours)"),
    )
}

#[derive(Debug, Serialize, Deserialize)]
struct InboxRecord {
    created_at: String,
    expires_at: String,
    expires_at_ms: u64,
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct InboxInfo {
    /// The inbox id (16 letters and digits).
    id: String,
    /// When the inbox was created (RFC 3339, UTC).
    created_at: String,
    /// When the inbox and its payloads disappear (RFC 3339, UTC): 24 hours after creation.
    expires_at: String,
    /// Absolute URL to POST webhooks to.
    receive_url: String,
    /// Absolute URL that lists the captured payloads.
    payloads_url: String,
    /// Payloads currently kept (at most the configured cap, 50 by default).
    #[serde(rename = "payload_count")]
    payload_count: usize,
}

fn info(ctx: &Ctx, id: String, r: InboxRecord, payload_count: usize) -> InboxInfo {
    let base = format!("{}/v1/webhook/inbox/{id}", ctx.config.public_base());
    InboxInfo {
        receive_url: format!("{base}/receive"),
        payloads_url: format!("{base}/payloads"),
        id,
        created_at: r.created_at,
        expires_at: r.expires_at,
        payload_count,
    }
}

async fn load(ctx: &Ctx, id: &str) -> Result<InboxRecord, ApiError> {
    if !valid_id(id) {
        return Err(not_found(id));
    }
    let raw = ctx.store.get(&meta_key(id)).await?.ok_or_else(|| not_found(id))?;
    serde_json::from_slice(&raw).map_err(|e| ApiError::internal(format!("stored inbox unreadable: {e}")))
}

/// Create a webhook inbox.
///
/// Returns an unguessable id and absolute URLs: POST anything to `receive_url`, read it back
/// from `payloads_url`. The inbox and its payloads live 24 hours from creation; nothing
/// extends that. It keeps the most recent payloads (50 unless the operator configured
/// otherwise), dropping the oldest. Any body is accepted and ignored.
#[op(post "/v1/webhook/inbox/create" as createWebhookInbox, tag = Storage,
     uses(store),
     redact(".data.id", ".data.createdAt", ".data.expiresAt", ".data.receiveUrl", ".data.payloadsUrl"),
     example(typical, {}),
     example(body_is_ignored, {"name": "ignored"}))]
async fn create_webhook_inbox(ctx: &Ctx) -> Result<InboxInfo, ApiError> {
    let created = time::now();
    let expires = created + LIFETIME;
    let record = InboxRecord {
        created_at: time::rfc3339(created),
        expires_at: time::rfc3339(expires),
        expires_at_ms: crate::time::unix_ms(expires),
    };
    let bytes = serde_json::to_vec(&record).map_err(|e| ApiError::internal(e.to_string()))?;
    let id =
        random::reserve(ctx.store.as_ref(), ID_LEN, random::ALPHANUMERIC, meta_key, &bytes, Some(LIFETIME), "inbox id")
            .await?;
    Ok(info(ctx, id, record, 0))
}

/// One captured request, as stored and as listed. The `alias`es read payloads stored before
/// the names were camelCase, so an inbox keeps its payloads across that upgrade.
#[derive(Debug, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct Payload {
    /// Payload id.
    id: String,
    /// When it arrived (RFC 3339, UTC).
    #[serde(rename = "received_at")]
    received_at: String,
    /// The body parsed as JSON, or null when it is not JSON.
    body: Value,
    /// HTTP method (always POST).
    method: String,
    /// Request headers, names in lower case; repeated headers joined with ", ". Secrets such as
    /// Authorization and cookies are kept: they are the inbox owner's.
    headers: Map<String, Value>,
    /// Query parameters (the first value of each name).
    query: Map<String, Value>,
    /// The raw query string.
    #[serde(alias = "query_string")]
    query_string: String,
    /// The declared Content-Type, if any.
    #[serde(alias = "content_type")]
    content_type: Option<String>,
    /// Body size in bytes.
    size: usize,
    /// The body as received when it is not JSON: text, or Base64 when it is not UTF-8.
    #[serde(alias = "raw_body")]
    raw_body: Option<String>,
    /// `utf-8` or `base64`: how `rawBody` is written.
    #[serde(alias = "raw_body_encoding")]
    raw_body_encoding: Option<String>,
}

/// The undecoded delivery, handed over whole by the pipeline.
struct Delivery(OpRequest);

impl From<OpRequest> for Delivery {
    fn from(r: OpRequest) -> Delivery {
        Delivery(r)
    }
}

fn capture(req: &OpRequest, id: String) -> Payload {
    let mut headers = Map::new();
    for (name, value) in &req.headers {
        let v = String::from_utf8_lossy(value.as_bytes()).into_owned();
        match headers.get_mut(name.as_str()) {
            Some(Value::String(existing)) => {
                existing.push_str(", ");
                existing.push_str(&v);
            }
            _ => {
                headers.insert(name.as_str().to_string(), Value::String(v));
            }
        }
    }
    let mut query = Map::new();
    for (k, v) in form_urlencoded::parse(req.query.as_bytes()) {
        query.entry(k.into_owned()).or_insert(Value::String(v.into_owned()));
    }
    let body: Option<Value> = if req.body.is_empty() { None } else { serde_json::from_slice(&req.body).ok() };
    let (raw_body, raw_body_encoding) = match (&body, req.body.is_empty()) {
        (Some(_), _) | (None, true) => (None, None),
        (None, false) => match std::str::from_utf8(&req.body) {
            Ok(text) => (Some(text.to_string()), Some("utf-8".to_string())),
            Err(_) => (Some(base64::engine::general_purpose::STANDARD.encode(&req.body)), Some("base64".to_string())),
        },
    };
    Payload {
        id,
        received_at: time::rfc3339(time::now()),
        body: body.unwrap_or(Value::Null),
        method: "POST".to_string(),
        headers,
        query,
        query_string: req.query.clone(),
        content_type: req.content_type.clone(),
        size: req.body.len(),
        raw_body,
        raw_body_encoding,
    }
}

#[derive(Debug, Serialize, JsonSchema)]
struct Received {
    /// Always true.
    received: bool,
    /// The payload id.
    id: String,
}

/// Receive a webhook.
///
/// The URL to give a webhook provider. Accepts any body (up to the body limit, 1 MiB by
/// default) of any media type and stores it with its headers, query and size: `body` is the
/// parsed JSON, or null with the body in `raw_body` when it is not JSON. API keys are not read
/// here, so a provider's own Authorization header does no harm. Deliveries do not count against
/// the sender's anonymous rate limit; each inbox takes up to 600 a minute (the operator's
/// `WRENCH_INBOX_RATE_PER_MINUTE`), past which deliveries get 429 with `Retry-After`, which
/// providers retry. Unknown or expired inboxes are 404 `INBOX_NOT_FOUND`.
#[op(post "/v1/webhook/inbox/{id}/receive" as receiveWebhook, tag = Storage, input = raw,
     uses(store), errors(INBOX_NOT_FOUND, RATE_LIMITED),
     example(unknown_inbox, {"id": "AAAAAAAAAAAAAAAA", "event": "ping"}, status = 404),
     example(malformed_id, {"id": "nope", "event": "ping"}, status = 404))]
async fn receive_webhook(input: Delivery, ctx: &Ctx) -> Result<Received, ApiError> {
    let req = input.0;
    let id = req.path_params.get("id").cloned().unwrap_or_default();
    if !valid_id(&id) {
        return Err(not_found(&id));
    }
    let payload = capture(&req, random::token(PAYLOAD_ID_LEN, random::ALPHANUMERIC)?);
    let bytes = serde_json::to_vec(&payload).map_err(|e| ApiError::internal(e.to_string()))?;
    // Deliveries do not count against the sender's anonymous quota (one provider address
    // serves many inboxes); each inbox has a bound of its own instead, a window per clock
    // minute counted in the same step as the push: one round trip for the whole delivery.
    let per_minute = ctx.config.inbox_rate_per_minute;
    let (minute, reset) = crate::rate::window_at(crate::time::unix_secs(), 60);
    let window_key = format!("inbox:{{{id}}}:deliveries:{minute}");
    let window = (per_minute > 0).then(|| (window_key.as_str(), i64::from(per_minute), Duration::from_secs(reset + 1)));
    let push = GuardedPush {
        guard: &meta_key(&id),
        list: &payloads_key(&id),
        value: &bytes,
        cap: ctx.config.inbox_max_payloads,
        window,
    };
    match ctx.store.push_guarded(push).await? {
        Pushed::Done(_) => Ok(Received { received: true, id: payload.id }),
        Pushed::NoGuard => Err(not_found(&id)),
        Pushed::Limited(_) => Err(crate::rate::limited(per_minute, reset, "deliveries", " to this inbox")),
    }
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
/// Creation and expiry times, the absolute receive and payloads URLs, and how many payloads
/// it holds. Unknown or expired inboxes are 404 `INBOX_NOT_FOUND`.
#[op(get "/v1/webhook/inbox/{id}" as getWebhookInbox, tag = Storage,
     uses(store), errors(INBOX_NOT_FOUND),
     example(unknown, {"id": "AAAAAAAAAAAAAAAA"}, status = 404),
     example(uuid_shaped, {"id": "3f2b8c1e-9d4a-4e7b-8a61-2c5d7e9f0b13"}, status = 404))]
async fn get_webhook_inbox(input: InboxIdInput, ctx: &Ctx) -> Result<InboxInfo, ApiError> {
    let record = load(ctx, &input.id).await?;
    let count = ctx.store.list_len(&payloads_key(&input.id)).await?;
    Ok(info(ctx, input.id, record, count))
}

#[derive(Debug, Deserialize, JsonSchema, Validate)]
#[serde(deny_unknown_fields)]
struct PayloadsInput {
    /// The inbox id. Any id that is not a live inbox is 404 `INBOX_NOT_FOUND`.
    #[schemars(length(min = 1, max = 256))]
    id: String,
    /// Newest payloads to leave out, to page back through an inbox whose payloads do not fit
    /// in one answer.
    #[serde(default)]
    #[schemars(range(max = 1000))]
    skip: u32,
    /// Most payloads to list (default: all that fit in one answer).
    #[serde(default)]
    #[schemars(range(min = 1, max = 1000))]
    limit: Option<u32>,
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct PayloadList {
    /// The inbox id.
    inbox_id: String,
    /// Number of payloads listed.
    #[serde(rename = "payload_count")]
    payload_count: usize,
    /// Payloads the inbox holds.
    total: usize,
    /// True when older payloads were left out (by `limit`, or because the answer would pass
    /// the response limit); ask again with `skip` set to the payloads seen so far.
    truncated: bool,
    /// The most recent payloads after `skip`, oldest first (sorted by `received_at`).
    payloads: Vec<Payload>,
}

async fn payloads(ctx: &Ctx, input: PayloadsInput) -> Result<PayloadList, ApiError> {
    let id = input.id;
    load(ctx, &id).await?;
    let stored = ctx.store.list(&payloads_key(&id)).await?;
    let total = stored.len();
    // Newest first: skip, then take as many as the limit and the response limit allow (50
    // payloads of 1 MiB would not fit in one answer).
    let mut budget = crate::bounds::OutputBudget::new(ctx.config.response_limit.saturating_sub(4096));
    let mut list: Vec<Payload> = Vec::new();
    let wanted = input.limit.map_or(usize::MAX, |l| l as usize);
    for raw in stored.iter().skip(input.skip as usize) {
        if list.len() == wanted || budget.add(raw.len() + 1).is_err() {
            break;
        }
        if let Ok(p) = serde_json::from_slice(raw) {
            list.push(p);
        }
    }
    let truncated = input.skip as usize + list.len() < total;
    list.reverse();
    Ok(PayloadList { inbox_id: id, payload_count: list.len(), total, truncated, payloads: list })
}

/// List a webhook inbox's payloads.
///
/// The most recent payloads (at most 50 by default), oldest first. When they do not all fit in
/// one answer (the response limit, 8 MiB by default) the newest that fit are listed with
/// `truncated: true`; `skip` pages back to the older ones and `limit` caps the count. Unknown
/// or expired inboxes are 404 `INBOX_NOT_FOUND`. `POST .../list` is the older form of the same
/// read, kept for clients of the original API (its body is ignored); new integrations use `GET
/// .../payloads`.
#[op(get "/v1/webhook/inbox/{id}/payloads" as listWebhookPayloads,
     post "/v1/webhook/inbox/{id}/list" as listWebhookPayloadsPost,
     tag = Storage, input = query,
     uses(store), errors(INBOX_NOT_FOUND),
     example(unknown, {"id": "AAAAAAAAAAAAAAAA"}, status = 404),
     example(other_shape, {"id": "bad id"}, status = 404))]
async fn list_webhook_payloads(input: PayloadsInput, ctx: &Ctx) -> Result<PayloadList, ApiError> {
    payloads(ctx, input).await
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use poem::test::TestClient;

    use super::*;
    use crate::testing::json_of;
    use crate::{config::Config, store::Store};

    fn ops() -> Vec<crate::op::Operation> {
        vec![
            __op_create_webhook_inbox(),
            __op_receive_webhook(),
            __op_get_webhook_inbox(),
            __op_list_webhook_payloads(),
        ]
    }

    fn client_with(config: Config) -> (TestClient<wrench::http::App>, Arc<dyn Store>) {
        let store: Arc<dyn Store> = Arc::new(crate::store::embedded::EmbeddedStore::in_memory().unwrap());
        let app = wrench::http::app_with_store(Arc::new(config), store.clone(), ops()).unwrap();
        (TestClient::new(app), store)
    }

    /// Payloads stored before the wire names became camelCase are still listed, under the new
    /// names: an upgrade loses nothing an inbox holds.
    #[tokio::test]
    async fn payloads_stored_under_the_old_names_are_kept() {
        let (cli, store) = client_with(Config::default());
        let (_, created) = json_of(cli.post("/v1/webhook/inbox/create").send().await).await;
        let id = created["data"]["id"].as_str().unwrap().to_string();
        let old = json!({
            "id": "p1", "received_at": "2026-11-01T00:00:00Z", "body": null, "method": "POST",
            "headers": {}, "query": {}, "query_string": "a=1", "content_type": "text/plain",
            "size": 2, "raw_body": "hi", "raw_body_encoding": "utf-8"
        });
        let expires = std::time::SystemTime::now() + Duration::from_secs(60);
        store.push_capped(&payloads_key(&id), old.to_string().as_bytes(), 50, expires).await.unwrap();
        let (status, list) = json_of(cli.get(format!("/v1/webhook/inbox/{id}/payloads")).send().await).await;
        assert_eq!(status, 200, "{list}");
        let p = &list["data"]["payloads"][0];
        assert_eq!((p["queryString"].as_str(), p["contentType"].as_str()), (Some("a=1"), Some("text/plain")));
        assert_eq!((p["rawBody"].as_str(), p["rawBodyEncoding"].as_str()), (Some("hi"), Some("utf-8")));
        assert_eq!(p["received_at"], "2026-11-01T00:00:00Z");
    }

    #[tokio::test]
    async fn captures_everything_the_owner_needs() {
        let key_digest: [u8; 32] = <sha2::Sha256 as sha2::Digest>::digest(b"owner-key").into();
        let (cli, _) = client_with(Config { api_keys: vec![key_digest], ..Config::default() });
        let (_, created) = json_of(cli.post("/v1/webhook/inbox/create").send().await).await;
        let id = created["data"]["id"].as_str().unwrap().to_string();
        assert_eq!(id.len(), ID_LEN);
        assert_eq!(created["data"]["payload_count"], 0);
        assert_eq!(created["data"]["receiveUrl"], format!("http://127.0.0.1:8080/v1/webhook/inbox/{id}/receive"));
        let receive = format!("/v1/webhook/inbox/{id}/receive");

        // A provider's own Authorization header is not a wrench key: stored, not refused.
        let (status, r) = json_of(
            cli.post(format!("{receive}?source=stripe&x=1&x=2"))
                .header("Authorization", "Bearer provider-secret")
                .header("X-Signature", "abc")
                .content_type("application/json")
                .body(r#"{"event":"charge.succeeded","amount":1200}"#)
                .send()
                .await,
        )
        .await;
        assert_eq!((status, &r["data"]["received"]), (200, &json!(true)), "{r}");
        let (status, _) =
            json_of(cli.post(&receive).content_type("text/plain").body("plain text, not JSON").send().await).await;
        assert_eq!(status, 200);
        let (status, _) = json_of(
            cli.post(&receive).content_type("application/octet-stream").body(vec![0xff, 0x00, 0x10]).send().await,
        )
        .await;
        assert_eq!(status, 200);

        let (status, list) = json_of(cli.get(format!("/v1/webhook/inbox/{id}/payloads")).send().await).await;
        assert_eq!(status, 200);
        let p = list["data"]["payloads"].as_array().unwrap();
        assert_eq!(p.len(), 3);
        assert_eq!(p[0]["body"], json!({"event": "charge.succeeded", "amount": 1200}), "oldest first");
        assert_eq!(p[0]["headers"]["authorization"], "Bearer provider-secret");
        assert_eq!(p[0]["headers"]["x-signature"], "abc");
        assert_eq!(p[0]["query"], json!({"source": "stripe", "x": "1"}));
        assert_eq!(p[0]["queryString"], "source=stripe&x=1&x=2");
        assert_eq!(p[0]["rawBody"], Value::Null);
        assert_eq!((p[1]["body"].clone(), p[1]["rawBody"].clone()), (Value::Null, json!("plain text, not JSON")));
        assert_eq!((p[2]["rawBody"].as_str(), p[2]["rawBodyEncoding"].as_str()), (Some("/wAQ"), Some("base64")));
        assert_eq!(p[2]["size"], 3);
        assert!(p[0]["received_at"].as_str() <= p[2]["received_at"].as_str());

        let (_, same) =
            json_of(cli.post(format!("/v1/webhook/inbox/{id}/list")).body_json(&json!({})).send().await).await;
        assert_eq!(same["data"]["payloads"], list["data"]["payloads"], "the POST alias lists the same");
        let (_, meta) = json_of(cli.get(format!("/v1/webhook/inbox/{id}")).send().await).await;
        assert_eq!(meta["data"]["payload_count"], 3);
        assert!(meta["data"]["expiresAt"].is_string());
        assert_eq!(meta["data"]["expiresAt"], created["data"]["expiresAt"]);
    }

    #[tokio::test]
    async fn a_burst_from_one_address_is_kept_and_each_inbox_is_bounded() {
        // The anonymous quota is 5 a minute; a provider delivers 60 from one address.
        let config = Config { inbox_max_payloads: 100, inbox_rate_per_minute: 80, ..Config::default() };
        let store: Arc<dyn Store> = Arc::new(crate::store::embedded::EmbeddedStore::in_memory().unwrap());
        let app = wrench::http::app_with_store(Arc::new(config), store.clone(), ops()).unwrap();
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let server = tokio::spawn(
            poem::Server::new_with_acceptor(poem::listener::TcpAcceptor::from_tokio(listener).unwrap()).run(app),
        );
        let client = |body: String| async move {
            use tokio::io::{AsyncReadExt, AsyncWriteExt};
            let mut s = tokio::net::TcpStream::connect(addr).await.unwrap();
            s.write_all(body.as_bytes()).await.unwrap();
            let mut out = Vec::new();
            s.read_to_end(&mut out).await.unwrap();
            String::from_utf8_lossy(&out).into_owned()
        };
        let post = |path: &str, body: &str| {
            format!(
                "POST {path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
                body.len()
            )
        };
        // Windows are clock minutes: keep the whole burst inside one.
        let second = crate::time::unix_secs() % 60;
        if second >= 50 {
            tokio::time::sleep(Duration::from_secs(61 - second)).await;
        }
        // Two inboxes, made with a key-free call each (counted against the quota: 2 of 5).
        let mut ids = Vec::new();
        for _ in 0..2 {
            let created = client(post("/v1/webhook/inbox/create", "{}")).await;
            let json: Value = serde_json::from_str(&created[created.find("\r\n\r\n").unwrap() + 4..]).unwrap();
            ids.push(json["data"]["id"].as_str().unwrap().to_string());
        }
        for i in 0..60 {
            let answer =
                client(post(&format!("/v1/webhook/inbox/{}/receive", ids[0]), &format!("{{\"n\":{i}}}"))).await;
            assert!(answer.starts_with("HTTP/1.1 200"), "delivery {i}: {answer}");
        }
        assert_eq!(store.list_len(&payloads_key(&ids[0])).await.unwrap(), 60, "every delivery of the burst is kept");
        // Past the inbox's own bound (80 a minute), deliveries are refused with Retry-After;
        // another inbox is not affected.
        for _ in 60..80 {
            assert!(
                client(post(&format!("/v1/webhook/inbox/{}/receive", ids[0]), "{}")).await.starts_with("HTTP/1.1 200")
            );
        }
        let refused = client(post(&format!("/v1/webhook/inbox/{}/receive", ids[0]), "{}")).await;
        assert!(
            refused.starts_with("HTTP/1.1 429") && refused.to_ascii_lowercase().contains("retry-after:"),
            "{refused}"
        );
        assert!(refused.contains("deliveries per minute"), "{refused}");
        let head = refused.to_ascii_lowercase();
        assert!(head.contains("ratelimit-limit: 80") && head.contains("ratelimit-remaining: 0"), "{refused}");
        assert!(client(post(&format!("/v1/webhook/inbox/{}/receive", ids[1]), "{}")).await.starts_with("HTTP/1.1 200"));
        assert_eq!(store.list_len(&payloads_key(&ids[0])).await.unwrap(), 80, "nothing stored was lost");
        server.abort();
    }

    #[tokio::test]
    async fn payloads_larger_than_one_answer_are_paged_not_lost() {
        // Five payloads of about 300 KB under a 1 MiB response limit: three fit at a time.
        let config = Config { response_limit: 1 << 20, ..Config::default() };
        let (cli, _) = client_with(config);
        let (_, created) = json_of(cli.post("/v1/webhook/inbox/create").send().await).await;
        let id = created["data"]["id"].as_str().unwrap().to_string();
        for i in 0..5 {
            let body = format!("{{\"n\":{i},\"pad\":\"{}\"}}", "x".repeat(300_000));
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
    async fn keeps_only_the_most_recent_payloads() {
        let (cli, _) = client_with(Config { inbox_max_payloads: 3, ..Config::default() });
        let (_, created) = json_of(cli.post("/v1/webhook/inbox/create").send().await).await;
        let id = created["data"]["id"].as_str().unwrap().to_string();
        for i in 1..=5 {
            let resp = cli.post(format!("/v1/webhook/inbox/{id}/receive")).body_json(&json!({"n": i})).send().await;
            resp.assert_status_is_ok();
        }
        let (_, list) = json_of(cli.get(format!("/v1/webhook/inbox/{id}/payloads")).send().await).await;
        let ns: Vec<i64> =
            list["data"]["payloads"].as_array().unwrap().iter().map(|p| p["body"]["n"].as_i64().unwrap()).collect();
        assert_eq!(ns, vec![3, 4, 5]);
    }

    #[tokio::test]
    async fn unknown_and_expired_inboxes_are_404() {
        let (cli, store) = client_with(Config::default());
        for uri in ["/v1/webhook/inbox/AAAAAAAAAAAAAAAA", "/v1/webhook/inbox/AAAAAAAAAAAAAAAA/payloads"] {
            let (status, v) = json_of(cli.get(uri).send().await).await;
            assert_eq!((status, v["error"]["code"].as_str()), (404, Some("INBOX_NOT_FOUND")), "{uri}");
        }
        let (status, v) = json_of(cli.post("/v1/webhook/inbox/AAAAAAAAAAAAAAAA/receive").body("x").send().await).await;
        assert_eq!((status, v["error"]["code"].as_str()), (404, Some("INBOX_NOT_FOUND")));
        // Ids of other shapes (the UUIDs other services issue, odd characters) are unknown
        // inboxes too, on every path.
        for id in ["3f2b8c1e-9d4a-4e7b-8a61-2c5d7e9f0b13", "x", "a.b~c", &"z".repeat(256)] {
            for (method, path) in [("GET", ""), ("GET", "/payloads"), ("POST", "/list"), ("POST", "/receive")] {
                let uri = format!("/v1/webhook/inbox/{id}{path}");
                let resp =
                    if method == "GET" { cli.get(&uri).send().await } else { cli.post(&uri).body("{}").send().await };
                let (status, v) = json_of(resp).await;
                assert_eq!((status, v["error"]["code"].as_str()), (404, Some("INBOX_NOT_FOUND")), "{method} {uri}");
            }
        }
        // An inbox whose 24 hours are over: written here with a short TTL to stand for it.
        let id = "BBBBBBBBBBBBBBBB";
        let soon = crate::time::now() + Duration::from_millis(200);
        let record = InboxRecord {
            created_at: crate::time::rfc3339(crate::time::now()),
            expires_at: crate::time::rfc3339(soon),
            expires_at_ms: crate::time::unix_ms(soon),
        };
        store
            .put(&meta_key(id), &serde_json::to_vec(&record).unwrap(), Some(Duration::from_millis(200)))
            .await
            .unwrap();
        cli.post(format!("/v1/webhook/inbox/{id}/receive")).body("x").send().await.assert_status_is_ok();
        tokio::time::sleep(Duration::from_millis(300)).await;
        let (status, _) = json_of(cli.get(format!("/v1/webhook/inbox/{id}/payloads")).send().await).await;
        assert_eq!(status, 404);
        assert!(store.list(&payloads_key(id)).await.unwrap().is_empty(), "payloads expire with their inbox");
    }
}
