//! rmcp's own client drives the same tools in both generations: after an `initialize`
//! handshake (2025-11-25: the questions arrive as real requests while the tool runs) and in
//! the Discover lifecycle (2026-07-28: `input_required` rounds), over an in-process pipe and,
//! for sessions, over streamable HTTP.

#![allow(dead_code)]

#[path = "../examples/both_generations.rs"]
mod both_generations;
mod support;

use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use mrtr::LegacyOptions;
use mrtr::rmcp::McpServer;
#[allow(deprecated)]
use rmcp::model::{
    CallToolRequestParams, CallToolResult, CancelledNotificationParam, ClientConfig,
    CreateMessageRequestParams, CreateMessageResult, CustomNotification, ElicitRequestParams,
    ElicitResult, ElicitationAction, GetPromptRequestParams, ListRootsResult, ProtocolVersion,
};
use rmcp::service::{
    ClientLifecycleMode, ClientServiceExt, NotificationContext, RequestContext, RunningService,
};
use rmcp::transport::streamable_http_server::StreamableHttpServerConfig;
use rmcp::{ErrorData, RoleClient, ServiceExt};
use serde_json::{Value, json};
use support::streamable::{next_message, post};
use tower::ServiceExt as _;

/// A person at an rmcp client: answers each question like a user would, and records what
/// the server sent.
#[derive(Default)]
struct Person {
    capabilities: Value,
    /// Forms held until this many have arrived: proves a batch is sent at once.
    batch: Option<Arc<tokio::sync::Barrier>>,
    /// Never answer (for timeouts and cancellation); signalled when a question arrives.
    silent: Option<Arc<tokio::sync::Notify>>,
    numbers: AtomicU32,
    elicitations: Mutex<Vec<ElicitRequestParams>>,
    samplings: AtomicU32,
    notifications: Mutex<Vec<CustomNotification>>,
    cancelled: Mutex<Vec<CancelledNotificationParam>>,
}

impl Person {
    fn new() -> Self {
        Self {
            capabilities: json!({"elicitation": {"form": {}, "url": {}}, "sampling": {}, "roots": {}}),
            ..Self::default()
        }
    }
}

impl rmcp::ClientHandler for Person {
    async fn create_elicitation(
        &self,
        request: ElicitRequestParams,
        _: RequestContext<RoleClient>,
    ) -> Result<ElicitResult, ErrorData> {
        self.elicitations.lock().unwrap().push(request.clone());
        if let Some(asked) = &self.silent {
            asked.notify_one();
            std::future::pending::<()>().await;
        }
        let message = match &request {
            ElicitRequestParams::FormElicitationParams { message, .. } => message.clone(),
            ElicitRequestParams::UrlElicitationParams { .. } => {
                return Ok(ElicitResult::new(ElicitationAction::Accept));
            }
            _ => String::new(),
        };
        if let Some(barrier) = &self.batch {
            tokio::time::timeout(Duration::from_secs(10), barrier.wait())
                .await
                .map_err(|_| {
                    ErrorData::internal_error("the batch did not arrive together", None)
                })?;
        }
        let content = if message.starts_with("Who is coming") {
            json!({"guests": 3, "seating": "indoor"})
        } else if message.starts_with("Whose name") {
            json!({"name": "Cy"})
        } else if message.starts_with("Pick an even") {
            json!({"number": 5 + self.numbers.fetch_add(1, Ordering::SeqCst)})
        } else if message.starts_with("Which flight") {
            json!({"flight": "AF12"})
        } else if message.starts_with("Delete") {
            return Ok(ElicitResult::new(ElicitationAction::Decline));
        } else if message.starts_with("Which list") {
            json!({"list": "todo"})
        } else if message.starts_with("Where to") {
            json!({"city": "Kyoto"})
        } else {
            return Ok(ElicitResult::new(ElicitationAction::Cancel));
        };
        Ok(ElicitResult::new(ElicitationAction::Accept).with_content(content))
    }

    #[allow(deprecated)]
    async fn create_message(
        &self,
        _: CreateMessageRequestParams,
        _: RequestContext<RoleClient>,
    ) -> Result<CreateMessageResult, ErrorData> {
        self.samplings.fetch_add(1, Ordering::SeqCst);
        Ok(serde_json::from_value(json!({
            "role": "assistant", "content": {"type": "text", "text": "quiet disk"},
            "model": "m", "stopReason": "endTurn"
        }))
        .unwrap())
    }

    #[allow(deprecated)]
    async fn list_roots(
        &self,
        _: RequestContext<RoleClient>,
    ) -> Result<ListRootsResult, ErrorData> {
        Ok(serde_json::from_value(json!({"roots": [{"uri": "file:///work"}]})).unwrap())
    }

    async fn on_custom_notification(
        &self,
        notification: CustomNotification,
        _: NotificationContext<RoleClient>,
    ) {
        self.notifications.lock().unwrap().push(notification);
    }

    async fn on_cancelled(
        &self,
        params: CancelledNotificationParam,
        _: NotificationContext<RoleClient>,
    ) {
        self.cancelled.lock().unwrap().push(params);
    }

    fn get_info(&self) -> ClientConfig {
        serde_json::from_value(json!({
            "protocolVersion": "2025-11-25",
            "capabilities": self.capabilities,
            "clientInfo": {"name": "person", "version": "1.0.0"}
        }))
        .unwrap()
    }
}

/// Fails a hung test instead of stalling CI.
async fn within<T>(work: impl std::future::Future<Output = T>) -> T {
    tokio::time::timeout(Duration::from_secs(60), work)
        .await
        .expect("the test did not finish within 60 s")
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum Generation {
    /// `initialize`, 2025-11-25.
    Legacy,
    /// Discover, 2026-07-28.
    Modern,
}

async fn connect(
    mcp: McpServer,
    person: Person,
    generation: Generation,
) -> RunningService<RoleClient, Person> {
    let (client_io, server_io) = tokio::io::duplex(64 * 1024);
    tokio::spawn(async move {
        if let Ok(running) = mcp.serve(server_io).await {
            let _ = running.waiting().await;
        }
    });
    match generation {
        Generation::Legacy => person.serve(client_io).await.unwrap(),
        Generation::Modern => person
            .serve_with_lifecycle(
                client_io,
                ClientLifecycleMode::Discover {
                    preferred_versions: vec![ProtocolVersion::V_2026_07_28],
                },
            )
            .await
            .unwrap(),
    }
}

fn mcp() -> McpServer {
    McpServer::new(both_generations::server().unwrap())
}

async fn call(
    client: &RunningService<RoleClient, Person>,
    tool: &str,
    arguments: Value,
) -> CallToolResult {
    let arguments = arguments.as_object().cloned().unwrap_or_default();
    client
        .call_tool(CallToolRequestParams::new(tool.to_owned()).with_arguments(arguments))
        .await
        .unwrap()
}

fn text(result: &CallToolResult) -> String {
    serde_json::to_value(result).unwrap()["content"][0]["text"]
        .as_str()
        .unwrap_or_default()
        .to_owned()
}

#[tokio::test]
async fn rmcps_client_gets_the_same_answers_in_both_generations() {
    within(async {
        let mut seen = Vec::new();
        for generation in [Generation::Legacy, Generation::Modern] {
            let client = connect(mcp(), Person::new(), generation).await;
            let negotiated = client
                .peer()
                .peer_info()
                .map(|info| info.protocol_version.clone());
            let texts = vec![
                text(&call(&client, "book_table", json!({})).await),
                text(&call(&client, "pick_even", json!({})).await),
                text(&call(&client, "choose_flight", json!({"to": "Oslo"})).await),
                text(&call(&client, "delete_file", json!({"path": "x.txt"})).await),
                text(&call(&client, "haiku_and_roots", json!({})).await),
            ];
            let prompt = client
                .get_prompt(GetPromptRequestParams::new("plan_trip"))
                .await
                .unwrap();
            let prompt =
                serde_json::to_value(prompt).unwrap()["messages"][0]["content"]["text"].clone();
            let note = client
                .read_resource(rmcp::model::ReadResourceRequestParams::new("notes://bo"))
                .await
                .unwrap();
            let note = serde_json::to_value(note).unwrap()["contents"][0]["text"].clone();
            seen.push((generation, negotiated, texts, (prompt, note)));
            client.cancel().await.unwrap();
        }
        assert_eq!(
            seen[0].1.as_ref().map(ProtocolVersion::as_str),
            Some("2025-11-25"),
            "the first client negotiated a session"
        );
        assert_eq!(seen[0].2, seen[1].2, "same texts in both generations");
        assert_eq!(seen[0].3, seen[1].3);
        assert_eq!(
            seen[0].2,
            [
                "Table for 3 indoors, under Cy.",
                "6 is even (try 2).",
                "Booked AF12: Oslo at 09:10, 120 EUR.",
                "Kept x.txt: the user declined.",
                "quiet disk / 1 root(s)",
            ]
        );
        assert_eq!(seen[0].3.0, "Plan three days in Kyoto.");
        assert_eq!(seen[0].3.1, "bo's todo list is empty.");
    })
    .await;
}

#[tokio::test]
async fn a_2025_06_18_client_is_served_on_its_own_version() {
    within(async {
        struct Older(Person);
        impl rmcp::ClientHandler for Older {
            async fn create_elicitation(
                &self,
                request: ElicitRequestParams,
                context: RequestContext<RoleClient>,
            ) -> Result<ElicitResult, ErrorData> {
                self.0.create_elicitation(request, context).await
            }

            fn get_info(&self) -> ClientConfig {
                serde_json::from_value(json!({
                    "protocolVersion": "2025-06-18",
                    "capabilities": {"elicitation": {}},
                    "clientInfo": {"name": "older", "version": "1.0.0"}
                }))
                .unwrap()
            }
        }
        let (client_io, server_io) = tokio::io::duplex(64 * 1024);
        let mcp = mcp();
        tokio::spawn(async move {
            if let Ok(running) = mcp.serve(server_io).await {
                let _ = running.waiting().await;
            }
        });
        let client = Older(Person::new()).serve(client_io).await.unwrap();
        let negotiated = client.peer().peer_info().unwrap().protocol_version.clone();
        assert_eq!(negotiated.as_str(), "2025-06-18");
        let arguments = json!({"to": "Rome"}).as_object().cloned().unwrap();
        let result = client
            .call_tool(CallToolRequestParams::new("choose_flight").with_arguments(arguments))
            .await
            .unwrap();
        assert_eq!(text(&result), "Booked AF12: Rome at 09:10, 120 EUR.");
        client.cancel().await.unwrap();
    })
    .await;
}

#[tokio::test]
async fn a_batch_is_sent_to_the_client_at_once() {
    within(async {
        let person = Person {
            batch: Some(Arc::new(tokio::sync::Barrier::new(2))),
            ..Person::new()
        };
        let client = connect(mcp(), person, Generation::Legacy).await;
        // Each form is answered only once both have arrived: sequential asks would fail.
        let result = call(&client, "book_table", json!({})).await;
        assert_eq!(text(&result), "Table for 3 indoors, under Cy.");
        client.cancel().await.unwrap();
    })
    .await;
}

#[tokio::test]
async fn a_url_elicitation_has_an_id_and_its_completion_is_notified() {
    within(async {
        let client = connect(mcp(), Person::new(), Generation::Legacy).await;
        let result = call(&client, "sign_in", json!({})).await;
        assert_eq!(text(&result), "Signed in.");
        let person = client.service();
        let id = match person.elicitations.lock().unwrap().first() {
            Some(ElicitRequestParams::UrlElicitationParams {
                elicitation_id,
                url,
                ..
            }) => {
                assert_eq!(url, "https://example.com/sign-in");
                elicitation_id.clone()
            }
            other => panic!("expected a URL elicitation, got {other:?}"),
        };
        assert_eq!(id.len(), 32, "{id}");
        // The notification may land just after the result.
        for _ in 0..100 {
            if !person.notifications.lock().unwrap().is_empty() {
                break;
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        let notifications = person.notifications.lock().unwrap();
        assert_eq!(notifications.len(), 1);
        assert_eq!(
            notifications[0].method,
            "notifications/elicitation/complete"
        );
        assert_eq!(notifications[0].params, Some(json!({"elicitationId": id})));
    })
    .await;
}

#[tokio::test]
async fn an_undeclared_capability_is_a_tool_error_and_nothing_is_sent() {
    within(async {
        let person = Person {
            capabilities: json!({"elicitation": {}}),
            ..Person::new()
        };
        let client = connect(mcp(), person, Generation::Legacy).await;
        let result = call(&client, "haiku_and_roots", json!({})).await;
        assert_eq!(result.is_error, Some(true));
        let message = text(&result);
        assert!(
            message.contains("sampling") && message.contains("did not declare"),
            "{message}"
        );
        assert_eq!(client.service().samplings.load(Ordering::SeqCst), 0);
        // URL mode was not declared either (`elicitation: {}` is form mode only).
        let result = call(&client, "sign_in", json!({})).await;
        assert_eq!(result.is_error, Some(true));
        assert!(
            text(&result).contains("URL elicitation"),
            "{}",
            text(&result)
        );
        assert!(client.service().elicitations.lock().unwrap().is_empty());
    })
    .await;
}

#[tokio::test]
async fn a_client_that_never_answers_times_out_with_a_tool_error() {
    within(async {
        let person = Person {
            silent: Some(Arc::new(tokio::sync::Notify::new())),
            ..Person::new()
        };
        let mcp =
            mcp().with_legacy(LegacyOptions::new().client_timeout(Duration::from_millis(300)));
        let client = connect(mcp, person, Generation::Legacy).await;
        let result = call(&client, "delete_file", json!({"path": "y"})).await;
        assert_eq!(result.is_error, Some(true));
        let message = text(&result);
        assert!(
            message.contains("elicitation/create") && message.contains("did not answer within"),
            "{message}"
        );
    })
    .await;
}

#[tokio::test]
async fn cancelling_the_call_stops_the_machine_and_withdraws_its_question() {
    within(async {
        let asked = Arc::new(tokio::sync::Notify::new());
        let person = Person {
            silent: Some(Arc::clone(&asked)),
            ..Person::new()
        };
        let client = connect(mcp(), person, Generation::Legacy).await;
        let request = rmcp::model::ClientRequest::CallToolRequest(rmcp::model::Request::new(
            CallToolRequestParams::new("pick_even"),
        ));
        let handle = client
            .peer()
            .send_request_with_option(request, rmcp::service::PeerRequestOptions::no_options())
            .await
            .unwrap();
        let call_id = handle.id.clone();
        asked.notified().await;
        handle
            .cancel(Some("the user closed the chat".into()))
            .await
            .unwrap();
        // The server drops the machine and tells the client its question is withdrawn.
        let person = client.service();
        for _ in 0..200 {
            if !person.cancelled.lock().unwrap().is_empty() {
                break;
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        let cancelled = person.cancelled.lock().unwrap().clone();
        assert_eq!(cancelled.len(), 1, "{cancelled:?}");
        assert_ne!(
            cancelled[0].request_id,
            Some(call_id),
            "it names the question, not the call"
        );
        assert_eq!(
            person.elicitations.lock().unwrap().len(),
            1,
            "asked once, never again"
        );
    })
    .await;
}

// ------------------------------------------------------------ streamable HTTP sessions

#[tokio::test]
async fn a_2025_session_over_streamable_http_answers_requests_on_the_calls_stream() {
    within(async {
        let app = axum::Router::new().nest_service(
            "/mcp",
            mcp().streamable_http(StreamableHttpServerConfig::default()),
        );
        let initialize = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {"elicitation": {}},
            "clientInfo": {"name": "raw", "version": "1"}}});
        let response = app.clone().oneshot(post(initialize, None, "2025-11-25")).await.unwrap();
        let session = response.headers()["mcp-session-id"].to_str().unwrap().to_owned();
        let mut body = response.into_body();
        let init = next_message(&mut body, &mut String::new(), |m| m["id"] == 1).await;
        assert_eq!(init["result"]["protocolVersion"], "2025-11-25");
        let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
        app.clone()
            .oneshot(post(initialized, Some(&session), "2025-11-25"))
            .await
            .unwrap();

        let call = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
            "params": {"name": "delete_file", "arguments": {"path": "z.txt"}}});
        let response = app.clone().oneshot(post(call, Some(&session), "2025-11-25")).await.unwrap();
        let mut stream = response.into_body();
        let mut buffer = String::new();
        let ask = next_message(&mut stream, &mut buffer, |m| m["method"] == "elicitation/create").await;
        assert_eq!(ask["params"]["message"], "Delete z.txt?");
        assert_eq!(ask["params"]["requestedSchema"]["properties"]["sure"]["type"], "boolean");
        let answer = json!({"jsonrpc": "2.0", "id": ask["id"], "result": {"action": "accept", "content": {"sure": true}}});
        let accepted = app.clone().oneshot(post(answer, Some(&session), "2025-11-25")).await.unwrap();
        assert_eq!(accepted.status(), http::StatusCode::ACCEPTED);
        let result = next_message(&mut stream, &mut buffer, |m| m["id"] == 2).await;
        assert_eq!(result["result"]["content"][0]["text"], "Deleted z.txt.");
        assert!(result["result"].get("resultType").is_none(), "{result}");

        // A 2026-07-28 request on the same endpoint stays stateless: no session, an
        // input_required round.
        let modern = json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {
            "name": "delete_file", "arguments": {"path": "z.txt"},
            "_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
                "io.modelcontextprotocol/clientCapabilities": {"elicitation": {}}}}});
        let mut request = post(modern, None, "2026-07-28");
        request.headers_mut().insert("mcp-method", "tools/call".parse().unwrap());
        request.headers_mut().insert("mcp-name", "delete_file".parse().unwrap());
        let response = app.clone().oneshot(request).await.unwrap();
        assert!(response.headers().get("mcp-session-id").is_none());
        let mut body = response.into_body();
        let round = next_message(&mut body, &mut String::new(), |m| m["id"] == 3).await;
        assert_eq!(round["result"]["resultType"], "input_required", "{round}");
    })
    .await;
}

#[tokio::test]
async fn a_2025_request_without_a_session_cannot_be_asked_and_is_told_why() {
    within(async {
        use rmcp::transport::streamable_http_server::StreamableHttpService;
        use rmcp::transport::streamable_http_server::session::never::NeverSessionManager;
        // An endpoint built without sessions: a 2025-era request arrives statelessly.
        let mcp = mcp();
        let service = StreamableHttpService::new(
            move || Ok(mcp.clone()),
            Arc::new(NeverSessionManager::default()),
            StreamableHttpServerConfig::default().with_legacy_session_mode(false),
        );
        let app = axum::Router::new().nest_service("/mcp", service);
        let call = json!({"jsonrpc": "2.0", "id": 5, "method": "tools/call",
            "params": {"name": "delete_file", "arguments": {"path": "w"}}});
        let response = app.oneshot(post(call, None, "2025-11-25")).await.unwrap();
        let mut body = response.into_body();
        let result = next_message(&mut body, &mut String::new(), |m| m["id"] == 5).await;
        assert_eq!(result["result"]["isError"], true, "{result}");
        let message = result["result"]["content"][0]["text"].as_str().unwrap();
        assert!(message.contains("without a session"), "{message}");
    })
    .await;
}
