//! 2025-11-25 and 2025-06-18 clients through rmcp: a request on a session opened by
//! `initialize` (stdio, or streamable HTTP with sessions) runs its machine in process, and
//! each suspension's questions go to the client as real requests through rmcp's peer (see
//! [`crate::legacy`]). 2026-07-28 requests on the same endpoint are served as before.

use std::time::Duration;

use rmcp::model::{
    CancelledNotificationParam, CustomNotification, CustomRequest, ProgressNotificationParam,
    ProgressToken, ProtocolVersion, RequestId, ServerNotification, ServerRequest,
};
use rmcp::service::{PeerRequestOptions, RequestContext, ServiceError};
use rmcp::{ErrorData, Peer, RoleServer};
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value};

use super::mcp_server::{McpServer, cancelled, error, from_json, principal};
use crate::author::context::BoxFuture;
use crate::capabilities::ClientCapabilities;
use crate::legacy::{ClientFailure, LegacyOptions, LegacySession, RequestToClient};

/// What a request that came over HTTP without `Mcp-Session-Id` cannot do.
const SESSIONLESS: &str = "this 2025-era request came over HTTP without a session \
    (no Mcp-Session-Id), so the server cannot send it requests; connect with `initialize` to an \
    endpoint with sessions (McpServer::streamable_http), or speak MCP 2026-07-28";

impl McpServer {
    /// Serves 2025-era sessions with `options` (the default: on, with
    /// [`LegacyOptions::default`]).
    pub fn with_legacy(mut self, options: LegacyOptions) -> Self {
        self.legacy = Some(options);
        self
    }

    /// Refuses 2025-era clients at the `initialize` handshake: only 2026-07-28 is served.
    pub fn without_legacy(mut self) -> Self {
        self.legacy = None;
        self
    }

    /// How 2025-era sessions are served (`None`: they are refused).
    pub fn legacy(&self) -> Option<&LegacyOptions> {
        self.legacy.as_ref()
    }

    /// How many 2025-era calls are running now (each waits on its client or runs its
    /// machine), across every clone of this server.
    pub fn legacy_calls_running(&self) -> usize {
        self.calls.running_total()
    }

    /// The protocol versions to negotiate: 2026-07-28, and the two handshake revisions whose
    /// sessions the legacy path serves.
    pub(super) fn protocol_versions(&self) -> &'static [ProtocolVersion] {
        const ALONE: &[ProtocolVersion] = &[ProtocolVersion::V_2026_07_28];
        const WITH_SESSIONS: &[ProtocolVersion] = &[
            ProtocolVersion::V_2026_07_28,
            ProtocolVersion::V_2025_11_25,
            ProtocolVersion::V_2025_06_18,
        ];
        if self.legacy.is_some() {
            WITH_SESSIONS
        } else {
            ALONE
        }
    }

    /// The session of a 2025-era request (no per-request protocol version, a handshake
    /// version negotiated), if this server serves them.
    pub(super) fn legacy_session(
        &self,
        context: &RequestContext<RoleServer>,
    ) -> Option<RmcpSession> {
        self.legacy.as_ref()?;
        if context.meta.protocol_version().is_some() {
            return None;
        }
        let info = context.peer.peer_info()?;
        if !info.protocol_version.has_initialize() {
            return None;
        }
        let capabilities = match serde_json::to_value(&info.capabilities) {
            Ok(Value::Object(capabilities)) => capabilities,
            _ => Map::new(),
        };
        // rmcp's HTTP service answers a stateless 2025-era request through a one-shot
        // transport: a request sent there could never be answered.
        let sessionless = context
            .extensions
            .get::<http::request::Parts>()
            .is_some_and(|parts| !parts.headers.contains_key("mcp-session-id"));
        Some(RmcpSession {
            peer: context.peer.clone(),
            capabilities: ClientCapabilities::from_object(capabilities),
            progress_token: context.meta.get_progress_token(),
            sessionless,
            key: context
                .extensions
                .get::<http::request::Parts>()
                .and_then(|parts| parts.headers.get("mcp-session-id"))
                .and_then(|id| id.to_str().ok())
                .unwrap_or_default()
                .to_owned(),
        })
    }

    /// `McpServer::forward` (handler.rs) for a 2025-era session.
    pub(super) async fn forward_legacy<R: DeserializeOwned>(
        &self,
        method: &str,
        params: impl Serialize,
        context: &RequestContext<RoleServer>,
        session: RmcpSession,
    ) -> Result<R, ErrorData> {
        let options = self.legacy.clone().unwrap_or_default();
        let _running = self.calls.enter(session.key.clone(), options.flow_caps())?;
        let params = match serde_json::to_value(params) {
            Ok(params @ Value::Object(_)) => params,
            Ok(Value::Null) => Value::Object(Map::new()),
            _ => return Err(ErrorData::invalid_params("params must be an object", None)),
        };
        let principal = principal(context);
        let work =
            self.server()
                .handle_legacy(method, params, principal.as_deref(), &session, &options);
        // `notifications/cancelled` (or a closed stream) drops the machine where it stands,
        // and with it the requests still out to the client (each tells the client so).
        let result = crate::server::until_cancelled(work, context.ct.cancelled())
            .await
            .ok_or_else(cancelled)?
            .map_err(error)?;
        from_json(result)
    }
}

/// A 2025-era session as rmcp's peer sees it.
pub(super) struct RmcpSession {
    peer: Peer<RoleServer>,
    capabilities: ClientCapabilities,
    progress_token: Option<ProgressToken>,
    sessionless: bool,
    /// The session's id over HTTP; empty over stdio, where the connection is the session.
    key: String,
}

impl LegacySession for RmcpSession {
    fn capabilities(&self) -> &ClientCapabilities {
        &self.capabilities
    }

    fn request(
        &self,
        request: RequestToClient,
        timeout: Duration,
    ) -> BoxFuture<'_, Result<Value, ClientFailure>> {
        Box::pin(async move {
            self.reachable().map_err(ClientFailure::Unreachable)?;
            // Sent as the raw method and params: the answer is validated by mrtr, not by
            // rmcp's types. Sent from this task, so rmcp routes it to the call's own stream.
            let outgoing = ServerRequest::CustomRequest(CustomRequest::new(
                request.method,
                Some(request.params),
            ));
            let handle = self
                .peer
                .send_request_with_option(outgoing, PeerRequestOptions::with_timeout(timeout))
                .await
                .map_err(failure)?;
            let mut guard = WithdrawOnDrop {
                peer: Some(self.peer.clone()),
                id: handle.id.clone(),
            };
            let answer = handle.await_response().await;
            guard.peer = None;
            let answer = answer.map_err(failure)?;
            serde_json::to_value(answer).map_err(|error| ClientFailure::Error {
                code: -32603,
                message: format!("the answer does not serialize: {error}"),
            })
        })
    }

    fn notify(&self, method: &str, params: Value) -> BoxFuture<'_, ()> {
        let notification =
            ServerNotification::CustomNotification(CustomNotification::new(method, Some(params)));
        Box::pin(async move {
            if let Err(error) = self.peer.send_notification(notification).await {
                tracing::debug!(target: "mrtr::legacy", %error, "notification not sent");
            }
        })
    }

    fn progress(&self, progress: u32, message: String) -> BoxFuture<'_, ()> {
        Box::pin(async move {
            let Some(token) = self.progress_token.clone() else {
                return;
            };
            let mut params = ProgressNotificationParam::new(token, f64::from(progress));
            params.message = Some(message);
            if let Err(error) = self.peer.notify_progress(params).await {
                tracing::debug!(target: "mrtr::legacy", %error, "progress not sent");
            }
        })
    }

    fn pause(&self, delay: Duration) -> BoxFuture<'_, ()> {
        Box::pin(tokio::time::sleep(delay))
    }

    fn reachable(&self) -> Result<(), String> {
        if self.sessionless {
            return Err(SESSIONLESS.to_owned());
        }
        Ok(())
    }
}

/// Tells the client a request is no longer wanted when the call stops waiting for it (the
/// call was cancelled, or a sibling question ended it).
struct WithdrawOnDrop {
    peer: Option<Peer<RoleServer>>,
    id: RequestId,
}

impl Drop for WithdrawOnDrop {
    fn drop(&mut self) {
        let (Some(peer), Ok(runtime)) = (self.peer.take(), tokio::runtime::Handle::try_current())
        else {
            return;
        };
        let params = CancelledNotificationParam::new(
            Some(self.id.clone()),
            Some("the server no longer needs this answer".to_owned()),
        );
        runtime.spawn(async move {
            let _ = peer.notify_cancelled(params).await;
        });
    }
}

fn failure(error: ServiceError) -> ClientFailure {
    match error {
        ServiceError::McpError(error) => ClientFailure::Error {
            code: i64::from(error.code.0),
            message: error.message.into_owned(),
        },
        ServiceError::Timeout { timeout } => ClientFailure::TimedOut(timeout),
        ServiceError::UnexpectedResponse => ClientFailure::Error {
            code: -32603,
            message: "the client answered with something that is not a result".to_owned(),
        },
        other => {
            ClientFailure::Unreachable(format!("the session cannot reach the client: {other}"))
        }
    }
}
