//! rmcp (the official Rust MCP SDK) as the host: [`McpServer`] is an rmcp `ServerHandler` that
//! serves an mrtr [`Server`](crate::Server)'s tools, prompts and resource templates. rmcp keeps what is
//! rmcp's: transports (stdio, streamable HTTP), `server/discover`, the HTTP header checks.
//! [`McpServer::streamable_http`] answers well-formed stateless rounds (`tools/call`,
//! `prompts/get`, `resources/read`) on a direct path in front of rmcp's service
//! ([`DirectRounds`]), with the same checks and the same response.
//!
//! ```no_run
//! # async fn serve(server: mrtr::Server) -> Result<(), Box<dyn std::error::Error>> {
//! use rmcp::ServiceExt;
//! let running = mrtr::rmcp::McpServer::new(server).serve(mrtr::rmcp::stdio()).await?;
//! running.waiting().await?;
//! # Ok(()) }
//! ```
//!
//! rmcp 3.11 still writes the retired `elicitationId` (as `""`) in URL-mode elicitations. Use
//! this module's [`stdio`] instead of rmcp's, and on streamable HTTP
//! [`McpServer::streamable_http`], which filters JSON and SSE responses; to build rmcp's HTTP
//! service yourself, wrap it in [`RetiredFieldsLayer`].
//!
//! The authenticated principal (states are bound to it) is read from a [`Principal`] in the
//! request's extensions: put one there from your HTTP authentication layer (rmcp passes the
//! HTTP request's `Parts` through), or into the rmcp context's extensions.
//!
//! Clients of 2025-11-25 and 2025-06-18 are served too, on the session their `initialize`
//! opens (stdio, or streamable HTTP with `Mcp-Session-Id`): their calls run the machine in
//! process and its questions go to them as requests ([`crate::legacy`];
//! [`McpServer::with_legacy`] configures it, [`McpServer::without_legacy`] refuses them).
//!
//! One concern per file: [`McpServer`] and what every way through rmcp shares
//! (`mcp_server.rs`), its `ServerHandler` (`handler.rs`), a round from rmcp's typed params
//! (`round.rs`), tool routes for your own router (`routes.rs`), 2025-era clients on their
//! sessions (`session_clients.rs`, `call_gates.rs`, `sessions.rs`), the HTTP front
//! (`http_layer.rs`, `direct/`, `serve.rs`, `limits.rs`, `deadline.rs`, `cancelling_body.rs`)
//! and the byte filter for what rmcp's types cannot say (`retired.rs`, `execution.rs`).

mod call_gates;
mod cancelling_body;
mod convert;
mod deadline;
mod direct;
mod execution;
mod handler;
mod http_layer;
mod limits;
mod mcp_server;
mod retired;
mod round;
mod routes;
mod serve;
mod session_clients;
mod sessions;
mod task_listen;

pub use limits::{
    DEFAULT_BODY_TIMEOUT, DEFAULT_HEADER_READ_TIMEOUT, DEFAULT_MAX_CONNECTIONS,
    DEFAULT_SHUTDOWN_GRACE, HttpLimits,
};
/// The `rmcp` crate mrtr is built on, re-exported: its transports, models and handler traits
/// at exactly the version mrtr uses, without pinning it yourself.
pub use rmcp as sdk;
pub use serve::ServeError;

pub use direct::DirectRounds;
pub use http_layer::{
    LOCAL_ORIGINS, RetiredFieldsBody, RetiredFieldsLayer, RetiredFieldsService, StreamableHttp,
};
pub use mcp_server::{McpServer, Principal};
pub use retired::{
    RetiredFieldsFilter, stdio, strip_retired_fields, strip_retired_fields_from_bytes,
};
pub use routes::RouteError;
