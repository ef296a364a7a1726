//! Constants of MCP revision 2026-07-28 and the JSON-RPC errors an MRTR server sends.

use serde_json::{Map, Value, json};

/// The only protocol revision this runtime speaks.
pub const PROTOCOL_VERSION: &str = "2026-07-28";

/// `_meta` key of the request's protocol version (required on every request).
pub const META_PROTOCOL_VERSION: &str = "io.modelcontextprotocol/protocolVersion";
/// `_meta` key of the request's client capabilities (required on every request).
pub const META_CLIENT_CAPABILITIES: &str = "io.modelcontextprotocol/clientCapabilities";
/// `_meta` key of the server's implementation info on results.
pub const META_SERVER_INFO: &str = "io.modelcontextprotocol/serverInfo";

/// JSON-RPC error codes used by an MRTR server.
pub mod codes {
    /// The request is not a valid JSON-RPC request object.
    pub const INVALID_REQUEST: i64 = -32600;
    /// No such method (also the answer to every 2025-era method such as `initialize`).
    pub const METHOD_NOT_FOUND: i64 = -32601;
    /// Invalid params: missing `_meta`, malformed `inputResponses`, invalid `requestState`.
    pub const INVALID_PARAMS: i64 = -32602;
    /// A fault on the server side.
    pub const INTERNAL_ERROR: i64 = -32603;
    /// A prompt's or resource's own code failed (its error message is the error's message):
    /// the author's error, not a fault of the server or of the request. Tools have `isError`
    /// results instead.
    pub const HANDLER_ERROR: i64 = -32000;
    /// The request needs a client capability it did not declare.
    pub const MISSING_REQUIRED_CLIENT_CAPABILITY: i64 = -32021;
    /// The request's protocol version is not supported.
    pub const UNSUPPORTED_PROTOCOL_VERSION: i64 = -32022;
}

/// A JSON-RPC error object, ready to be put in a response.
#[derive(Clone, Debug, PartialEq)]
pub struct RpcError {
    /// The JSON-RPC error code.
    pub code: i64,
    /// A short human-readable message.
    pub message: String,
    /// Structured details, if the code defines any.
    pub data: Option<Value>,
}

impl RpcError {
    /// An error with no `data`.
    pub fn new(code: i64, message: impl Into<String>) -> Self {
        Self {
            code,
            message: message.into(),
            data: None,
        }
    }

    /// `-32602` with `message`.
    pub fn invalid_params(message: impl Into<String>) -> Self {
        Self::new(codes::INVALID_PARAMS, message)
    }

    /// `-32603` with `message`.
    pub fn internal(message: impl Into<String>) -> Self {
        Self::new(codes::INTERNAL_ERROR, message)
    }

    /// `-32000`: the author's prompt or resource code failed with `message`, which is sent as
    /// it is (and in `data.message`), so the client sees what the author wrote.
    pub fn handler_error(message: impl Into<String>) -> Self {
        let message = message.into();
        Self {
            code: codes::HANDLER_ERROR,
            data: Some(json!({ "message": message })),
            message,
        }
    }

    /// `-32602` for a `resources/read` of a URI no resource matches, with `data.uri` (SEP-2164).
    pub fn resource_not_found(uri: &str) -> Self {
        Self {
            code: codes::INVALID_PARAMS,
            message: format!("resource not found: {uri}"),
            data: Some(json!({ "uri": uri })),
        }
    }

    /// `-32601` for `method`.
    pub fn method_not_found(method: &str) -> Self {
        Self::new(
            codes::METHOD_NOT_FOUND,
            format!("method not found: {method}"),
        )
    }

    /// `-32021` with `data.requiredCapabilities`.
    pub fn missing_capability(required: Value, message: impl Into<String>) -> Self {
        Self {
            code: codes::MISSING_REQUIRED_CLIENT_CAPABILITY,
            message: message.into(),
            data: Some(json!({ "requiredCapabilities": required })),
        }
    }

    /// `-32022` with `data.supported` and `data.requested`.
    pub fn unsupported_version(requested: &str) -> Self {
        Self {
            code: codes::UNSUPPORTED_PROTOCOL_VERSION,
            message: format!(
                "unsupported protocol version {requested:?}; this server speaks {PROTOCOL_VERSION}"
            ),
            data: Some(json!({ "supported": [PROTOCOL_VERSION], "requested": requested })),
        }
    }

    /// The error object as JSON.
    pub fn to_json(&self) -> Value {
        let mut error = Map::new();
        error.insert("code".into(), self.code.into());
        error.insert("message".into(), self.message.clone().into());
        if let Some(data) = &self.data {
            error.insert("data".into(), data.clone());
        }
        Value::Object(error)
    }
}

impl std::fmt::Display for RpcError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} ({})", self.message, self.code)
    }
}

impl std::error::Error for RpcError {}

impl From<crate::token::InvalidState> for RpcError {
    fn from(error: crate::token::InvalidState) -> Self {
        Self::invalid_params(error.to_string())
    }
}
