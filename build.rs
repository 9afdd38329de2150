//! Tests that need Redis run when WRENCH_TEST_REDIS_URL is set, and are reported as ignored,
//! with the reason, when it is not: never as passes that tested nothing.
//!
//! The binaries are linked with packed relative relocations (`DT_RELR`) on GNU/Linux: the
//! position-independent binary carries about 110,000 relative relocations, 24 bytes each in
//! the classic format (2.7 MB of the file), all read by the loader at every start; packed they
//! take a few kilobytes (BENCHMARKS.md, "Fifth round"). A linker or C library too old for the
//! format leaves the classic table in place (GNU ld adds `DT_RELR` only when the C library it
//! links against supports it), so the binary runs wherever it was built.

fn main() {
    println!("cargo:rustc-check-cfg=cfg(wrench_test_redis)");
    println!("cargo:rerun-if-env-changed=WRENCH_TEST_REDIS_URL");
    if std::env::var_os("WRENCH_TEST_REDIS_URL").is_some_and(|v| !v.is_empty()) {
        println!("cargo:rustc-cfg=wrench_test_redis");
    }
    let target = |key: &str| std::env::var(key).unwrap_or_default();
    if target("CARGO_CFG_TARGET_OS") == "linux" && target("CARGO_CFG_TARGET_ENV") == "gnu" {
        println!("cargo:rustc-link-arg-bins=-Wl,-z,pack-relative-relocs");
    }
}
