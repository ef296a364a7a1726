//! The limits of the HTTP front that [`McpServer::serve_http`](super::McpServer::serve_http)
//! runs: how long a client may take to send a request, how many connections are served at
//! once, and how long a shutdown may take.

use std::time::Duration;

/// The time a client has to send a request's head (request line and headers): 10 s. It is
/// also how long an idle keep-alive connection stays open after its last response.
pub const DEFAULT_HEADER_READ_TIMEOUT: Duration = Duration::from_secs(10);

/// The time a client has to send a request's body, counted from its arrival: 30 s.
pub const DEFAULT_BODY_TIMEOUT: Duration = Duration::from_secs(30);

/// How many connections are served at once: 1024. Further clients wait in the listen queue
/// until one closes.
pub const DEFAULT_MAX_CONNECTIONS: usize = 1024;

/// How long a shutdown waits for requests in progress: 5 s. Then open event streams and
/// sessions are closed, and serving returns.
pub const DEFAULT_SHUTDOWN_GRACE: Duration = Duration::from_secs(5);

/// Limits of the HTTP front of `serve_http`. The body size cap is rmcp's
/// `StreamableHttpServerConfig::max_request_body_bytes` (4 MiB by default; a larger body is
/// answered with 413), set through [`McpServer::serve_http_with`](super::McpServer::serve_http_with).
///
/// ```
/// use std::time::Duration;
/// let limits = mrtr::rmcp::HttpLimits::new()
///     .max_connections(256)
///     .shutdown_grace(Duration::from_secs(20));
/// # let _ = limits;
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HttpLimits {
    pub(super) header_read_timeout: Duration,
    pub(super) body_timeout: Duration,
    pub(super) max_connections: usize,
    pub(super) shutdown_grace: Duration,
}

impl Default for HttpLimits {
    fn default() -> Self {
        Self {
            header_read_timeout: DEFAULT_HEADER_READ_TIMEOUT,
            body_timeout: DEFAULT_BODY_TIMEOUT,
            max_connections: DEFAULT_MAX_CONNECTIONS,
            shutdown_grace: DEFAULT_SHUTDOWN_GRACE,
        }
    }
}

impl HttpLimits {
    /// The defaults: the `DEFAULT_*` constants of this module.
    pub fn new() -> Self {
        Self::default()
    }

    /// How long a client may take to send a request's head before its connection is closed
    /// (default [`DEFAULT_HEADER_READ_TIMEOUT`]).
    pub fn header_read_timeout(mut self, timeout: Duration) -> Self {
        self.header_read_timeout = timeout;
        self
    }

    /// How long a client may take to send a request's body, from the request's arrival,
    /// before the request fails (default [`DEFAULT_BODY_TIMEOUT`]).
    pub fn body_timeout(mut self, timeout: Duration) -> Self {
        self.body_timeout = timeout;
        self
    }

    /// How many connections are served at once (default [`DEFAULT_MAX_CONNECTIONS`]; at
    /// least 1).
    pub fn max_connections(mut self, connections: usize) -> Self {
        self.max_connections = connections.max(1);
        self
    }

    /// How long a shutdown waits for requests in progress before it closes event streams and
    /// sessions (default [`DEFAULT_SHUTDOWN_GRACE`]).
    pub fn shutdown_grace(mut self, grace: Duration) -> Self {
        self.shutdown_grace = grace;
        self
    }
}
