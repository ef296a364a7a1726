//! Serving with mrtr alone: stdio, HTTP on an address, or an HTTP service to mount in your own
//! router. Each is rmcp underneath, configured as MRTR needs it.

use std::convert::Infallible;
use std::future::Future;
use std::net::SocketAddr;
use std::pin::{Pin, pin};
use std::sync::Arc;
use std::time::Duration;

use http_body_util::BodyExt;
use hyper::body::Incoming;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::server::graceful::GracefulShutdown;
use rmcp::ServiceExt;
use rmcp::transport::streamable_http_server::StreamableHttpServerConfig;
use tokio::net::{TcpListener, ToSocketAddrs};
use tokio::sync::Semaphore;
use tower_service::Service;

use super::deadline::DeadlineBody;
use super::http_layer::StreamableHttp;
use super::limits::HttpLimits;
use super::mcp_server::McpServer;

/// How long, after the grace period, connections get to close once their streams are.
const STREAMS_CLOSE: Duration = Duration::from_secs(2);

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
    /// # async fn run(server: mrtr::Server) -> Result<(), mrtr::rmcp::ServeError> {
    /// mrtr::rmcp::McpServer::new(server).serve_stdio().await
    /// # }
    /// ```
    pub async fn serve_stdio(self) -> Result<(), ServeError> {
        let running = self
            .serve(super::retired::stdio())
            .await
            .map_err(|error| ServeError::Start(error.to_string()))?;
        running
            .waiting()
            .await
            .map(drop)
            .map_err(|error| ServeError::Session(error.to_string()))
    }

    /// Serves streamable HTTP at `http://ADDR/mcp` until SIGTERM or ctrl-c. 2026-07-28
    /// requests are served statelessly with JSON responses (a 2025-era client gets a session,
    /// see [`McpServer::streamable_http`]), with rmcp's `Host` check (loopback names only: for
    /// a public host name use [`McpServer::serve_http_with`]), `Origin` validation and the
    /// retired-field filter.
    ///
    /// Every resource is bounded by default: the limits of [`HttpLimits`] (request head and
    /// body deadlines, concurrent connections, the shutdown grace period;
    /// [`McpServer::with_http_limits`] changes them), rmcp's 4 MiB body cap, and the session
    /// and call caps of [`LegacyOptions`](crate::legacy::LegacyOptions). On SIGTERM the
    /// requests in progress get the grace period to finish; then open event streams and
    /// sessions are closed and serving returns.
    ///
    /// ```no_run
    /// # async fn run(server: mrtr::Server) -> Result<(), mrtr::rmcp::ServeError> {
    /// mrtr::rmcp::McpServer::new(server).serve_http("127.0.0.1:3000").await
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
        self.serve_listener(listener, config, shutdown_signal())
            .await
    }

    /// [`McpServer::serve_http_with`] on a listener of your own, until `shutdown` resolves
    /// (instead of a signal): then the requests in progress get the grace period of
    /// [`HttpLimits`] to finish, open event streams and sessions are closed, and this
    /// returns.
    pub async fn serve_listener(
        self,
        listener: TcpListener,
        config: StreamableHttpServerConfig,
        shutdown: impl Future<Output = ()>,
    ) -> Result<(), ServeError> {
        let local: SocketAddr = listener.local_addr()?;
        tracing::info!(target: "mrtr::serve", "serving MCP at http://{local}/mcp");
        let limits = self.http_limits.clone();
        let stop = config.cancellation_token.clone();
        let service = self.streamable_http(config);
        let connections = Arc::new(Semaphore::new(limits.max_connections));
        let graceful = GracefulShutdown::new();
        let mut shutdown = pin!(shutdown);
        loop {
            // A place first: past the cap, clients wait in the listen queue.
            let place = tokio::select! {
                place = Arc::clone(&connections).acquire_owned() => place,
                () = &mut shutdown => break,
            };
            let Ok(place) = place else { break };
            let stream = tokio::select! {
                accepted = listener.accept() => accepted,
                () = &mut shutdown => break,
            };
            let stream = match stream {
                Ok((stream, _)) => stream,
                Err(error) => {
                    // Out of file descriptors and the like: pause rather than spin.
                    tracing::warn!(target: "mrtr::serve", "accepting a connection failed: {error}");
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    continue;
                }
            };
            let _ = stream.set_nodelay(true);
            let connection = hyper::server::conn::http1::Builder::new()
                .timer(TokioTimer::new())
                .header_read_timeout(limits.header_read_timeout)
                .serve_connection(
                    TokioIo::new(stream),
                    Endpoint {
                        service: service.clone(),
                        body_timeout: limits.body_timeout,
                    },
                );
            let connection = graceful.watch(connection);
            tokio::spawn(async move {
                if let Err(error) = connection.await {
                    tracing::debug!(target: "mrtr::serve", "connection ended: {error}");
                }
                drop(place);
            });
        }
        drop(listener);
        tracing::info!(target: "mrtr::serve", "shutting down: finishing the requests in progress");
        let mut drained = pin!(graceful.shutdown());
        if tokio::time::timeout(limits.shutdown_grace, &mut drained)
            .await
            .is_err()
        {
            tracing::info!(target: "mrtr::serve", "grace period over: closing event streams and sessions");
            // Cancelling rmcp's token ends its sessions and streams; only now, since it fails
            // the requests still in progress (HTTP 500), which a deploy must not do early.
            stop.cancel();
            if tokio::time::timeout(STREAMS_CLOSE, &mut drained)
                .await
                .is_err()
            {
                tracing::warn!(target: "mrtr::serve", "connections still open at exit are dropped");
            }
        }
        stop.cancel();
        Ok(())
    }

    /// The limits of [`McpServer::serve_http`]'s HTTP front (default: [`HttpLimits::new`]).
    pub fn with_http_limits(mut self, limits: HttpLimits) -> Self {
        self.http_limits = limits;
        self
    }

    /// The streamable-HTTP service of [`McpServer::serve_http`], to mount at a path of your
    /// own router (a tower service):
    ///
    /// ```no_run
    /// # fn app(server: mrtr::Server) -> axum::Router {
    /// let mcp = mrtr::rmcp::McpServer::new(server).http_service();
    /// axum::Router::new().nest_service("/mcp", mcp)
    /// # }
    /// ```
    pub fn http_service(self) -> StreamableHttp {
        self.streamable_http(http_config())
    }
}

/// The service of one connection: `/mcp` is the streamable-HTTP endpoint, with a deadline on
/// each request's body; every other path is 404.
#[derive(Clone)]
struct Endpoint {
    service: StreamableHttp,
    body_timeout: Duration,
}

/// What an [`Endpoint`] answers with. Boxed: the 404 is another body than the endpoint's.
type EndpointBody = http_body_util::combinators::BoxBody<bytes::Bytes, Infallible>;

impl hyper::service::Service<http::Request<Incoming>> for Endpoint {
    type Response = http::Response<EndpointBody>;
    type Error = Infallible;
    type Future = Pin<Box<dyn Future<Output = Result<Self::Response, Infallible>> + Send>>;

    fn call(&self, request: http::Request<Incoming>) -> Self::Future {
        if request.uri().path() != "/mcp" {
            return Box::pin(std::future::ready(Ok(not_found())));
        }
        let mut service = self.service.clone();
        let request = request.map(|body| DeadlineBody::new(body, self.body_timeout));
        Box::pin(async move {
            let response = service.call(request).await?;
            Ok(response.map(BodyExt::boxed))
        })
    }
}

fn not_found() -> http::Response<EndpointBody> {
    let body = http_body_util::Full::new(bytes::Bytes::from_static(
        b"Not Found: MCP is served at /mcp",
    ));
    let mut response = http::Response::new(body.boxed());
    *response.status_mut() = http::StatusCode::NOT_FOUND;
    response
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
