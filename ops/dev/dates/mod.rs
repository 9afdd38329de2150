//! Date arithmetic: the difference between two moments in calendar units and in business days
//! (`diff.rs`), and a moment moved by an ISO 8601 duration or by business days (`add.rs`).
//! Both read moments the same way (`moment.rs`) and count business days with wrench's own
//! holiday table (`business.rs`).

pub(crate) mod add;
mod business;
pub(crate) mod diff;
mod moment;
