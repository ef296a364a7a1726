//! `McpServer::serve_http` and `http_service`: a whole flow over real HTTP, served with mrtr
//! alone (no rmcp setup of the author's own).

#![cfg(feature = "rmcp")]

use mrtr::rmcp::McpServer;
use mrtr::{Answer, Form, Server, ToolError, elicit};
use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

#[derive(Form)]
struct Login {
    name: String,
}

#[mrtr::tool]
async fn greet() -> Result<String, ToolError> {
    let login = ask!(elicit::form::<Login>("Who are you?"));
    Ok(match login {
        Answer::Accept(login) => format!("Hello, {}!", login.name),
        _ => "Hello!".to_owned(),
    })
}

fn server() -> Server {
    Server::builder("greeter", "1.0.0")
        .tool(greet)
        .build()
        .unwrap()
}

/// One JSON-RPC request over HTTP/1.1 (`Connection: close`), the JSON body of the answer.
async fn post(port: u16, body: Value) -> Value {
    let body = body.to_string();
    let request = format!(
        "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Type: application/json\r\n\
         Accept: application/json, text/event-stream\r\nMCP-Protocol-Version: 2026-07-28\r\n\
         Mcp-Method: tools/call\r\nMcp-Name: greet\r\nConnection: close\r\n\
         Content-Length: {}\r\n\r\n{body}",
        body.len()
    );
    let mut stream = TcpStream::connect(("127.0.0.1", port)).await.unwrap();
    stream.write_all(request.as_bytes()).await.unwrap();
    let mut response = String::new();
    stream.read_to_string(&mut response).await.unwrap();
    let (head, body) = response.split_once("\r\n\r\n").unwrap();
    assert!(head.starts_with("HTTP/1.1 200"), "{head}");
    assert!(
        head.to_ascii_lowercase()
            .contains("content-type: application/json"),
        "{head}"
    );
    let body = match head
        .to_ascii_lowercase()
        .contains("transfer-encoding: chunked")
    {
        true => dechunk(body),
        false => body.to_owned(),
    };
    serde_json::from_str(&body).unwrap_or_else(|error| panic!("{error}: {body}"))
}

/// The payload of a chunked HTTP/1.1 body.
fn dechunk(mut body: &str) -> String {
    let mut out = String::new();
    while let Some((size, rest)) = body.split_once("\r\n") {
        let size = usize::from_str_radix(size.trim(), 16).unwrap();
        if size == 0 {
            break;
        }
        out.push_str(&rest[..size]);
        body = &rest[size + 2..];
    }
    out
}

fn call(extra: Value) -> Value {
    let mut params = json!({
        "_meta": {
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {"elicitation": {"form": {}}}
        },
        "name": "greet",
        "arguments": {}
    });
    params
        .as_object_mut()
        .unwrap()
        .extend(extra.as_object().unwrap().clone());
    json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": params})
}

async fn two_rounds(port: u16) {
    let first = post(port, call(json!({}))).await;
    assert_eq!(first["result"]["resultType"], "input_required", "{first}");
    let state = first["result"]["requestState"].clone();
    let answers = json!({"requestState": state, "inputResponses": {"login": {"action": "accept", "content": {"name": "Ada"}}}});
    let done = post(port, call(answers)).await;
    assert_eq!(
        done["result"]["content"][0]["text"], "Hello, Ada!",
        "{done}"
    );
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

#[tokio::test]
async fn serve_http_runs_a_flow_with_json_responses() {
    let port = free_port();
    let serving = tokio::spawn(McpServer::new(server()).serve_http(("127.0.0.1", port)));
    for _ in 0..100 {
        if TcpStream::connect(("127.0.0.1", port)).await.is_ok() {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    two_rounds(port).await;
    serving.abort();
}

#[tokio::test]
async fn http_service_mounts_in_an_axum_router() {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    let app = axum::Router::new().nest_service("/mcp", McpServer::new(server()).http_service());
    let serving = tokio::spawn(async move { axum::serve(listener, app).await });
    two_rounds(port).await;
    serving.abort();
}

#[tokio::test]
async fn an_address_in_use_is_an_error() {
    let taken = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = taken.local_addr().unwrap().port();
    let error = McpServer::new(server())
        .serve_http(("127.0.0.1", port))
        .await
        .unwrap_err();
    assert!(matches!(error, mrtr::rmcp::ServeError::Io(_)), "{error}");
}
