//! Time-based one-time passwords (RFC 6238, on HOTP of RFC 4226): `totp/generate` and
//! `totp/validate`.

use subtle::ConstantTimeEq;

use wrench_contract::prelude::*;

use super::code::{TotpAlgorithm, base32_decode, hotp, one, sha1, six, thirty};

#[derive(Debug, Deserialize, JsonSchema, Validate)]
#[serde(deny_unknown_fields)]
struct TotpGenerateInput {
    /// The shared secret in Base32 (case, spaces, hyphens and padding do not matter).
    #[schemars(length(min = 1, max = 256), pattern("^[ \\t\\r\\n=-]*(?:[A-Za-z2-7][ \\t\\r\\n=-]*){2,}$"))]
    secret: String,
    /// Seconds per code.
    #[serde(default = "thirty")]
    #[schemars(range(min = 5, max = 300))]
    period: u32,
    /// Digits per code.
    #[serde(default = "six")]
    #[schemars(range(min = 6, max = 8))]
    digits: u32,
    /// The HMAC hash; authenticator apps almost always use sha1.
    #[serde(default = "sha1")]
    algorithm: TotpAlgorithm,
    /// Unix time to compute the code for, in seconds; now when absent.
    #[serde(default)]
    #[schemars(range(min = 0, max = 99999999999u64))]
    timestamp: Option<u64>,
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct TotpGenerateOutput {
    /// The one-time code.
    code: String,
    /// Seconds before the code changes.
    remaining_seconds: u64,
    /// The time step (Unix time / period).
    time_step: u64,
    /// Seconds per code.
    period: u32,
    /// Digits per code.
    digits: u32,
    /// The HMAC hash used.
    algorithm: TotpAlgorithm,
}

/// Generate a TOTP code.
///
/// RFC 6238 with the usual defaults (30-second period, 6 digits, SHA-1), as Google
/// Authenticator and similar apps compute it. `timestamp` computes the code for another time
/// (Unix seconds), which makes results reproducible. Secrets that are not Base32 are a 400.
#[op(post "/v1/totp/generate" as totpGenerate, tag = DeveloperUtilities,
     example(rfc6238_sha1, {"secret": "GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ", "digits": 8, "timestamp": 59}),
     example(app_style_secret, {"secret": "jbsw y3dp ehpk 3pxp", "timestamp": 1700000000}),
     example(not_base32, {"secret": "not base32!"}, status = 400))]
async fn totp_generate(input: TotpGenerateInput) -> Result<TotpGenerateOutput, ApiError> {
    let key = base32_decode(&input.secret).map_err(|e| ApiError::invalid("secret", e))?;
    let t = input.timestamp.unwrap_or_else(wrench_infra::time::unix_secs);
    let period = u64::from(input.period);
    let step = t / period;
    Ok(TotpGenerateOutput {
        code: hotp(input.algorithm, &key, step, input.digits),
        remaining_seconds: period - t % period,
        time_step: step,
        period: input.period,
        digits: input.digits,
        algorithm: input.algorithm,
    })
}

#[derive(Debug, Deserialize, JsonSchema, Validate)]
#[serde(deny_unknown_fields)]
struct TotpValidateInput {
    /// The shared secret in Base32 (case, spaces, hyphens and padding do not matter).
    #[schemars(length(min = 1, max = 256), pattern("^[ \\t\\r\\n=-]*(?:[A-Za-z2-7][ \\t\\r\\n=-]*){2,}$"))]
    secret: String,
    /// The code to check.
    #[schemars(length(min = 1, max = 16))]
    code: String,
    /// Seconds per code.
    #[serde(default = "thirty")]
    #[schemars(range(min = 5, max = 300))]
    period: u32,
    /// Digits per code.
    #[serde(default = "six")]
    #[schemars(range(min = 6, max = 8))]
    digits: u32,
    /// Time steps accepted before and after the current one, for clock drift.
    #[serde(default = "one")]
    #[schemars(range(min = 0, max = 10))]
    window: u32,
    /// The HMAC hash.
    #[serde(default = "sha1")]
    algorithm: TotpAlgorithm,
    /// Unix time to check against, in seconds; now when absent.
    #[serde(default)]
    #[schemars(range(min = 0, max = 99999999999u64))]
    timestamp: Option<u64>,
}

#[derive(Debug, Serialize, JsonSchema)]
struct TotpValidateOutput {
    /// Whether the code matches a time step within the window.
    valid: bool,
    /// Which step matched, relative to the current one (-1: the previous); null when invalid.
    delta: Option<i64>,
}

/// Check a TOTP code.
///
/// Accepts the code if it matches the current time step or one of `window` steps before or
/// after it (default 1, so a code stays good for up to 30 seconds of clock drift), and says
/// which step matched. Codes are compared in constant time. Spaces in the code are ignored.
#[op(post "/v1/totp/validate" as totpValidate, tag = DeveloperUtilities,
     example(previous_step, {"secret": "GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ", "code": "94287082", "digits": 8, "timestamp": 89}),
     example(wrong_code, {"secret": "JBSWY3DPEHPK3PXP", "code": "000000", "timestamp": 1700000000, "window": 0}))]
async fn totp_validate(input: TotpValidateInput) -> Result<TotpValidateOutput, ApiError> {
    let key = base32_decode(&input.secret).map_err(|e| ApiError::invalid("secret", e))?;
    let code: String = input.code.chars().filter(|c| !c.is_whitespace()).collect();
    let t = input.timestamp.unwrap_or_else(wrench_infra::time::unix_secs);
    let step = (t / u64::from(input.period)) as i64;
    let window = i64::from(input.window);
    let mut matched = None;
    // Every candidate is computed and compared, so timing does not reveal which one matched.
    for delta in -window..=window {
        let Ok(s) = u64::try_from(step + delta) else { continue };
        let candidate = hotp(input.algorithm, &key, s, input.digits);
        if bool::from(candidate.as_bytes().ct_eq(code.as_bytes())) && matched.is_none() {
            matched = Some(delta);
        }
    }
    Ok(TotpValidateOutput { valid: matched.is_some(), delta: matched })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn b32(ascii: &str) -> String {
        // Encode for the test the way the RFC's ASCII seeds would be given to an app.
        const ALPHABET: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";
        let mut out = String::new();
        let (mut bits, mut n) = (0u64, 0u32);
        for &b in ascii.as_bytes() {
            bits = (bits << 8) | u64::from(b);
            n += 8;
            while n >= 5 {
                n -= 5;
                out.push(ALPHABET[((bits >> n) & 31) as usize] as char);
            }
        }
        if n > 0 {
            out.push(ALPHABET[((bits << (5 - n)) & 31) as usize] as char);
        }
        out
    }

    #[tokio::test]
    async fn rfc_6238_appendix_b_vectors() {
        let seeds = [
            (TotpAlgorithm::Sha1, "12345678901234567890"),
            (TotpAlgorithm::Sha256, "12345678901234567890123456789012"),
            (TotpAlgorithm::Sha512, "1234567890123456789012345678901234567890123456789012345678901234"),
        ];
        let table: [(u64, [&str; 3]); 6] = [
            (59, ["94287082", "46119246", "90693936"]),
            (1111111109, ["07081804", "68084774", "25091201"]),
            (1111111111, ["14050471", "67062674", "99943326"]),
            (1234567890, ["89005924", "91819424", "93441116"]),
            (2000000000, ["69279037", "90698825", "38618901"]),
            (20000000000, ["65353130", "77737706", "47863826"]),
        ];
        for (t, codes) in table {
            for (i, (alg, seed)) in seeds.iter().enumerate() {
                let out = totp_generate(TotpGenerateInput {
                    secret: b32(seed),
                    period: 30,
                    digits: 8,
                    algorithm: *alg,
                    timestamp: Some(t),
                })
                .await
                .unwrap();
                assert_eq!(out.code, codes[i], "{alg:?} at {t}");
                let ok = totp_validate(TotpValidateInput {
                    secret: b32(seed),
                    code: codes[i].into(),
                    period: 30,
                    digits: 8,
                    window: 0,
                    algorithm: *alg,
                    timestamp: Some(t),
                })
                .await
                .unwrap();
                assert_eq!((ok.valid, ok.delta), (true, Some(0)));
            }
        }
    }

    #[tokio::test]
    async fn window_and_secret_forms() {
        assert_eq!(b32("12345678901234567890"), "GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ");
        let secret = "GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ";
        // The code of step 1 (t = 59) checked at step 2 (t = 89): good with window 1, not 0.
        let check = |window| {
            totp_validate(TotpValidateInput {
                secret: secret.to_lowercase(),
                code: "9428 7082".into(),
                period: 30,
                digits: 8,
                window,
                algorithm: TotpAlgorithm::Sha1,
                timestamp: Some(89),
            })
        };
        assert_eq!(check(1).await.unwrap().delta, Some(-1));
        assert!(!check(0).await.unwrap().valid);
        assert_eq!(base32_decode("GEZDGNBVGY3TQOJQ====").unwrap(), b"1234567890");
        assert!(base32_decode("GEZ1").is_err());
        assert!(base32_decode("====").is_err());
    }
}
