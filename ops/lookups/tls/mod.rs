//! TLS: a host's HTTPS support, its certificate's expiry, and the caller's own TLS fingerprint.

pub(crate) mod cert;
pub(crate) mod fingerprint;
pub(crate) mod ssl;
