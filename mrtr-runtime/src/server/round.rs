//! One round of a `tools/call`, `prompts/get` or `resources/read`: find the target, run the
//! engine, and say how the round ended.

use serde_json::{Map, Value, json};

use super::instance::Server;
use super::method::RoundMethod;
use super::reply::RoundReply;
use super::request::RoundRequest;
use crate::author::results::{CallToolResult, ToolOutput};
use crate::engine::{RoundEnd, RoundInput, run_round};
use crate::machine::CacheHint;
use crate::protocol::RpcError;
use crate::task::{TASKS_EXTENSION, TaskSupport};

impl Server {
    /// Runs one round whose params were parsed already (by [`Server::handle`] from JSON, or
    /// by a host such as rmcp into its own types).
    pub(crate) async fn round(&self, request: RoundRequest<'_>) -> Result<RoundReply, RpcError> {
        match request.method {
            RoundMethod::CallTool => self.call_tool(request).await,
            RoundMethod::GetPrompt => self.get_prompt(request).await,
            RoundMethod::ReadResource => self.read_resource(request).await,
        }
    }

    async fn call_tool(&self, mut request: RoundRequest<'_>) -> Result<RoundReply, RpcError> {
        let name = request.target;
        let (descriptor, tool) = self
            .inner
            .tools
            .iter()
            .find(|(descriptor, _)| descriptor.name == name)
            .ok_or_else(|| RpcError::invalid_params(format!("unknown tool {name:?}")))?;
        let declared = request.capabilities.tasks() && !request.on_session;
        // A tool that only runs as a task refuses other 2026-07-28 clients before any of its
        // code runs; a 2025-era session runs it whole, as it runs every tool.
        if descriptor.task == TaskSupport::Required && !declared && !request.on_session {
            return Err(RpcError::missing_capability(
                json!({"extensions": {(TASKS_EXTENSION): {}}}),
                format!(
                    "tool {name:?} runs only as a task: declare the io.modelcontextprotocol/tasks \
                     extension in this request's clientCapabilities"
                ),
            ));
        }
        let arguments = Value::Object(request.arguments.take().unwrap_or_default());
        let (max_rounds, single_use) = (descriptor.max_rounds, descriptor.single_use);
        let principal = request.principal;
        let capabilities = request.capabilities.clone();
        let mut input = self.round_input(request, &arguments, max_rounds, single_use);
        input.to_task = declared && descriptor.task.allows_tasks();
        input.task_at_start = !descriptor.hands_off;
        // Tools report failures in the result (`isError`), where the model can read them.
        let failed = |message: String| RoundReply::Complete {
            result: CallToolResult::error(message).into_tool_result(),
            cache: None,
        };
        Ok(match run_round(&self.inner.env, &**tool, input).await? {
            RoundEnd::Complete(result) => RoundReply::Complete {
                result,
                cache: None,
            },
            RoundEnd::InputRequired { requests, state } => {
                RoundReply::InputRequired { requests, state }
            }
            RoundEnd::HandOff(handed) => {
                // Boxed, in a statement of its own: creating a task is rare, and its future
                // would otherwise take room in every round's future (which is moved whole).
                let created =
                    Box::pin(self.create_task(name, &arguments, principal, &capabilities, handed));
                RoundReply::Task(created.await?)
            }
            RoundEnd::Failed(message) => failed(message),
            RoundEnd::BadArguments(reason) => failed(format!("invalid arguments: {reason}")),
            RoundEnd::Denied(denied) => failed(denied.to_string()),
            RoundEnd::TooManyRounds(cap) => failed(too_many_rounds(cap)),
        })
    }

    async fn get_prompt(&self, mut request: RoundRequest<'_>) -> Result<RoundReply, RpcError> {
        let name = request.target;
        let (descriptor, prompt) = self
            .inner
            .prompts
            .iter()
            .find(|(descriptor, _)| descriptor.name == name)
            .ok_or_else(|| RpcError::invalid_params(format!("unknown prompt {name:?}")))?;
        let arguments = request.arguments.take().unwrap_or_default();
        if let Some((key, _)) = arguments.iter().find(|(_, value)| !value.is_string()) {
            return Err(RpcError::invalid_params(format!(
                "prompt argument {key:?} must be a string"
            )));
        }
        let arguments = Value::Object(arguments);
        let input = self.round_input(request, &arguments, descriptor.max_rounds, false);
        let end = run_round(&self.inner.env, &**prompt, input).await?;
        finish_non_tool(end, None)
    }

    async fn read_resource(&self, request: RoundRequest<'_>) -> Result<RoundReply, RpcError> {
        let uri = request.target;
        let resources = &self.inner.resources;
        // A resource listed under this very URI wins over a template that also matches it.
        let exact = resources
            .iter()
            .find(|(_, descriptor, _)| descriptor.is_concrete() && descriptor.uri_template == uri)
            .map(|(_, descriptor, resource)| (Map::new(), descriptor, resource));
        let (variables, descriptor, resource) = exact
            .or_else(|| {
                resources
                    .iter()
                    .find_map(|(template, descriptor, resource)| {
                        template
                            .matches(uri)
                            .map(|variables| (variables, descriptor, resource))
                    })
            })
            .ok_or_else(|| RpcError::resource_not_found(uri))?;
        let arguments = Value::Object(variables);
        // A result that depends on answers must not be cached.
        let retried = request.input_responses.is_some() || request.request_state.is_some();
        let cache = if retried {
            CacheHint::NONE
        } else {
            descriptor.cache
        };
        let input = self.round_input(request, &arguments, descriptor.max_rounds, false);
        let mut end = run_round(&self.inner.env, &**resource, input).await?;
        if let (RoundEnd::Complete(result), Some(mime_type)) = (&mut end, &descriptor.mime_type) {
            declare_mime_type(result, uri, mime_type);
        }
        finish_non_tool(end, Some(cache))
    }

    /// The engine's input for this round, with the server's defaults applied.
    fn round_input<'a>(
        &self,
        request: RoundRequest<'a>,
        arguments: &'a Value,
        max_rounds: Option<u32>,
        single_use: bool,
    ) -> RoundInput<'a> {
        RoundInput {
            request,
            arguments,
            max_rounds: max_rounds.unwrap_or(self.inner.max_rounds),
            single_use: single_use || self.inner.single_use,
            to_task: false,
            task_at_start: false,
        }
    }
}

/// Prompts and resources have no `isError`: failures are JSON-RPC errors.
fn finish_non_tool(end: RoundEnd, cache: Option<CacheHint>) -> Result<RoundReply, RpcError> {
    match end {
        RoundEnd::Complete(result) => Ok(RoundReply::Complete { result, cache }),
        RoundEnd::InputRequired { requests, state } => {
            Ok(RoundReply::InputRequired { requests, state })
        }
        RoundEnd::Failed(message) => Err(RpcError::handler_error(message)),
        RoundEnd::BadArguments(reason) => Err(RpcError::invalid_params(format!(
            "invalid arguments: {reason}"
        ))),
        RoundEnd::Denied(denied) => Err(RpcError::invalid_params(denied.to_string())),
        RoundEnd::TooManyRounds(cap) => Err(RpcError::invalid_params(too_many_rounds(cap))),
        // Only tools hand off.
        RoundEnd::HandOff(_) => Err(RpcError::internal("only a tool can run as a task")),
    }
}

/// The contents of `uri` itself that name no MIME type get the one its resource declares (a
/// resource returning a `String` says nothing of its own); contents of other URIs are left as
/// they are.
fn declare_mime_type(result: &mut Value, uri: &str, mime_type: &str) {
    let Some(contents) = result.get_mut("contents").and_then(Value::as_array_mut) else {
        return;
    };
    for entry in contents.iter_mut().filter_map(Value::as_object_mut) {
        if entry.get("uri").and_then(Value::as_str) == Some(uri) {
            entry.entry("mimeType").or_insert_with(|| mime_type.into());
        }
    }
}

fn too_many_rounds(cap: u32) -> String {
    format!("this flow needed more than {cap} rounds of input and was stopped; start it again")
}
