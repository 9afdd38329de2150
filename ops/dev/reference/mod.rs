//! Reference data a developer looks up, offline: HTTP status codes (`http_status.rs`, the
//! table in `http_status_table.rs`), media types (`mime.rs`) and MAC address blocks (`mac.rs`).

pub(crate) mod http_status;
mod http_status_table;
pub(crate) mod mac;
pub(crate) mod mime;
