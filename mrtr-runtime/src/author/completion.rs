//! `completion/complete`: suggestions for a prompt's argument or a resource template's
//! variable while the user types it. Register one [`Complete`] with
//! [`ServerBuilder::completion`](crate::ServerBuilder::completion); the server then declares
//! the `completions` capability.
//!
//! ```
//! use mrtr::{Completion, CompletionRequest, Server, ToolError};
//!
//! const CITIES: [&str; 3] = ["Lisbon", "London", "Paris"];
//!
//! async fn cities(request: CompletionRequest) -> Result<Completion, ToolError> {
//!     let typed = request.value.to_lowercase();
//!     Ok(Completion::new(
//!         CITIES.into_iter().filter(|city| city.to_lowercase().starts_with(&typed)),
//!     ))
//! }
//!
//! let server = Server::builder("travel", "1.0.0").completion(cities).build();
//! # let _ = server;
//! ```

use std::collections::BTreeMap;
use std::future::Future;

use serde_json::{Map, Value, json};

use crate::author::context::BoxFuture;
use crate::author::error::ToolError;
use crate::protocol::RpcError;

/// Most values one answer carries (the spec's limit); more are cut, with `hasMore` set.
pub const MAX_COMPLETION_VALUES: usize = 100;

/// What is being completed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CompletionTarget {
    /// An argument of the prompt with this name.
    Prompt(String),
    /// A variable of the resource template with this URI template.
    Resource(String),
}

/// One `completion/complete` request.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CompletionRequest {
    /// The prompt or resource template.
    pub target: CompletionTarget,
    /// The argument or template variable being completed.
    pub argument: String,
    /// What the user has typed so far.
    pub value: String,
    /// Arguments the user already filled in (`context.arguments`).
    pub context: BTreeMap<String, String>,
    /// The authenticated principal of the request, as given by the host (the same the
    /// authorization hook saw).
    pub principal: Option<String>,
}

/// Suggestions, most relevant first.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Completion {
    /// The suggested values; past [`MAX_COMPLETION_VALUES`] they are cut.
    pub values: Vec<String>,
    /// How many values there are in all, if known.
    pub total: Option<u32>,
    /// Whether there are more values than these.
    pub has_more: bool,
}

impl Completion {
    /// These values, and no others.
    pub fn new(values: impl IntoIterator<Item = impl Into<String>>) -> Self {
        Self {
            values: values.into_iter().map(Into::into).collect(),
            ..Self::default()
        }
    }

    /// The `completion/complete` result (without `resultType` and `_meta`).
    pub(crate) fn into_result(mut self) -> Value {
        if self.values.len() > MAX_COMPLETION_VALUES {
            let all = self.values.len();
            self.values.truncate(MAX_COMPLETION_VALUES);
            self.has_more = true;
            self.total = self.total.or(Some(u32::try_from(all).unwrap_or(u32::MAX)));
        }
        let mut completion = json!({"values": self.values});
        if let Some(total) = self.total {
            completion["total"] = total.into();
        }
        if self.has_more {
            completion["hasMore"] = true.into();
        }
        json!({ "completion": completion })
    }
}

/// Answers `completion/complete` for a server's prompts and resource templates. Any
/// `Fn(CompletionRequest) -> impl Future<Output = Result<Completion, ToolError>>` is one.
pub trait Complete: Send + Sync + 'static {
    /// The suggestions for `request`; an error is sent to the client as a JSON-RPC error with
    /// its message.
    fn complete(&self, request: CompletionRequest) -> BoxFuture<'_, Result<Completion, ToolError>>;
}

impl<F, Fut> Complete for F
where
    F: Fn(CompletionRequest) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = Result<Completion, ToolError>> + Send + 'static,
{
    fn complete(&self, request: CompletionRequest) -> BoxFuture<'_, Result<Completion, ToolError>> {
        Box::pin(self(request))
    }
}

/// The request in `params`: `ref` (`ref/prompt` with `name`, or `ref/resource` with `uri`),
/// `argument` (`name`, `value`) and optional `context.arguments`.
pub(crate) fn parse_request(params: &Map<String, Value>) -> Result<CompletionRequest, RpcError> {
    let reference = params
        .get("ref")
        .ok_or_else(|| RpcError::invalid_params("completion/complete needs params.ref"))?;
    let field = |name: &str| {
        reference
            .get(name)
            .and_then(Value::as_str)
            .map(str::to_owned)
    };
    let target = match reference.get("type").and_then(Value::as_str) {
        Some("ref/prompt") => field("name").map(CompletionTarget::Prompt),
        Some("ref/resource") => field("uri").map(CompletionTarget::Resource),
        _ => None,
    }
    .ok_or_else(|| {
        RpcError::invalid_params(
            "params.ref must be {type: \"ref/prompt\", name} or {type: \"ref/resource\", uri}",
        )
    })?;
    let argument = params.get("argument");
    let text = |name: &str| argument.and_then(|a| a.get(name)).and_then(Value::as_str);
    let (Some(name), Some(value)) = (text("name"), text("value")) else {
        return Err(RpcError::invalid_params(
            "params.argument must be {name, value}, both strings",
        ));
    };
    let context = match params.get("context").and_then(|c| c.get("arguments")) {
        None | Some(Value::Null) => BTreeMap::new(),
        Some(Value::Object(arguments)) => arguments
            .iter()
            .map(|(key, value)| match value {
                Value::String(value) => Ok((key.clone(), value.clone())),
                _ => Err(RpcError::invalid_params(format!(
                    "params.context.arguments.{key} must be a string"
                ))),
            })
            .collect::<Result<_, _>>()?,
        Some(_) => {
            return Err(RpcError::invalid_params(
                "params.context.arguments must be an object",
            ));
        }
    };
    Ok(CompletionRequest {
        target,
        argument: name.to_owned(),
        value: value.to_owned(),
        context,
        principal: None,
    })
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn more_than_a_hundred_values_are_cut_and_say_so() {
        let many = Completion::new((0..150).map(|i| i.to_string())).into_result();
        assert_eq!(many["completion"]["values"].as_array().unwrap().len(), 100);
        assert_eq!(many["completion"]["total"], 150);
        assert_eq!(many["completion"]["hasMore"], true);
        let few = Completion::new(["a", "b"]).into_result();
        assert_eq!(few, json!({"completion": {"values": ["a", "b"]}}));
    }

    #[test]
    fn requests_parse_strictly() {
        let params = |value: Value| value.as_object().unwrap().clone();
        let parsed = parse_request(&params(json!({
            "ref": {"type": "ref/resource", "uri": "notes://{id}"},
            "argument": {"name": "id", "value": "4"},
            "context": {"arguments": {"owner": "ada"}},
        })))
        .unwrap();
        assert_eq!(
            parsed.target,
            CompletionTarget::Resource("notes://{id}".into())
        );
        assert_eq!(parsed.context.get("owner").map(String::as_str), Some("ada"));
        for bad in [
            json!({"argument": {"name": "a", "value": ""}}),
            json!({"ref": {"type": "ref/tool", "name": "x"}, "argument": {"name": "a", "value": ""}}),
            json!({"ref": {"type": "ref/prompt"}, "argument": {"name": "a", "value": ""}}),
            json!({"ref": {"type": "ref/prompt", "name": "p"}, "argument": {"name": "a"}}),
            json!({"ref": {"type": "ref/prompt", "name": "p"}, "argument": {"name": "a", "value": ""}, "context": {"arguments": {"b": 1}}}),
        ] {
            let error = parse_request(&params(bad.clone())).unwrap_err();
            assert_eq!(error.code, -32602, "{bad}");
        }
    }
}
