//! Keys, JSON Web Tokens and signatures against the tools people check them with: OpenSSL
//! verifies what `jwt/sign` and `signature/sign` write and reads what `keys/generate` writes;
//! `ssh-keygen` reads the generated OpenSSH keys and agrees with `keys/inspect`'s fingerprints;
//! keys sealed by `ssh-keygen` and `openssl pkcs8` open in `keys/inspect`.

use crate::common::{
    self,
    tools::{Scratch, client, fixture, have, output},
};

use serde_json::json;

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

/// How OpenSSL is asked to check a signature: Ed25519 over the message itself, or a digest
/// (`-sha256`...) with PKCS#1 v1.5 padding, PSS padding, or an ECDSA signature in DER.
enum OpensslCheck<'a> {
    Ed25519,
    Digest { digest: &'a str, pss: bool },
}

/// Whether OpenSSL verifies `signature` of the file `message` with the SPKI PEM `public`.
fn openssl_verifies(
    dir: &Scratch,
    public: &str,
    message: &str,
    signature: &[u8],
    check: OpensslCheck<'_>,
) -> (bool, String) {
    let public = dir.file("public.pem", public.as_bytes());
    let sig = dir.file("sig", signature);
    let (ok, said) = match check {
        OpensslCheck::Ed25519 => output(
            &["openssl", "pkeyutl", "-verify", "-pubin", "-inkey", &public, "-rawin", "-in", message, "-sigfile", &sig],
            None,
        ),
        OpensslCheck::Digest { digest, pss } => {
            let mut args = vec!["openssl", "dgst", digest, "-verify", &public, "-signature", &sig];
            if pss {
                args.extend(["-sigopt", "rsa_padding_mode:pss", "-sigopt", "rsa_pss_saltlen:digest"]);
            }
            args.push(message);
            output(&args, None)
        }
    };
    (ok, String::from_utf8_lossy(&said).into_owned())
}

#[tokio::test]
async fn openssl_verifies_the_tokens_jwt_sign_writes() {
    if !have("openssl") {
        return;
    }
    use base64::{Engine, engine::general_purpose::URL_SAFE_NO_PAD};
    let cli = client();
    let f = fixture("jose.json");
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
        let public = f["keys"][name]["spki"].as_str().unwrap();
        let digest = if alg == "ES256K" { "-sha256".to_string() } else { digest };
        let (ok, said) = if alg == "EdDSA" {
            openssl_verifies(&dir, public, &input_file, &signature, OpensslCheck::Ed25519)
        } else {
            let der = if alg.starts_with("ES") { ecdsa_der(&signature) } else { signature.clone() };
            openssl_verifies(
                &dir,
                public,
                &input_file,
                &der,
                OpensslCheck::Digest { digest: &digest, pss: alg.starts_with("PS") },
            )
        };
        assert!(ok, "{alg}: openssl does not verify wrench's signature: {said}");
    }
}

#[tokio::test]
async fn ssh_keygen_and_openssl_agree_with_keys_inspect() {
    if !have("openssl") || !have("ssh-keygen") {
        return;
    }
    let cli = client();
    let f = fixture("jose.json");
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
    let f = fixture("jose.json");
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
        let public = k["spki"].as_str().unwrap();
        let digest = format!("-{}", algorithm.rsplit('-').next().unwrap());
        let (ok, said) = if algorithm == "ed25519" {
            openssl_verifies(&dir, public, &input_file, &signature, OpensslCheck::Ed25519)
        } else {
            let check = OpensslCheck::Digest { digest: &digest, pss: algorithm.starts_with("rsa-pss") };
            openssl_verifies(&dir, public, &input_file, &signature, check)
        };
        assert!(ok, "{algorithm} on {key}: openssl does not verify: {said}");
    }
}
