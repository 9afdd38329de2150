//! Calls a running wrench through the client progenitor generates from the 3.0.3 rendering of
//! the document (`openapi/openapi-3.0.json`): one operation of each kind of input and output.
//!
//! Usage: WRENCH_TEST_URL=http://127.0.0.1:8080 WRENCH_TEST_KEY=... cargo run (in sdk/rust). Exits
//! non-zero, naming the step, on the first answer that is not right.

progenitor::generate_api!(spec = "../../openapi/openapi-3.0.json", interface = Builder, tags = Merged);

use futures::TryStreamExt;

fn check(done: &mut Vec<&'static str>, step: &'static str, ok: bool, detail: impl std::fmt::Debug) {
    if !ok {
        eprintln!("rust smoke: {step} failed: {detail:?}");
        std::process::exit(1);
    }
    done.push(step);
}

#[tokio::main]
async fn main() {
    let base = std::env::var("WRENCH_TEST_URL").expect("WRENCH_TEST_URL");
    let key = std::env::var("WRENCH_TEST_KEY").expect("WRENCH_TEST_KEY");
    let mut headers = reqwest::header::HeaderMap::new();
    headers.insert("x-api-key", key.parse().expect("a header value"));
    // Redirects are answers to read here, not to follow.
    let http = reqwest::Client::builder()
        .default_headers(headers)
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .expect("a client");
    let client = Client::new_with_client(&base, http);
    let mut done = Vec::new();

    // JSON in, JSON out.
    let r = client.base64_encode().body_map(|b| b.text("wrench")).send().await;
    let ok = r.as_ref().is_ok_and(|r| r.data.encoded == "d3JlbmNo");
    check(&mut done, "json", ok, r.map(|r| r.into_inner()));

    // GET with a query string.
    let r = client.holidays_list_get().country("DE").year(2025).send().await;
    let ok = r.as_ref().is_ok_and(|r| r.data.holidays.iter().any(|h| h.date == "2025-12-25"));
    check(&mut done, "get query", ok, r.map(|r| r.into_inner().data.count));

    // A path parameter.
    let created = client
        .create_paste()
        .body_map(|b| b.content("fn main() {}").language("rust"))
        .send()
        .await
        .expect("paste created");
    let r = client.get_paste().id(created.data.id.clone()).send().await;
    let ok = r.as_ref().is_ok_and(|r| r.data.content == "fn main() {}");
    check(&mut done, "path parameter", ok, r.map(|r| r.into_inner()));

    // Image bytes.
    let r = client
        .qr_generate()
        .body_map(|b| b.text("hello").format(types::QrFormat::Png).size(120))
        .send()
        .await
        .expect("a QR code");
    let bytes: Vec<u8> = r.into_inner().into_inner().map_ok(|b| b.to_vec()).try_concat().await.expect("the body");
    check(&mut done, "image bytes", bytes.starts_with(b"\x89PNG\r\n\x1a\n"), bytes.len());

    // A redirect, not followed.
    let link =
        client.create_short_url().body_map(|b| b.url("https://example.com/smoke")).send().await.expect("a short link");
    let r = client.follow_short_url().slug(link.data.slug.clone()).send().await;
    let location = match &r {
        Ok(v) => v.headers().get("location").cloned(),
        Err(Error::UnexpectedResponse(resp)) => resp.headers().get("location").cloned(),
        Err(_) => None,
    };
    check(&mut done, "redirect", location.is_some_and(|l| l == "https://example.com/smoke"), r.map(|r| r.status()));

    // Its statistics, by the hour. The embedded store records a visit just after its redirect:
    // look again for up to 2 s.
    let mut stats = None;
    for _ in 0..40 {
        let r = client.get_short_url_stats().slug(link.data.slug.clone()).interval(types::Interval::Hour).send().await;
        stats = r.ok().map(|r| r.into_inner().data);
        if stats.as_ref().is_some_and(|s| s.visits.total == 1) {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    let ok = stats.as_ref().is_some_and(|s| {
        s.visits.total == 1 && s.recent_visits.len() == 1 && s.series.iter().map(|b| b.total).sum::<u64>() == 1
    });
    check(&mut done, "visit statistics", ok, stats.map(|s| (s.visits.total, s.recent_visits.len())));

    // A webhook receive URL with an arbitrary body.
    let inbox = client.create_webhook_inbox().send().await.expect("an inbox");
    let body: Vec<u8> = b"\x00\x01 not JSON \xff".to_vec();
    let r = client.receive_webhook().id(inbox.data.id.clone()).body(body.clone()).send().await;
    let listed = client.list_webhook_payloads().id(inbox.data.id.clone()).send().await.expect("the payloads");
    let ok = r.is_ok() && listed.data.total == 1 && u64::from(listed.data.payloads[0].size) == body.len() as u64;
    check(&mut done, "webhook receive", ok, listed.into_inner().data.total);

    // An error envelope, read as its typed error.
    let r = client.base64_decode().body_map(|b| b.encoded("%%%")).send().await;
    let code = match &r {
        Err(Error::ErrorResponse(e)) => Some((e.status().as_u16(), e.error.code)),
        _ => None,
    };
    check(&mut done, "typed error", code == Some((400, types::ErrorErrorCode::ValidationError)), code);

    println!("rust smoke: {} calls worked: {}", done.len(), done.join(", "));
}
