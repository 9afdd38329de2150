//! A short link's visits, live: Server-Sent Events, one `visit` event per redirect, by the log
//! stream every storage feature shares (`log_stream.rs`).

use bytes::Bytes;

use crate::storage::short_url::visit_queue::VisitQueue;
use crate::storage::{
    shared::log_stream::{self, Follow},
    short_url::model::{find, key},
    short_url::visits::{NumberedVisit, Visit, visits_key},
};
use wrench_contract::{op::RawReply, prelude::*};

#[derive(Debug, Deserialize, JsonSchema, Validate)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct VisitStreamInput {
    /// The link's slug. Any slug that is not a link (of any shape) is 404 `NOT_FOUND`.
    #[schemars(length(min = 1, max = 256))]
    slug: String,
    /// Resume after this visit number (what a browser sends as the `Last-Event-ID` header,
    /// which is read too and wins): every later visit the link still keeps is sent first.
    #[serde(default)]
    #[schemars(length(min = 1, max = 20), pattern("^[0-9]+$"))]
    last_event_id: Option<String>,
}

/// One `visit` event: the visit as the statistics list it, with its number.
fn event(number: u64, stored: &[u8]) -> Option<Bytes> {
    let visit: Visit = serde_json::from_slice(stored).ok()?;
    let json = serde_json::to_string(&NumberedVisit { number, visit }).ok()?;
    Some(log_stream::framed(number, "visit", &json))
}

/// Stream a short link's visits live.
///
/// Server-Sent Events (`text/event-stream`): one `visit` event per redirect, `id:` the visit
/// number and `data:` the visit as the statistics' `recentVisits` list it, within a second of
/// the redirect at any instance sharing the store. Reconnecting with `Last-Event-ID` (or
/// `lastEventId`) first sends every later visit the link still keeps (the newest 1,000);
/// without it the stream starts with the next visit. The stream stays open for a client that
/// sends `Accept: text/event-stream`; any other request gets the visits kept after
/// `lastEventId` and the end of the answer, a poll. A comment line every 15 seconds keeps the
/// connection open; a `gone` event ends the stream when the link is deleted. Reading the
/// stream is not a visit. One instance holds at most 1,000 streams of all kinds (429
/// `RATE_LIMITED` past that). Unknown slugs are 404 `NOT_FOUND`.
#[op(get "/v1/short-url/{slug}/visits/stream" as streamShortUrlVisits, tag = Storage,
     output = raw("text/event-stream"), uses(store), errors(NOT_FOUND),
     example(unknown, {"slug": "nothing-here"}, status = 404),
     example(other_shape, {"slug": "bad slug!", "lastEventId": "3"}, status = 404))]
async fn stream_short_url_visits(input: VisitStreamInput, ctx: &Ctx) -> Result<RawReply, ApiError> {
    find(ctx, &input.slug).await?;
    ctx.service::<VisitQueue>().flush().await;
    let follow = Follow { guard: key(&input.slug), log: visits_key(&input.slug), event };
    log_stream::stream(ctx, follow, input.last_event_id.as_deref()).await
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use poem::test::TestClient;

    use wrench_infra::config::Config;

    /// A poll (no `Accept: text/event-stream`) after visit 1 answers visits 2 and 3 and ends;
    /// a deleted link ends a live stream with `gone`.
    #[tokio::test]
    async fn visits_are_events_numbered_for_resuming() {
        use crate::storage::short_url::{links, manage, stats};
        let ops = || {
            vec![
                links::__op_create_short_url(),
                links::__op_follow_short_url(),
                stats::__op_get_short_url_stats(),
                manage::__op_delete_short_url(),
                super::__op_stream_short_url_visits(),
            ]
        };
        let cli = TestClient::new(wrench_server::http::app(Arc::new(Config::default()), ops()).unwrap());
        let created = cli
            .post("/v1/short-url/create")
            .body_json(&serde_json::json!({"url": "https://example.com/"}))
            .send()
            .await;
        let created: serde_json::Value =
            serde_json::from_slice(&created.0.into_body().into_bytes().await.unwrap()).unwrap();
        let slug = created["data"]["slug"].as_str().unwrap().to_string();
        let token = created["data"]["manageToken"].as_str().unwrap().to_string();
        for referer in ["https://a.example/", "https://b.example/x", "https://c.example/"] {
            let r = cli
                .get(format!("/v1/short-url/r/{slug}"))
                .header("referer", referer)
                .header("user-agent", "curl/8.5.0")
                .send()
                .await;
            assert_eq!(r.0.status(), 302);
        }
        // The embedded store queues the visits behind the redirects: wait for the third.
        let mut body = String::new();
        for _ in 0..100 {
            let r = cli.get(format!("/v1/short-url/{slug}/visits/stream?lastEventId=1")).send().await;
            assert_eq!(r.0.headers()["content-type"], "text/event-stream");
            body = String::from_utf8(r.0.into_body().into_bytes().await.unwrap().to_vec()).unwrap();
            if body.contains("id: 3\n") {
                break;
            }
            tokio::time::sleep(std::time::Duration::from_millis(20)).await;
        }
        let events: Vec<&str> = body.split("\n\n").filter(|e| e.contains("event: visit")).collect();
        assert_eq!(events.len(), 2, "{body}");
        assert!(events[0].starts_with("id: 2\nevent: visit\ndata: {"), "{body}");
        let path = "/v1/short-url/{slug}/visits/stream";
        crate::storage::shared::log_stream::read::assert_declared(&ops(), path, &body);
        let data: serde_json::Value = serde_json::from_str(events[1].rsplit("data: ").next().unwrap()).unwrap();
        assert_eq!(
            (data["number"].as_u64(), data["referrer"].as_str(), data["browser"].as_str()),
            (Some(3), Some("c.example"), Some("curl"))
        );

        // Live: the delete ends it with `gone`.
        let live =
            cli.get(format!("/v1/short-url/{slug}/visits/stream")).header("accept", "text/event-stream").send().await;
        let del = cli.delete(format!("/v1/short-url/{slug}")).header("x-manage-token", token).send().await;
        assert_eq!(del.0.status(), 200);
        let rest = tokio::time::timeout(std::time::Duration::from_secs(5), live.0.into_body().into_bytes())
            .await
            .unwrap()
            .unwrap();
        let rest = String::from_utf8(rest.to_vec()).unwrap();
        assert!(rest.ends_with("event: gone\ndata: {}\n\n"), "{rest}");
        crate::storage::shared::log_stream::read::assert_declared(&ops(), path, &rest);
        let gone = cli.get(format!("/v1/short-url/{slug}/visits/stream")).send().await;
        assert_eq!(gone.0.status(), 404);
    }
}
