//! Indicators (of compromise, and of anything else a log or report names): URLs, e-mail
//! addresses, domains, IP and MAC addresses, hashes and CVE names found in text (`scan.rs`),
//! listed by kind (`extract.rs`), and written so they cannot be followed or clicked, or back
//! (`fang.rs`).

pub(crate) mod extract;
pub(crate) mod fang;
pub(crate) mod scan;
