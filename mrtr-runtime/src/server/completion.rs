//! `completion/complete`: the request checked against what is registered, then handed to the
//! server's [`Complete`](crate::Complete).

use serde_json::{Map, Value};

use super::Server;
use crate::completion::{CompletionTarget, parse_request};
use crate::protocol::RpcError;

impl Server {
    /// Completes a registered prompt's argument or resource template's variable.
    pub(super) async fn complete_argument(
        &self,
        params: &Map<String, Value>,
    ) -> Result<Value, RpcError> {
        let request = parse_request(params)?;
        let known = match &request.target {
            CompletionTarget::Prompt(name) => self.prompts().any(|prompt| prompt.name == *name),
            CompletionTarget::Resource(uri) => self
                .resource_templates()
                .any(|resource| resource.uri_template == *uri),
        };
        if !known {
            return Err(RpcError::invalid_params(match &request.target {
                CompletionTarget::Prompt(name) => format!("unknown prompt: {name}"),
                CompletionTarget::Resource(uri) => format!("unknown resource template: {uri}"),
            }));
        }
        let completer = self
            .inner
            .completer
            .as_ref()
            .ok_or_else(|| RpcError::method_not_found("completion/complete"))?;
        let completion = completer
            .complete(request)
            .await
            .map_err(|error| RpcError::handler_error(error.to_string()))?;
        Ok(self.complete(completion.into_result()))
    }
}
