//! Reading a request's params: the `_meta` every 2026-07-28 request carries, and the fields of
//! a round's retry.

use serde_json::{Map, Value};

use super::method::RoundMethod;
use super::request::RoundRequest;
use crate::capabilities::ClientCapabilities;
use crate::protocol::{
    META_CLIENT_CAPABILITIES, META_PROTOCOL_VERSION, PROTOCOL_VERSION, RpcError,
};
use crate::telemetry::RequestTrace;

/// `_meta` duties of every 2026-07-28 request; returns this request's capabilities.
pub(crate) fn check_meta(
    meta: Option<&Map<String, Value>>,
) -> Result<ClientCapabilities, RpcError> {
    checked_capabilities(meta)
        .map(|capabilities| ClientCapabilities::from_object(capabilities.clone()))
}

/// [`check_meta`] for a `_meta` the caller owns: the capabilities are taken out of it rather
/// than copied (the rest of the `_meta` stays, for the round's span to read). The rmcp host's.
#[cfg(feature = "rmcp")]
pub(crate) fn take_checked_meta(
    meta: Option<&mut Map<String, Value>>,
) -> Result<ClientCapabilities, RpcError> {
    let Some(meta) = meta else {
        return check_meta(None);
    };
    checked_capabilities(Some(meta))?;
    match meta.remove(META_CLIENT_CAPABILITIES) {
        Some(Value::Object(capabilities)) => Ok(ClientCapabilities::from_object(capabilities)),
        _ => unreachable!("checked to be an object"),
    }
}

/// The `_meta` duties: a `_meta` with this protocol version and an object of client
/// capabilities, which is returned.
fn checked_capabilities(
    meta: Option<&Map<String, Value>>,
) -> Result<&Map<String, Value>, RpcError> {
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
    Ok(capabilities)
}

/// A round's request from its JSON params.
pub(super) fn round_request<'a>(
    method: RoundMethod,
    params: &'a Map<String, Value>,
    capabilities: ClientCapabilities,
    principal: Option<&'a str>,
    trace: RequestTrace<'a>,
) -> Result<RoundRequest<'a>, RpcError> {
    let field = method.target_field();
    let target = params.get(field).and_then(Value::as_str).ok_or_else(|| {
        RpcError::invalid_params(format!(
            "{} needs params.{field} (a string)",
            method.as_str()
        ))
    })?;
    Ok(RoundRequest {
        method,
        target,
        arguments: arguments(params)?,
        input_responses: input_responses(params)?,
        request_state: request_state(params)?,
        capabilities,
        principal,
        on_session: false,
        trace,
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

/// `inputResponses`: an object when present.
///
/// `inputResponses: null` is refused (`-32602`, as the conformance suite expects). Through the
/// rmcp host it cannot be: rmcp parses params into its typed `Option` before mrtr sees them,
/// so `null` and absent arrive the same, and are treated as absent. Both are safe: no answer
/// is taken from either.
fn input_responses(params: &Map<String, Value>) -> Result<Option<Map<String, Value>>, RpcError> {
    match params.get("inputResponses") {
        None => Ok(None),
        Some(Value::Object(responses)) => Ok(Some(responses.clone())),
        Some(_) => Err(RpcError::invalid_params(
            "params.inputResponses must be an object mapping keys to answers",
        )),
    }
}

/// `requestState`: a string (`null` = absent).
fn request_state(params: &Map<String, Value>) -> Result<Option<&str>, RpcError> {
    match params.get("requestState") {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(state)) => Ok(Some(state.as_str())),
        Some(_) => Err(RpcError::invalid_params(
            "params.requestState must be the string the server sent",
        )),
    }
}
