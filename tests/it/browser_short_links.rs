//! The short-link page in a real browser: headless Chromium opens `/tools/short-links`, makes a short link
//! with the form (its QR code shown as an image that decodes), follows it once with `curl`, and
//! reads the link's statistics at `/tools/short-links/{slug}`: the visit counted and listed. A target holding
//! markup is shown as text and runs nothing; a refused slug is shown at its field; an unknown
//! slug says so; axe-core finds no serious or critical violation on the form, the made link or
//! the statistics. A key kept in the browser goes with the calls of this page and of the paste
//! and inbox pages.
//!
//! Needs `chromium` and `curl` (see `common/browser.rs`), and axe-core (`WRENCH_TEST_AXE`).

use crate::common;

use std::time::Duration;

use common::{
    Killed,
    browser::{self, chromium, curl, evaluate, free_port, go, title, wait_title},
};

/// A target whose query holds markup that would change the title if it ever ran.
const HOSTILE: &str = "https://example.com/landing?q=<img src=x onerror=\"document.title='pwned'\">";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_short_link_page_makes_a_link_and_shows_its_visits() {
    if !browser::available("the short-link page") {
        return;
    }
    let dir = std::env::temp_dir().join(format!("wrench-short-link-page-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let (_server, base) = browser::serve(&dir, vec![]).await;
    let form = format!("{base}/tools/short-links");
    let debug_port = free_port();
    let _browser = Killed(
        chromium(&dir, "links").arg(format!("--remote-debugging-port={debug_port}")).arg(&form).spawn().unwrap(),
    );
    wait_title(debug_port, &form, "Short links · wrench", Duration::from_secs(30));
    let axe = browser::axe_script();
    if let Some(axe) = &axe {
        assert_eq!(browser::axe_violations(debug_port, &form, axe).await, "[]", "the form");
    }

    // A refused slug is shown at its field.
    let make = |slug: &str| {
        format!(
            "document.getElementById('f-url').value = {}; document.getElementById('f-customSlug').value = {}; \
             document.getElementById('f-maxVisits').value = '5'; document.title = 'Short links · wrench'; \
             document.getElementById('create').click(), 'ok'",
            serde_json::to_string(HOSTILE).unwrap(),
            serde_json::to_string(slug).unwrap()
        )
    };
    evaluate(debug_port, &form, &make("r")).await;
    wait_title(debug_port, &form, "Short links (400)", Duration::from_secs(10));
    let at_field = evaluate(
        debug_port,
        &form,
        "document.getElementById('f-customSlug').getAttribute('aria-invalid') + ' ' + document.getElementById('f-customSlug-error').textContent",
    )
    .await;
    assert!(at_field.starts_with("true ") && at_field.len() > 6, "{at_field}");

    // Made: the short URL, the token, and the QR code as an image that decodes.
    evaluate(debug_port, &form, &make("page-test")).await;
    wait_title(debug_port, &form, "Short links (200)", Duration::from_secs(10));
    let short = evaluate(debug_port, &form, "document.getElementById('short').href").await;
    assert_eq!(short, format!("{base}/v1/short-url/r/page-test"));
    let token = evaluate(debug_port, &form, "document.getElementById('token').textContent").await;
    assert!(token.len() > 20, "{token}");
    let qr = evaluate(
        debug_port,
        &form,
        "(async () => { const img = document.getElementById('qr'); for (let i = 0; i < 50 && img.hidden; i++) \
         await new Promise(r => setTimeout(r, 100)); await img.decode(); return String(img.naturalWidth); })()",
    )
    .await;
    assert!(qr.parse::<u32>().is_ok_and(|w| w > 0), "{qr}");
    let made = evaluate(debug_port, &form, "document.getElementById('made').innerHTML").await;
    assert!(!made.contains("<img src=\"x\"") && !made.contains("onerror=\""), "{made}");
    if let Some(axe) = &axe {
        assert_eq!(browser::axe_violations(debug_port, &form, axe).await, "[]", "the made link");
    }

    // One visit, then its statistics.
    let head = curl(&["-s", "-o", "/dev/null", "-w", "%{http_code}", "-H", "Referer: https://ref.example/x", &short]);
    assert_eq!(head, "302");
    let stats = format!("{base}/tools/short-links/page-test");
    // The embedded store records a visit just after its redirect.
    tokio::time::sleep(Duration::from_millis(300)).await;
    go(debug_port, &form, &stats, "Short link page-test · wrench").await;
    let facts = evaluate(debug_port, &stats, "document.getElementById('facts').textContent").await;
    assert!(facts.contains("Clicks1") && facts.contains("Visits left4"), "{facts}");
    let visits = evaluate(debug_port, &stats, "document.getElementById('visits').textContent").await;
    assert!(visits.starts_with("1") && visits.contains("ref.example"), "{visits}");
    let series = evaluate(debug_port, &stats, "String(document.querySelectorAll('#series meter').length)").await;
    assert!(series.parse::<u32>().is_ok_and(|n| n >= 1), "{series}");
    let markup = evaluate(debug_port, &stats, "document.getElementById('stats').innerHTML").await;
    assert!(!markup.contains("<img src=\"x\""), "{markup}");
    assert_eq!(evaluate(debug_port, &stats, "JSON.stringify(window.pageErrors)").await, "[]");
    std::thread::sleep(Duration::from_millis(300));
    assert_eq!(title(debug_port, &stats).unwrap(), "Short link page-test · wrench", "nothing of the target ran");
    if let Some(axe) = &axe {
        assert_eq!(browser::axe_violations(debug_port, &stats, axe).await, "[]", "the statistics");
    }

    // An unknown slug says so.
    let missing = format!("{base}/tools/short-links/no-such-link");
    go(debug_port, &stats, &missing, "Not found · wrench").await;

    // A key kept in this browser (as the home page's footer keeps it) goes with the calls of
    // this page and of the paste and inbox pages: one this server does not know is refused.
    evaluate(debug_port, &missing, "localStorage.setItem('wrench.apiKey', 'wr_not_a_key_of_this_server'), 'ok'").await;
    go(debug_port, &missing, &stats, "Error · wrench").await;
    let said = evaluate(debug_port, &stats, "document.getElementById('status').textContent").await;
    assert!(said.starts_with("UNAUTHORIZED"), "{said}");
    let paste = format!("{base}/p/AbCd1234");
    go(debug_port, &stats, &paste, "Paste failed · wrench").await;
    let inbox = format!("{base}/inbox/AAAAAAAAAAAAAAAA");
    go(debug_port, &paste, &inbox, "Webhook inbox · wrench").await;
    let said = evaluate(
        debug_port,
        &inbox,
        "(async () => { for (let i = 0; i < 100; i++) { const t = document.getElementById('status').textContent; \
         if (t !== 'Loading…') return t; await new Promise(r => setTimeout(r, 100)); } return 'still loading'; })()",
    )
    .await;
    assert!(said.to_lowercase().contains("key"), "{said}");
    assert!(!evaluate(debug_port, &inbox, "location.href").await.contains("wr_not"), "the key is not in the URL");
    let _ = std::fs::remove_dir_all(&dir);
}
