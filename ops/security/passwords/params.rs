//! The cost parameters of the password schemes: what a caller may ask for, what each scheme
//! uses when nothing is asked, and the caps, which hold for hashing and for verifying alike so
//! that a crafted hash cannot make the server burn memory or time either.
//!
//! Defaults follow OWASP's Password Storage Cheat Sheet where it names one (Argon2id 19 MiB,
//! 2 passes, 1 lane; bcrypt 10 or more, here 12; PBKDF2-HMAC-SHA256 600,000 and -SHA512
//! 210,000 iterations), and the schemes' own otherwise (sha-crypt's 5,000 rounds). scrypt's
//! default is 2^15 (32 MiB at r = 8), a quarter of OWASP's first choice, so that two of them at
//! once fit a small server; up to 2^17 may be asked for.

use wrench_contract::prelude::*;

pub(super) const ARGON2_MAX_MEMORY_KIB: u32 = 64 * 1024;
pub(super) const ARGON2_MAX_PASSES: u32 = 10;
pub(super) const ARGON2_MAX_LANES: u32 = 4;
pub(super) const BCRYPT_COSTS: (u32, u32) = (4, 15);
pub(super) const SCRYPT_MAX_LOG_N: u8 = 17;
/// scrypt takes 128 * r * N bytes: at most 128 MiB.
pub(super) const SCRYPT_MAX_MEMORY: u64 = 128 * 1024 * 1024;
pub(super) const SCRYPT_MAX_LANES: u32 = 4;
pub(super) const PBKDF2_ITERATIONS: (u32, u32) = (1_000, 2_000_000);
pub(super) const SHA_CRYPT_ROUNDS: (u32, u32) = (1_000, 1_000_000);

/// A scheme's cost parameters; each scheme reads its own and refuses the others.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq, Deserialize, Serialize, JsonSchema, Validate)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub(super) struct Params {
    /// Argon2: memory in KiB (8 per lane to 65,536; default 19,456).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 8, max = 65536))]
    pub memory_kib: Option<u32>,
    /// Argon2: passes (1 to 10; default 2). PBKDF2: iterations (1,000 to 2,000,000; default
    /// 600,000 with SHA-256, 210,000 with SHA-512).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 1, max = 2000000))]
    pub iterations: Option<u32>,
    /// Argon2: lanes (1 to 4; default 1). scrypt: p (1 to 4; default 1).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 1, max = 4))]
    pub parallelism: Option<u32>,
    /// bcrypt: the cost, log2 of the rounds (4 to 15; default 12).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 4, max = 15))]
    pub cost: Option<u32>,
    /// scrypt: log2 of N (10 to 17; default 15).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 10, max = 17))]
    pub log_n: Option<u8>,
    /// scrypt: the block size r (1 to 16, with 128 * r * N at most 128 MiB; default 8).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 1, max = 16))]
    pub block_size: Option<u32>,
    /// sha256-crypt and sha512-crypt: rounds (1,000 to 1,000,000; default 5,000).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 1000, max = 1000000))]
    pub rounds: Option<u32>,
    /// Argon2: the version, 19 (1.3) or 16 (1.0). Read from hashes; new hashes are 19.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 16, max = 19))]
    pub version: Option<u32>,
}

/// Which parameters a scheme reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Family {
    Argon2,
    Bcrypt,
    Scrypt,
    Pbkdf2 {
        default_iterations: u32,
    },
    ShaCrypt,
    /// md5-crypt, apr1 and the LDAP digests: nothing to tune.
    Fixed,
}

impl Params {
    /// The parameters `family` uses: the asked ones over its defaults, checked against its
    /// caps. A parameter the family does not read is a 400 naming it under `field` (or alone
    /// when `field` is empty).
    pub(super) fn effective(self, family: Family, field: &str) -> Result<Params, ApiError> {
        let named = |name: &str| if field.is_empty() { name.to_string() } else { format!("{field}.{name}") };
        let refuse = |name: &str, why: String| Err(ApiError::invalid(&named(name), why));
        let foreign =
            |name: &str| refuse(name, format!("{name} is not a parameter of this scheme; it takes {}", family.takes()));
        let Params { memory_kib, iterations, parallelism, cost, log_n, block_size, rounds, version } = self;
        let asked = [
            ("memoryKib", memory_kib.is_some()),
            ("iterations", iterations.is_some()),
            ("parallelism", parallelism.is_some()),
            ("cost", cost.is_some()),
            ("logN", log_n.is_some()),
            ("blockSize", block_size.is_some()),
            ("rounds", rounds.is_some()),
            ("version", version.is_some()),
        ];
        for (name, given) in asked {
            if given && !family.reads(name) {
                return foreign(name);
            }
        }
        match family {
            Family::Argon2 => {
                let lanes = parallelism.unwrap_or(1);
                let memory = memory_kib.unwrap_or(19 * 1024);
                let passes = iterations.unwrap_or(2);
                if !(1..=ARGON2_MAX_LANES).contains(&lanes) {
                    return refuse("parallelism", format!("Argon2 takes 1 to {ARGON2_MAX_LANES} lanes here"));
                }
                if memory < 8 * lanes || memory > ARGON2_MAX_MEMORY_KIB {
                    return refuse(
                        "memoryKib",
                        format!("Argon2 takes 8 KiB per lane to {ARGON2_MAX_MEMORY_KIB} KiB here, not {memory}"),
                    );
                }
                if !(1..=ARGON2_MAX_PASSES).contains(&passes) {
                    return refuse("iterations", format!("Argon2 takes 1 to {ARGON2_MAX_PASSES} passes here"));
                }
                let version = version.unwrap_or(19);
                if version != 19 && version != 16 {
                    return refuse("version", "Argon2's versions are 19 (1.3) and 16 (1.0)".into());
                }
                Ok(Params {
                    memory_kib: Some(memory),
                    iterations: Some(passes),
                    parallelism: Some(lanes),
                    version: Some(version),
                    ..Params::default()
                })
            }
            Family::Bcrypt => {
                let cost = cost.unwrap_or(12);
                let (min, max) = BCRYPT_COSTS;
                if !(min..=max).contains(&cost) {
                    return refuse("cost", format!("bcrypt takes a cost of {min} to {max} here, not {cost}"));
                }
                Ok(Params { cost: Some(cost), ..Params::default() })
            }
            Family::Scrypt => {
                let (log_n, r, p) = (log_n.unwrap_or(15), block_size.unwrap_or(8), parallelism.unwrap_or(1));
                if !(1..=SCRYPT_MAX_LOG_N).contains(&log_n) {
                    return refuse("logN", format!("scrypt takes log2 N up to {SCRYPT_MAX_LOG_N} here, not {log_n}"));
                }
                if r == 0 || (128 * u64::from(r)) << log_n > SCRYPT_MAX_MEMORY {
                    return refuse(
                        "blockSize",
                        format!("scrypt with r = {r} and N = 2^{log_n} needs more than the 128 MiB allowed here"),
                    );
                }
                if !(1..=SCRYPT_MAX_LANES).contains(&p) {
                    return refuse("parallelism", format!("scrypt takes p of 1 to {SCRYPT_MAX_LANES} here, not {p}"));
                }
                Ok(Params { log_n: Some(log_n), block_size: Some(r), parallelism: Some(p), ..Params::default() })
            }
            Family::Pbkdf2 { default_iterations } => {
                let n = iterations.unwrap_or(default_iterations);
                let (min, max) = PBKDF2_ITERATIONS;
                if !(min..=max).contains(&n) {
                    return refuse("iterations", format!("PBKDF2 takes {min} to {max} iterations here, not {n}"));
                }
                Ok(Params { iterations: Some(n), ..Params::default() })
            }
            Family::ShaCrypt => {
                let n = rounds.unwrap_or(5_000);
                let (min, max) = SHA_CRYPT_ROUNDS;
                if !(min..=max).contains(&n) {
                    return refuse("rounds", format!("sha-crypt takes {min} to {max} rounds here, not {n}"));
                }
                Ok(Params { rounds: Some(n), ..Params::default() })
            }
            Family::Fixed => Ok(Params::default()),
        }
    }
}

impl Family {
    fn reads(self, name: &str) -> bool {
        match self {
            Family::Argon2 => matches!(name, "memoryKib" | "iterations" | "parallelism" | "version"),
            Family::Bcrypt => name == "cost",
            Family::Scrypt => matches!(name, "logN" | "blockSize" | "parallelism"),
            Family::Pbkdf2 { .. } => name == "iterations",
            Family::ShaCrypt => name == "rounds",
            Family::Fixed => false,
        }
    }

    fn takes(self) -> &'static str {
        match self {
            Family::Argon2 => "memoryKib, iterations and parallelism",
            Family::Bcrypt => "cost",
            Family::Scrypt => "logN, blockSize and parallelism",
            Family::Pbkdf2 { .. } => "iterations",
            Family::ShaCrypt => "rounds",
            Family::Fixed => "none",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_apply_and_caps_hold() {
        let argon = Params::default().effective(Family::Argon2, "params").unwrap();
        assert_eq!((argon.memory_kib, argon.iterations, argon.parallelism), (Some(19456), Some(2), Some(1)));
        let big = Params { memory_kib: Some(65537), ..Params::default() };
        assert_eq!(big.effective(Family::Argon2, "params").unwrap_err().field.as_deref(), Some("params.memoryKib"));
        let scrypt = Params { log_n: Some(17), block_size: Some(16), ..Params::default() };
        assert_eq!(scrypt.effective(Family::Scrypt, "params").unwrap_err().field.as_deref(), Some("params.blockSize"));
        let scrypt = Params { log_n: Some(17), block_size: Some(8), ..Params::default() };
        assert!(scrypt.effective(Family::Scrypt, "params").is_ok(), "128 MiB is allowed");
        let cost = Params { cost: Some(12), ..Params::default() };
        let e = cost.effective(Family::ShaCrypt, "params").unwrap_err();
        assert_eq!(e.field.as_deref(), Some("params.cost"));
        assert!(e.message.contains("it takes rounds"), "{}", e.message);
    }
}
