//! The one HTTP client through which every caller-named fetch goes (reqwest on rustls).
//!
//! Each hop, the first URL and every redirect alike, is judged by `target.rs` and then sent by a
//! client made for that hop, whose only way to reach the host is the list of addresses that
//! were judged: reqwest's own resolver is replaced by one that refuses everything, proxies
//! from the environment are off, and redirects are followed here, not by reqwest. The whole
//! chain shares one deadline (`WRENCH_OUTBOUND_TIMEOUT`), connecting is bounded inside it, and
//! a body is counted while it is read and never read past `WRENCH_OUTBOUND_MAX_BYTES`. No
//! cookies are kept, no Referer is sent, and the credentials of a URL are never carried to
//! another origin.

use std::{
    collections::HashSet,
    net::SocketAddr,
    sync::Arc,
    time::{Duration, Instant},
};

use reqwest::{
    dns::{Addrs, Name, Resolve, Resolving},
    header::HeaderMap,
};
use tokio::time::timeout_at;
use url::Url;

use super::{Net, error::OutboundError, target::Target};

/// Longest wait for a connection (TCP and TLS) inside the chain's deadline.
pub(super) const CONNECT_TIMEOUT: Duration = Duration::from_secs(5);

/// How a chain is fetched.
#[derive(Debug, Clone, Copy)]
pub struct FetchOptions {
    /// Follow redirects (up to `WRENCH_OUTBOUND_REDIRECTS`), or stop at the first answer.
    pub follow: bool,
    /// Read the last answer's body (bounded); otherwise only its headers are read.
    pub read_body: bool,
}

/// A request other than a plain GET: its method, header fields and exact body bytes.
#[derive(Debug, Clone)]
pub struct Outgoing {
    pub method: reqwest::Method,
    pub headers: HeaderMap,
    pub body: bytes::Bytes,
}

/// What a relayed request was answered ([`Net::relay`]).
#[derive(Debug, Clone)]
pub struct Relayed {
    pub status: u16,
    pub headers: HeaderMap,
    /// The first bytes of the answer's body, at most what was asked for.
    pub body: Vec<u8>,
    /// The body went on past what was kept.
    pub truncated: bool,
    /// From the first lookup to the last byte kept.
    pub elapsed: Duration,
}

/// One request of a chain and its answer.
#[derive(Debug, Clone)]
pub struct Hop {
    pub url: Url,
    /// The address the answer came from.
    pub address: Option<SocketAddr>,
    pub status: u16,
    /// `HTTP/1.1`, `HTTP/2`...
    pub version: String,
    pub headers: HeaderMap,
    /// Where a redirect points, as the answer wrote it.
    pub location: Option<String>,
    /// Resolving the host (zero for an IP literal).
    pub dns_time: Duration,
    /// From sending the request (after resolving) to the answer's headers.
    pub latency: Duration,
}

/// Why a chain ended.
#[derive(Debug, Clone, PartialEq)]
pub enum ChainEnd {
    /// An answer that is not a redirect (or redirects were not followed).
    Done,
    /// A redirect back to a URL already visited.
    Loop(Url),
    /// More redirects than allowed.
    TooManyRedirects(u8),
    /// A hop could not be made (refused, unreachable, slow, malformed redirect).
    Stopped(OutboundError),
}

/// The requests made for one fetch, in order.
#[derive(Debug, Clone)]
pub struct Chain {
    pub hops: Vec<Hop>,
    pub end: ChainEnd,
    /// The last answer's body, when asked for and fully read.
    pub body: Option<Vec<u8>>,
    pub elapsed: Duration,
}

impl Chain {
    /// The chain when it ended with an answer; the reason otherwise, as an error.
    pub fn into_result(self, redirects: u8) -> Result<Chain, OutboundError> {
        match &self.end {
            ChainEnd::Done => Ok(self),
            ChainEnd::Loop(url) => Err(OutboundError::Unreachable(format!("the redirects loop back to {url}"))),
            ChainEnd::TooManyRedirects(_) => {
                Err(OutboundError::Unreachable(format!("more than {redirects} redirects (WRENCH_OUTBOUND_REDIRECTS)")))
            }
            ChainEnd::Stopped(e) => Err(e.clone()),
        }
    }

    pub fn last(&self) -> Option<&Hop> {
        self.hops.last()
    }
}

/// The time and size a fetch may take.
#[derive(Debug, Clone, Copy)]
struct Limits {
    timeout: Duration,
    max_bytes: usize,
    /// The limits are the layer's settings, which messages then name.
    settings: bool,
}

/// reqwest's resolver for every client of this module: it answers nothing, so the only
/// addresses a request can reach are the ones given to the client after they were judged.
struct NoLookups;

impl Resolve for NoLookups {
    fn resolve(&self, name: Name) -> Resolving {
        let name = name.as_str().to_string();
        Box::pin(async move {
            let e: Box<dyn std::error::Error + Send + Sync> =
                format!("{name} was not resolved by the outbound layer").into();
            Err::<Addrs, _>(e)
        })
    }
}

impl Net {
    /// Fetches `url`: judges and sends each hop, follows redirects when asked, reads the last
    /// body when asked. A chain always comes back; `end` says whether it reached an answer.
    pub async fn fetch(&self, url: Url, options: FetchOptions) -> Chain {
        self.fetch_with(url, options, &HeaderMap::new()).await
    }

    /// GET `url` as most readers want it: redirects followed, the body read, and the chain
    /// only when an answer came ([`Chain::into_result`]).
    pub async fn get(&self, url: Url) -> Result<Chain, OutboundError> {
        self.get_with(url, &HeaderMap::new()).await
    }

    /// [`Net::get`] with request header fields sent only to the origin of `url` (see
    /// [`Net::fetch_with`]).
    pub async fn get_with(&self, url: Url, headers: &HeaderMap) -> Result<Chain, OutboundError> {
        let options = FetchOptions { follow: true, read_body: true };
        self.fetch_with(url, options, headers).await.into_result(self.config.redirects)
    }

    /// [`Net::get_with`] within a time limit and body size of the caller's instead of the
    /// layer's settings: a provider's, which wrench chooses for that provider's data (an npm
    /// registry's documents are larger than most pages, a geocoder's answers smaller).
    pub async fn get_limited(
        &self,
        url: Url,
        headers: &HeaderMap,
        timeout: Duration,
        max_bytes: usize,
    ) -> Result<Chain, OutboundError> {
        let options = FetchOptions { follow: true, read_body: true };
        let limits = Limits { timeout, max_bytes, settings: false };
        self.fetch_within(url, options, headers, limits, None).await.into_result(self.config.redirects)
    }

    /// [`Net::get_limited`] as a POST of an HTML form (`application/x-www-form-urlencoded`),
    /// for the provider APIs that take their questions so. Redirects are not followed: a POST
    /// API that redirects is answering wrongly, and its answer says so.
    pub async fn post_form_limited(
        &self,
        url: Url,
        headers: &HeaderMap,
        form: &[(&str, &str)],
        timeout: Duration,
        max_bytes: usize,
    ) -> Result<Chain, OutboundError> {
        let options = FetchOptions { follow: false, read_body: true };
        let limits = Limits { timeout, max_bytes, settings: false };
        let body = form_urlencoded::Serializer::new(String::new()).extend_pairs(form).finish();
        let mut form_headers = HeaderMap::new();
        form_headers.insert(
            reqwest::header::CONTENT_TYPE,
            reqwest::header::HeaderValue::from_static("application/x-www-form-urlencoded"),
        );
        form_headers.insert(reqwest::header::ACCEPT, reqwest::header::HeaderValue::from_static("*/*"));
        form_headers.insert(reqwest::header::ACCEPT_ENCODING, reqwest::header::HeaderValue::from_static("identity"));
        let outgoing = Outgoing { method: reqwest::Method::POST, headers: form_headers, body: body.into() };
        self.fetch_within(url, options, headers, limits, Some(&outgoing)).await.into_result(self.config.redirects)
    }

    /// Sends `request` to `url` once, as it is (a webhook delivery replayed or forwarded): its
    /// method, header fields and exact bytes, nothing added but the layer's User-Agent when it
    /// has none. The target is judged like every other; a redirect is answered, not followed;
    /// at most `keep` bytes of the answer's body are read, the rest left unread. One
    /// `WRENCH_OUTBOUND_TIMEOUT` covers it all.
    pub async fn relay(&self, url: Url, request: &Outgoing, keep: usize) -> Result<Relayed, OutboundError> {
        let started = Instant::now();
        let deadline = tokio::time::Instant::now() + self.config.timeout;
        let slow = || {
            OutboundError::Timeout(format!(
                "{} did not answer within {} s (WRENCH_OUTBOUND_TIMEOUT)",
                host_of(&url),
                self.config.timeout.as_secs_f64()
            ))
        };
        let target = within(deadline, self.target(&url), slow).await?;
        let mut response = within(deadline, self.send(&target, deadline, None, Some(request)), slow).await?;
        let (status, headers) = (response.status().as_u16(), response.headers().clone());
        let mut body = Vec::new();
        let mut truncated = false;
        let read = async {
            while let Some(chunk) = response.chunk().await.map_err(|e| describe(&e, &target))? {
                let room = keep - body.len();
                if chunk.len() > room {
                    body.extend_from_slice(&chunk[..room]);
                    truncated = true;
                    break;
                }
                body.extend_from_slice(&chunk);
            }
            Ok(())
        };
        within(deadline, read, slow).await?;
        Ok(Relayed { status, headers, body, truncated, elapsed: started.elapsed() })
    }

    /// [`Net::fetch`] with request header fields of the caller's (a provider's key), sent only
    /// to the origin of `url`: a redirect elsewhere never carries them.
    pub async fn fetch_with(&self, url: Url, options: FetchOptions, headers: &HeaderMap) -> Chain {
        let limits = Limits { timeout: self.config.timeout, max_bytes: self.config.max_bytes, settings: true };
        self.fetch_within(url, options, headers, limits, None).await
    }

    async fn fetch_within(
        &self,
        url: Url,
        options: FetchOptions,
        headers: &HeaderMap,
        limits: Limits,
        outgoing: Option<&Outgoing>,
    ) -> Chain {
        let origin = url.origin();
        let started = Instant::now();
        let deadline = tokio::time::Instant::now() + limits.timeout;
        let mut chain = Chain { hops: Vec::new(), end: ChainEnd::Done, body: None, elapsed: Duration::ZERO };
        let mut visited: HashSet<Url> = HashSet::new();
        let mut next = url;
        loop {
            visited.insert(next.clone());
            let timeout = || {
                OutboundError::Timeout(format!(
                    "{} did not answer within {} s{}",
                    host_of(&next),
                    limits.timeout.as_secs_f64(),
                    if limits.settings { " (WRENCH_OUTBOUND_TIMEOUT)" } else { "" }
                ))
            };
            let target = match within(deadline, self.target(&next), timeout).await {
                Ok(t) => t,
                Err(e) => {
                    chain.end = ChainEnd::Stopped(e);
                    break;
                }
            };
            let sent = Instant::now();
            let extra = (target.url.origin() == origin).then_some(headers);
            let mut response = match within(deadline, self.send(&target, deadline, extra, outgoing), timeout).await {
                Ok(r) => r,
                Err(e) => {
                    chain.end = ChainEnd::Stopped(e);
                    break;
                }
            };
            let status = response.status().as_u16();
            let location = response
                .headers()
                .get(reqwest::header::LOCATION)
                .map(|v| String::from_utf8_lossy(v.as_bytes()).into_owned());
            chain.hops.push(Hop {
                url: target.url.clone(),
                address: response.remote_addr(),
                status,
                version: format!("{:?}", response.version()),
                headers: response.headers().clone(),
                location: location.clone(),
                dns_time: target.dns_time,
                latency: sent.elapsed(),
            });
            let redirect = matches!(status, 301 | 302 | 303 | 307 | 308) && location.is_some();
            if !(options.follow && redirect) {
                if options.read_body {
                    match within(deadline, self.read_body(&mut response, &target, limits), timeout).await {
                        Ok(body) => chain.body = Some(body),
                        Err(e) => chain.end = ChainEnd::Stopped(e),
                    }
                }
                break;
            }
            let redirects_so_far = chain.hops.len() as u8;
            match follow(&target.url, location.as_deref().unwrap_or_default()) {
                Err(e) => {
                    chain.end = ChainEnd::Stopped(e);
                    break;
                }
                Ok(url) if visited.contains(&url) => {
                    chain.end = ChainEnd::Loop(url);
                    break;
                }
                Ok(_) if redirects_so_far > self.config.redirects => {
                    chain.end = ChainEnd::TooManyRedirects(self.config.redirects);
                    break;
                }
                Ok(url) => next = url,
            }
        }
        chain.elapsed = started.elapsed();
        chain
    }

    /// Sends one GET (or, with `outgoing`, that request as it is) to a judged target, through a
    /// client that can reach nothing else.
    async fn send(
        &self,
        target: &Target,
        deadline: tokio::time::Instant,
        extra: Option<&HeaderMap>,
        outgoing: Option<&Outgoing>,
    ) -> Result<reqwest::Response, OutboundError> {
        let remaining = deadline.saturating_duration_since(tokio::time::Instant::now());
        let mut builder = reqwest::Client::builder()
            .no_proxy()
            .redirect(reqwest::redirect::Policy::none())
            .referer(false)
            .user_agent(self.user_agent.as_str())
            .tls_backend_preconfigured((*self.tls).clone())
            .dns_resolver(Arc::new(NoLookups))
            .connect_timeout(remaining.min(CONNECT_TIMEOUT))
            .pool_max_idle_per_host(0);
        if let Some(name) = &target.name {
            builder = builder.resolve_to_addrs(name, &target.addresses);
        }
        let client =
            builder.build().map_err(|e| OutboundError::Unreachable(format!("could not prepare the request: {e}")))?;
        let mut request = match outgoing {
            None => client
                .get(target.url.clone())
                .header(reqwest::header::ACCEPT, "*/*")
                .header(reqwest::header::ACCEPT_ENCODING, "identity"),
            Some(o) => {
                client.request(o.method.clone(), target.url.clone()).headers(o.headers.clone()).body(o.body.clone())
            }
        };
        if let Some(extra) = extra {
            request = request.headers(extra.clone());
        }
        request.send().await.map_err(|e| describe(&e, target))
    }

    /// The body, counted while it arrives and refused past the byte limit.
    async fn read_body(
        &self,
        response: &mut reqwest::Response,
        target: &Target,
        limits: Limits,
    ) -> Result<Vec<u8>, OutboundError> {
        let limit = limits.max_bytes;
        let setting = if limits.settings { " (WRENCH_OUTBOUND_MAX_BYTES)" } else { "" };
        let too_large =
            || OutboundError::TooLarge(format!("{} answered with more than {limit} bytes{setting}", target.host));
        if response.content_length().is_some_and(|n| n > limit as u64) {
            return Err(too_large());
        }
        let mut body = Vec::new();
        while let Some(chunk) = response.chunk().await.map_err(|e| describe(&e, target))? {
            if body.len() + chunk.len() > limit {
                return Err(too_large());
            }
            body.extend_from_slice(&chunk);
        }
        Ok(body)
    }
}

/// `step` if it ends before `deadline`, the error `slow` makes otherwise.
async fn within<T>(
    deadline: tokio::time::Instant,
    step: impl std::future::Future<Output = Result<T, OutboundError>>,
    slow: impl FnOnce() -> OutboundError,
) -> Result<T, OutboundError> {
    timeout_at(deadline, step).await.unwrap_or_else(|_| Err(slow()))
}

/// The next URL of a redirect, resolved against the current one. Credentials never travel to
/// another origin.
pub fn follow(current: &Url, location: &str) -> Result<Url, OutboundError> {
    let mut next = current.join(location.trim()).map_err(|e| {
        OutboundError::Unreachable(format!("{} redirected to {location:?}, which is not a URL: {e}", host_of(current)))
    })?;
    if next.origin() != current.origin() {
        let _ = next.set_username("");
        let _ = next.set_password(None);
    }
    next.set_fragment(None);
    Ok(next)
}

fn host_of(url: &Url) -> String {
    url.host_str().unwrap_or("the target").to_string()
}

/// A reqwest failure in words that name the host and what went wrong.
fn describe(e: &reqwest::Error, target: &Target) -> OutboundError {
    let mut cause = String::new();
    let mut source: Option<&dyn std::error::Error> = std::error::Error::source(e);
    while let Some(s) = source {
        cause = s.to_string();
        source = s.source();
    }
    let host = &target.host;
    if e.is_timeout() {
        return OutboundError::Timeout(format!("{host} did not answer in time"));
    }
    let what = if e.is_connect() { "could not connect to" } else { "failed answering from" };
    // reqwest's own message names the URL, query included, which may hold a provider's key.
    let cause = if cause.is_empty() {
        let shown = e.to_string();
        e.url().map_or(shown.clone(), |u| shown.replace(u.as_str(), "the URL"))
    } else {
        cause
    };
    OutboundError::Unreachable(format!("{what} {host}: {cause}"))
}

#[cfg(test)]
mod tests {
    use super::follow;

    #[test]
    fn redirects_resolve_like_browsers_and_drop_credentials_across_origins() {
        let base = url::Url::parse("http://user:pw@a.example/x/y?q=1#f").unwrap();
        for (location, want) in [
            ("/z", "http://user:pw@a.example/z"),
            ("z", "http://user:pw@a.example/x/z"),
            ("//b.example/p", "http://b.example/p"),
            ("/\\b.example/p", "http://b.example/p"),
            ("https://a.example/s", "https://a.example/s"),
            ("http://a.example/t#frag", "http://a.example/t"),
            ("http://0x7f000001/", "http://127.0.0.1/"),
        ] {
            assert_eq!(follow(&base, location).unwrap().as_str(), want, "{location}");
        }
        assert!(follow(&base, "http://[::1").is_err());
    }
}
