//! Every password-hash format wrench reads, and the ones it writes: how each string is laid out,
//! how its digest is computed, and how it is told apart from the others by its prefix.
//!
//! Written: PHC strings for Argon2 (`$argon2id$v=19$m=…,t=…,p=…$salt$hash`), scrypt
//! (`$scrypt$ln=…,r=…,p=…$salt$hash`, passlib's layout) and PBKDF2 (`$pbkdf2-sha256$i=…,l=32$…`,
//! the RustCrypto layout); bcrypt's `$2b$`; the crypt schemes `$6$`, `$5$`, `$1$` and `$apr1$`.
//! Read besides: `$argon2i$`/`$argon2d$` of either version, `$2a$`/`$2y$`/`$2x$`, scrypt's
//! crypt form `$7$` (libxcrypt, `mkpasswd -m scrypt`), passlib's `$pbkdf2-sha256$29000$…` and
//! `$pbkdf2$`, Django's `pbkdf2_sha256$…`, and the LDAP forms `{SHA}`, `{SSHA}`, `{SSHA256}`,
//! `{SSHA512}`.

use base64::Engine;
use base64::engine::general_purpose::{STANDARD, STANDARD_NO_PAD};
use sha2::Digest;

use wrench_contract::prelude::*;

use super::params::{Family, Params};
use super::{crypt64, md5_crypt};

/// Every scheme a hash may be in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, JsonSchema)]
pub(super) enum Scheme {
    #[serde(rename = "argon2id")]
    Argon2id,
    #[serde(rename = "argon2i")]
    Argon2i,
    #[serde(rename = "argon2d")]
    Argon2d,
    #[serde(rename = "bcrypt")]
    Bcrypt,
    #[serde(rename = "scrypt")]
    Scrypt,
    #[serde(rename = "pbkdf2-sha1")]
    Pbkdf2Sha1,
    #[serde(rename = "pbkdf2-sha256")]
    Pbkdf2Sha256,
    #[serde(rename = "pbkdf2-sha512")]
    Pbkdf2Sha512,
    #[serde(rename = "sha512-crypt")]
    Sha512Crypt,
    #[serde(rename = "sha256-crypt")]
    Sha256Crypt,
    #[serde(rename = "md5-crypt")]
    Md5Crypt,
    #[serde(rename = "apr1")]
    Apr1,
    /// `{SHA}`: SHA-1 of the password, unsalted (htpasswd -s, LDAP).
    #[serde(rename = "ldap-sha1")]
    LdapSha1,
    /// `{SSHA}`: salted SHA-1 (LDAP).
    #[serde(rename = "ldap-salted-sha1")]
    LdapSaltedSha1,
    /// `{SSHA256}`.
    #[serde(rename = "ldap-salted-sha256")]
    LdapSaltedSha256,
    /// `{SSHA512}`.
    #[serde(rename = "ldap-salted-sha512")]
    LdapSaltedSha512,
}

/// How a hash string lays itself out; verifying writes nothing, but the answer says which.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub(super) enum Layout {
    /// The PHC string format (`$id$v=…$params$salt$hash`).
    Phc,
    /// Modular crypt format (`$1$`, `$5$`, `$6$`, `$7$`, `$apr1$`, `$2b$`).
    Crypt,
    /// passlib's PBKDF2 strings (`$pbkdf2-sha256$29000$…`).
    Passlib,
    /// Django's (`pbkdf2_sha256$iterations$salt$hash`).
    Django,
    /// LDAP's (`{SSHA}…`).
    Ldap,
}

impl Scheme {
    pub(super) fn family(self) -> Family {
        match self {
            Scheme::Argon2id | Scheme::Argon2i | Scheme::Argon2d => Family::Argon2,
            Scheme::Bcrypt => Family::Bcrypt,
            Scheme::Scrypt => Family::Scrypt,
            Scheme::Pbkdf2Sha1 => Family::Pbkdf2 { default_iterations: 1_300_000 },
            Scheme::Pbkdf2Sha256 => Family::Pbkdf2 { default_iterations: 600_000 },
            Scheme::Pbkdf2Sha512 => Family::Pbkdf2 { default_iterations: 210_000 },
            Scheme::Sha512Crypt | Scheme::Sha256Crypt => Family::ShaCrypt,
            _ => Family::Fixed,
        }
    }
}

/// A hash string taken apart.
pub(super) struct Parsed {
    pub scheme: Scheme,
    pub layout: Layout,
    pub params: Params,
    /// The salt as the scheme feeds it to its function (crypt salts are their characters).
    pub salt: Vec<u8>,
    /// The digest to compare with; for bcrypt, the whole string (the crate compares).
    pub digest: Vec<u8>,
}

fn bad(why: impl Into<String>) -> ApiError {
    ApiError::invalid("hash", why.into())
}

/// Standard Base64 with or without padding, or passlib's variant with `.` for `+`.
fn b64(text: &str, what: &str) -> Result<Vec<u8>, ApiError> {
    let text = text.replace('.', "+");
    STANDARD_NO_PAD.decode(text.trim_end_matches('=')).map_err(|_| bad(format!("its {what} is not Base64")))
}

fn number<T: std::str::FromStr>(text: &str, what: &str) -> Result<T, ApiError> {
    text.parse().map_err(|_| bad(format!("its {what} is not a number: {text:?}")))
}

/// A hash whose parameters pass the caps is refused as a whole: the caller gave `hash`.
fn past_caps(e: ApiError) -> ApiError {
    bad(format!("asks for more than wrench computes ({})", e.message))
}

/// The longest salt and digest a hash may carry: far beyond any scheme's, short of waste.
const MAX_PART: usize = 256;

/// Refuses a salt or digest shorter than its scheme can use, or longer than [`MAX_PART`].
fn sizes(salt: &[u8], min_salt: usize, digest: &[u8], min_digest: usize) -> Result<(), ApiError> {
    if salt.len() < min_salt || salt.len() > MAX_PART {
        return Err(bad(format!("has a salt of {} bytes; this scheme takes {min_salt} to {MAX_PART}", salt.len())));
    }
    if digest.len() < min_digest || digest.len() > MAX_PART {
        return Err(bad(format!(
            "has a digest of {} bytes; this scheme gives {min_digest} to {MAX_PART}",
            digest.len()
        )));
    }
    Ok(())
}

/// PBKDF2 repeats all its iterations for every block of output: a hash that asks for a long
/// digest at the iteration cap would cost many times one, so digests are held to 64 bytes
/// (SHA-512's length, and more than any writer uses).
fn pbkdf2_digest(digest: &[u8]) -> Result<(), ApiError> {
    if digest.len() > 64 {
        return Err(bad(format!("has a PBKDF2 digest of {} bytes; wrench reads up to 64", digest.len())));
    }
    Ok(())
}

/// `k=v,k=v` parameters of a PHC string, in any order.
fn phc_params<'a>(text: &'a str) -> impl Iterator<Item = (&'a str, &'a str)> + 'a {
    text.split(',').filter_map(|kv| kv.split_once('='))
}

/// Reads `hash`: its scheme from the prefix, then its fields. Anything else is a 400 naming
/// `hash` and what was expected.
pub(super) fn parse(hash: &str) -> Result<Parsed, ApiError> {
    let hash = hash.trim();
    if let Some(rest) = hash.strip_prefix('{') {
        return ldap(rest);
    }
    if let Some(rest) = hash.strip_prefix("pbkdf2_sha256$") {
        return django(rest, Scheme::Pbkdf2Sha256);
    }
    if let Some(rest) = hash.strip_prefix("pbkdf2_sha1$") {
        return django(rest, Scheme::Pbkdf2Sha1);
    }
    let fields: Vec<&str> = hash.split('$').collect();
    if fields.len() < 3 || !fields[0].is_empty() {
        return Err(bad(
            "is not a password hash wrench reads: it reads $argon2id$, $argon2i$, $argon2d$, $2a$/$2b$/$2y$, $scrypt$, $7$, $pbkdf2-sha256$, $pbkdf2-sha512$, $pbkdf2$, pbkdf2_sha256$, $6$, $5$, $1$, $apr1$, {SHA}, {SSHA}, {SSHA256} and {SSHA512}",
        ));
    }
    match fields[1] {
        "argon2id" => argon2(&fields[2..], Scheme::Argon2id),
        "argon2i" => argon2(&fields[2..], Scheme::Argon2i),
        "argon2d" => argon2(&fields[2..], Scheme::Argon2d),
        "2a" | "2b" | "2y" | "2x" => bcrypt(hash, fields[2]),
        "scrypt" => scrypt_phc(&fields[2..]),
        "7" => scrypt_crypt(hash),
        "pbkdf2-sha256" => pbkdf2(&fields[2..], Scheme::Pbkdf2Sha256),
        "pbkdf2-sha512" => pbkdf2(&fields[2..], Scheme::Pbkdf2Sha512),
        "pbkdf2" | "pbkdf2-sha1" => pbkdf2(&fields[2..], Scheme::Pbkdf2Sha1),
        "6" => sha_crypt(&fields[2..], Scheme::Sha512Crypt),
        "5" => sha_crypt(&fields[2..], Scheme::Sha256Crypt),
        "1" => md5(&fields[2..], Scheme::Md5Crypt),
        "apr1" => md5(&fields[2..], Scheme::Apr1),
        "y" | "gy" => Err(bad("is a yescrypt hash ($y$), which wrench does not verify yet")),
        other => Err(bad(format!("has the prefix ${other}$, which is no scheme wrench reads"))),
    }
}

fn argon2(fields: &[&str], scheme: Scheme) -> Result<Parsed, ApiError> {
    let (version, rest) = match fields.first().and_then(|f| f.strip_prefix("v=")) {
        Some(v) => (number::<u32>(v, "version")?, &fields[1..]),
        None => (16, fields),
    };
    let [params, salt, digest] = rest else {
        return Err(bad("is not an Argon2 PHC string: $argon2id$v=19$m=…,t=…,p=…$salt$hash"));
    };
    let mut p = Params { version: Some(version), ..Params::default() };
    for (k, v) in phc_params(params) {
        match k {
            "m" => p.memory_kib = Some(number(v, "m")?),
            "t" => p.iterations = Some(number(v, "t")?),
            "p" => p.parallelism = Some(number(v, "p")?),
            _ => return Err(bad(format!("has the Argon2 parameter {k}, which wrench does not read"))),
        }
    }
    if p.memory_kib.is_none() || p.iterations.is_none() || p.parallelism.is_none() {
        return Err(bad("lacks one of Argon2's m, t and p"));
    }
    let params = p.effective(Family::Argon2, "hash").map_err(past_caps)?;
    let (salt, digest) = (b64(salt, "salt")?, b64(digest, "digest")?);
    sizes(&salt, 8, &digest, 4)?;
    Ok(Parsed { scheme, layout: Layout::Phc, params, salt, digest })
}

fn bcrypt(hash: &str, cost: &str) -> Result<Parsed, ApiError> {
    if hash.len() != 60 {
        return Err(bad("is not a bcrypt hash: those are 60 characters, $2b$12$ then 53"));
    }
    let params = Params { cost: Some(number(cost, "cost")?), ..Params::default() }
        .effective(Family::Bcrypt, "hash")
        .map_err(past_caps)?;
    Ok(Parsed {
        scheme: Scheme::Bcrypt,
        layout: Layout::Crypt,
        params,
        salt: Vec::new(),
        digest: hash.as_bytes().to_vec(),
    })
}

fn scrypt_phc(fields: &[&str]) -> Result<Parsed, ApiError> {
    let [params, salt, digest] = fields else {
        return Err(bad("is not a scrypt PHC string: $scrypt$ln=…,r=…,p=…$salt$hash"));
    };
    let mut p = Params::default();
    for (k, v) in phc_params(params) {
        match k {
            "ln" => p.log_n = Some(number(v, "ln")?),
            "r" => p.block_size = Some(number(v, "r")?),
            "p" => p.parallelism = Some(number(v, "p")?),
            _ => return Err(bad(format!("has the scrypt parameter {k}, which wrench does not read"))),
        }
    }
    let params = p.effective(Family::Scrypt, "hash").map_err(past_caps)?;
    let (salt, digest) = (b64(salt, "salt")?, b64(digest, "digest")?);
    sizes(&salt, 0, &digest, 1)?;
    Ok(Parsed { scheme: Scheme::Scrypt, layout: Layout::Phc, params, salt, digest })
}

/// `$7$` + N (one character, log2) + r and p (five characters each, little-endian) + the salt
/// (its characters are the salt) + `$` + the digest.
fn scrypt_crypt(hash: &str) -> Result<Parsed, ApiError> {
    let body = &hash[3..];
    let (head, digest) = body.rsplit_once('$').ok_or_else(|| bad("is not a $7$ scrypt hash"))?;
    if head.len() < 11 || !head.is_ascii() {
        return Err(bad("is not a $7$ scrypt hash: its parameters are cut short"));
    }
    let read = |s: &str| crypt64::decode_number(s).ok_or_else(|| bad("has $7$ parameters outside the crypt alphabet"));
    let log_n = u8::try_from(read(&head[..1])?).map_err(|_| bad("has an impossible N"))?;
    let r = u32::try_from(read(&head[1..6])?).map_err(|_| bad("has an impossible r"))?;
    let p = u32::try_from(read(&head[6..11])?).map_err(|_| bad("has an impossible p"))?;
    let params = Params { log_n: Some(log_n), block_size: Some(r), parallelism: Some(p), ..Params::default() }
        .effective(Family::Scrypt, "hash")
        .map_err(past_caps)?;
    let digest = crypt64::decode(digest).ok_or_else(|| bad("has a $7$ digest outside the crypt alphabet"))?;
    sizes(&head.as_bytes()[11..], 0, &digest, 1)?;
    Ok(Parsed { scheme: Scheme::Scrypt, layout: Layout::Crypt, params, salt: head.as_bytes()[11..].to_vec(), digest })
}

fn pbkdf2(fields: &[&str], scheme: Scheme) -> Result<Parsed, ApiError> {
    let [params, salt, digest] = fields else {
        return Err(bad("is not a PBKDF2 string: $pbkdf2-sha256$i=…,l=…$salt$hash or $pbkdf2-sha256$rounds$salt$hash"));
    };
    let (iterations, layout) = if params.bytes().all(|b| b.is_ascii_digit()) {
        (number(params, "rounds")?, Layout::Passlib)
    } else {
        let mut i = None;
        for (k, v) in phc_params(params) {
            match k {
                "i" => i = Some(number(v, "i")?),
                "l" => {}
                _ => return Err(bad(format!("has the PBKDF2 parameter {k}, which wrench does not read"))),
            }
        }
        (i.ok_or_else(|| bad("lacks PBKDF2's i"))?, Layout::Phc)
    };
    let params = Params { iterations: Some(iterations), ..Params::default() }
        .effective(scheme.family(), "hash")
        .map_err(past_caps)?;
    let (salt, digest) = (b64(salt, "salt")?, b64(digest, "digest")?);
    sizes(&salt, 0, &digest, 1)?;
    pbkdf2_digest(&digest)?;
    Ok(Parsed { scheme, layout, params, salt, digest })
}

fn django(rest: &str, scheme: Scheme) -> Result<Parsed, ApiError> {
    let [iterations, salt, digest] = rest.split('$').collect::<Vec<_>>()[..] else {
        return Err(bad("is not a Django PBKDF2 hash: pbkdf2_sha256$iterations$salt$hash"));
    };
    let params = Params { iterations: Some(number(iterations, "iterations")?), ..Params::default() }
        .effective(scheme.family(), "hash")
        .map_err(past_caps)?;
    let digest = STANDARD.decode(digest).map_err(|_| bad("its digest is not Base64"))?;
    sizes(salt.as_bytes(), 0, &digest, 1)?;
    pbkdf2_digest(&digest)?;
    Ok(Parsed { scheme, layout: Layout::Django, params, salt: salt.as_bytes().to_vec(), digest })
}

fn sha_crypt(fields: &[&str], scheme: Scheme) -> Result<Parsed, ApiError> {
    let (rounds, rest) = match fields.first().and_then(|f| f.strip_prefix("rounds=")) {
        Some(n) => (Some(number::<u32>(n, "rounds")?), &fields[1..]),
        None => (None, fields),
    };
    let [salt, digest] = rest else {
        return Err(bad("is not a sha-crypt hash: $6$[rounds=N$]salt$hash"));
    };
    // The schemes clamp rounds into 1,000..999,999,999; wrench caps them lower.
    let rounds = rounds.map(|n| n.max(1_000));
    let params = Params { rounds: rounds.or(Some(5_000)), ..Params::default() }
        .effective(Family::ShaCrypt, "hash")
        .map_err(past_caps)?;
    let salt = &salt.as_bytes()[..salt.len().min(16)];
    let digest = crypt64::decode(digest).ok_or_else(|| bad("has a digest outside the crypt alphabet"))?;
    Ok(Parsed { scheme, layout: Layout::Crypt, params, salt: salt.to_vec(), digest })
}

fn md5(fields: &[&str], scheme: Scheme) -> Result<Parsed, ApiError> {
    let [salt, digest] = fields else {
        return Err(bad("is not an md5-crypt hash: $1$salt$hash"));
    };
    let salt = &salt.as_bytes()[..salt.len().min(8)];
    Ok(Parsed {
        scheme,
        layout: Layout::Crypt,
        params: Params::default(),
        salt: salt.to_vec(),
        digest: digest.as_bytes().to_vec(),
    })
}

fn ldap(rest: &str) -> Result<Parsed, ApiError> {
    let (tag, body) = rest.split_once('}').ok_or_else(|| bad("is not an LDAP hash: {SSHA}…"))?;
    let (scheme, digest_len) = match tag.to_ascii_uppercase().as_str() {
        "SHA" => (Scheme::LdapSha1, 20),
        "SSHA" => (Scheme::LdapSaltedSha1, 20),
        "SSHA256" => (Scheme::LdapSaltedSha256, 32),
        "SSHA512" => (Scheme::LdapSaltedSha512, 64),
        other => return Err(bad(format!("has the LDAP scheme {{{other}}}, which wrench does not read"))),
    };
    let bytes = STANDARD.decode(body).map_err(|_| bad("its LDAP digest is not Base64"))?;
    if bytes.len() < digest_len || (scheme == Scheme::LdapSha1 && bytes.len() != digest_len) {
        return Err(bad("its LDAP digest has the wrong length"));
    }
    let (digest, salt) = bytes.split_at(digest_len);
    Ok(Parsed { scheme, layout: Layout::Ldap, params: Params::default(), salt: salt.to_vec(), digest: digest.to_vec() })
}

/// The digest `scheme` computes for `password` with `salt` and `params` (already checked),
/// `length` bytes long where the scheme lets it vary.
pub(super) fn derive(scheme: Scheme, password: &[u8], salt: &[u8], params: Params, length: usize) -> Vec<u8> {
    match scheme {
        Scheme::Argon2id | Scheme::Argon2i | Scheme::Argon2d => {
            let algorithm = match scheme {
                Scheme::Argon2id => argon2::Algorithm::Argon2id,
                Scheme::Argon2i => argon2::Algorithm::Argon2i,
                _ => argon2::Algorithm::Argon2d,
            };
            let version = if params.version == Some(16) { argon2::Version::V0x10 } else { argon2::Version::V0x13 };
            let p = argon2::Params::new(
                params.memory_kib.unwrap_or_default(),
                params.iterations.unwrap_or_default(),
                params.parallelism.unwrap_or_default(),
                Some(length),
            )
            .expect("checked by Params::effective");
            let mut out = vec![0; length];
            argon2::Argon2::new(algorithm, version, p)
                .hash_password_into(password, salt, &mut out)
                .expect("salt and length checked before");
            out
        }
        Scheme::Scrypt => {
            let p = scrypt::Params::new(
                params.log_n.unwrap_or_default(),
                params.block_size.unwrap_or_default(),
                params.parallelism.unwrap_or_default(),
            )
            .expect("checked by Params::effective");
            let mut out = vec![0; length];
            scrypt::scrypt(password, salt, &p, &mut out).expect("the length is checked before");
            out
        }
        Scheme::Pbkdf2Sha1 | Scheme::Pbkdf2Sha256 | Scheme::Pbkdf2Sha512 => {
            let n = params.iterations.unwrap_or_default();
            let mut out = vec![0; length];
            match scheme {
                Scheme::Pbkdf2Sha1 => pbkdf2::pbkdf2_hmac::<sha1::Sha1>(password, salt, n, &mut out),
                Scheme::Pbkdf2Sha256 => pbkdf2::pbkdf2_hmac::<sha2::Sha256>(password, salt, n, &mut out),
                _ => pbkdf2::pbkdf2_hmac::<sha2::Sha512>(password, salt, n, &mut out),
            }
            out
        }
        Scheme::Sha512Crypt | Scheme::Sha256Crypt => {
            let p = sha_crypt::Params::new(params.rounds.unwrap_or(5_000)).expect("checked by Params::effective");
            if scheme == Scheme::Sha512Crypt {
                let raw = sha_crypt::sha512_crypt(password, salt, p);
                SHA512_ORDER.iter().map(|&i| raw[i]).collect()
            } else {
                let raw = sha_crypt::sha256_crypt(password, salt, p);
                SHA256_ORDER.iter().map(|&i| raw[i]).collect()
            }
        }
        Scheme::Md5Crypt => md5_crypt::digest(password, salt, "$1$").into_bytes(),
        Scheme::Apr1 => md5_crypt::digest(password, salt, "$apr1$").into_bytes(),
        Scheme::LdapSha1 => sha1::Sha1::digest(password).to_vec(),
        Scheme::LdapSaltedSha1 => sha1::Sha1::new().chain_update(password).chain_update(salt).finalize().to_vec(),
        Scheme::LdapSaltedSha256 => sha2::Sha256::new().chain_update(password).chain_update(salt).finalize().to_vec(),
        Scheme::LdapSaltedSha512 => sha2::Sha512::new().chain_update(password).chain_update(salt).finalize().to_vec(),
        Scheme::Bcrypt => unreachable!("bcrypt is hashed and verified whole by its crate"),
    }
}

// The order in which sha256-crypt and sha512-crypt write their digest's bytes (Ulrich
// Drepper's specification, "Unix crypt using SHA-256 and SHA-512", steps 22e), so that three
// bytes at a time, little-endian, give the characters the specification lists.
const SHA256_ORDER: [usize; 32] = [
    20, 10, 0, 11, 1, 21, 2, 22, 12, 23, 13, 3, 14, 4, 24, 5, 25, 15, 26, 16, 6, 17, 7, 27, 8, 28, 18, 29, 19, 9, 30,
    31,
];
const SHA512_ORDER: [usize; 64] = [
    42, 21, 0, 1, 43, 22, 23, 2, 44, 45, 24, 3, 4, 46, 25, 26, 5, 47, 48, 27, 6, 7, 49, 28, 29, 8, 50, 51, 30, 9, 10,
    52, 31, 32, 11, 53, 54, 33, 12, 13, 55, 34, 35, 14, 56, 57, 36, 15, 16, 58, 37, 38, 17, 59, 60, 39, 18, 19, 61, 40,
    41, 20, 62, 63,
];

/// The most byte-rounds one sha-crypt computation may take: sha256-crypt and sha512-crypt
/// hash the whole password again in every round, so their cost is rounds times the password's
/// length (a 4,096-byte password at 1,000,000 rounds took 21 s of a core). 64,000,000 is the
/// round cap with a 64-byte password, about half a second; 5,000 rounds leave room for any
/// password the operations admit.
pub(super) const SHA_CRYPT_WORK: u64 = 64_000_000;

/// Refuses a sha-crypt computation of `password` at `params` past [`SHA_CRYPT_WORK`], naming
/// `password`; the other schemes read the password once, or at most 72 bytes of it.
pub(super) fn check_work(scheme: Scheme, params: Params, password: &[u8]) -> Result<(), ApiError> {
    if scheme.family() != Family::ShaCrypt {
        return Ok(());
    }
    let rounds = u64::from(params.rounds.unwrap_or(5_000));
    let length = (password.len() as u64).max(64);
    if rounds * length > SHA_CRYPT_WORK {
        return Err(ApiError::invalid(
            "password",
            format!(
                "sha-crypt hashes the whole password every round: {rounds} rounds of a {}-byte password pass the {SHA_CRYPT_WORK} byte-rounds one request may take; use fewer rounds or a shorter password",
                password.len()
            ),
        ));
    }
    Ok(())
}

/// Whether `password` is the one `parsed` was made from, compared in constant time.
pub(super) fn verify(password: &[u8], parsed: &Parsed) -> Result<bool, ApiError> {
    check_work(parsed.scheme, parsed.params, password)?;
    if parsed.scheme == Scheme::Bcrypt {
        let hash = std::str::from_utf8(&parsed.digest).map_err(|_| bad("is not a bcrypt hash"))?;
        // bcrypt reads at most 72 bytes of a password: longer ones are cut there, as every
        // implementation that wrote such hashes did.
        return bcrypt::verify(&password[..password.len().min(72)], hash)
            .map_err(|e| bad(format!("is not a bcrypt hash wrench can read: {e}")));
    }
    let computed = derive(parsed.scheme, password, &parsed.salt, parsed.params, parsed.digest.len());
    Ok(computed.len() == parsed.digest.len()
        && bool::from(subtle::ConstantTimeEq::ct_eq(&computed[..], &parsed.digest[..])))
}

/// The string for a new hash, in the layout wrench writes for `scheme`.
pub(super) fn format(scheme: Scheme, salt: &[u8], params: Params, digest: &[u8]) -> String {
    let b64 = |bytes: &[u8]| STANDARD_NO_PAD.encode(bytes);
    match scheme {
        Scheme::Argon2id | Scheme::Argon2i | Scheme::Argon2d => format!(
            "${}$v={}$m={},t={},p={}${}${}",
            match scheme {
                Scheme::Argon2id => "argon2id",
                Scheme::Argon2i => "argon2i",
                _ => "argon2d",
            },
            params.version.unwrap_or(19),
            params.memory_kib.unwrap_or_default(),
            params.iterations.unwrap_or_default(),
            params.parallelism.unwrap_or_default(),
            b64(salt),
            b64(digest)
        ),
        Scheme::Scrypt => format!(
            "$scrypt$ln={},r={},p={}${}${}",
            params.log_n.unwrap_or_default(),
            params.block_size.unwrap_or_default(),
            params.parallelism.unwrap_or_default(),
            b64(salt),
            b64(digest)
        ),
        Scheme::Pbkdf2Sha1 | Scheme::Pbkdf2Sha256 | Scheme::Pbkdf2Sha512 => format!(
            "${}$i={},l={}${}${}",
            match scheme {
                Scheme::Pbkdf2Sha1 => "pbkdf2-sha1",
                Scheme::Pbkdf2Sha256 => "pbkdf2-sha256",
                _ => "pbkdf2-sha512",
            },
            params.iterations.unwrap_or_default(),
            digest.len(),
            b64(salt),
            b64(digest)
        ),
        Scheme::Sha512Crypt | Scheme::Sha256Crypt => {
            let id = if scheme == Scheme::Sha512Crypt { 6 } else { 5 };
            let salt = String::from_utf8_lossy(salt);
            match params.rounds {
                Some(5_000) | None => format!("${id}${salt}${}", crypt64::encode(digest)),
                Some(n) => format!("${id}$rounds={n}${salt}${}", crypt64::encode(digest)),
            }
        }
        Scheme::Md5Crypt => format!("$1${}${}", String::from_utf8_lossy(salt), String::from_utf8_lossy(digest)),
        Scheme::Apr1 => format!("$apr1${}${}", String::from_utf8_lossy(salt), String::from_utf8_lossy(digest)),
        Scheme::LdapSha1 => format!("{{SHA}}{}", STANDARD.encode(digest)),
        Scheme::LdapSaltedSha1 | Scheme::LdapSaltedSha256 | Scheme::LdapSaltedSha512 => {
            let tag = match scheme {
                Scheme::LdapSaltedSha1 => "SSHA",
                Scheme::LdapSaltedSha256 => "SSHA256",
                _ => "SSHA512",
            };
            format!("{{{tag}}}{}", STANDARD.encode([digest, salt].concat()))
        }
        Scheme::Bcrypt => unreachable!("bcrypt strings are written by its crate"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::security::passwords::hash::{HashAlgorithm, make};

    /// Hashes written by argon2-cffi, bcrypt, passlib, mkpasswd, openssl and htpasswd
    /// (tests/fixtures/passwords.py): each verifies with its password and not with another,
    /// and where the fixture says so, wrench writes the very same string from the same salt.
    #[test]
    fn the_references_hashes_verify_and_are_reproduced() {
        let fixture = crate::testing::fixture("passwords.json");
        let cases = fixture["hashes"].as_array().unwrap();
        assert!(cases.len() > 150);
        let (mut verified, mut reproduced) = (0, 0);
        for case in cases {
            let hash = case["hash"].as_str().unwrap();
            let password = case["password"].as_str().unwrap().as_bytes();
            let parsed = parse(hash).unwrap_or_else(|e| panic!("{hash}: {}", e.message));
            let scheme = serde_json::to_value(parsed.scheme).unwrap();
            assert_eq!(scheme, case["scheme"], "{hash}");
            assert!(verify(password, &parsed).unwrap(), "{hash} with {:?}", case["password"]);
            let mut wrong = password.to_vec();
            wrong[0] ^= 1;
            assert!(!verify(&wrong, &parsed).unwrap(), "{hash} took a wrong password");
            verified += 1;
            if case["same"] == true {
                let algorithm: HashAlgorithm = serde_json::from_value(case["scheme"].clone()).unwrap();
                let params: Params = serde_json::from_value(case.get("params").cloned().unwrap_or(json!({}))).unwrap();
                let params = params.effective(algorithm.scheme().family(), "params").unwrap();
                let salt = case["salt"].as_str().unwrap();
                let salt = match case["saltEncoding"].as_str() {
                    Some("hex") => ::hex::decode(salt).unwrap(),
                    _ => salt.as_bytes().to_vec(),
                };
                let made = make(algorithm.scheme(), password, salt, params).unwrap();
                // bcrypt's last salt character carries two spare bits some writers set.
                let comparable =
                    |h: &str| if algorithm == HashAlgorithm::Bcrypt { h[29..].to_string() } else { h.to_string() };
                assert_eq!(comparable(&made), comparable(hash), "{hash}");
                reproduced += 1;
            }
        }
        assert!(verified > 150 && reproduced > 60, "{verified} {reproduced}");
    }

    #[test]
    fn unreadable_hashes_are_refused_naming_the_field() {
        for hash in [
            "plain text",
            "$y$j9T$salt$hash",
            "$argon2id$v=19$m=1048576,t=2,p=1$c2FsdHNhbHQ$aGFzaGhhc2g",
            "$argon2id$v=19$m=19456,t=2,p=1$c2FsdA$aGFzaGhhc2g",
            "$2b$31$abcdefghijklmnopqrstuuabcdefghijklmnopqrstuvwxyzABCDE",
            "$6$rounds=999999999$salt$abc",
            "$scrypt$ln=20,r=8,p=1$c2FsdA$aGFzaA",
            "{MD5}abc",
            "$pbkdf2-sha256$i=999999999,l=32$c2FsdA$aGFzaA",
            &format!("$pbkdf2-sha256$i=1000,l=128$c2FsdA${}", STANDARD_NO_PAD.encode([7u8; 128])),
        ] {
            let e = parse(hash).err().unwrap_or_else(|| panic!("{hash} was read"));
            assert_eq!(e.field.as_deref(), Some("hash"), "{hash}");
            assert!(!e.message.contains("hunter2"));
        }
    }

    #[test]
    fn sha_crypt_work_grows_with_the_password_and_is_refused_before_it_starts() {
        let long = vec![b'x'; 4096];
        let started = std::time::Instant::now();
        let parsed = parse("$6$rounds=1000000$saltstring$svn8UoSVapNtMuq1ukKS4tPQd8iKwSMHWjl/O817G3uBnIFNjnQJuesI68u4OTLiBFdcbYEdFCoEOfaS35inz1").unwrap();
        let e = verify(&long, &parsed).unwrap_err();
        assert_eq!(e.field.as_deref(), Some("password"));
        assert!(started.elapsed() < std::time::Duration::from_millis(50), "refused before any round");
        let at_cap = Params { rounds: Some(1_000_000), ..Params::default() };
        assert!(check_work(Scheme::Sha512Crypt, at_cap, &[b'x'; 64]).is_ok());
        assert!(check_work(Scheme::Sha512Crypt, at_cap, &[b'x'; 65]).is_err());
        let default = Params { rounds: Some(5_000), ..Params::default() };
        assert!(check_work(Scheme::Sha256Crypt, default, &long).is_ok(), "any admitted password at the default");
        assert!(check_work(Scheme::Pbkdf2Sha256, at_cap, &long).is_ok(), "only sha-crypt is charged");
    }
}
