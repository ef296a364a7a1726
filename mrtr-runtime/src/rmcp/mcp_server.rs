//! [`McpServer`], an mrtr [`Server`] as rmcp's `ServerHandler`, and what every way through rmcp
//! shares: the request's principal and `_meta`, and mrtr's errors and results in rmcp's types.

use std::sync::Arc;

use rmcp::model::{ErrorCode, Implementation, ServerCapabilities, ServerConfig};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer};
use serde::de::DeserializeOwned;
use serde_json::{Map, Value};

use super::call_gates::CallGates;
use super::limits::HttpLimits;
use crate::capabilities::ClientCapabilities;
use crate::legacy::LegacyOptions;
use crate::protocol::{META_CLIENT_CAPABILITIES, META_PROTOCOL_VERSION, RpcError};
use crate::server::{Server, take_checked_meta};

/// The identity the host authenticated for a request. Every `requestState` is bound to it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Principal(pub String);

/// An rmcp `ServerHandler` serving an mrtr [`Server`]. Cheap to clone: rmcp's HTTP service
/// builds one per request, and all of them share the server (and its keys).
#[derive(Clone, Debug)]
pub struct McpServer {
    pub(super) server: Server,
    /// How 2025-era sessions are served (`None`: refused at the handshake); see
    /// session_clients.rs.
    pub(super) legacy: Option<LegacyOptions>,
    /// The 2025-era calls running, shared by every clone.
    pub(super) calls: Arc<CallGates>,
    /// The limits of `serve_http`'s HTTP front.
    pub(super) http_limits: HttpLimits,
    /// What `get_info` answers: the capabilities and `serverInfo`, fixed by the server.
    pub(super) config: Arc<ServerConfig>,
}

impl McpServer {
    /// Serves `server` through rmcp, to 2026-07-28 clients and, over a session, to
    /// 2025-11-25 and 2025-06-18 ones (see [`McpServer::with_legacy`]).
    pub fn new(server: Server) -> Self {
        Self {
            legacy: Some(LegacyOptions::default()),
            calls: Arc::default(),
            http_limits: HttpLimits::default(),
            config: Arc::new(server_config(&server)),
            server,
        }
    }

    /// The served mrtr server.
    pub fn server(&self) -> &Server {
        &self.server
    }
}

impl From<Server> for McpServer {
    fn from(server: Server) -> Self {
        Self::new(server)
    }
}

/// The request's `_meta` as the client sent it (protocol version and capabilities of *this*
/// request: never the session's).
pub(super) fn request_meta(context: &RequestContext<RoleServer>) -> Value {
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

pub(super) fn principal(context: &RequestContext<RoleServer>) -> Option<String> {
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

pub(super) fn error(error: RpcError) -> ErrorData {
    ErrorData::new(ErrorCode(error.code as i32), error.message, error.data)
}

/// The capabilities and `serverInfo` that `server` declares to rmcp: a capability for each kind
/// of thing registered, and the tasks extension when a tool runs as a task.
fn server_config(server: &Server) -> ServerConfig {
    let mut capabilities = Map::new();
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
    ServerConfig::new(capabilities).with_server_info(Implementation::new(&info.name, &info.version))
}

/// This request's client capabilities, once its `_meta` meets a 2026-07-28 request's duties.
/// rmcp usually leaves both keys in the context's `_meta`: then the capabilities are taken out
/// of it (the round's span reads only the version and the trace). When rmcp took them out for
/// its own use, they are put back first.
pub(super) fn request_capabilities(
    context: &mut RequestContext<RoleServer>,
) -> Result<ClientCapabilities, ErrorData> {
    let raw = &mut context.meta.0.0;
    if raw.contains_key(META_PROTOCOL_VERSION) && raw.contains_key(META_CLIENT_CAPABILITIES) {
        return take_checked_meta(Some(raw)).map_err(error);
    }
    match request_meta(context) {
        Value::Object(mut meta) => take_checked_meta(Some(&mut meta)),
        _ => take_checked_meta(None),
    }
    .map_err(error)
}

/// What a request that was cancelled answers (it is not sent: the spec forbids answering a
/// cancelled request, but rmcp's handler must return something).
pub(super) fn cancelled() -> ErrorData {
    ErrorData::new(ErrorCode(-32800), "request cancelled", None)
}

pub(super) fn from_json<T: DeserializeOwned>(result: Value) -> Result<T, ErrorData> {
    serde_json::from_value(result).map_err(|reason| {
        ErrorData::internal_error(format!("result does not fit rmcp's types: {reason}"), None)
    })
}
