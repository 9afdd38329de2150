//! DNS: records of one or several types, a domain's changes since the last check, and one question asked of many resolvers at once.

pub(crate) mod monitor;
pub(crate) mod propagation;
pub(crate) mod records;
