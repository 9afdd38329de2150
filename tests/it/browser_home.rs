//! The home page for people, in a real browser: headless Chromium opens `/`.
//! - `/` answers a browser's `Accept` with the page (under the pages' policy) and API clients
//!   with the index's JSON, both saying they vary by `Accept`.
//! - Every operation of the catalog is listed once, grouped by the document's tags in order.
//! - Typing finds operations by words, by a tag and by an example's content; a tag button
//!   narrows the list; a query that is markup is shown as text and runs nothing.
//! - Each operation links to its tool page and to its entry in the API reference.
//! - A key kept in the page's footer goes with its calls as `X-API-Key`, never in the URL.
//! - The page records no error of its own and no blocked resource.
//! - axe-core (npm, at `WRENCH_TEST_AXE`) finds no serious or critical violation.
//!
//! Needs `chromium` and `curl` (see `common/browser.rs`), and axe-core for the last check
//! (said when skipped; required where `WRENCH_TEST_REQUIRE_AXE` is set, as CI sets it).

use crate::common;

use std::time::Duration;

use common::{
    Killed,
    browser::{self, chromium, curl, evaluate, free_port, title, wait_title},
};
use serde_json::Value;

/// The operationIds the page shows after typing `query`, in order.
async fn found(debug_port: u16, page: &str, query: &str) -> Vec<String> {
    let script = format!(
        "(() => {{ const q = document.getElementById('q'); q.value = {}; \
         q.dispatchEvent(new Event('input')); \
         return JSON.stringify([...document.querySelectorAll('#results li.op')].map(li => li.dataset.operationId)); }})()",
        serde_json::to_string(query).unwrap()
    );
    serde_json::from_str(&evaluate(debug_port, page, &script).await).unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_home_page_lists_and_finds_every_operation() {
    if !browser::available("the home page") {
        return;
    }
    let dir = std::env::temp_dir().join(format!("wrench-home-page-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let (_server, base) = browser::serve(&dir, Vec::new()).await;

    // Negotiation: the page for a browser, JSON for everyone else, and both vary by Accept.
    let as_browser =
        curl(&["-sD", "-", "-H", "Accept: text/html,application/xhtml+xml,*/*;q=0.8", &format!("{base}/")]);
    let lower = as_browser.to_ascii_lowercase();
    assert!(lower.contains("content-type: text/html"), "{as_browser}");
    assert!(lower.contains("content-security-policy: default-src 'none'; script-src 'self'"), "{as_browser}");
    assert!(lower.contains("vary: accept"), "{as_browser}");
    for accept in [None, Some("*/*"), Some("application/json")] {
        let mut args = vec!["-sD", "-"];
        if let Some(a) = accept {
            args.extend(["-H", a]);
        }
        let url = format!("{base}/");
        args.push(&url);
        let answer = curl(&args);
        let lower = answer.to_ascii_lowercase();
        assert!(lower.contains("content-type: application/json") && lower.contains("vary: accept"), "{answer}");
        let body: Value = serde_json::from_str(answer.split("\r\n\r\n").nth(1).unwrap()).unwrap();
        assert_eq!(body["data"]["name"], "wrench", "{accept:?}");
    }

    // The catalog as an API client reads it: what the page must show.
    let catalog: Value = serde_json::from_str(&curl(&[&format!("{base}/v1/operations")])).unwrap();
    let ops = catalog["data"]["operations"].as_array().unwrap();
    let doc: Value = serde_json::from_str(&curl(&[&format!("{base}/openapi.json")])).unwrap();
    let tag_order: Vec<&str> = doc["tags"].as_array().unwrap().iter().map(|t| t["name"].as_str().unwrap()).collect();

    let page = format!("{base}/");
    let debug_port = free_port();
    let _browser =
        Killed(chromium(&dir, "home").arg(format!("--remote-debugging-port={debug_port}")).arg(&page).spawn().unwrap());
    wait_title(debug_port, &page, "wrench · ", Duration::from_secs(30));
    assert_eq!(title(debug_port, &page).unwrap(), format!("wrench · {} operations", ops.len()));

    // Every operation once, grouped by tag in the document's order.
    let listed = found(debug_port, &page, "").await;
    let mut expected: Vec<(usize, String)> = ops
        .iter()
        .map(|o| {
            let tag = o["tag"].as_str().unwrap();
            (tag_order.iter().position(|t| *t == tag).unwrap(), o["operationId"].as_str().unwrap().to_string())
        })
        .collect();
    expected.sort_by_key(|(t, _)| *t);
    let mut sorted_listed = listed.clone();
    sorted_listed.sort();
    let mut all: Vec<String> = expected.iter().map(|(_, id)| id.clone()).collect();
    all.sort();
    assert_eq!(sorted_listed, all, "every operation, once");
    let sections = evaluate(
        debug_port,
        &page,
        "JSON.stringify([...document.querySelectorAll('#results section h2')].map(h => h.textContent))",
    )
    .await;
    let sections: Vec<String> = serde_json::from_str(&sections).unwrap();
    let present: Vec<&str> = tag_order.iter().copied().filter(|t| ops.iter().any(|o| o["tag"] == *t)).collect();
    assert_eq!(sections, present, "grouped like the document");

    // By words (in any order and case), by tag, by an example's content.
    let qp = found(debug_port, &page, "Printable QUOTED").await;
    // Text and data comes first, and in it the operations named by the words.
    let mut first_two = qp[..2].to_vec();
    first_two.sort();
    assert_eq!(first_two, ["quotedPrintableDecode", "quotedPrintableEncode"], "{qp:?}");
    assert!(!qp.contains(&"base64Encode".to_string()), "{qp:?}");
    let jwt = found(debug_port, &page, "jwt").await;
    assert!(jwt.len() >= 3 && jwt.iter().all(|id| ops.iter().any(|o| o["operationId"] == id.as_str())), "{jwt:?}");
    assert!(found(debug_port, &page, "hunter2").await.contains(&"createPaste".to_string()), "an example's content");
    let recipes = found(debug_port, &page, "recipes").await;
    assert!(recipes.contains(&"runRecipe".to_string()) && recipes.contains(&"saveRecipe".to_string()), "{recipes:?}");
    assert!(found(debug_port, &page, "no operation is called this").await.is_empty());

    // A tag button narrows the list to its tag.
    found(debug_port, &page, "").await;
    let images = evaluate(
        debug_port,
        &page,
        "(() => { [...document.querySelectorAll('#tag-filters button')].find(b => b.textContent === 'Images').click(); \
         return JSON.stringify([...document.querySelectorAll('#results li.op')].map(li => li.dataset.operationId)); })()",
    )
    .await;
    let images: Vec<String> = serde_json::from_str(&images).unwrap();
    let expected_images: Vec<&str> =
        ops.iter().filter(|o| o["tag"] == "Images").map(|o| o["operationId"].as_str().unwrap()).collect();
    assert_eq!(images.len(), expected_images.len(), "{images:?}");
    assert!(images.iter().all(|id| expected_images.contains(&id.as_str())));
    evaluate(debug_port, &page, "document.querySelector('#tag-filters button').click(), 'all'").await;

    // A query that is markup stays text, and nothing of it runs.
    let hostile = "<img src=x onerror=\"document.title='pwned'\"><script>document.title='pwned'</script>";
    assert!(found(debug_port, &page, hostile).await.is_empty());
    let said = evaluate(debug_port, &page, "document.getElementById('count').textContent").await;
    assert!(said.contains(hostile), "{said}");
    let markup = evaluate(debug_port, &page, "document.getElementById('count').innerHTML").await;
    assert!(!markup.contains("<img") && !markup.contains("<script"), "{markup}");
    assert_eq!(evaluate(debug_port, &page, "String(document.querySelectorAll('img').length)").await, "0");
    std::thread::sleep(Duration::from_millis(300));
    assert!(title(debug_port, &page).unwrap().starts_with("wrench · "), "nothing of the query ran");

    // Each card links to its tool page, and to the operation in the API reference.
    let link = evaluate(
        debug_port,
        &page,
        "(() => { const q = document.getElementById('q'); q.value = 'hashText'; q.dispatchEvent(new Event('input')); \
         const card = document.querySelector('li.op[data-operation-id=\"hashText\"]'); \
         return card.querySelector('h3 a').getAttribute('href') + ' ' + card.querySelector('details a').getAttribute('href'); })()",
    )
    .await;
    assert_eq!(link, "/tools/hashText /docs/#/Developer_utilities/hashText");
    assert_eq!(evaluate(debug_port, &page, "JSON.stringify(window.pageErrors)").await, "[]", "no error on the page");

    // A key kept in the footer is sent with the page's calls (an unknown one is refused with
    // 401, which the page says), never put in the URL, and forgotten on request.
    evaluate(
        debug_port,
        &page,
        "document.getElementById('key').value = 'wr_not_a_key_of_this_server'; \
         document.querySelector('#key-form button[type=submit]').click(); location.reload(), 'ok'",
    )
    .await;
    wait_title(debug_port, &page, "Error · wrench", Duration::from_secs(20));
    let said = evaluate(debug_port, &page, "document.getElementById('count').textContent").await;
    assert!(said.contains("could not be listed") && said.to_lowercase().contains("key"), "{said}");
    assert_eq!(evaluate(debug_port, &page, "location.href").await, page, "the key is not in the URL");
    evaluate(debug_port, &page, "document.getElementById('key-forget').click(); location.reload(), 'ok'").await;
    wait_title(debug_port, &page, "wrench · ", Duration::from_secs(20));

    // Accessible: axe-core finds nothing serious or critical, with every group shown and one
    // card's details open.
    if let Some(axe) = browser::axe_script() {
        evaluate(
            debug_port,
            &page,
            "(() => { const q = document.getElementById('q'); q.value = ''; q.dispatchEvent(new Event('input')); \
             document.querySelector('li.op details').open = true; return 'ok'; })()",
        )
        .await;
        assert_eq!(browser::axe_violations(debug_port, &page, &axe).await, "[]");
    }
}
