//! The secrets operations against the tools people check them with: what `cipher/encrypt`
//! writes with a passphrase, Debian's `openssl enc -d` reads; the lines `htpasswd/generate`
//! writes, Apache's `htpasswd -v` accepts; the hashes `password/hash` writes in crypt schemes,
//! `openssl passwd` writes again from the same salt. Keys, tokens and signatures are in
//! `key_tools.rs`, certificates and their containers in `pki_tools.rs`. (The other direction,
//! tools' output read by wrench, is mostly in the operations' own tests, from fixtures.)

use crate::common::{
    self,
    tools::{client, have, output},
};

use serde_json::json;

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
