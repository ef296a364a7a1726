//! Final results: what a tool, prompt or resource returns, turned into the wire result.

use serde::Serialize;
use serde_json::{Map, Value, json};

use crate::author::content::text;

/// A `CallToolResult` under construction.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct CallToolResult {
    /// Content blocks.
    pub content: Vec<Value>,
    /// Structured content, if any.
    pub structured_content: Option<Value>,
    /// Whether the tool failed.
    pub is_error: bool,
}

impl CallToolResult {
    /// A successful result holding one text block.
    pub fn text(message: impl Into<String>) -> Self {
        Self {
            content: vec![text(message)],
            ..Self::default()
        }
    }

    /// A successful result holding `blocks` (see [`content`](crate::author::content)).
    pub fn with_content(blocks: impl IntoIterator<Item = Value>) -> Self {
        Self {
            content: blocks.into_iter().collect(),
            ..Self::default()
        }
    }

    /// A failed result (`isError: true`) holding one text block.
    pub fn error(message: impl Into<String>) -> Self {
        Self {
            content: vec![text(message)],
            is_error: true,
            ..Self::default()
        }
    }
}

/// Wraps a value to return it as structured content (plus its JSON as text, for clients that
/// only read text).
#[derive(Clone, Debug)]
pub struct Json<T>(pub T);

/// What a tool may return on success.
#[diagnostic::on_unimplemented(
    message = "a tool cannot return `{Self}`",
    label = "not a tool result",
    note = "return a `String`, a `CallToolResult`, `Json(value)` for structured content, or `()`"
)]
pub trait ToolOutput {
    /// The `CallToolResult` object (without `resultType`).
    fn into_tool_result(self) -> Value;
}

impl ToolOutput for CallToolResult {
    fn into_tool_result(self) -> Value {
        let mut result = Map::new();
        result.insert("content".into(), Value::Array(self.content));
        if let Some(structured) = self.structured_content {
            result.insert("structuredContent".into(), structured);
        }
        result.insert("isError".into(), self.is_error.into());
        Value::Object(result)
    }
}

impl ToolOutput for String {
    fn into_tool_result(self) -> Value {
        CallToolResult::text(self).into_tool_result()
    }
}

impl ToolOutput for &str {
    fn into_tool_result(self) -> Value {
        CallToolResult::text(self).into_tool_result()
    }
}

impl ToolOutput for () {
    fn into_tool_result(self) -> Value {
        CallToolResult::default().into_tool_result()
    }
}

impl<T: Serialize> ToolOutput for Json<T> {
    fn into_tool_result(self) -> Value {
        match serde_json::to_value(&self.0) {
            Ok(structured) => CallToolResult {
                content: vec![text(structured.to_string())],
                structured_content: Some(structured),
                is_error: false,
            }
            .into_tool_result(),
            Err(error) => CallToolResult::error(format!("result does not serialize: {error}"))
                .into_tool_result(),
        }
    }
}

/// One message of a prompt.
#[derive(Clone, Debug, PartialEq)]
pub struct PromptMessage {
    /// `user` or `assistant`.
    pub role: &'static str,
    /// One content block.
    pub content: Value,
}

impl PromptMessage {
    /// A user message with text.
    pub fn user(message: impl Into<String>) -> Self {
        Self {
            role: "user",
            content: text(message),
        }
    }

    /// A user message with any content block (see [`content`](crate::author::content)).
    pub fn user_content(content: Value) -> Self {
        Self {
            role: "user",
            content,
        }
    }

    /// An assistant message with any content block.
    pub fn assistant_content(content: Value) -> Self {
        Self {
            role: "assistant",
            content,
        }
    }

    /// An assistant message with text.
    pub fn assistant(message: impl Into<String>) -> Self {
        Self {
            role: "assistant",
            content: text(message),
        }
    }
}

/// What a prompt may return.
#[diagnostic::on_unimplemented(
    message = "a prompt cannot return `{Self}`",
    label = "not prompt messages",
    note = "return a `String` (one user message), a `PromptMessage` or a `Vec<PromptMessage>`"
)]
pub trait PromptOutput {
    /// The `GetPromptResult` object (without `resultType`).
    fn into_prompt_result(self) -> Value;
}

impl PromptOutput for Vec<PromptMessage> {
    fn into_prompt_result(self) -> Value {
        let messages: Vec<Value> = self
            .into_iter()
            .map(|message| json!({"role": message.role, "content": message.content}))
            .collect();
        json!({ "messages": messages })
    }
}

impl PromptOutput for PromptMessage {
    fn into_prompt_result(self) -> Value {
        vec![self].into_prompt_result()
    }
}

impl PromptOutput for String {
    fn into_prompt_result(self) -> Value {
        PromptMessage::user(self).into_prompt_result()
    }
}

/// The contents of a resource read.
#[derive(Clone, Debug, PartialEq)]
pub struct ResourceContents {
    /// MIME type, if known.
    pub mime_type: Option<String>,
    /// The text.
    pub text: String,
}

impl ResourceContents {
    /// Text contents.
    pub fn text(text: impl Into<String>) -> Self {
        Self {
            mime_type: None,
            text: text.into(),
        }
    }

    /// Sets the MIME type.
    pub fn mime_type(mut self, mime_type: impl Into<String>) -> Self {
        self.mime_type = Some(mime_type.into());
        self
    }
}

/// What a resource read may return.
#[diagnostic::on_unimplemented(
    message = "a resource read cannot return `{Self}`",
    label = "not resource contents",
    note = "return a `String` (text contents) or `ResourceContents`"
)]
pub trait ResourceOutput {
    /// The `ReadResourceResult` object for `uri` (without `resultType` and cache fields).
    fn into_resource_result(self, uri: &str) -> Value;
}

impl ResourceOutput for ResourceContents {
    fn into_resource_result(self, uri: &str) -> Value {
        let mut contents = json!({"uri": uri, "text": self.text});
        if let Some(mime_type) = self.mime_type {
            contents["mimeType"] = mime_type.into();
        }
        json!({ "contents": [contents] })
    }
}

impl ResourceOutput for String {
    fn into_resource_result(self, uri: &str) -> Value {
        ResourceContents::text(self).into_resource_result(uri)
    }
}
