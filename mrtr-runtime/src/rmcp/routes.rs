//! mrtr tools as routes of the author's own rmcp `ToolRouter`, next to rmcp's `#[tool]`s.

use rmcp::ServerHandler;
use rmcp::handler::server::router::tool::ToolRoute;
use rmcp::handler::server::tool::ToolCallContext;
use rmcp::model::CallToolRequestParams;

use super::execution;
use super::mcp_server::McpServer;
use crate::server::tool_entry;

impl McpServer {
    /// One rmcp tool route per mrtr tool, to mount mrtr tools in your own rmcp `ToolRouter`
    /// next to rmcp's `#[tool]`s. Each route runs the full mrtr round (verification, answers,
    /// capability checks, sealing) and answers with rmcp's own types.
    ///
    /// Fails, naming the tool, if a tool's descriptor does not convert to rmcp's `Tool` (for
    /// example an input schema that is not an object): a tool is never silently left out.
    ///
    /// rmcp 3.11's `Tool` has no `execution` field, so a task-capable tool's
    /// `execution.taskSupport` rides in its `_meta`, under `"mrtr/execution"`; mrtr's byte
    /// filter moves it back to the top level. Serve your router through [`stdio`](super::stdio) or wrap its
    /// HTTP service in [`RetiredFieldsLayer`](super::RetiredFieldsLayer): over rmcp's own transports, without the filter,
    /// clients see `_meta["mrtr/execution"]` and no `execution` (such a client still gets a
    /// task when it declares the extension, or `-32021` from a task-only tool).
    pub fn tool_routes<S: Send + Sync + 'static>(&self) -> Result<Vec<ToolRoute<S>>, RouteError> {
        let mut tools = Vec::new();
        for descriptor in self.server.tools() {
            let mut entry = tool_entry(descriptor);
            execution::carry_in_meta(&mut entry);
            let tool = serde_json::from_value::<rmcp::model::Tool>(entry).map_err(|reason| {
                RouteError {
                    tool: descriptor.name.clone(),
                    reason: reason.to_string(),
                }
            })?;
            tools.push(tool);
        }
        Ok(tools
            .into_iter()
            .map(|tool| {
                let mcp = self.clone();
                ToolRoute::new_dyn(tool, move |context: ToolCallContext<'_, S>| {
                    let mcp = mcp.clone();
                    let mut params = CallToolRequestParams::new(context.name.clone());
                    params.arguments = context.arguments;
                    params.input_responses = context.input_responses;
                    params.request_state = context.request_state;
                    let request_context = context.request_context;
                    Box::pin(async move { mcp.call_tool(params, request_context).await })
                })
            })
            .collect())
    }
}

/// A tool that [`McpServer::tool_routes`] could not turn into an rmcp route.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error(
    "tool {tool:?} cannot be served through rmcp: its descriptor does not fit rmcp's `Tool` ({reason})"
)]
pub struct RouteError {
    /// The tool's name.
    pub tool: String,
    /// What rmcp refused.
    pub reason: String,
}
