//! What the storage features share: the fields of update requests, and following a stored log as a stream.

pub(crate) mod fields;
pub(crate) mod log_stream;
