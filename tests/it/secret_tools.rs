//! The secrets operations against the tools people check them with: what `cipher/encrypt`
//! writes with a passphrase, Debian's `openssl enc -d` reads; the lines `htpasswd/generate`
//! writes, Apache's `htpasswd -v` accepts; the hashes `password/hash` writes in crypt schemes,
//! `openssl passwd` writes again from the same salt. (The other direction, tools' output read
//! by wrench, is in the operations' own tests, from fixtures.)
//!
//! A tool that is missing is reported as skipped; `WRENCH_TEST_REQUIRE_TOOLS=1` (set by CI)
//! makes a missing tool a failure.

use crate::common;

use std::{process::Command, sync::Arc};

use poem::test::TestClient;
use serde_json::json;
use wrench_infra::config::Config;

fn client() -> TestClient<wrench_server::http::App> {
    TestClient::new(wrench_server::http::app(Arc::new(Config::default()), wrench::operations()).unwrap())
}

/// Whether `program` can be run; a missing one fails under `WRENCH_TEST_REQUIRE_TOOLS=1`.
fn have(program: &str) -> bool {
    let found = Command::new(program).arg("-h").output().is_ok();
    if !found {
        let required = std::env::var("WRENCH_TEST_REQUIRE_TOOLS").is_ok_and(|v| v == "1");
        assert!(!required, "{program} is not installed");
        common::skipped(&format!("{program} is not installed: wrench's output not checked by it"));
    }
    found
}

/// Whether `args` succeeded given `stdin`, and what they wrote.
fn output(args: &[&str], stdin: Option<&[u8]>) -> (bool, Vec<u8>) {
    let out = common::tool(args, stdin.unwrap_or_default()).expect("checked by have()");
    (out.status.success(), out.stdout)
}

#[tokio::test]
async fn openssl_decrypts_what_cipher_encrypt_writes_with_a_passphrase() {
    if !have("openssl") {
        return;
    }
    let cli = client();
    let plaintext = "meet at noon\nbring the \u{2713} and 12 bytes of \u{0}\u{1} too";
    for (kdf, args) in [
        ("evp-md5", vec!["-md", "md5"]),
        ("evp-sha256", vec!["-md", "sha256"]),
        ("pbkdf2", vec!["-pbkdf2", "-iter", "10000"]),
    ] {
        for (algorithm, mode, cipher) in
            [("aes-256", "cbc", "-aes-256-cbc"), ("aes-128", "ctr", "-aes-128-ctr"), ("aes-192", "cfb", "-aes-192-cfb")]
        {
            let body = json!({"input": plaintext, "algorithm": algorithm, "mode": mode, "passphrase": "correct horse", "kdf": kdf});
            let (status, v) = common::post_json(&cli, "/v1/cipher/encrypt", &body).await;
            assert_eq!(status, 200, "{v}");
            let armored = format!("{}\n", v["data"]["output"].as_str().unwrap());
            let mut command = vec!["openssl", "enc", "-d", cipher, "-a", "-A", "-pass", "pass:correct horse"];
            command.extend(&args);
            let (ok, read) = output(&command, Some(armored.as_bytes()));
            assert!(ok, "openssl refused {kdf} {cipher}");
            assert_eq!(String::from_utf8(read).unwrap(), plaintext, "{kdf} {cipher}");
        }
    }
}

#[tokio::test]
async fn htpasswd_accepts_the_lines_htpasswd_generate_writes() {
    if !have("htpasswd") {
        return;
    }
    let cli = client();
    let dir = std::env::temp_dir().join(format!("wrench-htpasswd-{}", uuid::Uuid::new_v4().simple()));
    std::fs::create_dir_all(&dir).unwrap();
    for algorithm in ["bcrypt", "apr1", "sha1", "sha512-crypt", "sha256-crypt"] {
        let body = json!({"username": "alice", "password": "s3cret: with spaces", "algorithm": algorithm});
        let (status, v) = common::post_json(&cli, "/v1/htpasswd/generate", &body).await;
        assert_eq!(status, 200, "{v}");
        let file = dir.join(algorithm);
        std::fs::write(&file, format!("{}\n", v["data"]["line"].as_str().unwrap())).unwrap();
        let path = file.to_str().unwrap();
        let (ok, _) = output(&["htpasswd", "-vb", path, "alice", "s3cret: with spaces"], None);
        assert!(ok, "htpasswd rejected the {algorithm} line {}", v["data"]["line"]);
        let (ok, _) = output(&["htpasswd", "-vb", path, "alice", "s3cret: with space"], None);
        assert!(!ok, "htpasswd took a wrong password for {algorithm}");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[tokio::test]
async fn openssl_passwd_writes_the_same_crypt_hashes() {
    if !have("openssl") {
        return;
    }
    let cli = client();
    for (algorithm, flag) in [("sha512-crypt", "-6"), ("sha256-crypt", "-5"), ("md5-crypt", "-1"), ("apr1", "-apr1")] {
        for password in ["hunter2", "p\u{e4}ss w\u{f6}rd", &"x".repeat(200)] {
            let (status, v) =
                common::post_json(&cli, "/v1/password/hash", &json!({"password": password, "algorithm": algorithm}))
                    .await;
            assert_eq!(status, 200, "{v}");
            let hash = v["data"]["hash"].as_str().unwrap();
            let salt = hash.rsplit_once('$').unwrap().0.rsplit('$').next().unwrap();
            let (ok, again) = output(&["openssl", "passwd", flag, "-salt", salt, "-stdin"], Some(password.as_bytes()));
            assert!(ok);
            assert_eq!(String::from_utf8(again).unwrap().trim(), hash, "{algorithm} {password:?}");
        }
    }
}

/// A scratch directory for one test's files, removed when dropped.
struct Scratch(std::path::PathBuf);

impl Scratch {
    fn new(name: &str) -> Scratch {
        let dir = std::env::temp_dir().join(format!("wrench-{name}-{}", uuid::Uuid::new_v4().simple()));
        std::fs::create_dir_all(&dir).unwrap();
        Scratch(dir)
    }

    fn file(&self, name: &str, bytes: &[u8]) -> String {
        let path = self.0.join(name);
        std::fs::write(&path, bytes).unwrap();
        path.to_string_lossy().into_owned()
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn jose_fixture() -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string("tests/fixtures/jose.json").unwrap()).unwrap()
}

/// An ECDSA signature as JWS writes it (r and s, each the curve's length) in DER, as OpenSSL
/// reads it (RFC 3279 `Ecdsa-Sig-Value`).
fn ecdsa_der(raw: &[u8]) -> Vec<u8> {
    let integer = |v: &[u8]| {
        let start = v.iter().position(|b| *b != 0).unwrap_or(v.len() - 1);
        let mut v = v[start..].to_vec();
        if v[0] & 0x80 != 0 {
            v.insert(0, 0);
        }
        let mut out = vec![0x02, v.len() as u8];
        out.extend(v);
        out
    };
    let (r, s) = raw.split_at(raw.len() / 2);
    let body = [integer(r), integer(s)].concat();
    let mut out = vec![0x30];
    if body.len() >= 0x80 {
        out.push(0x81);
    }
    out.push(body.len() as u8);
    out.extend(body);
    out
}

#[tokio::test]
async fn openssl_verifies_the_tokens_jwt_sign_writes() {
    if !have("openssl") {
        return;
    }
    use base64::{Engine, engine::general_purpose::URL_SAFE_NO_PAD};
    let cli = client();
    let f = jose_fixture();
    let dir = Scratch::new("jws");
    for t in f["tokens"].as_array().unwrap() {
        let alg = t["alg"].as_str().unwrap();
        let key = t["key"].as_str().map_or(f["secret"].clone(), |n| f["keys"][n]["pkcs8"].clone());
        let body = json!({"payload": {"sub": "openssl"}, "algorithm": alg, "key": key});
        let (status, v) = common::post_json(&cli, "/v1/jwt/sign", &body).await;
        assert_eq!(status, 200, "{alg}: {v}");
        let token = v["data"]["token"].as_str().unwrap();
        let (input, signature) = token.rsplit_once('.').unwrap();
        let signature = URL_SAFE_NO_PAD.decode(signature).unwrap();
        let input_file = dir.file("input", input.as_bytes());
        let digest = format!("-sha{}", &alg[2..]);
        let Some(name) = t["key"].as_str() else {
            let secret = format!("key:{}", f["secret"].as_str().unwrap());
            let (ok, mac) =
                output(&["openssl", "dgst", &digest, "-binary", "-mac", "HMAC", "-macopt", &secret, &input_file], None);
            assert!(ok && mac == signature, "{alg}: openssl's HMAC differs");
            continue;
        };
        let public = dir.file("public.pem", f["keys"][name]["spki"].as_str().unwrap().as_bytes());
        let (ok, said) = match alg {
            "EdDSA" => {
                let sig = dir.file("sig", &signature);
                output(
                    &[
                        "openssl",
                        "pkeyutl",
                        "-verify",
                        "-pubin",
                        "-inkey",
                        &public,
                        "-rawin",
                        "-in",
                        &input_file,
                        "-sigfile",
                        &sig,
                    ],
                    None,
                )
            }
            _ => {
                let digest = if alg == "ES256K" { "-sha256".to_string() } else { digest };
                let der = if alg.starts_with("ES") { ecdsa_der(&signature) } else { signature.clone() };
                let sig = dir.file("sig", &der);
                let mut args = vec!["openssl", "dgst", &digest, "-verify", &public, "-signature", &sig];
                if alg.starts_with("PS") {
                    args.extend(["-sigopt", "rsa_padding_mode:pss", "-sigopt", "rsa_pss_saltlen:digest"]);
                }
                args.push(&input_file);
                output(&args, None)
            }
        };
        assert!(ok, "{alg}: openssl does not verify wrench's signature: {}", String::from_utf8_lossy(&said));
    }
}

#[tokio::test]
async fn ssh_keygen_and_openssl_agree_with_keys_inspect() {
    if !have("openssl") || !have("ssh-keygen") {
        return;
    }
    let cli = client();
    let f = jose_fixture();
    let dir = Scratch::new("keys");
    for (name, k) in f["keys"].as_object().unwrap() {
        let (status, v) = common::post_json(&cli, "/v1/keys/inspect", &json!({"key": k["pkcs8"]})).await;
        assert_eq!(status, 200, "{name}: {v}");
        let d = &v["data"];
        let private = dir.file("private.pem", k["pkcs8"].as_str().unwrap().as_bytes());
        let (ok, public) = output(&["openssl", "pkey", "-in", &private, "-pubout"], None);
        assert!(ok, "{name}");
        assert_eq!(
            d["publicKeyPem"].as_str().unwrap(),
            String::from_utf8(public).unwrap(),
            "{name}: openssl pkey -pubout"
        );
        let Some(line) = d["publicKeyOpenssh"].as_str() else {
            assert!(k["openssh"].is_null(), "{name} has an OpenSSH form");
            continue;
        };
        let file = dir.file("key.pub", format!("{line}\n").as_bytes());
        for (hash, field) in [("sha256", "opensshSha256"), ("md5", "opensshMd5")] {
            let (ok, said) = output(&["ssh-keygen", "-l", "-E", hash, "-f", &file], None);
            let said = String::from_utf8(said).unwrap();
            assert!(ok, "{name}: ssh-keygen refused the line");
            let fingerprint = d["fingerprints"][field].as_str().unwrap();
            assert!(
                said.split_whitespace().nth(1) == Some(fingerprint),
                "{name}: ssh-keygen says {said}, wrench {fingerprint}"
            );
        }
        // And ssh-keygen's own export of the public key as PKCS#8 reads back to the same key
        // (OpenSSH 9.2 exports RSA and ECDSA keys so, not Ed25519).
        if name == "ed25519" {
            continue;
        }
        let (ok, exported) = output(&["ssh-keygen", "-e", "-m", "PKCS8", "-f", &file], None);
        assert!(ok, "{name}");
        let (status, back) =
            common::post_json(&cli, "/v1/keys/inspect", &json!({"key": String::from_utf8(exported).unwrap()})).await;
        assert_eq!(status, 200, "{name}: {back}");
        assert_eq!(back["data"]["fingerprints"]["jwkThumbprint"], d["fingerprints"]["jwkThumbprint"], "{name}");
    }
}

/// The first two words of an OpenSSH public key line (type and key, without the comment).
fn ssh_words(line: &str) -> String {
    line.split_whitespace().take(2).collect::<Vec<_>>().join(" ")
}

#[tokio::test]
async fn openssl_and_ssh_keygen_read_the_keys_keys_generate_writes() {
    if !have("openssl") || !have("ssh-keygen") {
        return;
    }
    let cli = client();
    let dir = Scratch::new("generated");
    let cases = [
        json!({"type": "rsa", "bits": 3072}),
        json!({"type": "rsa", "format": "pkcs1"}),
        json!({"type": "rsa", "format": "openssh", "passphrase": "pass phrase"}),
        json!({"type": "ec", "curve": "p256", "format": "sec1"}),
        json!({"type": "ec", "curve": "p384", "passphrase": "pass phrase"}),
        json!({"type": "ec", "curve": "p521", "format": "openssh"}),
        json!({"type": "ec", "curve": "secp256k1"}),
        json!({"type": "ed25519", "format": "openssh", "passphrase": "pass phrase", "comment": "me@example"}),
        json!({"type": "ed25519", "passphrase": "pass phrase"}),
        json!({"type": "x25519"}),
    ];
    for input in cases {
        let (status, v) = common::post_json(&cli, "/v1/keys/generate", &input).await;
        assert_eq!(status, 200, "{input}: {}", v["error"]);
        let d = &v["data"];
        let file = dir.file("key", d["privateKey"].as_str().unwrap().as_bytes());
        std::fs::set_permissions(&file, std::os::unix::fs::PermissionsExt::from_mode(0o600)).unwrap();
        let passphrase = input["passphrase"].as_str();
        if input["format"] == "openssh" {
            let mut args = vec!["ssh-keygen", "-y", "-f", &file];
            let pass = passphrase.unwrap_or("");
            args.extend(["-P", pass]);
            let (ok, line) = output(&args, None);
            assert!(ok, "{input}: ssh-keygen -y refused the key");
            let line = String::from_utf8(line).unwrap();
            assert_eq!(ssh_words(&line), ssh_words(d["publicKeyOpenssh"].as_str().unwrap()), "{input}");
        } else {
            let pass = format!("pass:{}", passphrase.unwrap_or(""));
            let (ok, public) = output(&["openssl", "pkey", "-in", &file, "-passin", &pass, "-pubout"], None);
            assert!(ok, "{input}: openssl pkey refused the key");
            assert_eq!(String::from_utf8(public).unwrap(), d["publicKey"].as_str().unwrap(), "{input}");
        }
    }
}

#[tokio::test]
async fn keys_inspect_opens_the_keys_openssl_and_ssh_keygen_encrypt() {
    if !have("openssl") || !have("ssh-keygen") {
        return;
    }
    let cli = client();
    let dir = Scratch::new("tool-keys");
    let pass = "pass phrase";
    // ssh-keygen's own keys, sealed with bcrypt_pbkdf and AES-256-CTR.
    for (kind, bits) in [("ed25519", None), ("ecdsa", Some("384")), ("rsa", Some("2048"))] {
        let file = dir.0.join(format!("id_{kind}")).to_string_lossy().into_owned();
        let mut args = vec!["ssh-keygen", "-q", "-t", kind, "-N", pass, "-C", "tool@example", "-f", &file];
        if let Some(b) = bits {
            args.extend(["-b", b]);
        }
        let (ok, _) = output(&args, None);
        assert!(ok, "ssh-keygen -t {kind}");
        let private = std::fs::read_to_string(&file).unwrap();
        let public = std::fs::read_to_string(format!("{file}.pub")).unwrap();
        let (status, v) =
            common::post_json(&cli, "/v1/keys/inspect", &json!({"key": private, "passphrase": pass})).await;
        assert_eq!(status, 200, "{kind}: {}", v["error"]);
        assert_eq!(ssh_words(v["data"]["publicKeyOpenssh"].as_str().unwrap()), ssh_words(&public), "{kind}");
        let (status, v) =
            common::post_json(&cli, "/v1/keys/inspect", &json!({"key": private, "passphrase": "wrong"})).await;
        assert_eq!((status, v["error"]["field"].as_str()), (400, Some("key")), "{kind}");
    }
    // OpenSSL's encrypted PKCS#8, with the PRFs and key sizes it offers.
    for (curve, cipher, prf) in [
        ("P-256", "aes-256-cbc", "hmacWithSHA256"),
        ("P-384", "aes-128-cbc", "hmacWithSHA512"),
        ("P-521", "aes-192-cbc", "hmacWithSHA1"),
    ] {
        let plain = dir.0.join("plain.pem").to_string_lossy().into_owned();
        let sealed = dir.0.join("sealed.pem").to_string_lossy().into_owned();
        let curve_opt = format!("ec_paramgen_curve:{curve}");
        let (ok, _) = output(&["openssl", "genpkey", "-algorithm", "EC", "-pkeyopt", &curve_opt, "-out", &plain], None);
        assert!(ok, "{curve}");
        let passout = format!("pass:{pass}");
        let (ok, _) = output(
            &[
                "openssl", "pkcs8", "-topk8", "-in", &plain, "-v2", cipher, "-v2prf", prf, "-passout", &passout,
                "-out", &sealed,
            ],
            None,
        );
        assert!(ok, "{curve} {cipher} {prf}");
        let (_, public) = output(&["openssl", "pkey", "-in", &plain, "-pubout"], None);
        let private = std::fs::read_to_string(&sealed).unwrap();
        let (status, v) =
            common::post_json(&cli, "/v1/keys/inspect", &json!({"key": private, "passphrase": pass})).await;
        assert_eq!(status, 200, "{curve} {cipher} {prf}: {}", v["error"]);
        assert_eq!(v["data"]["publicKeyPem"].as_str().unwrap(), String::from_utf8(public).unwrap(), "{curve}");
    }
}

#[tokio::test]
async fn openssl_verifies_what_signature_sign_writes() {
    if !have("openssl") {
        return;
    }
    use base64::{Engine, engine::general_purpose::STANDARD};
    let cli = client();
    let f = jose_fixture();
    let dir = Scratch::new("signatures");
    let message = "signed by wrench, checked by openssl \u{2713}";
    let input_file = dir.file("message", message.as_bytes());
    for (algorithm, key) in [
        ("rsa-pkcs1-sha256", "rsa"),
        ("rsa-pkcs1-sha512", "rsa"),
        ("rsa-pss-sha256", "rsa"),
        ("rsa-pss-sha384", "rsa"),
        ("ecdsa-sha256", "p256"),
        ("ecdsa-sha256", "secp256k1"),
        ("ecdsa-sha384", "p384"),
        ("ecdsa-sha512", "p521"),
        ("ed25519", "ed25519"),
    ] {
        let k = &f["keys"][key];
        let body = json!({"message": message, "algorithm": algorithm, "key": k["traditional"].as_str().or(k["pkcs8"].as_str())});
        let (status, v) = common::post_json(&cli, "/v1/signature/sign", &body).await;
        assert_eq!(status, 200, "{algorithm}: {}", v["error"]);
        let signature = STANDARD.decode(v["data"]["signature"].as_str().unwrap()).unwrap();
        let sig = dir.file("sig", &signature);
        let public = dir.file("public.pem", k["spki"].as_str().unwrap().as_bytes());
        let (ok, said) = if algorithm == "ed25519" {
            output(
                &[
                    "openssl",
                    "pkeyutl",
                    "-verify",
                    "-pubin",
                    "-inkey",
                    &public,
                    "-rawin",
                    "-in",
                    &input_file,
                    "-sigfile",
                    &sig,
                ],
                None,
            )
        } else {
            let digest = format!("-{}", algorithm.rsplit('-').next().unwrap());
            let mut args = vec!["openssl", "dgst", &digest, "-verify", &public, "-signature", &sig];
            if algorithm.starts_with("rsa-pss") {
                args.extend(["-sigopt", "rsa_padding_mode:pss", "-sigopt", "rsa_pss_saltlen:digest"]);
            }
            args.push(&input_file);
            output(&args, None)
        };
        assert!(ok, "{algorithm} on {key}: openssl does not verify: {}", String::from_utf8_lossy(&said));
    }
}

#[tokio::test]
async fn asn1_parse_lists_what_openssl_asn1parse_lists() {
    if !have("openssl") {
        return;
    }
    let cli = client();
    let f = jose_fixture();
    let x509: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string("tests/fixtures/x509.json").unwrap()).unwrap();
    let dir = Scratch::new("asn1");
    let mut inputs: Vec<String> =
        x509.as_array().unwrap().iter().map(|c| c["pem"].as_str().unwrap().to_string()).collect();
    for k in f["keys"].as_object().unwrap().values() {
        for form in ["pkcs8", "spki", "traditional", "certificate"] {
            if let Some(pem) = k[form].as_str() {
                inputs.push(pem.to_string());
            }
        }
    }
    let mut names_differ: Vec<String> = Vec::new();
    let mut nodes = 0;
    for pem in &inputs {
        // The first PEM block of the input, for both.
        let end = pem.find("-----END").unwrap() + "-----END".len();
        let first = &pem[..end + pem[end..].find("-----").unwrap() + "-----".len()];
        let file = dir.file("in.pem", format!("{first}\n").as_bytes());
        let (ok, listed) = output(&["openssl", "asn1parse", "-i", "-in", &file], None);
        assert!(ok, "openssl asn1parse refused {first}");
        let listed = String::from_utf8(listed).unwrap();
        let (status, v) = common::post_json(&cli, "/v1/asn1/parse", &json!({"input": first})).await;
        assert_eq!(status, 200, "{}", v["error"]);
        let ours = v["data"]["nodes"].as_array().unwrap();
        let theirs: Vec<&str> = listed.lines().collect();
        assert_eq!(ours.len(), theirs.len(), "node count for {first}");
        for (node, line) in ours.iter().zip(&theirs) {
            nodes += 1;
            let (head, rest) = line.split_once(':').unwrap();
            let offset: u64 = head.trim().parse().unwrap();
            let fields: Vec<&str> = rest.split_whitespace().collect();
            // d=N hl=N l= N (or l=N) prim|cons: TYPE [:value]
            let depth: u64 = fields[0].trim_start_matches("d=").parse().unwrap();
            let hl: u64 = fields[1].trim_start_matches("hl=").parse().unwrap();
            let (l, at): (u64, usize) = if fields[2] == "l=" {
                (fields[3].parse().unwrap(), 4)
            } else {
                (fields[2].trim_start_matches("l=").parse().unwrap(), 3)
            };
            let cons = fields[at] == "cons:";
            let after = line.split_once(if cons { "cons:" } else { "prim:" }).unwrap().1.trim_start();
            let (kind, value) = match after.split_once(':') {
                Some((k, v)) => (k.trim().trim_end_matches("[HEX DUMP]").trim(), Some(v)),
                None => (after.trim_end(), None),
            };
            let want = (offset, depth, hl, l, cons, kind);
            let got = (
                node["offset"].as_u64().unwrap(),
                node["depth"].as_u64().unwrap(),
                node["headerLength"].as_u64().unwrap(),
                node["length"].as_u64().unwrap(),
                node["constructed"].as_bool().unwrap(),
                node["type"].as_str().unwrap(),
            );
            assert_eq!(got, want, "{line}");
            match (kind, value) {
                ("INTEGER", Some(v)) => assert_eq!(
                    node["value"].as_str().unwrap().trim_start_matches('0'),
                    v.trim_start_matches('0'),
                    "{line}"
                ),
                ("OBJECT", Some(v)) => {
                    // OpenSSL prints an OID it knows by its long name ("X509v3 Key Usage"), where
                    // wrench gives the short one ("keyUsage"); one it does not know, dotted.
                    let dotted = v.chars().all(|c| c.is_ascii_digit() || c == '.');
                    if dotted {
                        assert_eq!(node["value"].as_str(), Some(v), "{line}");
                    } else if node["oidName"].as_str() != Some(v) {
                        names_differ.push(format!("{v} / {} {}", node["value"], node["oidName"]));
                    }
                }
                ("UTF8STRING" | "PRINTABLESTRING" | "IA5STRING" | "UTCTIME" | "GENERALIZEDTIME", Some(v)) => {
                    assert_eq!(node["value"].as_str(), Some(v), "{line}")
                }
                _ => {}
            }
        }
    }
    names_differ.sort();
    names_differ.dedup();
    eprintln!(
        "asn1/parse: {nodes} nodes of {} inputs as openssl asn1parse lists them; OIDs OpenSSL names by a long name: {names_differ:?}",
        inputs.len()
    );
    assert!(nodes > 500, "only {nodes} nodes compared");
}

#[tokio::test]
async fn openssl_accepts_the_requests_and_certificates_wrench_writes() {
    if !have("openssl") {
        return;
    }
    let cli = client();
    let dir = Scratch::new("pki");
    for key_type in ["ec-p256", "ec-p384", "rsa-2048", "ed25519"] {
        let subject = json!({"cn": "svc.example", "o": "Example", "c": "GB"});
        let sans = json!(["svc.example", "192.0.2.5"]);
        let (status, v) = common::post_json(
            &cli,
            "/v1/csr/generate",
            &json!({"subject": subject, "sans": sans, "keyType": key_type}),
        )
        .await;
        assert_eq!(status, 200, "{key_type}: {}", v["error"]);
        let csr = dir.file("req.pem", v["data"]["csr"].as_str().unwrap().as_bytes());
        let (ok, said) =
            output(&["openssl", "req", "-in", &csr, "-noout", "-verify", "-subject", "-nameopt", "RFC2253"], None);
        assert!(ok, "{key_type}: openssl req -verify refused the request");
        assert!(
            String::from_utf8_lossy(&said).contains("subject=CN=svc.example,O=Example,C=GB"),
            "{key_type}: {}",
            String::from_utf8_lossy(&said)
        );

        let body =
            json!({"subject": subject, "sans": sans, "keyType": key_type, "days": 10, "isCa": key_type == "ec-p384"});
        let (status, v) = common::post_json(&cli, "/v1/x509/self-signed", &body).await;
        assert_eq!(status, 200, "{key_type}: {}", v["error"]);
        let pem = v["data"]["certificate"].as_str().unwrap();
        let cert = dir.file("cert.pem", pem.as_bytes());
        let (ok, said) = output(&["openssl", "verify", "-CAfile", &cert, &cert], None);
        assert!(ok, "{key_type}: openssl verify: {}", String::from_utf8_lossy(&said));
        let (ok, said) = output(
            &[
                "openssl",
                "x509",
                "-in",
                &cert,
                "-noout",
                "-ext",
                "subjectAltName,basicConstraints",
                "-fingerprint",
                "-sha256",
            ],
            None,
        );
        let said = String::from_utf8_lossy(&said).to_string();
        assert!(ok && said.contains("DNS:svc.example") && said.contains("IP Address:192.0.2.5"), "{key_type}: {said}");
        assert_eq!(said.contains("CA:TRUE"), key_type == "ec-p384", "{key_type}: {said}");
        let fingerprint = v["data"]["fingerprints"]["sha256"].as_str().unwrap().to_uppercase();
        let colons: Vec<String> =
            fingerprint.as_bytes().chunks(2).map(|c| String::from_utf8_lossy(c).into_owned()).collect();
        assert!(said.contains(&colons.join(":")), "{key_type}: {said}");
        // And the certificate's key is the key answered.
        let (status, m) = common::post_json(
            &cli,
            "/v1/keys/match",
            &json!({"privateKey": v["data"]["privateKey"], "certificate": pem}),
        )
        .await;
        assert_eq!((status, m["data"]["match"].as_bool()), (200, Some(true)), "{key_type}: {}", m["error"]);
    }
}

#[tokio::test]
async fn openssl_and_x509_convert_read_each_others_containers() {
    if !have("openssl") {
        return;
    }
    use base64::{Engine, engine::general_purpose::STANDARD};
    let cli = client();
    let dir = Scratch::new("containers");
    let keyfile = dir.0.join("key.pem").to_string_lossy().into_owned();
    let certfile = dir.0.join("cert.pem").to_string_lossy().into_owned();
    let (ok, _) = output(
        &[
            "openssl",
            "req",
            "-x509",
            "-newkey",
            "ec",
            "-pkeyopt",
            "ec_paramgen_curve:P-256",
            "-nodes",
            "-keyout",
            &keyfile,
            "-out",
            &certfile,
            "-subj",
            "/CN=containers.example",
            "-days",
            "2",
        ],
        None,
    );
    assert!(ok);
    let cert = std::fs::read_to_string(&certfile).unwrap();
    let key = std::fs::read_to_string(&keyfile).unwrap();
    let (_, public) = output(&["openssl", "pkey", "-in", &keyfile, "-pubout"], None);
    let public = String::from_utf8(public).unwrap();

    // OpenSSL's PKCS#12: its default (PBES2, AES-256-CBC, SHA-256 MAC) and the older 3DES with a
    // SHA-1 MAC, read by wrench with their key; RC2 (-legacy) refused by name.
    for (name, extra) in [
        ("default", vec![]),
        ("3des", vec!["-certpbe", "PBE-SHA1-3DES", "-keypbe", "PBE-SHA1-3DES", "-macalg", "sha1"]),
        ("rc2", vec!["-legacy"]),
    ] {
        let p12 = dir.0.join(format!("{name}.p12")).to_string_lossy().into_owned();
        let mut args = vec![
            "openssl",
            "pkcs12",
            "-export",
            "-in",
            &certfile,
            "-inkey",
            &keyfile,
            "-passout",
            "pass:pa ss",
            "-out",
            &p12,
        ];
        args.extend(extra);
        let (ok, _) = output(&args, None);
        assert!(ok, "openssl pkcs12 -export ({name})");
        let body = json!({"input": STANDARD.encode(std::fs::read(&p12).unwrap()), "from": "pkcs12", "to": "pem", "password": "pa ss"});
        let (status, v) = common::post_json(&cli, "/v1/x509/convert", &body).await;
        if name == "rc2" {
            assert_eq!(status, 400, "{}", v);
            assert!(v["error"]["message"].as_str().unwrap().contains("RC2"), "{}", v["error"]);
            continue;
        }
        assert_eq!(status, 200, "{name}: {}", v["error"]);
        assert_eq!(v["data"]["output"].as_str().unwrap(), cert, "{name}");
        let (status, k) = common::post_json(&cli, "/v1/keys/inspect", &json!({"key": v["data"]["privateKey"]})).await;
        assert_eq!((status, k["data"]["publicKeyPem"].as_str()), (200, Some(public.as_str())), "{name}");
    }

    // wrench's PKCS#12 and PKCS#7, read by OpenSSL.
    let body = json!({"input": cert, "from": "pem", "to": "pkcs12", "password": "pa ss", "privateKey": key});
    let (status, v) = common::post_json(&cli, "/v1/x509/convert", &body).await;
    assert_eq!(status, 200, "{}", v["error"]);
    let p12 = dir.file("wrench.p12", &STANDARD.decode(v["data"]["output"].as_str().unwrap()).unwrap());
    let (ok, said) = output(&["openssl", "pkcs12", "-in", &p12, "-passin", "pass:pa ss", "-nodes"], None);
    let said = String::from_utf8_lossy(&said).to_string();
    assert!(ok, "openssl pkcs12 refused wrench's file: {said}");
    assert!(said.contains(cert.trim()), "{said}");
    let begin = said.find("-----BEGIN PRIVATE KEY-----").expect("openssl shows the key");
    let key_back = dir.file("back.pem", &said.as_bytes()[begin..]);
    let (_, public_back) = output(&["openssl", "pkey", "-in", &key_back, "-pubout"], None);
    assert_eq!(String::from_utf8(public_back).unwrap(), public);
    let (ok, _) = output(&["openssl", "pkcs12", "-in", &p12, "-passin", "pass:wrong", "-nodes"], None);
    assert!(!ok, "openssl opened wrench's file with a wrong password");

    let (status, v) = common::post_json(
        &cli,
        "/v1/x509/convert",
        &json!({"input": format!("{cert}{cert}"), "from": "pem", "to": "pkcs7"}),
    )
    .await;
    assert_eq!(status, 200, "{}", v["error"]);
    let p7 = dir.file("wrench.p7b", &STANDARD.decode(v["data"]["output"].as_str().unwrap()).unwrap());
    let (ok, said) = output(&["openssl", "pkcs7", "-inform", "DER", "-in", &p7, "-print_certs"], None);
    assert!(
        ok && String::from_utf8_lossy(&said).matches("BEGIN CERTIFICATE").count() == 2,
        "{}",
        String::from_utf8_lossy(&said)
    );
    let (ok, p7b) = output(&["openssl", "crl2pkcs7", "-nocrl", "-certfile", &certfile], None);
    assert!(ok);
    let (status, v) = common::post_json(
        &cli,
        "/v1/x509/convert",
        &json!({"input": String::from_utf8(p7b).unwrap(), "from": "pkcs7", "to": "pem"}),
    )
    .await;
    assert_eq!((status, v["data"]["output"].as_str()), (200, Some(cert.as_str())), "{}", v["error"]);
}
