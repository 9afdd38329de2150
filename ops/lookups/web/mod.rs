//! Web pages, each fetched through the outbound layer: headers, redirects, metadata, icons, speed, accessibility, carbon and the company behind a domain.

pub(crate) mod accessibility;
pub(crate) mod carbon;
pub(crate) mod company;
pub(crate) mod favicon;
pub(crate) mod headers;
pub(crate) mod performance;
pub(crate) mod redirect_trace;
pub(crate) mod url_metadata;
