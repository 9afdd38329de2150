//! `password/hash`: a new password hash in any scheme wrench writes, with a fresh salt (or a
//! given one, for reproducing a known hash).

use wrench_contract::prelude::*;
use wrench_kit::byte_encoding::{self, InputEncoding};

use super::crypt64;
use super::params::{Family, Params};
use super::schemes::{self, Scheme};

/// The schemes wrench writes.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq, Deserialize, Serialize, JsonSchema, Validate)]
pub(super) enum HashAlgorithm {
    /// Argon2id (RFC 9106): the one to choose.
    #[default]
    #[serde(rename = "argon2id")]
    Argon2id,
    /// Argon2i (RFC 9106).
    #[serde(rename = "argon2i")]
    Argon2i,
    /// bcrypt, as `$2b$`.
    #[serde(rename = "bcrypt")]
    Bcrypt,
    /// scrypt (RFC 7914), as a PHC string.
    #[serde(rename = "scrypt")]
    Scrypt,
    /// PBKDF2-HMAC-SHA256 (RFC 8018), as a PHC string.
    #[serde(rename = "pbkdf2-sha256")]
    Pbkdf2Sha256,
    /// PBKDF2-HMAC-SHA512, as a PHC string.
    #[serde(rename = "pbkdf2-sha512")]
    Pbkdf2Sha512,
    /// sha512-crypt (`$6$`), what /etc/shadow held before yescrypt.
    #[serde(rename = "sha512-crypt")]
    Sha512Crypt,
    /// sha256-crypt (`$5$`).
    #[serde(rename = "sha256-crypt")]
    Sha256Crypt,
    /// md5-crypt (`$1$`): broken, for old systems only.
    #[serde(rename = "md5-crypt")]
    Md5Crypt,
    /// Apache's `$apr1$`: broken, for old htpasswd files only.
    #[serde(rename = "apr1")]
    Apr1,
}

impl HashAlgorithm {
    pub(super) fn scheme(self) -> Scheme {
        match self {
            HashAlgorithm::Argon2id => Scheme::Argon2id,
            HashAlgorithm::Argon2i => Scheme::Argon2i,
            HashAlgorithm::Bcrypt => Scheme::Bcrypt,
            HashAlgorithm::Scrypt => Scheme::Scrypt,
            HashAlgorithm::Pbkdf2Sha256 => Scheme::Pbkdf2Sha256,
            HashAlgorithm::Pbkdf2Sha512 => Scheme::Pbkdf2Sha512,
            HashAlgorithm::Sha512Crypt => Scheme::Sha512Crypt,
            HashAlgorithm::Sha256Crypt => Scheme::Sha256Crypt,
            HashAlgorithm::Md5Crypt => Scheme::Md5Crypt,
            HashAlgorithm::Apr1 => Scheme::Apr1,
        }
    }
}

/// The bytes of a salt for `scheme`: the given one checked, or a fresh random one (none for an
/// unsalted scheme).
pub(super) fn salt_for(scheme: Scheme, given: Option<Vec<u8>>) -> Result<Vec<u8>, ApiError> {
    // `{SHA}` (htpasswd -s) has none.
    if scheme == Scheme::LdapSha1 && given.is_none() {
        return Ok(Vec::new());
    }
    let crypt_chars = match scheme {
        Scheme::Sha512Crypt | Scheme::Sha256Crypt => Some(16),
        Scheme::Md5Crypt | Scheme::Apr1 => Some(8),
        _ => None,
    };
    let (min, max) = match scheme {
        Scheme::Bcrypt => (16, 16),
        _ if crypt_chars.is_some() => (1, crypt_chars.unwrap_or_default()),
        _ => (8, 64),
    };
    let Some(salt) = given else {
        let mut bytes = vec![0u8; if crypt_chars.is_some() { max } else { 16 }];
        getrandom::fill(&mut bytes).map_err(|_| ApiError::internal("the system's random source failed"))?;
        if crypt_chars.is_some() {
            // Random characters of the crypt alphabet: 6 random bits each.
            let text = crypt64::encode(&bytes);
            return Ok(text.as_bytes()[..max].to_vec());
        }
        return Ok(bytes);
    };
    if !(min..=max).contains(&salt.len()) {
        let unit = if crypt_chars.is_some() { "characters" } else { "bytes" };
        return Err(ApiError::invalid(
            "salt",
            format!("this scheme takes a salt of {min} to {max} {unit}, not {}", salt.len()),
        ));
    }
    if crypt_chars.is_some() && !salt.iter().all(|&c| crypt64::is_crypt_char(c)) {
        return Err(ApiError::invalid("salt", "a crypt salt is made of the characters ./0-9A-Za-z"));
    }
    Ok(salt)
}

/// A new hash of `password` in `scheme`, and the parameters it used.
pub(super) fn make(scheme: Scheme, password: &[u8], salt: Vec<u8>, params: Params) -> Result<String, ApiError> {
    if scheme == Scheme::Bcrypt {
        if password.len() > 72 {
            return Err(ApiError::invalid(
                "password",
                format!("bcrypt reads at most 72 bytes of a password; this one has {}", password.len()),
            ));
        }
        let salt: [u8; 16] = salt.try_into().map_err(|_| ApiError::invalid("salt", "bcrypt takes 16 bytes of salt"))?;
        let parts = bcrypt::hash_with_salt(password, params.cost.unwrap_or(12), salt)
            .map_err(|e| ApiError::internal(format!("bcrypt refused: {e}")))?;
        return Ok(parts.format_for_version(bcrypt::Version::TwoB));
    }
    schemes::check_work(scheme, params, password)?;
    let length = match scheme {
        Scheme::Pbkdf2Sha512 => 64,
        _ => 32,
    };
    let digest = schemes::derive(scheme, password, &salt, params, length);
    Ok(schemes::format(scheme, &salt, params, &digest))
}

#[derive(Debug, Deserialize, JsonSchema, Validate)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct PasswordHashInput {
    /// The password: text (its UTF-8 bytes), or bytes written as `passwordEncoding` says.
    #[schemars(length(min = 1, max = 4096))]
    password: String,
    /// How `password` carries its bytes: `utf-8` (the default), `hex`, `base64` or `base64url`.
    #[serde(default)]
    password_encoding: InputEncoding,
    /// The scheme; `argon2id` when absent.
    #[serde(default)]
    algorithm: HashAlgorithm,
    /// Cost parameters; each scheme reads its own (see the schema) and has defaults.
    #[serde(default, deserialize_with = "wrench_contract::decode::no_array")]
    params: Option<Params>,
    /// A salt to use instead of a random one, to reproduce a known hash: 8 to 64 bytes for
    /// Argon2, scrypt and PBKDF2; exactly 16 for bcrypt; up to 16 characters of `./0-9A-Za-z`
    /// for sha-crypt and 8 for md5-crypt and apr1. A salt must never be reused for a real
    /// password.
    #[serde(default)]
    #[schemars(length(min = 1, max = 128))]
    salt: Option<String>,
    /// How `salt` carries its bytes: `utf-8` (the default), `hex`, `base64` or `base64url`.
    #[serde(default)]
    salt_encoding: InputEncoding,
}

#[derive(Debug, Serialize, JsonSchema)]
struct PasswordHashOutput {
    /// The hash string, ready to store.
    hash: String,
    /// The scheme used.
    algorithm: HashAlgorithm,
    /// The parameters used, defaults included.
    params: Params,
}

/// Hash a password with Argon2, bcrypt, scrypt, PBKDF2 or a crypt scheme.
///
/// Writes a new hash of `password` in `algorithm` (Argon2id by default, with OWASP's
/// parameters: 19 MiB, 2 passes, 1 lane) with a fresh random salt: a PHC string for Argon2,
/// scrypt and PBKDF2, `$2b$` for bcrypt (cost 12 by default; passwords over 72 bytes are
/// refused rather than cut), `$6$`/`$5$` for sha-crypt, `$1$` and `$apr1$` for the old MD5
/// schemes. Parameters are capped (Argon2 64 MiB, 10 passes, 4 lanes; bcrypt 15; scrypt 2^17
/// and 128 MiB; PBKDF2 2,000,000 iterations; sha-crypt 1,000,000 rounds, and rounds times the
/// password's length 64,000,000) and the work runs on
/// the CPU pool. The password is not stored or logged.
#[op(post "/v1/password/hash" as passwordHash, tag = SecurityAndValidation, pipe(password -> hash), cpu,
     redact(".data.hash"),
     rejects = "a parameter the scheme does not take or above its cap, a salt the scheme cannot use, a password over 72 bytes for bcrypt, or sha-crypt rounds times the password's length over 64,000,000, naming the field",
     example(argon2id_default, {"password": "correct horse battery staple"}),
     example(bcrypt_cost_10, {"password": "correct horse battery staple", "algorithm": "bcrypt", "params": {"cost": 10}}),
     example(sha512_crypt_known_salt, {"password": "Hello world!", "algorithm": "sha512-crypt", "salt": "saltstring"}),
     example(scrypt_small, {"password": "hunter2", "algorithm": "scrypt", "params": {"logN": 14}}),
     example(foreign_parameter, {"password": "hunter2", "algorithm": "bcrypt", "params": {"rounds": 5000}}, status = 400))]
async fn password_hash(input: PasswordHashInput) -> Result<PasswordHashOutput, ApiError> {
    let password = byte_encoding::decode(&input.password, input.password_encoding, "password")?;
    let scheme = input.algorithm.scheme();
    let params = input.params.unwrap_or_default().effective(scheme.family(), "params")?;
    if params.version == Some(16) {
        return Err(ApiError::invalid("params.version", "new Argon2 hashes are version 19"));
    }
    let given = input.salt.as_deref().map(|s| byte_encoding::decode(s, input.salt_encoding, "salt")).transpose()?;
    let salt = salt_for(scheme, given)?;
    let hash = make(scheme, &password, salt, params)?;
    let shown = if scheme.family() == Family::Fixed { Params::default() } else { params };
    Ok(PasswordHashOutput { hash, algorithm: input.algorithm, params: shown })
}

/// password/hash's answer, for the other operations' tests.
#[cfg(test)]
pub(super) mod tests_support {
    pub(in crate::security::passwords) async fn hash(input: serde_json::Value) -> String {
        let input: super::PasswordHashInput = serde_json::from_value(input).expect("the test input reads");
        super::password_hash(input).await.unwrap().hash
    }
}
