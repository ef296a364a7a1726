//! `mrtr::Server`: a framework-agnostic MCP 2026-07-28 server for mrtr tools, prompts and
//! resource templates. Give it one JSON-RPC request object, get the response object back.

use std::sync::Arc;

use serde_json::{Map, Value, json};

use crate::capabilities::ClientCapabilities;
use crate::context::{AppState, Authorize};
use crate::engine::{Environment, RoundEnd, RoundInput, run_round};
use crate::input::InputRequest;
use crate::machine::{
    CacheHint, CacheScope, Prompt, PromptDescriptor, Resource, ResourceDescriptor, Tool,
    ToolDescriptor,
};
use crate::protocol::{
    META_CLIENT_CAPABILITIES, META_PROTOCOL_VERSION, META_SERVER_INFO, PROTOCOL_VERSION, RpcError,
    codes,
};
use crate::results::{CallToolResult, ToolOutput};
use crate::single_use::{MemoryStore, ReplayStore};
use crate::token::{KeyError, KeyRing, Mode, StateCodec};
use crate::uri_template::UriTemplate;

/// The round cap used when neither the tool nor the server sets one: what the TypeScript,
/// Python and rmcp clients allow.
pub const DEFAULT_MAX_ROUNDS: u32 = 10;

/// An MCP server for mrtr machines. Cheap to clone.
///
/// ```
/// # async fn demo() -> Result<(), Box<dyn std::error::Error>> {
/// use mrtr_runtime::Server;
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
    info: Value,
    env: Environment,
    // Descriptors are taken once, at build time: the hot path never rebuilds schemas.
    tools: Vec<(ToolDescriptor, Arc<dyn Tool>)>,
    prompts: Vec<(PromptDescriptor, Arc<dyn Prompt>)>,
    resources: Vec<(UriTemplate, ResourceDescriptor, Arc<dyn Resource>)>,
    max_rounds: u32,
    single_use: bool,
    list_cache: CacheHint,
}

/// Configures a [`Server`].
pub struct ServerBuilder {
    name: String,
    version: String,
    codec: Option<StateCodec>,
    key_ring: Option<KeyRing>,
    mode: Mode,
    audience: Option<String>,
    tools: Vec<Arc<dyn Tool>>,
    prompts: Vec<Arc<dyn Prompt>>,
    resources: Vec<Arc<dyn Resource>>,
    state: AppState,
    authorizer: Option<Arc<dyn Authorize>>,
    replays: Arc<dyn ReplayStore>,
    single_use: bool,
    max_rounds: u32,
    list_cache: CacheHint,
}

/// The server could not be built.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum BuildError {
    /// The state keys are unusable.
    #[error(transparent)]
    Keys(#[from] KeyError),
    /// Two tools, two prompts or two resource templates share a name.
    #[error("two {kind} are named {name:?}")]
    Duplicate {
        /// `tools`, `prompts` or `resource templates`.
        kind: &'static str,
        /// The shared name.
        name: String,
    },
    /// A resource template does not parse.
    #[error("invalid URI template: {0}")]
    UriTemplate(String),
}

impl Server {
    /// Starts configuring a server with its implementation name and version.
    pub fn builder(name: impl Into<String>, version: impl Into<String>) -> ServerBuilder {
        ServerBuilder {
            name: name.into(),
            version: version.into(),
            codec: None,
            key_ring: None,
            mode: Mode::default(),
            audience: None,
            tools: Vec::new(),
            prompts: Vec::new(),
            resources: Vec::new(),
            state: AppState::default(),
            authorizer: None,
            replays: Arc::new(MemoryStore::default()),
            single_use: false,
            max_rounds: DEFAULT_MAX_ROUNDS,
            list_cache: CacheHint {
                ttl_ms: 60_000,
                scope: CacheScope::Public,
            },
        }
    }

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
        self.dispatch(method, Some(&params), principal).await
    }

    /// Whether tools, prompts and resource templates are registered (the capabilities to
    /// declare).
    pub fn registered(&self) -> (bool, bool, bool) {
        let inner = &*self.inner;
        (
            !inner.tools.is_empty(),
            !inner.prompts.is_empty(),
            !inner.resources.is_empty(),
        )
    }

    /// The application state of type `T` registered with [`ServerBuilder::state`].
    pub fn app_state<T: Send + Sync + 'static>(&self) -> Option<&T> {
        self.inner.env.state.get()
    }

    /// The `tools/list` entries of the registered tools.
    pub fn tool_entries(&self) -> Vec<Value> {
        self.inner
            .tools
            .iter()
            .map(|(descriptor, _)| tool_entry(descriptor))
            .collect()
    }

    /// The implementation name and version given to [`Server::builder`].
    pub fn implementation(&self) -> (String, String) {
        let text = |field: &str| {
            self.inner.info[field]
                .as_str()
                .unwrap_or_default()
                .to_owned()
        };
        (text("name"), text("version"))
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
    /// # async fn demo(server: mrtr_runtime::Server, request: serde_json::Value,
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
                self.dispatch(method, request.get("params"), principal)
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
        principal: Option<&str>,
    ) -> Result<Value, RpcError> {
        let inner = &*self.inner;
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
        let declared = match parsed {
            Method::Discover => true,
            Method::ListTools | Method::Round(RoundMethod::CallTool) => !inner.tools.is_empty(),
            Method::ListPrompts | Method::Round(RoundMethod::GetPrompt) => {
                !inner.prompts.is_empty()
            }
            Method::ListResources
            | Method::ListResourceTemplates
            | Method::Round(RoundMethod::ReadResource) => !inner.resources.is_empty(),
        };
        if !declared {
            return Err(RpcError::method_not_found(method));
        }
        let empty = Map::new();
        let params = match params {
            None => &empty,
            Some(Value::Object(params)) => params,
            Some(_) => return Err(RpcError::invalid_params("params must be an object")),
        };
        let meta = params.get("_meta").and_then(Value::as_object);
        let capabilities = check_meta(meta)?;
        match parsed {
            Method::Discover => Ok(self.cacheable(self.discover(), inner.list_cache)),
            Method::ListTools => {
                let tools: Vec<Value> = inner
                    .tools
                    .iter()
                    .map(|(descriptor, _)| tool_entry(descriptor))
                    .collect();
                Ok(self.cacheable(json!({ "tools": tools }), inner.list_cache))
            }
            Method::ListPrompts => {
                let prompts: Vec<Value> = inner
                    .prompts
                    .iter()
                    .map(|(descriptor, _)| prompt_entry(descriptor))
                    .collect();
                Ok(self.cacheable(json!({ "prompts": prompts }), inner.list_cache))
            }
            Method::ListResources => {
                Ok(self.cacheable(json!({ "resources": [] }), inner.list_cache))
            }
            Method::ListResourceTemplates => {
                let templates: Vec<Value> = inner
                    .resources
                    .iter()
                    .map(|(_, descriptor, _)| template_entry(descriptor))
                    .collect();
                Ok(self.cacheable(json!({ "resourceTemplates": templates }), inner.list_cache))
            }
            Method::Round(method) => {
                let field = match method {
                    RoundMethod::ReadResource => "uri",
                    _ => "name",
                };
                let target = required_str(params, field, method.as_str())?;
                let (input_responses, request_state) = retry_fields(params)?;
                let request = RoundRequest {
                    method,
                    target,
                    arguments: arguments(params)?,
                    input_responses,
                    request_state,
                    capabilities,
                    principal,
                };
                Ok(self.reply_json(self.round(request).await?))
            }
        }
    }

    /// Runs one round of a `tools/call`, `prompts/get` or `resources/read` whose params were
    /// parsed already (by [`Server::handle`] from JSON, or by a host such as rmcp into its
    /// own types).
    pub(crate) async fn round(&self, request: RoundRequest<'_>) -> Result<RoundReply, RpcError> {
        match request.method {
            RoundMethod::CallTool => self.call_tool(request).await,
            RoundMethod::GetPrompt => self.get_prompt(request).await,
            RoundMethod::ReadResource => self.read_resource(request).await,
        }
    }

    /// A round's reply as the JSON result object.
    pub(crate) fn reply_json(&self, reply: RoundReply) -> Value {
        match reply {
            RoundReply::Complete {
                result,
                cache: None,
            } => self.complete(result),
            RoundReply::Complete {
                result,
                cache: Some(cache),
            } => self.cacheable(result, cache),
            RoundReply::InputRequired { requests, state } => self.input_required(requests, state),
        }
    }

    /// The `serverInfo` every result carries in its `_meta`.
    #[cfg(feature = "rmcp")]
    pub(crate) fn server_info(&self) -> &Value {
        &self.inner.info
    }

    fn discover(&self) -> Value {
        let inner = &*self.inner;
        let mut capabilities = Map::new();
        if !inner.tools.is_empty() {
            capabilities.insert("tools".into(), json!({}));
        }
        if !inner.prompts.is_empty() {
            capabilities.insert("prompts".into(), json!({}));
        }
        if !inner.resources.is_empty() {
            capabilities.insert("resources".into(), json!({}));
        }
        json!({
            "supportedVersions": [PROTOCOL_VERSION],
            "capabilities": capabilities,
            "serverInfo": inner.info,
        })
    }

    async fn call_tool(&self, mut request: RoundRequest<'_>) -> Result<RoundReply, RpcError> {
        let name = request.target;
        let (descriptor, tool) = self
            .inner
            .tools
            .iter()
            .find(|(descriptor, _)| descriptor.name == name)
            .ok_or_else(|| RpcError::invalid_params(format!("unknown tool {name:?}")))?;
        let arguments = Value::Object(request.arguments.take().unwrap_or_default());
        let (max_rounds, single_use) = (descriptor.max_rounds, descriptor.single_use);
        let input = self.round_input(request, &arguments, max_rounds, single_use);
        let failed = |message: String| RoundReply::Complete {
            result: CallToolResult::error(message).into_tool_result(),
            cache: None,
        };
        Ok(match run_round(&self.inner.env, &**tool, input).await? {
            RoundEnd::Complete(result) => RoundReply::Complete {
                result,
                cache: None,
            },
            RoundEnd::InputRequired { requests, state } => {
                RoundReply::InputRequired { requests, state }
            }
            RoundEnd::Failed(message) => failed(message),
            RoundEnd::BadArguments(reason) => failed(format!("invalid arguments: {reason}")),
            RoundEnd::Denied(denied) => failed(denied.to_string()),
            RoundEnd::TooManyRounds(cap) => failed(too_many_rounds(cap)),
        })
    }

    async fn get_prompt(&self, mut request: RoundRequest<'_>) -> Result<RoundReply, RpcError> {
        let name = request.target;
        let (descriptor, prompt) = self
            .inner
            .prompts
            .iter()
            .find(|(descriptor, _)| descriptor.name == name)
            .ok_or_else(|| RpcError::invalid_params(format!("unknown prompt {name:?}")))?;
        let arguments = Value::Object(request.arguments.take().unwrap_or_default());
        if let Some((key, _)) = arguments
            .as_object()
            .into_iter()
            .flatten()
            .find(|(_, value)| !value.is_string())
        {
            return Err(RpcError::invalid_params(format!(
                "prompt argument {key:?} must be a string"
            )));
        }
        let input = self.round_input(request, &arguments, descriptor.max_rounds, false);
        let end = run_round(&self.inner.env, &**prompt, input).await?;
        finish_non_tool(end, None)
    }

    async fn read_resource(&self, request: RoundRequest<'_>) -> Result<RoundReply, RpcError> {
        let uri = request.target;
        let (variables, descriptor, resource) = self
            .inner
            .resources
            .iter()
            .find_map(|(template, descriptor, resource)| {
                template
                    .matches(uri)
                    .map(|variables| (variables, descriptor, resource))
            })
            .ok_or_else(|| RpcError::invalid_params(format!("resource not found: {uri}")))?;
        let arguments = Value::Object(variables);
        // A result that depends on answers must not be cached.
        let retried = request.input_responses.is_some() || request.request_state.is_some();
        let cache = if retried {
            CacheHint::NONE
        } else {
            descriptor.cache
        };
        let input = self.round_input(request, &arguments, descriptor.max_rounds, false);
        let end = run_round(&self.inner.env, &**resource, input).await?;
        finish_non_tool(end, Some(cache))
    }

    /// The round of a `tools/call`, `prompts/get` or `resources/read`, with the server's
    /// defaults applied.
    fn round_input<'a>(
        &self,
        request: RoundRequest<'a>,
        arguments: &'a Value,
        max_rounds: Option<u32>,
        single_use: bool,
    ) -> RoundInput<'a> {
        RoundInput {
            method: request.method.as_str(),
            target: request.target,
            arguments,
            input_responses: request.input_responses,
            request_state: request.request_state,
            capabilities: request.capabilities,
            principal: request.principal,
            max_rounds: max_rounds.unwrap_or(self.inner.max_rounds),
            single_use: single_use || self.inner.single_use,
        }
    }

    fn input_required(&self, requests: Vec<(String, InputRequest)>, state: String) -> Value {
        let mut result = Map::new();
        result.insert("resultType".into(), "input_required".into());
        // Never an empty map: a state-only round omits the field.
        if !requests.is_empty() {
            let requests = requests
                .into_iter()
                .map(|(key, request)| (key, request.into_value()))
                .collect();
            result.insert("inputRequests".into(), Value::Object(requests));
        }
        result.insert("requestState".into(), state.into());
        self.with_server_info(Value::Object(result))
    }

    fn complete(&self, mut result: Value) -> Value {
        result["resultType"] = "complete".into();
        self.with_server_info(result)
    }

    fn cacheable(&self, mut result: Value, cache: CacheHint) -> Value {
        result["ttlMs"] = cache.ttl_ms.into();
        result["cacheScope"] = cache.scope.as_str().into();
        self.complete(result)
    }

    fn with_server_info(&self, mut result: Value) -> Value {
        if !result.get("_meta").is_some_and(Value::is_object) {
            result["_meta"] = json!({});
        }
        result["_meta"][META_SERVER_INFO] = self.inner.info.clone();
        result
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

/// Prompts and resources have no `isError`: failures are JSON-RPC errors.
fn finish_non_tool(end: RoundEnd, cache: Option<CacheHint>) -> Result<RoundReply, RpcError> {
    match end {
        RoundEnd::Complete(result) => Ok(RoundReply::Complete { result, cache }),
        RoundEnd::InputRequired { requests, state } => {
            Ok(RoundReply::InputRequired { requests, state })
        }
        RoundEnd::Failed(message) => Err(RpcError::handler_error(message)),
        RoundEnd::BadArguments(reason) => Err(RpcError::invalid_params(format!(
            "invalid arguments: {reason}"
        ))),
        RoundEnd::Denied(denied) => Err(RpcError::invalid_params(denied.to_string())),
        RoundEnd::TooManyRounds(cap) => Err(RpcError::invalid_params(too_many_rounds(cap))),
    }
}

/// A method this server answers, parsed once from its name.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Method {
    Discover,
    ListTools,
    ListPrompts,
    ListResources,
    ListResourceTemplates,
    Round(RoundMethod),
}

impl Method {
    fn parse(method: &str) -> Option<Self> {
        Some(match method {
            "server/discover" => Self::Discover,
            "tools/list" => Self::ListTools,
            "tools/call" => Self::Round(RoundMethod::CallTool),
            "prompts/list" => Self::ListPrompts,
            "prompts/get" => Self::Round(RoundMethod::GetPrompt),
            "resources/list" => Self::ListResources,
            "resources/templates/list" => Self::ListResourceTemplates,
            "resources/read" => Self::Round(RoundMethod::ReadResource),
            _ => return None,
        })
    }
}

/// The three methods whose rounds may answer `input_required`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum RoundMethod {
    CallTool,
    GetPrompt,
    ReadResource,
}

impl RoundMethod {
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Self::CallTool => "tools/call",
            Self::GetPrompt => "prompts/get",
            Self::ReadResource => "resources/read",
        }
    }
}

/// One round's request with its params parsed: from JSON by [`Server::handle`], or from a
/// host's own types (the rmcp adapter hands its typed params over without a JSON detour).
pub(crate) struct RoundRequest<'a> {
    pub(crate) method: RoundMethod,
    /// The tool or prompt name, or the resource URI.
    pub(crate) target: &'a str,
    /// The arguments object (`None`: absent or `null`, which mean `{}`).
    pub(crate) arguments: Option<Map<String, Value>>,
    pub(crate) input_responses: Option<Map<String, Value>>,
    pub(crate) request_state: Option<&'a str>,
    pub(crate) capabilities: ClientCapabilities,
    pub(crate) principal: Option<&'a str>,
}

/// How a round ended, as the method's result before it is shaped for the wire.
pub(crate) enum RoundReply {
    /// The final result (without `resultType` and `_meta`); `cache` for a resource read.
    Complete {
        result: Value,
        cache: Option<CacheHint>,
    },
    /// The questions (possibly none) and the sealed state.
    InputRequired {
        requests: Vec<(String, InputRequest)>,
        state: String,
    },
}

fn response(id: Value, outcome: Result<Value, RpcError>) -> Value {
    match outcome {
        Ok(result) => json!({"jsonrpc": "2.0", "id": id, "result": result}),
        Err(error) => json!({"jsonrpc": "2.0", "id": id, "error": error.to_json()}),
    }
}

fn too_many_rounds(cap: u32) -> String {
    format!("this flow needed more than {cap} rounds of input and was stopped; start it again")
}

/// `_meta` duties of every 2026-07-28 request; returns this request's capabilities.
pub(crate) fn check_meta(
    meta: Option<&Map<String, Value>>,
) -> Result<ClientCapabilities, RpcError> {
    let hint = "every MCP 2026-07-28 request carries params._meta with \
                io.modelcontextprotocol/protocolVersion and io.modelcontextprotocol/clientCapabilities \
                (2025-11-25 clients are served over a session: mrtr::rmcp::McpServer, or \
                Server::handle_legacy)";
    let meta =
        meta.ok_or_else(|| RpcError::invalid_params(format!("missing params._meta: {hint}")))?;
    let version = meta.get(META_PROTOCOL_VERSION).and_then(Value::as_str);
    let capabilities = meta
        .get(META_CLIENT_CAPABILITIES)
        .and_then(Value::as_object);
    let (Some(version), Some(capabilities)) = (version, capabilities) else {
        let missing = if version.is_none() {
            META_PROTOCOL_VERSION
        } else {
            META_CLIENT_CAPABILITIES
        };
        return Err(RpcError::invalid_params(format!(
            "missing or invalid _meta[{missing:?}]: {hint}"
        )));
    };
    if version != PROTOCOL_VERSION {
        return Err(RpcError::unsupported_version(version));
    }
    Ok(ClientCapabilities::from_object(capabilities.clone()))
}

fn required_str<'a>(
    params: &'a Map<String, Value>,
    field: &str,
    method: &str,
) -> Result<&'a str, RpcError> {
    params.get(field).and_then(Value::as_str).ok_or_else(|| {
        RpcError::invalid_params(format!("{method} needs params.{field} (a string)"))
    })
}

/// The arguments object (absent or `null` mean `{}`).
fn arguments(params: &Map<String, Value>) -> Result<Option<Map<String, Value>>, RpcError> {
    match params.get("arguments") {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Object(arguments)) => Ok(Some(arguments.clone())),
        Some(_) => Err(RpcError::invalid_params(
            "params.arguments must be an object",
        )),
    }
}

/// `inputResponses` (an object when present) and `requestState` (a string; `null` = absent).
///
/// `inputResponses: null` is refused (`-32602`, as the conformance suite expects). Through the
/// rmcp host it cannot be: rmcp parses params into its typed `Option` before mrtr sees them,
/// so `null` and absent arrive the same, and are treated as absent. Both are safe: no answer
/// is taken from either.
type RetryFields<'a> = (Option<Map<String, Value>>, Option<&'a str>);

fn retry_fields(params: &Map<String, Value>) -> Result<RetryFields<'_>, RpcError> {
    let responses = match params.get("inputResponses") {
        None => None,
        Some(Value::Object(responses)) => Some(responses.clone()),
        Some(_) => {
            return Err(RpcError::invalid_params(
                "params.inputResponses must be an object mapping keys to answers",
            ));
        }
    };
    let state = match params.get("requestState") {
        None | Some(Value::Null) => None,
        Some(Value::String(state)) => Some(state.as_str()),
        Some(_) => {
            return Err(RpcError::invalid_params(
                "params.requestState must be the string the server sent",
            ));
        }
    };
    Ok((responses, state))
}

fn tool_entry(descriptor: &ToolDescriptor) -> Value {
    let mut entry = json!({"name": descriptor.name, "inputSchema": descriptor.input_schema});
    optional(
        &mut entry,
        [
            ("title", &descriptor.title),
            ("description", &descriptor.description),
        ],
    );
    entry
}

fn optional<const N: usize>(entry: &mut Value, fields: [(&str, &Option<String>); N]) {
    for (field, value) in fields {
        if let Some(value) = value {
            entry[field] = value.clone().into();
        }
    }
}

fn prompt_entry(descriptor: &PromptDescriptor) -> Value {
    let arguments: Vec<Value> = descriptor
        .arguments
        .iter()
        .map(|argument| {
            let mut entry = json!({"name": argument.name, "required": argument.required});
            optional(&mut entry, [("description", &argument.description)]);
            entry
        })
        .collect();
    let mut entry = json!({"name": descriptor.name, "arguments": arguments});
    optional(
        &mut entry,
        [
            ("title", &descriptor.title),
            ("description", &descriptor.description),
        ],
    );
    entry
}

fn template_entry(descriptor: &ResourceDescriptor) -> Value {
    let mut entry = json!({"uriTemplate": descriptor.uri_template, "name": descriptor.name});
    let fields = [
        ("title", &descriptor.title),
        ("description", &descriptor.description),
        ("mimeType", &descriptor.mime_type),
    ];
    optional(&mut entry, fields);
    entry
}

impl ServerBuilder {
    /// Seals states with this codec (its keys, mode and audience).
    pub fn codec(mut self, codec: StateCodec) -> Self {
        self.codec = Some(codec);
        self
    }

    /// The state keys (default: [`KEYS_ENV_VAR`](crate::token::KEYS_ENV_VAR), else a random
    /// process key with a warning). Ignored if [`ServerBuilder::codec`] is given.
    pub fn key_ring(mut self, ring: KeyRing) -> Self {
        self.key_ring = Some(ring);
        self
    }

    /// The sealing mode (default AEAD). Ignored if [`ServerBuilder::codec`] is given.
    pub fn mode(mut self, mode: Mode) -> Self {
        self.mode = mode;
        self
    }

    /// The audience states are bound to (default: the server's name). Ignored if
    /// [`ServerBuilder::codec`] is given.
    pub fn audience(mut self, audience: impl Into<String>) -> Self {
        self.audience = Some(audience.into());
        self
    }

    /// Registers a tool.
    pub fn tool(mut self, tool: impl Tool) -> Self {
        self.tools.push(Arc::new(tool));
        self
    }

    /// Registers a prompt.
    pub fn prompt(mut self, prompt: impl Prompt) -> Self {
        self.prompts.push(Arc::new(prompt));
        self
    }

    /// Registers a resource template.
    pub fn resource(mut self, resource: impl Resource) -> Self {
        self.resources.push(Arc::new(resource));
        self
    }

    /// Registers application state, reachable from tools with `cx.state::<T>()`.
    pub fn state<T: Send + Sync + 'static>(mut self, value: T) -> Self {
        self.state.insert(value);
        self
    }

    /// Sets the authorization hook, run before every round of every flow.
    pub fn authorize(mut self, authorizer: impl Authorize) -> Self {
        self.authorizer = Some(Arc::new(authorizer));
        self
    }

    /// Where single-use states are recorded (default: [`MemoryStore`], right for a single
    /// instance; several instances need a shared store).
    pub fn replay_store(mut self, store: impl ReplayStore) -> Self {
        self.replays = Arc::new(store);
        self
    }

    /// Makes every tool, prompt and resource single use, not only those marked
    /// `#[mrtr::tool(single_use)]`.
    pub fn single_use(mut self, all: bool) -> Self {
        self.single_use = all;
        self
    }

    /// The default round cap (default [`DEFAULT_MAX_ROUNDS`]).
    pub fn max_rounds(mut self, rounds: u32) -> Self {
        self.max_rounds = rounds;
        self
    }

    /// Cache hint of discover and list results (default 60 s, public).
    pub fn list_cache(mut self, cache: CacheHint) -> Self {
        self.list_cache = cache;
        self
    }

    /// Builds the server.
    pub fn build(self) -> Result<Server, BuildError> {
        let codec = match self.codec {
            Some(codec) => codec,
            None => {
                let mut builder = StateCodec::builder()
                    .mode(self.mode)
                    .audience(self.audience.unwrap_or_else(|| self.name.clone()));
                if let Some(ring) = self.key_ring {
                    builder = builder.key_ring(ring);
                }
                builder.build()?
            }
        };
        let tools: Vec<_> = self
            .tools
            .into_iter()
            .map(|tool| (tool.descriptor(), tool))
            .collect();
        let prompts: Vec<_> = self
            .prompts
            .into_iter()
            .map(|prompt| (prompt.descriptor(), prompt))
            .collect();
        unique(
            "tools",
            tools.iter().map(|(descriptor, _)| &descriptor.name),
        )?;
        unique(
            "prompts",
            prompts.iter().map(|(descriptor, _)| &descriptor.name),
        )?;
        let resources = self
            .resources
            .into_iter()
            .map(|resource| {
                let descriptor = resource.descriptor();
                let template = UriTemplate::parse(&descriptor.uri_template)
                    .map_err(BuildError::UriTemplate)?;
                Ok((template, descriptor, resource))
            })
            .collect::<Result<Vec<_>, BuildError>>()?;
        unique(
            "resource templates",
            resources
                .iter()
                .map(|(_, descriptor, _)| &descriptor.uri_template),
        )?;
        Ok(Server {
            inner: Arc::new(Inner {
                info: json!({"name": self.name, "version": self.version}),
                env: Environment {
                    codec,
                    state: Arc::new(self.state),
                    authorizer: self.authorizer,
                    replays: self.replays,
                },
                single_use: self.single_use,
                tools,
                prompts,
                resources,
                max_rounds: self.max_rounds,
                list_cache: self.list_cache,
            }),
        })
    }
}

fn unique<'a>(
    kind: &'static str,
    names: impl Iterator<Item = &'a String>,
) -> Result<(), BuildError> {
    let mut seen = std::collections::HashSet::new();
    for name in names {
        if !seen.insert(name) {
            return Err(BuildError::Duplicate {
                kind,
                name: name.clone(),
            });
        }
    }
    Ok(())
}
