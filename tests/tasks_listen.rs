//! Task status notifications (`notifications/tasks` on `subscriptions/listen`, SEP-2663 over
//! SEP-2575): `Server::listen_tasks` follows a principal's tasks until they end, on the
//! instance that changes them at once and across instances sharing a store within a poll
//! interval; `McpServer::serve_http` streams them as SSE.

use std::sync::Arc;
use std::time::Duration;

use mrtr::TaskListener;
use mrtr::task::{MemoryTaskStore, TaskStore};
use mrtr::token::{KeyId, KeyRing, SecretKey};
use mrtr::{Answer, Form, Server, TaskOptions, ToolError, elicit};
use serde_json::{Value, json};

#[derive(Form)]
struct Confirm {
    /// Go ahead?
    ok: bool,
}

/// Runs only as a task; asks once inside it.
#[mrtr::tool(task = "required")]
async fn approve() -> Result<String, ToolError> {
    let go = ask!(elicit::form::<Confirm>("Go ahead?"));
    Ok(format!(
        "approved: {}",
        matches!(go, Answer::Accept(Confirm { ok: true }))
    ))
}

fn instance(store: &Arc<dyn TaskStore>) -> Server {
    Server::builder("listen", "1")
        .key_ring(KeyRing::with_signing_key(
            KeyId::new("shared").unwrap(),
            SecretKey::from_bytes(vec![5u8; 32]).unwrap(),
        ))
        .tasks(
            TaskOptions::new()
                .shared_store(Arc::clone(store))
                .poll_interval(Duration::from_millis(100)),
        )
        .tool(approve)
        .build()
        .unwrap()
}

fn meta(tasks: bool) -> Value {
    let mut capabilities = json!({"elicitation": {}});
    if tasks {
        capabilities["extensions"] = json!({"io.modelcontextprotocol/tasks": {}});
    }
    json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": capabilities,
    })
}

async fn send(server: &Server, principal: &str, method: &str, mut params: Value) -> Value {
    params["_meta"] = meta(true);
    let request = json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params});
    let response = server.handle_as(request, Some(principal)).await;
    response
        .get("result")
        .cloned()
        .unwrap_or_else(|| panic!("{method}: {response}"))
}

async fn create(server: &Server, principal: &str) -> String {
    let created = send(server, principal, "tools/call", json!({"name": "approve"})).await;
    created["taskId"].as_str().unwrap().to_owned()
}

fn listen_params(ids: &[&str]) -> Value {
    json!({"_meta": meta(true), "notifications": {"taskIds": ids}})
}

/// The next notification within 5 s.
async fn next(listener: &mut TaskListener) -> Option<Value> {
    tokio::time::timeout(Duration::from_secs(5), listener.next())
        .await
        .expect("a notification (or the end) within 5 s")
}

/// Notifications until one has `status`; returns it.
async fn until(listener: &mut TaskListener, status: &str) -> Value {
    loop {
        let message = next(listener)
            .await
            .unwrap_or_else(|| panic!("the listener ended before {status}"));
        assert_eq!(message["method"], "notifications/tasks");
        assert_eq!(
            message["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"],
            "listen-1"
        );
        if message["params"]["status"] == status {
            return message["params"].clone();
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_listener_follows_its_tasks_until_they_end_and_ignores_foreign_ids() {
    let store: Arc<dyn TaskStore> = Arc::new(MemoryTaskStore::new());
    let server = instance(&store);
    let mine = create(&server, "alice").await;
    let foreign = create(&server, "mallory").await;
    let unknown = "0".repeat(32);
    let mut listener = server
        .listen_tasks(
            json!("listen-1"),
            &listen_params(&[&mine, &foreign, &unknown, "not-an-id"]),
            Some("alice"),
        )
        .await
        .unwrap();
    let ack = listener.acknowledgment();
    assert_eq!(ack["method"], "notifications/subscriptions/acknowledged");
    assert_eq!(ack["params"]["notifications"], json!({"taskIds": [mine]}));
    assert_eq!(
        ack["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"],
        "listen-1"
    );

    // As tasks/get shows it: parked at its question.
    let waiting = until(&mut listener, "input_required").await;
    let got = send(&server, "alice", "tasks/get", json!({"taskId": mine})).await;
    assert_eq!(waiting["inputRequests"], got["inputRequests"]);
    assert_eq!(waiting["taskId"], mine.as_str());
    let key = got["inputRequests"]
        .as_object()
        .unwrap()
        .keys()
        .next()
        .unwrap()
        .clone();
    send(
        &server,
        "alice",
        "tasks/update",
        json!({"taskId": mine, "inputResponses": {(key): {"action": "accept", "content": {"ok": true}}}}),
    )
    .await;
    let done = until(&mut listener, "completed").await;
    assert_eq!(done["result"]["content"][0]["text"], "approved: true");
    assert_eq!(next(&mut listener).await, None, "every listened task ended");
    let end = listener.end();
    assert_eq!(end["id"], "listen-1");
    assert_eq!(end["result"]["resultType"], "complete");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_listener_on_one_instance_sees_changes_written_by_another() {
    let store: Arc<dyn TaskStore> = Arc::new(MemoryTaskStore::new());
    let (a, b) = (instance(&store), instance(&store));
    let id = create(&b, "alice").await;
    let mut listener = a
        .listen_tasks(json!("listen-1"), &listen_params(&[&id]), Some("alice"))
        .await
        .unwrap();
    let waiting = until(&mut listener, "input_required").await;
    let key = waiting["inputRequests"]
        .as_object()
        .unwrap()
        .keys()
        .next()
        .unwrap()
        .clone();
    // The answer and the step that follows are instance B's: A hears of them from the store.
    send(
        &b,
        "alice",
        "tasks/update",
        json!({"taskId": id, "inputResponses": {(key): {"action": "accept", "content": {"ok": false}}}}),
    )
    .await;
    let done = until(&mut listener, "completed").await;
    assert_eq!(done["result"]["content"][0]["text"], "approved: false");
}

#[tokio::test]
async fn bad_listen_requests_are_refused_with_what_to_fix() {
    let store: Arc<dyn TaskStore> = Arc::new(MemoryTaskStore::new());
    let server = instance(&store);
    let id = create(&server, "alice").await;
    let refused = |params: Value| {
        let server = server.clone();
        async move {
            server
                .listen_tasks(json!(1), &params, Some("alice"))
                .await
                .expect_err("refused")
        }
    };
    let without = refused(json!({"_meta": meta(false), "notifications": {"taskIds": [id]}})).await;
    assert_eq!(without.code, -32021);
    assert_eq!(
        without.data.unwrap()["requiredCapabilities"]["extensions"]["io.modelcontextprotocol/tasks"],
        json!({})
    );
    let not_strings =
        refused(json!({"_meta": meta(true), "notifications": {"taskIds": [1]}})).await;
    assert_eq!(not_strings.code, -32602);
    assert!(not_strings.message.contains("array of strings"));
    let no_filter = refused(json!({"_meta": meta(true)})).await;
    assert_eq!(no_filter.code, -32602);
    let many: Vec<String> = (0..65).map(|n| format!("{n:032}")).collect();
    let too_many = refused(json!({"_meta": meta(true), "notifications": {"taskIds": many}})).await;
    assert_eq!(too_many.code, -32602);
    assert!(
        too_many.message.contains("at most 64"),
        "{}",
        too_many.message
    );
}

#[cfg(feature = "rmcp")]
mod over_http {
    use super::*;
    use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
    use tokio::net::TcpStream;

    fn http_request(port: u16, method: &str, name: Option<&str>, body: &Value) -> String {
        let body = body.to_string();
        let name = name.map_or(String::new(), |name| format!("Mcp-Name: {name}\r\n"));
        format!(
            "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Type: application/json\r\n\
             Accept: application/json, text/event-stream\r\nMCP-Protocol-Version: 2026-07-28\r\n\
             Mcp-Method: {method}\r\n{name}Connection: close\r\nContent-Length: {}\r\n\r\n{body}",
            body.len()
        )
    }

    /// One request whose answer is one JSON-RPC message (JSON or a single SSE event).
    async fn post(port: u16, method: &str, name: Option<&str>, params: Value) -> Value {
        let body = json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params});
        let mut stream = TcpStream::connect(("127.0.0.1", port)).await.unwrap();
        let request = http_request(port, method, name, &body);
        stream.write_all(request.as_bytes()).await.unwrap();
        let mut response = String::new();
        stream.read_to_string(&mut response).await.unwrap();
        let start = response.find("{\"").unwrap_or_else(|| panic!("{response}"));
        let end = response.rfind('}').unwrap();
        serde_json::from_str(&response[start..=end]).unwrap_or_else(|e| panic!("{e}: {response}"))
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn serve_http_streams_task_notifications_as_sse() {
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let store: Arc<dyn TaskStore> = Arc::new(MemoryTaskStore::new());
        let serving = tokio::spawn(
            mrtr::rmcp::McpServer::new(instance(&store)).serve_http(("127.0.0.1", port)),
        );
        for _ in 0..100 {
            if TcpStream::connect(("127.0.0.1", port)).await.is_ok() {
                break;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        let created = post(
            port,
            "tools/call",
            Some("approve"),
            json!({"_meta": meta(true), "name": "approve"}),
        )
        .await;
        let id = created["result"]["taskId"]
            .as_str()
            .unwrap_or_else(|| panic!("{created}"))
            .to_owned();

        let listen = json!({"jsonrpc": "2.0", "id": "listen-1", "method": "subscriptions/listen",
            "params": listen_params(&[&id])});
        let mut stream = TcpStream::connect(("127.0.0.1", port)).await.unwrap();
        let request = http_request(port, "subscriptions/listen", None, &listen);
        stream.write_all(request.as_bytes()).await.unwrap();
        let mut lines = BufReader::new(stream).lines();
        let mut head = String::new();
        while let Some(line) = lines.next_line().await.unwrap() {
            if line.is_empty() {
                break;
            }
            head.push_str(&line);
            head.push('\n');
        }
        assert!(head.starts_with("HTTP/1.1 200"), "{head}");
        assert!(
            head.to_ascii_lowercase()
                .contains("content-type: text/event-stream"),
            "{head}"
        );
        let mut events = Vec::new();
        let read = async {
            while let Some(line) = lines.next_line().await.unwrap() {
                let Some(data) = line.strip_prefix("data: ") else {
                    continue;
                };
                let message: Value = serde_json::from_str(data).unwrap();
                if message["params"]["status"] == "input_required" {
                    let key = message["params"]["inputRequests"]
                        .as_object()
                        .unwrap()
                        .keys()
                        .next()
                        .unwrap()
                        .clone();
                    let update = json!({"_meta": meta(true), "taskId": id,
                        "inputResponses": {(key): {"action": "accept", "content": {"ok": true}}}});
                    let ack = post(port, "tasks/update", Some(&id), update).await;
                    assert_eq!(ack["result"]["resultType"], "complete", "{ack}");
                }
                let last = message.get("result").is_some();
                events.push(message);
                if last {
                    break;
                }
            }
        };
        tokio::time::timeout(Duration::from_secs(10), read)
            .await
            .expect("the stream ends within 10 s");
        assert_eq!(
            events[0]["method"],
            "notifications/subscriptions/acknowledged"
        );
        assert_eq!(events[0]["params"]["notifications"]["taskIds"], json!([id]));
        let statuses: Vec<&str> = events[1..events.len() - 1]
            .iter()
            .map(|event| event["params"]["status"].as_str().unwrap())
            .collect();
        // The first is the task as it stood (`working` if its step had not parked yet).
        assert!(statuses.contains(&"input_required"), "{statuses:?}");
        assert_eq!(statuses.last(), Some(&"completed"), "{statuses:?}");
        let completed = &events[events.len() - 2]["params"];
        assert_eq!(completed["result"]["content"][0]["text"], "approved: true");
        assert_eq!(events.last().unwrap()["id"], "listen-1");
        serving.abort();
    }
}
