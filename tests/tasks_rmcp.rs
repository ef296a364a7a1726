//! Tasks (SEP-2663) through rmcp: `tools/list` shows `execution.taskSupport` on every serving
//! way (rmcp's `Tool` has no such field: mrtr carries it in `_meta` and its byte filter puts
//! it back), and rmcp's own client drives a task end to end over TCP: an MRTR round, the
//! `CreateTaskResult`, `tasks/get` polling, an ask answered with `tasks/update`, the result.

#![cfg(feature = "rmcp")]

use std::time::Duration;

use mrtr::rmcp::{McpServer, RetiredFieldsFilter};
use mrtr::{Answer, Form, Server, ToolError, elicit, handoff};
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, ClientConfig, GetTaskParams, ProtocolVersion,
    TaskPayload, UpdateTaskParams,
};
use rmcp::service::{ClientLifecycleMode, ClientServiceExt};
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::net::{TcpListener, TcpStream};

#[derive(Form)]
struct Name {
    /// Your name
    name: String,
}

#[derive(Form)]
struct Confirm {
    /// Go ahead?
    ok: bool,
}

/// Asks a name by MRTR, hands off, then asks a confirmation inside the task.
#[mrtr::tool(task = "optional")]
async fn rename() -> Result<String, ToolError> {
    let user_name = ask!(elicit::form::<Name>("Who are you?"));
    let name = user_name.accepted()?.name;
    ask!(handoff());
    let confirm = ask!(elicit::form::<Confirm>(format!(
        "Rename everything for {name}?"
    )));
    match confirm {
        Answer::Accept(Confirm { ok: true }) => Ok(format!("renamed for {name}")),
        _ => Ok(format!("left alone for {name}")),
    }
}

/// Never a task.
#[mrtr::tool]
async fn plain() -> Result<String, ToolError> {
    Ok("plain".into())
}

fn server() -> Server {
    Server::builder("tasks-rmcp", "1.0.0")
        .tool(rename)
        .tool(plain)
        .build()
        .unwrap()
}

/// Serves one connection on a TCP port with newline-delimited JSON (stdio's framing), its
/// output through mrtr's filter as `mrtr::rmcp::stdio()` does; returns the port.
async fn serve_tcp() -> u16 {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    tokio::spawn(async move {
        let (stream, _) = listener.accept().await.unwrap();
        let (read, write) = stream.into_split();
        let running = rmcp::ServiceExt::serve(
            McpServer::new(server()),
            (read, RetiredFieldsFilter::new(write)),
        )
        .await
        .unwrap();
        let _ = running.waiting().await;
    });
    port
}

fn meta(capabilities: Value) -> Value {
    json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": capabilities,
    })
}

/// The `execution` of each listed tool, by name.
fn executions(listed: &Value) -> Vec<(String, Value)> {
    listed["result"]["tools"]
        .as_array()
        .unwrap_or_else(|| panic!("no tools: {listed}"))
        .iter()
        .map(|tool| {
            assert!(
                tool.pointer("/_meta/mrtr~1execution").is_none(),
                "the carrier left the server: {tool}"
            );
            (
                tool["name"].as_str().unwrap().to_owned(),
                tool.get("execution").cloned().unwrap_or(Value::Null),
            )
        })
        .collect()
}

fn expected() -> Vec<(String, Value)> {
    vec![
        ("rename".into(), json!({"taskSupport": "optional"})),
        ("plain".into(), Value::Null),
    ]
}

#[tokio::test]
async fn tools_list_shows_task_support_on_server_handle() {
    let listed = server()
        .handle(json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list",
            "params": {"_meta": meta(json!({}))}}))
        .await;
    assert_eq!(executions(&listed), expected());
}

#[tokio::test]
async fn tools_list_shows_task_support_through_rmcp_over_stdio_framing() {
    let port = serve_tcp().await;
    let stream = TcpStream::connect(("127.0.0.1", port)).await.unwrap();
    let (read, mut write) = stream.into_split();
    let request = json!({"jsonrpc": "2.0", "id": 7, "method": "tools/list",
        "params": {"_meta": meta(json!({}))}});
    write
        .write_all(format!("{request}\n").as_bytes())
        .await
        .unwrap();
    let mut line = String::new();
    let mut lines = BufReader::new(read);
    tokio::time::timeout(Duration::from_secs(10), lines.read_line(&mut line))
        .await
        .expect("an answer within 10 s")
        .unwrap();
    let listed: Value = serde_json::from_str(&line).unwrap();
    assert_eq!(listed["id"], 7, "{listed}");
    assert_eq!(executions(&listed), expected());
}

#[tokio::test]
async fn tools_list_shows_task_support_through_rmcp_over_http() {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    drop(listener);
    let serving = tokio::spawn(McpServer::new(server()).serve_http(("127.0.0.1", port)));
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list",
        "params": {"_meta": meta(json!({}))}})
    .to_string();
    let mut stream = None;
    for _ in 0..100 {
        if let Ok(connected) = TcpStream::connect(("127.0.0.1", port)).await {
            stream = Some(connected);
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let mut stream = stream.expect("the server listens");
    let request = format!(
        "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Type: application/json\r\n\
         Accept: application/json, text/event-stream\r\nMCP-Protocol-Version: 2026-07-28\r\n\
         Mcp-Method: tools/list\r\nConnection: close\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    );
    stream.write_all(request.as_bytes()).await.unwrap();
    let mut response = String::new();
    stream.read_to_string(&mut response).await.unwrap();
    let (head, body) = response.split_once("\r\n\r\n").unwrap();
    assert!(head.starts_with("HTTP/1.1 200"), "{head}");
    let body = if head.to_ascii_lowercase().contains("chunked") {
        dechunk(body)
    } else {
        body.to_owned()
    };
    // JSON, or one SSE event whose data is the JSON.
    let json = body
        .lines()
        .find_map(|line| line.strip_prefix("data:"))
        .map_or(body.as_str(), str::trim);
    let listed: Value = serde_json::from_str(json).unwrap_or_else(|e| panic!("{e}: {body}"));
    assert_eq!(executions(&listed), expected());
    serving.abort();
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

/// A 2026-07-28 client that declares elicitation and the tasks extension.
struct TaskClient;

impl rmcp::ClientHandler for TaskClient {
    fn get_info(&self) -> ClientConfig {
        serde_json::from_value(json!({
            "protocolVersion": "2026-07-28",
            "capabilities": {"elicitation": {"form": {}},
                "extensions": {"io.modelcontextprotocol/tasks": {}}},
            "clientInfo": {"name": "task-client", "version": "1.0.0"}
        }))
        .unwrap()
    }
}

fn accept(content: Value) -> Value {
    json!({"action": "accept", "content": content})
}

#[tokio::test]
async fn rmcps_client_drives_a_task_end_to_end_over_tcp() {
    tokio::time::timeout(Duration::from_secs(30), drive_a_task())
        .await
        .expect("the task ends within 30 s");
}

async fn drive_a_task() {
    let port = serve_tcp().await;
    let stream = TcpStream::connect(("127.0.0.1", port)).await.unwrap();
    let client = TaskClient
        .serve_with_lifecycle(
            stream,
            ClientLifecycleMode::Discover {
                preferred_versions: vec![ProtocolVersion::V_2026_07_28],
            },
        )
        .await
        .unwrap();

    // Round 1 (MRTR): the name.
    let CallToolResponse::InputRequired(asked) = client
        .call_tool_once(CallToolRequestParams::new("rename"))
        .await
        .unwrap()
    else {
        panic!("round 1 asks the name");
    };
    let asked = serde_json::to_value(&asked).unwrap();
    assert!(asked["inputRequests"]["user_name"].is_object(), "{asked}");
    assert!(asked.get("taskId").is_none());

    // Round 2: the answer; the hand-off answers a task, without requestState.
    let mut retry = CallToolRequestParams::new("rename");
    retry.input_responses = Some(
        [("user_name".to_owned(), accept(json!({"name": "Alice"})))]
            .into_iter()
            .collect(),
    );
    retry.request_state = asked["requestState"].as_str().map(str::to_owned);
    let CallToolResponse::Task(created) = client.call_tool_once(retry).await.unwrap() else {
        panic!("round 2 answers CreateTaskResult");
    };
    let task_id = created.task.task_id.clone();
    assert!(task_id.len() >= 22, "an unguessable id: {task_id}");
    let created = serde_json::to_value(&created).unwrap();
    assert_eq!(created["resultType"], "task");
    assert!(created.get("requestState").is_none(), "{created}");

    // Poll until the task asks; answer with tasks/update.
    let key = loop {
        let got = client
            .get_task(GetTaskParams::new(task_id.clone()))
            .await
            .unwrap();
        match got.task.payload {
            TaskPayload::InputRequired { input_requests } => {
                let keys: Vec<String> = input_requests.keys().cloned().collect();
                assert_eq!(keys.len(), 1, "{keys:?}");
                break keys[0].clone();
            }
            TaskPayload::Working => tokio::time::sleep(Duration::from_millis(20)).await,
            other => panic!("the task must ask, got {other:?}"),
        }
    };
    client
        .update_task(UpdateTaskParams::new(
            task_id.clone(),
            [(key, accept(json!({"ok": true})))].into_iter().collect(),
        ))
        .await
        .unwrap();

    // Poll until it ends: completed, naming the MRTR answer.
    let result = loop {
        let got = client
            .get_task(GetTaskParams::new(task_id.clone()))
            .await
            .unwrap();
        match got.task.payload {
            TaskPayload::Completed { result } => break Value::Object(result),
            TaskPayload::Working | TaskPayload::InputRequired { .. } => {
                tokio::time::sleep(Duration::from_millis(20)).await
            }
            other => panic!("the task must complete, got {other:?}"),
        }
    };
    assert_eq!(
        result["content"][0]["text"], "renamed for Alice",
        "{result}"
    );

    // tasks/cancel on the ended task: an ack, and it stays completed.
    client
        .cancel_task(rmcp::model::CancelTaskParams::new(task_id.clone()))
        .await
        .unwrap();
    let after = client.get_task(GetTaskParams::new(task_id)).await.unwrap();
    assert!(matches!(after.task.payload, TaskPayload::Completed { .. }));
    client.cancel().await.unwrap();
}
