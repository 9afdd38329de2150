//! Network calculators, offline: one address in every notation and its kind (`convert.rs`),
//! address ranges and CIDR blocks converted, merged, subtracted and cut (`ranges.rs`, `sets.rs`,
//! `subnets.rs`), on the interval arithmetic of `interval.rs`.

pub(crate) mod convert;
mod interval;
pub(crate) mod ranges;
pub(crate) mod sets;
pub(crate) mod subnets;
