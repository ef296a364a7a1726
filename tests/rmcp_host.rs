//! mrtr inside rmcp, the official Rust SDK: rmcp's own client drives a multi-round tool over
//! an in-process duplex pipe (Discover lifecycle, automatic MRTR loop), and independent HTTP
//! POSTs drive it through rmcp's stateless streamable HTTP service.

mod support;

use std::sync::Arc;

use http_body_util::BodyExt;
use mrtr::rmcp::{McpServer, Principal};
use mrtr::{Context, Form, Server, ToolError, elicit};
use rmcp::model::{
    CallToolRequestParams, ClientConfig, ElicitRequestParams, ElicitResult, ElicitationAction,
    ProtocolVersion,
};
use rmcp::service::{ClientLifecycleMode, ClientServiceExt, RequestContext};
use rmcp::transport::streamable_http_server::session::never::NeverSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use rmcp::{ErrorData, RoleClient, ServiceExt};
use serde_json::{Value, json};
use support::Counters;
use tower::ServiceExt as _;

#[derive(Form)]
struct City {
    city: String,
}

#[derive(Form)]
struct Nights {
    nights: u8,
}

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct TripArgs {
    traveller: String,
}

/// Books a trip in two questions.
#[mrtr::tool]
async fn trip(args: TripArgs, cx: &Context) -> Result<String, ToolError> {
    cx.state::<Arc<Counters>>().hit("search");
    let city = ask!(elicit::form::<City>("Where to?")).accepted()?.city;
    cx.state::<Arc<Counters>>().hit("between");
    let nights = ask!(elicit::form::<Nights>("How many nights?"))
        .accepted()?
        .nights;
    Ok(format!(
        "{} goes to {city} for {nights} nights",
        args.traveller
    ))
}

/// Sends the user to a page, then checks completion on a later round.
#[mrtr::tool]
async fn sign_in() -> Result<String, ToolError> {
    let consent = ask!(elicit::url(
        "Sign in to continue",
        "https://example.com/sign-in"
    ));
    Ok(format!("consent: {}", consent.is_accepted()))
}

fn server(counters: &Arc<Counters>) -> Server {
    Server::builder("rmcp-host", "1.0.0")
        .key_ring(support::ring(9))
        .state(Arc::clone(counters))
        .tool(trip)
        .tool(sign_in)
        .build()
        .unwrap()
}

/// An rmcp client that answers elicitations like a user would.
struct User;

impl rmcp::ClientHandler for User {
    async fn create_elicitation(
        &self,
        request: ElicitRequestParams,
        _: RequestContext<RoleClient>,
    ) -> Result<ElicitResult, ErrorData> {
        let content = match request {
            ElicitRequestParams::FormElicitationParams { message, .. }
                if message.contains("Where") =>
            {
                json!({"city": "Lisbon"})
            }
            ElicitRequestParams::FormElicitationParams { .. } => json!({"nights": 3}),
            _ => return Ok(ElicitResult::new(ElicitationAction::Accept)),
        };
        Ok(ElicitResult::new(ElicitationAction::Accept).with_content(content))
    }

    fn get_info(&self) -> ClientConfig {
        serde_json::from_value(json!({
            "protocolVersion": "2026-07-28",
            "capabilities": {"elicitation": {"form": {}, "url": {}}},
            "clientInfo": {"name": "test-user", "version": "1.0.0"}
        }))
        .unwrap()
    }
}

#[tokio::test]
async fn rmcps_client_drives_a_multi_round_tool_over_a_duplex_pipe() {
    within(rmcps_client_drives_a_multi_round_tool_over_a_duplex_pipe_body()).await;
}

async fn rmcps_client_drives_a_multi_round_tool_over_a_duplex_pipe_body() {
    let counters = Arc::new(Counters::default());
    let (client_io, server_io) = tokio::io::duplex(64 * 1024);
    let mcp = McpServer::new(server(&counters));
    tokio::spawn(async move {
        let running = mcp.serve(server_io).await.unwrap();
        let _ = running.waiting().await;
    });
    let client = User
        .serve_with_lifecycle(
            client_io,
            ClientLifecycleMode::Discover {
                preferred_versions: vec![ProtocolVersion::V_2026_07_28],
            },
        )
        .await
        .unwrap();
    let arguments = json!({"traveller": "Ada"}).as_object().unwrap().clone();
    let result = client
        .call_tool(CallToolRequestParams::new("trip").with_arguments(arguments))
        .await
        .unwrap();
    let text = serde_json::to_value(&result).unwrap()["content"][0]["text"].clone();
    assert_eq!(text, "Ada goes to Lisbon for 3 nights");
    assert_eq!(
        (counters.get("search"), counters.get("between")),
        (1, 1),
        "each step ran once"
    );
    client.cancel().await.unwrap();
}

/// rmcp 3.11 writes the retired `elicitationId` in URL-mode elicitations: filter responses.
async fn strip_retired_fields(response: axum::response::Response) -> axum::response::Response {
    let (mut parts, body) = response.into_parts();
    let bytes = axum::body::to_bytes(body, usize::MAX)
        .await
        .unwrap_or_default();
    parts.headers.remove(http::header::CONTENT_LENGTH);
    let filtered = mrtr::rmcp::strip_retired_fields_from_bytes(&bytes);
    axum::response::Response::from_parts(parts, axum::body::Body::from(filtered))
}

fn http_app(server: Server) -> axum::Router {
    let service = StreamableHttpService::new(
        move || Ok(McpServer::new(server.clone())),
        Arc::new(NeverSessionManager::default()),
        StreamableHttpServerConfig::default()
            .with_json_response(true)
            .with_legacy_session_mode(false),
    );
    axum::Router::new()
        .nest_service("/mcp", service)
        .layer(axum::middleware::map_response(strip_retired_fields))
}

/// One independent HTTP POST, as a load-balanced client would send it.
async fn post(
    app: &axum::Router,
    id: u64,
    name: &str,
    mut params: Value,
    principal: Option<&str>,
) -> (Value, String) {
    params["name"] = name.into();
    params["_meta"] = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {"elicitation": {"form": {}, "url": {}}},
        "io.modelcontextprotocol/clientInfo": {"name": "http-test", "version": "1"}
    });
    let body = json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": params});
    let mut request = http::Request::post("/mcp")
        .header("host", "localhost")
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("mcp-protocol-version", "2026-07-28")
        .header("mcp-method", "tools/call")
        .header("mcp-name", name)
        .body(axum::body::Body::from(body.to_string()))
        .unwrap();
    if let Some(principal) = principal {
        request
            .extensions_mut()
            .insert(Principal(principal.to_owned()));
    }
    // A hang fails the test instead of stalling CI.
    let bytes = tokio::time::timeout(std::time::Duration::from_secs(60), async {
        let response = app.clone().oneshot(request).await.unwrap();
        response.into_body().collect().await.unwrap().to_bytes()
    })
    .await
    .expect("the HTTP response within 60 s");
    let raw = String::from_utf8(bytes.to_vec()).unwrap();
    (
        serde_json::from_str(&raw).unwrap_or_else(|_| panic!("not JSON: {raw}")),
        raw,
    )
}

#[tokio::test]
async fn independent_http_posts_run_the_rounds_and_rebinding_is_refused() {
    let counters = Arc::new(Counters::default());
    let app = http_app(server(&counters));
    let args = json!({"arguments": {"traveller": "Bo"}});
    let (round1, _) = post(&app, 1, "trip", args.clone(), Some("alice")).await;
    assert_eq!(round1["result"]["resultType"], "input_required", "{round1}");
    let state = round1["result"]["requestState"].clone();

    let mut retry = args.clone();
    retry["inputResponses"] = json!({"city": {"action": "accept", "content": {"city": "Porto"}}});
    retry["requestState"] = state.clone();
    // The same state, presented for another tool, other arguments or another principal.
    let (other_tool, _) = post(
        &app,
        2,
        "sign_in",
        json!({"requestState": state, "inputResponses": retry["inputResponses"]}),
        Some("alice"),
    )
    .await;
    let mut other_args = retry.clone();
    other_args["arguments"] = json!({"traveller": "Mallory"});
    let (other_arguments, _) = post(&app, 3, "trip", other_args, Some("alice")).await;
    let (other_principal, _) = post(&app, 4, "trip", retry.clone(), Some("mallory")).await;
    for refused in [&other_tool, &other_arguments, &other_principal] {
        assert_eq!(refused["error"]["code"], -32602, "{refused}");
    }

    let (round2, _) = post(&app, 5, "trip", retry, Some("alice")).await;
    assert_eq!(round2["result"]["resultType"], "input_required", "{round2}");
    let mut last = args;
    last["inputResponses"] = json!({"nights": {"action": "accept", "content": {"nights": 2}}});
    last["requestState"] = round2["result"]["requestState"].clone();
    let (round3, _) = post(&app, 6, "trip", last, Some("alice")).await;
    assert_eq!(
        round3["result"]["content"][0]["text"], "Bo goes to Porto for 2 nights",
        "{round3}"
    );
    assert_eq!(round3["result"]["resultType"], "complete");
    assert_eq!(counters.get("between"), 1);
}

#[tokio::test]
async fn no_retired_field_goes_on_the_wire() {
    let counters = Arc::new(Counters::default());
    let app = http_app(server(&counters));
    let (round1, raw) = post(&app, 1, "sign_in", json!({}), None).await;
    let request = &round1["result"]["inputRequests"]["consent"];
    assert_eq!(request["method"], "elicitation/create", "{round1}");
    assert_eq!(request["params"]["mode"], "url");
    assert_eq!(request["params"]["url"], "https://example.com/sign-in");
    for retired in [
        "elicitationId",
        "elicitation_id",
        "-32042",
        "\"jsonrpc\":\"2.0\",\"method\"",
    ] {
        assert!(!raw.contains(retired), "{retired} in {raw}");
    }
    let mut retry = json!({"inputResponses": {"consent": {"action": "accept"}}});
    retry["requestState"] = round1["result"]["requestState"].clone();
    let (round2, _) = post(&app, 2, "sign_in", retry, None).await;
    assert_eq!(
        round2["result"]["content"][0]["text"], "consent: true",
        "{round2}"
    );
}

#[tokio::test]
async fn without_legacy_a_2025_11_25_client_is_refused_clearly() {
    within(without_legacy_a_2025_11_25_client_is_refused_clearly_body()).await;
}

/// `McpServer::without_legacy`: only 2026-07-28 is negotiated (by default a 2025-era session
/// is served: tests/legacy_rmcp.rs).
async fn without_legacy_a_2025_11_25_client_is_refused_clearly_body() {
    let counters = Arc::new(Counters::default());
    let (client_io, server_io) = tokio::io::duplex(64 * 1024);
    let mcp = McpServer::new(server(&counters)).without_legacy();
    tokio::spawn(async move {
        if let Ok(running) = mcp.serve(server_io).await {
            let _ = running.waiting().await;
        }
    });
    let legacy: rmcp::model::ClientConfig = serde_json::from_value(json!({
        "protocolVersion": "2025-11-25", "capabilities": {"elicitation": {}}, "clientInfo": {"name": "old", "version": "1"}
    }))
    .unwrap();
    // Refused at the handshake, with the versions this server speaks.
    let error = legacy
        .serve(client_io)
        .await
        .expect_err("a 2025-11-25 handshake is refused");
    let message = format!("{error:?}");
    assert!(
        message.contains("-32022")
            && message.contains("2026-07-28")
            && message.contains("2025-11-25"),
        "{message}"
    );
    assert_eq!(counters.get("search"), 0, "no code ran for the old client");
}

/// An rmcp server of the author's own, with an rmcp tool and the mrtr tools in one router.
struct Mixed {
    router: rmcp::handler::server::router::tool::ToolRouter<Mixed>,
}

impl rmcp::ServerHandler for Mixed {
    fn get_info(&self) -> rmcp::model::ServerConfig {
        serde_json::from_value(json!({"protocolVersion": "2026-07-28", "capabilities": {"tools": {}}, "serverInfo": {"name": "mixed", "version": "1"}})).unwrap()
    }

    async fn list_tools(
        &self,
        _: Option<rmcp::model::PaginatedRequestParams>,
        _: RequestContext<rmcp::RoleServer>,
    ) -> Result<rmcp::model::ListToolsResult, ErrorData> {
        Ok(rmcp::model::ListToolsResult::with_all_items(
            self.router.list_all(),
        ))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<rmcp::RoleServer>,
    ) -> Result<rmcp::model::CallToolResponse, ErrorData> {
        self.router
            .call(rmcp::handler::server::tool::ToolCallContext::new(
                self, request, context,
            ))
            .await
    }
}

#[tokio::test]
async fn mrtr_tools_mount_in_an_rmcp_tool_router_beside_rmcp_tools() {
    within(mrtr_tools_mount_in_an_rmcp_tool_router_beside_rmcp_tools_body()).await;
}

async fn mrtr_tools_mount_in_an_rmcp_tool_router_beside_rmcp_tools_body() {
    use rmcp::handler::server::router::tool::{ToolRoute, ToolRouter};
    let counters = Arc::new(Counters::default());
    let mut router = ToolRouter::<Mixed>::new();
    let schema = Arc::new(json!({"type": "object"}).as_object().unwrap().clone());
    router.add_route(ToolRoute::new_dyn(
        rmcp::model::Tool::new("ping", "An rmcp tool.", schema),
        |_| {
            let pong: rmcp::model::CallToolResult =
                serde_json::from_value(json!({"content": [{"type": "text", "text": "pong"}]}))
                    .unwrap();
            Box::pin(async move { Ok(pong.into()) })
        },
    ));
    for route in McpServer::new(server(&counters))
        .tool_routes::<Mixed>()
        .expect("every tool converts")
    {
        router.add_route(route);
    }
    let (client_io, server_io) = tokio::io::duplex(64 * 1024);
    tokio::spawn(async move {
        let running = Mixed { router }.serve(server_io).await.unwrap();
        let _ = running.waiting().await;
    });
    let client = User
        .serve_with_lifecycle(
            client_io,
            ClientLifecycleMode::Discover {
                preferred_versions: vec![ProtocolVersion::V_2026_07_28],
            },
        )
        .await
        .unwrap();
    let tools = client.list_all_tools().await.unwrap();
    let mut names: Vec<String> = tools.iter().map(|tool| tool.name.to_string()).collect();
    names.sort();
    assert_eq!(names, ["ping", "sign_in", "trip"]);
    let ping = client
        .call_tool(CallToolRequestParams::new("ping"))
        .await
        .unwrap();
    assert_eq!(
        serde_json::to_value(&ping).unwrap()["content"][0]["text"],
        "pong"
    );
    let arguments = json!({"traveller": "Cy"}).as_object().unwrap().clone();
    let booked = client
        .call_tool(CallToolRequestParams::new("trip").with_arguments(arguments))
        .await
        .unwrap();
    assert_eq!(
        serde_json::to_value(&booked).unwrap()["content"][0]["text"],
        "Cy goes to Lisbon for 3 nights"
    );
    client.cancel().await.unwrap();
}

/// `McpServer::streamable_http` filters SSE responses too (rmcp streams results as SSE unless
/// JSON responses are configured): no `elicitationId` reaches the client.
#[tokio::test]
async fn the_http_helper_filters_retired_fields_from_sse_responses() {
    let counters = Arc::new(Counters::default());
    let service = McpServer::new(server(&counters))
        .streamable_http(StreamableHttpServerConfig::default().with_json_response(false));
    let app = axum::Router::new().nest_service("/mcp", service);
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {
    "name": "sign_in",
    "_meta": {
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {"elicitation": {"form": {}, "url": {}}},
        "io.modelcontextprotocol/clientInfo": {"name": "sse-test", "version": "1"}
    }}});
    let request = http::Request::post("/mcp")
        .header("host", "localhost")
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("mcp-protocol-version", "2026-07-28")
        .header("mcp-method", "tools/call")
        .header("mcp-name", "sign_in")
        .body(axum::body::Body::from(body.to_string()))
        .unwrap();
    let response = tokio::time::timeout(std::time::Duration::from_secs(60), async {
        let response = app.oneshot(request).await.unwrap();
        let content_type = response.headers()["content-type"]
            .to_str()
            .unwrap()
            .to_owned();
        let bytes = response.into_body().collect().await.unwrap().to_bytes();
        (content_type, String::from_utf8(bytes.to_vec()).unwrap())
    })
    .await
    .expect("the response within 60 s");
    let (content_type, raw) = response;
    assert!(
        content_type.starts_with("text/event-stream"),
        "{content_type}"
    );
    let message = raw
        .lines()
        .find_map(|line| line.strip_prefix("data:"))
        .filter(|data| !data.trim().is_empty())
        .map(|data| serde_json::from_str::<Value>(data.trim()).unwrap())
        .unwrap_or_else(|| panic!("no data line in {raw}"));
    assert_eq!(
        message["result"]["inputRequests"]["consent"]["params"]["mode"], "url",
        "{raw}"
    );
    assert!(!raw.contains("elicitationId"), "{raw}");
}

/// A tool whose descriptor rmcp cannot take is an error naming it, not silently left out.
#[test]
fn tool_routes_refuses_a_tool_rmcp_cannot_describe() {
    use mrtr::BoxFuture;
    use mrtr::machine::{Machine, Outcome, Step, StepError, Tool, ToolDescriptor};
    use mrtr::token::Fingerprint;

    struct Odd;
    impl Machine for Odd {
        fn fingerprint(&self) -> Fingerprint {
            Fingerprint::of(b"odd")
        }
        fn step<'a>(&'a self, _: Step<'a>) -> BoxFuture<'a, Result<Outcome, StepError>> {
            Box::pin(async { Ok(Outcome::Failed("never".into())) })
        }
    }
    impl Tool for Odd {
        fn descriptor(&self) -> ToolDescriptor {
            // An input schema must be an object; `true` is valid JSON Schema but not for MCP.
            ToolDescriptor::new("odd", json!(true))
        }
    }
    struct Mine;
    let server = Server::builder("routes", "1").tool(Odd).build().unwrap();
    let Err(error) = McpServer::new(server).tool_routes::<Mine>() else {
        panic!("a tool rmcp cannot describe was accepted");
    };
    assert_eq!(error.tool, "odd");
    assert!(error.to_string().contains("\"odd\""), "{error}");
}

/// Fails the test instead of letting a hang stall CI.
async fn within<T>(work: impl std::future::Future<Output = T>) -> T {
    tokio::time::timeout(std::time::Duration::from_secs(60), work)
        .await
        .expect("the test finished within 60 s")
}

/// Opened by the test; the slow tool waits for it.
#[derive(Default)]
struct Gate(tokio::sync::Notify);

/// Counts `dropped` when the tool's step future is dropped.
struct OnDrop(Arc<Counters>);

impl Drop for OnDrop {
    fn drop(&mut self) {
        self.0.hit("dropped");
    }
}

/// Waits for the gate, then records that code after the wait ran.
#[mrtr::tool]
async fn slow(cx: &Context) -> Result<String, ToolError> {
    let counters = Arc::clone(cx.state::<Arc<Counters>>());
    let _dropped = OnDrop(Arc::clone(&counters));
    cx.state::<Arc<Gate>>().0.notified().await;
    counters.hit("after");
    Ok("finished".into())
}

/// rmcp's cancellation (here: the client's request timeout, which sends
/// `notifications/cancelled`) drops the running step: nothing after its `.await` runs.
#[tokio::test]
async fn a_cancelled_rmcp_request_drops_its_step() {
    within(async {
        let counters = Arc::new(Counters::default());
        let gate = Arc::new(Gate::default());
        let server = Server::builder("cancel", "1.0.0")
            .key_ring(support::ring(9))
            .state(Arc::clone(&counters))
            .state(Arc::clone(&gate))
            .tool(slow)
            .build()
            .unwrap();
        let (client_io, server_io) = tokio::io::duplex(64 * 1024);
        let mcp = McpServer::new(server);
        tokio::spawn(async move {
            if let Ok(running) = mcp.serve(server_io).await {
                let _ = running.waiting().await;
            }
        });
        let client = User
            .serve_with_lifecycle(
                client_io,
                ClientLifecycleMode::Discover {
                    preferred_versions: vec![ProtocolVersion::V_2026_07_28],
                },
            )
            .await
            .unwrap();
        let request = rmcp::model::ClientRequest::CallToolRequest(rmcp::model::Request::new(
            CallToolRequestParams::new("slow"),
        ));
        let mut options = rmcp::service::PeerRequestOptions::no_options();
        options.timeout = Some(std::time::Duration::from_millis(100));
        let handle = client
            .peer()
            .send_request_with_option(request, options)
            .await
            .unwrap();
        assert!(
            handle.await_response().await.is_err(),
            "timed out and cancelled"
        );
        // The server drops the step when the cancellation arrives.
        while counters.get("dropped") == 0 {
            tokio::time::sleep(std::time::Duration::from_millis(10)).await;
        }
        gate.0.notify_waiters();
        tokio::task::yield_now().await;
        assert_eq!(
            counters.get("after"),
            0,
            "code after the cancelled await ran"
        );
        client.cancel().await.unwrap();
    })
    .await;
}

/// `inputResponses: null` is -32602 through `Server::handle`, but rmcp parses params into an
/// `Option` before mrtr sees them: through rmcp it is absent, and the question is asked again
/// (documented in the README; neither path takes an answer from it).
#[tokio::test]
async fn a_null_input_responses_through_rmcp_is_absent() {
    let counters = Arc::new(Counters::default());
    let app = http_app(server(&counters));
    let args = json!({"arguments": {"traveller": "Cy"}});
    let (round1, _) = post(&app, 1, "trip", args.clone(), None).await;
    let mut retry = args;
    retry["inputResponses"] = Value::Null;
    retry["requestState"] = round1["result"]["requestState"].clone();
    let (again, _) = post(&app, 2, "trip", retry.clone(), None).await;
    assert_eq!(again["result"]["resultType"], "input_required", "{again}");
    assert!(
        again["result"]["inputRequests"]["city"].is_object(),
        "{again}"
    );
    assert_eq!(counters.get("between"), 0);

    let direct = server(&counters)
        .handle(
            json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {
            "_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
                      "io.modelcontextprotocol/clientCapabilities": {"elicitation": {}}},
            "name": "trip", "arguments": {"traveller": "Cy"}, "inputResponses": null}}),
        )
        .await;
    assert_eq!(direct["error"]["code"], -32602, "{direct}");
}
