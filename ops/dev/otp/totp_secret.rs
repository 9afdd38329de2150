//! `totp/secret`: a new random secret and the `otpauth://` URI that enrols it in an
//! authenticator app (Google's Key URI Format, which the apps share).

use percent_encoding::{AsciiSet, NON_ALPHANUMERIC, utf8_percent_encode};

use wrench_contract::prelude::*;

use super::code::{TotpAlgorithm, base32_encode, sha1, six, thirty};

/// What a URI label keeps unescaped: the unreserved characters and `/`, as pyotp writes it.
const LABEL: &AsciiSet = &NON_ALPHANUMERIC.remove(b'-').remove(b'.').remove(b'_').remove(b'~').remove(b'/');
/// What a query value keeps unescaped: the unreserved characters.
const VALUE: &AsciiSet = &NON_ALPHANUMERIC.remove(b'-').remove(b'.').remove(b'_').remove(b'~');

fn twenty() -> u32 {
    20
}

#[derive(Debug, Deserialize, JsonSchema, Validate)]
#[serde(deny_unknown_fields)]
struct TotpSecretInput {
    /// The account the secret is for, as the app will show it (an e-mail address, a user
    /// name).
    #[schemars(length(min = 1, max = 256), regex(pattern = r"^[^:]+$"))]
    account: String,
    /// Who issues it (the service's name), shown above the account and used by apps to group
    /// and pick an icon.
    #[serde(default)]
    #[schemars(length(min = 1, max = 256), regex(pattern = r"^[^:]+$"))]
    issuer: Option<String>,
    /// Bytes of secret: 20 (160 bits, RFC 4226's recommendation) by default, 10 to 64.
    #[serde(default = "twenty")]
    #[schemars(range(min = 10, max = 64))]
    bytes: u32,
    /// Digits per code.
    #[serde(default = "six")]
    #[schemars(range(min = 6, max = 8))]
    digits: u32,
    /// Seconds per code.
    #[serde(default = "thirty")]
    #[schemars(range(min = 5, max = 300))]
    period: u32,
    /// The HMAC hash; many apps read only sha1, the default.
    #[serde(default = "sha1")]
    algorithm: TotpAlgorithm,
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct TotpSecretOutput {
    /// The secret in Base32 without padding, as apps show it for typing in.
    secret: String,
    /// The `otpauth://totp/...` URI: put it in a QR code (`qr/generate`) for the app to scan.
    otpauth_uri: String,
    /// Digits per code.
    digits: u32,
    /// Seconds per code.
    period: u32,
    /// The HMAC hash.
    algorithm: TotpAlgorithm,
}

/// The `otpauth://totp/` URI for `secret`, with the label and parameters in the order and
/// escaping pyotp's `provisioning_uri` uses; defaults (sha1, 6 digits, 30 s) are left out.
fn uri(secret: &str, input: &TotpSecretInput) -> String {
    let account = utf8_percent_encode(&input.account, LABEL);
    let mut uri = match &input.issuer {
        Some(issuer) => format!("otpauth://totp/{}:{account}", utf8_percent_encode(issuer, LABEL)),
        None => format!("otpauth://totp/{account}"),
    };
    uri.push_str("?secret=");
    uri.push_str(secret);
    if let Some(issuer) = &input.issuer {
        uri.push_str(&format!("&issuer={}", utf8_percent_encode(issuer, VALUE)));
    }
    if input.algorithm != TotpAlgorithm::Sha1 {
        let name = serde_json::to_value(input.algorithm).ok().and_then(|v| v.as_str().map(str::to_uppercase));
        uri.push_str(&format!("&algorithm={}", name.unwrap_or_default()));
    }
    if input.digits != 6 {
        uri.push_str(&format!("&digits={}", input.digits));
    }
    if input.period != 30 {
        uri.push_str(&format!("&period={}", input.period));
    }
    uri
}

/// Make a TOTP secret and its otpauth:// URI for an authenticator app.
///
/// Draws `bytes` random bytes (20 by default) from the system's source, writes them in Base32
/// and builds the `otpauth://totp/Issuer:account?secret=...&issuer=...` URI that Google
/// Authenticator, Authy, 1Password and the rest scan from a QR code (`qr/generate` makes one).
/// Non-default digits, period and hash are written into the URI. Nothing is stored: keep the
/// secret on your side, then check codes with `totp/validate`.
#[op(post "/v1/totp/secret" as totpSecret, tag = DeveloperUtilities,
     redact(".data.secret", ".data.otpauthUri"),
     example(typical, {"account": "alice@example.com", "issuer": "Example"}),
     example(eight_digits_sha256, {"account": "alice", "issuer": "Example Corp", "digits": 8, "algorithm": "sha256", "bytes": 32}),
     example(colon_in_account, {"account": "a:b"}, status = 400))]
async fn totp_secret(input: TotpSecretInput) -> Result<TotpSecretOutput, ApiError> {
    let mut bytes = vec![0u8; input.bytes as usize];
    getrandom::fill(&mut bytes).map_err(|_| ApiError::internal("the system's random source failed"))?;
    let secret = base32_encode(&bytes);
    Ok(TotpSecretOutput {
        otpauth_uri: uri(&secret, &input),
        secret,
        digits: input.digits,
        period: input.period,
        algorithm: input.algorithm,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// pyotp's `provisioning_uri` for the same secrets, names and settings, byte for byte
    /// (tests/fixtures/otp.py).
    #[test]
    fn pyotp_writes_the_same_uri() {
        let fixture = crate::testing::fixture("otp.json");
        let cases = fixture["uris"].as_array().unwrap();
        assert!(cases.len() >= 8);
        for case in cases {
            let input: TotpSecretInput = serde_json::from_value(case["input"].clone()).unwrap();
            let secret = case["secret"].as_str().unwrap();
            assert_eq!(uri(secret, &input), case["uri"].as_str().unwrap());
        }
    }

    #[tokio::test]
    async fn secrets_are_random_and_of_the_length_asked() {
        let make = |bytes| TotpSecretInput {
            account: "a".into(),
            issuer: None,
            bytes,
            digits: 6,
            period: 30,
            algorithm: TotpAlgorithm::Sha1,
        };
        let a = totp_secret(make(20)).await.unwrap();
        let b = totp_secret(make(20)).await.unwrap();
        assert_ne!(a.secret, b.secret);
        assert_eq!(a.secret.len(), 32, "20 bytes are 32 Base32 characters");
        assert_eq!(totp_secret(make(64)).await.unwrap().secret.len(), 103);
        assert!(a.otpauth_uri.starts_with("otpauth://totp/a?secret="));
    }
}
