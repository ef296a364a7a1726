//! The direct path of [`McpServer::streamable_http`]: a well-formed stateless 2026-07-28
//! `tools/call` is answered here, and every other request goes to rmcp's
//! `StreamableHttpService` untouched.
//!
//! rmcp serves each stateless request through a one-shot session: it turns the request back
//! into JSON to check its headers, builds a peer and a transport, spawns a task and waits on a
//! channel for the answer. That machinery costs more than a whole mrtr round, on every round of
//! every flow. The direct path runs the same round, converts its reply with the same code and
//! serializes it with rmcp's own types, so the response is the one rmcp would send.
//!
//! A request takes the direct path only if it passes every check rmcp makes on it, each
//! checked here at least as strictly: an allowed `Host` and no `Origin`; `Accept` naming both
//! `application/json` and `text/event-stream` without parameters; a JSON `Content-Type`; a
//! `Content-Length` under rmcp's body limit; exactly one `MCP-Protocol-Version: 2026-07-28`,
//! `Mcp-Method: tools/call` and `Mcp-Name` naming the body's tool verbatim (a name of letters,
//! digits and `_-./`); no `Mcp-Session-Id` and no `Mcp-Param-*`; a body that is exactly a
//! JSON-RPC `tools/call` request whose `_meta` names 2026-07-28 and the client's capabilities.
//! Whatever fails or is unsure goes to rmcp (with the body already read), which answers it as
//! it always does, errors included.

use std::convert::Infallible;
use std::fmt::Display;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

use bytes::Bytes;
use http::header::{ACCEPT, CONTENT_LENGTH, CONTENT_TYPE, HOST, ORIGIN};
use http::{HeaderMap, Request, Response, StatusCode};
use http_body::Body;
use http_body_util::combinators::BoxBody;
use http_body_util::{BodyExt, Full};
use rmcp::model::{
    CallToolRequestMethod, CallToolRequestParams, ErrorCode, JsonRpcVersion2_0, ProtocolVersion,
    RequestId, ServerJsonRpcMessage, ServerResult,
};
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use serde::Deserialize;

use super::{McpServer, Principal, Retry, error};
use crate::server::{RoundMethod, check_meta};

type BoxResponse = Response<BoxBody<Bytes, Infallible>>;
type Rmcp = StreamableHttpService<McpServer, LocalSessionManager>;

const JSON: &str = "application/json";
const EVENT_STREAM: &str = "text/event-stream";
const PROTOCOL_VERSION: &str = "2026-07-28";
const TOOLS_CALL: &str = "tools/call";

/// The service behind [`StreamableHttp`](super::StreamableHttp): the direct path for
/// stateless `tools/call` rounds in front of rmcp's streamable-HTTP service.
#[derive(Clone)]
pub struct DirectRounds {
    server: McpServer,
    rmcp: Rmcp,
    settings: Arc<Settings>,
}

/// What the direct path needs of rmcp's configuration.
struct Settings {
    /// `None` when the direct path is off: rmcp's SSE responses are asked for.
    allowed_hosts: Option<Vec<Authority>>,
    max_body: usize,
    config: StreamableHttpServerConfig,
}

impl std::fmt::Debug for DirectRounds {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DirectRounds")
            .field("server", &self.server)
            .field("direct", &self.settings.allowed_hosts.is_some())
            .finish_non_exhaustive()
    }
}

impl DirectRounds {
    pub(super) fn new(server: McpServer, rmcp: Rmcp, config: StreamableHttpServerConfig) -> Self {
        // The direct path answers with one JSON response; with `json_response` off rmcp
        // answers with an event stream, so rmcp keeps every request.
        let allowed_hosts = config.json_response.then(|| {
            config
                .allowed_hosts
                .iter()
                .filter_map(|host| Authority::allowed(host))
                .collect()
        });
        Self {
            server,
            rmcp,
            settings: Arc::new(Settings {
                allowed_hosts,
                max_body: config.max_request_body_bytes,
                config,
            }),
        }
    }

    async fn serve<B>(self, request: Request<B>) -> BoxResponse
    where
        B: Body + Send + 'static,
        B::Data: Send,
        B::Error: Display,
    {
        if !self.settings.takes(request.method(), request.headers()) {
            return self.rmcp.handle(request).await;
        }
        let (parts, body) = request.into_parts();
        let bytes = match body.collect().await {
            Ok(collected) => collected.to_bytes(),
            // What rmcp answers when the body fails.
            Err(error) => {
                return plain(
                    StatusCode::INTERNAL_SERVER_ERROR,
                    format!("Failed to read request body: {error}"),
                );
            }
        };
        match ToolCall::parse(&parts.headers, &bytes) {
            Some(call) => self.answer(call, &parts.extensions).await,
            None => {
                self.rmcp
                    .handle(Request::from_parts(parts, Full::new(bytes)))
                    .await
            }
        }
    }

    /// Runs the round and answers as rmcp's stateless path does: the JSON-RPC message
    /// serialized with rmcp's types, and the HTTP status rmcp gives an error.
    async fn answer(&self, call: ToolCall, extensions: &http::Extensions) -> BoxResponse {
        let ToolCall { id, params } = call;
        tracing::debug!(target: "mrtr::rmcp", tool = %params.name, "tools/call answered on the direct path");
        let principal = extensions
            .get::<Principal>()
            .map(|principal| principal.0.as_str());
        let meta = params.meta.as_ref().map(|meta| &meta.0.0);
        let outcome = match check_meta(meta).map_err(error) {
            Ok(capabilities) => {
                let retry = Retry {
                    arguments: params.arguments,
                    input_responses: params.input_responses,
                    request_state: params.request_state,
                };
                self.server
                    .round_with(
                        RoundMethod::CallTool,
                        &params.name,
                        retry,
                        capabilities,
                        principal,
                        self.settings.config.cancellation_token.cancelled(),
                    )
                    .await
                    .and_then(|reply| self.server.tool_response(reply))
            }
            Err(error) => Err(error),
        };
        let message = match outcome {
            Ok(response) => ServerJsonRpcMessage::response(ServerResult::from(response), id),
            Err(error) => ServerJsonRpcMessage::error(error, Some(id)),
        };
        let status = status_of(&message);
        match serde_json::to_vec(&message) {
            Ok(body) => Response::builder()
                .status(status)
                .header(CONTENT_TYPE, JSON)
                .body(Full::new(Bytes::from(body)).boxed())
                .expect("a valid response"),
            Err(error) => plain(
                StatusCode::INTERNAL_SERVER_ERROR,
                format!("serialize json response: {error}"),
            ),
        }
    }
}

impl Settings {
    /// Whether the request's method and headers allow the direct path; the body is checked
    /// once read.
    fn takes(&self, method: &http::Method, headers: &HeaderMap) -> bool {
        let Some(allowed_hosts) = &self.allowed_hosts else {
            return false;
        };
        *method == http::Method::POST
            && !headers.contains_key(ORIGIN)
            && !headers.contains_key("mcp-session-id")
            && host_allowed(headers, allowed_hosts)
            && accepts_json_and_event_stream(headers)
            && only(headers, CONTENT_TYPE.as_str()).is_some_and(|value| {
                let essence = value.split_once(';').map_or(value, |(essence, _)| essence);
                essence.trim().eq_ignore_ascii_case(JSON)
            })
            && only(headers, CONTENT_LENGTH.as_str())
                .and_then(|length| length.parse::<usize>().ok())
                .is_some_and(|length| length < self.max_body)
            && only(headers, "mcp-protocol-version") == Some(PROTOCOL_VERSION)
            && only(headers, "mcp-method") == Some(TOOLS_CALL)
            && only(headers, "mcp-name").is_some()
            && !headers
                .keys()
                .any(|name| name.as_str().starts_with("mcp-param-"))
    }
}

/// The one value of header `name`, if it has exactly one and it is text.
fn only<'h>(headers: &'h HeaderMap, name: &str) -> Option<&'h str> {
    let mut values = headers.get_all(name).iter();
    let value = values.next()?;
    if values.next().is_some() {
        return None;
    }
    value.to_str().ok()
}

/// `Accept` names both media types, with no parameters or quoting anywhere (rmcp weighs those;
/// such requests go to it).
fn accepts_json_and_event_stream(headers: &HeaderMap) -> bool {
    let (mut json, mut event_stream) = (false, false);
    for value in headers.get_all(ACCEPT) {
        let Ok(value) = value.to_str() else {
            return false;
        };
        if value.contains([';', '"']) {
            return false;
        }
        for essence in value.split(',').map(str::trim) {
            json |= essence.eq_ignore_ascii_case(JSON);
            event_stream |= essence.eq_ignore_ascii_case(EVENT_STREAM);
        }
    }
    json && event_stream
}

/// A host and optional port, compared as rmcp compares them: the host lower-cased and without
/// brackets.
#[derive(Debug, PartialEq, Eq)]
struct Authority {
    host: String,
    port: Option<u16>,
}

impl Authority {
    fn new(host: &str, port: Option<u16>) -> Self {
        Self {
            host: host
                .trim_matches('[')
                .trim_matches(']')
                .to_ascii_lowercase(),
            port,
        }
    }

    /// An entry of rmcp's `allowed_hosts`.
    fn allowed(entry: &str) -> Option<Self> {
        let entry = entry.trim();
        if entry.is_empty() {
            return None;
        }
        Some(match http::uri::Authority::try_from(entry) {
            Ok(authority) => Self::new(authority.host(), authority.port_u16()),
            Err(_) => Self::new(entry, None),
        })
    }
}

/// The `Host` header is allowed by rmcp's rule: any host when the list is empty, else a listed
/// host, on its port if the entry names one. A request without a `Host` header goes to rmcp.
fn host_allowed(headers: &HeaderMap, allowed: &[Authority]) -> bool {
    let Some(host) = only(headers, HOST.as_str())
        .and_then(|host| http::uri::Authority::try_from(host).ok())
        .map(|authority| Authority::new(authority.host(), authority.port_u16()))
    else {
        return false;
    };
    allowed.is_empty()
        || allowed.iter().any(|entry| {
            entry.host == host.host && entry.port.is_none_or(|port| host.port == Some(port))
        })
}

/// A body that is exactly a JSON-RPC `tools/call` request.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Envelope {
    #[allow(dead_code, reason = "only \"2.0\" deserializes")]
    jsonrpc: JsonRpcVersion2_0,
    id: RequestId,
    #[allow(dead_code, reason = "only \"tools/call\" deserializes")]
    method: CallToolRequestMethod,
    params: CallToolRequestParams,
}

/// A `tools/call` the direct path answers.
struct ToolCall {
    id: RequestId,
    params: CallToolRequestParams,
}

impl ToolCall {
    /// The call in `body`, if it is one the direct path takes: its tool is the one `Mcp-Name`
    /// names and its `_meta` carries what a 2026-07-28 request must.
    fn parse(headers: &HeaderMap, body: &[u8]) -> Option<Self> {
        let Envelope { id, params, .. } = serde_json::from_slice(body).ok()?;
        let meta = params.meta.as_ref()?;
        let complete = meta.protocol_version() == Some(ProtocolVersion::V_2026_07_28)
            && meta
                .missing_required_keys(&ProtocolVersion::V_2026_07_28)
                .is_empty();
        // A name of other characters may be sent Base64-encoded, which rmcp decodes.
        let plain_name = params
            .name
            .bytes()
            .all(|byte| byte.is_ascii_alphanumeric() || b"_-./".contains(&byte));
        (complete && plain_name && only(headers, "mcp-name") == Some(params.name.as_ref()))
            .then_some(Self { id, params })
    }
}

/// The HTTP status rmcp gives a stateless 2026-07-28 response whose `_meta` was well formed.
fn status_of(message: &ServerJsonRpcMessage) -> StatusCode {
    let ServerJsonRpcMessage::Error(error) = message else {
        return StatusCode::OK;
    };
    match error.error.code {
        ErrorCode::UNSUPPORTED_PROTOCOL_VERSION
        | ErrorCode::MISSING_REQUIRED_CLIENT_CAPABILITY
        | ErrorCode::HEADER_MISMATCH => StatusCode::BAD_REQUEST,
        ErrorCode::METHOD_NOT_FOUND => StatusCode::NOT_FOUND,
        _ => StatusCode::OK,
    }
}

fn plain(status: StatusCode, text: String) -> BoxResponse {
    Response::builder()
        .status(status)
        .body(Full::new(Bytes::from(text)).boxed())
        .expect("a valid response")
}

impl<B> tower_service::Service<Request<B>> for DirectRounds
where
    B: Body + Send + 'static,
    B::Data: Send,
    B::Error: Display,
{
    type Response = BoxResponse;
    type Error = Infallible;
    type Future = Pin<Box<dyn Future<Output = Result<BoxResponse, Infallible>> + Send>>;

    fn poll_ready(&mut self, _: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, request: Request<B>) -> Self::Future {
        let this = self.clone();
        Box::pin(async move { Ok(this.serve(request).await) })
    }
}
