//! The direct path of [`McpServer::streamable_http`]: a well-formed stateless 2026-07-28 round
//! (`tools/call`, `prompts/get`, `resources/read`) is answered here, and every other request
//! goes to rmcp's `StreamableHttpService` untouched.
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
//! `Mcp-Method` naming one of the three methods and `Mcp-Name` naming the body's tool, prompt
//! or resource URI verbatim (not Base64-wrapped); no `Mcp-Session-Id` and no `Mcp-Param-*`; a
//! body that is exactly a JSON-RPC request of that method whose `_meta` names 2026-07-28 and
//! the client's capabilities; not a tool that mirrors arguments in `Mcp-Param-*` headers
//! (rmcp checks those).
//! Whatever fails or is unsure goes to rmcp (with the body already read), which answers it as
//! it always does, errors included.

use std::convert::Infallible;
use std::fmt::Display;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

use bytes::{Buf, Bytes};
use http::header::{ACCEPT, CONTENT_LENGTH, CONTENT_TYPE, HOST, ORIGIN};
use http::{HeaderMap, Request, Response, StatusCode};
use http_body::Body;
use http_body_util::combinators::BoxBody;
use http_body_util::{BodyExt, Full};
use rmcp::model::{
    CallToolRequestMethod, CallToolRequestParams, ErrorCode, GetPromptRequestMethod,
    GetPromptRequestParams, GetPromptResponse, JsonObject, JsonRpcVersion2_0, ProtocolVersion,
    ReadResourceRequestMethod, ReadResourceRequestParams, ReadResourceResponse, RequestId,
    RequestMetaObject, ServerJsonRpcMessage, ServerResult,
};
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use serde::Deserialize;

use super::cancel_on_drop::CancelOnDrop;
use super::sessions::BoundedSessions;
use super::{McpServer, Principal, Retry, error};
use crate::server::{RoundMethod, check_meta};
use crate::telemetry::{JsonRpcId, RequestTrace};

type BoxResponse = Response<BoxBody<Bytes, Infallible>>;
pub(super) type Rmcp = StreamableHttpService<McpServer, BoundedSessions>;

const JSON: &str = "application/json";
const EVENT_STREAM: &str = "text/event-stream";
const PROTOCOL_VERSION: &str = "2026-07-28";
const TOOLS_CALL: &str = "tools/call";
const PROMPTS_GET: &str = "prompts/get";
const RESOURCES_READ: &str = "resources/read";
const SESSION_ID: &str = "mcp-session-id";

/// The service behind [`StreamableHttp`](super::StreamableHttp): the direct path for
/// stateless rounds in front of rmcp's streamable-HTTP service.
#[derive(Clone)]
pub struct DirectRounds {
    server: McpServer,
    rmcp: Rmcp,
    sessions: Arc<BoundedSessions>,
    settings: Arc<Settings>,
}

/// rmcp's configuration, with its allowed hosts parsed once.
struct Settings {
    config: StreamableHttpServerConfig,
    allowed_hosts: Vec<Authority>,
}

impl std::fmt::Debug for DirectRounds {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DirectRounds")
            .field("server", &self.server)
            .field("direct", &self.settings.config.json_response)
            .finish_non_exhaustive()
    }
}

impl DirectRounds {
    pub(super) fn new(
        server: McpServer,
        rmcp: Rmcp,
        sessions: Arc<BoundedSessions>,
        config: StreamableHttpServerConfig,
    ) -> Self {
        let allowed_hosts = config
            .allowed_hosts
            .iter()
            .filter_map(|host| Authority::allowed(host))
            .collect();
        Self {
            server,
            rmcp,
            sessions,
            settings: Arc::new(Settings {
                config,
                allowed_hosts,
            }),
        }
    }

    async fn serve<B>(self, request: Request<B>) -> BoxResponse
    where
        B: Body + Send + 'static,
        B::Data: Send,
        B::Error: Display,
    {
        if self.settings.listens(request.method(), request.headers()) {
            return self.listen(request).await;
        }
        if !self.settings.takes(request.method(), request.headers()) {
            return self.pass(request).await;
        }
        let (parts, body) = request.into_parts();
        let bytes = match self.read_body(body).await {
            Ok(bytes) => bytes,
            Err(response) => return response,
        };
        // rmcp checks a mirroring tool's `Mcp-Param-*` headers against the arguments, even
        // absent ones, so every call of such a tool goes to it.
        let call = Call::parse(&parts.headers, &bytes).filter(|call| match &call.round {
            Round::Tool(params) => !self.server.server.mirrors_param_headers(&params.name),
            Round::Prompt(_) | Round::Resource(_) => true,
        });
        match call {
            Some(call) => self.answer(call, &parts.extensions).await,
            None => {
                self.pass(Request::from_parts(parts, Full::new(bytes)))
                    .await
            }
        }
    }

    /// A `subscriptions/listen` naming task ids is answered here (rmcp's typed filter has no
    /// `taskIds`, see task_listen.rs); any other goes to rmcp.
    async fn listen<B>(self, request: Request<B>) -> BoxResponse
    where
        B: Body + Send + 'static,
        B::Data: Send,
        B::Error: Display,
    {
        let (parts, body) = request.into_parts();
        let bytes = match self.read_body(body).await {
            Ok(bytes) => bytes,
            Err(response) => return response,
        };
        match super::task_listen::parse(&bytes) {
            Some((id, params)) => {
                let principal = parts.extensions.get::<Principal>().map(|p| p.0.clone());
                super::task_listen::respond(self.server.server(), id, params, principal).await
            }
            None => {
                self.pass(Request::from_parts(parts, Full::new(bytes)))
                    .await
            }
        }
    }

    /// Reads a body the direct path answers, at most rmcp's body limit of it: a `Content-Length`
    /// is a claim, and a server mounted behind another may be sent more.
    async fn read_body<B>(&self, body: B) -> Result<Bytes, BoxResponse>
    where
        B: Body + Send + 'static,
        B::Error: Display,
    {
        let limit = self.settings.config.max_request_body_bytes;
        let mut body = std::pin::pin!(body);
        // One frame (the usual case) is kept as it came, without a copy.
        let mut first = Bytes::new();
        let mut rest = Vec::new();
        while let Some(frame) = body.frame().await {
            let frame = match frame {
                Ok(frame) => frame,
                // What rmcp answers when the body fails.
                Err(error) => {
                    return Err(plain(
                        StatusCode::INTERNAL_SERVER_ERROR,
                        format!("Failed to read request body: {error}"),
                    ));
                }
            };
            let Ok(mut data) = frame.into_data() else {
                continue;
            };
            if first.len() + rest.len() + data.remaining() > limit {
                return Err(plain(
                    StatusCode::PAYLOAD_TOO_LARGE,
                    "Payload Too Large: the request body is larger than this server accepts".into(),
                ));
            }
            if first.is_empty() && rest.is_empty() {
                first = data.copy_to_bytes(data.remaining());
            } else {
                if rest.is_empty() {
                    rest.extend_from_slice(&std::mem::take(&mut first));
                }
                while data.has_remaining() {
                    let chunk = data.chunk();
                    rest.extend_from_slice(chunk);
                    let read = chunk.len();
                    data.advance(read);
                }
            }
        }
        Ok(if rest.is_empty() { first } else { rest.into() })
    }

    /// Hands `request` to rmcp, keeping the session rules rmcp does not have: a session is
    /// used only by the principal that opened it, no session is opened past the cap, and a
    /// closed session answers `DELETE` with 204.
    async fn pass<B>(&self, request: Request<B>) -> BoxResponse
    where
        B: Body + Send + 'static,
        B::Data: Send,
        B::Error: Display,
    {
        let principal = request
            .extensions()
            .get::<Principal>()
            .map(|principal| principal.0.clone());
        let session = request.headers().get(SESSION_ID).cloned();
        if let Some(id) = &session
            && !self
                .sessions
                .usable_by(id.to_str().unwrap_or_default(), principal.as_deref())
        {
            // Exactly what rmcp answers for a session it does not know.
            return plain(StatusCode::NOT_FOUND, "Not Found: Session not found".into());
        }
        let post = *request.method() == http::Method::POST;
        let opens = session.is_none() && post && self.server.legacy().is_some();
        let delete = *request.method() == http::Method::DELETE;
        let mut response = if opens && self.sessions.full().await {
            let (parts, body) = request.into_parts();
            let bytes = match self.read_body(body).await {
                Ok(bytes) => bytes,
                Err(response) => return response,
            };
            if let Some(id) = request_id(&bytes, |method| method == "initialize") {
                return sessions_full(id);
            }
            self.rmcp
                .handle(Request::from_parts(parts, Full::new(bytes)))
                .await
        } else if session.is_some() && post {
            let (parts, body) = request.into_parts();
            let bytes = match self.read_body(body).await {
                Ok(bytes) => bytes,
                Err(response) => return response,
            };
            let call = request_id(&bytes, runs_a_machine);
            let headers = cancel_headers(&parts.headers);
            let response = self
                .rmcp
                .handle(Request::from_parts(parts, Full::new(bytes)))
                .await;
            match call {
                // The call's answer streams until it ends; a client that goes away first
                // cancels it.
                Some(id) if response.status() == StatusCode::OK => response
                    .map(|body| CancelOnDrop::new(body, self.rmcp.clone(), headers, id).boxed()),
                _ => response,
            }
        } else {
            self.rmcp.handle(request).await
        };
        if opens
            && let Some(id) = response.headers().get(SESSION_ID)
            && let Ok(id) = id.to_str()
        {
            self.sessions.bind(id.into(), principal);
        }
        // rmcp answers 202; the clients of both official SDKs accept 200 and 204 only.
        if delete && response.status() == StatusCode::ACCEPTED {
            *response.status_mut() = StatusCode::NO_CONTENT;
            *response.body_mut() = Full::new(Bytes::new()).boxed();
        }
        response
    }

    /// Runs the round and answers as rmcp's stateless path does: the JSON-RPC message
    /// serialized with rmcp's types, and the HTTP status rmcp gives an error.
    async fn answer(&self, call: Call, extensions: &http::Extensions) -> BoxResponse {
        let Call { id, round } = call;
        tracing::debug!(target: "mrtr::rmcp", method = round.method_name(), target = round.target(), "answered on the direct path");
        let outcome = self.run(round, &id, extensions).await;
        let message = match outcome {
            Ok(result) => ServerJsonRpcMessage::response(result, id),
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

    /// The round of `McpServer`'s handler for the same request, and its reply shaped the same.
    async fn run(
        &self,
        mut round: Round,
        id: &RequestId,
        extensions: &http::Extensions,
    ) -> Result<ServerResult, rmcp::ErrorData> {
        // Out of the params before they become the retry: the round's span reads it.
        let meta = round.take_meta();
        let meta = meta.as_ref().map(|meta| &meta.0.0);
        let capabilities = check_meta(meta).map_err(error)?;
        let principal = extensions
            .get::<Principal>()
            .map(|principal| principal.0.as_str());
        let method = round.method();
        let (target, retry) = round.into_retry();
        let reply = self
            .server
            .round_with(
                method,
                &target,
                retry,
                capabilities,
                principal,
                RequestTrace {
                    id: Some(JsonRpcId::of_rmcp(id)),
                    meta,
                },
                self.settings.config.cancellation_token.cancelled(),
            )
            .await?;
        Ok(match method {
            RoundMethod::CallTool => self.server.tool_response(reply)?.into(),
            RoundMethod::GetPrompt => self
                .server
                .shaped(
                    reply,
                    GetPromptResponse::Complete,
                    GetPromptResponse::InputRequired,
                )?
                .into(),
            RoundMethod::ReadResource => self
                .server
                .shaped(
                    reply,
                    ReadResourceResponse::Complete,
                    ReadResourceResponse::InputRequired,
                )?
                .into(),
        })
    }
}

impl Settings {
    /// Whether the request's method and headers allow the direct path; the body is checked
    /// once read.
    fn takes(&self, method: &http::Method, headers: &HeaderMap) -> bool {
        // The direct path answers with one JSON response; with `json_response` off rmcp
        // answers with an event stream, so rmcp keeps every request.
        self.config.json_response
            && self.sound(method, headers)
            && only(headers, "mcp-method").is_some_and(runs_a_machine)
            && only(headers, "mcp-name").is_some()
    }

    /// Whether the request is a stateless `subscriptions/listen` that passes rmcp's checks
    /// (its body is read next: only one naming task ids stays here).
    fn listens(&self, method: &http::Method, headers: &HeaderMap) -> bool {
        self.sound(method, headers)
            && only(headers, "mcp-method") == Some("subscriptions/listen")
            && !headers.contains_key("mcp-name")
    }

    /// The checks rmcp makes on every stateless 2026-07-28 POST, each at least as strict.
    fn sound(&self, method: &http::Method, headers: &HeaderMap) -> bool {
        *method == http::Method::POST
            && !headers.contains_key(ORIGIN)
            && !headers.contains_key(SESSION_ID)
            && self.host_allowed(headers)
            && accepts_json_and_event_stream(headers)
            && only(headers, CONTENT_TYPE.as_str()).is_some_and(|value| {
                let essence = value.split_once(';').map_or(value, |(essence, _)| essence);
                essence.trim().eq_ignore_ascii_case(JSON)
            })
            && only(headers, CONTENT_LENGTH.as_str())
                .and_then(|length| length.parse::<usize>().ok())
                .is_some_and(|length| length < self.config.max_request_body_bytes)
            && only(headers, "mcp-protocol-version") == Some(PROTOCOL_VERSION)
            && !headers
                .keys()
                .any(|name| name.as_str().starts_with("mcp-param-"))
    }

    /// The `Host` header is allowed by rmcp's rule: any host when the list is empty, else a
    /// listed host, on its port if the entry names one. A request without a `Host` header goes
    /// to rmcp.
    fn host_allowed(&self, headers: &HeaderMap) -> bool {
        let Some(host) = only(headers, HOST.as_str())
            .and_then(|host| http::uri::Authority::try_from(host).ok())
            .map(|authority| Authority::new(authority.host(), authority.port_u16()))
        else {
            return false;
        };
        // The configured list, not the parsed one: a list of blank entries allows no host.
        self.config.allowed_hosts.is_empty()
            || self.allowed_hosts.iter().any(|entry| {
                entry.host == host.host && entry.port.is_none_or(|port| host.port == Some(port))
            })
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

/// A body that is exactly a JSON-RPC request of method `M` (a marker that only deserializes
/// from its method's name) with params `P`.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Envelope<M, P> {
    #[allow(dead_code, reason = "only \"2.0\" deserializes")]
    jsonrpc: JsonRpcVersion2_0,
    id: RequestId,
    #[allow(dead_code, reason = "only the method's name deserializes")]
    method: M,
    params: P,
}

impl<M: serde::de::DeserializeOwned, P: serde::de::DeserializeOwned> Envelope<M, P> {
    fn parse(body: &[u8], round: fn(P) -> Round) -> Option<Call> {
        let Self { id, params, .. } = serde_json::from_slice(body).ok()?;
        Some(Call {
            id,
            round: round(params),
        })
    }
}

/// The params of a round, as rmcp types them.
enum Round {
    Tool(CallToolRequestParams),
    Prompt(GetPromptRequestParams),
    Resource(ReadResourceRequestParams),
}

impl Round {
    fn method(&self) -> RoundMethod {
        match self {
            Self::Tool(_) => RoundMethod::CallTool,
            Self::Prompt(_) => RoundMethod::GetPrompt,
            Self::Resource(_) => RoundMethod::ReadResource,
        }
    }

    fn method_name(&self) -> &'static str {
        match self {
            Self::Tool(_) => TOOLS_CALL,
            Self::Prompt(_) => PROMPTS_GET,
            Self::Resource(_) => RESOURCES_READ,
        }
    }

    /// What `Mcp-Name` must name: the tool, the prompt, the resource's URI.
    fn target(&self) -> &str {
        match self {
            Self::Tool(params) => &params.name,
            Self::Prompt(params) => &params.name,
            Self::Resource(params) => &params.uri,
        }
    }

    fn take_meta(&mut self) -> Option<RequestMetaObject> {
        match self {
            Self::Tool(params) => params.meta.take(),
            Self::Prompt(params) => params.meta.take(),
            Self::Resource(params) => params.meta.take(),
        }
    }

    fn meta(&self) -> Option<&RequestMetaObject> {
        match self {
            Self::Tool(params) => params.meta.as_ref(),
            Self::Prompt(params) => params.meta.as_ref(),
            Self::Resource(params) => params.meta.as_ref(),
        }
    }

    /// The target and the fields `McpServer`'s handler passes on (a resource read has no
    /// arguments).
    fn into_retry(self) -> (String, Retry) {
        let (target, arguments, input_responses, request_state): (
            String,
            Option<JsonObject>,
            _,
            _,
        ) = match self {
            Self::Tool(params) => (
                params.name.into_owned(),
                params.arguments,
                params.input_responses,
                params.request_state,
            ),
            Self::Prompt(params) => (
                params.name,
                params.arguments,
                params.input_responses,
                params.request_state,
            ),
            Self::Resource(params) => (
                params.uri,
                None,
                params.input_responses,
                params.request_state,
            ),
        };
        let retry = Retry {
            arguments,
            input_responses,
            request_state,
        };
        (target, retry)
    }
}

/// A round request the direct path answers.
struct Call {
    id: RequestId,
    round: Round,
}

impl Call {
    /// The round in `body`, if it is one the direct path takes: of the method `Mcp-Method`
    /// names, for the target `Mcp-Name` names verbatim, with a `_meta` carrying what a
    /// 2026-07-28 request must.
    fn parse(headers: &HeaderMap, body: &[u8]) -> Option<Self> {
        let call = match only(headers, "mcp-method")? {
            TOOLS_CALL => Envelope::<CallToolRequestMethod, _>::parse(body, Round::Tool),
            PROMPTS_GET => Envelope::<GetPromptRequestMethod, _>::parse(body, Round::Prompt),
            RESOURCES_READ => {
                Envelope::<ReadResourceRequestMethod, _>::parse(body, Round::Resource)
            }
            _ => None,
        }?;
        let meta = call.round.meta()?;
        let complete = meta.protocol_version() == Some(ProtocolVersion::V_2026_07_28)
            && meta
                .missing_required_keys(&ProtocolVersion::V_2026_07_28)
                .is_empty();
        // rmcp decodes a Base64-wrapped `Mcp-Name` before comparing; those go to it.
        let name = only(headers, "mcp-name")?;
        let verbatim = !(name.starts_with("=?base64?") && name.ends_with("?="));
        (complete && verbatim && name == call.round.target()).then_some(call)
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

/// The headers a cancellation sent on a session's behalf carries: those that route it to the
/// session and pass rmcp's checks.
fn cancel_headers(headers: &HeaderMap) -> HeaderMap {
    let mut kept = HeaderMap::new();
    for name in [
        HOST.as_str(),
        ORIGIN.as_str(),
        ACCEPT.as_str(),
        CONTENT_TYPE.as_str(),
        SESSION_ID,
        "mcp-protocol-version",
    ] {
        if let Some(value) = headers.get(name) {
            kept.insert(http::HeaderName::from_static(name), value.clone());
        }
    }
    kept
}

/// The id of the request in `body`, if it is a request of a method `wanted` accepts.
fn request_id(body: &[u8], wanted: impl Fn(&str) -> bool) -> Option<RequestId> {
    #[derive(Deserialize)]
    struct Head {
        id: RequestId,
        method: String,
    }
    let head: Head = serde_json::from_slice(body).ok()?;
    wanted(&head.method).then_some(head.id)
}

/// The three methods whose calls run a machine.
fn runs_a_machine(method: &str) -> bool {
    [TOOLS_CALL, PROMPTS_GET, RESOURCES_READ].contains(&method)
}

/// The answer to an `initialize` when every session place is taken: 503, and a JSON-RPC error
/// that says what to do (the cap itself is not disclosed).
fn sessions_full(id: RequestId) -> BoxResponse {
    let error = rmcp::ErrorData::new(
        ErrorCode(-32000),
        "the server has too many open sessions: retry later, or connect with MCP 2026-07-28, \
         which needs no session",
        None,
    );
    let message = ServerJsonRpcMessage::error(error, Some(id));
    let body = serde_json::to_vec(&message).unwrap_or_default();
    Response::builder()
        .status(StatusCode::SERVICE_UNAVAILABLE)
        .header(CONTENT_TYPE, JSON)
        .header(http::header::RETRY_AFTER, "10")
        .body(Full::new(Bytes::from(body)).boxed())
        .expect("a valid response")
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
