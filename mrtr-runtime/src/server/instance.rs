//! The server itself: what it was built with, and what it tells about itself. Handling a
//! request is [`dispatch`](super::dispatch)'s; running a round is [`round`](super::round)'s.

use std::collections::HashSet;
use std::sync::Arc;

use serde_json::Value;

use crate::author::completion::Complete;
use crate::engine::Environment;
use crate::machine::{
    CacheHint, Prompt, PromptDescriptor, Resource, ResourceDescriptor, Tool, ToolDescriptor,
};
use crate::token::StateCodec;
use crate::uri_template::UriTemplate;

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
    pub(super) inner: Arc<Inner>,
}

pub(super) struct Inner {
    pub(super) info: ServerInfo,
    /// `info` as JSON, as every result's `_meta` carries it.
    pub(super) info_json: Value,
    pub(super) env: Environment,
    // Descriptors are taken once, at build time: the hot path never rebuilds schemas.
    pub(super) tools: Vec<(ToolDescriptor, Arc<dyn Tool>)>,
    pub(super) prompts: Vec<(PromptDescriptor, Arc<dyn Prompt>)>,
    pub(super) resources: Vec<(UriTemplate, ResourceDescriptor, Arc<dyn Resource>)>,
    pub(super) max_rounds: u32,
    pub(super) single_use: bool,
    pub(super) list_cache: CacheHint,
    pub(super) completer: Option<Arc<dyn Complete>>,
    /// Tools with arguments mirrored in `Mcp-Param-*` headers (SEP-2243), found at build time.
    #[cfg_attr(
        not(feature = "rmcp"),
        allow(dead_code, reason = "read by the HTTP host")
    )]
    pub(super) mirroring_tools: HashSet<String>,
    /// Where tasks live and the steps running here.
    pub(super) tasks: crate::task::runtime::TaskRuntime,
}

impl Server {
    /// The codec sealing this server's states (for key rotation through its ring).
    pub fn codec(&self) -> &StateCodec {
        &self.inner.env.codec
    }

    /// The application state of type `T` registered with [`ServerBuilder::state`](super::ServerBuilder::state).
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
}

impl std::fmt::Debug for Server {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Server")
            .field("info", &self.inner.info)
            .finish_non_exhaustive()
    }
}
