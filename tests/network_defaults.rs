//! What a server exposed with its defaults withstands: `Origin` validated on every path,
//! bounded 2025-era sessions and calls bound to their principal, and `serve_http`'s transport
//! limits (request head and body deadlines, a connection cap, a bounded shutdown).

#![allow(dead_code)]

#[path = "../examples/both_generations.rs"]
mod both_generations;
mod support;

use std::time::Duration;

use http_body_util::BodyExt;
use mrtr::LegacyOptions;
use mrtr::rmcp::{HttpLimits, McpServer, Principal};
use rmcp::transport::streamable_http_server::StreamableHttpServerConfig;
use serde_json::{Value, json};
use support::streamable::{next_message, post};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tower::ServiceExt as _;

async fn within<T>(work: impl std::future::Future<Output = T>) -> T {
    tokio::time::timeout(Duration::from_secs(60), work)
        .await
        .expect("the test did not finish within 60 s")
}

fn mcp() -> McpServer {
    McpServer::new(both_generations::server().unwrap())
}

fn app(mcp: McpServer) -> axum::Router {
    axum::Router::new().nest_service("/mcp", mcp.http_service())
}

/// A 2026-07-28 `tools/call` round the direct path takes.
fn round(id: u32) -> http::Request<axum::body::Body> {
    let body = json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {
        "name": "delete_file", "arguments": {"path": "z.txt"},
        "_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {"elicitation": {}}}}});
    let mut request = post(body, None, "2026-07-28");
    request
        .headers_mut()
        .insert("mcp-method", "tools/call".parse().unwrap());
    request
        .headers_mut()
        .insert("mcp-name", "delete_file".parse().unwrap());
    request
}

/// A 2026-07-28 `tools/list`, which rmcp answers.
fn listing(id: u32) -> http::Request<axum::body::Body> {
    let body = json!({"jsonrpc": "2.0", "id": id, "method": "tools/list", "params": {
        "_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {}}}});
    let mut request = post(body, None, "2026-07-28");
    request
        .headers_mut()
        .insert("mcp-method", "tools/list".parse().unwrap());
    request
}

fn initialize() -> Value {
    json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {"elicitation": {}},
        "clientInfo": {"name": "raw", "version": "1"}}})
}

fn with_principal(
    mut request: http::Request<axum::body::Body>,
    principal: &str,
) -> http::Request<axum::body::Body> {
    request
        .extensions_mut()
        .insert(Principal(principal.to_owned()));
    request
}

/// Opens a 2025-era session (the handshake and `notifications/initialized`); returns its id.
async fn open_session(app: &axum::Router, principal: Option<&str>) -> String {
    let mut request = post(initialize(), None, "2025-11-25");
    if let Some(principal) = principal {
        request = with_principal(request, principal);
    }
    let response = app.clone().oneshot(request).await.unwrap();
    assert_eq!(response.status(), http::StatusCode::OK);
    let session = response.headers()["mcp-session-id"]
        .to_str()
        .unwrap()
        .to_owned();
    let mut body = response.into_body();
    next_message(&mut body, &mut String::new(), |m| m["id"] == 1).await;
    let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    let mut request = post(initialized, Some(&session), "2025-11-25");
    if let Some(principal) = principal {
        request = with_principal(request, principal);
    }
    let response = app.clone().oneshot(request).await.unwrap();
    assert_eq!(response.status(), http::StatusCode::ACCEPTED);
    session
}

/// Starts a `delete_file` call on `session` and waits until its question reaches the client;
/// returns the call's open stream.
async fn start_call(app: &axum::Router, session: &str, id: u32) -> axum::body::Body {
    let call = json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
        "params": {"name": "delete_file", "arguments": {"path": "a.txt"}}});
    let response = app
        .clone()
        .oneshot(post(call, Some(session), "2025-11-25"))
        .await
        .unwrap();
    let mut stream = response.into_body();
    next_message(&mut stream, &mut String::new(), |m| {
        m["method"] == "elicitation/create"
    })
    .await;
    stream
}

/// A call on `session` that must be refused at once; returns the JSON-RPC error.
async fn refused_call(app: &axum::Router, session: &str, id: u32) -> Value {
    let call = json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
        "params": {"name": "delete_file", "arguments": {"path": "b.txt"}}});
    let response = app
        .clone()
        .oneshot(post(call, Some(session), "2025-11-25"))
        .await
        .unwrap();
    let mut stream = response.into_body();
    let answer = next_message(&mut stream, &mut String::new(), |m| m["id"] == id).await;
    answer["error"].clone()
}

// ------------------------------------------------------------------------------- Origin

#[tokio::test]
async fn a_foreign_or_null_origin_is_refused_on_every_path_and_a_local_or_absent_one_served() {
    within(async {
        let app = app(mcp());
        for origin in [
            "https://evil.example",
            "null",
            "http://localhost.evil.example",
        ] {
            for (path, request) in [("direct", round(1)), ("rmcp", listing(2))] {
                let mut request = request;
                request
                    .headers_mut()
                    .insert("origin", origin.parse().unwrap());
                let response = app.clone().oneshot(request).await.unwrap();
                assert_eq!(
                    response.status(),
                    http::StatusCode::FORBIDDEN,
                    "{origin} on the {path} path"
                );
            }
            let mut initialize = post(initialize(), None, "2025-11-25");
            initialize
                .headers_mut()
                .insert("origin", origin.parse().unwrap());
            let response = app.clone().oneshot(initialize).await.unwrap();
            assert_eq!(response.status(), http::StatusCode::FORBIDDEN, "{origin}");
            assert!(response.headers().get("mcp-session-id").is_none());
        }
        for origin in [
            None,
            Some("http://localhost:5173"),
            Some("http://127.0.0.1:8080"),
        ] {
            for request in [round(3), listing(4)] {
                let mut request = request;
                if let Some(origin) = origin {
                    request
                        .headers_mut()
                        .insert("origin", origin.parse().unwrap());
                }
                let response = app.clone().oneshot(request).await.unwrap();
                assert_eq!(response.status(), http::StatusCode::OK, "{origin:?}");
            }
        }
    })
    .await;
}

#[tokio::test]
async fn a_configured_allow_list_replaces_the_local_default_on_streamable_http() {
    within(async {
        let config = StreamableHttpServerConfig::default()
            .with_json_response(true)
            .with_allowed_origins(["https://app.example.com:443"]);
        let app = axum::Router::new().nest_service("/mcp", mcp().streamable_http(config));
        for (origin, status) in [
            ("https://app.example.com", http::StatusCode::OK),
            ("http://localhost:5173", http::StatusCode::FORBIDDEN),
            ("https://evil.example", http::StatusCode::FORBIDDEN),
        ] {
            let mut request = round(1);
            request
                .headers_mut()
                .insert("origin", origin.parse().unwrap());
            let response = app.clone().oneshot(request).await.unwrap();
            assert_eq!(response.status(), status, "{origin}");
        }
        // rmcp's default configuration, as an author passes it, is checked too.
        let app = axum::Router::new().nest_service(
            "/mcp",
            mcp().streamable_http(StreamableHttpServerConfig::default()),
        );
        let mut request = listing(2);
        request
            .headers_mut()
            .insert("origin", "https://evil.example".parse().unwrap());
        let response = app.oneshot(request).await.unwrap();
        assert_eq!(response.status(), http::StatusCode::FORBIDDEN);
    })
    .await;
}

// ----------------------------------------------------------------------- 2025-era sessions

#[tokio::test]
async fn sessions_past_the_cap_are_refused_with_503_and_a_json_rpc_error_until_one_closes() {
    within(async {
        let app = app(mcp().with_legacy(LegacyOptions::new().max_sessions(2)));
        let first = open_session(&app, None).await;
        open_session(&app, None).await;

        let response = app
            .clone()
            .oneshot(post(initialize(), None, "2025-11-25"))
            .await
            .unwrap();
        assert_eq!(response.status(), http::StatusCode::SERVICE_UNAVAILABLE);
        assert!(response.headers().get("mcp-session-id").is_none());
        assert!(response.headers().contains_key("retry-after"));
        let body = response.into_body().collect().await.unwrap().to_bytes();
        let error: Value = serde_json::from_slice(&body).unwrap();
        assert_eq!(error["id"], 1, "{error}");
        assert_eq!(error["error"]["code"], -32000, "{error}");
        let message = error["error"]["message"].as_str().unwrap();
        assert!(message.contains("too many open sessions"), "{message}");
        let digits = message.replace("2026-07-28", "");
        assert!(
            !digits.contains(|c: char| c.is_ascii_digit()),
            "the cap is not disclosed: {message}"
        );

        // Stateless 2026-07-28 requests need no session and are still served.
        let response = app.clone().oneshot(round(7)).await.unwrap();
        assert_eq!(response.status(), http::StatusCode::OK);

        // Closing a session frees its place; `DELETE` answers what both SDKs' clients accept.
        let delete = http::Request::delete("/mcp")
            .header("host", "localhost")
            .header("mcp-session-id", &first)
            .header("mcp-protocol-version", "2025-11-25")
            .body(axum::body::Body::empty())
            .unwrap();
        let response = app.clone().oneshot(delete).await.unwrap();
        assert_eq!(response.status(), http::StatusCode::NO_CONTENT);
        open_session(&app, None).await;
    })
    .await;
}

#[tokio::test]
async fn a_session_is_used_only_by_the_principal_that_opened_it() {
    within(async {
        let app = app(mcp());
        let session = open_session(&app, Some("alice")).await;
        let list = json!({"jsonrpc": "2.0", "id": 9, "method": "tools/list"});
        for intruder in [Some("mallory"), Some("alicE"), None] {
            let mut request = post(list.clone(), Some(&session), "2025-11-25");
            if let Some(intruder) = intruder {
                request = with_principal(request, intruder);
            }
            let response = app.clone().oneshot(request).await.unwrap();
            assert_eq!(
                response.status(),
                http::StatusCode::NOT_FOUND,
                "{intruder:?} used alice's session"
            );
        }
        let request = with_principal(post(list, Some(&session), "2025-11-25"), "alice");
        let response = app.clone().oneshot(request).await.unwrap();
        assert_eq!(response.status(), http::StatusCode::OK);
        let mut body = response.into_body();
        let tools = next_message(&mut body, &mut String::new(), |m| m["id"] == 9).await;
        assert!(tools["result"]["tools"].is_array(), "{tools}");
    })
    .await;
}

#[tokio::test]
async fn calls_past_the_per_session_or_server_wide_cap_are_refused_and_places_come_back() {
    within(async {
        let mcp = mcp().with_legacy(LegacyOptions::new().max_flows(2, 1));
        let app = app(mcp.clone());
        let first = open_session(&app, None).await;
        let second = open_session(&app, None).await;
        let third = open_session(&app, None).await;

        let waiting = start_call(&app, &first, 2).await;
        assert_eq!(mcp.legacy_calls_running(), 1);
        let error = refused_call(&app, &first, 3).await;
        assert_eq!(error["code"], -32000, "{error}");
        assert!(
            error["message"].as_str().unwrap().contains("this session"),
            "{error}"
        );

        let _other = start_call(&app, &second, 4).await;
        assert_eq!(mcp.legacy_calls_running(), 2);
        let error = refused_call(&app, &third, 5).await;
        assert!(
            error["message"].as_str().unwrap().contains("the server"),
            "{error}"
        );

        // The client goes away: its call ends, and its place is free again.
        drop(waiting);
        for _ in 0..500 {
            if mcp.legacy_calls_running() == 1 {
                break;
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        assert_eq!(
            mcp.legacy_calls_running(),
            1,
            "the disconnected call still runs"
        );
        let _third = start_call(&app, &third, 6).await;
    })
    .await;
}

#[tokio::test]
async fn a_client_that_never_answers_gets_an_error_on_the_calls_stream_not_a_closed_session() {
    within(async {
        // The idle lifetime asked for is shorter than the client timeout: the one in force
        // outlasts the timeout, so the call ends with its error while the session lives.
        let options = LegacyOptions::new()
            .client_timeout(Duration::from_millis(300))
            .session_idle(Duration::from_millis(100));
        assert_eq!(options.idle_lifetime(), Duration::from_millis(10_300));
        let app = app(mcp().with_legacy(options));
        let session = open_session(&app, None).await;
        let mut stream = start_call(&app, &session, 2).await;
        let result = next_message(&mut stream, &mut String::new(), |m| m["id"] == 2).await;
        assert_eq!(result["result"]["isError"], true, "{result}");
        let text = result["result"]["content"][0]["text"].as_str().unwrap();
        assert!(text.contains("did not answer"), "{text}");
        let list = json!({"jsonrpc": "2.0", "id": 3, "method": "tools/list"});
        let response = app
            .clone()
            .oneshot(post(list, Some(&session), "2025-11-25"))
            .await
            .unwrap();
        assert_eq!(response.status(), http::StatusCode::OK, "the session lives");
    })
    .await;
}

#[tokio::test]
async fn the_direct_path_reads_no_more_than_the_body_cap_whatever_content_length_claims() {
    within(async {
        let config = StreamableHttpServerConfig::default()
            .with_json_response(true)
            .with_max_request_body_bytes(1024);
        let app = axum::Router::new().nest_service("/mcp", mcp().streamable_http(config));
        // What a front that trusts `Content-Length` could hand on: a small length, a large body.
        let mut request = round(1);
        let padding = " ".repeat(4096);
        let body = format!(
            "{}{padding}",
            String::from_utf8(
                round(1)
                    .into_body()
                    .collect()
                    .await
                    .unwrap()
                    .to_bytes()
                    .to_vec()
            )
            .unwrap()
        );
        *request.body_mut() = axum::body::Body::from(body);
        request
            .headers_mut()
            .insert("content-length", "100".parse().unwrap());
        let response = app.clone().oneshot(request).await.unwrap();
        assert_eq!(response.status(), http::StatusCode::PAYLOAD_TOO_LARGE);
        // Under the cap, the same round is answered.
        let response = app.oneshot(round(2)).await.unwrap();
        assert_eq!(response.status(), http::StatusCode::OK);
    })
    .await;
}

// --------------------------------------------------------------------- serve_http's front

/// Serves `mcp` on a loopback port with `limits` until the returned sender fires.
async fn serve(
    mcp: McpServer,
    limits: HttpLimits,
) -> (
    std::net::SocketAddr,
    tokio::sync::oneshot::Sender<()>,
    tokio::task::JoinHandle<()>,
) {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap();
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let config = StreamableHttpServerConfig::default().with_json_response(true);
    let serving = tokio::spawn(async move {
        mcp.with_http_limits(limits)
            .serve_listener(listener, config, async {
                let _ = stopped.await;
            })
            .await
            .unwrap();
    });
    (address, stop, serving)
}

/// Reads from `stream` until it closes; returns what arrived.
async fn read_to_close(stream: &mut TcpStream) -> String {
    let mut out = Vec::new();
    let _ = stream.read_to_end(&mut out).await;
    String::from_utf8_lossy(&out).into_owned()
}

fn raw_round() -> String {
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {
        "name": "delete_file", "arguments": {"path": "z.txt"},
        "_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {"elicitation": {}}}}})
    .to_string();
    format!(
        "POST /mcp HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n\
         Accept: application/json, text/event-stream\r\nMCP-Protocol-Version: 2026-07-28\r\n\
         Mcp-Method: tools/call\r\nMcp-Name: delete_file\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    )
}

#[tokio::test]
async fn a_half_sent_head_or_body_is_cut_off_and_a_whole_request_is_answered() {
    within(async {
        let limits = HttpLimits::new()
            .header_read_timeout(Duration::from_millis(500))
            .body_timeout(Duration::from_millis(500));
        let (address, _stop, _serving) = serve(mcp(), limits).await;

        let mut whole = TcpStream::connect(address).await.unwrap();
        whole.write_all(raw_round().as_bytes()).await.unwrap();
        let mut answer = vec![0; 4096];
        let read = whole.read(&mut answer).await.unwrap();
        let answer = String::from_utf8_lossy(&answer[..read]);
        assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
        assert!(answer.contains("input_required"), "{answer}");

        let mut head = TcpStream::connect(address).await.unwrap();
        head.write_all(b"POST /mcp HTTP/1.1\r\nHost: localhost\r\n")
            .await
            .unwrap();
        let closed = tokio::time::timeout(Duration::from_secs(10), read_to_close(&mut head))
            .await
            .expect("a half-sent head is cut off");
        assert!(!closed.contains("200 OK"), "{closed}");

        let mut body = TcpStream::connect(address).await.unwrap();
        let request = raw_round();
        body.write_all(&request.as_bytes()[..request.len() - 20])
            .await
            .unwrap();
        let answer = tokio::time::timeout(Duration::from_secs(10), read_to_close(&mut body))
            .await
            .expect("a half-sent body is cut off");
        assert!(!answer.contains("200 OK"), "{answer}");
    })
    .await;
}

#[tokio::test]
async fn connections_past_the_cap_wait_until_one_closes() {
    within(async {
        let (address, _stop, _serving) = serve(mcp(), HttpLimits::new().max_connections(1)).await;
        let mut first = TcpStream::connect(address).await.unwrap();
        first.write_all(raw_round().as_bytes()).await.unwrap();
        let mut answer = vec![0; 4096];
        assert!(first.read(&mut answer).await.unwrap() > 0);

        // The first connection stays open (keep-alive): the second is not served meanwhile.
        let mut second = TcpStream::connect(address).await.unwrap();
        second.write_all(raw_round().as_bytes()).await.unwrap();
        let waited =
            tokio::time::timeout(Duration::from_millis(300), second.read(&mut answer)).await;
        assert!(waited.is_err(), "a connection past the cap was served");
        drop(first);
        let read = second.read(&mut answer).await.unwrap();
        assert!(String::from_utf8_lossy(&answer[..read]).starts_with("HTTP/1.1 200"));
    })
    .await;
}

#[tokio::test]
async fn shutdown_ends_within_the_grace_period_while_a_session_stream_is_open() {
    within(async {
        let limits = HttpLimits::new().shutdown_grace(Duration::from_millis(500));
        let (address, stop, serving) = serve(mcp(), limits).await;
        // A 2025-era session with its standalone event stream open.
        let mut client = TcpStream::connect(address).await.unwrap();
        let body = initialize().to_string();
        let request = format!(
            "POST /mcp HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n\
             Accept: application/json, text/event-stream\r\nContent-Length: {}\r\n\r\n{body}",
            body.len()
        );
        client.write_all(request.as_bytes()).await.unwrap();
        let mut answer = vec![0; 8192];
        let read = client.read(&mut answer).await.unwrap();
        let answer = String::from_utf8_lossy(&answer[..read]).into_owned();
        let session = answer
            .lines()
            .find_map(|line| {
                let (name, value) = line.split_once(':')?;
                name.eq_ignore_ascii_case("mcp-session-id")
                    .then(|| value.trim().to_owned())
            })
            .expect("a session id");
        let mut stream = TcpStream::connect(address).await.unwrap();
        let get = format!(
            "GET /mcp HTTP/1.1\r\nHost: localhost\r\nAccept: text/event-stream\r\n\
             Mcp-Session-Id: {}\r\nMCP-Protocol-Version: 2025-11-25\r\n\r\n",
            session.trim()
        );
        stream.write_all(get.as_bytes()).await.unwrap();
        let mut opened = vec![0; 8192];
        let read = stream.read(&mut opened).await.unwrap();
        let opened = String::from_utf8_lossy(&opened[..read]);
        assert!(opened.starts_with("HTTP/1.1 200"), "{opened}");

        stop.send(()).unwrap();
        tokio::time::timeout(Duration::from_secs(10), serving)
            .await
            .expect("serving ended while a stream was open")
            .unwrap();
    })
    .await;
}
