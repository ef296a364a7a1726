//! `completion/complete`: the request checked against what is registered, then handed to the
//! server's [`Complete`](crate::Complete).

use serde_json::{Map, Value};

use super::instance::Server;
use crate::author::completion::{CompletionTarget, parse_request};
use crate::author::context::Access;
use crate::protocol::RpcError;

impl Server {
    /// Completes a registered prompt's argument or resource template's variable, once the
    /// authorization hook allowed it (as `completion/complete` on the prompt or template, with
    /// the arguments already filled in).
    pub(super) async fn complete_argument(
        &self,
        params: &Map<String, Value>,
        principal: Option<&str>,
    ) -> Result<Value, RpcError> {
        let mut request = parse_request(params)?;
        request.principal = principal.map(str::to_owned);
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
        if let Some(authorizer) = &self.inner.env.authorizer {
            let target = match &request.target {
                CompletionTarget::Prompt(name) => name,
                CompletionTarget::Resource(uri) => uri,
            };
            let arguments = Value::Object(
                request
                    .context
                    .iter()
                    .map(|(name, value)| (name.clone(), Value::String(value.clone())))
                    .collect(),
            );
            let access = Access {
                method: "completion/complete",
                target,
                arguments: &arguments,
                principal,
                round: 1,
            };
            if let Err(denied) = authorizer.authorize(access).await {
                return Err(RpcError::invalid_params(denied.to_string()));
            }
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
