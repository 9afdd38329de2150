//! `compress` and `decompress` through the whole pipeline, against the tools people use: what
//! wrench compresses, Debian's gzip, zstd, bzip2, xz, lz4 and brotli (and Python's zlib for
//! zlib and raw DEFLATE) read back to the same bytes; and the largest requests the document
//! admits, bombs included, answer 400 without holding more than the response limit.
//!
//! A tool that is missing is reported as skipped; `WRENCH_TEST_REQUIRE_TOOLS=1` (set by CI)
//! makes a missing tool a failure.

use crate::common;

use std::sync::Arc;

use base64::Engine;
use poem::test::TestClient;
use serde_json::json;
use wrench_infra::config::Config;

fn client() -> TestClient<wrench_server::http::App> {
    TestClient::new(wrench_server::http::app(Arc::new(Config::default()), wrench::operations()).unwrap())
}

/// What `args` write to standard output given `input`, or None when the program is missing.
fn run(args: &[&str], input: &[u8]) -> Option<Vec<u8>> {
    let out = common::tool(args, input)?;
    assert!(out.status.success(), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
    Some(out.stdout)
}

const PYTHON_ZLIB: &str = "import sys, zlib; sys.stdout.buffer.write(zlib.decompress(sys.stdin.buffer.read(), WBITS))";

#[tokio::test]
async fn the_tools_read_what_wrench_writes() {
    let cli = client();
    let require = std::env::var("WRENCH_TEST_REQUIRE_TOOLS").is_ok_and(|v| v == "1");
    let text: Vec<u8> = (0..20_000u32).flat_map(|i| format!("line {} of {}\n", i % 97, i % 13).into_bytes()).collect();
    let random: Vec<u8> = (0..4096u32).map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8).collect();
    let zlib = PYTHON_ZLIB.replace("WBITS", "15");
    let deflate = PYTHON_ZLIB.replace("WBITS", "-15");
    let readers: [(&str, Vec<&str>); 8] = [
        ("gzip", vec!["gzip", "-d", "-c"]),
        ("zlib", vec!["python3", "-c", &zlib]),
        ("deflate", vec!["python3", "-c", &deflate]),
        ("brotli", vec!["brotli", "-d", "-c"]),
        ("zstd", vec!["zstd", "-d", "-c", "-q"]),
        ("bzip2", vec!["bzip2", "-d", "-c"]),
        ("xz", vec!["xz", "-d", "-c"]),
        ("lz4", vec!["lz4", "-d", "-c", "-q"]),
    ];
    for (format, reader) in readers {
        for sample in [&text, &random, &Vec::new()] {
            let body = json!({"input": base64::engine::general_purpose::STANDARD.encode(sample), "inputEncoding": "base64", "format": format});
            let (status, v) = common::post_json(&cli, "/v1/compress", &body).await;
            assert_eq!(status, 200, "{format}: {v}");
            let packed =
                base64::engine::general_purpose::STANDARD.decode(v["data"]["output"].as_str().unwrap()).unwrap();
            match run(&reader, &packed) {
                Some(read) => assert!(
                    read == *sample,
                    "{format}: {} read back {} bytes of {}",
                    reader[0],
                    read.len(),
                    sample.len()
                ),
                None if require => panic!("{} is not installed", reader[0]),
                None => {
                    common::skipped(&format!("{} is not installed: {format} not read by its tool", reader[0]));
                    break;
                }
            }
            // And wrench reads its own output, by signature where the format has one.
            let auto = if matches!(format, "brotli" | "deflate") { format } else { "auto" };
            let back = json!({"input": v["data"]["output"], "format": auto, "outputEncoding": "base64"});
            let (status, r) = common::post_json(&cli, "/v1/decompress", &back).await;
            assert_eq!((status, r["data"]["format"].as_str()), (200, Some(format)), "{r}");
            let read = base64::engine::general_purpose::STANDARD.decode(r["data"]["output"].as_str().unwrap()).unwrap();
            assert!(read == *sample, "{format}");
        }
    }
}

/// The largest request the document admits (1 MiB of body) compresses in every format, and a
/// bomb in every format (a few KiB that stand for 32 MiB) is a 400 naming the limit.
#[tokio::test]
async fn the_largest_requests_and_bombs() {
    let cli = client();
    let big = "wrench ".repeat(1_048_000 / 7);
    for format in ["gzip", "zlib", "deflate", "brotli", "zstd", "bzip2", "xz", "lz4"] {
        let started = std::time::Instant::now();
        let (status, v) = common::post_json(&cli, "/v1/compress", &json!({"input": big, "format": format})).await;
        assert_eq!(status, 200, "{format}: {v}");
        assert!(v["data"]["outputBytes"].as_u64().unwrap() < 200_000, "{format}: {}", v["data"]["outputBytes"]);
        eprintln!("compress {format} of {} bytes: {:?}", big.len(), started.elapsed());
    }
    let zeros = vec![0u8; 32 << 20];
    for (format, args) in [
        ("gzip", vec!["gzip", "-c", "-9"]),
        ("zstd", vec!["zstd", "-c", "-q", "-19"]),
        ("xz", vec!["xz", "-c"]),
        ("bzip2", vec!["bzip2", "-c"]),
    ] {
        let Some(bomb) = run(&args, &zeros) else {
            common::skipped(&format!("{} is not installed: no {format} bomb", args[0]));
            continue;
        };
        let body = json!({"input": base64::engine::general_purpose::STANDARD.encode(&bomb)});
        let (status, v) = common::post_json(&cli, "/v1/decompress", &body).await;
        assert_eq!(
            (status, v["error"]["code"].as_str()),
            (400, Some("RESULT_TOO_LARGE")),
            "{format} ({} bytes): {v}",
            bomb.len()
        );
    }
}
