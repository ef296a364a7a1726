//! A tour of MRTR: an rmcp server serving a two-question mrtr tool, and rmcp's own client
//! answering as a scripted user, in one process. Every JSON-RPC message that crosses the pipe
//! is printed, so you can watch `input_required`, `inputRequests`, the sealed `requestState`
//! and the retries happen.
//!
//! Run it with `cargo run -p mrtr-demo`: a package of its own, so that it builds only what
//! it needs (not the test and benchmark dependencies of the workspace).

use std::io;
use std::pin::Pin;
use std::task::{Context as TaskContext, Poll};

use mrtr::rmcp::McpServer;
use mrtr::{Context, Form, Server, ToolError, elicit};
use rmcp::model::{
    CallToolRequestParams, ClientConfig, ElicitRequestParams, ElicitResult, ElicitationAction,
    ProtocolVersion,
};
use rmcp::service::{ClientLifecycleMode, ClientServiceExt, RequestContext};
use rmcp::{ErrorData, RoleClient, ServiceExt};
use serde_json::json;
use tokio::io::{AsyncRead, AsyncWrite, DuplexStream, ReadBuf};

#[derive(Form)]
struct Destination {
    /// Where to?
    city: String,
}

#[derive(Form)]
struct Nights {
    /// How many nights?
    #[form(minimum = 1, maximum = 30)]
    nights: u8,
}

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct TripArgs {
    /// Who is travelling
    traveller: String,
}

/// Plans a trip in two questions.
#[mrtr::tool]
async fn plan_trip(args: TripArgs, cx: &Context) -> Result<String, ToolError> {
    // Runs once, in the first round; `budget` is kept (sealed) for the rounds that follow.
    let budget = 100 * cx.round();
    let city = ask!(elicit::form::<Destination>("Where would you like to go?"))
        .accepted()?
        .city;
    let nights = ask!(elicit::form::<Nights>(format!(
        "How many nights in {city}?"
    )))
    .accepted()?
    .nights;
    Ok(format!(
        "{}: {nights} nights in {city}, budget {budget} EUR per night",
        args.traveller
    ))
}

/// The scripted user behind rmcp's client: answers each form it is shown.
struct User;

impl rmcp::ClientHandler for User {
    async fn create_elicitation(
        &self,
        request: ElicitRequestParams,
        _: RequestContext<RoleClient>,
    ) -> Result<ElicitResult, ErrorData> {
        let content = match &request {
            ElicitRequestParams::FormElicitationParams { message, .. }
                if message.starts_with("Where") =>
            {
                json!({"city": "Lisbon"})
            }
            _ => json!({"nights": 3}),
        };
        Ok(ElicitResult::new(ElicitationAction::Accept).with_content(content))
    }

    fn get_info(&self) -> ClientConfig {
        serde_json::from_value(json!({
            "protocolVersion": "2026-07-28",
            "capabilities": {"elicitation": {"form": {}}},
            "clientInfo": {"name": "tour-client", "version": "1.0.0"}
        }))
        .expect("a valid client config")
    }
}

/// The server's end of the pipe, printing each line (one JSON-RPC message) that passes.
struct Tap {
    inner: DuplexStream,
    read: Vec<u8>,
    written: Vec<u8>,
}

fn print_lines(buffer: &mut Vec<u8>, arrow: &str) {
    while let Some(end) = buffer.iter().position(|byte| *byte == b'\n') {
        let line: Vec<u8> = buffer.drain(..=end).collect();
        if let Ok(message) = serde_json::from_slice::<serde_json::Value>(&line) {
            let text = serde_json::to_string_pretty(&message).unwrap_or_default();
            println!(
                "{arrow} {}\n",
                text.replace('\n', &format!("\n{}", " ".repeat(arrow.len() + 1)))
            );
        }
    }
}

impl AsyncRead for Tap {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut TaskContext<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let before = buf.filled().len();
        let polled = Pin::new(&mut self.inner).poll_read(cx, buf);
        let fresh = buf.filled()[before..].to_vec();
        self.read.extend(fresh);
        print_lines(&mut self.read, "client ->");
        polled
    }
}

impl AsyncWrite for Tap {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut TaskContext<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        let polled = Pin::new(&mut self.inner).poll_write(cx, buf);
        if let Poll::Ready(Ok(written)) = polled {
            self.written.extend_from_slice(&buf[..written]);
            print_lines(&mut self.written, "client <-");
        }
        polled
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut TaskContext<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut TaskContext<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_shutdown(cx)
    }
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let server = Server::builder("tour", "1.0.0").tool(plan_trip).build()?;
    let (client_io, server_io) = tokio::io::duplex(64 * 1024);
    let tap = Tap {
        inner: server_io,
        read: Vec::new(),
        written: Vec::new(),
    };
    tokio::spawn(async move {
        if let Ok(running) = McpServer::new(server).serve(tap).await {
            let _ = running.waiting().await;
        }
    });

    let lifecycle = ClientLifecycleMode::Discover {
        preferred_versions: vec![ProtocolVersion::V_2026_07_28],
    };
    let client = User.serve_with_lifecycle(client_io, lifecycle).await?;
    let arguments = json!({"traveller": "Ada"})
        .as_object()
        .cloned()
        .unwrap_or_default();
    // rmcp's client loops on input_required by itself: it asks `User`, then retries.
    let result = client
        .call_tool(CallToolRequestParams::new("plan_trip").with_arguments(arguments))
        .await?;
    println!(
        "result: {}",
        serde_json::to_value(&result)?["content"][0]["text"]
    );
    client.cancel().await?;
    Ok(())
}
