//! Form fields reach a real client in the order they were declared, in `properties` and in
//! `required`: clients show the fields in property order. rmcp's client (Discover lifecycle,
//! automatic MRTR loop) talks over a TCP socket to `Server::handle` behind a line-per-message
//! host, and to `McpServer`; the test reads the JSON text the client received.

use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context as TaskContext, Poll};

use mrtr::rmcp::McpServer;
use mrtr::{Form, Server, ToolError, elicit};
use rmcp::model::{
    CallToolRequestParams, ClientConfig, ElicitRequestParams, ElicitResult, ElicitationAction,
    ProtocolVersion,
};
use rmcp::service::{ClientLifecycleMode, ClientServiceExt, RequestContext};
use rmcp::{ErrorData, RoleClient};
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncWriteExt, BufReader, ReadBuf};
use tokio::net::{TcpListener, TcpStream};

/// Declared neither alphabetically nor in reverse: `role`, `nickname`, `age`.
#[derive(Form)]
struct Profile {
    /// What you do
    role: String,
    /// What we call you
    nickname: Option<String>,
    /// How old you are
    age: u8,
}

/// Asks for a profile, then a multi-select named by its ask key.
#[mrtr::tool]
async fn onboard() -> Result<String, ToolError> {
    let profile = ask!(elicit::form::<Profile>("Who are you?")).accepted()?;
    let teams = ask!(elicit::choices("Which teams?", ["web", "data"])).accepted()?;
    Ok(format!(
        "{} ({}), {}: {}",
        profile.role,
        profile.age,
        profile.nickname.unwrap_or_default(),
        teams.join("+")
    ))
}

fn server() -> Server {
    Server::builder("form-order", "1.0.0")
        .key_ring(mrtr::token::KeyRing::with_signing_key(
            mrtr::token::KeyId::new("test").unwrap(),
            mrtr::token::SecretKey::from_bytes([7u8; 32]).unwrap(),
        ))
        .tool(onboard)
        .build()
        .unwrap()
}

/// The client's read half, copying every byte it reads.
struct Recorded<R> {
    inner: R,
    seen: Arc<Mutex<Vec<u8>>>,
}

impl<R: AsyncRead + Unpin> AsyncRead for Recorded<R> {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut TaskContext<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<std::io::Result<()>> {
        let before = buf.filled().len();
        let poll = Pin::new(&mut self.inner).poll_read(cx, buf);
        let fresh = buf.filled()[before..].to_vec();
        self.seen.lock().unwrap().extend_from_slice(&fresh);
        poll
    }
}

/// A user who fills the profile and picks a team.
struct User;

impl rmcp::ClientHandler for User {
    async fn create_elicitation(
        &self,
        request: ElicitRequestParams,
        _: RequestContext<RoleClient>,
    ) -> Result<ElicitResult, ErrorData> {
        let content = match request {
            ElicitRequestParams::FormElicitationParams { message, .. }
                if message.starts_with("Who") =>
            {
                json!({"role": "engineer", "nickname": "Ada", "age": 36})
            }
            _ => json!({"teams": ["data"]}),
        };
        Ok(ElicitResult::new(ElicitationAction::Accept).with_content(content))
    }

    fn get_info(&self) -> ClientConfig {
        serde_json::from_value(json!({
            "protocolVersion": "2026-07-28",
            "capabilities": {"elicitation": {"form": {}}},
            "clientInfo": {"name": "form-order", "version": "1.0.0"}
        }))
        .unwrap()
    }
}

/// A host of `Server::handle` on a TCP socket: one JSON-RPC message a line.
async fn serve_lines(listener: TcpListener, server: Server) {
    let (stream, _) = listener.accept().await.unwrap();
    let (read, mut write) = stream.into_split();
    let mut lines = BufReader::new(read).lines();
    while let Ok(Some(line)) = lines.next_line().await {
        let request: Value = serde_json::from_str(&line).unwrap();
        if request.get("id").is_none() {
            continue; // a notification: nothing to answer
        }
        let mut response = serde_json::to_string(&server.handle(request).await).unwrap();
        response.push('\n');
        if write.write_all(response.as_bytes()).await.is_err() {
            return;
        }
    }
}

/// Runs the tool with rmcp's client over TCP; returns the text of every message it received.
async fn client_run(host: impl FnOnce(TcpListener) -> tokio::task::JoinHandle<()>) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap();
    let _host = host(listener);
    let (read, write) = TcpStream::connect(address).await.unwrap().into_split();
    let seen = Arc::new(Mutex::new(Vec::new()));
    let recorded = Recorded {
        inner: read,
        seen: Arc::clone(&seen),
    };
    let client = User
        .serve_with_lifecycle(
            (recorded, write),
            ClientLifecycleMode::Discover {
                preferred_versions: vec![ProtocolVersion::V_2026_07_28],
            },
        )
        .await
        .unwrap();
    let result = client
        .call_tool(CallToolRequestParams::new("onboard"))
        .await
        .unwrap();
    let result = serde_json::to_value(&result).unwrap();
    assert_eq!(result["content"][0]["text"], "engineer (36), Ada: data");
    client.cancel().await.unwrap();
    String::from_utf8(seen.lock().unwrap().clone()).unwrap()
}

/// The position of each of `names` (as JSON strings) in `text` after `from`, which must rise.
fn assert_in_order(text: &str, from: &str, names: &[&str]) {
    let start = text
        .find(from)
        .unwrap_or_else(|| panic!("{from} not in {text}"));
    let mut last = start;
    for name in names {
        let quoted = format!("\"{name}\"");
        let at = start
            + text[start..]
                .find(&quoted)
                .unwrap_or_else(|| panic!("{name} not after {from} in {text}"));
        assert!(
            at >= last,
            "{name} comes before the field declared before it: {text}"
        );
        last = at;
    }
}

/// The JSON text of the received `input_required` result asking `key`.
fn asking<'a>(received: &'a str, key: &str) -> &'a str {
    received
        .lines()
        .find(|line| {
            line.contains("\"input_required\"")
                && line.contains(&format!("\"inputRequests\":{{\"{key}\""))
        })
        .unwrap_or_else(|| panic!("no input_required asking {key} in {received}"))
}

#[test]
fn derived_and_built_schemas_keep_declaration_order() {
    let derived = serde_json::to_string(&Profile::requested_schema()).unwrap();
    assert_in_order(&derived, "\"properties\"", &["role", "nickname", "age"]);
    assert!(
        derived.contains(r#""required":["role","age"]"#),
        "{derived}"
    );
    // A hand-built form: the order of the `field` calls.
    let mut built = mrtr::FormSchema::default();
    for name in ["zeta", "alpha", "mu"] {
        let mut property = serde_json::Map::new();
        property.insert("type".into(), "string".into());
        built.field(name, property, true);
    }
    let built = serde_json::to_string(&built.into_value()).unwrap();
    assert_in_order(&built, "\"properties\"", &["zeta", "alpha", "mu"]);
    assert!(
        built.contains(r#""required":["zeta","alpha","mu"]"#),
        "{built}"
    );
}

#[tokio::test]
async fn a_form_reaches_rmcps_client_in_declaration_order() {
    let received = client_run(|listener| tokio::spawn(serve_lines(listener, server()))).await;
    let profile = asking(&received, "profile");
    assert_in_order(profile, "\"properties\"", &["role", "nickname", "age"]);
    assert!(
        profile.contains(r#""required":["role","age"]"#),
        "{profile}"
    );
    // The multi-select's one property is named after its ask key.
    let teams = asking(&received, "teams");
    assert!(teams.contains(r#""properties":{"teams":"#), "{teams}");
    assert!(teams.contains(r#""required":["teams"]"#), "{teams}");
}

/// The same through `McpServer`, rmcp's server: rmcp's `ElicitationSchema` keeps the order the
/// schema was read in (`property_order`) and writes it back in that order.
#[tokio::test]
async fn a_form_reaches_rmcps_client_in_declaration_order_through_mcp_server() {
    let received = client_run(|listener| {
        tokio::spawn(async move {
            let (stream, _) = listener.accept().await.unwrap();
            let running = rmcp::ServiceExt::serve(McpServer::new(server()), stream)
                .await
                .unwrap();
            let _ = running.waiting().await;
        })
    })
    .await;
    let profile = asking(&received, "profile");
    assert_in_order(profile, "\"properties\"", &["role", "nickname", "age"]);
    assert!(
        profile.contains(r#""required":["role","age"]"#),
        "{profile}"
    );
    let teams = asking(&received, "teams");
    assert!(teams.contains(r#""properties":{"teams":"#), "{teams}");
}
