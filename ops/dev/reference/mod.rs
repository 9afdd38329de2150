//! Reference data a developer looks up, offline: HTTP status codes (`http_status.rs`, the
//! table in `http_status_table.rs`), media types (`mime.rs`), MAC address blocks (`mac.rs`),
//! and the type of a file told by its magic numbers (`file_type.rs`).

pub(crate) mod file_type;
pub(crate) mod http_status;
mod http_status_table;
pub(crate) mod mac;
pub(crate) mod mime;
