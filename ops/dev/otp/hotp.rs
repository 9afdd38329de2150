//! Counter-based one-time passwords (HOTP, RFC 4226): `hotp/generate` and `hotp/validate`.

use subtle::ConstantTimeEq;

use wrench_contract::prelude::*;

use super::code::{TotpAlgorithm, base32_decode, hotp, sha1, six};

#[derive(Debug, Deserialize, JsonSchema, Validate)]
#[serde(deny_unknown_fields)]
struct HotpGenerateInput {
    /// The shared secret in Base32 (case, spaces, hyphens and padding do not matter).
    #[schemars(length(min = 1, max = 256), pattern("^[ \\t\\r\\n=-]*(?:[A-Za-z2-7][ \\t\\r\\n=-]*){2,}$"))]
    secret: String,
    /// The moving factor: how many codes came before this one.
    #[schemars(range(min = 0, max = 9007199254740991u64))]
    counter: u64,
    /// Digits per code.
    #[serde(default = "six")]
    #[schemars(range(min = 6, max = 8))]
    digits: u32,
    /// The HMAC hash; RFC 4226 defines SHA-1, which tokens and apps use.
    #[serde(default = "sha1")]
    algorithm: TotpAlgorithm,
}

#[derive(Debug, Serialize, JsonSchema)]
struct HotpGenerateOutput {
    /// The one-time code.
    code: String,
    /// The counter it is for.
    counter: u64,
    /// Digits per code.
    digits: u32,
    /// The HMAC hash used.
    algorithm: TotpAlgorithm,
}

/// Generate an HOTP code for a counter.
///
/// RFC 4226's HMAC-based one-time password for `counter`: HMAC-SHA-1 (or SHA-256, SHA-512) of
/// the counter under the Base32 secret, dynamically truncated to `digits` (6 by default).
#[op(post "/v1/hotp/generate" as hotpGenerate, tag = DeveloperUtilities,
     rejects = "a secret that does not decode to any byte",
     example(rfc4226_counter_1, {"secret": "GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ", "counter": 1}),
     example(eight_digits, {"secret": "JBSWY3DPEHPK3PXP", "counter": 42, "digits": 8}),
     example(not_base32, {"secret": "not base32!", "counter": 0}, status = 400))]
async fn hotp_generate(input: HotpGenerateInput) -> Result<HotpGenerateOutput, ApiError> {
    let key = base32_decode(&input.secret).map_err(|e| ApiError::invalid("secret", e))?;
    Ok(HotpGenerateOutput {
        code: hotp(input.algorithm, &key, input.counter, input.digits),
        counter: input.counter,
        digits: input.digits,
        algorithm: input.algorithm,
    })
}

#[derive(Debug, Deserialize, JsonSchema, Validate)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct HotpValidateInput {
    /// The shared secret in Base32 (case, spaces, hyphens and padding do not matter).
    #[schemars(length(min = 1, max = 256), pattern("^[ \\t\\r\\n=-]*(?:[A-Za-z2-7][ \\t\\r\\n=-]*){2,}$"))]
    secret: String,
    /// The code to check (spaces ignored).
    #[schemars(length(min = 6, max = 12))]
    code: String,
    /// The counter the server expects next.
    #[schemars(range(min = 0, max = 9007199254740991u64))]
    counter: u64,
    /// How many counters past `counter` to also accept, for a token pressed without logging in
    /// (RFC 4226 section 7.4's look-ahead); 0 by default, at most 100.
    #[serde(default)]
    #[schemars(range(min = 0, max = 100))]
    look_ahead: u32,
    /// Digits per code.
    #[serde(default = "six")]
    #[schemars(range(min = 6, max = 8))]
    digits: u32,
    /// The HMAC hash.
    #[serde(default = "sha1")]
    algorithm: TotpAlgorithm,
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct HotpValidateOutput {
    /// Whether the code is the one for `counter` or one within the look-ahead.
    valid: bool,
    /// How far past `counter` the code was found (only when valid).
    #[serde(skip_serializing_if = "Option::is_none")]
    counter_delta: Option<u64>,
    /// The counter to expect next: one past the code found (only when valid). Store it, so a
    /// code is never accepted twice.
    #[serde(skip_serializing_if = "Option::is_none")]
    next_counter: Option<u64>,
}

/// Check an HOTP code against a counter, with a look-ahead.
///
/// Compares `code` with the HOTP of `counter` and, with `lookAhead`, of the counters after it
/// (RFC 4226 section 7.4), each in constant time and all of them computed whatever matches.
/// A valid answer gives the counter to store, one past the code found.
#[op(post "/v1/hotp/validate" as hotpValidate, tag = DeveloperUtilities,
     rejects = "a secret that does not decode to any byte",
     example(rfc4226_counter_5, {"secret": "GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ", "code": "254676", "counter": 5}),
     example(found_ahead, {"secret": "GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ", "code": "520489", "counter": 5, "lookAhead": 5}),
     example(wrong_code, {"secret": "GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ", "code": "000000", "counter": 0}))]
async fn hotp_validate(input: HotpValidateInput) -> Result<HotpValidateOutput, ApiError> {
    let key = base32_decode(&input.secret).map_err(|e| ApiError::invalid("secret", e))?;
    let code: String = input.code.chars().filter(|c| !c.is_whitespace()).collect();
    let mut found = None;
    for delta in 0..=u64::from(input.look_ahead) {
        let Some(counter) = input.counter.checked_add(delta) else { break };
        let candidate = hotp(input.algorithm, &key, counter, input.digits);
        if bool::from(candidate.as_bytes().ct_eq(code.as_bytes())) && found.is_none() {
            found = Some(delta);
        }
    }
    Ok(HotpValidateOutput {
        valid: found.is_some(),
        counter_delta: found,
        next_counter: found.map(|d| input.counter + d + 1),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// RFC 4226 appendix D: the secret "12345678901234567890" and counters 0 to 9.
    #[tokio::test]
    async fn rfc_4226_appendix_d() {
        let secret = "GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ";
        let codes =
            ["755224", "287082", "359152", "969429", "338314", "254676", "287922", "162583", "399871", "520489"];
        for (counter, want) in codes.iter().enumerate() {
            let input = HotpGenerateInput {
                secret: secret.into(),
                counter: counter as u64,
                digits: 6,
                algorithm: TotpAlgorithm::Sha1,
            };
            assert_eq!(hotp_generate(input).await.unwrap().code, *want, "counter {counter}");
        }
        let check = |code: &str, counter: u64, look_ahead: u32| HotpValidateInput {
            secret: secret.into(),
            code: code.into(),
            counter,
            look_ahead,
            digits: 6,
            algorithm: TotpAlgorithm::Sha1,
        };
        let out = hotp_validate(check("520489", 5, 5)).await.unwrap();
        assert_eq!((out.valid, out.counter_delta, out.next_counter), (true, Some(4), Some(10)));
        let out = hotp_validate(check("520489", 5, 3)).await.unwrap();
        assert!(!out.valid, "past the look-ahead");
        let out = hotp_validate(check("755224", 1, 10)).await.unwrap();
        assert!(!out.valid, "codes behind the counter are spent");
    }

    /// pyotp's HOTP on random secrets (tests/fixtures/otp.py).
    #[tokio::test]
    async fn pyotp_agrees() {
        let fixture = crate::testing::fixture("otp.json");
        let cases = fixture["hotp"].as_array().unwrap();
        assert!(cases.len() >= 30);
        for case in cases {
            let input: HotpGenerateInput = serde_json::from_value(case["input"].clone()).unwrap();
            assert_eq!(hotp_generate(input).await.unwrap().code, case["code"].as_str().unwrap(), "{case}");
        }
    }
}
