//! Keys as wrench reads and writes them. `model.rs` is the one model of RSA, elliptic-curve,
//! Ed25519 and X25519 keys and secrets; `der.rs` and `pem.rs` read and write the DER
//! structures and their armour, `jwk.rs` JSON Web Keys and thumbprints, `ssh.rs` OpenSSH
//! public keys, `openssh_private.rs` and `pkcs8_sealed.rs` private keys in OpenSSH's format
//! and encrypted PKCS#8; `load.rs` takes a key however a caller pastes it. `generate.rs`,
//! `inspect.rs` and `key_match.rs` are the operations on keys alone. JOSE, certificates and the
//! key operations all go through here, so a key reads the same everywhere.

pub(crate) mod der;
pub(crate) mod generate;
pub(crate) mod inspect;
pub(crate) mod jwk;
pub(crate) mod key_match;
pub(crate) mod load;
pub(crate) mod model;
pub(crate) mod openssh_private;
pub(crate) mod pem;
pub(crate) mod pkcs8_sealed;
pub(crate) mod ssh;
