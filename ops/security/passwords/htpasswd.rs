//! `htpasswd/generate`: a line for an Apache or nginx password file, in a scheme both servers
//! read.

use wrench_contract::prelude::*;

use super::hash::{make, salt_for};
use super::params::Params;
use super::schemes::Scheme;

#[derive(Debug, Default, Clone, Copy, PartialEq, Eq, Deserialize, Serialize, JsonSchema, Validate)]
enum HtpasswdAlgorithm {
    /// bcrypt as Apache writes it (`$2y$`, `htpasswd -B`).
    #[default]
    #[serde(rename = "bcrypt")]
    Bcrypt,
    /// Apache's MD5 scheme (`$apr1$`, `htpasswd -m`); broken, for old servers.
    #[serde(rename = "apr1")]
    Apr1,
    /// Unsalted SHA-1 (`{SHA}`, `htpasswd -s`); broken, for old servers.
    #[serde(rename = "sha1")]
    Sha1,
    /// sha512-crypt (`$6$`, `htpasswd -5`), read through the system's crypt.
    #[serde(rename = "sha512-crypt")]
    Sha512Crypt,
    /// sha256-crypt (`$5$`, `htpasswd -2`).
    #[serde(rename = "sha256-crypt")]
    Sha256Crypt,
}

#[derive(Debug, Deserialize, JsonSchema, Validate)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct HtpasswdInput {
    /// The user name: no colon and no line break.
    #[schemars(length(min = 1, max = 255), regex(pattern = r"^[^:\r\n]+$"))]
    username: String,
    /// The password (bcrypt reads at most 72 bytes and refuses more).
    #[schemars(length(min = 1, max = 4096))]
    password: String,
    /// The scheme: `bcrypt` by default.
    #[serde(default)]
    algorithm: HtpasswdAlgorithm,
    /// bcrypt's cost (4 to 15; default 10, which Apache checks on every request in about 60 ms
    /// of a core).
    #[serde(default)]
    #[schemars(range(min = 4, max = 15))]
    cost: Option<u32>,
}

#[derive(Debug, Serialize, JsonSchema)]
struct HtpasswdOutput {
    /// `username:hash`, one line of the file.
    line: String,
    /// The hash alone.
    hash: String,
    /// The scheme used.
    algorithm: HtpasswdAlgorithm,
}

/// Make a line for an htpasswd file (bcrypt, apr1, SHA-1 or sha-crypt).
///
/// Writes `username:hash` as Apache's `htpasswd -nb` does: bcrypt as `$2y$` (cost 10 unless
/// `cost` says otherwise), `$apr1$`, `{SHA}`, `$6$` or `$5$`, each with a fresh random salt
/// where the scheme has one. Apache and nginx read all five. The password is not stored or
/// logged.
#[op(post "/v1/htpasswd/generate" as htpasswdGenerate, tag = SecurityAndValidation, cpu,
     redact(".data.line", ".data.hash"),
     rejects = "a bcrypt password over 72 bytes, or `cost` with another scheme",
     example(bcrypt, {"username": "admin", "password": "correct horse battery staple"}),
     example(apr1, {"username": "admin", "password": "correct horse battery staple", "algorithm": "apr1"}),
     example(colon_in_name, {"username": "ad:min", "password": "x"}, status = 400))]
async fn htpasswd_generate(input: HtpasswdInput) -> Result<HtpasswdOutput, ApiError> {
    let password = input.password.as_bytes();
    if input.cost.is_some() && input.algorithm != HtpasswdAlgorithm::Bcrypt {
        return Err(ApiError::invalid("cost", "only bcrypt takes a cost"));
    }
    let scheme = match input.algorithm {
        HtpasswdAlgorithm::Bcrypt => Scheme::Bcrypt,
        HtpasswdAlgorithm::Apr1 => Scheme::Apr1,
        HtpasswdAlgorithm::Sha1 => Scheme::LdapSha1,
        HtpasswdAlgorithm::Sha512Crypt => Scheme::Sha512Crypt,
        HtpasswdAlgorithm::Sha256Crypt => Scheme::Sha256Crypt,
    };
    let params = match scheme {
        Scheme::Bcrypt => Params { cost: Some(input.cost.unwrap_or(10)), ..Params::default() },
        _ => Params::default().effective(scheme.family(), "params")?,
    };
    let hash = make(scheme, password, salt_for(scheme, None)?, params)?;
    // Apache writes and reads `$2y$`, the same function as `$2b$`.
    let hash = if scheme == Scheme::Bcrypt { hash.replacen("$2b$", "$2y$", 1) } else { hash };
    Ok(HtpasswdOutput { line: format!("{}:{hash}", input.username), hash, algorithm: input.algorithm })
}
