//! Outputs are bounded like inputs: one nesting limit for every document reader, and no
//! answer over the response limit, refused before it is built. Each case here was a request
//! that could take the server down or answer tens of megabytes from a few kilobytes.

use crate::common;

use std::{sync::Arc, time::Instant};

use poem::test::TestClient;
use serde_json::{Value, json};
use wrench_infra::config::Config;

fn client(config: Config) -> TestClient<wrench_server::http::App> {
    TestClient::new(wrench_server::http::app(Arc::new(config), wrench::operations()).unwrap())
}

fn deep_json(levels: usize) -> String {
    "[".repeat(levels) + &"]".repeat(levels)
}

#[tokio::test]
async fn the_200_kb_request_that_took_23_gb_is_refused_at_once() {
    let cli = client(Config::default());
    let started = Instant::now();
    let (status, v) = common::post_json(&cli, "/v1/json/format", &json!({"json": deep_json(100_000)})).await;
    assert_eq!(status, 400, "{v}");
    assert_eq!(v["error"]["field"], "json");
    assert!(v["error"]["message"].as_str().unwrap().contains("nested deeper than 128 levels"), "{v}");
    assert!(started.elapsed().as_secs() < 5, "{:?}", started.elapsed());
}

#[tokio::test]
async fn every_json_reader_refuses_the_same_depth() {
    let cli = client(Config::default());
    let ok = deep_json(128);
    let deep = deep_json(129);
    for (path, field, make) in [
        ("/v1/json/format", "json", (|t: &str| json!({"json": t})) as fn(&str) -> Value),
        ("/v1/json/minify", "json", |t| json!({"json": t})),
        ("/v1/json/validate", "json", |t| json!({"json": t})),
        ("/v1/json/diff", "a", |t| json!({"a": t, "b": "[]"})),
    ] {
        let (status, v) = common::post_json(&cli, path, &make(&ok)).await;
        assert_eq!(status, 200, "{path} at the limit: {v}");
        let (status, v) = common::post_json(&cli, path, &make(&deep)).await;
        assert_eq!((status, v["error"]["field"].as_str()), (400, Some(field)), "{path}: {v}");
        assert!(v["error"]["message"].as_str().unwrap().contains("nested deeper than 128 levels"), "{path}: {v}");
    }
    // The same limit and words for the other document readers.
    let xml = "<a>".repeat(129) + &"</a>".repeat(129);
    let html = "<div>".repeat(129);
    let yaml = deep_json(129);
    let markdown = ">".repeat(200) + " deep";
    for (path, field, body) in [
        ("/v1/xml/to-json", "xml", json!({"xml": xml})),
        ("/v1/html-to-text/convert", "html", json!({"html": html})),
        ("/v1/markdown/to-html", "markdown", json!({"markdown": markdown})),
        ("/v1/markdown/to-text", "markdown", json!({"markdown": markdown})),
        // Raw HTML inside Markdown is one node of the tree; the cleaner parses it.
        ("/v1/markdown/to-html", "markdown", json!({"markdown": "<div>".repeat(129), "sanitize": true})),
    ] {
        let (status, v) = common::post_json(&cli, path, &body).await;
        assert_eq!((status, v["error"]["field"].as_str()), (400, Some(field)), "{path}: {v}");
        assert!(v["error"]["message"].as_str().unwrap().contains("nested deeper than 128 levels"), "{path}: {v}");
    }
    let (status, v) = common::post_json(&cli, "/v1/yaml/to-json", &json!({"yaml": yaml})).await;
    assert_eq!((status, v["error"]["field"].as_str()), (400, Some("yaml")), "{v}");
    // Values of JSON bodies: 128 levels are read, 129 are not.
    let value = |levels: usize| -> Value { serde_json::from_str(&deep_json(levels)).unwrap() };
    let object = |levels: usize| -> Value {
        let mut v = json!({});
        for _ in 1..levels {
            v = json!({"k": v});
        }
        v
    };
    let (status, v) = common::post_json(&cli, "/v1/diff/json", &json!({"original": object(128), "modified": {}})).await;
    assert_eq!(status, 200, "{v}");
    let (status, v) = common::post_json(&cli, "/v1/diff/json", &json!({"original": object(129), "modified": {}})).await;
    assert_eq!((status, v["error"]["field"].as_str()), (400, Some("body")), "{v}");
    assert!(v["error"]["message"].as_str().unwrap().contains("nested deeper than 128 levels"), "{v}");
    let (status, v) = common::post_json(&cli, "/v1/yaml/to-yaml", &json!({"data": {"a": value(127)}})).await;
    assert_eq!(status, 200, "{v}");
}

#[tokio::test]
async fn a_formatted_document_over_the_limit_is_refused_with_its_size() {
    // 128 levels at indent 8 from a few hundred bytes: about 130 KB formatted.
    let cli = client(Config { response_limit: 64 * 1024, ..Config::default() });
    let text = deep_json(128);
    let (status, v) = common::post_json(&cli, "/v1/json/format", &json!({"json": text, "indent": 8})).await;
    assert_eq!((status, v["error"]["code"].as_str()), (400, Some("RESULT_TOO_LARGE")), "{v}");
    let message = v["error"]["message"].as_str().unwrap();
    let spaces: usize = (1..=127).map(|k| 8 * k).sum::<usize>() + (0..=126).map(|k| 8 * k).sum::<usize>();
    // The formatted text: brackets, line breaks (escaped as two bytes each), spaces, quotes.
    let size = 256 + 2 * 254 + spaces + 2;
    assert!(message.contains(&format!("would be at least {size} bytes")), "{message}");
    assert!(message.contains("65536") && message.contains("WRENCH_RESPONSE_LIMIT"), "{message}");
    // Under the default limit it is answered.
    let (status, v) =
        common::post_json(&client(Config::default()), "/v1/json/format", &json!({"json": text, "indent": 8})).await;
    assert_eq!(status, 200, "{v}");
}

#[tokio::test]
async fn amplifying_operations_stop_at_the_limit() {
    let cli = client(Config { response_limit: 64 * 1024, ..Config::default() });
    let long_header = (0..50).map(|i| format!("{}{i}", "h".repeat(200))).collect::<Vec<_>>().join(",");
    let cases = [
        // Long column names repeated on every short row.
        ("/v1/csv/to-json", json!({"csv": format!("{long_header}{}", format!("\n{}", ",".repeat(49)).repeat(200))})),
        // Rows with distinct keys give rows x columns fields.
        ("/v1/csv/to-csv", json!({"data": (0..2000).map(|i| json!({format!("k{i}"): 1})).collect::<Vec<_>>()})),
        // Every line shown twice with its numbers.
        ("/v1/diff", json!({"original": "a\n".repeat(20_000), "modified": "b\n".repeat(20_000)})),
        // A group that captures the rest of the text at every match.
        ("/v1/regex/test", json!({"pattern": "(?=([\\s\\S]*))", "testString": "x".repeat(5_000), "flags": "g"})),
        // Deep nesting writes long indentation on every line of YAML.
        (
            "/v1/yaml/to-yaml",
            json!({"data": {"a": serde_json::from_str::<Value>(&format!("{}{}{}", "[".repeat(100), vec!["1"; 3000].join(","), "]".repeat(100))).unwrap()}, "indent": 8}),
        ),
        // Paths repeat their prefixes for every difference.
        (
            "/v1/json/diff",
            json!({"a": format!("{{\"{}\":[{}]}}", "k".repeat(1000), vec!["1"; 2000].join(",")), "b": format!("{{\"{}\":[{}]}}", "k".repeat(1000), vec!["2"; 2000].join(","))}),
        ),
        // A prefix and a delimiter on every byte: 20 bytes of answer a byte of request.
        ("/v1/hex/encode", json!({"text": "x".repeat(8_000), "prefix": "\\x", "delimiter": ", 0x ".repeat(3)})),
        // Each byte of a dump is about four characters of answer.
        ("/v1/hexdump", json!({"text": "x".repeat(20_000), "width": 1})),
        ("/v1/base32/encode", json!({"text": "x".repeat(50_000)})),
        ("/v1/unicode/escape", json!({"text": "x".repeat(20_000), "nonAsciiOnly": false})),
        ("/v1/base85/encode", json!({"text": "\"".repeat(50_000), "variant": "rfc1924"})),
        // One `*` line stands for as many repeated lines as the next offset says.
        (
            "/v1/hexdump/parse",
            json!({"dump": "00000000  00 00 00 00 00 00 00 00  00 00 00 00 00 00 00 00  |................|\n*\nffffffff0\n"}),
        ),
    ];
    for (path, body) in cases {
        let (status, v) = common::post_json(&cli, path, &body).await;
        assert_eq!((status, v["error"]["code"].as_str()), (400, Some("RESULT_TOO_LARGE")), "{path}: {v}");
    }
}

#[tokio::test]
async fn a_header_of_equal_names_is_linear() {
    // 300,000 equal column names: each gets the next free suffix without rescanning the rest.
    let cli = client(Config::default());
    let header = vec!["a"; 300_000].join(",");
    let started = Instant::now();
    let (status, v) = common::post_json(&cli, "/v1/csv/to-json", &json!({"csv": header})).await;
    assert_eq!(status, 200, "{}", &v.to_string()[..200.min(v.to_string().len())]);
    let columns = v["data"]["columns"].as_array().unwrap();
    assert_eq!(
        (columns[0].as_str(), columns[1].as_str(), columns[299_999].as_str()),
        (Some("a"), Some("a_2"), Some("a_300000"))
    );
    assert!(started.elapsed().as_secs() < 10, "{:?}", started.elapsed());
}

/// The largest requests the document admits that fit the default response limit are answered,
/// not refused by a count that guessed too high: a megabyte dumped (4.3 MB), written as hex
/// references (6 MB), as hex with a prefix and a delimiter (7 MB) or as Unicode escapes.
#[tokio::test]
async fn the_largest_encodings_that_fit_are_answered() {
    let cli = client(Config::default());
    // 24 characters that take 28 bytes of JSON: as much as fits in the 1 MiB body.
    let text = "wrench \"quoted\" \\ text\n".repeat(1_040_000 / 28);
    for (path, body) in [
        ("/v1/hexdump", json!({"text": text})),
        ("/v1/hexdump", json!({"text": text, "style": "canonical", "squeeze": false})),
        ("/v1/html-entities/encode", json!({"text": text, "mode": "hex"})),
        ("/v1/hex/encode", json!({"text": text, "prefix": "\\x", "delimiter": ", "})),
        // Every character as `\u00XX`: 7 bytes of JSON each, 6.8 MB.
        ("/v1/unicode/escape", json!({"text": text, "nonAsciiOnly": false})),
    ] {
        let (status, v) = common::post_json(&cli, path, &body).await;
        assert_eq!(status, 200, "{path}: {}", v["error"]);
    }
}

/// The largest requests the secrets operations admit are answered, and one step past the
/// documented limits is a 400 naming the field: a megabyte through every checksum and every
/// digest, 4 KiB of SHAKE256, the largest plaintext whose ciphertext can be sent back to be
/// decrypted, 32 certificates, PBKDF2 at its work cap.
#[tokio::test]
async fn the_largest_secrets_requests_are_answered() {
    let cli = client(Config::default());
    // 26 characters that take 27 bytes of JSON: as much as fits in the 1 MiB body.
    let text = "wrench secrets 0123456789\n".repeat(1_040_000 / 27);
    let (status, v) = common::post_json(&cli, "/v1/checksum", &json!({"text": text, "algorithm": "all"})).await;
    assert_eq!((status, v["data"]["checksums"].as_object().map(|m| m.len())), (200, Some(127)), "{}", v["error"]);
    let every: Vec<&str> = vec![
        "md5",
        "sha1",
        "sha224",
        "sha256",
        "sha384",
        "sha512",
        "sha512-256",
        "sha3-224",
        "sha3-256",
        "sha3-384",
        "sha3-512",
        "keccak256",
        "shake128",
        "shake256",
        "blake2b",
        "blake2s",
        "blake3",
        "ripemd160",
        "md4",
        "sm3",
        "whirlpool",
    ];
    let (status, v) = common::post_json(&cli, "/v1/hash/batch", &json!({"text": text, "algorithms": every})).await;
    assert_eq!((status, v["data"]["hashes"].as_object().map(|m| m.len())), (200, Some(21)), "{}", v["error"]);
    let body = json!({"text": text, "algorithm": "shake256", "length": 4096});
    let (status, v) = common::post_json(&cli, "/v1/hash", &body).await;
    assert_eq!((status, v["data"]["hash"].as_str().map(str::len)), (200, Some(8192)), "{}", v["error"]);
    let body = json!({"text": "x", "algorithm": "shake256", "length": 4097});
    assert_eq!(common::post_json(&cli, "/v1/hash", &body).await.0, 400);

    // The ciphertext comes back in Base64: 750 KB is the most whose ciphertext fits a body.
    let key = "00".repeat(32);
    let text = &text[..750_000];
    let body = json!({"input": text, "key": key, "keyEncoding": "hex"});
    let (status, v) = common::post_json(&cli, "/v1/cipher/encrypt", &body).await;
    assert_eq!(status, 200, "{}", v["error"]);
    let data = &v["data"];
    let body = json!({"input": data["output"], "key": key, "keyEncoding": "hex", "iv": data["iv"], "ivEncoding": "hex", "tag": data["tag"]});
    let (status, v) = common::post_json(&cli, "/v1/cipher/decrypt", &body).await;
    assert_eq!((status, v["data"]["output"].as_str() == Some(text)), (200, true), "{}", v["error"]);

    let fixture: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string("tests/fixtures/x509.json").unwrap()).unwrap();
    let pem = fixture[0]["pem"].as_str().unwrap();
    let (status, v) = common::post_json(&cli, "/v1/x509/parse", &json!({"input": pem.repeat(32)})).await;
    assert_eq!((status, v["data"]["certificates"].as_array().map(Vec::len)), (200, Some(32)), "{}", v["error"]);
    let (status, v) = common::post_json(&cli, "/v1/x509/parse", &json!({"input": pem.repeat(33)})).await;
    assert_eq!((status, v["error"]["field"].as_str()), (400, Some("input")));

    // Two SHA-256 blocks at 2,000,000 iterations is the work cap; a third block is past it.
    let derive = |length: u32| json!({"secret": "s", "salt": "salt", "algorithm": "pbkdf2", "iterations": 2_000_000, "length": length});
    let (status, v) = common::post_json(&cli, "/v1/kdf/derive", &derive(64)).await;
    assert_eq!((status, v["data"]["key"].as_str().map(str::len)), (200, Some(128)), "{}", v["error"]);
    let (status, v) = common::post_json(&cli, "/v1/kdf/derive", &derive(65)).await;
    assert_eq!((status, v["error"]["field"].as_str()), (400, Some("iterations")));
}

#[tokio::test]
async fn the_largest_jose_requests_are_answered() {
    let cli = client(Config::default());
    let fixture: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string("tests/fixtures/jose.json").unwrap()).unwrap();
    let key = &fixture["rsa8192"]["key"];
    let public = |k: &serde_json::Value| json!({"kty": "RSA", "n": k["n"], "e": k["e"]});
    // The largest token: RS512 under an 8192-bit key, its claims filling the 65,536 characters
    // a token may have. Base64url makes 3 bytes 4 characters; the signature takes 1,366.
    let body =
        |filler: usize| json!({"payload": {"filler": "f".repeat(filler), "iat": 1}, "algorithm": "RS512", "key": key});
    // 36 characters of header, a dot, 4/3 of the claims' 48,100 bytes, a dot, 1,366 of
    // signature: 65,536.
    let (status, v) = common::post_json(&cli, "/v1/jwt/sign", &body(48_078)).await;
    assert_eq!(status, 200, "{}", v["error"]);
    let token = v["data"]["token"].as_str().unwrap().to_string();
    assert_eq!(token.len(), 65_536);
    let (status, v) = common::post_json(&cli, "/v1/jwt/sign", &body(48_079)).await;
    assert_eq!((status, v["error"]["field"].as_str()), (400, Some("payload")), "{}", v["error"]);

    // Verified against the largest set: 63 keys of 8192 bits that do not fit, then the one that
    // does, and no kid to choose by, so every key is tried.
    let mut keys: Vec<serde_json::Value> = (0..63).map(|_| public(&fixture["rsa8192"]["stranger"])).collect();
    keys.push(public(key));
    let verify = json!({"token": token, "algorithms": ["RS512"], "jwks": {"keys": keys}});
    let (status, v) = common::post_json(&cli, "/v1/jwt/verify", &verify).await;
    assert_eq!((status, v["data"]["reason"].as_str()), (200, Some("valid")), "{}", v["error"]);
    keys.push(public(key));
    let verify = json!({"token": token, "algorithms": ["RS512"], "jwks": {"keys": keys}});
    let (status, v) = common::post_json(&cli, "/v1/jwt/verify", &verify).await;
    assert_eq!((status, v["error"]["field"].as_str()), (400, Some("jwks.keys")), "{}", v["error"]);
    let verify = json!({"token": format!("{token}{}", "A".repeat(65_537 - token.len())), "algorithms": ["RS512"], "key": public(key)});
    let (status, v) = common::post_json(&cli, "/v1/jwt/verify", &verify).await;
    assert_eq!((status, v["error"]["field"].as_str()), (400, Some("token")), "{}", v["error"]);

    // The largest key text, and a JWK of 65 members.
    let pem = fixture["keys"]["rsa"]["pkcs8"].as_str().unwrap();
    let padded = format!("{pem}{}", " ".repeat(65_536 - pem.len()));
    let (status, v) = common::post_json(&cli, "/v1/keys/inspect", &json!({"key": padded})).await;
    assert_eq!((status, v["data"]["bits"].as_u64()), (200, Some(2048)), "{}", v["error"]);
    let (status, v) = common::post_json(&cli, "/v1/keys/inspect", &json!({"key": format!("{padded} ")})).await;
    assert_eq!((status, v["error"]["field"].as_str()), (400, Some("key")), "{}", v["error"]);
    let mut jwk = public(key);
    for i in 0..61 {
        jwk[format!("x-{i}")] = json!(i);
    }
    let (status, v) = common::post_json(&cli, "/v1/keys/inspect", &json!({"key": jwk})).await;
    assert_eq!((status, v["data"]["bits"].as_u64()), (200, Some(8192)), "{}", v["error"]);
    jwk["x-61"] = json!(61);
    let (status, v) = common::post_json(&cli, "/v1/keys/inspect", &json!({"key": jwk})).await;
    assert_eq!((status, v["error"]["field"].as_str()), (400, Some("key")), "{}", v["error"]);
}

#[tokio::test]
async fn the_largest_asn1_parse_requests_are_answered() {
    let cli = client(Config::default());
    // 20,000 NULLs is the most nodes listed; the answer stays within the response limit.
    let nulls = |n: usize| json!({"input": "0500".repeat(n), "inputEncoding": "hex"});
    let (status, v) = common::post_json(&cli, "/v1/asn1/parse", &nulls(20_000)).await;
    assert_eq!((status, v["data"]["nodes"].as_array().map(Vec::len)), (200, Some(20_000)), "{}", v["error"]);
    let (status, v) = common::post_json(&cli, "/v1/asn1/parse", &nulls(20_001)).await;
    assert_eq!((status, v["error"]["field"].as_str()), (400, Some("input")), "{}", v["error"]);
    // One OCTET STRING filling the body: its value is cut at 1,024 characters.
    let content = "ab".repeat(400_000);
    let body = json!({"input": format!("0483{:06x}{content}", 400_000), "inputEncoding": "hex"});
    let (status, v) = common::post_json(&cli, "/v1/asn1/parse", &body).await;
    assert_eq!(status, 200, "{}", v["error"]);
    let node = &v["data"]["nodes"][0];
    assert_eq!(
        (node["length"].as_u64(), node["truncated"].as_bool(), node["value"].as_str().map(str::len)),
        (Some(400_000), Some(true), Some(1024))
    );
}

#[tokio::test]
async fn the_largest_network_calculator_requests_are_answered() {
    let cli = client(Config::default());
    // 4,096 separate /32s merge to 4,096 blocks, the most an answer lists.
    let singles: Vec<String> =
        (0..4096u32).map(|i| std::net::Ipv4Addr::from(0x0a00_0000 + 2 * i).to_string()).collect();
    let (status, v) = common::post_json(&cli, "/v1/ip/aggregate", &json!({"cidrs": singles})).await;
    assert_eq!((status, v["data"]["cidrs"].as_array().map(Vec::len)), (200, Some(4096)), "{}", v["error"]);
    let mut more = singles.clone();
    more.push("192.0.2.1".into());
    let (status, v) = common::post_json(&cli, "/v1/ip/aggregate", &json!({"cidrs": more})).await;
    assert_eq!((status, v["error"]["field"].as_str()), (400, Some("cidrs")), "{}", v["error"]);
    // Everything but 1,024 scattered addresses: past 4,096 blocks, refused.
    let holes: Vec<String> =
        (0..1024u32).map(|i| std::net::Ipv4Addr::from(i.wrapping_mul(4_194_301)).to_string()).collect();
    let (status, v) =
        common::post_json(&cli, "/v1/ip/exclude", &json!({"include": ["0.0.0.0/0"], "exclude": holes})).await;
    assert_eq!((status, v["error"]["field"].as_str()), (400, Some("exclude")), "{}", v["error"]);
    let (status, v) =
        common::post_json(&cli, "/v1/ip/exclude", &json!({"include": ["0.0.0.0/0"], "exclude": &holes[..100]})).await;
    assert_eq!(status, 200, "{}", v["error"]);
    // 2^12 subnets is the most.
    let (status, v) =
        common::post_json(&cli, "/v1/ip/subnets", &json!({"cidr": "2001:db8::/32", "newPrefix": 44})).await;
    assert_eq!((status, v["data"]["subnets"].as_array().map(Vec::len)), (200, Some(4096)), "{}", v["error"]);
    let (status, v) =
        common::post_json(&cli, "/v1/ip/subnets", &json!({"cidr": "2001:db8::/32", "newPrefix": 45})).await;
    assert_eq!((status, v["error"]["field"].as_str()), (400, Some("newPrefix")), "{}", v["error"]);
    let (status, v) = common::post_json(
        &cli,
        "/v1/ip/range-to-cidr",
        &json!({"start": "::1", "end": "ffff:ffff:ffff:ffff:ffff:ffff:ffff:fffe"}),
    )
    .await;
    assert_eq!((status, v["data"]["cidrs"].as_array().map(Vec::len)), (200, Some(254)), "{}", v["error"]);
}

#[tokio::test]
async fn the_largest_toolbox_requests_are_answered() {
    // Two lists of 100,000 items are more than the default 1 MiB body; an operator can allow it.
    let cli = client(Config { body_limit: 4 << 20, ..Config::default() });
    // text/compare-lists: two lists of 100,000 items each, and one more refused.
    let a: Vec<String> = (0..100_000).map(|i| format!("{i:x}")).collect();
    let b: Vec<String> = (50_000..150_000).map(|i| format!("{i:x}")).collect();
    let (status, v) = common::post_json(&cli, "/v1/text/compare-lists", &json!({"a": a, "b": b})).await;
    assert_eq!((status, v["data"]["counts"]["both"].as_u64()), (200, Some(50_000)), "{}", v["error"]);
    let mut more = a.clone();
    more.push("x".into());
    let (status, v) = common::post_json(&cli, "/v1/text/compare-lists", &json!({"a": more, "b": b})).await;
    assert_eq!((status, v["error"]["field"].as_str()), (400, Some("a")), "{}", v["error"]);
    // text/lines: 32 steps over nearly a mebibyte of lines.
    let text: String = (0..90_000).map(|i| format!("line {}\n", (i * 7919) % 90_000)).collect();
    let steps: Vec<Value> = (0..32)
        .map(|i| match i % 4 {
            0 => json!({"step": "sort", "order": "natural"}),
            1 => json!({"step": "unique"}),
            2 => json!({"step": "reverse"}),
            _ => json!({"step": "sort", "order": "numeric", "descending": true}),
        })
        .collect();
    let (status, v) = common::post_json(&cli, "/v1/text/lines", &json!({"text": text, "steps": steps})).await;
    assert_eq!((status, v["data"]["lines"].as_u64()), (200, Some(90_000)), "{}", v["error"]);
    // number/base: 4,096 digits of base 36 into every base.
    let to: Vec<u8> = (2..=36).collect();
    let (status, v) =
        common::post_json(&cli, "/v1/number/base", &json!({"value": "z".repeat(4096), "from": 36, "to": to})).await;
    assert_eq!((status, v["data"]["results"].as_array().map(Vec::len)), (200, Some(35)), "{}", v["error"]);
    // text/distance: two strings of 10,000 characters by Levenshtein.
    let (x, y) = ("ab".repeat(5000), "ba".repeat(5000));
    let (status, v) = common::post_json(&cli, "/v1/text/distance", &json!({"a": x, "b": y})).await;
    assert_eq!((status, v["data"]["distance"].as_f64()), (200, Some(2.0)), "{}", v["error"]);
    // json/patch: 1,000 operations; json/query over a document of 100,000 nodes, every one.
    let patch: Vec<Value> = (0..1000).map(|i| json!({"op": "add", "path": format!("/k{i}"), "value": [i]})).collect();
    let (status, v) = common::post_json(&cli, "/v1/json/patch", &json!({"document": {}, "patch": patch})).await;
    assert_eq!((status, v["data"]["applied"].as_u64()), (200, Some(1000)), "{}", v["error"]);
    let doc: Vec<Value> = (0..50_000).map(|i| json!([i])).collect();
    let (status, v) = common::post_json(&cli, "/v1/json/query", &json!({"json": doc, "query": "$..*"})).await;
    assert_eq!((status, v["data"]["count"].as_u64()), (200, Some(100_000)), "{}", v["error"]);
    let (status, v) = common::post_json(&cli, "/v1/json/query", &json!({"json": [doc, 1], "query": "$..*"})).await;
    assert_eq!((status, v["error"]["field"].as_str()), (400, Some("query")), "{}", v["error"]);
    // sql/format: nearly a mebibyte of statements, and one statement the formatter would rescan
    // for minutes, refused.
    let sql =
        "select a, b, c from t where x = 1 and y in (select z from u where w like '%q%') order by a;\n".repeat(11_000);
    let (status, v) = common::post_json(&cli, "/v1/sql/format", &json!({"sql": sql})).await;
    assert_eq!((status, v["data"]["formatted"].as_str().map(|f| f.matches("ORDER BY").count())), (200, Some(11_000)));
    let sql = "select a from t where ".to_string() + &"x = 1 and ".repeat(100_000) + "1 = 1";
    let (status, v) = common::post_json(&cli, "/v1/sql/format", &json!({"sql": sql})).await;
    assert_eq!((status, v["error"]["field"].as_str()), (400, Some("sql")), "{}", v["error"]);
    // text/extract and text/defang over nearly a mebibyte of indicators, every occurrence.
    let text = "see 10.0.0.1 and https://a.example.com/x, mail b@example.org; ".repeat(15_000);
    let (status, v) = common::post_json(&cli, "/v1/text/extract", &json!({"text": text, "unique": false})).await;
    assert_eq!((status, v["data"]["counts"]["ipv4"].as_u64()), (200, Some(15_000)), "{}", v["error"]);
    let (status, v) = common::post_json(&cli, "/v1/text/defang", &json!({"text": text})).await;
    assert_eq!((status, v["data"]["changed"].as_u64()), (200, Some(45_000)), "{}", v["error"]);
    // yaml/format: nearly a mebibyte of YAML with comments and flow collections.
    let yaml: String = (0..20_000).map(|i| format!("key{i}:   [a, b,  {{c: {i}}}]   # note {i}\n")).collect();
    let (status, v) = common::post_json(&cli, "/v1/yaml/format", &json!({"yaml": yaml})).await;
    let formatted = v["data"]["formatted"].as_str().unwrap_or_default();
    assert_eq!((status, formatted.matches("# note").count()), (200, 20_000), "{}", v["error"]);
    // unicode/inspect: 10,000 code points of the longest names, and one more refused.
    let text = "\u{FBF9}".repeat(10_000);
    let (status, v) = common::post_json(&cli, "/v1/unicode/inspect", &json!({"text": text})).await;
    assert_eq!((status, v["data"]["chars"].as_array().map(Vec::len)), (200, Some(10_000)), "{}", v["error"]);
    let (status, v) = common::post_json(&cli, "/v1/unicode/inspect", &json!({"text": text + "x"})).await;
    assert_eq!((status, v["error"]["field"].as_str()), (400, Some("text")), "{}", v["error"]);
    // url/clean: a link of 32 KiB with 2,000 parameters, half of them trackers; url/unwrap: ten
    // wrappers deep.
    let query: Vec<String> =
        (0..2000).map(|i| if i % 2 == 0 { format!("utm_x{i}=1") } else { format!("k{i}=v") }).collect();
    let link = format!("https://shop.example/p?{}", query.join("&"));
    let link = format!("{link}&pad={}", "p".repeat(32_768 - link.len() - 5));
    let (status, v) = common::post_json(&cli, "/v1/url/clean", &json!({"url": link})).await;
    assert_eq!((status, v["data"]["removed"].as_array().map(Vec::len)), (200, Some(1000)), "{}", v["error"]);
    let mut wrapped = "https://example.com/".to_string();
    for _ in 0..10 {
        let escaped: String = form_urlencoded::byte_serialize(wrapped.as_bytes()).collect();
        wrapped = format!("https://www.google.com/url?q={escaped}");
    }
    let (status, v) = common::post_json(&cli, "/v1/url/unwrap", &json!({"url": wrapped})).await;
    assert_eq!((status, v["data"]["original"].as_str()), (200, Some("https://example.com/")), "{}", v["error"]);
    // date/add: 100,000 business days; with a country's holidays the walk leaves the table's
    // years and is refused.
    let (status, v) =
        common::post_json(&cli, "/v1/date/add", &json!({"date": "2000-01-03", "businessDays": 100_000})).await;
    assert_eq!((status, v["data"]["result"].as_str()), (200, Some("2383-04-25")), "{}", v["error"]);
    let (status, v) = common::post_json(
        &cli,
        "/v1/date/add",
        &json!({"date": "2000-01-03", "businessDays": 100_000, "country": "DE"}),
    )
    .await;
    assert_eq!((status, v["error"]["field"].as_str()), (400, Some("country")), "{}", v["error"]);
    // qr/decode: a code in a picture of the largest size read, 4,096 pixels a side; one pixel
    // wider is refused before its pixels are read.
    let resp = cli
        .post("/v1/qr/generate")
        .body_json(&json!({"text": "https://example.com/big", "format": "png", "size": 400}))
        .send()
        .await;
    assert_eq!(resp.0.status().as_u16(), 200);
    let code = resp.0.into_body().into_vec().await.unwrap();
    let code = image::load_from_memory(&code).expect("a PNG").to_luma8();
    let picture = |width: u32| {
        let mut big = image::GrayImage::from_pixel(width, 4096, image::Luma([255]));
        image::imageops::overlay(&mut big, &code, 1800, 1800);
        let mut png = Vec::new();
        big.write_to(&mut std::io::Cursor::new(&mut png), image::ImageFormat::Png).unwrap();
        base64::Engine::encode(&base64::engine::general_purpose::STANDARD, png)
    };
    let (status, v) = common::post_json(&cli, "/v1/qr/decode", &json!({"image": picture(4096)})).await;
    assert_eq!(
        (status, v["data"]["codes"][0]["payload"].as_str()),
        (200, Some("https://example.com/big")),
        "{}",
        v["error"]
    );
    let (status, v) = common::post_json(&cli, "/v1/qr/decode", &json!({"image": picture(4097)})).await;
    assert_eq!((status, v["error"]["field"].as_str()), (400, Some("image")), "{}", v["error"]);
}
