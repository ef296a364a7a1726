//! rmcp (the official Rust MCP SDK) as the host: [`McpServer`] is an rmcp `ServerHandler` that
//! serves an mrtr [`Server`]'s tools, prompts and resource templates. rmcp keeps what is
//! rmcp's: transports (stdio, streamable HTTP), `server/discover`, the HTTP header checks.
//! [`McpServer::streamable_http`] answers well-formed stateless rounds (`tools/call`,
//! `prompts/get`, `resources/read`) on a direct path in front of rmcp's service
//! ([`DirectRounds`]), with the same checks and the same response.
//!
//! ```no_run
//! # async fn serve(server: mrtr::Server) -> Result<(), Box<dyn std::error::Error>> {
//! use rmcp::ServiceExt;
//! let running = mrtr::rmcp::McpServer::new(server).serve(mrtr::rmcp::stdio()).await?;
//! running.waiting().await?;
//! # Ok(()) }
//! ```
//!
//! rmcp 3.11 still writes the retired `elicitationId` (as `""`) in URL-mode elicitations. Use
//! this module's [`stdio`] instead of rmcp's, and on streamable HTTP
//! [`McpServer::streamable_http`], which filters JSON and SSE responses; to build rmcp's HTTP
//! service yourself, wrap it in [`RetiredFieldsLayer`].
//!
//! The authenticated principal (states are bound to it) is read from a [`Principal`] in the
//! request's extensions: put one there from your HTTP authentication layer (rmcp passes the
//! HTTP request's `Parts` through), or into the rmcp context's extensions.
//!
//! Clients of 2025-11-25 and 2025-06-18 are served too, on the session their `initialize`
//! opens (stdio, or streamable HTTP with `Mcp-Session-Id`): their calls run the machine in
//! process and its questions go to them as requests ([`crate::legacy`];
//! [`McpServer::with_legacy`] configures it, [`McpServer::without_legacy`] refuses them).

use std::borrow::Cow;

use rmcp::handler::server::router::tool::ToolRoute;
use rmcp::handler::server::tool::ToolCallContext;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CancelTaskParams, CompleteRequestParams,
    CompleteResult, ErrorCode, GetPromptRequestParams, GetPromptResponse, GetTaskParams,
    GetTaskResult, Implementation, InputRequiredResult, JsonObject, ListPromptsResult,
    ListResourceTemplatesResult, ListResourcesResult, ListToolsResult, PaginatedRequestParams,
    ProtocolVersion, ReadResourceRequestParams, ReadResourceResponse, ServerCapabilities,
    ServerConfig, UpdateTaskParams,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, ServerHandler};
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value};

mod cancel_on_drop;
mod convert;
mod deadline;
mod direct;
mod execution;
mod http_layer;
mod legacy;
mod limits;
mod retired;
mod serve;
mod sessions;
mod task_listen;

pub use limits::{
    DEFAULT_BODY_TIMEOUT, DEFAULT_HEADER_READ_TIMEOUT, DEFAULT_MAX_CONNECTIONS,
    DEFAULT_SHUTDOWN_GRACE, HttpLimits,
};
/// The `rmcp` crate mrtr is built on, re-exported: its transports, models and handler traits
/// at exactly the version mrtr uses, without pinning it yourself.
pub use rmcp as sdk;
pub use serve::ServeError;

pub use direct::DirectRounds;
pub use http_layer::{
    LOCAL_ORIGINS, RetiredFieldsBody, RetiredFieldsLayer, RetiredFieldsService, StreamableHttp,
};
pub use retired::{
    RetiredFieldsFilter, stdio, strip_retired_fields, strip_retired_fields_from_bytes,
};

use crate::protocol::{META_CLIENT_CAPABILITIES, META_PROTOCOL_VERSION, RpcError};
use crate::server::{RoundMethod, RoundReply, RoundRequest, Server, check_meta, tool_entry};
use crate::telemetry::{JsonRpcId, RequestTrace};

/// The identity the host authenticated for a request. Every `requestState` is bound to it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Principal(pub String);

/// An rmcp `ServerHandler` serving an mrtr [`Server`]. Cheap to clone: rmcp's HTTP service
/// builds one per request, and all of them share the server (and its keys).
#[derive(Clone, Debug)]
pub struct McpServer {
    server: Server,
    /// How 2025-era sessions are served (`None`: refused at the handshake); see legacy.rs.
    legacy: Option<crate::legacy::LegacyOptions>,
    /// The 2025-era calls running, shared by every clone.
    flows: std::sync::Arc<legacy::FlowGates>,
    /// The limits of `serve_http`'s HTTP front.
    http_limits: HttpLimits,
}

impl McpServer {
    /// Serves `server` through rmcp, to 2026-07-28 clients and, over a session, to
    /// 2025-11-25 and 2025-06-18 ones (see [`McpServer::with_legacy`]).
    pub fn new(server: Server) -> Self {
        Self {
            server,
            legacy: Some(crate::legacy::LegacyOptions::default()),
            flows: std::sync::Arc::default(),
            http_limits: HttpLimits::default(),
        }
    }

    /// The served mrtr server.
    pub fn server(&self) -> &Server {
        &self.server
    }

    /// Runs one request through the mrtr engine, with the per-request `_meta` rmcp parsed.
    async fn forward<R: DeserializeOwned>(
        &self,
        method: &str,
        params: impl Serialize,
        context: &RequestContext<RoleServer>,
    ) -> Result<R, ErrorData> {
        // A 2025-era session: the machine runs here and asks the client (legacy.rs).
        if let Some(session) = self.legacy_session(context) {
            return self.forward_legacy(method, params, context, session).await;
        }
        let mut params = match serde_json::to_value(params) {
            Ok(Value::Object(params)) => params,
            Ok(Value::Null) => Map::new(),
            _ => return Err(ErrorData::invalid_params("params must be an object", None)),
        };
        params.insert("_meta".into(), request_meta(context));
        let principal = principal(context);
        // rmcp cancels this token on `notifications/cancelled` (and when the HTTP stream
        // closes): the running step is dropped there, and nothing after its `.await` runs.
        let work = self
            .server
            .handle_request(method, Value::Object(params), principal.as_deref());
        let result = crate::server::until_cancelled(work, context.ct.cancelled())
            .await
            .ok_or_else(|| ErrorData::new(ErrorCode(-32800), "request cancelled", None))?
            .map_err(error)?;
        convert(result)
    }

    /// Runs one round of the three methods that may answer `input_required`, straight from
    /// rmcp's typed params: no JSON detour on the way in.
    async fn round(
        &self,
        method: RoundMethod,
        target: &str,
        retry: Retry,
        context: &RequestContext<RoleServer>,
    ) -> Result<RoundReply, ErrorData> {
        let raw = &context.meta.0.0;
        let capabilities = if raw.contains_key(META_PROTOCOL_VERSION)
            && raw.contains_key(META_CLIENT_CAPABILITIES)
        {
            check_meta(Some(raw))
        } else {
            match request_meta(context) {
                Value::Object(meta) => check_meta(Some(&meta)),
                _ => check_meta(None),
            }
        }
        .map_err(error)?;
        let principal = principal(context);
        // rmcp cancels this token on `notifications/cancelled` (and when the HTTP stream
        // closes): the running step is dropped there, and nothing after its `.await` runs.
        // Boxed: rmcp moves the handler's future into a task of its own for every request,
        // and a round's future is kilobytes; a pointer is cheaper to move than the round.
        Box::pin(self.round_with(
            method,
            target,
            retry,
            capabilities,
            principal.as_deref(),
            RequestTrace {
                id: Some(JsonRpcId::of_rmcp(&context.id)),
                meta: Some(raw),
            },
            context.ct.cancelled(),
        ))
        .await
    }

    /// A round with the client's capabilities already read; the step is dropped, and the
    /// round answers "request cancelled", if `cancelled` resolves first.
    #[allow(
        clippy::too_many_arguments,
        reason = "the request's pieces as the two hosts parsed them, until both build one RoundRequest"
    )]
    pub(super) async fn round_with(
        &self,
        method: RoundMethod,
        target: &str,
        retry: Retry,
        capabilities: crate::capabilities::ClientCapabilities,
        principal: Option<&str>,
        trace: RequestTrace<'_>,
        cancelled: impl Future<Output = ()>,
    ) -> Result<RoundReply, ErrorData> {
        let request = RoundRequest {
            method,
            target,
            arguments: retry.arguments,
            input_responses: retry
                .input_responses
                .map(|responses| responses.into_iter().collect()),
            request_state: retry.request_state.as_deref(),
            capabilities,
            principal,
            on_session: false,
            trace,
        };
        crate::server::until_cancelled(self.server.round(request), cancelled)
            .await
            .ok_or_else(|| ErrorData::new(ErrorCode(-32800), "request cancelled", None))?
            .map_err(error)
    }

    /// A tool round's reply as rmcp's response.
    pub(super) fn tool_response(&self, reply: RoundReply) -> Result<CallToolResponse, ErrorData> {
        let info = self.server.info_json();
        Ok(match reply {
            RoundReply::Complete { result, .. } => {
                CallToolResponse::Complete(convert::tool_result(result, info)?)
            }
            RoundReply::InputRequired { requests, state } => {
                CallToolResponse::InputRequired(convert::input_required(requests, state, info)?)
            }
            RoundReply::Task(created) => CallToolResponse::Task(convert(created)?),
        })
    }
}

/// The fields of a round's params besides its target.
pub(super) struct Retry {
    pub(super) arguments: Option<JsonObject>,
    pub(super) input_responses: Option<rmcp::model::InputResponses>,
    pub(super) request_state: Option<String>,
}

impl McpServer {
    /// One rmcp tool route per mrtr tool, to mount mrtr tools in your own rmcp `ToolRouter`
    /// next to rmcp's `#[tool]`s. Each route runs the full mrtr round (verification, answers,
    /// capability checks, sealing) and answers with rmcp's own types.
    ///
    /// Fails, naming the tool, if a tool's descriptor does not convert to rmcp's `Tool` (for
    /// example an input schema that is not an object): a tool is never silently left out.
    ///
    /// rmcp 3.11's `Tool` has no `execution` field, so a task-capable tool's
    /// `execution.taskSupport` rides in its `_meta`, under `"mrtr/execution"`; mrtr's byte
    /// filter moves it back to the top level. Serve your router through [`stdio`] or wrap its
    /// HTTP service in [`RetiredFieldsLayer`]: over rmcp's own transports, without the filter,
    /// clients see `_meta["mrtr/execution"]` and no `execution` (such a client still gets a
    /// task when it declares the extension, or `-32021` from a task-only tool).
    pub fn tool_routes<S: Send + Sync + 'static>(&self) -> Result<Vec<ToolRoute<S>>, RouteError> {
        let mut tools = Vec::new();
        for descriptor in self.server.tools() {
            let mut entry = tool_entry(descriptor);
            execution::carry_in_meta(&mut entry);
            let tool = serde_json::from_value::<rmcp::model::Tool>(entry).map_err(|reason| {
                RouteError {
                    tool: descriptor.name.clone(),
                    reason: reason.to_string(),
                }
            })?;
            tools.push(tool);
        }
        Ok(tools
            .into_iter()
            .map(|tool| {
                let mcp = self.clone();
                ToolRoute::new_dyn(tool, move |context: ToolCallContext<'_, S>| {
                    let mcp = mcp.clone();
                    let mut params = CallToolRequestParams::new(context.name.clone());
                    params.arguments = context.arguments;
                    params.input_responses = context.input_responses;
                    params.request_state = context.request_state;
                    let request_context = context.request_context;
                    Box::pin(async move { mcp.call_tool(params, request_context).await })
                })
            })
            .collect())
    }
}

/// A tool that [`McpServer::tool_routes`] could not turn into an rmcp route.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error(
    "tool {tool:?} cannot be served through rmcp: its descriptor does not fit rmcp's `Tool` ({reason})"
)]
pub struct RouteError {
    /// The tool's name.
    pub tool: String,
    /// What rmcp refused.
    pub reason: String,
}

impl From<Server> for McpServer {
    fn from(server: Server) -> Self {
        Self::new(server)
    }
}

/// The request's `_meta` as the client sent it (protocol version and capabilities of *this*
/// request: never the session's).
fn request_meta(context: &RequestContext<RoleServer>) -> Value {
    let mut meta = match serde_json::to_value(&context.meta) {
        Ok(Value::Object(meta)) => meta,
        _ => Map::new(),
    };
    if !meta.contains_key(META_PROTOCOL_VERSION)
        && let Some(version) = context.meta.protocol_version()
    {
        meta.insert(
            META_PROTOCOL_VERSION.into(),
            serde_json::to_value(version).unwrap_or(Value::Null),
        );
    }
    if !meta.contains_key(META_CLIENT_CAPABILITIES)
        && let Some(capabilities) = context.meta.client_capabilities()
    {
        meta.insert(
            META_CLIENT_CAPABILITIES.into(),
            serde_json::to_value(capabilities).unwrap_or(Value::Null),
        );
    }
    Value::Object(meta)
}

fn principal(context: &RequestContext<RoleServer>) -> Option<String> {
    let direct = context.extensions.get::<Principal>();
    let from_http = || {
        context
            .extensions
            .get::<http::request::Parts>()
            .and_then(|parts| parts.extensions.get::<Principal>())
    };
    direct
        .or_else(from_http)
        .map(|principal| principal.0.clone())
}

fn error(error: RpcError) -> ErrorData {
    ErrorData::new(ErrorCode(error.code as i32), error.message, error.data)
}

fn is_input_required(result: &Value) -> bool {
    result.get("resultType").and_then(Value::as_str) == Some("input_required")
}

impl ServerHandler for McpServer {
    /// 2026-07-28, and 2025-11-25 / 2025-06-18 sessions unless [`McpServer::without_legacy`]
    /// (then older clients are refused at the handshake rather than half-served).
    fn supported_protocol_versions(&self) -> Cow<'static, [ProtocolVersion]> {
        Cow::Owned(self.protocol_versions())
    }

    fn get_info(&self) -> ServerConfig {
        let mut capabilities = Map::new();
        let server = &self.server;
        for (registered, name) in [
            (server.tools().len() > 0, "tools"),
            (server.prompts().len() > 0, "prompts"),
            (server.resource_templates().len() > 0, "resources"),
            (server.completes(), "completions"),
        ] {
            if registered {
                capabilities.insert(name.into(), Value::Object(Map::new()));
            }
        }
        if server.serves_tasks() {
            capabilities.insert(
                "extensions".into(),
                serde_json::json!({ (crate::task::TASKS_EXTENSION): {} }),
            );
        }
        let capabilities: ServerCapabilities =
            serde_json::from_value(Value::Object(capabilities)).unwrap_or_default();
        let info = server.info();
        ServerConfig::new(capabilities)
            .with_server_info(Implementation::new(&info.name, &info.version))
    }

    /// `tasks/get` (SEP-2663); rmcp has refused it already if the request did not declare
    /// the tasks extension.
    async fn get_task(
        &self,
        request: GetTaskParams,
        context: RequestContext<RoleServer>,
    ) -> Result<GetTaskResult, ErrorData> {
        self.forward("tasks/get", request, &context).await
    }

    /// `tasks/update`: delivers answers to a task's pending questions (ack-only).
    async fn update_task(
        &self,
        request: UpdateTaskParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        let _: Value = self.forward("tasks/update", request, &context).await?;
        Ok(())
    }

    /// `tasks/cancel`: cooperative and idempotent (ack-only).
    async fn cancel_task(
        &self,
        request: CancelTaskParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        let _: Value = self.forward("tasks/cancel", request, &context).await?;
        Ok(())
    }

    async fn list_tools(
        &self,
        request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        let mut listed: Value = self.forward("tools/list", request, &context).await?;
        // rmcp's `Tool` has no `execution`: it travels in `_meta` to mrtr's byte filter.
        execution::carry_list_in_meta(&mut listed);
        convert(listed)
    }

    /// A tool that mirrors arguments in `Mcp-Param-*` headers, so rmcp checks the headers
    /// against the arguments (SEP-2243); for the others there is nothing to check, and rmcp
    /// is spared building their `Tool` on every call.
    fn get_tool(&self, name: &str) -> Option<rmcp::model::Tool> {
        if !self.server.mirrors_param_headers(name) {
            return None;
        }
        let descriptor = self.server.tools().find(|tool| tool.name == name)?;
        serde_json::from_value(tool_entry(descriptor)).ok()
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        // A 2025-era session: the machine runs here and asks the client (legacy.rs); it
        // always ends complete.
        if let Some(session) = self.legacy_session(&context) {
            let result: rmcp::model::CallToolResult = self
                .forward_legacy("tools/call", request, &context, session)
                .await?;
            return Ok(CallToolResponse::Complete(result));
        }
        let retry = Retry {
            arguments: request.arguments,
            input_responses: request.input_responses,
            request_state: request.request_state,
        };
        let reply = self
            .round(RoundMethod::CallTool, &request.name, retry, &context)
            .await?;
        self.tool_response(reply)
    }

    async fn list_prompts(
        &self,
        request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListPromptsResult, ErrorData> {
        self.forward("prompts/list", request, &context).await
    }

    async fn get_prompt(
        &self,
        request: GetPromptRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<GetPromptResponse, ErrorData> {
        // A 2025-era session: the machine runs here and asks the client (legacy.rs); it
        // always ends complete.
        if let Some(session) = self.legacy_session(&context) {
            let result: rmcp::model::GetPromptResult = self
                .forward_legacy("prompts/get", request, &context, session)
                .await?;
            return Ok(GetPromptResponse::Complete(result));
        }
        let retry = Retry {
            arguments: request.arguments,
            input_responses: request.input_responses,
            request_state: request.request_state,
        };
        self.respond(
            RoundMethod::GetPrompt,
            &request.name,
            retry,
            &context,
            GetPromptResponse::Complete,
            GetPromptResponse::InputRequired,
        )
        .await
    }

    async fn complete(
        &self,
        request: CompleteRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CompleteResult, ErrorData> {
        self.forward("completion/complete", request, &context).await
    }

    async fn list_resources(
        &self,
        request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, ErrorData> {
        self.forward("resources/list", request, &context).await
    }

    async fn list_resource_templates(
        &self,
        request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListResourceTemplatesResult, ErrorData> {
        self.forward("resources/templates/list", request, &context)
            .await
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, ErrorData> {
        // A 2025-era session: the machine runs here and asks the client (legacy.rs); it
        // always ends complete.
        if let Some(session) = self.legacy_session(&context) {
            let result: rmcp::model::ReadResourceResult = self
                .forward_legacy("resources/read", request, &context, session)
                .await?;
            return Ok(ReadResourceResponse::Complete(result));
        }
        let retry = Retry {
            arguments: None,
            input_responses: request.input_responses,
            request_state: request.request_state,
        };
        self.respond(
            RoundMethod::ReadResource,
            &request.uri,
            retry,
            &context,
            ReadResourceResponse::Complete,
            ReadResourceResponse::InputRequired,
        )
        .await
    }
}

impl McpServer {
    /// A round of a prompt or resource read, as rmcp's response type for it (these are
    /// shaped as JSON first: their results have no fast path).
    async fn respond<C: DeserializeOwned, R>(
        &self,
        method: RoundMethod,
        target: &str,
        retry: Retry,
        context: &RequestContext<RoleServer>,
        complete: fn(C) -> R,
        input_required: fn(InputRequiredResult) -> R,
    ) -> Result<R, ErrorData> {
        let reply = self.round(method, target, retry, context).await?;
        self.shaped(reply, complete, input_required)
    }

    /// A prompt's or resource read's reply as rmcp's response (shaped as JSON first: these
    /// results have no fast path).
    pub(super) fn shaped<C: DeserializeOwned, R>(
        &self,
        reply: RoundReply,
        complete: fn(C) -> R,
        input_required: fn(InputRequiredResult) -> R,
    ) -> Result<R, ErrorData> {
        let result = self.server.reply_json(reply);
        Ok(if is_input_required(&result) {
            input_required(convert(result)?)
        } else {
            complete(convert(result)?)
        })
    }
}

fn convert<T: DeserializeOwned>(result: Value) -> Result<T, ErrorData> {
    serde_json::from_value(result).map_err(|reason| {
        ErrorData::internal_error(format!("result does not fit rmcp's types: {reason}"), None)
    })
}
