//! 2025-era sessions over streamable HTTP, bounded: rmcp's in-memory session manager with a
//! cap on open sessions, the idle lifetime of [`LegacyOptions`], and the principal each
//! session was opened by.

use std::collections::HashMap;
use std::sync::Mutex;

use futures_core::Stream;
use rmcp::model::{ClientJsonRpcMessage, ServerJsonRpcMessage};
use rmcp::transport::streamable_http_server::session::local::{
    LocalSessionManager, LocalSessionManagerError,
};
use rmcp::transport::streamable_http_server::session::{ServerSseMessage, SessionId};
use rmcp::transport::streamable_http_server::{RestoreOutcome, SessionManager};

use rmcp::transport::streamable_http_server::StreamableHttpService;

use super::mcp_server::McpServer;
use crate::legacy::LegacyOptions;

/// rmcp's streamable-HTTP service as mrtr builds it: its sessions bounded.
pub(super) type RmcpService = StreamableHttpService<McpServer, BoundedSessions>;

/// rmcp's [`LocalSessionManager`] with a cap on the sessions it holds.
#[derive(Debug)]
pub(super) struct BoundedSessions {
    inner: LocalSessionManager,
    cap: usize,
    /// Serializes creation, so that two `initialize`s cannot both take the last place.
    creating: tokio::sync::Mutex<()>,
    /// The principal that opened each session (`None`: unauthenticated).
    owners: Mutex<HashMap<SessionId, Option<String>>>,
}

/// Why a session could not be created or used.
#[derive(Debug, thiserror::Error)]
pub(super) enum SessionsError {
    /// rmcp's session manager failed.
    #[error(transparent)]
    Local(#[from] LocalSessionManagerError),
    /// Every place is taken.
    #[error("the server holds as many sessions as it allows")]
    Full,
}

impl BoundedSessions {
    pub(super) fn new(options: &LegacyOptions) -> Self {
        let mut inner = LocalSessionManager::default();
        inner.session_config.keep_alive = Some(options.idle_lifetime());
        Self {
            inner,
            cap: options.session_cap(),
            creating: tokio::sync::Mutex::new(()),
            owners: Mutex::new(HashMap::new()),
        }
    }

    /// Whether every place is taken.
    pub(super) async fn full(&self) -> bool {
        self.inner.sessions.read().await.len() >= self.cap
    }

    /// Records who opened `id`.
    pub(super) fn bind(&self, id: SessionId, principal: Option<String>) {
        self.owners().insert(id, principal);
    }

    /// Whether a request by `principal` may use session `id`: it was opened by the same
    /// principal, or it is not one this manager knows (rmcp then answers as it does for
    /// unknown sessions).
    pub(super) fn usable_by(&self, id: &str, principal: Option<&str>) -> bool {
        self.owners()
            .get(id)
            .is_none_or(|owner| owner.as_deref() == principal)
    }

    fn owners(&self) -> std::sync::MutexGuard<'_, HashMap<SessionId, Option<String>>> {
        // The map stays consistent whatever panicked while it was held.
        self.owners
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

impl SessionManager for BoundedSessions {
    type Error = SessionsError;
    type Transport = <LocalSessionManager as SessionManager>::Transport;

    async fn create_session(&self) -> Result<(SessionId, Self::Transport), Self::Error> {
        let _creating = self.creating.lock().await;
        if self.full().await {
            return Err(SessionsError::Full);
        }
        Ok(self.inner.create_session().await?)
    }

    async fn initialize_session(
        &self,
        id: &SessionId,
        message: ClientJsonRpcMessage,
    ) -> Result<ServerJsonRpcMessage, Self::Error> {
        Ok(self.inner.initialize_session(id, message).await?)
    }

    async fn has_session(&self, id: &SessionId) -> Result<bool, Self::Error> {
        Ok(self.inner.has_session(id).await?)
    }

    async fn close_session(&self, id: &SessionId) -> Result<(), Self::Error> {
        self.owners().remove(id);
        Ok(self.inner.close_session(id).await?)
    }

    async fn create_stream(
        &self,
        id: &SessionId,
        message: ClientJsonRpcMessage,
    ) -> Result<impl Stream<Item = ServerSseMessage> + Send + 'static, Self::Error> {
        Ok(self.inner.create_stream(id, message).await?)
    }

    async fn accept_message(
        &self,
        id: &SessionId,
        message: ClientJsonRpcMessage,
    ) -> Result<(), Self::Error> {
        Ok(self.inner.accept_message(id, message).await?)
    }

    async fn create_standalone_stream(
        &self,
        id: &SessionId,
    ) -> Result<impl Stream<Item = ServerSseMessage> + Send + 'static, Self::Error> {
        Ok(self.inner.create_standalone_stream(id).await?)
    }

    async fn resume(
        &self,
        id: &SessionId,
        last_event_id: String,
    ) -> Result<impl Stream<Item = ServerSseMessage> + Send + 'static, Self::Error> {
        Ok(self.inner.resume(id, last_event_id).await?)
    }

    async fn restore_session(
        &self,
        id: SessionId,
    ) -> Result<RestoreOutcome<Self::Transport>, Self::Error> {
        Ok(self.inner.restore_session(id).await?)
    }
}
