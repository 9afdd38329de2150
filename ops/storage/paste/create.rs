//! Pastes: text stored for a while under an unguessable 8-character id.
//!
//! A paste has no owner: anyone with the id can read it until its TTL runs out, and reading
//! never extends it. Its creator may limit how often it is read (`maxViews`, 1 = burn after
//! reading), may store ciphertext made in the browser (`encrypted`: wrench keeps and serves it
//! untouched and never sees the key), and gets a delete token, shown once. The record lives in
//! the store under `paste:<id>` with the store's own TTL, so expiry needs no sweeping; a paste
//! with a view limit carries its views left in the same value (`store::counted`), which the
//! read that spends the last removes. Reading, the raw bytes, HEAD and deletion are in
//! `read.rs`; the stored record in `model.rs`.

use std::time::Duration;

use base64::Engine;

use super::model::{ID_LEN, PasteRecord, key};
use wrench_contract::prelude::*;
use wrench_infra::{random, store::counted, time};

/// Largest paste, in UTF-8 bytes.
pub(in crate::storage) const MAX_CONTENT: usize = 1 << 20;
/// Bytes an encrypted paste holds at least: a 12-byte IV and a 16-byte tag.
const SEALED_OVERHEAD: usize = 12 + 16;

#[derive(Debug, Deserialize, JsonSchema, Validate)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct PasteCreateInput {
    /// The text to store: 1 byte to 1 MiB of UTF-8. With `encrypted`, the ciphertext as
    /// unpadded Base64url of the 12-byte IV followed by the AES-256-GCM ciphertext and its
    /// 16-byte tag.
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
    /// How many times it may be read, 1 to 1,000 (1: burn after reading). The read that
    /// spends the last view still returns the content; the paste is gone after it. Unlimited
    /// when absent.
    #[serde(default)]
    #[schemars(range(min = 1, max = 1000))]
    max_views: Option<u32>,
    /// The content is ciphertext made by the client (see `content`); wrench stores and serves
    /// it as it is and never sees the key, which travels in the view URL's fragment.
    #[serde(default)]
    encrypted: bool,
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
    /// Absolute URL of the exact content as `text/plain` (`GET /v1/paste/{id}/raw`).
    raw_url: String,
    /// Absolute URL of the page that shows the paste; for an encrypted paste, append `#` and
    /// the key.
    view_url: String,
    /// The token that deletes the paste (`DELETE /v1/paste/{id}` with `X-Delete-Token`).
    /// Shown only here.
    delete_token: String,
    /// The syntax tag.
    language: String,
    /// Size of the content in UTF-8 bytes.
    size: usize,
    /// Whether the content is the client's ciphertext.
    encrypted: bool,
    /// Reads left (null: unlimited).
    views_left: Option<u32>,
    /// When it was stored (RFC 3339, UTC).
    created_at: String,
    /// When it disappears (RFC 3339, UTC).
    expires_at: String,
}

/// How a paste was asked for, besides its content.
struct PasteOptions {
    language: String,
    ttl: Duration,
    max_views: Option<u32>,
    encrypted: bool,
}

/// Stores a paste under a fresh id.
async fn store_paste(ctx: &Ctx, content: String, options: PasteOptions) -> Result<PasteCreated, ApiError> {
    let created = time::now();
    let size = content.len();
    let (token, digest) = wrench_kit::tokens::issue()?;
    let record = PasteRecord {
        content,
        language: options.language,
        created_at: time::rfc3339(created),
        expires_at: time::rfc3339(created + options.ttl),
        encrypted: options.encrypted,
        max_views: options.max_views,
        delete_token_sha256: Some(digest),
    };
    let json = serde_json::to_vec(&record).map_err(|e| ApiError::internal(e.to_string()))?;
    let bytes = match options.max_views {
        Some(n) => counted::counted(n, &json),
        None => json,
    };
    let id =
        random::reserve(ctx.store.as_ref(), ID_LEN, random::ALPHANUMERIC, key, &bytes, Some(options.ttl), "paste id")
            .await?;
    let base = ctx.config.public_base();
    Ok(PasteCreated {
        url: format!("{base}/v1/paste/{id}"),
        raw_url: format!("{base}/v1/paste/{id}/raw"),
        view_url: format!("{base}/p/{id}"),
        delete_token: token,
        id,
        language: record.language,
        size,
        encrypted: record.encrypted,
        views_left: record.max_views,
        created_at: record.created_at,
        expires_at: record.expires_at,
    })
}

/// Why `content` is not the sealed form an encrypted paste must have, if it is not.
fn sealed_problem(content: &str) -> Option<String> {
    match base64::engine::general_purpose::URL_SAFE_NO_PAD.decode(content) {
        Err(e) => Some(format!("is not unpadded Base64url ({e}), as an encrypted paste must be")),
        Ok(bytes) if bytes.len() < SEALED_OVERHEAD => Some(format!(
            "decodes to {} bytes; an encrypted paste holds at least {SEALED_OVERHEAD} (a 12-byte IV and a 16-byte tag)",
            bytes.len()
        )),
        Ok(_) => None,
    }
}

/// Create a paste.
///
/// Stores up to 1 MiB of UTF-8 text for `ttl` seconds (default 3600, at least 60, at most 30
/// days) under an unguessable 8-character id (letters and digits, 47 bits). Reading never
/// extends its life. `maxViews` limits how often it can be read (1 = burn after reading): the
/// read that spends the last view returns the content and the paste is gone. With
/// `encrypted`, the content is ciphertext the client made (AES-256-GCM, a random 32-byte key;
/// the content is unpadded Base64url of the 12-byte IV, the ciphertext and the 16-byte tag,
/// as Web Crypto's `encrypt` returns them after the IV): wrench checks only that shape and
/// never sees the key, which the client puts in the view URL after `#`, a part of the URL
/// browsers never send. The answer's `deleteToken`, shown only here, deletes the paste.
// The body limit is 7 MiB: 1 MiB of content can take up to 6 bytes a byte once JSON-escaped.
#[op(post "/v1/paste/create" as createPaste, tag = Storage,
     body_limit = 7340032,
     uses(store),
     rejects = "content larger than 1 MiB in UTF-8, or encrypted content that is not unpadded Base64url of at least 28 bytes",
     redact(".data.id", ".data.url", ".data.rawUrl", ".data.viewUrl", ".data.deleteToken", ".data.createdAt", ".data.expiresAt"),
     example(typical, {"content": "fn main() {\n    println!(\"hello\");\n}", "language": "rust", "ttl": 86400}),
     example(defaults, {"content": "just some text"}),
     example(burn_after_reading, {"content": "the password is hunter2", "maxViews": 1}),
     example(encrypted, {"content": "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwd", "encrypted": true, "ttl": 600}),
     example(encrypted_not_base64url, {"content": "not sealed!", "encrypted": true}, status = 400),
     example(ttl_too_long, {"content": "x", "ttl": 2592001}, status = 400))]
async fn create_paste(input: PasteCreateInput, ctx: &Ctx) -> Result<PasteCreated, ApiError> {
    if input.content.len() > MAX_CONTENT {
        return Err(ApiError::invalid(
            "content",
            format!("is {} bytes; a paste holds at most {MAX_CONTENT} bytes (1 MiB)", input.content.len()),
        ));
    }
    if input.encrypted
        && let Some(why) = sealed_problem(&input.content)
    {
        return Err(ApiError::invalid("content", why));
    }
    let options = PasteOptions {
        language: input.language,
        ttl: Duration::from_secs(input.ttl.into()),
        max_views: input.max_views,
        encrypted: input.encrypted,
    };
    store_paste(ctx, input.content, options).await
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn encrypted_content_must_be_unpadded_base64url_of_iv_ciphertext_and_tag() {
        let b64 = |n: usize| base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(vec![0xfbu8; n]);
        assert_eq!(sealed_problem(&b64(28)), None, "an empty message: IV and tag");
        assert_eq!(sealed_problem(&b64(1000)), None);
        assert!(sealed_problem(&b64(27)).unwrap().contains("27 bytes"));
        let padded = base64::engine::general_purpose::URL_SAFE.encode(vec![0u8; 29]);
        assert!(padded.ends_with('='));
        assert!(sealed_problem(&padded).is_some(), "padding is refused");
        let standard = base64::engine::general_purpose::STANDARD_NO_PAD.encode(vec![0xfbu8; 30]);
        assert!(standard.contains('+') || standard.contains('/'));
        assert!(sealed_problem(&standard).is_some(), "the standard alphabet is refused");
    }
}
