//! Tests that need Redis run when WRENCH_TEST_REDIS_URL is set, and are reported as ignored,
//! with the reason, when it is not: never as passes that tested nothing.

fn main() {
    println!("cargo:rustc-check-cfg=cfg(wrench_test_redis)");
    println!("cargo:rerun-if-env-changed=WRENCH_TEST_REDIS_URL");
    if std::env::var_os("WRENCH_TEST_REDIS_URL").is_some_and(|v| !v.is_empty()) {
        println!("cargo:rustc-cfg=wrench_test_redis");
    }
}
