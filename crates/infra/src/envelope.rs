//! The error every layer answers with, and the closed set of error codes.
//!
//! Every JSON response, success or failure, is `{"success", "data" | "error", "meta"}`; the
//! server writes that envelope (`wrench_server`'s `http/envelope.rs`) from an [`ApiError`]. Error
//! codes are part of the API contract (clients branch on them), so they are one enum whose
//! statuses and descriptions feed both the rendered responses and the OpenAPI document: the
//! two cannot drift apart. Adding a code is a contract change; add one only when a client would
//! branch on it.

use std::{borrow::Cow, fmt};

use http::{HeaderName, HeaderValue, StatusCode};

macro_rules! error_codes {
    ($($variant:ident = ($status:literal, $wire:literal, $doc:literal),)*) => {
        /// Machine-readable error codes. The wire form is SCREAMING_SNAKE_CASE.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum ErrorCode { $($variant,)* }

        impl ErrorCode {
            /// Every code, in a stable order (the order of the OpenAPI enum).
            pub const ALL: &'static [ErrorCode] = &[$(ErrorCode::$variant,)*];

            /// The code as sent on the wire.
            pub fn as_str(self) -> &'static str {
                match self { $(ErrorCode::$variant => $wire,)* }
            }

            /// The HTTP status this code is always sent with.
            pub fn status(self) -> StatusCode {
                match self {
                    $(ErrorCode::$variant => StatusCode::from_u16($status).expect("valid status"),)*
                }
            }

            /// When the code is given, for the document and `GET /v1/errors`-style listings.
            pub fn describe(self) -> &'static str {
                match self { $(ErrorCode::$variant => $doc,)* }
            }
        }
    };
}

error_codes! {
    InvalidJson = (400, "INVALID_JSON", "The body is not valid JSON; the message gives line and column."),
    ValidationError = (400, "VALIDATION_ERROR", "The input breaks the schema or a semantic rule; the message names the field."),
    InvalidSlug = (400, "INVALID_SLUG", "A custom short-link slug breaks the slug rules."),
    DecryptionFailed = (400, "DECRYPTION_FAILED", "The password is wrong or the ciphertext was altered; nothing else is revealed."),
    HttpsRequired = (400, "HTTPS_REQUIRED", "A plain HTTP request reached the HTTPS listener; use an https:// URL."),
    ResultTooLarge = (400, "RESULT_TOO_LARGE", "The answer would be larger than the response limit; the message gives both sizes."),
    Unauthorized = (401, "UNAUTHORIZED", "An API key was sent and is not valid."),
    TargetForbidden = (403, "TARGET_FORBIDDEN", "A URL or host resolves to a private, loopback or metadata address."),
    HostNotAllowed = (403, "HOST_NOT_ALLOWED", "The Host header of an MCP request is not a name this server answers MCP for (/mcp only)."),
    TokenRejected = (403, "TOKEN_REJECTED", "The token given to change or delete a stored thing (X-Manage-Token for a webhook inbox or a short link, X-Delete-Token for a paste) is missing or wrong."),
    NotFound = (404, "NOT_FOUND", "No such route or resource."),
    InboxNotFound = (404, "INBOX_NOT_FOUND", "The webhook inbox is unknown or has expired."),
    MethodNotAllowed = (405, "METHOD_NOT_ALLOWED", "The path exists but not with this method; see the Allow header."),
    NotAcceptable = (406, "NOT_ACCEPTABLE", "The Accept header refuses every media type the answer can have (/mcp only)."),
    RequestTimeout = (408, "REQUEST_TIMEOUT", "The request body did not arrive within the body timeout."),
    SlugTaken = (409, "SLUG_TAKEN", "The custom short-link slug is already in use."),
    LinkExpired = (410, "LINK_EXPIRED", "The short link is outside its validSince/validUntil period or has had its maxVisits."),
    PayloadTooLarge = (413, "PAYLOAD_TOO_LARGE", "The body is larger than the configured limit."),
    UriTooLong = (414, "URI_TOO_LONG", "The request target (path and query) is longer than the server reads."),
    UnsupportedMediaType = (415, "UNSUPPORTED_MEDIA_TYPE", "The body is declared as something other than JSON."),
    RateLimited = (429, "RATE_LIMITED", "Too many requests; see Retry-After and the RateLimit headers."),
    HeadersTooLarge = (431, "HEADERS_TOO_LARGE", "The request has more or larger header fields than the server reads."),
    InternalError = (500, "INTERNAL_ERROR", "A bug in the service; it is logged with the request id."),
    UpstreamError = (502, "UPSTREAM_ERROR", "A provider or target failed."),
    StoreUnavailable = (503, "STORE_UNAVAILABLE", "The store (Redis or the embedded file) is not answering."),
    ProviderNotConfigured = (503, "PROVIDER_NOT_CONFIGURED", "The operation needs a provider that is not configured; the message says what to set."),
    ProviderBusy = (503, "PROVIDER_BUSY", "The provider's request budget, kept to its published limits, is spent for now; see Retry-After."),
    NotReady = (503, "NOT_READY", "The instance cannot serve everything yet: the store is not answering or a configured data set has not loaded (GET /ready says which)."),
    DatasetNotInstalled = (503, "DATASET_NOT_INSTALLED", "The operation needs a data set that is not installed; the message gives the command."),
    UpstreamTimeout = (504, "UPSTREAM_TIMEOUT", "A provider or target did not answer in time."),
    StoreFull = (507, "STORE_FULL", "The store has no room for this write (a full disk, Redis at its memory limit); reads still work and writes resume by themselves once room returns. See Retry-After."),
}

impl fmt::Display for ErrorCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// An error an operation (or the pipeline) answers with.
#[derive(Debug, Clone)]
pub struct ApiError {
    pub code: ErrorCode,
    pub message: Cow<'static, str>,
    /// The input field at fault, in the client's spelling (`data[2].name`).
    pub field: Option<String>,
    /// Position in the body for INVALID_JSON (1-based).
    pub line: Option<usize>,
    pub column: Option<usize>,
    /// Extra response headers (Allow, Retry-After, ...).
    pub headers: Vec<(HeaderName, HeaderValue)>,
    /// Members written into the error object after the usual ones: a recipe's failing step
    /// adds which step it was and which steps completed.
    pub detail: Option<Box<serde_json::Map<String, serde_json::Value>>>,
}

impl ApiError {
    pub fn new(code: ErrorCode, message: impl Into<Cow<'static, str>>) -> Self {
        ApiError {
            code,
            message: message.into(),
            field: None,
            line: None,
            column: None,
            headers: Vec::new(),
            detail: None,
        }
    }

    /// 400 VALIDATION_ERROR for `field`, with the message prefixed by the field name.
    pub fn invalid(field: &str, message: impl fmt::Display) -> Self {
        let mut e = ApiError::new(ErrorCode::ValidationError, format!("{field}: {message}"));
        e.field = Some(field.to_string());
        e
    }

    pub fn not_found(message: impl Into<Cow<'static, str>>) -> Self {
        ApiError::new(ErrorCode::NotFound, message)
    }

    pub fn internal(message: impl Into<Cow<'static, str>>) -> Self {
        ApiError::new(ErrorCode::InternalError, message)
    }

    pub fn with_header(mut self, name: HeaderName, value: HeaderValue) -> Self {
        self.headers.push((name, value));
        self
    }

    /// With `Retry-After: seconds`.
    pub fn with_retry_after(self, seconds: u64) -> Self {
        self.with_header(HeaderName::from_static("retry-after"), HeaderValue::from(seconds))
    }

    pub fn status(&self) -> StatusCode {
        self.code.status()
    }
}

impl fmt::Display for ApiError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.code, self.message)
    }
}

impl std::error::Error for ApiError {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wire_codes_are_unique_and_screaming() {
        let mut seen = std::collections::HashSet::new();
        for c in ErrorCode::ALL {
            assert!(seen.insert(c.as_str()), "duplicate {c}");
            assert!(c.as_str().chars().all(|ch| ch.is_ascii_uppercase() || ch == '_'));
            assert!(c.status().is_client_error() || c.status().is_server_error());
        }
    }
}
