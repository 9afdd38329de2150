//! MCP: every operation as a tool for AI agents, over Streamable HTTP at `/mcp` and over stdio
//! (`wrench mcp`), with the official Rust SDK (rmcp).
//!
//! A tool call is not a second implementation of anything: it becomes an HTTP request to the
//! operation's route, built from the arguments and carrying the caller's `X-API-Key` /
//! `Authorization` and address, and goes through the same routes, key checks, rate limits,
//! validation and limits as any other request. The answer is translated: a JSON result becomes
//! structured content (and its text), an image becomes MCP image content, a redirect its
//! location, and an error envelope a tool error with the code, message and field, so an agent
//! reads what went wrong and can correct its arguments.

pub(crate) mod tools;

pub use tools::tools_of;

use std::{net::SocketAddr, sync::Arc};

use base64::Engine;
use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use poem::{
    Body, Endpoint, Request, Response,
    http::{HeaderMap, HeaderValue, header},
};
use rmcp::{
    ErrorData as McpError, RoleServer, ServerHandler,
    model::{
        CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, Implementation, ListToolsResult,
        PaginatedRequestParams, ServerCapabilities, ServerConfig,
    },
    service::RequestContext,
    transport::streamable_http_server::{
        StreamableHttpServerConfig, StreamableHttpService, session::local::LocalSessionManager,
    },
};
use serde_json::{Map, Value, json};

use wrench_contract::op::{InputKind, Operation, OutputKind};
use wrench_infra::envelope::{ApiError, ErrorCode};

/// The request headers a tool call passes on to the operation: who the caller is, and the
/// proxy headers that say where it came from (read only from trusted proxies, as always).
const PASSED_ON: &[&str] = &["x-api-key", "authorization", "x-forwarded-for", "user-agent"];

/// The peer address of the MCP request, kept in the HTTP request for the tool call.
#[derive(Clone, Copy)]
struct Peer(Option<SocketAddr>);

/// The tools, and the routes their calls go to.
#[derive(Clone)]
pub struct Tools {
    /// Built on the first MCP request: the tools' schemas take memory a server that is never
    /// asked for them need not hold.
    catalogue: Arc<std::sync::OnceLock<tools::Catalogue>>,
    ops: Arc<[Operation]>,
    routes: Arc<poem::Route>,
    /// Headers every call carries (the stdio server's key, from WRENCH_API_KEY).
    fixed: HeaderMap,
    /// The largest body an operation takes beyond the global limit (a 1 MiB paste arrives
    /// escaped in JSON), so a tool call can carry what its route accepts.
    largest_body: usize,
}

impl Tools {
    pub(crate) fn new(ops: &[Operation], routes: Arc<poem::Route>) -> Self {
        let largest_body = ops.iter().filter_map(|o| o.body_limit).max().unwrap_or(0);
        Tools { catalogue: Arc::default(), ops: ops.into(), routes, fixed: HeaderMap::new(), largest_body }
    }

    fn catalogue(&self) -> &tools::Catalogue {
        self.catalogue.get_or_init(|| tools::catalogue(&self.ops))
    }

    /// Sends every call with `X-API-Key: key`.
    pub fn with_key(mut self, key: &str) -> Result<Self, String> {
        let value = HeaderValue::from_str(key).map_err(|_| "the API key is not a valid header value".to_string())?;
        self.fixed.insert("x-api-key", value);
        Ok(self)
    }

    /// Runs tool `name` as a request from `headers` and `peer`.
    async fn call(
        &self,
        name: &str,
        mut args: Map<String, Value>,
        headers: &HeaderMap,
        peer: Option<SocketAddr>,
    ) -> Result<CallToolResult, McpError> {
        let target = self
            .catalogue()
            .targets
            .get(name)
            .ok_or_else(|| McpError::invalid_params(format!("there is no tool named {name:?}"), None))?;
        let route = &target.route;
        let text = |v: &Value| v.as_str().map_or_else(|| v.to_string(), str::to_string);
        let mut missing = None;
        let path = route.template().fill(|p| {
            let value = if target.injected.contains(&p) { args.remove(p) } else { args.get(p).cloned() };
            match value {
                Some(v) => form_urlencoded::byte_serialize(text(&v).as_bytes()).collect::<String>().replace('+', "%20"),
                None => {
                    missing = Some(p.to_string());
                    String::new()
                }
            }
        });
        if let Some(p) = missing {
            return Ok(error_result(
                json!({"status": 400, "code": "VALIDATION_ERROR", "message": format!("{p}: is required"), "field": p}),
            ));
        }
        let (uri, content_type, body) = match route.input {
            InputKind::Body => {
                (path, Some("application/json".to_string()), Bytes::from(Value::Object(args).to_string()))
            }
            InputKind::Raw => {
                let content_type = args.get("contentType").map(text).unwrap_or_else(|| "application/json".into());
                let body = args.get("body").map(text).unwrap_or_default();
                (path, Some(content_type), Bytes::from(body))
            }
            InputKind::Query | InputKind::None => {
                let query = tools::query_of(&args);
                (if query.is_empty() { path } else { format!("{path}?{query}") }, None, Bytes::new())
            }
        };
        let mut request = http::Request::builder().method(route.method.as_str()).uri(&uri);
        for (name, value) in headers.iter().filter(|(n, _)| PASSED_ON.contains(&n.as_str())).chain(&self.fixed) {
            request = request.header(name, value);
        }
        if let Some(ct) = content_type {
            request = request.header(header::CONTENT_TYPE, ct);
        }
        let request =
            request.body(()).map_err(|e| McpError::invalid_params(format!("the call cannot be sent: {e}"), None))?;
        let (parts, ()) = request.into_parts();
        let remote = peer.map_or_else(poem::Addr::default, poem::Addr::SocketAddr);
        let parts = poem::RequestParts::from((
            parts,
            poem::web::LocalAddr(poem::Addr::Custom("mcp", "".into())),
            poem::web::RemoteAddr(remote),
            poem::http::uri::Scheme::HTTP,
        ));
        let response = match self.routes.call(Request::from_parts(parts, Body::from(body))).await {
            Ok(r) => r,
            Err(e) => e.into_response(),
        };
        Ok(translate(response, target.output).await)
    }
}

/// A tool error carrying the error envelope's members and the status.
fn error_result(error: Value) -> CallToolResult {
    CallToolResult::structured_error(error)
}

/// The operation's answer as a tool result.
async fn translate(response: Response, output: OutputKind) -> CallToolResult {
    let status = response.status();
    let content_type =
        response.headers().get(header::CONTENT_TYPE).and_then(|v| v.to_str().ok()).unwrap_or("").to_string();
    let location = response.headers().get(header::LOCATION).and_then(|v| v.to_str().ok()).map(str::to_string);
    let retry_after = response.headers().get(header::RETRY_AFTER).and_then(|v| v.to_str().ok()).map(str::to_string);
    let bytes = response.into_body().into_bytes().await.unwrap_or_default();
    if status.is_redirection() {
        return CallToolResult::structured(json!({"status": status.as_u16(), "location": location}));
    }
    if !status.is_success() || content_type.starts_with("application/json") {
        let envelope: Value = serde_json::from_slice(&bytes).unwrap_or(Value::Null);
        if status.is_success() && envelope["success"] == true {
            return CallToolResult::structured(envelope["data"].clone());
        }
        let mut error = envelope["error"].as_object().cloned().unwrap_or_default();
        error.insert("status".into(), json!(status.as_u16()));
        if let Some(r) = retry_after {
            error.insert("retryAfter".into(), json!(r));
        }
        return error_result(Value::Object(error));
    }
    match output {
        OutputKind::Image if content_type.starts_with("image/") => {
            let data = base64::engine::general_purpose::STANDARD.encode(&bytes);
            let mime = content_type.split(';').next().unwrap_or(&content_type).trim().to_string();
            CallToolResult::success(vec![ContentBlock::image(data, mime)])
        }
        _ => CallToolResult::success(vec![ContentBlock::text(String::from_utf8_lossy(&bytes).into_owned())]),
    }
}

impl ServerHandler for Tools {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new("wrench", env!("CARGO_PKG_VERSION")))
            .with_instructions(
                "Every wrench operation is a tool named by its operationId. Arguments are the operation's \
                 input fields; errors come back as tool errors with code, message and the field at fault.",
            )
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, McpError> {
        Ok(ListToolsResult::with_all_items(self.catalogue().tools.clone()))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, McpError> {
        let parts = context.extensions.get::<http::request::Parts>();
        let headers = parts.map(|p| p.headers.clone()).unwrap_or_default();
        let peer = match parts.and_then(|p| p.extensions.get::<Peer>()) {
            Some(Peer(addr)) => *addr,
            // stdio: the local user.
            None => Some(SocketAddr::from(([127, 0, 0, 1], 0))),
        };
        let args = request.arguments.unwrap_or_default();
        Ok(self.call(&request.name, args, &headers, peer).await?.into())
    }
}

/// `/mcp`: the Streamable HTTP transport, stateless, answering with JSON.
pub(crate) struct McpEndpoint {
    service: StreamableHttpService<Tools, LocalSessionManager>,
    body_limit: usize,
}

impl McpEndpoint {
    pub(crate) fn new(tools: Tools, config: &wrench_infra::config::Config) -> Self {
        // The Host check guards a local server against DNS rebinding: loopback names, the
        // listen address and the public URL's host are accepted.
        let mut hosts: Vec<String> = vec!["localhost".into(), "127.0.0.1".into(), "::1".into()];
        hosts.push(config.listen.ip().to_string());
        if let Some(host) = url::Url::parse(&config.public_url).ok().and_then(|u| u.host_str().map(str::to_string)) {
            hosts.push(host);
        }
        let mut settings = StreamableHttpServerConfig::default().with_allowed_hosts(hosts);
        settings.legacy_session_mode = false;
        settings.json_response = true;
        settings.sse_keep_alive = None;
        // A call's arguments become the route's body: room for the largest, and for the
        // JSON-RPC around it.
        let body_limit = tools.largest_body.max(config.body_limit) + 64 * 1024;
        settings.max_request_body_bytes = body_limit;
        let service = StreamableHttpService::new(move || Ok(tools.clone()), Default::default(), settings);
        McpEndpoint { service, body_limit }
    }
}

impl Endpoint for McpEndpoint {
    type Output = Response;

    async fn call(&self, req: Request) -> poem::Result<Response> {
        let meta = super::meta_of(&req);
        let peer = req.remote_addr().as_socket_addr().copied();
        let method = req.method().clone();
        let uri = req.uri().clone();
        let headers = req.headers().clone();
        let body = req.into_body().into_bytes_limit(self.body_limit).await.map_err(|e| {
            poem::Error::from_string(
                format!("the MCP request body could not be read: {e}"),
                poem::http::StatusCode::PAYLOAD_TOO_LARGE,
            )
        })?;
        let mut request = http::Request::builder()
            .method(method)
            .uri(uri)
            .body(Full::new(body))
            .map_err(|e| poem::Error::from_string(e.to_string(), poem::http::StatusCode::BAD_REQUEST))?;
        *request.headers_mut() = headers;
        request.extensions_mut().insert(Peer(peer));
        let mut service = self.service.clone();
        let response = match tower_service::Service::call(&mut service, request).await {
            Ok(r) => r,
            Err(never) => match never {},
        };
        let (parts, body) = response.into_parts();
        let bytes = body.collect().await.map(|c| c.to_bytes()).unwrap_or_default();
        let json =
            parts.headers.get(header::CONTENT_TYPE).is_some_and(|v| v.as_bytes().starts_with(b"application/json"));
        if parts.status.is_client_error() && !json {
            // The transport refused the request in plain text; answer in the envelope.
            let err =
                transport_error(parts.status, String::from_utf8_lossy(&bytes).trim(), parts.headers.get(header::ALLOW));
            return Ok(crate::http::envelope::error_response(&err, &meta.envelope_meta().as_meta()));
        }
        let mut out = Response::builder().status(parts.status).body(bytes);
        *out.headers_mut() = parts.headers;
        Ok(out)
    }
}

/// The envelope error for a refusal of the MCP transport, with the status it came with.
fn transport_error(status: poem::http::StatusCode, text: &str, allow: Option<&HeaderValue>) -> ApiError {
    let code = match status.as_u16() {
        403 => ErrorCode::HostNotAllowed,
        404 => ErrorCode::NotFound,
        405 => ErrorCode::MethodNotAllowed,
        406 => ErrorCode::NotAcceptable,
        413 => ErrorCode::PayloadTooLarge,
        415 => ErrorCode::UnsupportedMediaType,
        _ => ErrorCode::ValidationError,
    };
    let message =
        if text.is_empty() { status.canonical_reason().unwrap_or("refused").to_string() } else { text.to_string() };
    let err = ApiError::new(code, format!("MCP: {message}"));
    match allow {
        Some(a) => err.with_header(header::ALLOW, a.clone()),
        None => err,
    }
}

/// Serves the tools over stdin and stdout until the client closes them.
pub async fn serve_stdio(tools: Tools) -> Result<(), String> {
    use rmcp::ServiceExt;
    let running = tools.serve(rmcp::transport::stdio()).await.map_err(|e| e.to_string())?;
    running.waiting().await.map_err(|e| e.to_string())?;
    Ok(())
}
