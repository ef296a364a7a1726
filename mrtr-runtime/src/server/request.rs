//! mrtr's one request type for a round: what every host builds, from JSON ([`Server::handle`])
//! or from its own typed params (the rmcp adapter, without a JSON detour), and what the engine
//! runs.
//!
//! [`Server::handle`]: super::Server::handle

use serde_json::{Map, Value};

use super::method::RoundMethod;
use crate::capabilities::ClientCapabilities;
use crate::telemetry::RequestTrace;

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
    /// A round of a 2025-era session, which runs the whole body: never a task, whatever
    /// the tool's task support or the session's capabilities.
    pub(crate) on_session: bool,
    /// The request's id and `_meta`, for its span.
    pub(crate) trace: RequestTrace<'a>,
}
