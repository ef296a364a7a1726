//! Builders for the common MCP content blocks, for what a tool returns
//! ([`CallToolResult`](crate::CallToolResult)) and what a prompt's messages hold
//! ([`PromptMessage`](crate::PromptMessage)); any other block (a `resource_link`,
//! annotations) can be written as JSON:
//!
//! ```
//! use mrtr::{CallToolResult, PromptMessage, content};
//!
//! let png = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==";
//! let result = CallToolResult::with_content([
//!     content::text("The chart:"),
//!     content::image(png, "image/png"),
//!     content::embedded_text("file:///data.csv", "text/csv", "x,y\n1,2\n"),
//! ]);
//! assert_eq!(result.content[1]["type"], "image");
//! let message = PromptMessage::user_content(content::image(png, "image/png"));
//! assert_eq!(message.content["mimeType"], "image/png");
//! ```

use serde_json::{Value, json};

/// A text block.
pub fn text(text: impl Into<String>) -> Value {
    json!({"type": "text", "text": text.into()})
}

/// An image block: `data` is the image in base64, `mime_type` its type (`image/png`, ...).
pub fn image(data: impl Into<String>, mime_type: impl Into<String>) -> Value {
    json!({"type": "image", "data": data.into(), "mimeType": mime_type.into()})
}

/// An audio block: `data` is the audio in base64, `mime_type` its type (`audio/wav`, ...).
pub fn audio(data: impl Into<String>, mime_type: impl Into<String>) -> Value {
    json!({"type": "audio", "data": data.into(), "mimeType": mime_type.into()})
}

/// A text resource embedded whole: its URI, MIME type and text.
pub fn embedded_text(
    uri: impl Into<String>,
    mime_type: impl Into<String>,
    text: impl Into<String>,
) -> Value {
    embedded(uri.into(), mime_type.into(), "text", text.into())
}

/// A binary resource embedded whole: its URI, MIME type and contents in base64.
pub fn embedded_blob(
    uri: impl Into<String>,
    mime_type: impl Into<String>,
    blob: impl Into<String>,
) -> Value {
    embedded(uri.into(), mime_type.into(), "blob", blob.into())
}

/// A `resource` block whose contents are `body` under `field` (`text` or `blob`).
fn embedded(uri: String, mime_type: String, field: &str, body: String) -> Value {
    json!({"type": "resource", "resource": {"uri": uri, "mimeType": mime_type, field: body}})
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    #[test]
    fn each_block_has_the_shape_mcp_defines() {
        assert_eq!(super::text("hi"), json!({"type": "text", "text": "hi"}));
        assert_eq!(
            super::image("AAAA", "image/png"),
            json!({"type": "image", "data": "AAAA", "mimeType": "image/png"})
        );
        assert_eq!(
            super::audio("AAAA", "audio/wav"),
            json!({"type": "audio", "data": "AAAA", "mimeType": "audio/wav"})
        );
        assert_eq!(
            super::embedded_text("a://b", "text/plain", "t"),
            json!({"type": "resource", "resource": {"uri": "a://b", "mimeType": "text/plain", "text": "t"}})
        );
        assert_eq!(
            super::embedded_blob("a://b", "image/png", "AAAA"),
            json!({"type": "resource", "resource": {"uri": "a://b", "mimeType": "image/png", "blob": "AAAA"}})
        );
    }
}
