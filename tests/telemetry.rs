//! Round spans follow OpenTelemetry's semantic conventions for MCP: the attribute names are
//! checked here as a subscriber sees them, and, with the `opentelemetry` feature, as an
//! OpenTelemetry exporter receives them (the client's trace continued, the rounds of one flow
//! linked).

mod support;

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

use mrtr::{Form, Server, ToolError, elicit};
use serde_json::{Value, json};
use support::Client;
use tracing::field::{Field, Visit};
use tracing::span::{Attributes, Id, Record};
use tracing::{Event, Subscriber};
use tracing_subscriber::Layer;
use tracing_subscriber::layer::Context;
use tracing_subscriber::prelude::*;
use tracing_subscriber::registry::LookupSpan;

#[derive(Form)]
struct Login {
    name: String,
}

#[mrtr::tool]
async fn greet() -> Result<String, ToolError> {
    let login = ask!(elicit::form::<Login>("Who are you?")).accepted()?;
    Ok(format!("Hello, {}!", login.name))
}

fn server() -> Server {
    Server::builder("telemetry", "1.0.0")
        .key_ring(support::ring(7))
        .tool(greet)
        .build()
        .unwrap()
}

/// A span's or an event's fields, as text.
type Fields = BTreeMap<String, String>;

/// Records every closed span (by name) and every `mrtr::metrics` event, with their fields.
#[derive(Clone, Default)]
struct Recorder {
    closed: Arc<Mutex<Vec<(String, Fields)>>>,
    metrics: Arc<Mutex<Vec<Fields>>>,
}

struct Collect<'a>(&'a mut Fields);

impl Visit for Collect<'_> {
    fn record_str(&mut self, field: &Field, value: &str) {
        self.0.insert(field.name().to_owned(), value.to_owned());
    }
    fn record_debug(&mut self, field: &Field, value: &dyn std::fmt::Debug) {
        self.0.insert(field.name().to_owned(), format!("{value:?}"));
    }
}

impl<S: Subscriber + for<'a> LookupSpan<'a>> Layer<S> for Recorder {
    fn on_new_span(&self, attributes: &Attributes<'_>, id: &Id, context: Context<'_, S>) {
        let mut fields = Fields::new();
        attributes.record(&mut Collect(&mut fields));
        context.span(id).unwrap().extensions_mut().insert(fields);
    }

    fn on_record(&self, id: &Id, values: &Record<'_>, context: Context<'_, S>) {
        let span = context.span(id).unwrap();
        let mut extensions = span.extensions_mut();
        values.record(&mut Collect(extensions.get_mut::<Fields>().unwrap()));
    }

    fn on_event(&self, event: &Event<'_>, _: Context<'_, S>) {
        if event.metadata().target() == "mrtr::metrics" {
            let mut fields = Fields::new();
            event.record(&mut Collect(&mut fields));
            self.metrics.lock().unwrap().push(fields);
        }
    }

    fn on_close(&self, id: Id, context: Context<'_, S>) {
        let span = context.span(&id).unwrap();
        let fields = span.extensions_mut().remove::<Fields>().unwrap();
        self.closed
            .lock()
            .unwrap()
            .push((span.name().to_owned(), fields));
    }
}

impl Recorder {
    fn rounds(&self) -> Vec<Fields> {
        self.closed
            .lock()
            .unwrap()
            .iter()
            .filter(|(name, _)| name == "mrtr.round")
            .map(|(_, fields)| fields.clone())
            .collect()
    }
}

fn names(fields: &Fields) -> Vec<&str> {
    fields.keys().map(String::as_str).collect()
}

#[tokio::test]
async fn round_spans_carry_the_mcp_conventions_attribute_names() {
    let recorder = Recorder::default();
    let _guard = tracing::subscriber::set_default(tracing_subscriber::registry().with(
        recorder.clone().with_filter(
            tracing_subscriber::filter::Targets::new().with_target("mrtr", tracing::Level::DEBUG),
        ),
    ));

    let client = Client::new(server());
    let asked = client.call("greet", json!({}), None, None).await;
    let state = asked.state();
    let answers = json!({"login": {"action": "accept", "content": {"name": "Ada"}}});
    let done = client
        .call("greet", json!({}), Some(answers.clone()), Some(&state))
        .await;
    assert_eq!(done.text(), "Hello, Ada!");
    let mut tampered = state.clone();
    tampered.replace_range(10..11, if &state[10..11] == "A" { "B" } else { "A" });
    let refused = client
        .call("greet", json!({}), Some(answers), Some(&tampered))
        .await;
    assert_eq!(refused.0["error"]["code"], -32602, "{}", refused.0);

    let rounds = recorder.rounds();
    assert_eq!(rounds.len(), 3, "{rounds:#?}");
    let (first, second, third) = (&rounds[0], &rounds[1], &rounds[2]);
    assert_eq!(
        names(first),
        [
            "gen_ai.operation.name",
            "gen_ai.tool.name",
            "jsonrpc.request.id",
            "mcp.method.name",
            "mcp.protocol.version",
            "mrtr.duration_us",
            "mrtr.flow",
            "mrtr.keys",
            "mrtr.outcome",
            "mrtr.resume",
            "mrtr.round",
            "otel.kind",
            "otel.name",
        ],
        "{first:#?}"
    );
    assert_eq!(first["otel.name"], "tools/call greet");
    assert_eq!(first["otel.kind"], "server");
    assert_eq!(first["mcp.method.name"], "tools/call");
    assert_eq!(first["mcp.protocol.version"], "2026-07-28");
    assert_eq!(first["jsonrpc.request.id"], "1");
    assert_eq!(first["gen_ai.operation.name"], "execute_tool");
    assert_eq!(first["gen_ai.tool.name"], "greet");
    assert_eq!(first["mrtr.outcome"], "input_required");
    assert_eq!(first["mrtr.keys"], "login");
    assert_eq!(first["mrtr.round"], "1");

    assert_eq!(second["jsonrpc.request.id"], "2");
    assert_eq!(second["mrtr.outcome"], "complete");
    assert_eq!(second["mrtr.round"], "2");
    assert_eq!(second["mrtr.flow"], first["mrtr.flow"], "one flow");

    // A refused state: the conventions' error attributes, and no flow (it was never opened).
    assert_eq!(third["error.type"], "-32602");
    assert_eq!(third["rpc.response.status_code"], "-32602");
    assert_eq!(third["otel.status_code"], "ERROR");
    assert_eq!(third["mrtr.outcome"], "refused");
    assert!(!third.contains_key("mrtr.flow"), "{third:#?}");

    // One `mcp.server.operation.duration` measurement per round, with the method and the error.
    let metrics = recorder.metrics.lock().unwrap().clone();
    assert_eq!(metrics.len(), 3, "{metrics:#?}");
    for measurement in &metrics {
        let seconds: f64 = measurement["histogram.mcp.server.operation.duration"]
            .parse()
            .unwrap();
        assert!(seconds > 0.0 && seconds < 60.0, "{measurement:#?}");
        assert_eq!(measurement["mcp.method.name"], "tools/call");
    }
    assert!(!metrics[0].contains_key("error.type"), "{:#?}", metrics[0]);
    assert_eq!(metrics[2]["error.type"], "-32602");
}

#[tokio::test]
async fn a_tool_error_is_the_conventions_tool_error() {
    let recorder = Recorder::default();
    let _guard = tracing::subscriber::set_default(tracing_subscriber::registry().with(
        recorder.clone().with_filter(
            tracing_subscriber::filter::Targets::new().with_target("mrtr", tracing::Level::INFO),
        ),
    ));
    let client = Client::new(server());
    let asked = client.call("greet", json!({}), None, None).await;
    let declined = client
        .call(
            "greet",
            json!({}),
            Some(json!({"login": {"action": "decline"}})),
            Some(&asked.state()),
        )
        .await;
    assert_eq!(declined.result()["isError"], Value::Bool(true));
    let rounds = recorder.rounds();
    assert_eq!(rounds[1]["error.type"], "tool_error", "{:#?}", rounds[1]);
    assert_eq!(rounds[1]["otel.status_code"], "ERROR");
    assert!(!rounds[1].contains_key("rpc.response.status_code"));
}

#[cfg(feature = "opentelemetry")]
mod opentelemetry_export {
    use super::*;
    use opentelemetry::trace::{SpanId, SpanKind, TraceId, TracerProvider as _};
    use opentelemetry_sdk::trace::{InMemorySpanExporter, SdkTracerProvider};

    const TRACE_ID: &str = "4bf92f3577b34da6a3ce929d0e0e4736";
    const PARENT_ID: &str = "00f067aa0ba902b7";

    /// A round as a client that propagates its trace sends it.
    async fn call(client: &Client, id: u64, extra: Value) -> Value {
        let mut params = json!({
            "_meta": {
                "io.modelcontextprotocol/protocolVersion": "2026-07-28",
                "io.modelcontextprotocol/clientCapabilities": {"elicitation": {}},
                "traceparent": format!("00-{TRACE_ID}-{PARENT_ID}-01"),
            },
            "name": "greet",
            "arguments": {},
        });
        params
            .as_object_mut()
            .unwrap()
            .extend(extra.as_object().unwrap().clone());
        client
            .server
            .handle(json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": params}))
            .await
    }

    #[tokio::test]
    async fn rounds_continue_the_clients_trace_and_link_their_flow() {
        let exporter = InMemorySpanExporter::default();
        let provider = SdkTracerProvider::builder()
            .with_simple_exporter(exporter.clone())
            .build();
        let _guard = tracing::subscriber::set_default(
            tracing_subscriber::registry()
                .with(tracing_opentelemetry::layer().with_tracer(provider.tracer("test"))),
        );

        let client = Client::new(server());
        let asked = call(&client, 1, json!({})).await;
        let state = asked["result"]["requestState"].as_str().unwrap().to_owned();
        let done = call(
            &client,
            2,
            json!({
                "requestState": state,
                "inputResponses": {"login": {"action": "accept", "content": {"name": "Ada"}}},
            }),
        )
        .await;
        assert_eq!(done["result"]["resultType"], "complete", "{done}");

        let spans = exporter.get_finished_spans().unwrap();
        let rounds: Vec<_> = spans
            .iter()
            .filter(|span| span.name == "tools/call greet")
            .collect();
        assert_eq!(rounds.len(), 2, "{spans:#?}");
        let trace = TraceId::from_hex(TRACE_ID).unwrap();
        let parent = SpanId::from_hex(PARENT_ID).unwrap();
        for round in &rounds {
            assert_eq!(round.span_kind, SpanKind::Server);
            assert_eq!(round.span_context.trace_id(), trace, "the client's trace");
            assert_eq!(
                round.parent_span_id, parent,
                "the client's span is the parent"
            );
            assert_eq!(round.links.len(), 1, "{round:#?}");
        }
        let flow_link = |index: usize| rounds[index].links.links[0].span_context.trace_id();
        assert_eq!(flow_link(0), flow_link(1), "both rounds link to their flow");
        let flow = rounds[0]
            .attributes
            .iter()
            .find(|attribute| attribute.key.as_str() == "mrtr.flow")
            .map(|attribute| attribute.value.to_string())
            .unwrap();
        assert_eq!(
            flow_link(0).to_string(),
            flow,
            "the link is named by the flow id"
        );
    }
}

/// Both ways rmcp serves a round, the direct path of `streamable_http` and `McpServer` mounted
/// as the handler of rmcp's own service, give the span the request's id and protocol version.
#[tokio::test]
async fn over_http_each_serving_way_names_the_request() {
    use mrtr::rmcp::McpServer;
    use rmcp::transport::streamable_http_server::session::never::NeverSessionManager;
    use rmcp::transport::streamable_http_server::{
        StreamableHttpServerConfig, StreamableHttpService,
    };
    use tower::ServiceExt as _;

    let config = StreamableHttpServerConfig::default().with_json_response(true);
    let direct = axum::Router::new().nest_service(
        "/mcp",
        McpServer::new(server()).streamable_http(config.clone()),
    );
    let handler = McpServer::new(server());
    let mounted = axum::Router::new().nest_service(
        "/mcp",
        StreamableHttpService::new(
            move || Ok(handler.clone()),
            Arc::new(NeverSessionManager::default()),
            config
                .with_legacy_session_mode(false)
                .with_allowed_origins(mrtr::rmcp::LOCAL_ORIGINS),
        ),
    );
    for (way, app) in [("direct", direct), ("mounted", mounted)] {
        let recorder = Recorder::default();
        let _guard = tracing::subscriber::set_default(
            tracing_subscriber::registry().with(
                recorder.clone().with_filter(
                    tracing_subscriber::filter::Targets::new()
                        .with_target("mrtr", tracing::Level::INFO),
                ),
            ),
        );
        let body = json!({
            "jsonrpc": "2.0",
            "id": format!("{way}-7"),
            "method": "tools/call",
            "params": {
                "_meta": {
                    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
                    "io.modelcontextprotocol/clientCapabilities": {"elicitation": {}},
                },
                "name": "greet",
                "arguments": {},
            },
        });
        let request = http::Request::post("/mcp")
            .header("host", "localhost")
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream")
            .header("mcp-protocol-version", "2026-07-28")
            .header("mcp-method", "tools/call")
            .header("mcp-name", "greet")
            .body(axum::body::Body::from(body.to_string()))
            .unwrap();
        let response = app.oneshot(request).await.unwrap();
        assert_eq!(response.status(), 200, "{way}");
        let rounds = recorder.rounds();
        assert_eq!(rounds.len(), 1, "{way}: {rounds:#?}");
        assert_eq!(rounds[0]["jsonrpc.request.id"], format!("{way}-7"), "{way}");
        assert_eq!(rounds[0]["mcp.protocol.version"], "2026-07-28", "{way}");
        assert_eq!(rounds[0]["mrtr.outcome"], "input_required", "{way}");
    }
}
