//! The tool pages in a real browser: headless Chromium opens `/tools/{operationId}` for every
//! operation of the catalog.
//! - Each page loads without an error of its own, has a field for every input field of the
//!   operation, is prefilled from its first example that answers 200, and runs it: the answer
//!   has the example's documented status. The server reaches the local fakes (DNS, web sites,
//!   providers) the examples name, as in the examples' own tests; an operation that needs a
//!   data set or a provider this server lacks must say so with a code it declares.
//! - A hostile answer (markup that would run) is shown as text and runs nothing.
//! - An image answer is shown as an image that decodes.
//! - An error names its field, and the page shows it at that field.
//! - The inputs travel in the URL's fragment and come back from it.
//! - axe-core finds no serious or critical violation on any of them, answered, nor on a page
//!   that shows an error at its field.
//! - The inputs are shown as curl, Python and TypeScript code (the snippets themselves are run
//!   through the generated SDKs by `.ci/sdk-smoke`).
//!
//! Needs `chromium` and `curl` (see `common/browser.rs`), and axe-core for the last check.

use crate::common;

use std::time::Duration;

use common::{
    Killed,
    browser::{self, chromium, curl, evaluate, free_port, go, title, wait_title},
};
use serde_json::Value;

/// Runs the form of the tool page at `url`; the status its title then shows (`200`,
/// `redirect`, `failed`).
async fn submit(debug_port: u16, url: &str, id: &str) -> String {
    // The title a run leaves is taken away first, so that only this run's can be waited for.
    let click = format!("document.title = '{id} · wrench'; document.getElementById('run').click(), 'ok'");
    evaluate(debug_port, url, &click).await;
    wait_title(debug_port, url, &format!("{id} ("), Duration::from_secs(30));
    let t = title(debug_port, url).unwrap();
    t[id.len() + 2..t.find(')').unwrap()].to_string()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_operation_has_a_tool_page_that_runs_its_example() {
    if !browser::available("the tool pages") {
        return;
    }
    let dir = std::env::temp_dir().join(format!("wrench-tool-pages-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    // The outbound layer pointed at the local fakes (DNS, web sites, providers), which the
    // examples name, as in the examples' own tests.
    let (_server, base) = browser::serve(&dir, wrench_fakes::shared().settings()).await;
    let catalog: Value = serde_json::from_str(&curl(&[&format!("{base}/v1/operations")])).unwrap();
    let ops = catalog["data"]["operations"].as_array().unwrap().clone();

    let first = format!("{base}/tools/hashText");
    let debug_port = free_port();
    let _browser = Killed(
        chromium(&dir, "tools").arg(format!("--remote-debugging-port={debug_port}")).arg(&first).spawn().unwrap(),
    );
    wait_title(debug_port, &first, "hashText · wrench", Duration::from_secs(30));

    // Every operation: its page, its fields, its example run, and axe-core on the answered page.
    let axe = browser::axe_script();
    let mut here = first.clone();
    let (mut exact, mut unconfigured) = (0, 0);
    for op in &ops {
        let id = op["operationId"].as_str().unwrap();
        let url = format!("{base}/tools/{id}");
        go(debug_port, &here, &url, &format!("{id} · wrench")).await;
        here = url.clone();
        let fields: usize = evaluate(debug_port, &url, "String(document.querySelectorAll('#fields .field').length)")
            .await
            .parse()
            .unwrap();
        // The body's fields, and the path's parameters the body leaves out.
        let properties = op["inputSchema"]["properties"].as_object();
        let path = op["path"].as_str().unwrap();
        let in_path = path
            .split('{')
            .skip(1)
            .filter_map(|p| p.split_once('}').map(|(name, _)| name))
            .filter(|name| properties.is_none_or(|p| !p.contains_key(*name)))
            .count();
        // An operation without an input schema has a body field only if it takes a raw body.
        let raw = usize::from(op["inputKind"] == "raw");
        let declared = properties.map_or(raw, |p| p.len()) + in_path;
        assert_eq!(fields, declared, "{id}: one field per input field");
        let examples = op["examples"].as_array().unwrap();
        let example = examples.iter().find(|x| x["status"] == 200).or(examples.first()).unwrap();
        let status = submit(debug_port, &url, id).await;
        assert_eq!(evaluate(debug_port, &url, "JSON.stringify(window.pageErrors)").await, "[]", "{id}: page errors");
        // A data set or provider this server is not given is answered with the code the
        // operation declares for it.
        if matches!(status.as_str(), "502" | "503" | "504") {
            let said =
                evaluate(debug_port, &url, "document.querySelector('#answer-body .bad-answer').textContent").await;
            let code = said.split(':').next().unwrap_or_default();
            let declared = op["errorCodes"].as_array().unwrap().iter().any(|c| c == code);
            let elsewhere = ["DATASET_NOT_INSTALLED", "PROVIDER_NOT_CONFIGURED"];
            if declared && elsewhere.contains(&code) {
                unconfigured += 1;
                continue;
            }
        }
        let expected = match example["status"].as_u64().unwrap() {
            300..=399 => "redirect".to_string(),
            s => s.to_string(),
        };
        if status != expected {
            let said = evaluate(debug_port, &url, "document.getElementById('answer-body').textContent").await;
            panic!("{id}: example {} answered {status}, not {expected}: {said}", example["name"]);
        }
        exact += 1;
        if let Some(axe) = &axe {
            assert_eq!(browser::axe_violations(debug_port, &url, axe).await, "[]", "{id}, answered");
        }
    }
    eprintln!(
        "tool pages: {exact} examples answered as documented, \
         {unconfigured} said their data set or provider is missing"
    );
    assert!(exact > 200, "{exact}");

    // A hostile answer stays text: Base64 of markup, decoded.
    let decoder = format!("{base}/tools/base64Decode");
    go(debug_port, &here, &decoder, "base64Decode · wrench").await;
    let url = decoder.clone();
    let hostile = "<img src=x onerror=\"document.title='pwned'\"><script>document.title='pwned'</script>";
    let encoded = {
        use base64::Engine;
        base64::engine::general_purpose::STANDARD.encode(hostile)
    };
    evaluate(
        debug_port,
        &url,
        &format!("document.getElementById('f-encoded').value = {}, 'ok'", serde_json::to_string(&encoded).unwrap()),
    )
    .await;
    assert_eq!(submit(debug_port, &url, "base64Decode").await, "200");
    let shown = evaluate(debug_port, &url, "document.querySelector('#answer-body .value pre').textContent").await;
    assert_eq!(shown, hostile);
    let markup = evaluate(debug_port, &url, "document.getElementById('answer-body').innerHTML").await;
    assert!(!markup.contains("<img") && !markup.contains("<script"), "{markup}");
    std::thread::sleep(Duration::from_millis(300));
    assert!(title(debug_port, &url).unwrap().starts_with("base64Decode (200)"), "nothing of the answer ran");

    // Images: the SVG example and the PNG one both decode.
    let url = format!("{base}/tools/qrGenerate");
    go(debug_port, &decoder, &url, "qrGenerate · wrench").await;
    for (example, kind) in [(0, "svg"), (1, "png")] {
        evaluate(
            debug_port,
            &url,
            &format!("(() => {{ const s = document.getElementById('example'); s.value = '{example}'; s.dispatchEvent(new Event('change')); return 'ok'; }})()"),
        )
        .await;
        assert_eq!(submit(debug_port, &url, "qrGenerate").await, "200", "{kind}");
        let size = evaluate(
            debug_port,
            &url,
            "(async () => { const img = document.querySelector('#answer-body img'); await img.decode(); return String(img.naturalWidth); })()",
        )
        .await;
        assert!(size.parse::<u32>().is_ok_and(|w| w > 0), "{kind}: {size}");
        let download = evaluate(debug_port, &url, "document.querySelector('#answer-body a.download').download").await;
        assert_eq!(download, format!("qrGenerate.{kind}"));
    }

    // An error is shown at the field it names.
    evaluate(debug_port, &url, "document.getElementById('f-size').value = '10', 'ok'").await;
    assert_eq!(submit(debug_port, &url, "qrGenerate").await, "400");
    let at_field = evaluate(
        debug_port,
        &url,
        "document.getElementById('f-size').getAttribute('aria-invalid') + ' ' + document.getElementById('f-size-error').textContent",
    )
    .await;
    assert!(at_field.starts_with("true ") && at_field.len() > 6, "{at_field}");
    if let Some(axe) = browser::axe_script() {
        assert_eq!(browser::axe_violations(debug_port, &url, &axe).await, "[]", "qrGenerate with an error");
    }

    // The inputs come back from the fragment of a copied link, and the server never sees them.
    let url2 = format!("{base}/tools/hashText");
    go(debug_port, &url, &url2, "hashText · wrench").await;
    let text = "restore me: ünïcode & <b>";
    let link = evaluate(
        debug_port,
        &url2,
        &format!(
            "document.getElementById('f-text').value = {}; document.getElementById('f-algorithm').value = 'sha512'; \
             document.getElementById('share').click(); location.href",
            serde_json::to_string(text).unwrap()
        ),
    )
    .await;
    // The click puts the link in the address bar at once (before it is copied).
    assert!(link.starts_with(&format!("{url2}#input=")), "{link}");
    let other = format!("{base}/tools/textCase");
    go(debug_port, &link, &other, "textCase · wrench").await;
    go(debug_port, &other, &link, "hashText · wrench").await;
    let restored = evaluate(
        debug_port,
        &link,
        "document.getElementById('f-text').value + '|' + document.getElementById('f-algorithm').value",
    )
    .await;
    assert_eq!(restored, format!("{text}|sha512"));
    assert_eq!(submit(debug_port, &link, "hashText").await, "200");

    // The inputs as code: each button shows its snippet, with the inputs in it.
    for (button, expected) in [
        ("curl", "curl -s -X POST"),
        ("python", "from wrench_client.api.developer_utilities import hash_text"),
        ("typescript", "await client.POST(\"/v1/hash\", {"),
    ] {
        let code = evaluate(
            debug_port,
            &link,
            &format!("document.getElementById('{button}').click(), new Promise(r => setTimeout(r, 100)).then(() => document.getElementById('code').hidden ? 'hidden' : document.getElementById('code-text').textContent)"),
        )
        .await;
        assert!(code.contains(expected) && code.contains("restore me: ünïcode & <b>"), "{button}: {code}");
    }
    if let Some(axe) = browser::axe_script() {
        assert_eq!(browser::axe_violations(debug_port, &link, &axe).await, "[]", "hashText with its Python call shown");
    }
    // An unknown operation says so.
    let missing = format!("{base}/tools/noSuchOperation");
    go(debug_port, &link, &missing, "Not found · wrench").await;
}
