//! The README path's service (`McpServer::streamable_http`) driven in-process, without sockets:
//! the `book` flow's three rounds, each request built and each response read outside the timed
//! part. Prints the mean time per round; its real use is under callgrind, which counts
//! instructions and so gives the same figure however busy the machine is:
//!
//! ```text
//! cargo build --profile e2e -p mrtr-bench-e2e --example round_instructions
//! valgrind --tool=callgrind target/e2e/examples/round_instructions 300
//! callgrind_annotate --inclusive=yes callgrind.out.* | grep 'RetiredFieldsService'
//! ```
//!
//! The inclusive count of the service's call and its future (`RetiredFieldsService::call`,
//! the outer layer) over 900 rounds is the direct path's cost per round, without the kernel,
//! hyper and tokio; PERFORMANCE.md reports it beside the HTTP runs.
//!
//! With `--mounted` the same server is mounted as rmcp's handler, in rmcp's own
//! `StreamableHttpService` (as `e2e-mrtr --mounted` serves it). rmcp runs each request in a
//! task of its own, so compare the program's total between two builds rather than one
//! function's count.

use std::sync::Arc;
use std::time::{Duration, Instant};

use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use mrtr::Server;
use mrtr::rmcp::{McpServer, RetiredFieldsLayer};
use mrtr::token::{KeyId, KeyRing, Mode, SecretKey, StateCodec};
use mrtr_bench_e2e::book::{book, round_body};
use mrtr_bench_e2e::{KEY, offers};
use rmcp::transport::streamable_http_server::session::never::NeverSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use serde_json::{Value, json};
use tower::ServiceExt;
use tower::util::BoxCloneService;

/// The body of one `tools/call book` round, as the load client sends it.
fn round(id: u64, answers: Option<Value>, state: Option<&str>) -> Bytes {
    Bytes::from(round_body(id, json!({"to": "Oslo"}), answers, state))
}

/// The question's key and the state of an `input_required` response.
fn question(response: &[u8]) -> (String, String) {
    let message: Value = serde_json::from_slice(response).expect("a JSON response");
    let result = &message["result"];
    let key = result["inputRequests"]
        .as_object()
        .and_then(|requests| requests.keys().next())
        .unwrap_or_else(|| panic!("not input_required: {message}"))
        .clone();
    (
        key,
        result["requestState"].as_str().expect("a state").to_owned(),
    )
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let flows: u64 = args
        .iter()
        .find_map(|arg| arg.parse().ok())
        .unwrap_or(10_000);
    let mounted = args.iter().any(|arg| arg == "--mounted");
    let ring = KeyRing::with_signing_key(KeyId::new("k1")?, SecretKey::from_bytes(KEY.to_vec())?);
    let codec = StateCodec::builder()
        .key_ring(ring)
        .mode(Mode::Aead)
        .audience("e2e-mrtr")
        .build()?;
    let server = Server::builder("e2e-mrtr", "0.1.0")
        .codec(codec)
        .tool(book)
        .build()?;
    let config = StreamableHttpServerConfig::default().with_json_response(true);
    let mcp = McpServer::new(server);
    let service = if mounted {
        let rmcp = StreamableHttpService::new(
            move || Ok(mcp.clone()),
            Arc::new(NeverSessionManager::default()),
            config.with_legacy_session_mode(false),
        );
        BoxCloneService::new(tower_layer::Layer::layer(&RetiredFieldsLayer, rmcp))
    } else {
        BoxCloneService::new(mcp.streamable_http(config))
    };
    let mut spent = Duration::ZERO;
    let mut send = async |body: Bytes| {
        let request = http::Request::post("/mcp")
            .header("host", "127.0.0.1:8132")
            .header("content-type", "application/json")
            .header("content-length", body.len())
            .header("accept", "application/json, text/event-stream")
            .header("mcp-protocol-version", "2026-07-28")
            .header("mcp-method", "tools/call")
            .header("mcp-name", "book")
            .body(Full::new(body))
            .expect("a valid request");
        let start = Instant::now();
        let response = service.clone().oneshot(request).await.expect("infallible");
        let body = response.into_body().collect().await.expect("a body");
        spent += start.elapsed();
        body.to_bytes()
    };
    let chosen = offers("Oslo")[1].id.clone();
    for id in 0..flows {
        let (key, state) = question(&send(round(id, None, None)).await);
        let answer = json!({key: {"action": "accept", "content": {"pick": chosen}}});
        let (key, state) = question(&send(round(id, Some(answer), Some(&state))).await);
        let answer = json!({key: {"action": "accept", "content": {"ok": true}}});
        let done = send(round(id, Some(answer), Some(&state))).await;
        let text = String::from_utf8_lossy(&done);
        assert!(text.contains("booked"), "round 3 did not book: {text}");
    }
    let rounds = 3 * flows as u32;
    println!(
        "{:.2} µs per round over {rounds} rounds",
        (spent / rounds.max(1)).as_secs_f64() * 1e6
    );
    Ok(())
}
