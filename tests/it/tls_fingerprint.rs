//! The HTTPS listener and `tls/fingerprint`, end to end: the real binary with
//! `WRENCH_TLS_LISTEN`, three TLS client stacks (rustls in this process, curl on OpenSSL, and
//! Python's ssl module) calling it through a loopback relay that records the bytes each client
//! sent first. Each answer must describe that connection: its JA3 and JA4 equal what an
//! independent implementation (HTTP Toolkit's read-tls-client-hello, run by Node) computes from
//! the recorded ClientHello, and the stacks' fingerprints differ from one another.
//!
//! The independent computation needs Node and the package installed in a directory named by
//! `WRENCH_TEST_TLS_REFERENCE` (CI installs it); without them the test says it skipped that
//! comparison (and fails when `WRENCH_TEST_REQUIRE_TLS_REFERENCE` is set). Clients missing
//! from the machine (curl, python3) are reported the same way.

use crate::common;

use std::{
    io::Write,
    net::SocketAddr,
    path::{Path, PathBuf},
    process::{Child, Command, Stdio},
    sync::{Arc, Mutex},
    time::{Duration, Instant},
};

use rcgen::{BasicConstraints, CertificateParams, IsCa, Issuer, KeyPair};
use rustls_pki_types::{CertificateDer, pem::PemObject};
use serde_json::Value;
use tokio::{
    io::{AsyncReadExt, AsyncWriteExt},
    net::{TcpListener, TcpStream},
};

const NAME: &str = "wrench.test";
/// Bytes of each client's stream kept by the relay: far more than any ClientHello.
const RECORDED: usize = 128 * 1024;

/// A root authority and a certificate for [`NAME`] signed by it, written as PEM files.
fn certificates(dir: &Path) -> (PathBuf, PathBuf, PathBuf) {
    let mut root = CertificateParams::new(Vec::<String>::new()).unwrap();
    root.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
    root.distinguished_name.push(rcgen::DnType::CommonName, "wrench tls test root");
    let root_key = KeyPair::generate().unwrap();
    let root_pem = root.self_signed(&root_key).unwrap().pem();
    let issuer = Issuer::new(root, root_key);
    let leaf_key = KeyPair::generate().unwrap();
    let leaf = CertificateParams::new(vec![NAME.to_string()]).unwrap().signed_by(&leaf_key, &issuer).unwrap();
    let paths = (dir.join("root.pem"), dir.join("cert.pem"), dir.join("key.pem"));
    std::fs::write(&paths.0, root_pem).unwrap();
    std::fs::write(&paths.1, leaf.pem()).unwrap();
    std::fs::write(&paths.2, leaf_key.serialize_pem()).unwrap();
    paths
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port()
}

struct Server {
    child: Child,
    plain: u16,
    tls: u16,
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

async fn start(dir: &Path, cert: &Path, key: &Path) -> Server {
    let (plain, tls) = (free_port(), free_port());
    let child = Command::new(env!("CARGO_BIN_EXE_wrench"))
        .env("WRENCH_LISTEN", format!("127.0.0.1:{plain}"))
        .env("WRENCH_TLS_LISTEN", format!("127.0.0.1:{tls}"))
        .env("WRENCH_TLS_CERT", cert)
        .env("WRENCH_TLS_KEY", key)
        .env("WRENCH_HEADER_TIMEOUT", "2")
        .env("WRENCH_LOG", "warn")
        .env("WRENCH_DATA_DIR", dir.join("data"))
        .env("WRENCH_RATE_ANON_PER_MINUTE", "0")
        .env("WRENCH_RATE_ANON_PER_DAY", "0")
        .stdout(Stdio::null())
        .stderr(Stdio::inherit())
        .spawn()
        .unwrap();
    let server = Server { child, plain, tls };
    for port in [plain, tls] {
        common::when_listening(port, Duration::from_secs(20)).await;
    }
    server
}

/// A loopback relay to `target` that records the first bytes each client sends, in the order
/// the connections arrive.
async fn relay(target: u16) -> (u16, Arc<Mutex<Vec<Vec<u8>>>>) {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    let records = Arc::new(Mutex::new(Vec::new()));
    let shared = records.clone();
    tokio::spawn(async move {
        while let Ok((client, _)) = listener.accept().await {
            let slot = {
                let mut all = shared.lock().unwrap();
                all.push(Vec::new());
                all.len() - 1
            };
            let records = shared.clone();
            tokio::spawn(async move {
                let server = TcpStream::connect(("127.0.0.1", target)).await.unwrap();
                let (mut client_read, mut client_write) = client.into_split();
                let (mut server_read, mut server_write) = server.into_split();
                let upstream = async move {
                    let mut buf = vec![0u8; 16 * 1024];
                    loop {
                        let n = match client_read.read(&mut buf).await {
                            Ok(0) | Err(_) => break,
                            Ok(n) => n,
                        };
                        {
                            let mut all = records.lock().unwrap();
                            let kept = &mut all[slot];
                            let room = RECORDED.saturating_sub(kept.len());
                            kept.extend_from_slice(&buf[..n.min(room)]);
                        }
                        if server_write.write_all(&buf[..n]).await.is_err() {
                            break;
                        }
                    }
                    let _ = server_write.shutdown().await;
                };
                let downstream = async move {
                    let _ = tokio::io::copy(&mut server_read, &mut client_write).await;
                    let _ = client_write.shutdown().await;
                };
                tokio::join!(upstream, downstream);
            });
        }
    });
    (port, records)
}

/// rustls (this crate's TLS stack) through reqwest: HTTP/2 by ALPN.
async fn rustls_client(root: &Path, port: u16) -> Value {
    let mut roots = rustls::RootCertStore::empty();
    let pem = std::fs::read(root).unwrap();
    for cert in CertificateDer::pem_slice_iter(&pem) {
        roots.add(cert.unwrap()).unwrap();
    }
    let provider = Arc::new(rustls::crypto::aws_lc_rs::default_provider());
    let mut tls = rustls::ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .unwrap()
        .with_root_certificates(roots)
        .with_no_client_auth();
    tls.alpn_protocols = vec![b"h2".to_vec(), b"http/1.1".to_vec()];
    let client = reqwest::Client::builder()
        .tls_backend_preconfigured(tls)
        .resolve(NAME, SocketAddr::from(([127, 0, 0, 1], port)))
        .build()
        .unwrap();
    let resp = client.get(format!("https://{NAME}:{port}/v1/tls/fingerprint")).send().await.unwrap();
    assert_eq!(resp.status(), 200);
    serde_json::from_slice(&resp.bytes().await.unwrap()).unwrap()
}

/// curl (OpenSSL here): a POST with an empty object, as the spec shows.
fn curl_client(root: &Path, port: u16) -> Option<Value> {
    let out = Command::new("curl")
        .args(["-sS", "--max-time", "20", "--cacert"])
        .arg(root)
        .args(["--resolve", &format!("{NAME}:{port}:127.0.0.1")])
        .args(["-H", "content-type: application/json", "-d", "{}"])
        .arg(format!("https://{NAME}:{port}/v1/tls/fingerprint"))
        .output()
        .ok()?;
    assert!(out.status.success(), "curl failed: {}", String::from_utf8_lossy(&out.stderr));
    Some(serde_json::from_slice(&out.stdout).unwrap())
}

/// Python's ssl module with its default context, over HTTP/1.1, offering the ALPN protocols
/// `alpn` (comma-separated; none when empty).
fn python_client(root: &Path, port: u16, alpn: &str) -> Option<Value> {
    const SCRIPT: &str = r#"
import json, socket, ssl, sys
ctx = ssl.create_default_context(cafile=sys.argv[1])
if sys.argv[4]:
    ctx.set_alpn_protocols(sys.argv[4].split(","))
with socket.create_connection(("127.0.0.1", int(sys.argv[2])), timeout=20) as raw:
    with ctx.wrap_socket(raw, server_hostname=sys.argv[3]) as s:
        s.sendall(b"GET /v1/tls/fingerprint HTTP/1.1\r\nHost: " + sys.argv[3].encode() + b"\r\nConnection: close\r\n\r\n")
        data = b""
        while chunk := s.recv(65536):
            data += chunk
head, _, body = data.partition(b"\r\n\r\n")
assert head.startswith(b"HTTP/1.1 200"), head
sys.stdout.write(body.decode())
"#;
    let out = Command::new("python3")
        .arg("-c")
        .arg(SCRIPT)
        .arg(root)
        .arg(port.to_string())
        .arg(NAME)
        .arg(alpn)
        .output()
        .ok()?;
    assert!(out.status.success(), "python failed: {}", String::from_utf8_lossy(&out.stderr));
    Some(serde_json::from_slice(&out.stdout).unwrap())
}

/// JA3 MD5 and JA4 of each capture by the reference implementation, or why not.
fn reference(captures: &[Vec<u8>]) -> Result<Vec<(String, String)>, String> {
    let dir = std::env::var("WRENCH_TEST_TLS_REFERENCE")
        .map_err(|_| "WRENCH_TEST_TLS_REFERENCE (a directory with read-tls-client-hello installed) is not set")?;
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/tls/fingerprint_reference.mjs");
    let mut child = Command::new("node")
        .arg(script)
        .arg(&dir)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("node does not run: {e}"))?;
    let mut input = String::new();
    for c in captures {
        input.push_str(&hex::encode(c));
        input.push('\n');
    }
    child.stdin.take().unwrap().write_all(input.as_bytes()).unwrap();
    let out = child.wait_with_output().unwrap();
    if !out.status.success() {
        return Err(format!("the reference failed: {}", String::from_utf8_lossy(&out.stderr)));
    }
    Ok(String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| {
            let v: Value = serde_json::from_str(l).unwrap();
            (v["ja3"].as_str().unwrap().to_string(), v["ja4"].as_str().unwrap().to_string())
        })
        .collect())
}

fn text<'a>(answer: &'a Value, field: &str) -> &'a str {
    answer["data"][field].as_str().unwrap_or_else(|| panic!("no {field} in {answer}"))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn three_client_stacks_are_told_apart_and_match_an_independent_reading() {
    let dir = std::env::temp_dir().join(format!("wrench-tls-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let (root, cert, key) = certificates(&dir);
    let server = start(&dir, &cert, &key).await;
    let (port, records) = relay(server.tls).await;

    let mut answers = vec![("rustls", rustls_client(&root, port).await)];
    // The last client offers 200 protocol names of 255 bytes before `http/1.1`: a ClientHello
    // of about 52 KB, which arrives in four TLS records.
    let long_alpn = format!("{},http/1.1", vec!["x".repeat(255); 200].join(","));
    for (name, answer) in [
        ("curl", curl_client(&root, port)),
        ("python ssl", python_client(&root, port, "")),
        ("python ssl with a 52 KB hello", python_client(&root, port, &long_alpn)),
    ] {
        match answer {
            Some(a) => answers.push((name, a)),
            None => common::skipped(&format!("the {name} client (not installed)")),
        }
    }
    assert!(answers.len() >= 2, "at least two client stacks are needed (rustls and curl or python3)");
    let captures = records.lock().unwrap().clone();
    assert_eq!(captures.len(), answers.len(), "one connection per client");

    for ((name, answer), capture) in answers.iter().zip(&captures) {
        let data = &answer["data"];
        assert_eq!(data["available"], true, "{name}: {answer}");
        assert_eq!(data["listener"], "https");
        assert_eq!(data["clientHello"]["serverName"], NAME, "{name}");
        // The answer is this connection's: the recorded hello read again gives the same.
        let message = wrench_infra::connection::client_hello::from_records(capture).unwrap().unwrap();
        let hello = wrench_infra::connection::client_hello::parse(&message).unwrap();
        assert_eq!((text(answer, "ja3"), text(answer, "ja4")), (hello.ja3().as_str(), hello.ja4().as_str()), "{name}");
        assert_eq!(text(answer, "ja3Hash").len(), 32);
    }
    let negotiated: Vec<&Value> = answers.iter().map(|(_, a)| &a["data"]["negotiated"]).collect();
    assert_eq!(negotiated[0]["alpn"], "h2", "rustls offered h2 and got it");
    assert_eq!(negotiated[0]["version"], "TLS 1.3");
    if let Some((i, (_, answer))) = answers.iter().enumerate().find(|(_, (name, _))| name.contains("52 KB")) {
        let first = usize::from(u16::from_be_bytes([captures[i][3], captures[i][4]]));
        assert!(first < 50_000 && captures[i][5 + first] == 22, "the hello continues in a second record");
        assert_eq!(answer["data"]["clientHello"]["alpn"].as_array().unwrap().len(), 201);
        assert_eq!(negotiated[i]["alpn"], "http/1.1");
    }

    // Different stacks, different fingerprints.
    for i in 0..answers.len() {
        for j in i + 1..answers.len() {
            let (a, b) = (&answers[i], &answers[j]);
            assert_ne!(text(&a.1, "ja4"), text(&b.1, "ja4"), "{} and {}", a.0, b.0);
            assert_ne!(text(&a.1, "ja3Hash"), text(&b.1, "ja3Hash"), "{} and {}", a.0, b.0);
        }
    }

    match reference(&captures) {
        Ok(theirs) => {
            assert_eq!(theirs.len(), answers.len());
            for ((name, answer), (ja3, ja4)) in answers.iter().zip(&theirs) {
                assert_eq!(text(answer, "ja3Hash"), ja3, "{name}: JA3 differs from read-tls-client-hello's");
                assert_eq!(text(answer, "ja4"), ja4, "{name}: JA4 differs from read-tls-client-hello's");
                eprintln!("{name}: JA3 {ja3}, JA4 {ja4}: equal to read-tls-client-hello's");
            }
        }
        Err(why) => {
            assert!(std::env::var_os("WRENCH_TEST_REQUIRE_TLS_REFERENCE").is_none(), "{why}");
            common::skipped(&format!("the comparison with an independent implementation: {why}"));
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[tokio::test]
async fn both_listeners_serve_and_each_says_what_it_is() {
    let dir = std::env::temp_dir().join(format!("wrench-tls-test-b-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let (_, cert, key) = certificates(&dir);
    let server = start(&dir, &cert, &key).await;

    // The plain listener: no ClientHello, and the answer says where to go.
    let mut plain = TcpStream::connect(("127.0.0.1", server.plain)).await.unwrap();
    let (head, body) =
        common::exchange(&mut plain, &common::json_request("POST", "/v1/tls/fingerprint", "", "{}")).await;
    assert!(head.starts_with("http/1.1 200"), "{head}");
    let answer: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(answer["data"]["available"], false);
    assert_eq!(answer["data"]["listener"], "http");
    assert!(answer["data"]["ja4"].is_null() && answer["data"]["clientHello"].is_null());
    let reason = answer["data"]["reason"].as_str().unwrap();
    assert!(reason.contains(&format!("port {}", server.tls)), "{reason}");

    // Plain HTTP sent to the HTTPS listener: an envelope saying so, not a dropped connection.
    let mut wrong = TcpStream::connect(("127.0.0.1", server.tls)).await.unwrap();
    let (head, body) = common::exchange(&mut wrong, "GET /health HTTP/1.1\r\nHost: x\r\n\r\n").await;
    assert!(head.starts_with("http/1.1 400"), "{head}");
    let answer: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(answer["error"]["code"], "HTTPS_REQUIRED", "{body}");
    // The same with a body of 5 MiB, sent whole before the answer is read (as most clients
    // do): the server reads what is still coming before it closes, so the client's writes
    // succeed and the envelope arrives instead of a reset.
    let mut big = TcpStream::connect(("127.0.0.1", server.tls)).await.unwrap();
    let payload = vec![b'a'; 5 * 1024 * 1024];
    let head = format!("POST /v1/base64/encode HTTP/1.1\r\nHost: x\r\nContent-Length: {}\r\n\r\n", payload.len());
    big.write_all(head.as_bytes()).await.unwrap();
    big.write_all(&payload).await.expect("the body is read, not refused with a reset");
    let mut answer = Vec::new();
    tokio::time::timeout(Duration::from_secs(5), big.read_to_end(&mut answer))
        .await
        .expect("closed promptly")
        .expect("the answer is read, not lost to a reset");
    assert!(String::from_utf8_lossy(&answer).contains("HTTPS_REQUIRED"), "{}", String::from_utf8_lossy(&answer));

    // Bytes that are neither: the connection closes, and the server goes on.
    let mut junk = TcpStream::connect(("127.0.0.1", server.tls)).await.unwrap();
    junk.write_all(&[22, 3, 1, 0, 5, 2, 0, 0, 1, 0]).await.unwrap();
    let mut buf = [0u8; 64];
    let n = tokio::time::timeout(Duration::from_secs(5), junk.read(&mut buf)).await.expect("closed promptly");
    assert!(matches!(n, Ok(0) | Err(_)) || buf[0] == 21, "an alert or a close");

    // A client that opens and says nothing is closed after the header timeout (2 s here).
    let mut silent = TcpStream::connect(("127.0.0.1", server.tls)).await.unwrap();
    let opened = Instant::now();
    let n = tokio::time::timeout(Duration::from_secs(6), silent.read(&mut buf)).await.expect("closed by the server");
    assert!(matches!(n, Ok(0) | Err(_)));
    assert!(opened.elapsed() >= Duration::from_millis(1500), "closed at the limit, not before");
    let _ = std::fs::remove_dir_all(&dir);
}
