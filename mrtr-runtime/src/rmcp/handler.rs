//! rmcp's `ServerHandler` for [`McpServer`]: the listings and `tasks/*` forwarded to the mrtr
//! server as JSON, and the three round methods served the way their request came (see
//! [`McpServer::serve_round`]).

use std::borrow::Cow;

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CancelTaskParams, CompleteRequestParams,
    CompleteResult, GetPromptRequestParams, GetPromptResponse, GetTaskParams, GetTaskResult,
    ListPromptsResult, ListResourceTemplatesResult, ListResourcesResult, ListToolsResult,
    PaginatedRequestParams, ProtocolVersion, ReadResourceRequestParams, ReadResourceResponse,
    ServerConfig, UpdateTaskParams,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, ServerHandler};
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value};

use super::execution;
use super::mcp_server::{
    McpServer, cancelled, error, from_json, principal, request_capabilities, request_meta,
};
use super::round::{RoundParams, RoundResponse};
use crate::server::tool_entry;
use crate::telemetry::{JsonRpcId, RequestTrace};

impl McpServer {
    /// Runs one request through the mrtr engine, with the per-request `_meta` rmcp parsed.
    async fn forward<R: DeserializeOwned>(
        &self,
        method: &str,
        params: impl Serialize,
        context: &RequestContext<RoleServer>,
    ) -> Result<R, ErrorData> {
        // A 2025-era session: the machine runs here and asks the client (session_clients.rs).
        if let Some(session) = self.legacy_session(context) {
            return self.forward_legacy(method, params, context, session).await;
        }
        let mut params = match serde_json::to_value(params) {
            Ok(Value::Object(params)) => params,
            Ok(Value::Null) => Map::new(),
            _ => return Err(ErrorData::invalid_params("params must be an object", None)),
        };
        params.insert("_meta".into(), request_meta(context));
        let principal = principal(context);
        // rmcp cancels this token on `notifications/cancelled` (and when the HTTP stream
        // closes): the running step is dropped there, and nothing after its `.await` runs.
        let work = self
            .server
            .handle_request(method, Value::Object(params), principal.as_deref());
        let result = crate::server::until_cancelled(work, context.ct.cancelled())
            .await
            .ok_or_else(cancelled)?
            .map_err(error)?;
        from_json(result)
    }

    /// One of the three round methods, served the way its request came: on a 2025-era session
    /// the machine runs here whole and asks the client (session_clients.rs), always ending
    /// complete; any other request is one MRTR round, run straight from rmcp's typed params.
    async fn serve_round<P: RoundParams>(
        &self,
        mut params: P,
        context: &mut RequestContext<RoleServer>,
    ) -> Result<P::Response, ErrorData> {
        if let Some(session) = self.legacy_session(context) {
            let result = self
                .forward_legacy(P::METHOD.as_str(), params, context, session)
                .await?;
            return Ok(P::Response::complete(result));
        }
        let capabilities = request_capabilities(context)?;
        let principal = principal(context);
        let trace = RequestTrace {
            id: Some(JsonRpcId::of_rmcp(&context.id)),
            meta: Some(&context.meta.0.0),
        };
        let request = params.request(capabilities, principal.as_deref(), trace);
        // Boxed: rmcp moves the handler's future into a task of its own for every request,
        // and a round's future is kilobytes; a pointer is cheaper to move than the round.
        let reply = Box::pin(self.run_round(request, context.ct.cancelled())).await?;
        P::Response::from_reply(self, reply)
    }
}

impl ServerHandler for McpServer {
    /// 2026-07-28, and 2025-11-25 / 2025-06-18 sessions unless [`McpServer::without_legacy`]
    /// (then older clients are refused at the handshake rather than half-served).
    fn supported_protocol_versions(&self) -> Cow<'static, [ProtocolVersion]> {
        Cow::Borrowed(self.protocol_versions())
    }

    /// Built once, with the server: rmcp asks for it on every stateless request.
    fn get_info(&self) -> ServerConfig {
        (*self.config).clone()
    }

    /// `tasks/get` (SEP-2663); rmcp has refused it already if the request did not declare
    /// the tasks extension.
    async fn get_task(
        &self,
        request: GetTaskParams,
        context: RequestContext<RoleServer>,
    ) -> Result<GetTaskResult, ErrorData> {
        self.forward("tasks/get", request, &context).await
    }

    /// `tasks/update`: delivers answers to a task's pending questions (ack-only).
    async fn update_task(
        &self,
        request: UpdateTaskParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        let _: Value = self.forward("tasks/update", request, &context).await?;
        Ok(())
    }

    /// `tasks/cancel`: cooperative and idempotent (ack-only).
    async fn cancel_task(
        &self,
        request: CancelTaskParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        let _: Value = self.forward("tasks/cancel", request, &context).await?;
        Ok(())
    }

    async fn list_tools(
        &self,
        request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        let mut listed: Value = self.forward("tools/list", request, &context).await?;
        // rmcp's `Tool` has no `execution`: it travels in `_meta` to mrtr's byte filter.
        execution::carry_list_in_meta(&mut listed);
        from_json(listed)
    }

    /// A tool that mirrors arguments in `Mcp-Param-*` headers, so rmcp checks the headers
    /// against the arguments (SEP-2243); for the others there is nothing to check, and rmcp
    /// is spared building their `Tool` on every call.
    fn get_tool(&self, name: &str) -> Option<rmcp::model::Tool> {
        if !self.server.mirrors_param_headers(name) {
            return None;
        }
        let descriptor = self.server.tools().find(|tool| tool.name == name)?;
        serde_json::from_value(tool_entry(descriptor)).ok()
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        mut context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        self.serve_round(request, &mut context).await
    }

    async fn list_prompts(
        &self,
        request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListPromptsResult, ErrorData> {
        self.forward("prompts/list", request, &context).await
    }

    async fn get_prompt(
        &self,
        request: GetPromptRequestParams,
        mut context: RequestContext<RoleServer>,
    ) -> Result<GetPromptResponse, ErrorData> {
        self.serve_round(request, &mut context).await
    }

    async fn complete(
        &self,
        request: CompleteRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CompleteResult, ErrorData> {
        self.forward("completion/complete", request, &context).await
    }

    async fn list_resources(
        &self,
        request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, ErrorData> {
        self.forward("resources/list", request, &context).await
    }

    async fn list_resource_templates(
        &self,
        request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListResourceTemplatesResult, ErrorData> {
        self.forward("resources/templates/list", request, &context)
            .await
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        mut context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, ErrorData> {
        self.serve_round(request, &mut context).await
    }
}
