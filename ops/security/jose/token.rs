//! The key a JOSE operation is given. The compact form itself is read by `wrench_kit::jws`,
//! which `jwt/decode` shares.

use wrench_contract::prelude::*;
use wrench_kit::byte_encoding::{self, InputEncoding};

use crate::security::keys::{
    jwk::Meta,
    load::{self, KeyInput},
    model::Key,
};

/// The key of a JOSE operation's `key` field. Text that looks like an asymmetric key (PEM, an
/// OpenSSH line, a JWK) is read as one; any other text is an HMAC secret in `encoding`. A
/// public key therefore can never become an HMAC secret, whatever the token's `alg` says.
pub(crate) fn key_of(
    field: &str,
    input: &KeyInput,
    encoding: InputEncoding,
    passphrase: Option<&str>,
) -> Result<(Key, Meta), ApiError> {
    match input {
        KeyInput::Text(text) if !load::looks_asymmetric(text) => {
            let secret = byte_encoding::decode(text, encoding, field)?;
            if secret.is_empty() {
                return Err(ApiError::invalid(field, "the secret is empty"));
            }
            Ok((Key::Secret(secret), Meta::default()))
        }
        _ => load::read_with(field, input, passphrase.map(str::as_bytes)),
    }
}
