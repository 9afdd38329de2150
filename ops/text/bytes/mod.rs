//! Bytes examined: how random they look (`entropy.rs`: Shannon entropy, frequencies,
//! chi-square, index of coincidence) and the readable text inside them (`strings.rs`, as GNU
//! `strings` finds it).

pub(crate) mod entropy;
pub(crate) mod strings;
