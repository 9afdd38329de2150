//! Browsers calling the API from pages of other origins: the CORS protocol of the Fetch
//! standard, for the origins of `WRENCH_CORS_ORIGINS` (none by default, `*` for any).
//!
//! - A preflight (`OPTIONS` with `Origin` and `Access-Control-Request-Method`) from an allowed
//!   origin is answered 204 with the methods and headers a call may use (`X-API-Key`,
//!   `Authorization`, `Content-Type`) and how long the browser may remember that (10 min).
//!   From any other origin it is routed like any request, so it gets the usual 405, and the
//!   browser, finding no `Access-Control-Allow-Origin`, stops the call.
//! - Every answer to an allowed origin carries `Access-Control-Allow-Origin` and exposes the
//!   headers a script needs to read: `X-Request-Id`, the `RateLimit-*` trio, `Retry-After` and
//!   `Location`. With a list of origins the answer depends on `Origin`, so it says so in
//!   `Vary`. Credentials (cookies) are never allowed: keys travel in `X-API-Key`.

use poem::{
    Request, Response,
    http::{HeaderMap, HeaderValue, Method, StatusCode, header},
};

use wrench_infra::config::CorsOrigins;

const ALLOW_METHODS: &str = "GET, HEAD, POST, PUT, PATCH, DELETE";
const ALLOW_HEADERS: &str = "X-API-Key, Authorization, Content-Type";
const EXPOSE_HEADERS: &str =
    "X-Request-Id, RateLimit-Limit, RateLimit-Remaining, RateLimit-Reset, Retry-After, Location";
/// Seconds a browser may reuse a preflight's answer.
const MAX_AGE: &str = "600";

/// What to send as `Access-Control-Allow-Origin` to this request, if its origin is allowed.
pub(super) fn allowed(origins: &CorsOrigins, req: &Request) -> Option<HeaderValue> {
    let origin = req.headers().get(header::ORIGIN)?;
    match origins {
        CorsOrigins::None => None,
        CorsOrigins::Any => Some(HeaderValue::from_static("*")),
        CorsOrigins::List(list) => {
            let text = origin.to_str().ok()?;
            list.iter().any(|o| o == text).then(|| origin.clone())
        }
    }
}

/// A CORS preflight, as opposed to an `OPTIONS` request of the page's own.
pub(super) fn is_preflight(req: &Request) -> bool {
    req.method() == Method::OPTIONS && req.headers().contains_key(header::ACCESS_CONTROL_REQUEST_METHOD)
}

/// The answer to an allowed origin's preflight.
pub(super) fn preflight() -> Response {
    let mut resp = Response::builder().status(StatusCode::NO_CONTENT).finish();
    let h = resp.headers_mut();
    h.insert(header::ACCESS_CONTROL_ALLOW_METHODS, HeaderValue::from_static(ALLOW_METHODS));
    h.insert(header::ACCESS_CONTROL_ALLOW_HEADERS, HeaderValue::from_static(ALLOW_HEADERS));
    h.insert(header::ACCESS_CONTROL_MAX_AGE, HeaderValue::from_static(MAX_AGE));
    resp
}

/// Marks an answer (preflight or not) as readable by `origin`'s pages.
pub(super) fn mark(h: &mut HeaderMap, origin: HeaderValue) {
    if origin != "*" {
        h.append(header::VARY, HeaderValue::from_static("Origin"));
    }
    h.insert(header::ACCESS_CONTROL_ALLOW_ORIGIN, origin);
    h.insert(header::ACCESS_CONTROL_EXPOSE_HEADERS, HeaderValue::from_static(EXPOSE_HEADERS));
}

#[cfg(test)]
mod tests {
    use super::*;

    fn request(method: Method, origin: Option<&str>, preflight: bool) -> Request {
        let mut b = Request::builder().method(method).uri_str("/v1/base64/encode");
        if let Some(o) = origin {
            b = b.header(header::ORIGIN, o);
        }
        if preflight {
            b = b.header(header::ACCESS_CONTROL_REQUEST_METHOD, "POST");
        }
        b.finish()
    }

    #[test]
    fn only_listed_origins_are_allowed() {
        let list = CorsOrigins::List(vec!["https://app.example.com".into()]);
        let ok = request(Method::POST, Some("https://app.example.com"), false);
        assert_eq!(allowed(&list, &ok).unwrap(), "https://app.example.com");
        for other in ["https://evil.example", "https://app.example.com.evil.example", "null", "HTTPS://APP.EXAMPLE.COM"]
        {
            assert!(allowed(&list, &request(Method::POST, Some(other), false)).is_none(), "{other}");
        }
        assert!(allowed(&list, &request(Method::POST, None, false)).is_none());
        assert!(allowed(&CorsOrigins::None, &ok).is_none());
        assert_eq!(allowed(&CorsOrigins::Any, &ok).unwrap(), "*");
        assert!(is_preflight(&request(Method::OPTIONS, Some("https://a.example"), true)));
        assert!(!is_preflight(&request(Method::OPTIONS, Some("https://a.example"), false)));
    }

    #[test]
    fn a_list_varies_by_origin_and_any_does_not() {
        let mut h = HeaderMap::new();
        mark(&mut h, HeaderValue::from_static("https://app.example.com"));
        assert_eq!(h[header::VARY], "Origin");
        assert!(h[header::ACCESS_CONTROL_EXPOSE_HEADERS].to_str().unwrap().contains("X-Request-Id"));
        let mut h = HeaderMap::new();
        mark(&mut h, HeaderValue::from_static("*"));
        assert!(!h.contains_key(header::VARY));
        assert!(!h.contains_key(header::ACCESS_CONTROL_ALLOW_CREDENTIALS));
    }
}
