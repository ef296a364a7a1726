//! The body of the direct path's response, written as rmcp writes it, without one of its
//! detours: rmcp serializes each question of an `input_required` result (a typed `Request`)
//! through a `serde_json::Value` of its params, to merge a `_meta` kept in its extensions
//! into the one in its params. A question with neither `_meta` has nothing to merge, and its
//! params are written straight; the bytes are the same (`the_bytes_are_rmcps` below). A form's
//! schema is written where it lies: rmcp's serializer clones it whole to order its properties.

use rmcp::model::{
    ElicitRequestParams, ElicitationSchema, InputRequest, InputRequests, InputRequiredResult,
    JsonRpcVersion2_0, RequestId, ServerJsonRpcMessage, ServerResult,
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

/// Whether rmcp's types may have written a retired field into `message`: only a URL
/// elicitation has one (its `elicitationId`). A round's other replies, tool, prompt and
/// resource results, forms, sampling and roots questions, errors, never do, so their bodies
/// need no filtering.
pub(super) fn may_name_retired_fields(message: &ServerJsonRpcMessage) -> bool {
    let ServerJsonRpcMessage::Response(response) = message else {
        return false;
    };
    let ServerResult::InputRequiredResult(result) = &response.result else {
        return false;
    };
    result.input_requests.iter().flatten().any(|(_, request)| {
        matches!(
            request,
            InputRequest::Elicitation(question)
                if matches!(question.params, ElicitRequestParams::UrlElicitationParams { .. })
        )
    })
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
                match &request.params {
                    ElicitRequestParams::FormElicitationParams {
                        message,
                        requested_schema,
                        ..
                    } => out.serialize_field(
                        "params",
                        &FormParams {
                            mode: "form",
                            message,
                            requested_schema: Schema(requested_schema),
                        },
                    )?,
                    params => out.serialize_field("params", params)?,
                }
                out.end()
            }
            other => other.serialize(serializer),
        }
    }
}

/// rmcp's form elicitation params without a `_meta`, field for field (the enum is tagged by
/// `mode`, which comes first).
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct FormParams<'a> {
    mode: &'static str,
    message: &'a str,
    requested_schema: Schema<'a>,
}

/// rmcp's `ElicitationSchema` as it writes it: its fields in order, the properties in
/// `property_order` (a name's first mention, if it names a property), then the others by name.
struct Schema<'a>(&'a ElicitationSchema);

impl Serialize for Schema<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let schema = self.0;
        let fields = 2
            + usize::from(schema.schema.is_some())
            + usize::from(schema.title.is_some())
            + usize::from(schema.required.is_some())
            + usize::from(schema.description.is_some());
        let mut out = serializer.serialize_struct("ElicitationSchema", fields)?;
        if let Some(dialect) = &schema.schema {
            out.serialize_field("$schema", dialect)?;
        }
        out.serialize_field("type", &schema.type_)?;
        if let Some(title) = &schema.title {
            out.serialize_field("title", title)?;
        }
        out.serialize_field("properties", &Properties(schema))?;
        if let Some(required) = &schema.required {
            out.serialize_field("required", required)?;
        }
        if let Some(description) = &schema.description {
            out.serialize_field("description", description)?;
        }
        out.end()
    }
}

struct Properties<'a>(&'a ElicitationSchema);

impl Serialize for Properties<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let schema = self.0;
        let order = schema.property_order.as_deref().unwrap_or_default();
        let ordered = order.iter().enumerate().filter_map(|(index, name)| {
            let first = !order[..index].contains(name);
            first
                .then(|| schema.properties.get_key_value(name))
                .flatten()
        });
        let rest = schema
            .properties
            .iter()
            .filter(|(name, _)| !order.contains(name));
        serializer.collect_map(ordered.chain(rest))
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

    /// Property orders that name a property twice, name none, or name one that is not there.
    #[test]
    fn a_schema_is_written_in_rmcps_property_order() {
        use rmcp::model::{BooleanSchema, PrimitiveSchemaDefinition};
        use std::collections::BTreeMap;
        let properties: BTreeMap<String, PrimitiveSchemaDefinition> = ["c", "a", "b"]
            .into_iter()
            .map(|name| {
                (
                    name.to_owned(),
                    PrimitiveSchemaDefinition::Boolean(BooleanSchema::new()),
                )
            })
            .collect();
        let orders = [
            None,
            Some(vec!["b", "c", "a"]),
            Some(vec!["b", "b", "gone"]),
            Some(vec![]),
        ];
        for order in orders {
            let mut schema = ElicitationSchema::new(properties.clone());
            schema.property_order =
                order.map(|names| names.into_iter().map(String::from).collect());
            schema.title = Some("T".into());
            schema.required = Some(vec!["a".to_owned()]);
            let ours = serde_json::to_string(&Schema(&schema)).unwrap();
            assert_eq!(ours, serde_json::to_string(&schema).unwrap());
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

    /// The filter is skipped only where it would change nothing, and a URL elicitation, whose
    /// retired field rmcp writes, is filtered.
    #[test]
    fn only_a_url_elicitation_needs_the_retired_field_filter() {
        use crate::author::ask::elicit;
        use crate::rmcp::retired::strip_retired_fields_from_bytes;
        let choice = elicit::choice("Which?", ["a", "b"])
            .into_request_for("pick")
            .unwrap();
        let url = request(
            "elicitation/create",
            serde_json::json!({"mode": "url", "message": "Sign in", "url": "https://example.com/a"}),
        );
        let sampling = request(
            "sampling/createMessage",
            serde_json::json!({"messages": [], "maxTokens": 10}),
        );
        let complete = ServerJsonRpcMessage::response(
            ServerResult::CallToolResult(rmcp::model::CallToolResult::success(vec![])),
            RequestId::Number(1),
        );
        let cases = [
            (
                message(vec![("pick".to_owned(), choice.clone())], Some("s")),
                false,
            ),
            (
                message(vec![("sampling".to_owned(), sampling)], Some("s")),
                false,
            ),
            (complete, false),
            (
                message(vec![("url".to_owned(), url.clone())], Some("s")),
                true,
            ),
            (
                message(
                    vec![("pick".to_owned(), choice), ("url".to_owned(), url)],
                    None,
                ),
                true,
            ),
        ];
        for (message, filtered) in cases {
            let body = to_vec(&message).unwrap();
            let changes = strip_retired_fields_from_bytes(&body) != body;
            assert_eq!(may_name_retired_fields(&message), filtered, "{message:?}");
            assert_eq!(
                changes, filtered,
                "the filter changes only what it must: {message:?}"
            );
        }
    }
}
