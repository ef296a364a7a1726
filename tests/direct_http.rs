//! The direct path of `McpServer::streamable_http` (stateless `tools/call`, `prompts/get` and
//! `resources/read` rounds) against rmcp's own stateless path, request by request: every request gets the same status, content type and body from both (the sealed
//! `requestState` aside, which is random per seal, and which each side must accept from the
//! other), whether the direct path answers it or hands it to rmcp. At the end, a flow run on
//! each path: authorization comes before a single-use state is redeemed.

mod support;

use std::sync::{Arc, Mutex};

use http_body_util::BodyExt;
use mrtr::rmcp::{McpServer, Principal, RetiredFieldsLayer};
use mrtr::{Form, PromptMessage, ResourceContents, Server, ToolError, elicit};
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use serde_json::{Value, json};
use support::Sink;
use tower::ServiceExt as _;

#[derive(Form)]
struct City {
    city: String,
}

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct TripArgs {
    traveller: String,
}

/// Asks where to, then which of three hotels.
#[mrtr::tool]
async fn trip(args: TripArgs) -> Result<String, ToolError> {
    let city = ask!(elicit::form::<City>("Where to?")).accepted()?.city;
    let hotel = ask!(elicit::choice(
        format!("Which hotel in {city}?"),
        ["Palace", "Harbour", "Garden"]
    ))
    .accepted()?;
    Ok(format!("{} stays at the {hotel} in {city}", args.traveller))
}

/// Sends the user to a page (a URL elicitation: rmcp writes a retired field for it).
#[mrtr::tool]
async fn sign_in() -> Result<String, ToolError> {
    let consent = ask!(elicit::url(
        "Sign in to continue",
        "https://example.com/sign-in"
    ));
    Ok(format!("consent: {}", consent.is_accepted()))
}

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct TopicArgs {
    topic: String,
}

/// Asks how strict, then builds the review prompt.
#[mrtr::prompt]
async fn review(args: TopicArgs) -> Result<Vec<PromptMessage>, ToolError> {
    let strictness = ask!(elicit::choice("How strict?", ["gentle", "strict"])).accepted()?;
    Ok(vec![PromptMessage::user(format!(
        "Review the {} code, {strictness}ly.",
        args.topic
    ))])
}

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct NoteArgs {
    id: String,
}

/// A note, read after saying why.
#[mrtr::resource(uri = "notes://{id}", mime_type = "text/plain")]
async fn note(args: NoteArgs) -> Result<ResourceContents, ToolError> {
    let reason = ask!(elicit::form::<City>("Why?")).accepted()?.city;
    Ok(ResourceContents::text(format!("note {} (for {reason})", args.id)).mime_type("text/plain"))
}

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct ForecastArgs {
    /// Mirrored in `Mcp-Param-Region` by HTTP clients (SEP-2243).
    #[schemars(extend("x-mcp-header" = "Region"))]
    region: String,
}

/// A tool with an argument mirrored in a header.
#[mrtr::tool]
async fn forecast(args: ForecastArgs) -> Result<String, ToolError> {
    Ok(format!("sunny in {}", args.region))
}

fn server() -> Server {
    Server::builder("direct", "1.0.0")
        .key_ring(support::ring(3))
        .tool(trip)
        .tool(sign_in)
        .tool(forecast)
        .prompt(review)
        .resource(note)
        .build()
        .unwrap()
}

fn config() -> StreamableHttpServerConfig {
    StreamableHttpServerConfig::default().with_json_response(true)
}

/// What `streamable_http` was before the direct path: rmcp's service, filtered.
/// rmcp's own service, with the `Origin` policy `streamable_http` applies by default (pages
/// of this machine only), so that both paths are held to the same rules.
fn rmcp_only(server: Server, config: StreamableHttpServerConfig) -> axum::Router {
    let handler = McpServer::new(server);
    let config = if config.allowed_origins.is_empty() {
        config.with_allowed_origins(mrtr::rmcp::LOCAL_ORIGINS)
    } else {
        config
    };
    let service = StreamableHttpService::new(
        move || Ok(handler.clone()),
        Arc::new(LocalSessionManager::default()),
        config
            .enforce_origin_validation()
            .with_legacy_session_mode(true),
    );
    let service = tower::Layer::layer(&RetiredFieldsLayer, service);
    axum::Router::new().nest_service("/mcp", service)
}

fn direct(server: Server, config: StreamableHttpServerConfig) -> axum::Router {
    axum::Router::new().nest_service("/mcp", McpServer::new(server).streamable_http(config))
}

/// One request as a test writes it: headers to set over the defaults (a `None` value removes
/// one; a name ending in `+` adds a second value), the body and the authenticated principal.
#[derive(Clone)]
struct Call {
    headers: Vec<(&'static str, Option<String>)>,
    body: String,
    principal: Option<&'static str>,
}

fn meta() -> Value {
    json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {"elicitation": {"form": {}, "url": {}}},
        "io.modelcontextprotocol/clientInfo": {"name": "direct-test", "version": "1"}
    })
}

impl Call {
    fn tool(name: &str, mut params: Value) -> Self {
        params["name"] = name.into();
        params["_meta"] = meta();
        let body = json!({"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": params});
        Self {
            headers: vec![("mcp-name", Some(name.to_owned()))],
            body: body.to_string(),
            principal: Some("alice"),
        }
    }

    /// A round of another method: `params` gets the `_meta`, `Mcp-Name` is `name`.
    fn round(method: &str, name: &str, mut params: Value) -> Self {
        params["_meta"] = meta();
        let body = json!({"jsonrpc": "2.0", "id": 8, "method": method, "params": params});
        Self {
            headers: vec![
                ("mcp-method", Some(method.to_owned())),
                ("mcp-name", Some(name.to_owned())),
            ],
            body: body.to_string(),
            principal: Some("alice"),
        }
    }

    fn header(mut self, name: &'static str, value: Option<&str>) -> Self {
        self.headers.push((name, value.map(str::to_owned)));
        self
    }

    fn body(mut self, body: impl Into<String>) -> Self {
        self.body = body.into();
        self
    }

    fn request(&self) -> http::Request<axum::body::Body> {
        let mut headers: Vec<(&str, Option<String>)> = vec![
            ("host", Some("localhost:8080".into())),
            ("content-type", Some("application/json".into())),
            ("accept", Some("application/json, text/event-stream".into())),
            ("mcp-protocol-version", Some("2026-07-28".into())),
            ("mcp-method", Some("tools/call".into())),
            ("content-length", Some(self.body.len().to_string())),
        ];
        for (name, value) in &self.headers {
            if name.ends_with('+') {
                headers.push((name.trim_end_matches('+'), value.clone()));
            } else {
                headers.retain(|(known, _)| known != name);
                headers.push((name, value.clone()));
            }
        }
        let mut builder = http::Request::post("/mcp");
        for (name, value) in headers {
            if let Some(value) = value {
                builder = builder.header(name, value);
            }
        }
        let mut request = builder
            .body(axum::body::Body::from(self.body.clone()))
            .unwrap();
        if let Some(principal) = self.principal {
            request
                .extensions_mut()
                .insert(Principal(principal.to_owned()));
        }
        request
    }
}

/// Status, content type and body of one response; the body as JSON when it is JSON.
#[derive(Clone, Debug, PartialEq)]
struct Answer {
    status: u16,
    content_type: Option<String>,
    body: Result<Value, String>,
}

impl Answer {
    fn state(&self) -> Value {
        self.body.as_ref().unwrap()["result"]["requestState"].clone()
    }

    /// The answer with its sealed state replaced by a mark.
    fn unsealed(mut self) -> Self {
        if let Ok(body) = &mut self.body
            && let Some(state) = body.pointer_mut("/result/requestState")
        {
            assert!(state.is_string(), "{state}");
            *state = json!("<sealed>");
        }
        self
    }
}

async fn send(app: &axum::Router, call: &Call) -> Answer {
    let response = tokio::time::timeout(
        std::time::Duration::from_secs(60),
        app.clone().oneshot(call.request()),
    )
    .await
    .expect("a response within 60 s")
    .unwrap();
    let status = response.status().as_u16();
    let content_type = response
        .headers()
        .get("content-type")
        .map(|value| value.to_str().unwrap().to_owned());
    let bytes = response.into_body().collect().await.unwrap().to_bytes();
    let text = String::from_utf8(bytes.to_vec()).unwrap();
    Answer {
        status,
        content_type,
        body: serde_json::from_str(&text).map_err(|_| text),
    }
}

/// How many requests the direct path answered since the last call (it logs each one).
fn direct_answers(sink: &Sink) -> usize {
    sink.take().matches("answered on the direct path").count()
}

struct Pair {
    direct: axum::Router,
    rmcp: axum::Router,
    sink: Sink,
}

impl Pair {
    fn new() -> (Self, tracing::subscriber::DefaultGuard) {
        Self::with(config())
    }

    fn with(config: StreamableHttpServerConfig) -> (Self, tracing::subscriber::DefaultGuard) {
        let sink = Sink::default();
        let writer = sink.clone();
        let subscriber = tracing_subscriber::fmt()
            .with_max_level(tracing::Level::DEBUG)
            .with_writer(move || writer.clone())
            .finish();
        let guard = tracing::subscriber::set_default(subscriber);
        let server = server();
        let pair = Self {
            direct: direct(server.clone(), config.clone()),
            rmcp: rmcp_only(server, config),
            sink,
        };
        (pair, guard)
    }

    /// Sends `call` to both; asserts they answer alike and that the direct path answered it
    /// itself exactly when `directly`. Returns the direct path's answer.
    async fn both(&self, call: &Call, directly: bool) -> Answer {
        let direct = send(&self.direct, call).await;
        assert_eq!(
            direct_answers(&self.sink),
            usize::from(directly),
            "took the direct path: expected {directly} for {}\n{direct:?}",
            call.body
        );
        let rmcp = send(&self.rmcp, call).await;
        assert_eq!(
            direct.clone().unsealed(),
            rmcp.unsealed(),
            "for {}",
            call.body
        );
        direct
    }
}

fn answer(key: &str, content: Value) -> Value {
    json!({key: {"action": "accept", "content": content}})
}

#[tokio::test]
async fn a_flow_gets_the_same_answers_and_each_path_resumes_the_others_states() {
    let (pair, _guard) = Pair::new();
    let arguments = json!({"traveller": "Bo"});
    let first = Call::tool("trip", json!({"arguments": arguments}));
    let round1 = pair.both(&first, true).await;
    assert_eq!(
        round1.body.as_ref().unwrap()["result"]["resultType"],
        "input_required"
    );

    // A state sealed on the direct path resumes through rmcp, and the other way round.
    let retry = |state: &Value, responses: Value| {
        Call::tool(
            "trip",
            json!({"arguments": arguments, "requestState": state, "inputResponses": responses}),
        )
    };
    let city = answer("city", json!({"city": "Porto"}));
    let round2 = pair.both(&retry(&round1.state(), city.clone()), true).await;
    let through_rmcp = send(&pair.rmcp, &retry(&round1.state(), city)).await;
    let hotel = answer("hotel", json!({"hotel": "Harbour"}));
    let last_direct = pair
        .both(&retry(&through_rmcp.state(), hotel.clone()), true)
        .await;
    let last_rmcp = send(&pair.rmcp, &retry(&round2.state(), hotel)).await;
    for last in [&last_direct, &last_rmcp] {
        let body = last.body.as_ref().unwrap();
        assert_eq!(
            body["result"]["content"][0]["text"], "Bo stays at the Harbour in Porto",
            "{body}"
        );
    }

    // An answer outside the choice is asked again, the same way on both.
    let wrong = answer("hotel", json!({"hotel": "Motel"}));
    let again = pair.both(&retry(&round2.state(), wrong), true).await;
    assert_eq!(
        again.body.as_ref().unwrap()["result"]["resultType"],
        "input_required"
    );
}

#[tokio::test]
async fn refusals_and_url_elicitations_read_the_same_on_both_paths() {
    let (pair, _guard) = Pair::new();
    let arguments = json!({"traveller": "Bo"});
    let round1 = pair
        .both(&Call::tool("trip", json!({"arguments": arguments})), true)
        .await;
    let state = round1.state();
    let city = answer("city", json!({"city": "Porto"}));
    let mut tampered = state.as_str().unwrap().to_owned();
    tampered.replace_range(10..11, if &tampered[10..11] == "A" { "B" } else { "A" });
    let refused = [
        // A tampered state, another principal, other arguments, another tool.
        Call::tool(
            "trip",
            json!({"arguments": arguments, "requestState": tampered, "inputResponses": city}),
        ),
        Call {
            principal: Some("mallory"),
            ..Call::tool(
                "trip",
                json!({"arguments": arguments, "requestState": state, "inputResponses": city}),
            )
        },
        Call::tool(
            "trip",
            json!({"arguments": {"traveller": "Eve"}, "requestState": state, "inputResponses": city}),
        ),
        Call::tool(
            "sign_in",
            json!({"requestState": state, "inputResponses": city}),
        ),
        // Arguments that are not the tool's, and a tool that does not exist.
        Call::tool("trip", json!({"arguments": {"who": "Bo"}})),
        Call::tool("nope", json!({})),
    ];
    for call in &refused {
        let answer = pair.both(call, true).await;
        assert!(
            answer.body.as_ref().unwrap().get("error").is_some()
                || answer.body.as_ref().unwrap()["result"]["isError"] == true,
            "{answer:?}"
        );
    }
    // The URL elicitation goes out without the retired `elicitationId` on both.
    let url = pair.both(&Call::tool("sign_in", json!({})), true).await;
    let params = &url.body.as_ref().unwrap()["result"]["inputRequests"]["consent"]["params"];
    assert_eq!(params["mode"], "url", "{params}");
    assert!(params.get("elicitationId").is_none(), "{params}");
}

#[tokio::test]
async fn whatever_the_direct_path_is_unsure_of_goes_to_rmcp() {
    let (pair, _guard) = Pair::new();
    let call = || Call::tool("trip", json!({"arguments": {"traveller": "Bo"}}));
    let body = call().body;
    let value: Value = serde_json::from_str(&body).unwrap();
    let with = |edit: &dyn Fn(&mut Value)| {
        let mut value = value.clone();
        edit(&mut value);
        value.to_string()
    };
    let delegated = [
        // Transport checks rmcp makes.
        call().header("host", Some("evil.example")),
        call().header("host", None),
        call().header("origin", Some("https://evil.example")),
        call().header("accept", Some("application/json")),
        call().header("accept", Some("application/json;q=0, text/event-stream")),
        call().header("content-type", Some("text/plain")),
        call().header("mcp-protocol-version", Some("2025-11-25")),
        call().header("mcp-protocol-version", None),
        call().header("mcp-method", None),
        call().header("mcp-method", Some("tools/list")),
        call().header("mcp-name", Some("sign_in")),
        call().header("mcp-name+", Some("trip")),
        call().header("mcp-param-traveller", Some("Bo")),
        call().header("mcp-session-id", Some("abc")),
        // A tool name that could be Base64-encoded in `Mcp-Name` (rmcp decodes those).
        Call::tool("=?base64?dHJpcA==?=", json!({})),
        // Bodies that are not exactly a 2026-07-28 tools/call.
        call().body("{not json"),
        call().body(with(&|value| value["method"] = json!("tools/list"))),
        call().body(with(&|value| value["jsonrpc"] = json!("1.0"))),
        call().body(with(&|value| value["extra"] = json!(1))),
        call().body(with(&|value| {
            value["params"]["_meta"]
                .as_object_mut()
                .unwrap()
                .remove("io.modelcontextprotocol/clientCapabilities");
        })),
        call().body(with(&|value| {
            value["params"]["_meta"]["io.modelcontextprotocol/protocolVersion"] =
                json!("2025-11-25")
        })),
        call().body(with(&|value| {
            value["params"].as_object_mut().unwrap().remove("_meta");
        })),
    ];
    for call in &delegated {
        pair.both(call, false).await;
    }
    // Still taken: a string id, and an `Accept` in another order and case.
    let string_id = call().body(with(&|value| value["id"] = json!("seven")));
    pair.both(&string_id, true).await;
    let accept = call().header("accept", Some("Text/Event-Stream,APPLICATION/JSON"));
    pair.both(&accept, true).await;
}

#[tokio::test]
async fn prompt_and_resource_rounds_get_the_same_answers() {
    let (pair, _guard) = Pair::new();
    let prompt = |extra: Value| {
        let mut params = json!({"name": "review", "arguments": {"topic": "Rust"}});
        params
            .as_object_mut()
            .unwrap()
            .extend(extra.as_object().unwrap().clone());
        Call::round("prompts/get", "review", params)
    };
    let asked = pair.both(&prompt(json!({})), true).await;
    assert_eq!(
        asked.body.as_ref().unwrap()["result"]["resultType"],
        "input_required"
    );
    let strict = answer("strictness", json!({"strictness": "strict"}));
    let retry = json!({"requestState": asked.state(), "inputResponses": strict});
    let done = pair.both(&prompt(retry), true).await;
    let text = &done.body.as_ref().unwrap()["result"]["messages"][0]["content"]["text"];
    assert_eq!(text, "Review the Rust code, strictly.", "{done:?}");

    let uri = "notes://n1";
    let read = |extra: Value| {
        let mut params = json!({"uri": uri});
        params
            .as_object_mut()
            .unwrap()
            .extend(extra.as_object().unwrap().clone());
        Call::round("resources/read", uri, params)
    };
    let asked = pair.both(&read(json!({})), true).await;
    let why = answer("reason", json!({"city": "audit"}));
    let retry = json!({"requestState": asked.state(), "inputResponses": why});
    let done = pair.both(&read(retry), true).await;
    let text = &done.body.as_ref().unwrap()["result"]["contents"][0]["text"];
    assert_eq!(text, "note n1 (for audit)", "{done:?}");

    // A state of the prompt presented to the resource, and a name that is not the URI.
    let prompt_state = pair.both(&prompt(json!({})), true).await.state();
    let replayed = json!({"requestState": prompt_state, "inputResponses": why});
    let refused = pair.both(&read(replayed), true).await;
    assert_eq!(
        refused.body.as_ref().unwrap()["error"]["code"],
        -32602,
        "{refused:?}"
    );
    let misnamed = read(json!({})).header("mcp-name", Some("notes://n2"));
    pair.both(&misnamed, false).await;
}

#[tokio::test]
async fn the_allowed_hosts_are_rmcps_rule() {
    let call = || Call::tool("trip", json!({"arguments": {"traveller": "Bo"}}));
    let hosts = config().with_allowed_hosts(["MCP.example.com:8443", "[::1]"]);
    let (pair, guard) = Pair::with(hosts);
    pair.both(&call().header("host", Some("mcp.example.com:8443")), true)
        .await;
    pair.both(&call().header("host", Some("[::1]:3000")), true)
        .await;
    let other_port = pair
        .both(&call().header("host", Some("mcp.example.com:9000")), false)
        .await;
    assert_eq!(other_port.status, 403);
    drop(guard);
    // A list of blank entries allows no host at all, not every host.
    let (pair, guard) = Pair::with(config().with_allowed_hosts([" "]));
    let refused = pair.both(&call(), false).await;
    assert_eq!(refused.status, 403);
    drop(guard);
    let (pair, _guard) = Pair::with(config().disable_allowed_hosts());
    pair.both(&call().header("host", Some("anything.example")), true)
        .await;
}

#[tokio::test]
async fn other_methods_and_json_off_are_rmcps() {
    let (pair, _guard) = Pair::new();
    let list = Call {
        headers: vec![("mcp-method", Some("tools/list".into()))],
        body:
            json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {"_meta": meta()}})
                .to_string(),
        principal: None,
    };
    let listed = pair.both(&list, false).await;
    assert_eq!(
        listed.body.as_ref().unwrap()["result"]["tools"]
            .as_array()
            .unwrap()
            .len(),
        3
    );

    // With event-stream responses asked for, rmcp answers every request.
    let streaming = axum::Router::new().nest_service(
        "/mcp",
        McpServer::new(server()).streamable_http(StreamableHttpServerConfig::default()),
    );
    let answer = send(
        &streaming,
        &Call::tool("trip", json!({"arguments": {"traveller": "Bo"}})),
    )
    .await;
    assert_eq!(direct_answers(&pair.sink), 0);
    assert_eq!(
        answer.content_type.as_deref(),
        Some("text/event-stream"),
        "{answer:?}"
    );
}

/// One axis of a generated request: the well-formed value nine times in ten, else one of the
/// `others` (`None`: the header or field is left out).
fn axis<T: Clone + std::fmt::Debug + 'static>(
    well_formed: T,
    others: Vec<T>,
) -> proptest::strategy::BoxedStrategy<T> {
    use proptest::prelude::*;
    prop_oneof![9 => Just(well_formed), 1 => proptest::sample::select(others)].boxed()
}

/// A request built from one pick per axis. `"<body>"` in a header stands for the body's
/// method or name, so that most requests agree with themselves.
#[derive(Clone, Debug)]
struct Generated {
    headers: Vec<(&'static str, Option<&'static str>)>,
    method: &'static str,
    name: &'static str,
    jsonrpc: &'static str,
    id: Value,
    arguments: Option<Value>,
    meta: Option<Value>,
    state: Option<Value>,
    responses: Option<Value>,
    extra_field: bool,
    raw_body: Option<&'static str>,
}

impl Generated {
    fn call(&self) -> Call {
        let mut params = json!({});
        let target = if self.method == "resources/read" {
            "uri"
        } else {
            "name"
        };
        params[target] = json!(self.name);
        for (field, value) in [
            ("arguments", &self.arguments),
            ("_meta", &self.meta),
            ("requestState", &self.state),
            ("inputResponses", &self.responses),
        ] {
            if let Some(value) = value {
                params[field] = value.clone();
            }
        }
        let mut body = json!({"jsonrpc": self.jsonrpc, "id": self.id, "method": self.method, "params": params});
        if self.extra_field {
            body["extra"] = json!(true);
        }
        let headers = self.headers.iter().map(|&(header, value)| {
            let value = match value {
                Some("<body>") if header.starts_with("mcp-method") => Some(self.method),
                Some("<body>") => Some(self.name),
                other => other,
            };
            (header, value.map(str::to_owned))
        });
        Call {
            headers: headers.collect(),
            body: self
                .raw_body
                .map_or_else(|| body.to_string(), str::to_owned),
            principal: Some("alice"),
        }
    }
}

/// Requests generated around a well-formed round, one to a few things off at a time, get the
/// same status, content type and body on both paths, whichever path answers.
#[test]
fn generated_requests_get_the_same_answers_on_both_paths() {
    use proptest::prelude::*;
    use proptest::test_runner::{Config, RngAlgorithm, TestRng, TestRunner};

    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let (pair, _guard) = Pair::new();
    let first = Call::tool("trip", json!({"arguments": {"traveller": "Bo"}}));
    let state = runtime.block_on(send(&pair.direct, &first)).state();
    direct_answers(&pair.sink);

    let some = |value: &'static str| Some(value);
    let headers = (
        axis(
            some("localhost:8080"),
            vec![
                None,
                some("LOCALHOST"),
                some("127.0.0.1"),
                some("[::1]:8080"),
                some("evil.example"),
            ],
        ),
        axis(
            None,
            vec![some("http://localhost:8080"), some("https://evil.example")],
        ),
        axis(
            some("application/json"),
            vec![
                None,
                some("application/json; charset=utf-8"),
                some("text/plain"),
            ],
        ),
        axis(
            some("application/json, text/event-stream"),
            vec![
                None,
                some("text/event-stream, application/json"),
                some("application/json"),
                some("*/*"),
                some("application/json;q=0, text/event-stream"),
            ],
        ),
        axis(
            some("2026-07-28"),
            vec![None, some("2025-11-25"), some(" 2026-07-28")],
        ),
        axis(
            some("<body>"),
            vec![None, some("tools/call"), some("prompts/get")],
        ),
        axis(
            some("<body>"),
            vec![
                None,
                some("trip"),
                some("other"),
                some("=?base64?dHJpcA==?="),
            ],
        ),
        axis(
            None,
            vec![
                Some(("mcp-session-id", "abc")),
                Some(("mcp-param-traveller", "Bo")),
                Some(("mcp-param-region", "Bo")),
                Some(("mcp-name+", "trip")),
                Some(("mcp-protocol-version+", "2026-07-28")),
                Some(("content-length", "0")),
                Some(("content-length+", "5")),
            ],
        ),
    );
    let full_meta = meta();
    let mut old_meta = meta();
    old_meta["io.modelcontextprotocol/protocolVersion"] = json!("2025-11-25");
    let mut no_capabilities = meta();
    no_capabilities["io.modelcontextprotocol/clientCapabilities"] = json!({});
    let body = (
        axis(
            "tools/call",
            vec!["prompts/get", "resources/read", "tools/list"],
        ),
        axis(
            "trip",
            vec![
                "review",
                "sign_in",
                "forecast",
                "nope",
                "notes://n1",
                "=?base64?dHJpcA==?=",
            ],
        ),
        axis("2.0", vec!["1.0"]),
        axis(
            json!(7),
            vec![json!("seven"), json!(null), json!(1.5), json!(-3)],
        ),
        axis(
            Some(json!({"traveller": "Bo"})),
            vec![
                None,
                Some(json!({"traveller": 5})),
                Some(json!({})),
                Some(json!("Bo")),
            ],
        ),
        axis(
            Some(full_meta),
            vec![None, Some(old_meta), Some(no_capabilities), Some(json!({}))],
        ),
        axis(
            None,
            vec![
                Some(state),
                Some(json!("m2.AAAA")),
                Some(json!(null)),
                Some(json!(42)),
            ],
        ),
        axis(
            None,
            vec![
                Some(answer("city", json!({"city": "Porto"}))),
                Some(json!({"city": "Porto"})),
                Some(json!([])),
            ],
        ),
        axis(false, vec![true]),
        axis(None, vec![Some("{not json"), Some(""), Some("[]")]),
    );
    let requests = (headers, body).prop_map(
        |(
            (host, origin, content_type, accept, version, method_header, name_header, extra),
            (method, name, jsonrpc, id, arguments, meta, state, responses, extra_field, raw_body),
        )| {
            let mut headers = vec![
                ("host", host),
                ("origin", origin),
                ("content-type", content_type),
                ("accept", accept),
                ("mcp-protocol-version", version),
                ("mcp-method", method_header),
                ("mcp-name", name_header),
            ];
            headers.extend(extra.map(|(header, value)| (header, Some(value))));
            Generated {
                headers,
                method,
                name,
                jsonrpc,
                id,
                arguments,
                meta,
                state,
                responses,
                extra_field,
                raw_body,
            }
        },
    );

    let taken = std::cell::Cell::new(0);
    let handed = std::cell::Cell::new(0);
    // A fixed seed: the same 400 requests every run, so a failure can be run again.
    let config = Config {
        cases: 400,
        failure_persistence: None,
        ..Config::default()
    };
    let rng = TestRng::deterministic_rng(RngAlgorithm::ChaCha);
    let mut runner = TestRunner::new_with_rng(config, rng);
    runner
        .run(&requests, |generated| {
            let call = generated.call();
            runtime.block_on(async {
                let direct = send(&pair.direct, &call).await;
                let counter = if direct_answers(&pair.sink) > 0 {
                    &taken
                } else {
                    &handed
                };
                counter.set(counter.get() + 1);
                let rmcp = send(&pair.rmcp, &call).await;
                prop_assert_eq!(direct.unsealed(), rmcp.unsealed());
                Ok(())
            })
        })
        .unwrap();
    // Neither path may go untested: the mix above sends each a good share.
    assert!(taken.get() >= 40, "direct path took {}", taken.get());
    assert!(handed.get() >= 40, "rmcp was handed {}", handed.get());
}

/// A tool that mirrors an argument in `Mcp-Param-Region`: every call goes to rmcp, which
/// checks the header against the argument, present or not.
#[tokio::test]
async fn calls_of_a_tool_with_mirrored_arguments_are_checked_by_rmcp() {
    let (pair, _guard) = Pair::new();
    let call = || Call::tool("forecast", json!({"arguments": {"region": "us-west1"}}));
    let matching = pair
        .both(&call().header("mcp-param-region", Some("us-west1")), false)
        .await;
    let text = &matching.body.as_ref().unwrap()["result"]["content"][0]["text"];
    assert_eq!(text, "sunny in us-west1", "{matching:?}");
    let encoded = call().header("mcp-param-region", Some("=?base64?dXMtd2VzdDE=?="));
    assert_eq!(pair.both(&encoded, false).await.status, 200);
    for refused in [
        call(),
        call().header("mcp-param-region", Some("eu-north1")),
        call().header("mcp-param-region", Some("=?base64?dXMtd2VzdDE?=")),
    ] {
        let answer = pair.both(&refused, false).await;
        assert_eq!(answer.status, 400, "{answer:?}");
        let code = &answer.body.as_ref().unwrap()["error"]["code"];
        assert_eq!(code, -32020, "{answer:?}");
    }
}

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct OptionalRegion {
    /// An `Option<String>` is `["string", "null"]` in the schema: no header can mirror it.
    #[schemars(extend("x-mcp-header" = "Region"))]
    region: Option<String>,
}

/// A tool whose annotation clients would reject.
#[mrtr::tool]
async fn loose_forecast(args: OptionalRegion) -> Result<String, ToolError> {
    Ok(format!("{:?}", args.region))
}

#[test]
fn an_annotation_clients_would_reject_fails_the_build_naming_the_argument() {
    let error = Server::builder("direct", "1.0.0")
        .key_ring(support::ring(3))
        .tool(loose_forecast)
        .build()
        .unwrap_err();
    let message = error.to_string();
    assert!(
        message.starts_with("tool \"loose_forecast\": argument `region`"),
        "{message}"
    );
}

// ---------------------------------------------------------------- authorization before redemption

/// Redeems a voucher: single use, so a state redeemed once is spent.
#[mrtr::tool(single_use)]
async fn voucher() -> Result<String, ToolError> {
    let city = ask!(elicit::form::<City>("Which city is the voucher for?"))
        .accepted()?
        .city;
    Ok(format!("voucher for {city} redeemed"))
}

/// Serves `voucher`, refusing every principal listed in `suspended` at each round.
fn voucher_server(suspended: &Arc<Mutex<Vec<String>>>) -> Server {
    let suspended = Arc::clone(suspended);
    Server::builder("vouchers", "1.0.0")
        .key_ring(support::ring(4))
        .tool(voucher)
        .authorize(move |access: mrtr::Access<'_>| {
            let principal = access.principal.unwrap_or_default();
            if suspended
                .lock()
                .unwrap()
                .iter()
                .any(|name| name == principal)
            {
                return Err(mrtr::Denied(format!("{principal} is suspended")));
            }
            Ok(())
        })
        .build()
        .unwrap()
}

fn json_body(answer: &Answer) -> &Value {
    answer
        .body
        .as_ref()
        .unwrap_or_else(|text| panic!("not JSON: {text}"))
}

/// A retry the authorization hook refuses must not spend the state: the hook runs before the
/// single-use store is asked, on the direct path and through rmcp alike.
#[tokio::test]
async fn over_http_a_denied_retry_leaves_a_single_use_state_to_its_principal() {
    for through_rmcp in [false, true] {
        let path = if through_rmcp { "rmcp" } else { "direct" };
        let suspended = Arc::new(Mutex::new(Vec::new()));
        let server = voucher_server(&suspended);
        let app = if through_rmcp {
            rmcp_only(server, config())
        } else {
            direct(server, config())
        };
        let first = send(&app, &Call::tool("voucher", json!({"arguments": {}}))).await;
        let asked = json_body(&first);
        assert_eq!(
            asked["result"]["resultType"], "input_required",
            "{path}: {asked}"
        );
        let retry = Call::tool(
            "voucher",
            json!({
                "arguments": {},
                "requestState": first.state(),
                "inputResponses": answer("city", json!({"city": "Oslo"})),
            }),
        );

        suspended.lock().unwrap().push("alice".to_owned());
        let denied = send(&app, &retry).await;
        let denied = json_body(&denied);
        assert_eq!(denied["result"]["isError"], true, "{path}: {denied}");
        assert_eq!(
            denied["result"]["content"][0]["text"], "not authorized: alice is suspended",
            "{path}"
        );
        // Another principal cannot present alice's state at all.
        let as_bob = Call {
            principal: Some("bob"),
            ..retry.clone()
        };
        let refused = send(&app, &as_bob).await;
        assert_eq!(json_body(&refused)["error"]["code"], -32602, "{path}");

        suspended.lock().unwrap().clear();
        let redeemed = send(&app, &retry).await;
        let redeemed = json_body(&redeemed);
        assert_eq!(
            redeemed["result"]["content"][0]["text"], "voucher for Oslo redeemed",
            "{path}: {redeemed}"
        );
        // Redeemed now, so spent: the state was single use all along.
        let replayed = send(&app, &retry).await;
        assert_eq!(json_body(&replayed)["error"]["code"], -32602, "{path}");
    }
}
