//! `subscriptions/listen` for task status on streamable HTTP: rmcp 3.11's typed
//! `SubscriptionFilter` has no `taskIds` (parsing drops them) and its subscription sink refuses
//! `notifications/tasks`, so a listen request that names task ids is answered here, on the
//! direct path of [`McpServer::streamable_http`](super::McpServer::streamable_http): an SSE
//! stream of the acknowledgment, each `notifications/tasks` of [`Server::listen_tasks`], and
//! the final result once every listened task has ended. Any other listen request is rmcp's.

use std::convert::Infallible;
use std::pin::Pin;
use std::task::{Context, Poll};

use bytes::Bytes;
use http::header::{CACHE_CONTROL, CONTENT_TYPE};
use http::{Response, StatusCode};
use http_body::{Body, Frame};
use http_body_util::BodyExt;
use http_body_util::combinators::BoxBody;
use serde_json::{Value, json};
use tokio::sync::mpsc;

use crate::protocol::{RpcError, codes};
use crate::server::Server;

/// How many events wait for a slow client before the listener waits for it.
const EVENTS_BUFFER: usize = 8;

/// The id and params of a `subscriptions/listen` request whose `notifications` name
/// `taskIds`; `None` for anything else.
pub(super) fn parse(body: &[u8]) -> Option<(Value, Value)> {
    let Value::Object(mut request) = serde_json::from_slice(body).ok()? else {
        return None;
    };
    let is_listen = request.get("jsonrpc").and_then(Value::as_str) == Some("2.0")
        && request.get("method").and_then(Value::as_str) == Some("subscriptions/listen");
    let id = request
        .remove("id")
        .filter(|id| id.is_string() || id.is_i64())?;
    let params = request.remove("params")?;
    let names_tasks = params.pointer("/notifications/taskIds").is_some();
    (is_listen && names_tasks).then_some((id, params))
}

/// Answers the listen request: an SSE stream, or a JSON-RPC error as JSON.
pub(super) async fn respond(
    server: &Server,
    id: Value,
    params: Value,
    principal: Option<String>,
) -> Response<BoxBody<Bytes, Infallible>> {
    let mut listener = match server
        .listen_tasks(id.clone(), &params, principal.as_deref())
        .await
    {
        Ok(listener) => listener,
        Err(error) => return refused(id, error),
    };
    let (events, stream) = mpsc::channel(EVENTS_BUFFER);
    tokio::spawn(async move {
        // A failed send means the client closed the stream: the listener is dropped.
        if events
            .send(event(&listener.acknowledgment()))
            .await
            .is_err()
        {
            return;
        }
        while let Some(message) = listener.next().await {
            if events.send(event(&message)).await.is_err() {
                return;
            }
        }
        let _ = events.send(event(&listener.end())).await;
    });
    Response::builder()
        .status(StatusCode::OK)
        .header(CONTENT_TYPE, "text/event-stream")
        .header(CACHE_CONTROL, "no-cache")
        .body(Events(stream).boxed())
        .expect("a valid response")
}

/// One SSE event carrying `message`.
fn event(message: &Value) -> Bytes {
    Bytes::from(format!("event: message\ndata: {message}\n\n"))
}

/// A JSON-RPC error, with the HTTP status rmcp gives the same error.
fn refused(id: Value, error: RpcError) -> Response<BoxBody<Bytes, Infallible>> {
    let status = match error.code {
        codes::MISSING_REQUIRED_CLIENT_CAPABILITY | codes::UNSUPPORTED_PROTOCOL_VERSION => {
            StatusCode::BAD_REQUEST
        }
        _ => StatusCode::OK,
    };
    let mut body = json!({"code": error.code, "message": error.message});
    if let Some(data) = error.data {
        body["data"] = data;
    }
    let message = json!({"jsonrpc": "2.0", "id": id, "error": body});
    Response::builder()
        .status(status)
        .header(CONTENT_TYPE, "application/json")
        .body(
            http_body_util::Full::new(Bytes::from(message.to_string()))
                .map_err(|never| match never {})
                .boxed(),
        )
        .expect("a valid response")
}

/// The SSE body: the events the listener's task sends, until it ends.
struct Events(mpsc::Receiver<Bytes>);

impl Body for Events {
    type Data = Bytes;
    type Error = Infallible;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Infallible>>> {
        self.0
            .poll_recv(cx)
            .map(|event| event.map(|bytes| Ok(Frame::data(bytes))))
    }
}
