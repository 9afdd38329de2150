//! Large JSON answers gzipped for a client that takes gzip: the catalog (about 1 MB) comes
//! back gzipped under `Accept-Encoding: gzip`, and `gzip -d` (an independent reader) gives the
//! same data as the plain answer; its `ETag` turns weak and still revalidates; a small answer,
//! a client that does not take gzip (or refuses it with `q=0`) and an error are sent as they
//! are. A missing `gzip` is reported as skipped, or fails under `WRENCH_TEST_REQUIRE_TOOLS=1`.

use crate::common::tools;

use poem::http::StatusCode;
use serde_json::Value;

/// The data of an envelope (its `meta` differs from call to call).
fn data(body: &[u8]) -> Value {
    serde_json::from_slice::<Value>(body).unwrap()["data"].clone()
}

#[tokio::test]
async fn large_json_answers_are_gzipped_for_clients_that_take_gzip() {
    let cli = tools::client();
    let plain = cli.get("/v1/operations").send().await;
    plain.assert_status_is_ok();
    assert!(plain.0.headers().get("content-encoding").is_none());
    assert!(plain.0.headers().get_all("vary").iter().any(|v| v == "Accept-Encoding"));
    let tag = plain.0.headers().get("etag").unwrap().to_str().unwrap().to_string();
    assert!(tag.starts_with('"'), "{tag}");
    let plain = plain.0.into_body().into_bytes().await.unwrap();
    assert!(plain.len() > 100_000, "{}", plain.len());

    let zipped = cli.get("/v1/operations").header("Accept-Encoding", "br;q=1.0, gzip;q=0.8, *;q=0.1").send().await;
    zipped.assert_status_is_ok();
    assert_eq!(zipped.0.headers().get("content-encoding").unwrap(), "gzip");
    assert!(zipped.0.headers().get_all("vary").iter().any(|v| v == "Accept-Encoding"));
    assert_eq!(zipped.0.headers().get("etag").unwrap().to_str().unwrap(), format!("W/{tag}"));
    let zipped = zipped.0.into_body().into_bytes().await.unwrap();
    eprintln!("the catalog: {} bytes as JSON, {} gzipped", plain.len(), zipped.len());
    assert!(zipped.len() * 3 < plain.len(), "{} of {}", zipped.len(), plain.len());
    if tools::have("gzip") {
        let (ok, unzipped) = tools::output(&["gzip", "-d", "-c"], Some(&zipped));
        assert!(ok);
        assert_eq!(data(&unzipped), data(&plain));
    }
    // The weak tag revalidates.
    let again = cli.get("/v1/operations").header("If-None-Match", format!("W/{tag}")).send().await;
    again.assert_status(StatusCode::NOT_MODIFIED);

    // As they are: gzip refused by name or not named, a small answer, an error.
    for accept in ["gzip;q=0, *;q=1", "identity", "br, zstd"] {
        let resp = cli.get("/v1/operations").header("Accept-Encoding", accept).send().await;
        assert!(resp.0.headers().get("content-encoding").is_none(), "{accept}");
    }
    let small = cli
        .post("/v1/base64/encode")
        .header("Accept-Encoding", "gzip")
        .body_json(&serde_json::json!({"text": "hi"}))
        .send()
        .await;
    small.assert_status_is_ok();
    assert!(small.0.headers().get("content-encoding").is_none());
    assert!(!small.0.headers().get_all("vary").iter().any(|v| v == "Accept-Encoding"));
    let text = "x".repeat(60_000);
    let error = cli
        .post("/v1/base64/decode")
        .header("Accept-Encoding", "gzip")
        .body_json(&serde_json::json!({"encoded": format!("%{text}")}))
        .send()
        .await;
    error.assert_status(StatusCode::BAD_REQUEST);
    assert!(error.0.headers().get("content-encoding").is_none());
}
