//! The paste page in a real browser: headless Chromium opens `/p/{id}` and `/p/`.
//! - A plain paste of hostile HTML is shown as text, with line numbers, and runs nothing.
//! - A burn-after-reading paste waits for the reader's confirmation: the page's HEAD spends no
//!   view, the click spends the only one, and the paste is gone after it.
//! - A paste encrypted by the page's own form, and one encrypted by Python's `cryptography`,
//!   both open from their links with the key after `#`; a wrong key opens nothing.
//! - Neither key ever reaches the server: its log (at `info`, one line a request) and its
//!   store's files are searched for them.
//! - axe-core finds no serious or critical violation on the paste shown and on the form.
//!
//! Needs `chromium` and `curl` (see `common/browser.rs`) and Python's `cryptography` for the
//! second encrypted paste (said when skipped; required where `WRENCH_TEST_REQUIRE_BROWSER` is
//! set).

use crate::common;

use std::{path::Path, process::Command, time::Duration};

use common::{
    Killed,
    browser::{self, chromium, curl, evaluate, free_port, go, title, wait_title},
};
use serde_json::Value;

/// Content that would change the title if the page ever treated it as markup.
const HOSTILE: &str = "line one\n<script>document.title='pwned by script'</script>\n\
     <img src=x onerror=\"document.title='pwned by img'\"><b>bold?</b>\nlast line";

/// Every file under `dir`, read whole.
fn files_under(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let path = entry.path();
        if path.is_dir() {
            out.extend(files_under(&path));
        } else if let Ok(bytes) = std::fs::read(&path) {
            out.push((path.display().to_string(), bytes));
        }
    }
    out
}

fn contains(haystack: &[u8], needle: &str) -> bool {
    haystack.windows(needle.len()).any(|w| w == needle.as_bytes())
}

/// A paste made with `curl`: its id.
fn create(base: &str, body: &Value) -> String {
    let out = curl(&[
        "-X",
        "POST",
        "-H",
        "Content-Type: application/json",
        "--data-binary",
        &body.to_string(),
        &format!("{base}/v1/paste/create"),
    ]);
    let v: Value = serde_json::from_str(&out).unwrap_or(Value::Null);
    v["data"]["id"].as_str().unwrap_or_else(|| panic!("no paste made: {out}")).to_string()
}

/// Content and key of `text` sealed by Python's `cryptography`, or `None` without it.
fn sealed_by_python(text: &str) -> Option<(String, String)> {
    let script = r#"
import base64, os, sys
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
b64 = lambda b: base64.urlsafe_b64encode(b).rstrip(b"=").decode()
key, iv = AESGCM.generate_key(bit_length=256), os.urandom(12)
print(b64(iv + AESGCM(key).encrypt(iv, sys.argv[1].encode(), None)))
print(b64(key))
"#;
    let out = Command::new("python3").args(["-c", script, text]).output().ok()?;
    if !out.status.success() {
        return None;
    }
    let text = String::from_utf8(out.stdout).ok()?;
    let mut lines = text.lines();
    Some((lines.next()?.to_string(), lines.next()?.to_string()))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_paste_page_shows_burns_and_decrypts_and_the_server_never_sees_a_key() {
    if !browser::available("the paste page") {
        return;
    }
    let dir = std::env::temp_dir().join(format!("wrench-paste-page-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let port = free_port();
    let base = format!("http://127.0.0.1:{port}");
    let log = std::fs::File::create(dir.join("server.log")).unwrap();
    let server = Killed(
        Command::new(env!("CARGO_BIN_EXE_wrench"))
            .env("WRENCH_LISTEN", format!("127.0.0.1:{port}"))
            .env("WRENCH_DATA_DIR", dir.join("data"))
            .env("WRENCH_RATE_ANON_PER_MINUTE", "0")
            .env("WRENCH_LOG", "info")
            .stdout(log.try_clone().unwrap())
            .stderr(log)
            .spawn()
            .unwrap(),
    );
    common::when_listening(port, Duration::from_secs(20)).await;

    // A plain paste of hostile HTML: shown as text, numbered, nothing run.
    let plain = create(&base, &serde_json::json!({"content": HOSTILE, "language": "html"}));
    let page = format!("{base}/p/{plain}");
    let debug_port = free_port();
    let _browser = Killed(
        chromium(&dir, "paste").arg(format!("--remote-debugging-port={debug_port}")).arg(&page).spawn().unwrap(),
    );
    wait_title(debug_port, &page, "Paste · wrench", Duration::from_secs(20));
    let shown = evaluate(debug_port, &page, "document.getElementById('content').innerHTML").await;
    assert!(shown.contains("&lt;script&gt;document.title='pwned by script'&lt;/script&gt;"), "{shown}");
    assert!(!shown.contains("<img") && !shown.contains("<b>") && !shown.contains("<script"), "{shown}");
    assert_eq!(evaluate(debug_port, &page, "document.getElementById('gutter').textContent").await, "1\n2\n3\n4");
    assert_eq!(evaluate(debug_port, &page, "document.getElementById('content').textContent").await, HOSTILE);
    std::thread::sleep(Duration::from_millis(300));
    assert_eq!(title(debug_port, &page).unwrap(), "Paste · wrench", "nothing of the paste ran");
    let csp = curl(&["-sI", &page]).to_ascii_lowercase();
    assert!(csp.contains("content-security-policy: default-src 'none'; script-src 'self'"), "{csp}");
    // Accessible, reading and writing: axe-core finds nothing serious or critical.
    let axe = browser::axe_script();
    if let Some(axe) = &axe {
        assert_eq!(browser::axe_violations(debug_port, &page, axe).await, "[]", "the paste shown");
    }

    // Burn after reading: the page asks first, and opening spends the only view.
    let burn = create(&base, &serde_json::json!({"content": "read me once", "maxViews": 1}));
    let burn_page = format!("{base}/p/{burn}");
    go(debug_port, &page, &burn_page, "Paste (confirm) · wrench").await;
    let head = curl(&["-sI", &format!("{base}/v1/paste/{burn}/raw")]).to_ascii_lowercase();
    assert!(
        head.starts_with("http/1.1 200") && head.contains("x-paste-views-left: 1"),
        "the page spent nothing: {head}"
    );
    evaluate(debug_port, &burn_page, "document.getElementById('reveal').click(), 'ok'").await;
    wait_title(debug_port, &burn_page, "Paste · wrench", Duration::from_secs(10));
    assert_eq!(
        evaluate(debug_port, &burn_page, "document.getElementById('content').textContent").await,
        "read me once"
    );
    let after = curl(&["-s", "-o", "/dev/null", "-w", "%{http_code}", &format!("{base}/v1/paste/{burn}")]);
    assert_eq!(after, "404", "burnt after the one reading");

    // Encrypted by the page's own form, then opened from the link it made.
    let secret = "the page's secret: ünïcode ✓ <b>not bold</b>\nsecond line";
    let form = format!("{base}/p/");
    go(debug_port, &burn_page, &form, "New paste · wrench").await;
    if let Some(axe) = &axe {
        assert_eq!(browser::axe_violations(debug_port, &form, axe).await, "[]", "the form");
    }
    let fill = format!(
        "document.getElementById('text').value = {}; document.getElementById('max-views').value = '2'; \
         document.getElementById('create').click(), 'ok'",
        serde_json::to_string(secret).unwrap()
    );
    evaluate(debug_port, &form, &fill).await;
    wait_title(debug_port, &form, "Paste created · wrench", Duration::from_secs(10));
    let link = evaluate(debug_port, &form, "document.getElementById('link').href").await;
    let (link_page, page_key) = link.split_once('#').expect("the link carries the key");
    assert_eq!(page_key.len(), 43, "32 bytes of key in unpadded Base64url: {link}");
    let made = link_page.rsplit('/').next().unwrap().to_string();
    let head = curl(&["-sI", &format!("{base}/v1/paste/{made}")]).to_ascii_lowercase();
    assert!(head.contains("x-paste-encrypted: true"), "the page stored ciphertext: {head}");
    go(debug_port, &form, &link, "Paste (confirm) · wrench").await;
    evaluate(debug_port, &link, "document.getElementById('reveal').click(), 'ok'").await;
    wait_title(debug_port, &link, "Paste · wrench", Duration::from_secs(10));
    assert_eq!(evaluate(debug_port, &link, "document.getElementById('content').textContent").await, secret);

    // Encrypted by Python's cryptography, opened by the page; a wrong key opens nothing.
    let mut keys = vec![page_key.to_string()];
    match sealed_by_python("from Python ✓") {
        Some((content, key)) => {
            let id = create(&base, &serde_json::json!({"content": content, "encrypted": true}));
            let url = format!("{base}/p/{id}#{key}");
            go(debug_port, &link, &url, "Paste · wrench").await;
            assert_eq!(
                evaluate(debug_port, &url, "document.getElementById('content').textContent").await,
                "from Python ✓"
            );
            let wrong = format!("{base}/p/{id}#{}", "A".repeat(43));
            go(debug_port, &url, &wrong, "Paste locked · wrench").await;
            keys.push(key);
        }
        None => {
            assert!(
                std::env::var_os("WRENCH_TEST_REQUIRE_BROWSER").is_none(),
                "no python3 with cryptography; WRENCH_TEST_REQUIRE_BROWSER is set"
            );
            common::skipped("no python3 with `cryptography`: the paste it would encrypt was not opened");
        }
    }

    // The server saw neither key: not in its log, not in its store.
    drop(server);
    let log = std::fs::read(dir.join("server.log")).unwrap();
    assert!(contains(&log, &format!("/v1/paste/{made}")), "the log records requests, so it could have shown a key");
    let store = files_under(&dir.join("data"));
    assert!(!store.is_empty(), "the store's files are there to search");
    for key in &keys {
        assert!(!contains(&log, key), "a key reached the server's log");
        for (name, bytes) in &store {
            assert!(!contains(bytes, key), "a key reached the store: {name}");
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}
