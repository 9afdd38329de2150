//! The SSRF corpus: hostile targets in every range and spelling the outbound policy refuses,
//! sent through the whole HTTP pipeline, directly and as redirects from an allowed site.
//!
//! A test of a guard can make the process connect wherever the guard is wrong, so the corpus
//! runs only inside a network namespace of its own, where loopback is the only interface: the
//! test re-executes itself under `unshare -rn` and gives the loopback interface an address in
//! each refused range it can (10.0.0.1, 169.254.169.254, fd00:ec2::254, ...). A server counting
//! connections listens on every one of them, on the port every hostile URL names: if the guard
//! let anything through, the count would show it. Every case must be refused with the words
//! of its rule, every allowed case must reach the fake site it names, and the count must end
//! at zero. Where no namespace can be made the test says that it skipped, and fails instead
//! when `WRENCH_TEST_REQUIRE_NETNS` is set (CI sets it).

use crate::common;

use std::{process::Command, sync::Arc};

use poem::test::TestClient;
use serde_json::{Value, json};
use wrench_infra::config::{Config, Quota};

/// Addresses given to the namespace's loopback interface, one per refused range that a host
/// could really have.
const LOCAL_ADDRESSES: &[&str] = &[
    "10.0.0.1/32",
    "100.64.0.1/32",
    "100.100.100.200/32",
    "169.254.169.254/32",
    "169.254.170.2/32",
    "172.16.0.1/32",
    "192.0.0.192/32",
    "192.0.2.1/32",
    "192.168.1.1/32",
    "198.18.0.1/32",
    "198.51.100.7/32",
    "203.0.113.9/32",
    "fd00:ec2::254/128",
    "fec0::1/128",
    "2001:db8::1/128",
    "3fff::1/128",
];

#[test]
fn ssrf_corpus_in_a_loopback_only_namespace() {
    if std::env::var_os("WRENCH_TEST_IN_NETNS").is_some() {
        // The counter's port, and the proxy variables pointing at it, are settled before any
        // other thread runs: were proxies from the environment used, every request would go
        // to the counter.
        let port = std::net::TcpListener::bind("[::]:0").and_then(|l| l.local_addr()).expect("a free port").port();
        let proxy = format!("http://127.0.0.1:{port}");
        for var in ["HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy"] {
            // SAFETY: this test runs alone in its process (--test-threads=1) and no other thread
            // has started yet.
            unsafe { std::env::set_var(var, &proxy) };
        }
        tokio::runtime::Runtime::new().expect("a runtime").block_on(corpus(port));
        // The proof, for the process outside, that the corpus ran here and passed.
        if let Some(mark) = std::env::var_os("WRENCH_TEST_NETNS_MARK") {
            std::fs::write(mark, "ran").expect("the mark is written");
        }
        return;
    }
    let exe = std::env::current_exe().expect("the test binary").display().to_string();
    let mut script = String::from("set -e; ip link set lo up; ");
    for a in LOCAL_ADDRESSES {
        let family = if a.contains(':') { "-6" } else { "-4" };
        script.push_str(&format!("ip {family} addr add {a} dev lo; "));
    }
    // The test's full name in this binary (`ssrf::ssrf_corpus_…`): a name that matched no test
    // would run nothing and pass, which the mark below catches.
    let name = format!(
        "{}::ssrf_corpus_in_a_loopback_only_namespace",
        module_path!().split_once("::").map_or(module_path!(), |(_, m)| m)
    );
    let mark = std::env::temp_dir().join(format!("wrench-ssrf-ran-{}", std::process::id()));
    let _ = std::fs::remove_file(&mark);
    script.push_str(&format!(
        "exec env WRENCH_TEST_IN_NETNS=1 WRENCH_TEST_NETNS_MARK='{}' '{exe}' --exact {name} --nocapture --test-threads=1",
        mark.display()
    ));
    let required = std::env::var_os("WRENCH_TEST_REQUIRE_NETNS").is_some();
    match Command::new("unshare").args(["-rn", "sh", "-c", &script]).status() {
        Ok(s) if s.success() => {
            let ran = std::fs::read_to_string(&mark).is_ok_and(|m| m == "ran");
            let _ = std::fs::remove_file(&mark);
            assert!(ran, "the SSRF corpus did not run inside its namespace (no test named {name})");
        }
        Ok(s) if s.code() == Some(101) => panic!("the SSRF corpus failed inside its namespace (output above)"),
        outcome => {
            let why = format!("no loopback-only network namespace could be made (unshare -rn: {outcome:?})");
            assert!(!required, "{why}; WRENCH_TEST_REQUIRE_NETNS is set");
            common::skipped(&format!("the SSRF corpus: {why}. It sends hostile traffic and runs only inside one."));
        }
    }
}

/// What a case must come to.
enum Want {
    /// 403 TARGET_FORBIDDEN with these words in the message.
    Refused(&'static str),
    /// 400 VALIDATION_ERROR naming the url field.
    Invalid,
    /// 200 from the fake site (its `Server` header says `wrench-fakes`).
    Fetched,
}

async fn corpus(port: u16) {
    let fakes = wrench_fakes::shared();
    let counter = wrench_fakes::counting::serve(std::net::SocketAddr::from(([0u16; 8], port)))
        .await
        .expect("the counter listens");
    let mut vars = fakes.settings();
    vars.push(("WRENCH_OUTBOUND_PORTS".into(), "*".into()));
    let config = Config { anon_quota: Quota::UNLIMITED, ..Config::from_vars(&vars).unwrap() };
    let cli = TestClient::new(wrench_server::http::app(Arc::new(config), wrench::operations()).unwrap());

    let p = port;
    let mut cases: Vec<(&str, String, Want)> = Vec::new();
    let mut add = |category: &'static str, url: String, want: Want| cases.push((category, url, want));
    // Every special-purpose IPv4 range, as a literal.
    for (ip, words) in [
        ("0.0.0.0", "this network"),
        ("10.0.0.1", "private"),
        ("100.64.0.1", "CGNAT"),
        ("100.100.100.200", "CGNAT"),
        ("127.0.0.1", "loopback"),
        ("127.1.2.3", "loopback"),
        ("169.254.169.254", "link-local"),
        ("169.254.170.2", "link-local"),
        ("172.16.0.1", "private"),
        ("172.31.255.254", "private"),
        ("192.0.0.192", "IETF protocol assignment"),
        ("192.0.2.1", "documentation"),
        ("192.88.99.1", "6to4 relay"),
        ("192.168.1.1", "private"),
        ("198.18.0.1", "benchmarking"),
        ("198.51.100.7", "documentation"),
        ("203.0.113.9", "documentation"),
        ("224.0.0.1", "multicast"),
        ("240.0.0.1", "reserved"),
        ("255.255.255.255", "broadcast"),
    ] {
        add("IPv4 range", format!("http://{ip}:{p}/"), Want::Refused(words));
    }
    // Other spellings of loopback and private addresses, folded by the URL parser.
    for (host, words) in [
        ("2130706433", "127.0.0.1"),
        ("0x7f000001", "127.0.0.1"),
        ("0177.0.0.1", "127.0.0.1"),
        ("127.1", "127.0.0.1"),
        ("0x7f.1", "127.0.0.1"),
        ("%31%32%37.0.0.1", "127.0.0.1"),
        ("127.0.0.1.", "127.0.0.1"),
        ("\u{ff11}\u{ff12}\u{ff17}.0.0.1", "127.0.0.1"),
        ("012.0.0.1", "10.0.0.1"),
        ("0", "0.0.0.0"),
        ("0xa9fea9fe", "169.254.169.254"),
    ] {
        add("IPv4 spelling", format!("http://{host}:{p}/"), Want::Refused(words));
    }
    // IPv6 literals, the IPv4-carrying forms judged by the IPv4 address inside.
    for (ip, words) in [
        ("::", "unspecified"),
        ("::1", "loopback"),
        ("::ffff:127.0.0.1", "IPv4-mapped address of 127.0.0.1"),
        ("::ffff:a9fe:a9fe", "IPv4-mapped address of 169.254.169.254"),
        ("::7f00:1", "IPv4-compatible address of 127.0.0.1"),
        ("::ffff:0:7f00:1", "IPv4-translated address of 127.0.0.1"),
        ("64:ff9b::7f00:1", "NAT64 address of 127.0.0.1"),
        ("64:ff9b:1::a00:1", "local-use NAT64"),
        ("2002:7f00:1::1", "6to4 address of 127.0.0.1"),
        ("2001:0:4136:e378:8000:63bf:80ff:fffe", "Teredo address (client) of 127.0.0.1"),
        ("fd00:ec2::254", "unique-local"),
        ("fe80::1", "link-local"),
        ("fec0::1", "site-local"),
        ("ff02::1", "multicast"),
        ("100::1", "discard-only"),
        ("2001:db8::1", "documentation"),
        ("3fff::1", "documentation"),
        ("5f00::1", "SRv6"),
    ] {
        add("IPv6 literal", format!("http://[{ip}]:{p}/"), Want::Refused(words));
    }
    // Names: localhost, and names whose addresses are refused.
    for (name, words) in [
        ("localhost", "local host's own name"),
        ("LOCALHOST.", "local host's own name"),
        ("a.localhost", "local host's own name"),
        ("loopback.evil.example", "resolves to 127.0.0.1"),
        ("private.evil.example", "resolves to 10.0.0.1"),
        ("metadata.evil.example", "resolves to 169.254.169.254"),
        ("cgnat.evil.example", "CGNAT"),
        ("zero.evil.example", "this network"),
        ("v6loop.evil.example", "resolves to ::1"),
        ("mapped.evil.example", "IPv4-mapped address of 127.0.0.1"),
        ("ula.evil.example", "unique-local"),
        ("nat64.evil.example", "NAT64 address of 169.254.169.254"),
        ("mixed.evil.example", "resolves to 127.0.0.1"),
        ("alias.evil.example", "resolves to 127.0.0.1"),
        ("localhost.evil.example", "resolves to 127.0.0.1"),
    ] {
        add("name", format!("http://{name}:{p}/"), Want::Refused(words));
    }
    // Redirects from an allowed site to refused targets.
    for (target, words) in [
        (format!("http://127.0.0.1:{p}/"), "loopback"),
        (format!("http://2130706433:{p}/"), "loopback"),
        (format!("http://[::ffff:127.0.0.1]:{p}/"), "IPv4-mapped"),
        (format!("http://169.254.169.254:{p}/latest/meta-data/"), "link-local"),
        (format!("http://10.0.0.1:{p}/"), "private"),
        (format!("http://localhost:{p}/"), "local host's own name"),
        (format!("http://metadata.evil.example:{p}/"), "169.254.169.254"),
        (format!("http://[fd00:ec2::254]:{p}/"), "unique-local"),
        (format!("//127.0.0.1:{p}/"), "loopback"),
        (format!("/\\127.0.0.1:{p}/"), "loopback"),
    ] {
        let to: String = form_urlencoded::byte_serialize(target.as_bytes()).collect();
        add("redirect", format!("http://www.site.example:8080/redirect?to={to}"), Want::Refused(words));
        add("redirect 307", format!("http://www.site.example:8080/redirect?status=307&to={to}"), Want::Refused(words));
    }
    // Parser tricks: whatever the text suggests, the host is what the URL parser says.
    for (url, want) in [
        (format!("http://www.site.example@127.0.0.1:{p}/"), Want::Refused("loopback")),
        (format!("http://www.site.example:8080@127.0.0.1:{p}/"), Want::Refused("loopback")),
        (format!("http://127.0.0.1:{p}\\@www.site.example/"), Want::Refused("loopback")),
        (format!("http://127.0.0.1:{p}/#@www.site.example:8080/"), Want::Refused("loopback")),
        (format!("http:/127.0.0.1:{p}/"), Want::Refused("loopback")),
        (format!("http:\\\\127.0.0.1:{p}\\"), Want::Refused("loopback")),
        (format!("  http://127.0.0.1:{p}/"), Want::Refused("loopback")),
        ("file:///etc/passwd".to_string(), Want::Invalid),
        (format!("gopher://127.0.0.1:{p}/"), Want::Invalid),
        ("ftp://www.site.example/".to_string(), Want::Invalid),
    ] {
        add("parser", url, want);
    }
    // Allowed: the fake sites, a name whose answer changes after the first lookup (resolved
    // once, connected to as judged), and an IPv6-mapped spelling of the allowed address.
    add("allowed", "http://www.site.example:8080/".into(), Want::Fetched);
    add("rebinding", "http://rebind.site.example:8080/echo".into(), Want::Fetched);
    add("allowed", "http://[::ffff:127.0.0.2]:8080/".into(), Want::Fetched);
    add("allowed", "https://secure.site.example:8443/".into(), Want::Fetched);

    let total = cases.len();
    let mut failures = Vec::new();
    let mut categories: std::collections::BTreeMap<&str, usize> = Default::default();
    for (category, url, want) in &cases {
        *categories.entry(category).or_default() += 1;
        let resp = cli.post("/v1/headers").body_json(&json!({"url": url})).send().await;
        let status = resp.0.status().as_u16();
        let body: Value = serde_json::from_slice(&resp.0.into_body().into_vec().await.unwrap()).unwrap_or(Value::Null);
        let message = body["error"]["message"].as_str().unwrap_or_default();
        let ok = match want {
            Want::Refused(words) => {
                status == 403 && body["error"]["code"] == "TARGET_FORBIDDEN" && message.contains(words)
            }
            Want::Invalid => status == 400 && body["error"]["field"] == "url",
            Want::Fetched => status == 200 && body["data"]["headers"]["server"] == "wrench-fakes",
        };
        if !ok {
            failures.push(format!("[{category}] {url}: {status} {body}"));
        }
    }
    // The same through the trace, which follows redirects hop by hop and ends at a refused one.
    let trace = cli
        .post("/v1/redirect/trace")
        .body_json(&json!({"url": format!("http://www.site.example:8080/redirect?to=http://127.0.0.1:{p}/")}))
        .send()
        .await;
    let trace: Value = serde_json::from_slice(&trace.0.into_body().into_vec().await.unwrap()).unwrap();
    if trace["data"]["ended"] != "refused" {
        failures.push(format!("[trace] a redirect to loopback: {trace}"));
    }
    // The operations that open connections of their own (TLS inspection, timed fetches, WHOIS)
    // judge their targets the same way.
    let mut other_vars: Vec<(String, String)> =
        vars.iter().filter(|(k, _)| k != "WRENCH_WHOIS_SERVERS").cloned().collect();
    other_vars.push(("WRENCH_WHOIS_SERVERS".into(), format!("test=127.0.0.1:{p},invalid=metadata.evil.example:{p}")));
    let other = Config { anon_quota: Quota::UNLIMITED, ..Config::from_vars(&other_vars).unwrap() };
    let other = TestClient::new(wrench_server::http::app(Arc::new(other), wrench::operations()).unwrap());
    let mut other_cases: Vec<(&str, Value, u16, &str)> = Vec::new();
    for (host, words) in [
        ("127.0.0.1", "loopback"),
        ("2130706433", "loopback"),
        ("[::ffff:127.0.0.1]", "IPv4-mapped address of 127.0.0.1"),
        ("metadata.evil.example", "resolves to 169.254.169.254"),
        ("10.0.0.1", "private"),
        ("localhost", "local host's own name"),
    ] {
        other_cases.push(("/v1/ssl-cert/expiry", json!({"domain": host, "port": p}), 403, words));
        other_cases.push(("/v1/ssl", json!({"domain": host, "port": p, "httpPort": p}), 403, words));
        other_cases.push(("/v1/site/performance", json!({"url": format!("http://{host}:{p}/")}), 403, words));
    }
    other_cases.push((
        "/v1/site/performance",
        json!({"url": format!("http://www.site.example:8080/redirect?to=http://127.0.0.1:{p}/")}),
        403,
        "loopback",
    ));
    // Page readers: a redirect to a refused address is refused; the URLs a page names (icons,
    // manifest, canonical, images, oEmbed) are reported, never fetched.
    for path in ["/v1/url-metadata", "/v1/social-preview/extract"] {
        let hostile = format!("http://www.site.example:8080/hostile-links?to=127.0.0.1:{p}");
        other_cases.push((path, json!({"url": hostile}), 200, ""));
        let redirect = format!("http://www.site.example:8080/redirect?to=http://[::ffff:127.0.0.1]:{p}/");
        other_cases.push((path, json!({"url": redirect}), 403, "IPv4-mapped address of 127.0.0.1"));
    }
    other_cases.push(("/v1/company", json!({"domain": format!("127.0.0.1:{p}")}), 403, "loopback"));
    other_cases.push((
        "/v1/domain/report",
        json!({"domain": "metadata.evil.example", "httpsPort": p, "httpPort": p}),
        403,
        "169.254.169.254",
    ));
    other_cases.push((
        "/v1/domain/report",
        json!({"domain": "localhost.evil.example", "httpsPort": p, "httpPort": p}),
        403,
        "loopback",
    ));
    let redirect = format!("http://www.site.example:8080/redirect?to=http://127.0.0.1:{p}/");
    other_cases.push(("/v1/accessibility/check", json!({"url": redirect}), 403, "loopback"));
    other_cases.push((
        "/v1/carbon/estimate",
        json!({"url": format!("http://[::ffff:127.0.0.1]:{p}/")}),
        403,
        "IPv4-mapped address of 127.0.0.1",
    ));
    other_cases.push(("/v1/company", json!({"domain": format!("metadata.evil.example:{p}")}), 403, "169.254.169.254"));
    // A JWK Set URL is fetched like any other: refused before a connection, redirect or not.
    let token = "eyJhbGciOiJSUzI1NiJ9.e30.AAAA";
    for url in [
        format!("http://127.0.0.1:{p}/jwks.json"),
        format!("http://www.site.example:8080/redirect?to=http://127.0.0.1:{p}/"),
    ] {
        other_cases.push((
            "/v1/jwt/verify",
            json!({"token": token, "algorithms": ["RS256"], "jwksUrl": url}),
            403,
            "loopback",
        ));
    }
    // A WHOIS server is the operator's choice, not the caller's: refused, it is a failed upstream.
    other_cases.push(("/v1/whois", json!({"domain": "anything.test"}), 502, "loopback"));
    other_cases.push(("/v1/whois", json!({"domain": "anything.invalid"}), 502, "169.254.169.254"));
    for (path, input, want, words) in &other_cases {
        let (status, body) = common::post_json(&other, path, input).await;
        let message = body["error"]["message"].as_str().unwrap_or_default();
        if status != *want || !message.contains(words) {
            failures.push(format!("[other operations] {path} {input}: {status} {body}"));
        }
    }
    // The favicon finder fetches what a page names: icons, manifest and /favicon.ico. A page
    // whose icons and manifest point at the counter gets them reported refused, not fetched.
    let hostile = format!("http://www.site.example:8080/hostile-links?to=127.0.0.1:{p}");
    let (status, body) = common::post_json(&other, "/v1/favicon", &json!({"url": hostile})).await;
    let icons = body["data"]["icons"].as_array().cloned().unwrap_or_default();
    let refused = |i: &Value| i["ok"] == false && i["error"].as_str().is_some_and(|e| e.contains("loopback"));
    let pointed: Vec<&Value> =
        icons.iter().filter(|i| i["url"].as_str().is_some_and(|u| u.contains("127.0.0.1"))).collect();
    let manifest_refused = body["data"]["manifestError"].as_str().is_some_and(|e| e.contains("loopback"));
    if status != 200 || pointed.len() != 2 || !pointed.iter().all(|i| refused(i)) || !manifest_refused {
        failures.push(format!("[other operations] favicon of a hostile page: {status} {body}"));
    }
    other_cases.push(("/v1/favicon", json!({"url": hostile}), 200, ""));
    // The carbon estimate weighs what a page loads: a subresource at the counter is reported
    // refused, not fetched; the page-rank status check of a name that leads there likewise.
    let input = json!({"url": hostile, "includeSubresources": true, "green": false});
    let (status, body) = common::post_json(&other, "/v1/carbon/estimate", &input).await;
    let subresources = body["data"]["transfer"]["subresources"].as_array().cloned().unwrap_or_default();
    let all_refused = subresources.iter().all(|s| s["error"].as_str().is_some_and(|e| e.contains("loopback")));
    if status != 200 || subresources.is_empty() || !all_refused {
        failures.push(format!("[other operations] carbon estimate of a hostile page: {status} {body}"));
    }
    other_cases.push(("/v1/carbon/estimate", input, 200, ""));
    let input = json!({"domain": format!("metadata.evil.example:{p}")});
    let (status, body) = common::post_json(&other, "/v1/page-rank/check", &input).await;
    if status != 200 || !body["data"]["http"]["error"].as_str().is_some_and(|e| e.contains("169.254.169.254")) {
        failures.push(format!("[other operations] page-rank status check of a refused host: {status} {body}"));
    }
    other_cases.push(("/v1/page-rank/check", input, 200, ""));
    categories.insert("other operations", other_cases.len());
    let total = total + other_cases.len();
    // A port outside the default list is refused by the default policy.
    let strict = Config { anon_quota: Quota::UNLIMITED, ..Config::from_vars(&fakes.settings()).unwrap() };
    let strict = TestClient::new(wrench_server::http::app(Arc::new(strict), wrench::operations()).unwrap());
    let resp = strict.post("/v1/headers").body_json(&json!({"url": "http://www.site.example:22/"})).send().await;
    if resp.0.status() != 403 {
        failures.push("[port] port 22 was not refused by the default WRENCH_OUTBOUND_PORTS".into());
    }
    eprintln!(
        "SSRF corpus: {total} cases ({categories:?}), {} failed; connections to the counter: {}",
        failures.len(),
        counter.connections()
    );
    assert!(failures.is_empty(), "cases that did not come out as they must:\n{}", failures.join("\n"));
    assert_eq!(counter.connections(), 0, "a refused request connected to the counting server");
    assert!(total >= 60, "the corpus shrank to {total} cases");
}
