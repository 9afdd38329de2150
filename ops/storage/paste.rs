//! Pastes: text stored for a while under an unguessable 8-character id.
//!
//! A paste is immutable and has no owner: anyone with the id can read it until its TTL runs
//! out; reading never extends it. The record lives in the store under `paste:<id>` with the
//! store's own TTL, so expiry needs no sweeping logic here.

use std::time::Duration;

use crate::{prelude::*, random, time};

/// Largest paste, in UTF-8 bytes.
const MAX_CONTENT: usize = 1 << 20;
const ID_LEN: usize = 8;

fn key(id: &str) -> String {
    format!("paste:{id}")
}

#[derive(Debug, Serialize, Deserialize)]
struct PasteRecord {
    content: String,
    language: String,
    created_at: String,
    expires_at: String,
}

#[derive(Debug, Deserialize, JsonSchema, Validate)]
#[serde(deny_unknown_fields)]
struct PasteCreateInput {
    /// The text to store: 1 byte to 1 MiB of UTF-8.
    #[schemars(length(min = 1, max = 1048576))]
    content: String,
    /// A free-form syntax tag for highlighting, such as `rust` or `json`.
    #[serde(default = "plain")]
    #[schemars(pattern("^[A-Za-z0-9][A-Za-z0-9+#._-]{0,31}$"))]
    language: String,
    /// Lifetime in seconds: 60 to 2,592,000 (30 days).
    #[serde(default = "hour")]
    #[schemars(range(min = 60, max = 2592000))]
    ttl: u32,
}

fn plain() -> String {
    "text".to_string()
}

fn hour() -> u32 {
    3600
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct PasteCreated {
    /// The paste's id: 8 letters and digits.
    id: String,
    /// Absolute URL that returns the paste (`GET /v1/paste/{id}`).
    url: String,
    /// The syntax tag.
    language: String,
    /// Size of the content in UTF-8 bytes.
    size: usize,
    /// When it was stored (RFC 3339, UTC).
    created_at: String,
    /// When it disappears (RFC 3339, UTC).
    expires_at: String,
}

/// Stores a paste for `ttl` under a fresh id.
async fn store_paste(ctx: &Ctx, content: String, language: String, ttl: Duration) -> Result<PasteCreated, ApiError> {
    let created = time::now();
    let size = content.len();
    let record =
        PasteRecord { content, language, created_at: time::rfc3339(created), expires_at: time::rfc3339(created + ttl) };
    let bytes = serde_json::to_vec(&record).map_err(|e| ApiError::internal(e.to_string()))?;
    let id =
        random::reserve(ctx.store.as_ref(), ID_LEN, random::ALPHANUMERIC, key, &bytes, Some(ttl), "paste id").await?;
    Ok(PasteCreated {
        url: format!("{}/v1/paste/{id}", ctx.config.public_base()),
        id,
        language: record.language,
        size,
        created_at: record.created_at,
        expires_at: record.expires_at,
    })
}

/// Create a paste.
///
/// Stores up to 1 MiB of UTF-8 text for `ttl` seconds (default 3600, at least 60, at most 30
/// days) under an unguessable 8-character id (letters and digits, 47 bits). The paste cannot
/// be changed or deleted, has no owner, and reading it never extends its life. The content is
/// stored as it is: encrypt secrets first (`/v1/encrypt/encrypt`).
// The body limit is 7 MiB: 1 MiB of content can take up to 6 bytes a byte once JSON-escaped.
#[op(post "/v1/paste/create" as createPaste, tag = Storage,
     body_limit = 7340032,
     uses(store),
     rejects = "content larger than 1 MiB in UTF-8",
     redact(".data.id", ".data.url", ".data.createdAt", ".data.expiresAt"),
     example(typical, {"content": "fn main() {\n    println!(\"hello\");\n}", "language": "rust", "ttl": 86400}),
     example(defaults, {"content": "just some text"}),
     example(ttl_too_long, {"content": "x", "ttl": 2592001}, status = 400))]
async fn create_paste(input: PasteCreateInput, ctx: &Ctx) -> Result<PasteCreated, ApiError> {
    if input.content.len() > MAX_CONTENT {
        return Err(ApiError::invalid(
            "content",
            format!("is {} bytes; a paste holds at most {MAX_CONTENT} bytes (1 MiB)", input.content.len()),
        ));
    }
    store_paste(ctx, input.content, input.language, Duration::from_secs(input.ttl.into())).await
}

#[derive(Debug, Deserialize, JsonSchema, Validate)]
#[serde(deny_unknown_fields)]
struct PasteIdInput {
    /// The 8-character paste id. Any id that is not a live paste (of any shape) is 404
    /// `NOT_FOUND`.
    #[schemars(length(min = 1, max = 256))]
    id: String,
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct PasteOutput {
    /// The paste's id.
    id: String,
    /// The stored text, exactly as it was sent.
    content: String,
    /// The syntax tag.
    language: String,
    /// Size of the content in UTF-8 bytes.
    size: usize,
    /// When it was stored (RFC 3339, UTC).
    created_at: String,
    /// When it disappears (RFC 3339, UTC); reading does not change it.
    expires_at: String,
}

async fn read_paste(ctx: &Ctx, id: String) -> Result<PasteOutput, ApiError> {
    let missing = || ApiError::not_found(format!("no paste {id:?}: it never existed or has expired"));
    // Only ids of the shape this service issues can exist; others are not looked up.
    if !(id.len() == ID_LEN && id.bytes().all(|b| b.is_ascii_alphanumeric())) {
        return Err(missing());
    }
    let raw = ctx.store.get(&key(&id)).await?.ok_or_else(missing)?;
    let r: PasteRecord =
        serde_json::from_slice(&raw).map_err(|e| ApiError::internal(format!("stored paste unreadable: {e}")))?;
    Ok(PasteOutput {
        id,
        size: r.content.len(),
        content: r.content,
        language: r.language,
        created_at: r.created_at,
        expires_at: r.expires_at,
    })
}

/// Read a paste.
///
/// Returns the content, syntax tag and timestamps. Unknown or expired ids are 404
/// `NOT_FOUND`. Reading never extends the paste's life. `POST /v1/paste/get` with the id in a
/// JSON body is the same read, for clients that only POST.
#[op(get "/v1/paste/{id}" as getPaste,
     post "/v1/paste/get" as getPastePost,
     tag = Storage,
     uses(store), errors(NOT_FOUND),
     example(unknown, {"id": "AbCd1234"}, status = 404),
     example(other_shape, {"id": "short"}, status = 404),
     example(punctuation, {"id": "not-an-id!"}, status = 404))]
async fn get_paste(input: PasteIdInput, ctx: &Ctx) -> Result<PasteOutput, ApiError> {
    read_paste(ctx, input.id).await
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use poem::test::TestClient;

    use super::*;
    use crate::config::Config;

    #[tokio::test]
    async fn create_then_read_both_ways() {
        let cli = TestClient::new(
            wrench::http::app(Arc::new(Config::default()), vec![__op_create_paste(), __op_get_paste()]).unwrap(),
        );
        let content = "line 1\n\"quoted\" — ünïcode\n";
        let resp = cli.post("/v1/paste/create").body_json(&json!({"content": content, "language": "md"})).send().await;
        resp.assert_status_is_ok();
        let created: Value = serde_json::from_slice(&resp.0.into_body().into_vec().await.unwrap()).unwrap();
        let id = created["data"]["id"].as_str().unwrap().to_string();
        assert_eq!(id.len(), 8);
        assert_eq!(created["data"]["url"], format!("http://127.0.0.1:8080/v1/paste/{id}"));
        assert_eq!(created["data"]["size"], content.len());
        for resp in [
            cli.get(format!("/v1/paste/{id}")).send().await,
            cli.post("/v1/paste/get").body_json(&json!({"id": id})).send().await,
        ] {
            resp.assert_status_is_ok();
            let v: Value = serde_json::from_slice(&resp.0.into_body().into_vec().await.unwrap()).unwrap();
            assert_eq!(v["data"]["content"], content);
            assert_eq!(v["data"]["language"], "md");
            assert!(created["data"]["createdAt"].is_string() && created["data"]["expiresAt"].is_string());
            assert_eq!(v["data"]["createdAt"], created["data"]["createdAt"]);
            assert_eq!(v["data"]["expiresAt"], created["data"]["expiresAt"], "reading does not extend the TTL");
        }
        // A paste of exactly 1 MiB fits, even fully escaped; one byte more does not.
        let big = "\u{1}".repeat(MAX_CONTENT);
        cli.post("/v1/paste/create").body_json(&json!({"content": big})).send().await.assert_status_is_ok();
        let resp = cli.post("/v1/paste/create").body_json(&json!({"content": big + "x"})).send().await;
        assert_eq!(resp.0.status(), 400);
    }

    #[tokio::test]
    async fn expired_pastes_are_gone_and_reads_do_not_extend_them() {
        let ctx = Ctx::for_tests();
        let created = store_paste(&ctx, "x".into(), "text".into(), Duration::from_millis(400)).await.unwrap();
        tokio::time::sleep(Duration::from_millis(250)).await;
        assert!(read_paste(&ctx, created.id.clone()).await.is_ok());
        tokio::time::sleep(Duration::from_millis(250)).await;
        let err = read_paste(&ctx, created.id).await.unwrap_err();
        assert_eq!(err.code, ErrorCode::NotFound);
    }
}
