//! JOSE: JSON Web Signatures and Keys. `algorithm.rs` binds each JWS algorithm to the one kind
//! of key it takes, `token.rs` reads the key a token is signed or checked with (the
//! compact form is `wrench_kit::jws`'s), `jwks.rs` chooses a key from a JWK Set
//! (given or fetched); `sign.rs`, `verify.rs` and `jwk_convert.rs` are the operations. The keys
//! themselves are read and written by `security::keys`.

pub(crate) mod algorithm;
pub(crate) mod jwk_convert;
pub(crate) mod jwks;
pub(crate) mod sign;
pub(crate) mod token;
pub(crate) mod verify;
