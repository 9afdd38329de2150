//! Reading and deleting pastes: the JSON read (`GET /v1/paste/{id}` and the spec's
//! `POST /v1/paste/get`), the exact content as `text/plain` (`/raw`, for `curl | sh` and the
//! like), HEAD of both, which describes a paste without spending a view, and `DELETE` with the
//! paste's delete token.
//!
//! Every read of a paste with a view limit spends one view, in the same store step that reads
//! it; the read that spends the last removes the paste. An expired, burnt or deleted paste is
//! 404 `NOT_FOUND` like one that never existed, and nothing of its content is left in the store.

use http::{HeaderName, HeaderValue};

use super::model::{ID_LEN, PasteRecord, key};
use wrench_contract::{
    op::{RawBody, RawReply},
    prelude::*,
};
use wrench_infra::store::counted;

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
    /// The stored text, exactly as it was sent (for an encrypted paste, the ciphertext).
    content: String,
    /// The syntax tag.
    language: String,
    /// Size of the content in UTF-8 bytes.
    size: usize,
    /// Whether the content is the client's ciphertext, to be opened with the key from the
    /// view URL's fragment.
    encrypted: bool,
    /// Reads left after this one (null: unlimited). At 0 this was the last: the paste is gone.
    views_left: Option<u32>,
    /// When it was stored (RFC 3339, UTC).
    created_at: String,
    /// When it disappears (RFC 3339, UTC); reading does not change it.
    expires_at: String,
}

fn missing(id: &str) -> ApiError {
    ApiError::not_found(format!(
        "no paste {id:?}: it never existed, has expired, was read its last time or was deleted"
    ))
}

/// Only ids of the shape this service issues can exist; others are not looked up.
fn lookable(id: &str) -> Result<(), ApiError> {
    if id.len() == ID_LEN && id.bytes().all(|b| b.is_ascii_alphanumeric()) { Ok(()) } else { Err(missing(id)) }
}

fn parse(id: &str, raw: &[u8]) -> Result<PasteRecord, ApiError> {
    serde_json::from_slice(raw).map_err(|e| ApiError::internal(format!("stored paste {id} unreadable: {e}")))
}

/// Reads the paste, spending a view when it has a limit: the record and the views left.
async fn take(ctx: &Ctx, id: &str) -> Result<(PasteRecord, Option<u32>), ApiError> {
    lookable(id)?;
    let taken = ctx.store.take(&key(id)).await?.ok_or_else(|| missing(id))?;
    Ok((parse(id, &taken.value)?, taken.left))
}

/// Reads the paste without spending a view: the record and the views left.
async fn peek(ctx: &Ctx, id: &str) -> Result<(PasteRecord, Option<u32>), ApiError> {
    lookable(id)?;
    let stored = ctx.store.get(&key(id)).await?.ok_or_else(|| missing(id))?;
    let (left, json) = counted::split(&stored);
    Ok((parse(id, json)?, left))
}

/// Read a paste.
///
/// Returns the content, syntax tag and timestamps. A paste with a view limit spends one view
/// on each read (`viewsLeft` says how many remain; the read that leaves 0 is the last). Unknown,
/// expired, burnt and deleted ids are 404 `NOT_FOUND`. Reading never extends the paste's
/// life. `POST /v1/paste/get` with the id in a JSON body is the same read, for clients that
/// only POST. `HEAD` describes the paste without spending a view.
#[op(get "/v1/paste/{id}" as getPaste,
     post "/v1/paste/get" as getPastePost,
     tag = Storage,
     uses(store), errors(NOT_FOUND),
     example(unknown, {"id": "AbCd1234"}, status = 404),
     example(other_shape, {"id": "short"}, status = 404),
     example(punctuation, {"id": "not-an-id!"}, status = 404))]
async fn get_paste(input: PasteIdInput, ctx: &Ctx) -> Result<PasteOutput, ApiError> {
    let (r, views_left) = take(ctx, &input.id).await?;
    Ok(PasteOutput {
        id: input.id,
        size: r.content.len(),
        content: r.content,
        language: r.language,
        encrypted: r.encrypted,
        views_left,
        created_at: r.created_at,
        expires_at: r.expires_at,
    })
}

/// The headers that describe a paste, on its raw answer and on HEAD: what it is, and the
/// media type of its raw form.
fn describing(r: &PasteRecord, views_left: Option<u32>) -> Vec<(HeaderName, HeaderValue)> {
    let text = |v: &str| HeaderValue::from_str(v).unwrap_or(HeaderValue::from_static(""));
    let mut h = vec![
        (HeaderName::from_static("x-paste-language"), text(&r.language)),
        (
            HeaderName::from_static("x-paste-encrypted"),
            HeaderValue::from_static(if r.encrypted { "true" } else { "false" }),
        ),
        (HeaderName::from_static("x-paste-size"), HeaderValue::from(r.content.len())),
        (HeaderName::from_static("x-paste-expires-at"), text(&r.expires_at)),
        // A paste is read from wrench each time: a cache must not hold a view for someone else.
        (http::header::CACHE_CONTROL, HeaderValue::from_static("no-store")),
    ];
    if let Some(left) = views_left {
        h.push((HeaderName::from_static("x-paste-views-left"), HeaderValue::from(left)));
    }
    h.push((http::header::CONTENT_TYPE, HeaderValue::from_static("text/plain; charset=utf-8")));
    h
}

fn reply(headers: Vec<(HeaderName, HeaderValue)>, body: bytes::Bytes) -> RawReply {
    RawReply { status: 200, headers, body: RawBody::Bytes(body), delay: Default::default() }
}

/// Read a paste's raw content.
///
/// The content exactly as stored, as `text/plain; charset=utf-8`, for `curl` and scripts. It
/// is a read like `GET /v1/paste/{id}` (a view is spent when the paste has a limit), and the
/// headers `X-Paste-Language`, `X-Paste-Encrypted`, `X-Paste-Size`, `X-Paste-Expires-At` and,
/// when limited, `X-Paste-Views-Left` (after this read) describe the paste. Unknown, expired,
/// burnt and deleted ids are 404 `NOT_FOUND`.
#[op(get "/v1/paste/{id}/raw" as getPasteRaw, tag = Storage,
     output = raw("text/plain"), uses(store), errors(NOT_FOUND),
     example(unknown, {"id": "AbCd1234"}, status = 404),
     example(other_shape, {"id": "short"}, status = 404))]
async fn get_paste_raw(input: PasteIdInput, ctx: &Ctx) -> Result<RawReply, ApiError> {
    let (r, left) = take(ctx, &input.id).await?;
    let headers = describing(&r, left);
    Ok(reply(headers, r.content.into_bytes().into()))
}

/// Describe a paste without reading it.
///
/// The headers of a read (`X-Paste-Language`, `X-Paste-Encrypted`, `X-Paste-Size`,
/// `X-Paste-Expires-At`, and `X-Paste-Views-Left` when the paste has a view limit) without
/// spending a view, so that a page can warn before a burn-after-reading paste is opened. The
/// raw form's `Content-Length` is the content's. Unknown, expired, burnt and deleted ids are 404
/// `NOT_FOUND`.
#[op(head "/v1/paste/{id}" as headPaste,
     head "/v1/paste/{id}/raw" as headPasteRaw,
     tag = Storage, output = raw("text/plain"), uses(store), errors(NOT_FOUND),
     example(unknown, {"id": "AbCd1234"}, status = 404),
     example(other_shape, {"id": "short"}, status = 404))]
async fn head_paste(input: PasteIdInput, ctx: &Ctx) -> Result<RawReply, ApiError> {
    let (r, left) = peek(ctx, &input.id).await?;
    // No body, whoever calls: the content is only for reads that spend a view. The length
    // is the one a read's body would have.
    let mut headers = describing(&r, left);
    headers.push((http::header::CONTENT_LENGTH, HeaderValue::from(r.content.len())));
    Ok(reply(headers, bytes::Bytes::new()))
}

#[derive(Debug, Serialize, JsonSchema)]
struct PasteDeleted {
    /// The deleted paste's id.
    id: String,
    /// Always true.
    deleted: bool,
}

/// Delete a paste.
///
/// Removes the paste at once, with `X-Delete-Token` set to the `deleteToken` its creation
/// answered. A missing or wrong token is 403 `TOKEN_REJECTED`, and so is any token for a paste
/// stored before pastes had delete tokens; unknown, expired, burnt and already deleted ids are
/// 404 `NOT_FOUND`.
#[op(delete "/v1/paste/{id}" as deletePaste, tag = Storage,
     uses(store), errors(NOT_FOUND, TOKEN_REJECTED),
     example(unknown, {"id": "AbCd1234"}, status = 404),
     example(other_shape, {"id": "short"}, status = 404))]
async fn delete_paste(input: PasteIdInput, ctx: &Ctx) -> Result<PasteDeleted, ApiError> {
    let (r, _) = peek(ctx, &input.id).await?;
    wrench_kit::tokens::require(ctx, "X-Delete-Token", r.delete_token_sha256.as_deref(), "paste")?;
    ctx.store.delete(&[&key(&input.id)]).await?;
    Ok(PasteDeleted { id: input.id, deleted: true })
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use poem::test::TestClient;

    use super::*;
    use crate::testing::json_of;
    use wrench_infra::{config::Config, store::Store};

    type Client = TestClient<wrench_server::http::App>;

    fn client() -> (Client, Arc<dyn Store>) {
        let store: Arc<dyn Store> = Arc::new(wrench_infra::store::embedded::EmbeddedStore::in_memory().unwrap());
        let ops = vec![
            crate::storage::paste::create::__op_create_paste(),
            __op_get_paste(),
            __op_get_paste_raw(),
            __op_head_paste(),
            __op_delete_paste(),
        ];
        let app = wrench_server::http::app_with_store(Arc::new(Config::default()), store.clone(), ops).unwrap();
        (TestClient::new(app), store)
    }

    async fn create(cli: &Client, body: Value) -> Value {
        let (status, v) = json_of(cli.post("/v1/paste/create").body_json(&body).send().await).await;
        assert_eq!(status, 200, "{v}");
        v["data"].clone()
    }

    #[tokio::test]
    async fn create_then_read_every_way() {
        let (cli, _) = client();
        let content = "line 1\n\"quoted\" — ünïcode\n\u{1}\r\n";
        let created = create(&cli, json!({"content": content, "language": "md"})).await;
        let id = created["id"].as_str().unwrap().to_string();
        assert_eq!(id.len(), 8);
        assert_eq!(created["url"], format!("http://127.0.0.1:8080/v1/paste/{id}"));
        assert_eq!(created["rawUrl"], format!("http://127.0.0.1:8080/v1/paste/{id}/raw"));
        assert_eq!(created["viewUrl"], format!("http://127.0.0.1:8080/p/{id}"));
        assert_eq!((created["size"].as_u64(), created["viewsLeft"].clone()), (Some(content.len() as u64), Value::Null));
        assert_eq!(created["deleteToken"].as_str().unwrap().len(), 32);
        for resp in [
            cli.get(format!("/v1/paste/{id}")).send().await,
            cli.post("/v1/paste/get").body_json(&json!({"id": id})).send().await,
        ] {
            let (status, v) = json_of(resp).await;
            assert_eq!(status, 200);
            assert_eq!(v["data"]["content"], content);
            assert_eq!(v["data"]["language"], "md");
            assert_eq!(v["data"]["encrypted"], false);
            assert_eq!(v["data"]["viewsLeft"], Value::Null);
            assert_eq!(v["data"]["createdAt"], created["createdAt"]);
            assert_eq!(v["data"]["expiresAt"], created["expiresAt"], "reading does not extend the TTL");
        }
        let raw = cli.get(format!("/v1/paste/{id}/raw")).send().await;
        raw.assert_status_is_ok();
        raw.assert_header("content-type", "text/plain; charset=utf-8");
        raw.assert_header("x-paste-language", "md");
        raw.assert_header("cache-control", "no-store");
        assert_eq!(raw.0.into_body().into_vec().await.unwrap(), content.as_bytes(), "exact bytes");
        // A paste of exactly 1 MiB fits, even fully escaped; one byte more does not.
        let big = "\u{1}".repeat(crate::storage::paste::create::MAX_CONTENT);
        cli.post("/v1/paste/create").body_json(&json!({"content": big})).send().await.assert_status_is_ok();
        let resp = cli.post("/v1/paste/create").body_json(&json!({"content": big + "x"})).send().await;
        assert_eq!(resp.0.status(), 400);
    }

    #[tokio::test]
    async fn burn_after_reading_gives_one_read_and_head_spends_none() {
        let (cli, store) = client();
        let created = create(&cli, json!({"content": "once", "maxViews": 1})).await;
        let id = created["id"].as_str().unwrap().to_string();
        assert_eq!(created["viewsLeft"], 1);
        for path in [format!("/v1/paste/{id}"), format!("/v1/paste/{id}/raw")] {
            let head = cli.head(&path).send().await;
            head.assert_status_is_ok();
            head.assert_header("x-paste-views-left", "1");
            head.assert_header("x-paste-encrypted", "false");
        }
        let (status, v) = json_of(cli.get(format!("/v1/paste/{id}")).send().await).await;
        assert_eq!(
            (status, v["data"]["content"].as_str(), v["data"]["viewsLeft"].as_u64()),
            (200, Some("once"), Some(0))
        );
        assert_eq!(store.get(&key(&id)).await.unwrap(), None, "nothing of it is left");
        for resp in [
            cli.get(format!("/v1/paste/{id}")).send().await,
            cli.get(format!("/v1/paste/{id}/raw")).send().await,
            cli.head(format!("/v1/paste/{id}")).send().await,
        ] {
            assert_eq!(resp.0.status(), 404);
        }
        // Three views, spent by the JSON read, the raw read and the POST read.
        let id = create(&cli, json!({"content": "thrice", "maxViews": 3})).await["id"].as_str().unwrap().to_string();
        let raw = cli.get(format!("/v1/paste/{id}/raw")).send().await;
        raw.assert_header("x-paste-views-left", "2");
        let (_, v) = json_of(cli.get(format!("/v1/paste/{id}")).send().await).await;
        assert_eq!(v["data"]["viewsLeft"], 1);
        let (_, v) = json_of(cli.post("/v1/paste/get").body_json(&json!({"id": id})).send().await).await;
        assert_eq!(v["data"]["viewsLeft"], 0);
        assert_eq!(cli.get(format!("/v1/paste/{id}")).send().await.0.status(), 404);
    }

    #[tokio::test]
    async fn a_paste_with_views_gives_exactly_that_many_reads_to_concurrent_readers() {
        let (cli, _) = client();
        let id = create(&cli, json!({"content": "race", "maxViews": 10})).await["id"].as_str().unwrap().to_string();
        let cli = Arc::new(cli);
        let readers: Vec<_> = (0..100)
            .map(|_| {
                let (cli, id) = (cli.clone(), id.clone());
                tokio::spawn(async move { cli.get(format!("/v1/paste/{id}/raw")).send().await.0.status().as_u16() })
            })
            .collect();
        let mut ok = 0;
        for r in readers {
            match r.await.unwrap() {
                200 => ok += 1,
                404 => {}
                other => panic!("status {other}"),
            }
        }
        assert_eq!(ok, 10);
    }

    #[tokio::test]
    async fn the_delete_token_deletes_and_nothing_else_does() {
        let (cli, store) = client();
        let created = create(&cli, json!({"content": "bye"})).await;
        let (id, token) = (created["id"].as_str().unwrap(), created["deleteToken"].as_str().unwrap());
        for wrong in [None, Some("x"), Some(&token[1..])] {
            let mut req = cli.delete(format!("/v1/paste/{id}"));
            if let Some(t) = wrong {
                req = req.header("X-Delete-Token", t);
            }
            let (status, v) = json_of(req.send().await).await;
            assert_eq!((status, v["error"]["code"].as_str()), (403, Some("TOKEN_REJECTED")), "{v}");
        }
        let (status, v) =
            json_of(cli.delete(format!("/v1/paste/{id}")).header("X-Delete-Token", token).send().await).await;
        assert_eq!((status, v["data"]["deleted"].as_bool()), (200, Some(true)), "{v}");
        assert_eq!(store.get(&key(id)).await.unwrap(), None);
        assert_eq!(cli.get(format!("/v1/paste/{id}")).send().await.0.status(), 404);
        let again = cli.delete(format!("/v1/paste/{id}")).header("X-Delete-Token", token).send().await;
        assert_eq!(again.0.status(), 404);
    }

    #[tokio::test]
    async fn encrypted_pastes_are_kept_and_served_untouched() {
        let (cli, _) = client();
        let sealed = "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwd-_8";
        let created = create(&cli, json!({"content": sealed, "encrypted": true})).await;
        assert_eq!(created["encrypted"], true);
        let id = created["id"].as_str().unwrap();
        let (_, v) = json_of(cli.get(format!("/v1/paste/{id}")).send().await).await;
        assert_eq!((v["data"]["content"].as_str(), v["data"]["encrypted"].as_bool()), (Some(sealed), Some(true)));
        let head = cli.head(format!("/v1/paste/{id}/raw")).send().await;
        head.assert_header("x-paste-encrypted", "true");
        for bad in ["not sealed!", "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGw==", "AAEC"] {
            let (status, v) = json_of(
                cli.post("/v1/paste/create").body_json(&json!({"content": bad, "encrypted": true})).send().await,
            )
            .await;
            assert_eq!((status, v["error"]["field"].as_str()), (400, Some("content")), "{bad}: {v}");
        }
    }

    #[tokio::test]
    async fn expired_pastes_are_gone_and_reads_do_not_extend_them() {
        let (cli, store) = client();
        let id = create(&cli, json!({"content": "x", "ttl": 60})).await["id"].as_str().unwrap().to_string();
        // The store's own expiry: a value written with a short TTL is gone when it runs out.
        let stored = store.get(&key(&id)).await.unwrap().unwrap();
        store.put(&key(&id), &stored, Some(std::time::Duration::from_millis(400))).await.unwrap();
        tokio::time::sleep(std::time::Duration::from_millis(250)).await;
        assert_eq!(cli.get(format!("/v1/paste/{id}")).send().await.0.status(), 200);
        tokio::time::sleep(std::time::Duration::from_millis(250)).await;
        let (status, v) = json_of(cli.get(format!("/v1/paste/{id}")).send().await).await;
        assert_eq!((status, v["error"]["code"].as_str()), (404, Some("NOT_FOUND")));
    }
}
