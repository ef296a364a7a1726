//! The `book` flow written with mrtr: one sequential async fn with two `ask!`s, served by
//! `McpServer::streamable_http` (stateless streamable HTTP, JSON responses), as the README
//! shows. AEAD sealing (the default) unless `--hmac`; `--hmac --deflate` also deflates every
//! payload over 256 bytes (`StateCodecBuilder::compress_above`), to weigh token size against CPU.
//!
//! With `--mounted` the same server is mounted the way an author mounts mrtr inside an rmcp
//! server: `McpServer` as the handler of rmcp's own `StreamableHttpService` (configured as the
//! hand-written baseline's), so every round takes rmcp's per-request path.
//!
//! With `--handle` it is served the third way: `Server::handle` behind the author's own axum
//! route (read the body, parse it, hand the JSON-RPC request over, write the response), the way
//! mrtr runs inside any Rust HTTP stack without rmcp.
//!
//! Usage: `e2e-mrtr PORT [--hmac [--deflate]] [--mounted | --handle]`

use std::sync::Arc;

use mrtr::Server;
use mrtr::rmcp::{McpServer, RetiredFieldsLayer};
use mrtr::token::{KeyId, KeyRing, Mode, SecretKey, StateCodec};
use mrtr_bench_e2e::{KEY, alloc::Counting, book::book};
use rmcp::transport::streamable_http_server::session::never::NeverSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};

#[global_allocator]
static ALLOCATOR: Counting = Counting;

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let port = args
        .next()
        .and_then(|port| port.parse().ok())
        .unwrap_or(8132);
    let flags: Vec<String> = args.collect();
    let mode = if flags.iter().any(|arg| arg == "--hmac") {
        Mode::Hmac
    } else {
        Mode::Aead
    };
    let ring = KeyRing::with_signing_key(KeyId::new("k1")?, SecretKey::from_bytes(KEY.to_vec())?);
    let mut codec = StateCodec::builder()
        .key_ring(ring)
        .mode(mode)
        .audience("e2e-mrtr");
    if flags.iter().any(|arg| arg == "--deflate") {
        codec = codec.compress_above(Some(256));
    }
    let codec = codec.build()?;
    let server = Server::builder("e2e-mrtr", "0.1.0")
        .codec(codec)
        .tool(book)
        .build()?;
    if flags.iter().any(|arg| arg == "--handle") {
        mrtr_bench_e2e::serve(own_front(server), port).await?;
        return Ok(());
    }
    let mcp = McpServer::new(server);
    let config = StreamableHttpServerConfig::default().with_json_response(true);
    let router = if flags.iter().any(|arg| arg == "--mounted") {
        let service = StreamableHttpService::new(
            move || Ok(mcp.clone()),
            Arc::new(NeverSessionManager::default()),
            config.with_legacy_session_mode(false),
        );
        let service = tower_layer::Layer::layer(&RetiredFieldsLayer, service);
        axum::Router::new().nest_service("/mcp", service)
    } else {
        axum::Router::new().nest_service("/mcp", mcp.streamable_http(config))
    };
    mrtr_bench_e2e::serve(router, port).await?;
    Ok(())
}

/// `Server::handle` behind a plain axum route: the author's own front.
fn own_front(server: Server) -> axum::Router {
    use axum::http::{StatusCode, header};
    use axum::response::IntoResponse;
    let route = move |body: bytes::Bytes| {
        let server = server.clone();
        async move {
            let Ok(request) = serde_json::from_slice::<serde_json::Value>(&body) else {
                return StatusCode::BAD_REQUEST.into_response();
            };
            let response = server.handle(request).await;
            if response.is_null() {
                return StatusCode::ACCEPTED.into_response();
            }
            (
                [(header::CONTENT_TYPE, "application/json")],
                serde_json::to_vec(&response).unwrap_or_default(),
            )
                .into_response()
        }
    };
    axum::Router::new().route("/mcp", axum::routing::post(route))
}
