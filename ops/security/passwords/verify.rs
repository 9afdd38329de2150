//! `password/verify`: whether a password is the one a stored hash was made from, in whatever
//! scheme the hash's prefix names, and whether the hash should be replaced.

use wrench_contract::prelude::*;
use wrench_kit::byte_encoding::{self, InputEncoding};

use super::hash::HashAlgorithm;
use super::params::Params;
use super::schemes::{self, Layout, Scheme};

#[derive(Debug, Deserialize, JsonSchema, Validate)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct PasswordVerifyInput {
    /// The password to check: text (its UTF-8 bytes), or bytes written as `passwordEncoding`
    /// says.
    #[schemars(length(min = 1, max = 4096))]
    password: String,
    /// How `password` carries its bytes: `utf-8` (the default), `hex`, `base64` or `base64url`.
    #[serde(default)]
    password_encoding: InputEncoding,
    /// The stored hash; its scheme is read from its prefix.
    #[schemars(length(min = 1, max = 1024))]
    hash: String,
    /// The scheme new hashes should use, for `needsRehash`; `argon2id` when absent.
    #[serde(default)]
    algorithm: HashAlgorithm,
    /// The parameters new hashes should use, for `needsRehash`; the scheme's defaults when
    /// absent.
    #[serde(default, deserialize_with = "wrench_contract::decode::no_array")]
    params: Option<Params>,
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct PasswordVerifyOutput {
    /// Whether the password matches the hash.
    valid: bool,
    /// The hash's scheme, read from its prefix.
    algorithm: Scheme,
    /// How the hash string is laid out.
    layout: Layout,
    /// The hash's parameters.
    params: Params,
    /// Whether the hash is not in `algorithm` with `params` (or their defaults): after a
    /// successful login, store a new hash.
    needs_rehash: bool,
}

/// Check a password against a stored hash in any common scheme.
///
/// Reads the scheme from the hash's prefix (`$argon2id$`, `$argon2i$`, `$argon2d$`,
/// `$2a$`/`$2b$`/`$2y$`, `$scrypt$`, `$7$`, `$pbkdf2-sha256$`, `$pbkdf2-sha512$`, passlib's
/// `$pbkdf2$`, Django's `pbkdf2_sha256$`, `$6$`, `$5$`, `$1$`, `$apr1$`, `{SHA}`, `{SSHA}`,
/// `{SSHA256}`, `{SSHA512}`), recomputes it for `password` and compares in constant time. A
/// wrong password is `valid: false`, not an error; a hash wrench cannot read, or whose
/// parameters pass the caps `password/hash` has, is a 400 naming `hash`. `needsRehash` says
/// whether the hash falls short of `algorithm` and `params` (Argon2id with OWASP's parameters
/// by default). bcrypt reads only the first 72 bytes of a password, as every bcrypt does.
#[op(post "/v1/password/verify" as passwordVerify, tag = SecurityAndValidation, cpu,
     rejects = "a hash in no scheme wrench reads, malformed, or with parameters above the caps, naming `hash`; a password too long for a sha-crypt hash's rounds, naming `password`",
     example(sha512_crypt, {"password": "Hello world!", "hash": "$6$saltstring$svn8UoSVapNtMuq1ukKS4tPQd8iKwSMHWjl/O817G3uBnIFNjnQJuesI68u4OTLiBFdcbYEdFCoEOfaS35inz1"}),
     example(apr1_wrong_password, {"password": "not it", "hash": "$apr1$r31.....$HqJZimcKQFAMYayBlzkrA/"}),
     example(argon2id_current, {"password": "password", "hash": "$argon2id$v=19$m=19456,t=2,p=1$c29tZXNhbHRzb21lc2FsdA$K13EBUiG7JV+9ZxztmHFTdb7J0WQsnj2V8bZaqyPptE"}),
     example(yescrypt, {"password": "x", "hash": "$y$j9T$salt$hash"}, status = 400))]
async fn password_verify(input: PasswordVerifyInput) -> Result<PasswordVerifyOutput, ApiError> {
    let password = byte_encoding::decode(&input.password, input.password_encoding, "password")?;
    let parsed = schemes::parse(&input.hash)?;
    let target = input.algorithm.scheme();
    let wanted = input.params.unwrap_or_default().effective(target.family(), "params")?;
    let valid = schemes::verify(&password, &parsed)?;
    Ok(PasswordVerifyOutput {
        valid,
        algorithm: parsed.scheme,
        layout: parsed.layout,
        params: parsed.params,
        needs_rehash: parsed.scheme != target || parsed.params != wanted,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Passwords that are not UTF-8 (tests/fixtures/password_bytes.py): bcrypt, argon2-cffi,
    /// passlib and hashlib hashed their bytes; wrench, given the same bytes in hex, writes the
    /// same strings from the same salts and accepts them, and refuses the same password sent as
    /// text (whose UTF-8 bytes differ).
    #[tokio::test]
    async fn passwords_that_are_not_utf8_keep_their_bytes() {
        let cases = crate::testing::fixture("password_bytes.json");
        for case in cases.as_array().unwrap() {
            let hash = case["hash"].as_str().unwrap();
            let mut input = json!({"password": case["password"], "passwordEncoding": "hex", "algorithm": case["scheme"],
                "salt": case["salt"], "saltEncoding": case["saltEncoding"]});
            if let Some(p) = case.get("params") {
                input["params"] = p.clone();
            }
            let made = super::super::hash::tests_support::hash(input).await;
            // bcrypt's last salt character carries two spare bits some writers set.
            let comparable = |h: &str| if case["scheme"] == "bcrypt" { h[29..].to_string() } else { h.to_string() };
            assert_eq!(comparable(&made), comparable(hash), "{hash}");
            let verify = |password: String, encoding: &str| {
                serde_json::from_value::<PasswordVerifyInput>(
                    json!({"password": password, "passwordEncoding": encoding, "hash": hash}),
                )
                .unwrap()
            };
            assert!(
                password_verify(verify(case["password"].as_str().unwrap().into(), "hex")).await.unwrap().valid,
                "{hash}"
            );
            let bytes = ::hex::decode(case["password"].as_str().unwrap()).unwrap();
            let as_text: String = bytes.iter().map(|b| char::from(*b)).collect();
            assert!(
                !password_verify(verify(as_text, "utf-8")).await.unwrap().valid,
                "{hash} took the password as text"
            );
        }
    }
}
