//! Answering one JSON-RPC request: its envelope, its method, its `_meta`, then the part of
//! the server that answers it.

use serde_json::{Map, Value};

use super::instance::Server;
use super::method::{self, Method};
use super::params;
use super::reply::response;
use crate::protocol::{RpcError, codes};
use crate::telemetry::{JsonRpcId, RequestTrace};

impl Server {
    /// Runs one request given as method and params (with the per-request `_meta`), for hosts
    /// that parse JSON-RPC themselves. Returns the result object or the JSON-RPC error.
    pub async fn handle_request(
        &self,
        method: &str,
        params: Value,
        principal: Option<&str>,
    ) -> Result<Value, RpcError> {
        // The host keeps the request's id: its span has none.
        self.dispatch(method, Some(&params), &Value::Null, principal, false)
            .await
    }

    /// [`Server::handle_request`] for a round of a 2025-era session (`crate::legacy`): the whole
    /// body runs there, so its hand-off point is passed and a task-only tool is not refused.
    pub(crate) async fn handle_session_request(
        &self,
        method: &str,
        params: Value,
        principal: Option<&str>,
    ) -> Result<Value, RpcError> {
        self.dispatch(method, Some(&params), &Value::Null, principal, true)
            .await
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
    /// # async fn demo(server: mrtr::Server, request: serde_json::Value,
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
                self.dispatch(method, request.get("params"), &id, principal, false)
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
        id: &Value,
        principal: Option<&str>,
        on_session: bool,
    ) -> Result<Value, RpcError> {
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
        if parsed
            .capability()
            .is_some_and(|capability| !self.offers(capability))
        {
            return Err(RpcError::method_not_found(method));
        }
        let empty = Map::new();
        let params = match params {
            None => &empty,
            Some(Value::Object(params)) => params,
            Some(_) => return Err(RpcError::invalid_params("params must be an object")),
        };
        let meta = params.get("_meta").and_then(Value::as_object);
        let capabilities = params::check_meta(meta)?;
        match parsed {
            Method::Listing(listing) => Ok(self.listing(listing)),
            Method::Round(method) => {
                let trace = RequestTrace {
                    id: JsonRpcId::of(id),
                    meta,
                };
                let mut request =
                    params::round_request(method, params, capabilities, principal, trace)?;
                request.on_session = on_session;
                Ok(self.reply_json(self.round(request).await?))
            }
            Method::Complete => self.complete_argument(params, principal).await,
            Method::Task(method) => {
                if !capabilities.tasks() {
                    return Err(RpcError::missing_capability(
                        serde_json::json!({"extensions": {(crate::task::TASKS_EXTENSION): {}}}),
                        "tasks/* needs the io.modelcontextprotocol/tasks extension declared in \
                         this request's clientCapabilities",
                    ));
                }
                match method {
                    method::TaskMethod::Get => self.get_task(params, principal).await,
                    method::TaskMethod::Update => self.update_task(params, principal).await,
                    method::TaskMethod::Cancel => self.cancel_task(params, principal).await,
                }
            }
        }
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
