//! Checksums: the CRC catalogue (`crc_catalogue.rs`), the other sums (`sums.rs`, with
//! MurmurHash3 in `murmur3.rs`), and the operation that names them (`compute.rs`). They catch
//! accidents, not adversaries; `hash` is the family for that.

pub(crate) mod compute;
mod crc_catalogue;
mod murmur3;
mod sums;
