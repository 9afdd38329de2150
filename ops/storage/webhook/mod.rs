//! Webhook inboxes: a URL that records what is sent to it, with the records listed, streamed, replayed and the inbox managed.

pub(crate) mod cache;
pub(crate) mod inbox;
pub(crate) mod model;
pub(crate) mod page;
pub(crate) mod payloads;
pub(crate) mod receive;
pub(crate) mod replay;
pub(crate) mod stream;
