//! One MRTR round from rmcp's typed params. The params of `tools/call`, `prompts/get` and
//! `resources/read` become mrtr's one request type, [`RoundRequest`], without a JSON detour,
//! and the round's reply becomes rmcp's response type for the method. The mounted handler goes
//! through here both ways; the direct path reads its params itself (see `direct/pick.rs`) and
//! shapes its reply here.

use rmcp::ErrorData;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, GetPromptRequestParams, GetPromptResponse,
    InputResponses, JsonObject, ReadResourceRequestParams, ReadResourceResponse, ServerResult,
};
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value};

use super::convert;
use super::mcp_server::{McpServer, cancelled, error, from_json};
use crate::capabilities::ClientCapabilities;
use crate::server::{RoundMethod, RoundReply, RoundRequest, until_cancelled};
use crate::telemetry::RequestTrace;

/// rmcp's params of a method that runs a round.
pub(super) trait RoundParams: Serialize + Send {
    /// The method's response in rmcp's types.
    type Response: RoundResponse;
    /// The method.
    const METHOD: RoundMethod;
    /// This round's request: the params' arguments and answers are taken, the target and the
    /// state borrowed.
    fn request<'a>(
        &'a mut self,
        capabilities: ClientCapabilities,
        principal: Option<&'a str>,
        trace: RequestTrace<'a>,
    ) -> RoundRequest<'a>;
}

/// rmcp's response type of a method that runs a round.
pub(super) trait RoundResponse: Sized + Into<ServerResult> {
    /// The complete result a 2025-era session's call ends with.
    type CompleteResult: DeserializeOwned;
    /// The response carrying a complete result.
    fn complete(result: Self::CompleteResult) -> Self;
    /// The response for a round's reply.
    fn from_reply(server: &McpServer, reply: RoundReply) -> Result<Self, ErrorData>;
}

impl McpServer {
    /// Runs one round; the step is dropped, and the round answers "request cancelled", if
    /// `cancelled` resolves first.
    pub(super) async fn run_round(
        &self,
        request: RoundRequest<'_>,
        cancelled_by: impl Future<Output = ()>,
    ) -> Result<RoundReply, ErrorData> {
        until_cancelled(self.server.round(request), cancelled_by)
            .await
            .ok_or_else(cancelled)?
            .map_err(error)
    }
}

/// `inputResponses` as the engine reads them.
fn answers(responses: InputResponses) -> Map<String, Value> {
    responses.into_iter().collect()
}

/// The three params types differ only in their method, the field that names the target, and
/// whether they carry arguments.
macro_rules! round_params {
    ($params:ty => $response:ty, $method:ident, target: $target:ident, arguments: $arguments:expr) => {
        impl RoundParams for $params {
            type Response = $response;
            const METHOD: RoundMethod = RoundMethod::$method;

            fn request<'a>(
                &'a mut self,
                capabilities: ClientCapabilities,
                principal: Option<&'a str>,
                trace: RequestTrace<'a>,
            ) -> RoundRequest<'a> {
                let take_arguments: fn(&mut Self) -> Option<JsonObject> = $arguments;
                let arguments = take_arguments(self);
                RoundRequest {
                    method: Self::METHOD,
                    target: &self.$target,
                    arguments,
                    input_responses: self.input_responses.take().map(answers),
                    request_state: self.request_state.as_deref(),
                    capabilities,
                    principal,
                    on_session: false,
                    trace,
                }
            }
        }
    };
}

round_params!(CallToolRequestParams => CallToolResponse, CallTool, target: name,
    arguments: |params| params.arguments.take());
round_params!(GetPromptRequestParams => GetPromptResponse, GetPrompt, target: name,
    arguments: |params| params.arguments.take());
// A resource's arguments are its URI's variables, which the server matches.
round_params!(ReadResourceRequestParams => ReadResourceResponse, ReadResource, target: uri,
    arguments: |_| None);

impl RoundResponse for CallToolResponse {
    type CompleteResult = rmcp::model::CallToolResult;

    fn complete(result: Self::CompleteResult) -> Self {
        Self::Complete(result)
    }

    /// Tool results are converted field by field, without a JSON detour.
    fn from_reply(server: &McpServer, reply: RoundReply) -> Result<Self, ErrorData> {
        let info = server.server.info_json();
        Ok(match reply {
            RoundReply::Complete { result, .. } => {
                Self::Complete(convert::tool_result(result, info)?)
            }
            RoundReply::InputRequired { requests, state } => {
                Self::InputRequired(convert::input_required(requests, state, info)?)
            }
            RoundReply::Task(created) => Self::Task(from_json(created)?),
        })
    }
}

/// Prompts and resource reads: their results are shaped as JSON first (they are rarer than tool
/// results and have no field-by-field conversion), then read into rmcp's response.
macro_rules! shaped_response {
    ($response:ty, $complete:ty) => {
        impl RoundResponse for $response {
            type CompleteResult = $complete;

            fn complete(result: Self::CompleteResult) -> Self {
                Self::Complete(result)
            }

            fn from_reply(server: &McpServer, reply: RoundReply) -> Result<Self, ErrorData> {
                let input = matches!(reply, RoundReply::InputRequired { .. });
                let result = server.server.reply_json(reply);
                Ok(if input {
                    Self::InputRequired(from_json(result)?)
                } else {
                    Self::Complete(from_json(result)?)
                })
            }
        }
    };
}

shaped_response!(GetPromptResponse, rmcp::model::GetPromptResult);
shaped_response!(ReadResourceResponse, rmcp::model::ReadResourceResult);
