//! Server assembly: routing from the registry, the edges of HTTP, logs and shutdown.
//!
//! Each distinct path gets one endpoint that knows every method declared on it, so a wrong
//! method is a 405 envelope with an `Allow` header (never the framework's bare 405), and an
//! unknown path is a 404 envelope. Every response, whatever produced it, leaves through
//! [`App`], which stamps `X-Request-Id`, `X-Content-Type-Options: nosniff` and writes the one
//! log line of the request (method, path without query, status, duration; never bodies, query
//! strings or keys).

mod answer_encoding;
mod cors;
mod drain;
mod envelope;
pub mod limits;
pub mod mcp;
mod pipeline;
pub mod server;
mod site;
mod startup;
mod steps;
pub use startup::on_memory_freed;
pub mod tls;
pub(crate) mod weights;

use std::{
    collections::BTreeMap,
    sync::{Arc, OnceLock},
    time::Instant,
};

use poem::{
    Endpoint, Request, Response,
    http::{HeaderValue, Method, StatusCode, header},
};
use tracing::info;

use crate::keys::KeyRing;
use envelope::error_response;
use wrench_contract::{
    op::{self, HttpMethod, Operation, Registry, Route},
    services::Services,
};
use wrench_infra::{
    config::Config,
    envelope::{ApiError, ErrorCode},
    store::{Store, embedded::EmbeddedStore},
};

/// What every endpoint of the app shares.
pub(crate) struct State {
    pub(crate) config: Arc<Config>,
    pub(crate) store: Arc<dyn Store>,
    /// Short-link visits waiting to be described in the store.
    /// The operations' group services, for this server's store (`wrench_contract::services`).
    pub(crate) services: Arc<Services>,
    pub(crate) net: Arc<wrench_infra::outbound::Net>,
    pub(crate) datasets: Arc<wrench_infra::datasets::Datasets>,
    pub(crate) keys: KeyRing,
    /// The document, shared by every answer that serves it.
    pub(crate) openapi: bytes::Bytes,
    /// The same document rendered as OpenAPI 3.0.3, made when first asked for.
    openapi_30: std::sync::OnceLock<bytes::Bytes>,
    pub(crate) operation_count: usize,
    pub(crate) startup: Arc<startup::Startup>,
    /// The operations as recipe steps, handed to every operation's context.
    pub(crate) steps: Arc<dyn wrench_contract::op::Steps>,
}

impl State {
    /// The document as OpenAPI 3.0.3, rendered from the 3.1 document on first use.
    pub(crate) fn openapi_30(&self) -> bytes::Bytes {
        self.openapi_30
            .get_or_init(|| {
                let doc: serde_json::Value = serde_json::from_slice(&self.openapi).unwrap_or_default();
                serde_json::to_vec_pretty(&crate::openapi::v30::render(&doc)).unwrap_or_default().into()
            })
            .clone()
    }
}

/// Per-request values, put in the request's extensions by [`App`].
pub(crate) struct RequestMeta {
    pub(crate) id: Arc<str>,
    started: Instant,
    op: OnceLock<&'static str>,
}

impl RequestMeta {
    fn new() -> Self {
        RequestMeta {
            id: uuid::Uuid::new_v4().simple().to_string().into(),
            started: Instant::now(),
            op: OnceLock::new(),
        }
    }

    pub(crate) fn set_op(&self, id: &'static str) {
        let _ = self.op.set(id);
    }

    /// Milliseconds since the request arrived, to the microsecond.
    fn elapsed_ms(&self) -> f64 {
        (self.started.elapsed().as_secs_f64() * 1e6).round() / 1e3
    }

    /// Values for `meta`, with the duration measured now.
    pub(crate) fn envelope_meta(&self) -> pipeline::MetaValues {
        pipeline::MetaValues::new(self.id.clone(), self.elapsed_ms())
    }
}

fn meta_of(req: &Request) -> Arc<RequestMeta> {
    req.extensions().get::<Arc<RequestMeta>>().cloned().unwrap_or_else(|| Arc::new(RequestMeta::new()))
}

/// The whole service as one poem endpoint.
pub struct App {
    route: Arc<poem::Route>,
    /// `/mcp`, whose tool calls go to `route`.
    mcp: mcp::McpEndpoint,
    tools: mcp::Tools,
    datasets: Arc<wrench_infra::datasets::Datasets>,
    services: Arc<Services>,
    cors: wrench_infra::config::CorsOrigins,
    startup: Arc<startup::Startup>,
    /// Routes also served under paths the operator chose (`op::Mount`).
    mounts: Vec<PathMount>,
}

/// A GET route served also under `prefix`: `{prefix}{value}` is answered as `{target}{value}`.
struct PathMount {
    prefix: String,
    target: String,
}

impl PathMount {
    /// The route's own path for `path` (with `query`), when `path` is under the prefix: one
    /// segment after it, and at the root never one of the server's own first segments.
    fn route(&self, path: &str, query: Option<&str>) -> Option<String> {
        let value = path.strip_prefix(self.prefix.as_str())?;
        if value.is_empty() || value.contains('/') || (self.prefix == "/" && op::is_server_path(value)) {
            return None;
        }
        Some(match query {
            Some(q) => format!("{}{value}?{q}", self.target),
            None => format!("{}{value}", self.target),
        })
    }
}

/// The mounts the settings turn on, each checked against the server's own paths and tied to
/// its operation's GET route.
fn path_mounts(config: &Config, ops: &[Operation], mounts: &[op::Mount]) -> Result<Vec<PathMount>, String> {
    let mut out = Vec::new();
    for mount in mounts {
        let Some(prefix) = (mount.prefix)(config) else { continue };
        let first = prefix.trim_start_matches('/').split('/').next().unwrap_or_default();
        if !prefix.starts_with('/') || !prefix.ends_with('/') || (!first.is_empty() && op::is_server_path(first)) {
            return Err(format!(
                "{}: its path {prefix} is not free: it must end in / and not start with one of the server's own paths ({})",
                mount.setting,
                op::SERVER_PATHS.join(", ")
            ));
        }
        let route = ops
            .iter()
            .flat_map(|o| o.routes)
            .find(|r| r.id == mount.operation && r.method == HttpMethod::Get)
            .ok_or_else(|| format!("{}: no GET route {} to serve", mount.setting, mount.operation))?;
        let template = route.template();
        let params: Vec<&str> = template.params().collect();
        let target = match params.as_slice() {
            [param] => route.path.strip_suffix(&format!("{{{param}}}")),
            _ => None,
        }
        .ok_or_else(|| format!("{}: {} does not end in its one parameter", mount.setting, route.path))?;
        out.push(PathMount { prefix: prefix.to_string(), target: target.to_string() });
    }
    Ok(out)
}

/// Builds the app with a store that lives in memory only: for tests and throw-away use.
pub fn app(config: Arc<Config>, ops: Vec<Operation>) -> Result<App, String> {
    let store = EmbeddedStore::in_memory().map_err(|e| e.to_string())?;
    app_with_store(config, Arc::new(store), ops)
}

/// Builds the app from a config, a store and a list of operations. Refuses duplicate
/// operationIds or routes.
pub fn app_with_store(config: Arc<Config>, store: Arc<dyn Store>, ops: Vec<Operation>) -> Result<App, String> {
    build(config, store, ops, &[], &[])
}

/// Builds the app from a config, a store and a registry: its operations, the paths some of
/// them are also served under, and its pages' files.
pub fn app_from_registry(config: Arc<Config>, store: Arc<dyn Store>, registry: &Registry) -> Result<App, String> {
    build(config, store, registry.operations.clone(), &registry.mounts, &registry.pages)
}

fn build(
    config: Arc<Config>,
    store: Arc<dyn Store>,
    ops: Vec<Operation>,
    mounts: &[op::Mount],
    pages: &[op::PageFile],
) -> Result<App, String> {
    let mounts = path_mounts(&config, &ops, mounts)?;
    if let Some(why) = pages.iter().find_map(site::refused_page_path) {
        return Err(why);
    }
    let mut ids = std::collections::HashSet::new();
    let mut by_path: BTreeMap<String, Vec<Mounted>> = BTreeMap::new();
    for op in &ops {
        let shared = Arc::new(op.clone());
        for route in op.routes {
            if !ids.insert(route.id) {
                return Err(format!("two routes have the operationId {}", route.id));
            }
            let template = route.template();
            // poem's spelling of a parameter segment is `:name`.
            let entry = by_path.entry(template.router_pattern()).or_default();
            if entry.iter().any(|m| m.route.method == route.method) {
                return Err(format!("two operations answer {} {}", route.method.as_str(), route.path));
            }
            entry.push(Mounted { op: shared.clone(), route: *route, params: template.params().collect() });
        }
    }
    let doc = crate::openapi::with_public_url(crate::openapi::document(&ops), &config.public_url);
    let net = Arc::new(wrench_infra::outbound::Net::new(&config.outbound, &config.public_base())?);
    let datasets = Arc::new(wrench_infra::datasets::Datasets::new(&config.datasets));
    let openapi: bytes::Bytes = serde_json::to_vec_pretty(&doc).map_err(|e| e.to_string())?.into();
    let steps = Arc::new(steps::Dispatcher::new(&ops, config.clone(), store.clone(), openapi.clone()));
    let state = Arc::new(State {
        steps,
        net,
        datasets: datasets.clone(),
        keys: KeyRing::new(config.api_keys.clone()),
        config,
        services: Arc::default(),
        store,
        openapi,
        openapi_30: std::sync::OnceLock::new(),
        operation_count: ops.len(),
        startup: Arc::new(startup::Startup::default()),
    });
    let startup = state.startup.clone();
    let services = state.services.clone();
    let mut route = poem::Route::new();
    for (path, routes) in by_path {
        route = route.at(path, PathEndpoint { state: state.clone(), routes });
    }
    let cors = state.config.cors.clone();
    let config = state.config.clone();
    let route = Arc::new(site::mount(route, state, pages));
    let tools = mcp::Tools::new(&ops, route.clone());
    let mcp = mcp::McpEndpoint::new(tools.clone(), &config);
    Ok(App { route, mcp, tools, datasets, services, cors, startup, mounts })
}

/// One route of an operation, as the router holds it.
pub(crate) struct Mounted {
    pub(crate) op: Arc<Operation>,
    pub(crate) route: Route,
    /// The path's parameter names, parsed once when the app is built.
    pub(crate) params: Vec<&'static str>,
}

/// Every route declared on one path, whatever its method.
struct PathEndpoint {
    state: Arc<State>,
    routes: Vec<Mounted>,
}

impl Endpoint for PathEndpoint {
    type Output = Response;

    async fn call(&self, req: Request) -> poem::Result<Response> {
        let meta = meta_of(&req);
        let method = req.method().clone();
        let find = |m: HttpMethod| self.routes.iter().find(|r| r.route.method == m);
        let wanted = self.routes.iter().find(|r| r.route.method.as_str() == method.as_str());
        let found = wanted.or_else(|| if method == Method::HEAD { find(HttpMethod::Get) } else { None });
        match found {
            Some(mounted) => Ok(pipeline::run(&self.state, mounted, req, &meta).await),
            None => {
                let mut allow: Vec<&str> = self.routes.iter().map(|r| r.route.method.as_str()).collect();
                if allow.contains(&"GET") {
                    allow.push("HEAD");
                }
                Ok(method_not_allowed(&method, &allow, &meta))
            }
        }
    }
}

pub(crate) fn method_not_allowed(method: &Method, allow: &[&str], meta: &RequestMeta) -> Response {
    let allow = allow.join(", ");
    let err = ApiError::new(ErrorCode::MethodNotAllowed, format!("{method} is not allowed here; use {allow}"))
        .with_header(header::ALLOW, HeaderValue::from_str(&allow).unwrap_or(HeaderValue::from_static("GET")));
    error_response(&err, &meta.envelope_meta().as_meta())
}

impl Endpoint for App {
    type Output = Response;

    async fn call(&self, mut req: Request) -> poem::Result<Response> {
        let meta = Arc::new(RequestMeta::new());
        req.extensions_mut().insert(meta.clone());
        let method = req.method().clone();
        // A clone shares the request target's bytes: no copy for the log line.
        let uri = req.uri().clone();
        if method == Method::GET || method == Method::HEAD {
            let routed = self.mounts.iter().find_map(|m| m.route(uri.path(), uri.query()));
            if let Some(Ok(target)) = routed.map(|t| t.parse::<poem::http::Uri>()) {
                *req.uri_mut() = target;
            }
        }
        let cors = cors::allowed(&self.cors, &req);
        let routed = match edge_error(&req) {
            Some(err) => Ok(error_response(&err, &meta.envelope_meta().as_meta())),
            None if cors.is_some() && cors::is_preflight(&req) => Ok(cors::preflight()),
            None if uri.path() == "/mcp" => self.mcp.call(req).await,
            None => self.route.call(req).await,
        };
        let mut resp = match routed {
            Ok(r) => r,
            Err(e) => {
                let err = if e.status() == StatusCode::NOT_FOUND {
                    ApiError::not_found(format!(
                        "there is nothing at {}; see /openapi.json for the operations",
                        uri.path()
                    ))
                } else {
                    let code = ErrorCode::ALL
                        .iter()
                        .copied()
                        .find(|c| c.status() == e.status())
                        .unwrap_or(ErrorCode::InternalError);
                    ApiError::new(code, e.to_string())
                };
                error_response(&err, &meta.envelope_meta().as_meta())
            }
        };
        let h = resp.headers_mut();
        if let Some(origin) = cors {
            cors::mark(h, origin);
        }
        if let Ok(v) = HeaderValue::from_str(&meta.id) {
            h.insert("x-request-id", v);
        }
        h.insert(header::X_CONTENT_TYPE_OPTIONS, HeaderValue::from_static("nosniff"));
        if !h.contains_key(header::CACHE_CONTROL) {
            h.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
        }
        let status = resp.status().as_u16();
        let duration_ms = meta.elapsed_ms();
        // Operations are counted by the pipeline (MCP tool calls included); here the rest.
        if meta.op.get().is_none() {
            wrench_infra::metrics::request(None, status, std::time::Duration::from_secs_f64(duration_ms / 1e3));
        }
        let line = crate::access_log::Line {
            request_id: &meta.id,
            method: method.as_str(),
            path: uri.path(),
            operation: meta.op.get().copied().unwrap_or("-"),
            status,
            duration_ms,
        };
        if !crate::access_log::write(&line) {
            info!(
                target: "wrench::request",
                request_id = %line.request_id,
                method = %line.method,
                path = %line.path,
                operation = line.operation,
                status,
                duration_ms,
                "request"
            );
        }
        Ok(resp)
    }
}

/// Most header fields read (enforced by hyper, whose refusal is rewritten into the envelope).
pub const MAX_HEADER_FIELDS: usize = 100;
/// Largest header section read (names and values), in bytes.
pub const MAX_HEADER_BYTES: usize = 32 * 1024;

/// 431 for a header section beyond what the server reads, before the request is routed.
/// (Request targets are limited by hyper, to 65,534 bytes: room for the longest GET a
/// declaration allows, such as a QR code's 2,953 characters percent-encoded.)
fn edge_error(req: &Request) -> Option<ApiError> {
    // More than MAX_HEADER_FIELDS fields never get here: hyper refuses them (see server.rs).
    let bytes: usize = req.headers().iter().map(|(k, v)| k.as_str().len() + v.len() + 4).sum();
    if bytes > MAX_HEADER_BYTES {
        return Some(ApiError::new(
            ErrorCode::HeadersTooLarge,
            format!("the header section is {bytes} bytes; the limit is {MAX_HEADER_BYTES}"),
        ));
    }
    None
}

/// Serves every operation as an MCP tool over stdin and stdout until the client closes them.
/// Calls carry `key` when given and come from 127.0.0.1 otherwise; logs go to stderr.
pub async fn serve_mcp_stdio(config: Config, registry: Registry, key: Option<String>) -> Result<(), String> {
    let _log_guard = crate::logging::init(&config);
    let config = Arc::new(config);
    let store = wrench_infra::store::open(&config)?;
    let app = app_from_registry(config, store, &registry)?;
    let warm = app.datasets.clone();
    tokio::spawn(async move { warm.load_all().await });
    let tools = match key {
        Some(k) => app.tools.clone().with_key(&k)?,
        None => app.tools.clone(),
    };
    let served = mcp::serve_stdio(tools).await;
    app.services.stop().await;
    served
}

/// Runs the server until SIGTERM or Ctrl-C, then lets in-flight requests finish.
pub async fn serve(config: Config, registry: Registry) -> Result<(), String> {
    let _log_guard = crate::logging::init(&config);
    let config = Arc::new(config);
    let store = wrench_infra::store::open(&config)?;
    match store.ping().await {
        Ok(()) => info!(backend = store.backend(), "store ready"),
        // Not fatal: stateless operations work, and the store answers 503 until it is back.
        Err(e) => tracing::warn!(backend = store.backend(), error = %e, "store not answering yet"),
    }
    let app = app_from_registry(config.clone(), store, &registry)?;
    // The data sets load in the background: the server answers at once, and a request that
    // needs one before it is ready waits for that load (see `datasets::slot`).
    let warm = app.datasets.clone();
    tokio::spawn(async move { warm.load_all().await });
    // Building the routes and the document freed about 9 MB that the allocator would keep
    // (BENCHMARKS.md, "Fifth round"); give it back before the start-up tasks allocate theirs.
    startup::memory_freed();
    app.startup.run(&registry.startup);
    let listener = tokio::net::TcpListener::bind(config.listen)
        .await
        .map_err(|e| format!("WRENCH_LISTEN ({}): {e}", config.listen))?;
    let tls = match &config.tls {
        Some(settings) => {
            let acceptor = tls::acceptor(settings)?;
            let listener = tokio::net::TcpListener::bind(settings.listen)
                .await
                .map_err(|e| format!("WRENCH_TLS_LISTEN ({}): {e}", settings.listen))?;
            info!(listen = %settings.listen, "wrench listening for HTTPS");
            Some((listener, acceptor))
        }
        None => None,
    };
    info!(listen = %config.listen, keys = config.api_keys.len(), body_limit = config.body_limit, "wrench listening");
    let services = app.services.clone();
    server::serve(listener, tls, app, &config, shutdown_signal()).await.map_err(|e| format!("server: {e}"))?;
    // What the services still hold (the last visits' descriptions, queued by requests that
    // have all answered by now).
    services.stop().await;
    info!("wrench stopped");
    Ok(())
}

async fn shutdown_signal() {
    let ctrl_c = async {
        let _ = tokio::signal::ctrl_c().await;
    };
    #[cfg(unix)]
    let term = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut s) => {
                s.recv().await;
            }
            Err(_) => std::future::pending::<()>().await,
        }
    };
    #[cfg(not(unix))]
    let term = std::future::pending::<()>();
    tokio::select! {
        _ = ctrl_c => {},
        _ = term => {},
    }
    info!("shutdown signal received; finishing in-flight requests");
}
