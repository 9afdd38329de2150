//! Short links: a slug that redirects to a URL, managed with a token, with clicks counted, visits kept and streamed.

pub(crate) mod links;
pub(crate) mod manage;
pub(crate) mod model;
pub(crate) mod page;
pub(crate) mod stats;
pub(crate) mod stream;
pub(crate) mod visit_queue;
pub(crate) mod visits;
