//! What can go wrong when wrench contacts a host, and the envelope each case becomes.
//!
//! A refused target is 403 `TARGET_FORBIDDEN` naming the rule; a target that cannot be reached
//! or answers wrongly is 502 `UPSTREAM_ERROR`, a slow one 504 `UPSTREAM_TIMEOUT`; both name the
//! host. Input that is not a usable URL is the caller's mistake, 400 naming the field.

use crate::envelope::{ApiError, ErrorCode};

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum OutboundError {
    /// Not a URL wrench can fetch (scheme, syntax).
    Invalid(String),
    /// The policy refuses the target.
    Forbidden(String),
    /// The target could not be reached or did not answer properly.
    Unreachable(String),
    /// The target did not answer within the time allowed.
    Timeout(String),
    /// The answer's body is larger than the fetch reads.
    TooLarge(String),
}

impl OutboundError {
    /// The envelope, with `field` named for invalid input.
    pub fn into_api(self, field: &str) -> ApiError {
        match self {
            OutboundError::Invalid(m) => ApiError::invalid(field, m),
            OutboundError::Forbidden(m) => ApiError::new(ErrorCode::TargetForbidden, m),
            OutboundError::Unreachable(m) | OutboundError::TooLarge(m) => ApiError::new(ErrorCode::UpstreamError, m),
            OutboundError::Timeout(m) => ApiError::new(ErrorCode::UpstreamTimeout, m),
        }
    }

    pub fn message(&self) -> &str {
        match self {
            OutboundError::Invalid(m)
            | OutboundError::Forbidden(m)
            | OutboundError::Unreachable(m)
            | OutboundError::Timeout(m)
            | OutboundError::TooLarge(m) => m,
        }
    }
}

impl std::fmt::Display for OutboundError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.message())
    }
}

/// The usual case: the input field is the URL.
impl From<OutboundError> for ApiError {
    fn from(e: OutboundError) -> ApiError {
        e.into_api("url")
    }
}
