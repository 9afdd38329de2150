//! The webhook inbox page in a real browser: headless Chromium opens `/inbox/{id}`, which lists
//! what the inbox holds and adds new deliveries from its event stream; a delivery sent with
//! `curl` must show within a second, and a body of hostile HTML must be shown as text and run
//! nothing.
//!
//! The page's title says how many deliveries it lists; the hostile body would write there too
//! if any of it ran, and the list's markup is read to check how the body was written. axe-core
//! then finds no serious or critical violation on the page.
//! Needs `chromium` and `curl` (see `common/browser.rs`), and axe-core (`WRENCH_TEST_AXE`).

use crate::common;

use std::{
    process::{Command, Stdio},
    time::{Duration, Instant},
};

use common::{
    Killed,
    browser::{self, chromium, curl, evaluate, free_port, title, wait_title},
};
use serde_json::Value;

/// A body that would change the title if the page ever treated it as markup.
const HOSTILE: &str = "<script>document.title='pwned by script'</script>\
     <img src=x onerror=\"document.title='pwned by img'\"><b>bold?</b>";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_inbox_page_shows_deliveries_live_and_runs_none_of_them() {
    if !browser::available("the inbox page") {
        return;
    }
    let dir = std::env::temp_dir().join(format!("wrench-inbox-page-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let port = free_port();
    let base = format!("http://127.0.0.1:{port}");
    let _server = Killed(
        Command::new(env!("CARGO_BIN_EXE_wrench"))
            .env("WRENCH_LISTEN", format!("127.0.0.1:{port}"))
            .env("WRENCH_DATA_DIR", dir.join("data"))
            .env("WRENCH_RATE_ANON_PER_MINUTE", "0")
            .env("WRENCH_LOG", "warn")
            .stdout(Stdio::null())
            .spawn()
            .unwrap(),
    );
    common::when_listening(port, Duration::from_secs(20)).await;

    let created: Value =
        serde_json::from_str(&curl(&["-X", "POST", &format!("{base}/v1/webhook/inbox/create")])).unwrap();
    let id = created["data"]["id"].as_str().unwrap().to_string();
    let page = created["data"]["viewUrl"].as_str().unwrap().to_string();
    assert_eq!(page, format!("{base}/inbox/{id}"));
    let receive = created["data"]["receiveUrl"].as_str().unwrap().to_string();
    curl(&["-X", "POST", "-H", "Content-Type: text/html", "--data-binary", HOSTILE, &receive]);

    let debug_port = free_port();
    let _browser =
        Killed(chromium(&dir, "live").arg(format!("--remote-debugging-port={debug_port}")).arg(&page).spawn().unwrap());
    // The listing is shown: the hostile delivery, counted in the title.
    wait_title(debug_port, &page, "(1) Webhook inbox", Duration::from_secs(20));
    // The stream is open once the page says so; give it a moment to connect.
    tokio::time::sleep(Duration::from_millis(700)).await;
    for (n, sub) in [(2, "/orders/1"), (3, "/orders/2")] {
        let sent = Instant::now();
        curl(&[
            "-X",
            "PUT",
            "-H",
            "Content-Type: application/json",
            "--data-binary",
            r#"{"ok":true}"#,
            &format!("{receive}{sub}"),
        ]);
        let took = wait_title(debug_port, &page, &format!("({n}) Webhook inbox"), Duration::from_secs(5));
        let total = sent.elapsed();
        eprintln!("delivery {n} shown {took:?} after curl returned ({total:?} after it started)");
        assert!(total < Duration::from_secs(1), "delivery {n} took {total:?} to show");
    }
    std::thread::sleep(Duration::from_millis(500));
    let final_title = title(debug_port, &page).unwrap();
    assert_eq!(final_title, "(3) Webhook inbox · wrench", "nothing of a delivery ran");

    // How the hostile body was written: as text in the body block, never as elements.
    let list = evaluate(debug_port, &page, "document.getElementById('deliveries').innerHTML").await;
    assert!(list.contains("&lt;script&gt;document.title='pwned by script'&lt;/script&gt;"), "{list}");
    assert!(list.contains("&lt;img src=x onerror="), "{list}");
    assert!(!list.contains("<img") && !list.contains("<b>") && !list.contains("<script"), "{list}");
    let shown = evaluate(debug_port, &page, "document.querySelectorAll('#deliveries > li').length").await;
    assert_eq!(shown, "3");
    let csp = curl(&["-sI", &page]).to_ascii_lowercase();
    assert!(csp.contains("content-security-policy: default-src 'none'; script-src 'self'"), "{csp}");
    // Accessible, deliveries shown: axe-core finds nothing serious or critical.
    if let Some(axe) = browser::axe_script() {
        assert_eq!(browser::axe_violations(debug_port, &page, &axe).await, "[]");
    }
    let _ = std::fs::remove_dir_all(&dir);
}
