//! Replaying a captured delivery to a URL of the caller's: the same method (or another), the
//! same header fields in order less the hop-by-hop ones and `Host`, and the exact bytes, so
//! that the receiving application can check the sender's signature as if the sender had called
//! it. The request goes through the outbound layer like every fetch: private and internal
//! addresses are refused, redirects are answered rather than followed, and one
//! `WRENCH_OUTBOUND_TIMEOUT` bounds it.

use base64::Engine;
use serde_json::Map;
use wrench_kit::webhook::delivery;

use crate::storage::{
    webhook::model::{legacy_key, load},
    webhook::payloads::{logged, payload_not_found},
};
use wrench_contract::prelude::*;

/// Bytes of the target's answer that are kept and shown.
const KEEP: usize = 64 * 1024;

#[derive(Debug, Deserialize, JsonSchema, Validate)]
#[serde(deny_unknown_fields)]
struct PayloadReplayInput {
    /// The inbox id.
    #[schemars(length(min = 1, max = 256))]
    id: String,
    /// The payload id.
    #[schemars(length(min = 1, max = 64))]
    pid: String,
    /// Where to send it: an http or https URL.
    #[schemars(length(min = 1, max = 2048), pattern("^[Hh][Tt][Tt][Pp][Ss]?://"))]
    url: String,
    /// Another method to send it with, in any case (sent upper case; the stored one by default).
    #[serde(default)]
    #[schemars(length(min = 1, max = 16), pattern("^[A-Za-z]+$"))]
    method: Option<String>,
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct PayloadReplayed {
    /// The URL it was sent to.
    url: String,
    /// The method it was sent with.
    method: String,
    /// The target's status.
    status: u16,
    /// The target's header fields, names in lower case, repeated ones joined with ", ".
    headers: Map<String, Value>,
    /// Milliseconds from sending to the last byte kept.
    duration_ms: u64,
    /// The first 64 KiB of the target's body: text, or Base64 when it is not UTF-8.
    body: String,
    /// `utf-8` or `base64`.
    body_encoding: String,
    /// The body went on past 64 KiB.
    truncated: bool,
}

/// The stored facts and bytes of one payload. Payloads of older inboxes carry no stored method
/// or header order to replay.
async fn stored(ctx: &Ctx, id: &str, pid: &str) -> Result<(delivery::Recorded, Vec<u8>), ApiError> {
    if let Some((_, recorded, body)) = logged(ctx, id, pid).await? {
        return Ok((recorded, body));
    }
    if !ctx.store.list(&legacy_key(id)).await?.is_empty() {
        return Err(ApiError::invalid("pid", "payloads stored before inboxes kept exact requests cannot be replayed"));
    }
    Err(payload_not_found(pid))
}

/// Replay a webhook payload to a URL.
///
/// Sends the stored request again, to `url`: its method (or `method`), its header fields in the
/// order received less the hop-by-hop ones and `Host`, and its exact bytes, so that a receiving
/// application can verify the sender's signature. Answers the target's status, header fields,
/// duration and the first 64 KiB of its body. The request goes through the outbound layer:
/// private, loopback and metadata addresses are refused (403 `TARGET_FORBIDDEN`), a redirect
/// is reported rather than followed, and a target that fails or is too slow is 502 or 504.
/// Unknown or expired inboxes are 404 `INBOX_NOT_FOUND`; a payload the inbox does not hold is
/// 404 `NOT_FOUND`.
#[op(post "/v1/webhook/inbox/{id}/payloads/{pid}/replay" as replayWebhookPayload, tag = Storage,
     uses(store, network), errors(INBOX_NOT_FOUND, NOT_FOUND),
     rejects = "a url that is not an absolute http or https URL, or a payload stored before inboxes kept exact requests",
     example(unknown, {"id": "AAAAAAAAAAAAAAAA", "pid": "1", "url": "https://example.com/hook"}, status = 404),
     example(not_http, {"id": "AAAAAAAAAAAAAAAA", "pid": "1", "url": "ftp://example.com/"}, status = 400))]
async fn replay_webhook_payload(input: PayloadReplayInput, ctx: &Ctx) -> Result<PayloadReplayed, ApiError> {
    let url =
        url::Url::parse(&input.url).map_err(|e| ApiError::invalid("url", format!("is not an absolute URL: {e}")))?;
    load(ctx, &input.id).await?;
    let (recorded, body) = stored(ctx, &input.id, &input.pid).await?;
    // Methods are case-sensitive on the wire; the ones people type are the standard ones.
    let method = input.method.map(|m| m.to_ascii_uppercase());
    let request = delivery::outgoing(&recorded, &body, method.as_deref())
        .ok_or_else(|| ApiError::invalid("method", "is not an HTTP method"))?;
    let method = request.method.to_string();
    let answer = ctx.net.relay(url.clone(), &request, KEEP).await.map_err(|e| e.into_api("url"))?;
    let values: Vec<_> =
        answer.headers.iter().map(|(n, v)| (n.as_str(), String::from_utf8_lossy(v.as_bytes()))).collect();
    let headers = delivery::joined_headers(values.iter().map(|(n, v)| (*n, v.as_ref())));
    let (body, body_encoding) = match String::from_utf8(answer.body) {
        Ok(text) => (text, "utf-8"),
        // Text cut at 64 KiB inside a character is still text, less that character.
        Err(e) if answer.truncated && e.utf8_error().error_len().is_none() => {
            let valid = e.utf8_error().valid_up_to();
            let mut bytes = e.into_bytes();
            bytes.truncate(valid);
            (String::from_utf8(bytes).unwrap_or_default(), "utf-8")
        }
        Err(e) => (base64::engine::general_purpose::STANDARD.encode(e.into_bytes()), "base64"),
    };
    Ok(PayloadReplayed {
        url: url.to_string(),
        method,
        status: answer.status,
        headers,
        duration_ms: answer.elapsed.as_millis() as u64,
        body,
        body_encoding: body_encoding.to_string(),
        truncated: answer.truncated,
    })
}

#[cfg(test)]
mod tests {
    use std::{sync::Arc, time::Duration};

    use poem::test::TestClient;
    use tokio::io::{AsyncReadExt, AsyncWriteExt};

    use super::*;
    use crate::testing::json_of;

    /// The operations under test, with the outbound layer allowed to reach the recorder's port.
    fn client(recorder: &str) -> TestClient<wrench_server::http::App> {
        use crate::storage::webhook::{inbox, payloads, receive};
        let ops = vec![
            inbox::__op_create_webhook_inbox(),
            receive::__op_receive_webhook(),
            payloads::__op_list_webhook_payloads(),
            __op_replay_webhook_payload(),
        ];
        let port = url::Url::parse(recorder).unwrap().port().unwrap();
        let mut vars = wrench_fakes::shared().settings();
        vars.push(("WRENCH_OUTBOUND_PORTS".into(), format!("80,443,{port}")));
        let config = wrench_infra::config::Config::from_vars(&vars).unwrap();
        TestClient::new(wrench_server::http::app(Arc::new(config), ops).unwrap())
    }

    /// A server on 127.0.0.2 (the address the test settings let the outbound layer reach) that
    /// records the raw bytes of each request it gets and answers 201.
    async fn recorder() -> (String, tokio::sync::mpsc::UnboundedReceiver<Vec<u8>>) {
        let listener = tokio::net::TcpListener::bind("127.0.0.2:0").await.unwrap();
        let url = format!("http://{}/hook", listener.local_addr().unwrap());
        let (tx, rx) = tokio::sync::mpsc::unbounded_channel();
        tokio::spawn(async move {
            while let Ok((mut conn, _)) = listener.accept().await {
                let mut raw = Vec::new();
                let mut buf = [0u8; 8192];
                loop {
                    let n = conn.read(&mut buf).await.unwrap_or(0);
                    if n == 0 {
                        break;
                    }
                    raw.extend_from_slice(&buf[..n]);
                    if let Some(end) = raw.windows(4).position(|w| w == b"\r\n\r\n") {
                        let head = String::from_utf8_lossy(&raw[..end]).to_ascii_lowercase();
                        let length = head
                            .lines()
                            .find_map(|l| l.strip_prefix("content-length:"))
                            .map_or(0, |v| v.trim().parse::<usize>().unwrap());
                        if raw.len() >= end + 4 + length {
                            break;
                        }
                    }
                }
                let _ = tx.send(raw);
                let answer = "HTTP/1.1 201 Created\r\nX-From: recorder\r\nContent-Length: 8\r\nConnection: close\r\n\r\nrecorded";
                let _ = conn.write_all(answer.as_bytes()).await;
            }
        });
        (url, rx)
    }

    /// The head and body of a recorded request.
    fn split(raw: &[u8]) -> (String, Vec<u8>) {
        let end = raw.windows(4).position(|w| w == b"\r\n\r\n").unwrap();
        (String::from_utf8_lossy(&raw[..end]).into_owned(), raw[end + 4..].to_vec())
    }

    const SIG: &str = "sha256=757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17";

    #[tokio::test]
    async fn a_replay_arrives_byte_identical_with_the_signature() {
        let (url, mut recorded) = recorder().await;
        let cli = client(&url);
        let (status, created) = json_of(cli.post("/v1/webhook/inbox/create").send().await).await;
        assert_eq!(status, 200);
        let id = created["data"]["id"].as_str().unwrap().to_string();
        let body: Vec<u8> = vec![0, 0xff, b'H', b'i', 0xc3, 0x28, b'\n'];
        cli.put(format!("/v1/webhook/inbox/{id}/receive/orders"))
            .header("X-Hub-Signature-256", SIG)
            .header("X-First", "1")
            .header("X-Second", "2")
            .content_type("application/octet-stream")
            .body(body.clone())
            .send()
            .await
            .assert_status_is_ok();
        let (status, v) = json_of(
            cli.post(format!("/v1/webhook/inbox/{id}/payloads/1/replay")).body_json(&json!({"url": url})).send().await,
        )
        .await;
        assert_eq!(status, 200, "{v}");
        assert_eq!((v["data"]["status"].as_u64(), v["data"]["method"].as_str()), (Some(201), Some("PUT")));
        assert_eq!(
            (v["data"]["headers"]["x-from"].as_str(), v["data"]["body"].as_str()),
            (Some("recorder"), Some("recorded"))
        );
        let (head, got) = split(&recorded.recv().await.unwrap());
        assert_eq!(got, body, "the exact bytes");
        assert!(head.starts_with("PUT /hook HTTP/1.1\r\n"), "{head}");
        let lower = head.to_ascii_lowercase();
        assert!(lower.contains(&format!("x-hub-signature-256: {SIG}")), "{head}");
        assert!(lower.find("x-first: 1").unwrap() < lower.find("x-second: 2").unwrap(), "in the order received");
        assert!(lower.contains("host: 127.0.0.2:"), "Host names the target, not wrench: {head}");
        assert!(lower.contains("content-length: 7"));
        // Another method; and a target the address policy refuses.
        let (_, v) = json_of(
            cli.post(format!("/v1/webhook/inbox/{id}/payloads/1/replay"))
                .body_json(&json!({"url": url, "method": "post"}))
                .send()
                .await,
        )
        .await;
        assert_eq!(v["data"]["method"], "POST");
        assert!(split(&recorded.recv().await.unwrap()).0.starts_with("POST /hook"));
        let (status, v) = json_of(
            cli.post(format!("/v1/webhook/inbox/{id}/payloads/1/replay"))
                .body_json(&json!({"url": "http://127.0.0.1:9/x"}))
                .send()
                .await,
        )
        .await;
        assert_eq!((status, v["error"]["code"].as_str()), (403, Some("TARGET_FORBIDDEN")), "{v}");
    }

    /// The first payload's forwarding outcome, once recorded (within 2.5 s).
    async fn forward_of(cli: &TestClient<wrench_server::http::App>, id: &str) -> Value {
        for _ in 0..50 {
            let (_, list) = json_of(cli.get(format!("/v1/webhook/inbox/{id}/payloads")).send().await).await;
            let forward = list["data"]["payloads"][0]["forward"].clone();
            if !forward.is_null() {
                return forward;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        Value::Null
    }

    #[tokio::test]
    async fn deliveries_are_forwarded_and_the_outcome_recorded() {
        let (url, mut recorded) = recorder().await;
        let cli = client(&url);
        let (status, created) =
            json_of(cli.post("/v1/webhook/inbox/create").body_json(&json!({"forwardTo": url})).send().await).await;
        assert_eq!((status, created["data"]["forwardTo"].as_str()), (200, Some(url.as_str())), "{created}");
        let id = created["data"]["id"].as_str().unwrap().to_string();
        cli.post(format!("/v1/webhook/inbox/{id}/receive"))
            .header("X-Hub-Signature-256", SIG)
            .body("Hello, World!")
            .send()
            .await
            .assert_status_is_ok();
        let (head, got) = split(&tokio::time::timeout(Duration::from_secs(5), recorded.recv()).await.unwrap().unwrap());
        assert_eq!((got.as_slice(), head.starts_with("POST /hook")), (&b"Hello, World!"[..], true));
        let forward = forward_of(&cli, &id).await;
        assert_eq!((forward["status"].as_u64(), forward["error"].clone()), (Some(201), Value::Null), "{forward}");
        // A forward to a refused address is recorded as such; the delivery is kept all the same.
        let (_, created) = json_of(
            cli.post("/v1/webhook/inbox/create").body_json(&json!({"forwardTo": "http://127.0.0.1:9/"})).send().await,
        )
        .await;
        let id = created["data"]["id"].as_str().unwrap().to_string();
        cli.post(format!("/v1/webhook/inbox/{id}/receive")).body("x").send().await.assert_status_is_ok();
        let forward = forward_of(&cli, &id).await;
        assert!(forward["status"].is_null() && forward["error"].as_str().is_some_and(|e| !e.is_empty()), "{forward}");
        for bad in ["ftp://example.com/", "not a url", "http://user:pw@example.com/"] {
            let (status, v) =
                json_of(cli.post("/v1/webhook/inbox/create").body_json(&json!({"forwardTo": bad})).send().await).await;
            assert_eq!((status, v["error"]["field"].as_str()), (400, Some("forwardTo")), "{bad}: {v}");
        }
    }
}
