//! Every fixture the official MCP conformance suite asks of a 2026-07-28 server, written with
//! mrtr and served by rmcp over stateless streamable HTTP at `http://127.0.0.1:$PORT/mcp`.
//!
//! `PORT=3000 cargo run --features rmcp --example conformance_server`, then
//! `conformance/run.sh` (which does both) runs the suite against it.

use std::sync::Arc;

use mrtr::rmcp::McpServer;
use mrtr::{
    Answer, Context, Form, PromptMessage, Reply, SamplingRequest, Server, ToolError, elicit, roots,
    sample,
};
use rmcp::transport::streamable_http_server::session::never::NeverSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};

#[derive(Form)]
struct Name {
    /// Your name
    name: String,
}

#[derive(Form)]
struct Confirm {
    /// Confirm to continue
    ok: bool,
}

#[derive(Form)]
struct Color {
    /// Your favourite colour
    color: String,
}

#[derive(Form)]
struct UserContext {
    /// Context for the prompt
    context: String,
}

fn name_of(answer: Answer<Name>) -> String {
    answer
        .ok()
        .map_or_else(|| "unknown".into(), |name| name.name)
}

fn sampled(reply: Reply<mrtr::SampledMessage>) -> String {
    reply
        .ok()
        .map_or_else(|| "no answer".into(), |message| message.text())
}

/// Asks the user's name by form elicitation, then greets them.
#[mrtr::tool]
async fn test_input_required_result_elicitation() -> Result<String, ToolError> {
    let user_name = ask!(elicit::form::<Name>("What is your name?"));
    Ok(format!("Hello, {}!", name_of(user_name)))
}

/// Asks the client's model a question.
#[mrtr::tool]
async fn test_input_required_result_sampling() -> Result<String, ToolError> {
    let capital_question = ask!(sample(
        SamplingRequest::new(100).user("What is the capital of France?")
    ));
    Ok(format!("The model said: {}", sampled(capital_question)))
}

/// Asks the client for its roots.
#[mrtr::tool]
async fn test_input_required_result_list_roots() -> Result<String, ToolError> {
    let client_roots = ask!(roots());
    let count = client_roots.ok().map_or(0, |roots| roots.len());
    Ok(format!("The client has {count} root(s)."))
}

/// Asks for a confirmation; the state it keeps is sealed.
#[mrtr::tool]
async fn test_input_required_result_request_state() -> Result<String, ToolError> {
    let confirm = ask!(elicit::form::<Confirm>("Please confirm"));
    Ok(if confirm.accepted()?.ok {
        "state-ok".into()
    } else {
        "not confirmed".into()
    })
}

/// Asks by elicitation, sampling and roots in one round.
#[mrtr::tool]
async fn test_input_required_result_multiple_inputs() -> Result<String, ToolError> {
    let (user_name, greeting, client_roots) = ask!(
        user_name = elicit::form::<Name>("What is your name?"),
        greeting = sample(SamplingRequest::new(50).user("Write a short greeting.")),
        client_roots = roots()
    );
    let roots = client_roots.ok().map_or(0, |roots| roots.len());
    Ok(format!(
        "{} / {} / {roots} root(s)",
        name_of(user_name),
        sampled(greeting)
    ))
}

/// Two rounds of questions, each with its own state.
#[mrtr::tool]
async fn test_input_required_result_multi_round() -> Result<String, ToolError> {
    let step1 = ask!(elicit::form::<Name>("Step 1: what is your name?"));
    let name = name_of(step1);
    let step2 = ask!(elicit::form::<Color>(
        "Step 2: what is your favourite colour?"
    ));
    let color = step2
        .ok()
        .map_or_else(|| "none".into(), |color| color.color);
    Ok(format!("{name} likes {color}"))
}

/// Keeps a sealed state across one question; a tampered state is refused.
#[mrtr::tool]
async fn test_input_required_result_tampered_state() -> Result<String, ToolError> {
    let confirm = ask!(elicit::form::<Confirm>("Please confirm"));
    Ok(format!("confirmed: {}", confirm.accepted()?.ok))
}

/// Asks by whatever the client declared on this request: elicitation, else sampling, else roots.
#[mrtr::tool]
async fn test_input_required_result_capabilities(cx: &Context) -> Result<String, ToolError> {
    if cx.capabilities().elicitation_form() {
        let answer = ask!(answer = elicit::form::<Name>("What is your name?"));
        return Ok(format!("elicited {}", name_of(answer)));
    }
    if cx.capabilities().sampling() {
        let answer = ask!(answer = sample(SamplingRequest::new(50).user("What is your name?")));
        return Ok(format!("sampled {}", sampled(answer)));
    }
    let answer = ask!(answer = roots());
    Ok(format!(
        "{} root(s)",
        answer.ok().map_or(0, |roots| roots.len())
    ))
}

/// Needs sampling, which a client without it cannot give: `-32021`.
#[mrtr::tool]
async fn test_missing_capability() -> Result<String, ToolError> {
    let answer = ask!(answer = sample(SamplingRequest::new(10).user("Say hi.")));
    Ok(sampled(answer))
}

/// Asks by elicitation inside the response to the call, never as a request of its own.
#[mrtr::tool]
async fn test_streaming_elicitation() -> Result<String, ToolError> {
    let user_name = ask!(elicit::form::<Name>("What is your name?"));
    Ok(format!("Hello, {}!", name_of(user_name)))
}

/// Completes without sending log notifications (the request asked for none).
#[mrtr::tool]
async fn test_logging_tool() -> Result<String, ToolError> {
    Ok("done".into())
}

/// A prompt that asks for context first.
#[mrtr::prompt]
async fn test_input_required_result_prompt() -> Result<Vec<PromptMessage>, ToolError> {
    let user_context = ask!(elicit::form::<UserContext>(
        "What context should the prompt use?"
    ));
    let context = user_context
        .ok()
        .map_or_else(|| "none".into(), |answer| answer.context);
    Ok(vec![PromptMessage::user(format!(
        "Use this context: {context}"
    ))])
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

fn server() -> Result<Server, mrtr::BuildError> {
    Server::builder("mrtr-conformance", env!("CARGO_PKG_VERSION"))
        .tool(test_input_required_result_elicitation)
        .tool(test_input_required_result_sampling)
        .tool(test_input_required_result_list_roots)
        .tool(test_input_required_result_request_state)
        .tool(test_input_required_result_multiple_inputs)
        .tool(test_input_required_result_multi_round)
        .tool(test_input_required_result_tampered_state)
        .tool(test_input_required_result_capabilities)
        .tool(test_missing_capability)
        .tool(test_streaming_elicitation)
        .tool(test_logging_tool)
        .prompt(test_input_required_result_prompt)
        .build()
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let port: u16 = std::env::var("PORT")
        .ok()
        .and_then(|port| port.parse().ok())
        .unwrap_or(3000);
    let server = server()?;
    let service = StreamableHttpService::new(
        move || Ok(McpServer::new(server.clone())),
        Arc::new(NeverSessionManager::default()),
        StreamableHttpServerConfig::default()
            .with_json_response(true)
            .with_legacy_session_mode(false),
    );
    let router = axum::Router::new()
        .nest_service("/mcp", service)
        .layer(axum::middleware::map_response(strip_retired_fields));
    let listener = tokio::net::TcpListener::bind(("127.0.0.1", port)).await?;
    eprintln!("conformance server listening on http://127.0.0.1:{port}/mcp");
    axum::serve(listener, router).await?;
    Ok(())
}
