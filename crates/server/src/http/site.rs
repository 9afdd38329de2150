//! The routes that are not operations: the document, Swagger UI, the index (the home page for
//! a browser, `crate::ui`), liveness
//! (`/health`: the process answers; always 200, with the store's and data sets' state) and
//! readiness (`/ready`: 200 once the store answers and every configured data set is loaded,
//! else 503 `NOT_READY` saying what is missing, for load balancers and orchestrators), and the
//! files of the pages for people that the registry brings (the webhook inbox page, the paste
//! page: `op::PageFile`), served without knowing whose they are.
//!
//! Swagger UI is compiled into the binary (utoipa-swagger-ui's vendored copy), so `/docs`
//! works offline. Its "Try it out" calls the serving host, because the document declares no
//! servers, and its "Authorize" dialog offers the `X-API-Key` scheme from the document.

use std::sync::Arc;

use poem::{
    Endpoint, Request, Response, Route,
    http::{Method, StatusCode, header},
};

use super::{State, meta_of, method_not_allowed};
use wrench_contract::op::{self, PageFile, PageKind};
use wrench_infra::{
    envelope::{ApiError, ErrorCode},
    store::StoreError,
};

#[derive(Clone, Copy)]
enum Page {
    Metrics,
    OpenApi,
    OpenApi30,
    DocsRoot,
    DocsFile,
    Index,
    Health,
    Ready,
    /// A file of a page for people, from the registry.
    File(PageFile),
}

/// What the pages may load and run: their own script and style, calls to this origin, and
/// nothing inline, so a delivery's or a paste's content can never run even if it reached the
/// markup.
// `blob:` images are the ones a page's own script made of an answer (a tool page's PNG or SVG).
const PAGE_CSP: &str = "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; \
     img-src 'self' blob:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

/// A page for people: its HTML under the policy that lets it run only its own files.
fn page_for_people(html: &'static str) -> Response {
    Response::builder()
        .content_type("text/html; charset=utf-8")
        .header(header::CONTENT_SECURITY_POLICY, PAGE_CSP)
        .header(header::REFERRER_POLICY, "no-referrer")
        .header(header::X_FRAME_OPTIONS, "DENY")
        .body(html)
}

/// A page's script or style, checked again on every load (they change with the binary).
fn page_file(content_type: &'static str, body: &'static str) -> Response {
    Response::builder().content_type(content_type).header(header::CACHE_CONTROL, "no-cache").body(body)
}

struct SiteEndpoint {
    page: Page,
    state: Arc<State>,
    swagger: Arc<utoipa_swagger_ui::Config<'static>>,
}

/// Mounts the server's own pages and the registry's page files.
pub(super) fn mount(route: Route, state: Arc<State>, files: &[PageFile]) -> Route {
    let swagger = Arc::new(
        utoipa_swagger_ui::Config::from("/openapi.json")
            .try_it_out_enabled(true)
            .persist_authorization(true)
            .display_operation_id(true)
            // The home page links each operation to its place here (`#/{tag}/{operationId}`).
            .deep_linking(true),
    );
    let files =
        files.iter().chain(crate::ui::FILES).flat_map(|f| f.paths.iter().map(move |path| (*path, Page::File(*f))));
    PAGES.iter().copied().chain(files).fold(route, |route, (path, page)| {
        route.at(path, SiteEndpoint { page, state: state.clone(), swagger: swagger.clone() })
    })
}

/// Why a page file cannot be served where it asks to be: a path whose first segment is not one
/// of the server's own (`op::SERVER_PATHS`), so a short link at the root could shadow it, or one
/// the server's own pages already answer.
pub(super) fn refused_page_path(file: &PageFile) -> Option<String> {
    file.paths.iter().find_map(|path| {
        let first = path.trim_start_matches('/').split('/').next().unwrap_or_default();
        if !path.starts_with('/') || first.is_empty() || !op::is_server_path(first) {
            Some(format!("the page file at {path} is not under one of the server's own paths (op::SERVER_PATHS)"))
        } else if PAGES.iter().any(|(own, _)| own == path) {
            Some(format!("the page file at {path} would replace the server's own page there"))
        } else {
            None
        }
    })
}

/// Every page of the site and where it is. Their first segments are among the server's own
/// (`op::SERVER_PATHS`), which a short link at the root may not shadow; a test checks it.
const PAGES: &[(&str, Page)] = &[
    ("/openapi.json", Page::OpenApi),
    ("/openapi-3.0.json", Page::OpenApi30),
    ("/docs", Page::DocsRoot),
    ("/docs/*tail", Page::DocsFile),
    ("/", Page::Index),
    ("/health", Page::Health),
    ("/ready", Page::Ready),
    ("/metrics", Page::Metrics),
];

impl Endpoint for SiteEndpoint {
    type Output = Response;

    async fn call(&self, req: Request) -> poem::Result<Response> {
        let meta = meta_of(&req);
        if req.method() != Method::GET && req.method() != Method::HEAD {
            return Ok(method_not_allowed(req.method(), &["GET", "HEAD"], &meta));
        }
        let json = |data: serde_json::Value| {
            let bytes = serde_json::to_vec(&data).unwrap_or_default();
            Response::builder()
                .content_type("application/json")
                .body(super::envelope::success_bytes(&bytes, &meta.envelope_meta().as_meta()))
        };
        let store_reachable = || async {
            let store = &self.state.store;
            matches!(tokio::time::timeout(std::time::Duration::from_secs(2), store.ping()).await, Ok(Ok(())))
        };
        Ok(match self.page {
            Page::OpenApi => Response::builder()
                .content_type("application/json")
                .header(header::CACHE_CONTROL, "no-cache")
                .body(self.state.openapi.clone()),
            Page::Metrics => Response::builder()
                .content_type("text/plain; version=0.0.4; charset=utf-8")
                .body(wrench_infra::metrics::render(self.state.store.circuits_open())),
            Page::OpenApi30 => Response::builder()
                .content_type("application/json")
                .header(header::CACHE_CONTROL, "no-cache")
                .body(self.state.openapi_30()),
            Page::DocsRoot => Response::builder().status(StatusCode::FOUND).header(header::LOCATION, "/docs/").finish(),
            Page::DocsFile => {
                let tail = req.raw_path_param("tail").unwrap_or("").to_string();
                match utoipa_swagger_ui::serve(&tail, self.swagger.clone()) {
                    Ok(Some(file)) => {
                        let b = Response::builder().content_type(file.content_type);
                        let b = if file.gzpipped { b.header(header::CONTENT_ENCODING, "gzip") } else { b };
                        b.header(header::CACHE_CONTROL, "public, max-age=3600").body(file.bytes.into_owned())
                    }
                    Ok(None) => super::envelope::error_response(
                        &ApiError::not_found(format!("no such documentation file: {tail}")),
                        &meta.envelope_meta().as_meta(),
                    ),
                    Err(e) => super::envelope::error_response(
                        &ApiError::internal(format!("documentation page failed: {e}")),
                        &meta.envelope_meta().as_meta(),
                    ),
                }
            }
            Page::File(file) => match file.kind {
                PageKind::Html => page_for_people(crate::ui::with_shared_parts(file.body)),
                PageKind::Script => page_file("text/javascript; charset=utf-8", file.body),
                PageKind::Style => page_file("text/css; charset=utf-8", file.body),
                PageKind::Svg => {
                    // Opened on its own, an SVG is a document; this one may load and run nothing.
                    let mut response = page_file("image/svg+xml", file.body);
                    response.headers_mut().insert(
                        header::CONTENT_SECURITY_POLICY,
                        header::HeaderValue::from_static("default-src 'none'"),
                    );
                    response
                }
            },
            // A browser gets the home page; API clients, the index as JSON. Either answer
            // says it depends on `Accept`, so that a cache keeps them apart.
            Page::Index => {
                let accept = req.headers().get(header::ACCEPT).and_then(|v| v.to_str().ok());
                let mut response = if super::weights::wants_html(accept) {
                    page_for_people(crate::ui::home())
                } else {
                    json(serde_json::json!({
                        "name": "wrench",
                        "version": env!("CARGO_PKG_VERSION"),
                        "apiVersion": crate::openapi::API_VERSION,
                        "operations": self.state.operation_count,
                        "docs": "/docs/",
                        "openapi": "/openapi.json",
                    }))
                };
                response.headers_mut().insert(header::VARY, header::HeaderValue::from_static("Accept"));
                response
            }
            Page::Health => {
                // Liveness is always "ok"; the store's state is reported beside it, bounded in
                // time: whether it answers, and whether a write would find room now (a full
                // disk or a Redis at maxmemory answers, but refuses writes: 507 STORE_FULL).
                let store = &self.state.store;
                let reachable = store_reachable().await;
                let room = match reachable {
                    false => Err("the store does not answer".to_string()),
                    true => match tokio::time::timeout(std::time::Duration::from_secs(2), store.writable()).await {
                        Ok(Ok(())) => Ok(()),
                        Ok(Err(StoreError::Full(why))) => Err(why),
                        Ok(Err(e)) => Err(format!("its room could not be checked: {e}")),
                        Err(_) => Err("its room could not be checked within 2 s".to_string()),
                    },
                };
                let mut described = serde_json::json!({
                    "backend": store.backend(),
                    "reachable": reachable,
                    "writable": room.is_ok(),
                });
                if let Err(why) = room {
                    described["reason"] = why.into();
                }
                json(serde_json::json!({
                    "status": "ok",
                    "store": described,
                    "datasets": self.state.datasets.status(),
                    // The registry's start-up work (embedded tables built in the background;
                    // each is built on first use otherwise).
                    "startup": self.state.startup.report(),
                }))
            }
            Page::Ready => {
                let mut missing = Vec::new();
                if !store_reachable().await {
                    missing.push(format!("the {} store does not answer", self.state.store.backend()));
                }
                for set in self.state.datasets.status() {
                    // A set that failed to reload keeps serving its loaded copy ("loaded").
                    if !set.state.is_ready() {
                        missing.push(format!("the {} data set ({}) is {}", set.name, set.setting, set.state));
                    }
                }
                if missing.is_empty() {
                    json(serde_json::json!({"ready": true}))
                } else {
                    super::envelope::error_response(
                        &ApiError::new(ErrorCode::NotReady, format!("not ready: {}", missing.join("; "))),
                        &meta.envelope_meta().as_meta(),
                    )
                }
            }
        })
    }
}

#[cfg(test)]
mod tests {
    /// The list a short link at the root is checked against holds every first segment the
    /// server answers: its pages and `/mcp` (the operations' routes and the registry's page
    /// files are checked where the server meets them, in tests/it/openapi.rs, and when it
    /// starts).
    #[test]
    fn the_server_paths_name_every_page_and_route() {
        let first = |path: &str| path.trim_start_matches('/').split('/').next().unwrap_or_default().to_string();
        for (path, _) in super::PAGES {
            let segment = first(path);
            assert!(
                segment.is_empty() || wrench_contract::op::is_server_path(&segment),
                "{path} is missing from op::SERVER_PATHS"
            );
        }
        assert!(wrench_contract::op::is_server_path("mcp"));
    }
}

#[cfg(test)]
mod page_files {
    use super::*;

    #[test]
    fn a_page_file_outside_the_servers_paths_is_refused() {
        let file = |paths: &'static [&'static str]| PageFile { paths, kind: PageKind::Style, body: "" };
        assert_eq!(refused_page_path(&file(&["/inbox-assets/x.css", "/p/:id"])), None);
        for bad in
            [&["/mine/x.css"][..], &["/"][..], &["p/x"][..], &["/inbox-assets/a", "/elsewhere"][..], &["/health"][..]]
        {
            assert!(refused_page_path(&file(bad)).is_some(), "{bad:?}");
        }
    }
}
