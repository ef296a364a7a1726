//! Streamable HTTP as a raw client speaks it: POST requests and the messages of an event
//! stream.

use http_body_util::BodyExt;
use serde_json::Value;

/// Reads SSE frames from `body` until a message with `id` (a response) or `method` (a
/// request or notification) arrives; returns it.
pub async fn next_message(
    body: &mut axum::body::Body,
    buffer: &mut String,
    wanted: impl Fn(&Value) -> bool,
) -> Value {
    loop {
        while let Some(end) = buffer.find("\n\n") {
            let event: String = buffer.drain(..end + 2).collect();
            for line in event.lines() {
                let Some(data) = line.strip_prefix("data:") else {
                    continue;
                };
                if let Ok(message) = serde_json::from_str::<Value>(data.trim())
                    && wanted(&message)
                {
                    return message;
                }
            }
        }
        let frame = body
            .frame()
            .await
            .expect("the stream ended")
            .expect("the stream failed");
        if let Ok(data) = frame.into_data() {
            buffer.push_str(&String::from_utf8_lossy(&data).replace("\r\n", "\n"));
        }
    }
}

pub fn post(body: Value, session: Option<&str>, version: &str) -> http::Request<axum::body::Body> {
    let mut request = http::Request::post("/mcp")
        .header("host", "localhost")
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("mcp-protocol-version", version);
    if let Some(session) = session {
        request = request.header("mcp-session-id", session);
    }
    request
        .body(axum::body::Body::from(body.to_string()))
        .unwrap()
}
