//! Shared pieces of the end-to-end benchmark (`scripts/bench_e2e.sh`): the `book` flow's
//! offers, the counting allocator and the `/stats` probe the servers expose, and serving.
//!
//! Three binaries use them: `e2e-rmcp` (the baseline: the flow hand-written on rmcp with
//! `RequestStateCodec`), `e2e-mrtr` (the flow written with `#[mrtr::tool]`, served by
//! `McpServer::streamable_http`) and `e2e-load` (the closed-loop load client).

pub mod alloc;
pub mod book;
pub mod offers;
pub mod stats;

pub use offers::{CITIES, Offer, offers};

/// The state key every server of the benchmark uses (a fixed key keeps runs reproducible).
pub const KEY: &[u8] = b"mrtr-e2e-bench-request-state-key-0123456789";

/// Serves `router` (the MCP service nested at `/mcp`) with the [`stats`] probe at `/stats` on
/// `127.0.0.1:port`, until the process is stopped.
pub async fn serve(router: axum::Router, port: u16) -> std::io::Result<()> {
    let router = router.route("/stats", axum::routing::get(stats::handler));
    let listener = tokio::net::TcpListener::bind(("127.0.0.1", port)).await?;
    eprintln!("listening on http://127.0.0.1:{port}/mcp");
    axum::serve(listener, router).await
}
