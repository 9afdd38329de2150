//! Storage: pastes, short links and webhook inboxes, on the configured store.
//!
//! Every file here is declared below; the build fails naming a file that is not.

mod inbox_cache;
mod log_stream;
pub(crate) mod paste;
pub(crate) mod paste_read;
pub(crate) mod short_url;
pub(crate) mod short_url_manage;
pub(crate) mod short_url_stats;
pub(crate) mod short_url_stream;
mod short_url_visits;
mod tokens;
pub(crate) mod webhook_inbox;
pub(crate) mod webhook_payloads;
pub(crate) mod webhook_receive;
pub(crate) mod webhook_replay;
pub(crate) mod webhook_stream;
