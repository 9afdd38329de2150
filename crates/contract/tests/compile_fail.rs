//! Declarations that must not compile, with the exact messages they give (`tests/ui/*.stderr`).
//!
//! A mistake in an `#[op]` declaration is reported at the mistake, every mistake at once, with
//! no cascade of errors in generated code. Bless changed messages with
//! `TRYBUILD=overwrite cargo test -p wrench-contract --test compile_fail` and read the diff.

#[test]
fn malformed_declarations_give_one_message_per_mistake() {
    trybuild::TestCases::new().compile_fail("tests/ui/*.rs");
}
