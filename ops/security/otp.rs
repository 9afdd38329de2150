//! One-time passcodes: random digits for e-mail or SMS verification.

use wrench_contract::prelude::*;
use wrench_infra::{random, time};

#[derive(Debug, Deserialize, JsonSchema, Validate)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct OtpInput {
    /// Digits in the code.
    #[serde(default = "six")]
    #[schemars(range(min = 4, max = 10))]
    length: u32,
    /// What the code is for (`login`, `password-reset`), echoed back.
    #[serde(default)]
    #[schemars(length(max = 100))]
    purpose: Option<String>,
    /// How long the code should be accepted, in seconds; only echoed as a hint, since this
    /// service does not store the code.
    #[serde(default = "five_minutes")]
    #[schemars(range(min = 30, max = 86400))]
    expires_in: u32,
}

fn six() -> u32 {
    6
}

fn five_minutes() -> u32 {
    300
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct OtpOutput {
    /// The code: `length` decimal digits, leading zeros kept.
    otp: String,
    /// Digits in the code.
    length: u32,
    /// The purpose given; null when none.
    purpose: Option<String>,
    /// Seconds the code should be accepted for.
    expires_in: u32,
    /// When it should stop being accepted (RFC 3339, UTC).
    expires_at: String,
}

/// Generate a one-time passcode.
///
/// `length` digits (4-10, default 6), each drawn uniformly from the operating system's CSPRNG
/// by rejection sampling, so no digit is more likely than another. `purpose` is echoed and
/// `expires_in` (30 s to 24 h, default 300) turned into an `expires_at` hint; the code is not
/// stored here, so checking it is up to the caller (compare in constant time).
#[op(post "/v1/otp/generate" as otpGenerate, tag = SecurityAndValidation,
     redact(".data.otp", ".data.expiresAt"),
     example(login, {"purpose": "login"}),
     example(eight_digits, {"length": 8, "purpose": "password-reset", "expiresIn": 900}),
     example(too_short, {"length": 3}, status = 400))]
async fn otp_generate(input: OtpInput) -> Result<OtpOutput, ApiError> {
    let otp = random::token(input.length as usize, b"0123456789")?;
    let expires = time::now() + std::time::Duration::from_secs(input.expires_in as u64);
    Ok(OtpOutput {
        otp,
        length: input.length,
        purpose: input.purpose,
        expires_in: input.expires_in,
        expires_at: time::rfc3339(expires),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn codes_have_the_length_asked_and_digits_are_uniform() {
        let mut counts = [0u32; 10];
        for _ in 0..2_000 {
            let out = otp_generate(OtpInput { length: 10, purpose: None, expires_in: 300 }).await.unwrap();
            assert_eq!(out.otp.len(), 10);
            for b in out.otp.bytes() {
                counts[(b - b'0') as usize] += 1;
            }
        }
        // 20,000 digits, 2,000 expected each; 6 standard deviations is about 255.
        for (d, n) in counts.iter().enumerate() {
            assert!((1_745..2_255).contains(n), "digit {d} came {n} times");
        }
    }
}
