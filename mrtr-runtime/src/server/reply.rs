//! Shaping results for the wire: `resultType`, the cache hint and the `serverInfo` every
//! result carries in its `_meta`.

use serde_json::{Map, Value, json};

use super::instance::Server;
use crate::machine::CacheHint;
use crate::machine::input::InputRequest;
use crate::protocol::{META_SERVER_INFO, RpcError};

/// How a round ended, as the method's result before it is shaped for the wire.
pub(crate) enum RoundReply {
    /// The final result (without `resultType` and `_meta`); `cache` for a resource read.
    Complete {
        result: Value,
        cache: Option<CacheHint>,
    },
    /// The questions (possibly none) and the sealed state.
    InputRequired {
        requests: Vec<(String, InputRequest)>,
        state: String,
    },
    /// A task was created: the `CreateTaskResult`, shaped for the wire.
    Task(Value),
}

impl Server {
    /// A round's reply as the JSON result object.
    pub(crate) fn reply_json(&self, reply: RoundReply) -> Value {
        match reply {
            RoundReply::Complete {
                result,
                cache: None,
            } => self.complete(result),
            RoundReply::Complete {
                result,
                cache: Some(cache),
            } => self.cacheable(result, cache),
            RoundReply::InputRequired { requests, state } => self.input_required(requests, state),
            RoundReply::Task(created) => created,
        }
    }

    fn input_required(&self, requests: Vec<(String, InputRequest)>, state: String) -> Value {
        let mut result = Map::new();
        result.insert("resultType".into(), "input_required".into());
        // Never an empty map: a state-only round omits the field.
        if !requests.is_empty() {
            let requests = requests
                .into_iter()
                .map(|(key, request)| (key, request.into_value()))
                .collect();
            result.insert("inputRequests".into(), Value::Object(requests));
        }
        result.insert("requestState".into(), state.into());
        self.with_server_info(Value::Object(result))
    }

    pub(super) fn complete(&self, mut result: Value) -> Value {
        result["resultType"] = "complete".into();
        self.with_server_info(result)
    }

    /// A complete result that clients may cache as `cache` says.
    pub(super) fn cacheable(&self, mut result: Value, cache: CacheHint) -> Value {
        result["ttlMs"] = cache.ttl_ms.into();
        result["cacheScope"] = cache.scope.as_str().into();
        self.complete(result)
    }

    pub(super) fn with_server_info(&self, mut result: Value) -> Value {
        if !result.get("_meta").is_some_and(Value::is_object) {
            result["_meta"] = json!({});
        }
        result["_meta"][META_SERVER_INFO] = self.inner.info_json.clone();
        result
    }
}

/// The JSON-RPC response object answering request `id`.
pub(super) fn response(id: Value, outcome: Result<Value, RpcError>) -> Value {
    // Built by moving the result in: `json!` would serialize a copy of it.
    let mut response = Map::new();
    response.insert("jsonrpc".to_owned(), "2.0".into());
    response.insert("id".to_owned(), id);
    match outcome {
        Ok(result) => response.insert("result".to_owned(), result),
        Err(error) => response.insert("error".to_owned(), error.to_json()),
    };
    Value::Object(response)
}
