//! The secret tokens that let their holder change or delete a stored thing (an inbox's manage
//! token, a paste's delete token). A token is shown once, when the thing is made, and only its
//! SHA-256 digest is stored, so neither the store nor its backups can give it away; a token
//! given back is compared with that digest in constant time.

use sha2::Digest;

use wrench_contract::prelude::*;
use wrench_infra::random;

/// Length of a token: 32 letters and digits, about 190 bits.
const TOKEN_LEN: usize = 32;

/// A fresh token and the hex digest to store in its place.
pub fn issue() -> Result<(String, String), ApiError> {
    let token = random::token(TOKEN_LEN, random::ALPHANUMERIC)?;
    let digest = hex::encode(sha2::Sha256::digest(token.as_bytes()));
    Ok((token, digest))
}

/// Whether `given` (a header's value; empty when the header is missing) is the token whose
/// digest is `digest_hex`.
pub fn matches(given: &[u8], digest_hex: &str) -> bool {
    let Ok(digest) = hex::decode(digest_hex) else { return false };
    // A missing header is the empty token, whose digest is no token's.
    let given = sha2::Sha256::digest(given);
    bool::from(subtle::ConstantTimeEq::ct_eq(given.as_slice(), digest.as_slice()))
}

/// Passes when the request's `header` (`X-Manage-Token`, `X-Delete-Token`) holds the token
/// whose digest the `thing` stored; 403 `TOKEN_REJECTED` otherwise, and for a thing stored
/// before things of its kind had tokens (`digest` is `None`), which no token changes.
pub fn require(ctx: &Ctx, header: &str, digest: Option<&str>, thing: &str) -> Result<(), ApiError> {
    let Some(digest) = digest else {
        return Err(ApiError::new(
            ErrorCode::TokenRejected,
            format!(
                "this {thing} was stored before it could have a token: it cannot be changed or deleted, only left to expire"
            ),
        ));
    };
    let given = ctx.headers.get(header).map(|v| v.as_bytes()).unwrap_or_default();
    if !matches(given, digest) {
        return Err(ApiError::new(
            ErrorCode::TokenRejected,
            format!("{header} is missing or is not this {thing}'s token (shown once, when it was created)"),
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_issued_token_matches_its_digest() {
        let (token, digest) = issue().unwrap();
        assert_eq!(token.len(), 32);
        assert!(matches(token.as_bytes(), &digest));
        assert!(!matches(b"", &digest));
        assert!(!matches(&token.as_bytes()[1..], &digest));
        assert!(!matches(token.as_bytes(), "not hex"));
        let (other, _) = issue().unwrap();
        assert_ne!(token, other);
    }
}
