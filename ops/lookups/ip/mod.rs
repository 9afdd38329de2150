//! IP addresses and networks: where an address is, what is known of it, CIDR ranges and autonomous systems.

pub(crate) mod asn;
pub(crate) mod intelligence;
pub(crate) mod lookup;
pub(crate) mod range;
