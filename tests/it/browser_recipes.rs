//! The recipe page in a real browser: headless Chromium opens `/recipes`.
//! - The sample recipe runs, its result is shown and every step is listed.
//! - A step added from the menu of recipeable operations joins the recipe.
//! - A hostile result (markup that would run) is shown as text and runs nothing.
//! - A failing step is named with its code.
//! - A stored recipe gets a link, which opens it in the editor.
//! - axe-core finds no serious or critical violation.
//!
//! Needs `chromium` and `curl` (see `common/browser.rs`), and axe-core for the last check.

use crate::common;

use std::time::Duration;

use common::{
    Killed,
    browser::{self, chromium, evaluate, free_port, title, wait_title},
};

/// Runs the recipe in the editor on `input`; the status the title then shows.
async fn run(debug_port: u16, url: &str, recipe: Option<&str>, input: &str) -> String {
    let set_recipe = recipe
        .map(|r| format!("document.getElementById('recipe').value = {};", serde_json::to_string(r).unwrap()))
        .unwrap_or_default();
    let script = format!(
        "{set_recipe} document.getElementById('input').value = {}; document.title = 'Recipe · wrench'; \
         document.getElementById('run').click(), 'ok'",
        serde_json::to_string(input).unwrap()
    );
    evaluate(debug_port, url, &script).await;
    wait_title(debug_port, url, "Recipe (", Duration::from_secs(20));
    let t = title(debug_port, url).unwrap();
    t["Recipe (".len()..t.find(')').unwrap()].to_string()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_recipe_page_runs_shows_and_shares_recipes() {
    if !browser::available("the recipe page") {
        return;
    }
    let dir = std::env::temp_dir().join(format!("wrench-recipe-page-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let (_server, base) = browser::serve(&dir, Vec::new()).await;
    let page = format!("{base}/recipes");
    let debug_port = free_port();
    let _browser = Killed(
        chromium(&dir, "recipes").arg(format!("--remote-debugging-port={debug_port}")).arg(&page).spawn().unwrap(),
    );
    wait_title(debug_port, &page, "Recipe · wrench", Duration::from_secs(30));

    // The sample: Base64 decoded, then upper-cased.
    assert_eq!(run(debug_port, &page, None, "aGVsbG8sIHJlY2lwZXM=").await, "200");
    let result = evaluate(debug_port, &page, "document.querySelector('#answer-body pre').textContent").await;
    assert_eq!(result, "HELLO, RECIPES");
    let rows = evaluate(debug_port, &page, "String(document.querySelectorAll('#answer-body table tr').length)").await;
    assert_eq!(rows, "3", "a header and one row a step");

    // A step from the menu joins the recipe.
    let steps = evaluate(
        debug_port,
        &page,
        "document.getElementById('add-op').value = 'hexEncode'; document.getElementById('add').click(); \
         JSON.stringify(JSON.parse(document.getElementById('recipe').value).steps)",
    )
    .await;
    assert_eq!(steps, r#"["base64Decode",{"op":"textCase","args":{"to":"upper"}},"hexEncode"]"#);
    assert_eq!(run(debug_port, &page, None, "aGk=").await, "200");
    assert_eq!(evaluate(debug_port, &page, "document.querySelector('#answer-body pre').textContent").await, "4849");

    // A hostile result stays text.
    let hostile = "<img src=x onerror=\"document.title='pwned'\"><script>document.title='pwned'</script>";
    let encoded = {
        use base64::Engine;
        base64::engine::general_purpose::STANDARD.encode(hostile)
    };
    assert_eq!(run(debug_port, &page, Some(r#"{"steps": ["base64Decode"]}"#), &encoded).await, "200");
    let shown = evaluate(debug_port, &page, "document.querySelector('#answer-body pre').textContent").await;
    assert!(shown.contains(hostile), "{shown}");
    assert_eq!(
        evaluate(debug_port, &page, "String(document.querySelectorAll('img, script:not([src])').length)").await,
        "0"
    );
    std::thread::sleep(Duration::from_millis(300));
    assert!(title(debug_port, &page).unwrap().starts_with("Recipe (200)"), "nothing of the result ran");

    // A failing step is named, with its code.
    assert_eq!(
        run(debug_port, &page, Some(r#"{"steps": ["base64Decode", "textSlugify"]}"#), "not base64!").await,
        "400"
    );
    let said = evaluate(debug_port, &page, "document.getElementById('answer-body').textContent").await;
    assert!(said.contains("VALIDATION_ERROR") && said.contains("base64Decode"), "{said}");
    if let Some(axe) = browser::axe_script() {
        assert_eq!(browser::axe_violations(debug_port, &page, &axe).await, "[]");
    }

    // Stored and shared: the link opens the recipe in the editor.
    let recipe = r#"{"steps": ["hexEncode", "hexDecode"]}"#;
    let link = evaluate(
        debug_port,
        &page,
        &format!(
            "document.getElementById('recipe').value = {}; document.getElementById('save').click(), 'ok'",
            serde_json::to_string(recipe).unwrap()
        ),
    )
    .await;
    assert_eq!(link, "ok");
    // Storing replaces the address with the stored recipe's.
    let started = std::time::Instant::now();
    let stored = loop {
        let list: serde_json::Value =
            serde_json::from_str(&browser::curl(&[&format!("http://127.0.0.1:{debug_port}/json/list")])).unwrap();
        if let Some(url) = list
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|t| t["url"].as_str())
            .find(|u| u.starts_with(&format!("{page}/")))
        {
            break url.to_string();
        }
        assert!(started.elapsed() < Duration::from_secs(10), "the recipe was not stored: {list}");
        std::thread::sleep(Duration::from_millis(50));
    };
    wait_title(debug_port, &stored, "Recipe stored · wrench", Duration::from_secs(10));
    let token = evaluate(debug_port, &stored, "document.querySelector('#saved code').textContent").await;
    assert_eq!(token.len(), 32, "the manage token is shown once: {token}");
    let fresh = format!("{base}/recipes");
    browser::go(debug_port, &stored, &fresh, "Recipe · wrench").await;
    browser::go(debug_port, &fresh, &stored, "Recipe · wrench").await;
    let opened =
        evaluate(debug_port, &stored, "JSON.stringify(JSON.parse(document.getElementById('recipe').value))").await;
    assert_eq!(opened, r#"{"steps":["hexEncode","hexDecode"]}"#);
    assert_eq!(evaluate(debug_port, &stored, "JSON.stringify(window.pageErrors)").await, "[]");
}
