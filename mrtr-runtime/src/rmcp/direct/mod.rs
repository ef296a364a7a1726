//! The direct path of [`McpServer::streamable_http`]: a well-formed stateless 2026-07-28 round
//! (`tools/call`, `prompts/get`, `resources/read`) is answered here, and every other request
//! goes to rmcp's `StreamableHttpService` untouched.
//!
//! rmcp serves each stateless request through a one-shot session: it turns the request back
//! into JSON to check its headers, builds a peer and a transport, spawns a task and waits on a
//! channel for the answer. That machinery costs more than a whole mrtr round, on every round of
//! every flow. The direct path runs the same round and answers with the bytes rmcp would
//! send: the usual replies written straight (wire.rs, tested byte for byte against rmcp's
//! serialization), any other converted with the same code and serialized with rmcp's types.
//!
//! Which requests take it is [`pick`]'s decision; whatever fails or is unsure goes to rmcp
//! (with the body already read), which answers it as it always does, errors included.

mod pick;
mod wire;

use std::convert::Infallible;
use std::fmt::Display;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

use bytes::{Buf, Bytes};
use http::header::{ACCEPT, CONTENT_TYPE, HOST, ORIGIN};
use http::{HeaderMap, Request, Response, StatusCode};
use http_body::Body;
use http_body_util::combinators::BoxBody;
use http_body_util::{BodyExt, Full};
use rmcp::model::{
    CallToolResponse, ErrorCode, GetPromptResponse, ReadResourceResponse, RequestId,
    ServerJsonRpcMessage, ServerResult,
};
use rmcp::transport::streamable_http_server::StreamableHttpServerConfig;
use serde::Deserialize;

use super::cancelling_body::CancellingBody;
use super::mcp_server::{McpServer, Principal, error};
use super::retired::{FieldsFiltered, strip_retired_fields_from_shared};
use super::round::RoundResponse;
use super::sessions::{BoundedSessions, RmcpService};
use crate::server::{RoundMethod, RoundReply, RoundRequest, take_checked_meta};
use crate::telemetry::{JsonRpcId, RequestTrace};
use pick::{Call, JSON, Params, Picker, SESSION_ID, Way, runs_a_machine};

type BoxResponse = Response<BoxBody<Bytes, Infallible>>;

/// The service behind [`StreamableHttp`](super::StreamableHttp): the direct path for
/// stateless rounds in front of rmcp's streamable-HTTP service.
///
/// Every request gets its own handle on the service: one `Arc`, so that a request clones no
/// server, no rmcp configuration and no host lists.
#[derive(Clone)]
pub struct DirectRounds(Arc<Shared>);

/// What every request of a [`DirectRounds`] reads.
struct Shared {
    server: McpServer,
    rmcp: RmcpService,
    sessions: Arc<BoundedSessions>,
    picker: Picker,
    /// The server's info as JSON, which every result's `_meta` carries.
    server_info: Vec<u8>,
    /// rmcp's configuration: its body limit, which the direct path keeps whatever
    /// `Content-Length` claims, and its shutdown signal, which drops a round still running.
    config: StreamableHttpServerConfig,
}

impl std::fmt::Debug for DirectRounds {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DirectRounds")
            .field("server", &self.0.server)
            .field("picker", &self.0.picker)
            .finish_non_exhaustive()
    }
}

impl DirectRounds {
    pub(super) fn new(
        server: McpServer,
        rmcp: RmcpService,
        sessions: Arc<BoundedSessions>,
        config: StreamableHttpServerConfig,
    ) -> Self {
        let server_info = serde_json::to_vec(server.server.info_json()).expect("JSON");
        Self(Arc::new(Shared {
            server,
            server_info,
            rmcp,
            sessions,
            picker: Picker::new(&config),
            config,
        }))
    }
}

impl Shared {
    async fn serve<B>(&self, request: Request<B>) -> BoxResponse
    where
        B: Body + Send + 'static,
        B::Data: Send,
        B::Error: Display,
    {
        // Each way's future is boxed, in a statement of its own (a temporary would keep its
        // room): this future is moved whole, unstarted, into the service's box and the
        // layers' on every request, and the round's and rmcp's futures are large.
        let (parts, body) = request.into_parts();
        let asked = match self.picker.way(&parts.method, &parts.headers) {
            Way::Take(asked) => asked,
            Way::Listen => {
                let listen = Box::pin(self.listen(Request::from_parts(parts, body)));
                return listen.await;
            }
            Way::Pass => {
                let pass = Box::pin(self.pass(Request::from_parts(parts, body)));
                return pass.await;
            }
        };
        let bytes = match self.read_body(body).await {
            Ok(bytes) => bytes,
            Err(response) => return response,
        };
        let mirrors_headers = |tool: &str| self.server.server.mirrors_param_headers(tool);
        let answered = match self.picker.pick(asked, &bytes, mirrors_headers) {
            Some(call) => Box::pin(self.answer(call, &parts.extensions)),
            None => Box::pin(self.pass(Request::from_parts(parts, Full::new(bytes))))
                as Pin<Box<dyn Future<Output = BoxResponse> + Send + '_>>,
        };
        answered.await
    }

    /// A `subscriptions/listen` naming task ids is answered here (rmcp's typed filter has no
    /// `taskIds`, see task_listen.rs); any other goes to rmcp.
    async fn listen<B>(&self, request: Request<B>) -> BoxResponse
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
        let limit = self.config.max_request_body_bytes;
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
                    .map(|body| CancellingBody::new(body, self.rmcp.clone(), headers, id).boxed()),
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
    /// rmcp's types give, and the HTTP status rmcp gives an error.
    ///
    /// The usual replies, questions that are all forms and a tool's text result, are written
    /// straight; any other is converted into rmcp's types. That body is filtered here, once,
    /// if it can name a retired field at all. Either is marked so that the retired-field layer
    /// passes it on unread.
    async fn answer(&self, call: Call<'_>, extensions: &http::Extensions) -> BoxResponse {
        let Call { id, method, params } = call;
        tracing::debug!(target: "mrtr::rmcp", method = method.as_str(), target = &*params.target, "answered on the direct path");
        let reply = self.run(method, params, &id, extensions).await;
        let straight = match (&reply, method) {
            (Ok(RoundReply::InputRequired { requests, state }), _) => {
                wire::input_required(&id, requests, state, &self.server_info)
            }
            (
                Ok(RoundReply::Complete {
                    result,
                    cache: None,
                }),
                RoundMethod::CallTool,
            ) => wire::tool_result(&id, result, &self.server_info),
            _ => None,
        };
        if let Some(body) = straight {
            return json(StatusCode::OK, Bytes::from(body));
        }
        let message = match reply.and_then(|reply| self.shape(method, reply)) {
            Ok(result) => ServerJsonRpcMessage::response(result, id),
            Err(error) => ServerJsonRpcMessage::error(error, Some(id)),
        };
        match wire::to_vec(&message) {
            Ok(body) => {
                let mut body = Bytes::from(body);
                if wire::may_name_retired_fields(&message) {
                    body = strip_retired_fields_from_shared(body);
                }
                json(status_of(&message), body)
            }
            Err(error) => plain(
                StatusCode::INTERNAL_SERVER_ERROR,
                format!("serialize json response: {error}"),
            ),
        }
    }

    /// The round `McpServer`'s handler runs for the same request.
    async fn run(
        &self,
        method: RoundMethod,
        params: Params<'_>,
        id: &RequestId,
        extensions: &http::Extensions,
    ) -> Result<RoundReply, rmcp::ErrorData> {
        let Params {
            mut meta,
            target,
            arguments,
            input_responses,
            request_state,
        } = params;
        // Taken out of the `_meta`, not copied: the span reads only the version and the trace.
        let capabilities = take_checked_meta(meta.as_mut()).map_err(error)?;
        let request = RoundRequest {
            method,
            target: &target,
            arguments,
            input_responses,
            request_state: request_state.as_deref(),
            capabilities,
            principal: extensions
                .get::<Principal>()
                .map(|principal| principal.0.as_str()),
            on_session: false,
            trace: RequestTrace {
                id: Some(JsonRpcId::of_rmcp(id)),
                meta: meta.as_ref(),
            },
        };
        // Boxed where it is made: the round's future is large, and each future around it
        // (this one, the answer's, the service's) would otherwise be copied with it.
        let round = Box::pin(
            self.server
                .run_round(request, self.config.cancellation_token.cancelled()),
        );
        round.await
    }

    /// A round's reply as rmcp's response type of its method, as `McpServer`'s handler shapes
    /// it.
    fn shape(
        &self,
        method: RoundMethod,
        reply: RoundReply,
    ) -> Result<ServerResult, rmcp::ErrorData> {
        let server = &self.server;
        Ok(match method {
            RoundMethod::CallTool => CallToolResponse::from_reply(server, reply)?.into(),
            RoundMethod::GetPrompt => GetPromptResponse::from_reply(server, reply)?.into(),
            RoundMethod::ReadResource => ReadResourceResponse::from_reply(server, reply)?.into(),
        })
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

/// A JSON-RPC body, marked as already filtered of retired fields.
fn json(status: StatusCode, body: Bytes) -> BoxResponse {
    Response::builder()
        .status(status)
        .header(CONTENT_TYPE, JSON)
        .extension(FieldsFiltered)
        .body(Full::new(body).boxed())
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
        let shared = Arc::clone(&self.0);
        Box::pin(async move { Ok(shared.serve(request).await) })
    }
}
