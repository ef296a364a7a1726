//! Serving with mrtr alone: stdio, HTTP on an address, or an HTTP service to mount in your own
//! router. Each is rmcp underneath, configured as MRTR needs it.

use std::net::SocketAddr;

use rmcp::ServiceExt;
use rmcp::transport::streamable_http_server::StreamableHttpServerConfig;
use tokio::net::{TcpListener, ToSocketAddrs};

use super::{McpServer, StreamableHttp};

/// Why serving stopped with an error.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ServeError {
    /// The address could not be bound, or the connection failed.
    #[error("{0}")]
    Io(#[from] std::io::Error),
    /// rmcp could not start the session (over stdio: the client's `initialize` failed).
    #[error("the MCP session did not start: {0}")]
    Start(String),
    /// The session ended with an error.
    #[error("the MCP session failed: {0}")]
    Session(String),
}

impl McpServer {
    /// Serves over stdio until stdin closes (the client went away). Logging must go to stderr:
    /// stdout carries the protocol.
    ///
    /// ```no_run
    /// # async fn run(server: mrtr_runtime::Server) -> Result<(), mrtr_runtime::rmcp::ServeError> {
    /// mrtr_runtime::rmcp::McpServer::new(server).serve_stdio().await
    /// # }
    /// ```
    pub async fn serve_stdio(self) -> Result<(), ServeError> {
        let running = self
            .serve(super::stdio())
            .await
            .map_err(|error| ServeError::Start(error.to_string()))?;
        running
            .waiting()
            .await
            .map(drop)
            .map_err(|error| ServeError::Session(error.to_string()))
    }

    /// Serves streamable HTTP at `http://ADDR/mcp` until SIGTERM or ctrl-c, then finishes the
    /// requests in progress. 2026-07-28 requests are served statelessly with JSON responses
    /// (a 2025-era client gets a session, see [`McpServer::streamable_http`]), with rmcp's
    /// `Host` check (loopback names only: for a public host name use
    /// [`McpServer::serve_http_with`]) and the retired-field filter.
    ///
    /// ```no_run
    /// # async fn run(server: mrtr_runtime::Server) -> Result<(), mrtr_runtime::rmcp::ServeError> {
    /// mrtr_runtime::rmcp::McpServer::new(server).serve_http("127.0.0.1:3000").await
    /// # }
    /// ```
    pub async fn serve_http(self, address: impl ToSocketAddrs) -> Result<(), ServeError> {
        self.serve_http_with(address, http_config()).await
    }

    /// [`McpServer::serve_http`] with rmcp's configuration: allowed hosts and origins, body
    /// size, keep-alive.
    pub async fn serve_http_with(
        self,
        address: impl ToSocketAddrs,
        config: StreamableHttpServerConfig,
    ) -> Result<(), ServeError> {
        let listener = TcpListener::bind(address).await?;
        let local: SocketAddr = listener.local_addr()?;
        tracing::info!(target: "mrtr::serve", "serving MCP at http://{local}/mcp");
        let stop = config.cancellation_token.clone();
        let router = axum::Router::new().nest_service("/mcp", self.streamable_http(config));
        axum::serve(listener, router)
            .with_graceful_shutdown(async move {
                shutdown_signal().await;
                tracing::info!(target: "mrtr::serve", "shutting down: finishing the requests in progress");
            })
            .await?;
        // Only now: cancelling rmcp's token earlier fails the requests still in progress
        // (HTTP 500), which a deploy must not do.
        stop.cancel();
        Ok(())
    }

    /// The streamable-HTTP service of [`McpServer::serve_http`], to mount at a path of your
    /// own router (a tower service):
    ///
    /// ```no_run
    /// # fn app(server: mrtr_runtime::Server) -> axum::Router {
    /// let mcp = mrtr_runtime::rmcp::McpServer::new(server).http_service();
    /// axum::Router::new().nest_service("/mcp", mcp)
    /// # }
    /// ```
    pub fn http_service(self) -> StreamableHttp {
        self.streamable_http(http_config())
    }
}

/// rmcp's defaults, with JSON responses (one round is one JSON response).
fn http_config() -> StreamableHttpServerConfig {
    StreamableHttpServerConfig::default().with_json_response(true)
}

/// Resolves on ctrl-c, or on SIGTERM where there is one.
async fn shutdown_signal() {
    let ctrl_c = async {
        if tokio::signal::ctrl_c().await.is_err() {
            std::future::pending::<()>().await;
        }
    };
    #[cfg(unix)]
    let terminate = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut signal) => {
                signal.recv().await;
            }
            Err(_) => std::future::pending::<()>().await,
        }
    };
    #[cfg(not(unix))]
    let terminate = std::future::pending::<()>();
    tokio::select! {
        () = ctrl_c => {}
        () = terminate => {}
    }
}
