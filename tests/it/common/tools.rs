//! Running the command-line tools wrench's output is checked with: whether one is installed
//! (a missing one is reported as skipped, or fails under `WRENCH_TEST_REQUIRE_TOOLS=1`, which CI
//! sets), what it answered, and a scratch directory for the files it reads.

use std::{process::Command, sync::Arc};

use poem::test::TestClient;
use wrench_infra::config::Config;

/// The whole service at its defaults, in-process.
pub fn client() -> TestClient<wrench_server::http::App> {
    TestClient::new(wrench_server::http::app(Arc::new(Config::default()), wrench::operations()).unwrap())
}

/// Whether `program` can be run; a missing one fails under `WRENCH_TEST_REQUIRE_TOOLS=1`.
pub fn have(program: &str) -> bool {
    let found = Command::new(program).arg("-h").output().is_ok();
    if !found {
        let required = std::env::var("WRENCH_TEST_REQUIRE_TOOLS").is_ok_and(|v| v == "1");
        assert!(!required, "{program} is not installed");
        super::skipped(&format!("{program} is not installed: wrench's output not checked by it"));
    }
    found
}

/// Whether `args` succeeded given `stdin`, and what they wrote.
pub fn output(args: &[&str], stdin: Option<&[u8]>) -> (bool, Vec<u8>) {
    let out = super::tool(args, stdin.unwrap_or_default()).expect("checked by have()");
    (out.status.success(), out.stdout)
}

/// A small linear congruential generator: `next(n)` is below `n`, and the same seed gives the
/// same numbers every run, so generated cases are reproducible.
pub fn lcg(mut seed: u64) -> impl FnMut(u64) -> u64 {
    move |n: u64| {
        seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        (seed >> 33) % n
    }
}

/// A scratch directory for one test's files, removed when dropped.
pub struct Scratch(pub std::path::PathBuf);

impl Scratch {
    pub fn new(name: &str) -> Scratch {
        let dir = std::env::temp_dir().join(format!("wrench-{name}-{}", uuid::Uuid::new_v4().simple()));
        std::fs::create_dir_all(&dir).unwrap();
        Scratch(dir)
    }

    pub fn file(&self, name: &str, bytes: &[u8]) -> String {
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

/// A file of tests/fixtures (what an independent implementation wrote), parsed.
pub fn fixture(name: &str) -> serde_json::Value {
    let path = format!("tests/fixtures/{name}");
    serde_json::from_str(&std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))).unwrap()
}
