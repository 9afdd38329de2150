//! The operations. One folder per group, one file per topic, one `#[op]` function per
//! operation. Nothing needs registering by hand: `build.rs` lists every `#[op]` function found
//! under this folder and generates the module tree and the registry included below.

include!(concat!(env!("OUT_DIR"), "/ops.rs"));
