//! The body of the direct path's response, written as rmcp writes it, without one of its
//! detours: rmcp serializes each question of an `input_required` result (a typed `Request`)
//! through a `serde_json::Value` of its params, to merge a `_meta` kept in its extensions
//! into the one in its params. A question with neither `_meta` has nothing to merge, and its
//! params are written straight; the bytes are the same (`the_bytes_are_rmcps` below).

use rmcp::model::{
    ElicitRequestParams, InputRequest, InputRequests, InputRequiredResult, JsonRpcVersion2_0,
    RequestId, ServerJsonRpcMessage, ServerResult,
};
use serde::Serialize;
use serde::ser::{SerializeStruct, Serializer};

/// `message` as the JSON bytes rmcp's own serialization gives, written into a buffer sized
/// for a usual answer (one allocation rather than the doublings from serde_json's 128 bytes).
pub(super) fn to_vec(message: &ServerJsonRpcMessage) -> serde_json::Result<Vec<u8>> {
    if let ServerJsonRpcMessage::Response(response) = message
        && let ServerResult::InputRequiredResult(result) = &response.result
    {
        // The questions and the envelope rarely pass 1 KiB; the state is most of the rest.
        let state = result.request_state.as_ref().map_or(0, String::len);
        let mut out = Vec::with_capacity(1024 + state);
        serde_json::to_writer(
            &mut out,
            &Response {
                jsonrpc: &response.jsonrpc,
                id: &response.id,
                result: InputRequired(result),
            },
        )?;
        return Ok(out);
    }
    let mut out = Vec::with_capacity(512);
    serde_json::to_writer(&mut out, message)?;
    Ok(out)
}

/// rmcp's `JsonRpcResponse`, field for field.
#[derive(Serialize)]
struct Response<'a> {
    jsonrpc: &'a JsonRpcVersion2_0,
    id: &'a RequestId,
    result: InputRequired<'a>,
}

/// rmcp's `InputRequiredResult`, field for field (`ServerResult` is untagged: nothing around it).
struct InputRequired<'a>(&'a InputRequiredResult);

impl Serialize for InputRequired<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let result = self.0;
        let fields = 1
            + usize::from(result.input_requests.is_some())
            + usize::from(result.request_state.is_some())
            + usize::from(result.meta.is_some());
        let mut out = serializer.serialize_struct("InputRequiredResult", fields)?;
        out.serialize_field("resultType", &result.result_type)?;
        if let Some(requests) = &result.input_requests {
            out.serialize_field("inputRequests", &Requests(requests))?;
        }
        if let Some(state) = &result.request_state {
            out.serialize_field("requestState", state)?;
        }
        if let Some(meta) = &result.meta {
            out.serialize_field("_meta", meta)?;
        }
        out.end()
    }
}

struct Requests<'a>(&'a InputRequests);

impl Serialize for Requests<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_map(self.0.iter().map(|(key, request)| (key, Question(request))))
    }
}

/// One question: an elicitation without any `_meta` written straight (rmcp's `Request` then
/// writes `{"method", "params"}` with the params as they serialize), anything else by rmcp.
struct Question<'a>(&'a InputRequest);

impl Serialize for Question<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self.0 {
            InputRequest::Elicitation(request)
                if request.extensions.is_empty() && without_meta(&request.params) =>
            {
                let mut out = serializer.serialize_struct("Request", 2)?;
                out.serialize_field("method", &request.method)?;
                out.serialize_field("params", &request.params)?;
                out.end()
            }
            other => other.serialize(serializer),
        }
    }
}

fn without_meta(params: &ElicitRequestParams) -> bool {
    matches!(
        params,
        ElicitRequestParams::FormElicitationParams { meta: None, .. }
            | ElicitRequestParams::UrlElicitationParams { meta: None, .. }
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::machine::input::InputRequest as MrtrRequest;
    use crate::server::Server;

    /// The questions mrtr sends, converted as the direct path converts them.
    fn message(requests: Vec<(String, MrtrRequest)>, state: Option<&str>) -> ServerJsonRpcMessage {
        let server = Server::builder("s", "1").build().unwrap();
        let mut result = crate::rmcp::convert::input_required(
            requests,
            state.unwrap_or_default().to_owned(),
            server.info_json(),
        )
        .unwrap();
        if state.is_none() {
            result.request_state = None;
        }
        ServerJsonRpcMessage::response(
            ServerResult::InputRequiredResult(result),
            RequestId::Number(7),
        )
    }

    fn request(method: &str, params: serde_json::Value) -> MrtrRequest {
        MrtrRequest {
            method: method.to_owned(),
            params,
        }
    }

    #[test]
    fn the_bytes_are_rmcps() {
        use crate::author::ask::elicit;
        let choice = elicit::choice("Which?", ["a", "b", "c"])
            .into_request_for("pick")
            .unwrap();
        let titled = elicit::choice("Which?", [("a", "A"), ("b", "B")])
            .into_request_for("titled")
            .unwrap();
        let form = request(
            "elicitation/create",
            serde_json::json!({"mode": "form", "message": "Sure?", "requestedSchema": {
                "type": "object", "properties": {"ok": {"type": "boolean", "description": "Ok?"},
                "n": {"type": "number", "minimum": 1.5}}, "required": ["ok"]}}),
        );
        let url = request(
            "elicitation/create",
            serde_json::json!({"mode": "url", "message": "Sign in", "url": "https://example.com/a"}),
        );
        let with_meta = request(
            "elicitation/create",
            serde_json::json!({"mode": "form", "message": "m", "_meta": {"k": 1},
                "requestedSchema": {"type": "object", "properties": {}}}),
        );
        let sampling = request(
            "sampling/createMessage",
            serde_json::json!({"messages": [{"role": "user", "content": {"type": "text", "text": "hi"}}],
                "maxTokens": 10}),
        );
        let roots = request("roots/list", serde_json::json!({}));
        let cases = [
            vec![("pick".to_owned(), choice)],
            vec![
                ("titled".to_owned(), titled),
                ("form".to_owned(), form),
                ("url".to_owned(), url),
                ("meta".to_owned(), with_meta),
                ("sampling".to_owned(), sampling),
                ("roots".to_owned(), roots),
            ],
            vec![],
        ];
        for requests in cases {
            for state in [Some("sealed"), None] {
                let message = message(requests.clone(), state);
                let ours = to_vec(&message).unwrap();
                let rmcps = serde_json::to_vec(&message).unwrap();
                assert_eq!(String::from_utf8(ours), String::from_utf8(rmcps));
            }
        }
    }
}
