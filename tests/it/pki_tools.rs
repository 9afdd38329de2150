//! Certificates, signing requests and their containers against OpenSSL: `asn1/parse` lists
//! what `openssl asn1parse` lists; `openssl req` and `openssl verify` accept what `csr/generate`
//! and `x509/self-signed` write; PKCS#12 and PKCS#7 go both ways with `openssl pkcs12`,
//! `pkcs7` and `crl2pkcs7`.

use crate::common::{
    self,
    tools::{Scratch, client, fixture, have, output},
};

use serde_json::json;

#[tokio::test]
async fn asn1_parse_lists_what_openssl_asn1parse_lists() {
    if !have("openssl") {
        return;
    }
    let cli = client();
    let f = fixture("jose.json");
    let x509: serde_json::Value = fixture("x509.json");
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
