//! `mrtr::Server`: a framework-agnostic MCP 2026-07-28 server for mrtr tools, prompts and
//! resource templates. Give it one JSON-RPC request object, get the response object back.
//!
//! One concern per file: [`builder`] configures it, [`method`] names what it answers,
//! [`params`] reads a request, [`round`] runs one, [`reply`] shapes the result,
//! [`listing`] describes the server and [`completion`] answers `completion/complete`.

mod builder;
mod completion;
mod listing;
mod method;
mod params;
mod reply;
mod round;
mod task_listen;
mod tasks;

use std::collections::HashSet;
use std::sync::Arc;

use serde_json::{Map, Value};

use crate::completion::Complete;
use crate::engine::Environment;
use crate::machine::{
    CacheHint, Prompt, PromptDescriptor, Resource, ResourceDescriptor, Tool, ToolDescriptor,
};
use crate::protocol::{RpcError, codes};
use crate::telemetry::{JsonRpcId, RequestTrace};
use crate::token::StateCodec;
use crate::uri_template::UriTemplate;

pub use builder::{BuildError, DEFAULT_MAX_ROUNDS, ServerBuilder};
pub use task_listen::{MAX_LISTENED_TASKS, TaskListener};
// What the rmcp host builds its rounds and results from.
#[cfg(feature = "rmcp")]
pub(crate) use {
    listing::tool_entry, method::RoundMethod, params::check_meta, reply::RoundReply,
    round::RoundRequest,
};

use method::Method;
use reply::response;

/// The implementation name and version a server reports (`serverInfo`).
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct ServerInfo {
    /// The name given to [`Server::builder`].
    pub name: String,
    /// The version given to [`Server::builder`].
    pub version: String,
}

/// An MCP server for mrtr machines. Cheap to clone.
///
/// ```
/// # async fn demo() -> Result<(), Box<dyn std::error::Error>> {
/// use mrtr::Server;
/// use serde_json::json;
///
/// let server = Server::builder("demo", "1.0.0").build()?;
/// let response = server
///     .handle(json!({
///         "jsonrpc": "2.0", "id": 1, "method": "server/discover",
///         "params": {"_meta": {
///             "io.modelcontextprotocol/protocolVersion": "2026-07-28",
///             "io.modelcontextprotocol/clientCapabilities": {}
///         }}
///     }))
///     .await;
/// assert_eq!(response["result"]["supportedVersions"], json!(["2026-07-28"]));
/// # Ok(()) }
/// ```
#[derive(Clone)]
pub struct Server {
    inner: Arc<Inner>,
}

struct Inner {
    info: ServerInfo,
    /// `info` as JSON, as every result's `_meta` carries it.
    info_json: Value,
    env: Environment,
    // Descriptors are taken once, at build time: the hot path never rebuilds schemas.
    tools: Vec<(ToolDescriptor, Arc<dyn Tool>)>,
    prompts: Vec<(PromptDescriptor, Arc<dyn Prompt>)>,
    resources: Vec<(UriTemplate, ResourceDescriptor, Arc<dyn Resource>)>,
    max_rounds: u32,
    single_use: bool,
    list_cache: CacheHint,
    completer: Option<Arc<dyn Complete>>,
    /// Tools with arguments mirrored in `Mcp-Param-*` headers (SEP-2243), found at build time.
    #[cfg_attr(
        not(feature = "rmcp"),
        allow(dead_code, reason = "read by the HTTP host")
    )]
    mirroring_tools: HashSet<String>,
    /// Where tasks live and the steps running here.
    tasks: crate::task::runtime::TaskRuntime,
}

impl Server {
    /// The codec sealing this server's states (for key rotation through its ring).
    pub fn codec(&self) -> &StateCodec {
        &self.inner.env.codec
    }

    /// Runs one request given as method and params (with the per-request `_meta`), for hosts
    /// that parse JSON-RPC themselves. Returns the result object or the JSON-RPC error.
    pub async fn handle_request(
        &self,
        method: &str,
        params: Value,
        principal: Option<&str>,
    ) -> Result<Value, RpcError> {
        // The host keeps the request's id: its span has none.
        self.dispatch(method, Some(&params), &Value::Null, principal, false)
            .await
    }

    /// [`Server::handle_request`] for a round of a 2025-era session (legacy.rs): the whole
    /// body runs there, so its hand-off point is passed and a task-only tool is not refused.
    pub(crate) async fn handle_session_request(
        &self,
        method: &str,
        params: Value,
        principal: Option<&str>,
    ) -> Result<Value, RpcError> {
        self.dispatch(method, Some(&params), &Value::Null, principal, true)
            .await
    }

    /// The application state of type `T` registered with [`ServerBuilder::state`].
    pub fn app_state<T: Send + Sync + 'static>(&self) -> Option<&T> {
        self.inner.env.state.get()
    }

    /// Whether a [`Complete`] was registered (then `completion/complete` is answered and the
    /// `completions` capability declared).
    pub fn completes(&self) -> bool {
        self.inner.completer.is_some()
    }

    /// Whether tool `name` mirrors arguments in `Mcp-Param-*` headers (an `x-mcp-header`
    /// annotation in its input schema), which the HTTP host must check against the body.
    #[cfg_attr(
        not(feature = "rmcp"),
        allow(dead_code, reason = "read by the HTTP host")
    )]
    pub(crate) fn mirrors_param_headers(&self, name: &str) -> bool {
        self.inner.mirroring_tools.contains(name)
    }

    /// The implementation name and version given to [`Server::builder`].
    pub fn info(&self) -> &ServerInfo {
        &self.inner.info
    }

    /// The registered tools' descriptors, in registration order.
    pub fn tools(&self) -> impl ExactSizeIterator<Item = &ToolDescriptor> + '_ {
        self.inner.tools.iter().map(|(descriptor, _)| descriptor)
    }

    /// The registered prompts' descriptors, in registration order.
    pub fn prompts(&self) -> impl ExactSizeIterator<Item = &PromptDescriptor> + '_ {
        self.inner.prompts.iter().map(|(descriptor, _)| descriptor)
    }

    /// The registered resources' descriptors, in registration order: templates, and
    /// concrete URIs ([`ResourceDescriptor::is_concrete`]).
    pub fn resource_templates(&self) -> impl ExactSizeIterator<Item = &ResourceDescriptor> + '_ {
        self.inner
            .resources
            .iter()
            .map(|(_, descriptor, _)| descriptor)
    }

    /// The `serverInfo` every result carries in its `_meta`, as JSON.
    #[cfg(feature = "rmcp")]
    pub(crate) fn info_json(&self) -> &Value {
        &self.inner.info_json
    }

    /// Handles one JSON-RPC request object from an unauthenticated client.
    pub async fn handle(&self, request: Value) -> Value {
        self.handle_as(request, None).await
    }

    /// Like [`Server::handle_as`], but stops the request when `cancelled` completes first
    /// (the host's signal for `notifications/cancelled`, or a closed HTTP stream): the running
    /// step's future is dropped, so no code after its current `.await` runs and nothing is
    /// sealed. Returns `None` then: the spec forbids answering a cancelled request.
    ///
    /// ```
    /// # async fn demo(server: mrtr::Server, request: serde_json::Value,
    /// #     cancelled: impl std::future::Future<Output = ()>) {
    /// // `cancelled` completes when `notifications/cancelled` names this request's id.
    /// if let Some(response) = server.handle_until(request, None, cancelled).await {
    ///     // send `response`
    /// #   let _ = response;
    /// }
    /// # }
    /// ```
    pub async fn handle_until(
        &self,
        request: Value,
        principal: Option<&str>,
        cancelled: impl Future<Output = ()>,
    ) -> Option<Value> {
        until_cancelled(self.handle_as(request, principal), cancelled).await
    }

    /// Handles one JSON-RPC request object for `principal`, the identity the host
    /// authenticated (states are bound to it). Returns the response object, or `Null` for a
    /// notification, which gets no response.
    pub async fn handle_as(&self, request: Value, principal: Option<&str>) -> Value {
        let Value::Object(request) = request else {
            return response(
                Value::Null,
                Err(RpcError::new(
                    codes::INVALID_REQUEST,
                    "a request must be a JSON object",
                )),
            );
        };
        let Some(id) = request.get("id").cloned() else {
            return Value::Null;
        };
        let outcome = match (
            request.get("jsonrpc").and_then(Value::as_str),
            request.get("method").and_then(Value::as_str),
        ) {
            (Some("2.0"), Some(method)) => {
                self.dispatch(method, request.get("params"), &id, principal, false)
                    .await
            }
            _ => Err(RpcError::new(
                codes::INVALID_REQUEST,
                "expected a JSON-RPC 2.0 request with a method",
            )),
        };
        response(id, outcome)
    }

    async fn dispatch(
        &self,
        method: &str,
        params: Option<&Value>,
        id: &Value,
        principal: Option<&str>,
        on_session: bool,
    ) -> Result<Value, RpcError> {
        let Some(parsed) = Method::parse(method) else {
            if method == "initialize" {
                return Err(RpcError::new(
                    codes::METHOD_NOT_FOUND,
                    "this endpoint speaks MCP 2026-07-28 only: there is no initialize handshake; send \
                     each request with params._meta carrying the protocol version and client \
                     capabilities (2025-11-25 clients are served over a session: \
                     mrtr::rmcp::McpServer, or Server::handle_legacy)",
                ));
            }
            return Err(RpcError::method_not_found(method));
        };
        if parsed
            .capability()
            .is_some_and(|capability| !self.offers(capability))
        {
            return Err(RpcError::method_not_found(method));
        }
        let empty = Map::new();
        let params = match params {
            None => &empty,
            Some(Value::Object(params)) => params,
            Some(_) => return Err(RpcError::invalid_params("params must be an object")),
        };
        let meta = params.get("_meta").and_then(Value::as_object);
        let capabilities = params::check_meta(meta)?;
        match parsed {
            Method::Listing(listing) => Ok(self.listing(listing)),
            Method::Round(method) => {
                let trace = RequestTrace {
                    id: JsonRpcId::of(id),
                    meta,
                };
                let mut request =
                    params::round_request(method, params, capabilities, principal, trace)?;
                request.on_session = on_session;
                Ok(self.reply_json(self.round(request).await?))
            }
            Method::Complete => self.complete_argument(params, principal).await,
            Method::Task(method) => {
                if !capabilities.tasks() {
                    return Err(RpcError::missing_capability(
                        serde_json::json!({"extensions": {(crate::task::TASKS_EXTENSION): {}}}),
                        "tasks/* needs the io.modelcontextprotocol/tasks extension declared in \
                         this request's clientCapabilities",
                    ));
                }
                match method {
                    method::TaskMethod::Get => self.get_task(params, principal).await,
                    method::TaskMethod::Update => self.update_task(params, principal).await,
                    method::TaskMethod::Cancel => self.cancel_task(params, principal).await,
                }
            }
        }
    }
}

impl std::fmt::Debug for Server {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Server")
            .field("info", &self.inner.info)
            .finish_non_exhaustive()
    }
}

/// Runs `work` unless `cancelled` completes first; then `work` is dropped where it stands.
pub(crate) async fn until_cancelled<T>(
    work: impl Future<Output = T>,
    cancelled: impl Future<Output = ()>,
) -> Option<T> {
    let mut work = std::pin::pin!(work);
    let mut cancelled = std::pin::pin!(cancelled);
    std::future::poll_fn(|context| {
        // Cancellation first: a request cancelled before it ran never starts.
        if cancelled.as_mut().poll(context).is_ready() {
            return std::task::Poll::Ready(None);
        }
        work.as_mut().poll(context).map(Some)
    })
    .await
}
