//! The body of the direct path's response, written as rmcp writes it, without its detours.
//!
//! * The usual replies, questions that are all form elicitations ([`input_required`]) and a
//!   tool's text result ([`tool_result`]), are written straight from mrtr's reply: the bytes
//!   rmcp writes for their conversion into its types, without building those types
//!   (`a_straight_reply_is_rmcps_bytes` and `a_straight_tool_result_is_rmcps_bytes` below).
//! * Anything else is converted into rmcp's types and written by [`to_vec`], which skips one of
//!   rmcp's detours: rmcp serializes each question of an `input_required` result (a typed
//!   `Request`) through a `serde_json::Value` of its params, to merge a `_meta` kept in its
//!   extensions into the one in its params. A question with neither `_meta` has nothing to
//!   merge, and its params are written straight; the bytes are the same (`the_bytes_are_rmcps`
//!   below). A form's schema is written where it lies: rmcp's serializer clones it whole to
//!   order its properties.

use std::sync::Arc;

use rmcp::model::{
    ElicitRequestParams, ElicitationSchema, InputRequest, InputRequests, InputRequiredResult,
    JsonRpcVersion2_0, RequestId, ServerJsonRpcMessage, ServerResult,
};
use serde::Serialize;
use serde::ser::{SerializeStruct, Serializer};
use serde_json::Value;

use crate::machine::input::{ELICITATION_CREATE, InputRequest as MrtrRequest};
use crate::rmcp::convert;

/// The `input_required` response to request `id` asking `questions` with `state`, written
/// straight, when every question is a form elicitation whose schema rmcp's types take: `None`
/// otherwise, and the reply then takes the conversion (which answers a schema it refuses).
/// `server_info` is the server's info as JSON.
pub(super) fn input_required(
    id: &RequestId,
    questions: &[(String, MrtrRequest)],
    state: &str,
    server_info: &[u8],
) -> Option<Vec<u8>> {
    // rmcp keeps the questions in a map ordered by key, and keeps one per key.
    if !questions.is_sorted_by(|(a, _), (b, _)| a < b) {
        return None;
    }
    let mut out = Vec::with_capacity(1024 + state.len());
    open_result(&mut out, id, "input_required")?;
    // A state-only round has no questions, and rmcp then writes no map.
    if !questions.is_empty() {
        out.extend_from_slice(br#","inputRequests":{"#);
        for (index, (key, question)) in questions.iter().enumerate() {
            let (message, schema) = form_elicitation(question)?;
            if index > 0 {
                out.push(b',');
            }
            write_str(&mut out, key);
            out.extend_from_slice(
                br#":{"method":"elicitation/create","params":{"mode":"form","message":"#,
            );
            write_str(&mut out, message);
            out.extend_from_slice(br#","requestedSchema":"#);
            write_schema(&mut out, schema)?;
            out.extend_from_slice(b"}}");
        }
        out.push(b'}');
    }
    out.extend_from_slice(br#","requestState":"#);
    write_str(&mut out, state);
    close_result(&mut out, server_info);
    Some(out)
}

/// A tool's complete result, written straight when it is what tools mostly return: text
/// blocks, and perhaps `structuredContent` and `isError`. `None` for anything else (other
/// blocks, a `_meta` of its own), which then takes the conversion.
pub(super) fn tool_result(id: &RequestId, result: &Value, server_info: &[u8]) -> Option<Vec<u8>> {
    let result = result.as_object()?;
    let content = match result.get("content") {
        Some(Value::Array(blocks)) => blocks.as_slice(),
        None => &[],
        Some(_) => return None,
    };
    let structured = result.get("structuredContent");
    let is_error = match result.get("isError") {
        Some(Value::Bool(is_error)) => Some(*is_error),
        None => None,
        Some(_) => return None,
    };
    let known = usize::from(result.contains_key("content"))
        + usize::from(structured.is_some())
        + usize::from(is_error.is_some());
    if result.len() != known {
        return None;
    }
    let mut out = Vec::with_capacity(256);
    open_result(&mut out, id, "complete")?;
    out.extend_from_slice(br#","content":["#);
    for (index, block) in content.iter().enumerate() {
        let text = convert::plain_text(block)?;
        if index > 0 {
            out.push(b',');
        }
        out.extend_from_slice(br#"{"type":"text","text":"#);
        write_str(&mut out, text);
        out.push(b'}');
    }
    out.push(b']');
    if let Some(structured) = structured {
        out.extend_from_slice(br#","structuredContent":"#);
        serde_json::to_writer(&mut out, structured).ok()?;
    }
    if let Some(is_error) = is_error {
        out.extend_from_slice(br#","isError":"#);
        out.extend_from_slice(if is_error { b"true" } else { b"false" });
    }
    close_result(&mut out, server_info);
    Some(out)
}

/// Opens the response to `id` and its result, of `result_type`.
fn open_result(out: &mut Vec<u8>, id: &RequestId, result_type: &str) -> Option<()> {
    out.extend_from_slice(br#"{"jsonrpc":"2.0","id":"#);
    serde_json::to_writer(&mut *out, id).ok()?;
    out.extend_from_slice(br#","result":{"resultType":"#);
    write_str(out, result_type);
    Some(())
}

/// Closes the result with its `_meta`, the server's info, and the response.
fn close_result(out: &mut Vec<u8>, server_info: &[u8]) {
    out.extend_from_slice(br#","_meta":{"io.modelcontextprotocol/serverInfo":"#);
    out.extend_from_slice(server_info);
    out.extend_from_slice(b"}}}");
}

/// The message and schema of a form elicitation holding nothing else (no `_meta`, which rmcp
/// would merge), as the conversion builds one field by field.
fn form_elicitation(question: &MrtrRequest) -> Option<(&str, &Value)> {
    if question.method != ELICITATION_CREATE {
        return None;
    }
    convert::form_parts(question.params.as_object()?)
}

fn write_str(out: &mut Vec<u8>, text: &str) {
    serde_json::to_writer(out, text).expect("a string always serializes");
}

/// A `requestedSchema` as rmcp writes its conversion. An `elicit::choice` without titles is
/// written by hand (rmcp's builder gives it a fixed shape); any other schema, mostly the static
/// schema of a form type, is converted and written once, then taken from a small cache.
fn write_schema(out: &mut Vec<u8>, schema: &Value) -> Option<()> {
    if let Some((field, options)) = convert::untitled_choice_parts(schema) {
        out.extend_from_slice(br#"{"type":"object","properties":{"#);
        write_str(out, field);
        out.extend_from_slice(br#":{"type":"string","enum":["#);
        for (index, option) in options.iter().enumerate() {
            if index > 0 {
                out.push(b',');
            }
            write_str(out, option.as_str()?);
        }
        out.extend_from_slice(br#"]}},"required":["#);
        write_str(out, field);
        out.extend_from_slice(b"]}");
        return Some(());
    }
    static WRITTEN: convert::SchemaCache<Arc<[u8]>> = convert::SchemaCache::new();
    let bytes = WRITTEN
        .get_or_derive(schema, |schema| {
            let typed = convert::elicitation_schema(schema.clone()).map_err(drop)?;
            serde_json::to_vec(&Schema(&typed))
                .map(Arc::from)
                .map_err(drop)
        })
        .ok()?;
    out.extend_from_slice(&bytes);
    Some(())
}

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
    use crate::server::Server;

    /// The questions mrtr sends, converted as the direct path converts them.
    fn message(requests: Vec<(String, MrtrRequest)>, state: Option<&str>) -> ServerJsonRpcMessage {
        message_of(&Server::builder("s", "1").build().unwrap(), requests, state)
    }

    /// [`message`] from `server`.
    fn message_of(
        server: &Server,
        requests: Vec<(String, MrtrRequest)>,
        state: Option<&str>,
    ) -> ServerJsonRpcMessage {
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

    /// A form with two properties, one of them required.
    fn sure_form() -> MrtrRequest {
        request(
            "elicitation/create",
            serde_json::json!({"mode": "form", "message": "Sure?", "requestedSchema": {
                "type": "object", "properties": {"ok": {"type": "boolean", "description": "Ok?"},
                "n": {"type": "number", "minimum": 1.5}}, "required": ["ok"]}}),
        )
    }

    fn url_elicitation() -> MrtrRequest {
        request(
            "elicitation/create",
            serde_json::json!({"mode": "url", "message": "Sign in", "url": "https://example.com/a"}),
        )
    }

    /// A form whose params carry a `_meta`, which rmcp merges.
    fn form_with_meta() -> MrtrRequest {
        request(
            "elicitation/create",
            serde_json::json!({"mode": "form", "message": "m", "_meta": {"k": 1},
                "requestedSchema": {"type": "object", "properties": {}}}),
        )
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
        let form = sure_form();
        let url = url_elicitation();
        let with_meta = form_with_meta();
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

    /// Every shape the straight writer takes gives rmcp's bytes for the same reply; every
    /// other shape, and a schema rmcp's types refuse, is left to the conversion.
    #[test]
    fn a_straight_reply_is_rmcps_bytes() {
        use crate::author::ask::elicit;
        let server = Server::builder("s \"quoted\"", "1.0-é").build().unwrap();
        let info = serde_json::to_vec(server.info_json()).unwrap();
        let choice = |key: &str| {
            elicit::choice("Which \"one\"?\n", ["a", "b\\", "é", ""])
                .into_request_for(key)
                .unwrap()
        };
        let fielded = elicit::choice("Which?", ["x"])
            .field("named")
            .into_request_for("k")
            .unwrap();
        let no_options = elicit::choice("Nothing to pick", Vec::<String>::new())
            .into_request_for("none")
            .unwrap();
        let titled = elicit::choice("Which?", [("a", "A"), ("b", "B")])
            .into_request_for("titled")
            .unwrap();
        let many = elicit::choices("Which?", ["a", "b"])
            .min_items(1)
            .into_request_for("many")
            .unwrap();
        let form = sure_form();
        let reordered = request(
            "elicitation/create",
            serde_json::json!({"requestedSchema": {"required": ["ok"], "properties": {
                "ok": {"description": "Ok?", "type": "boolean"}}, "type": "object"},
                "message": "Sure?", "mode": "form"}),
        );
        let straight = [
            vec![("pick".to_owned(), choice("pick"))],
            vec![
                ("a".to_owned(), choice("a")),
                ("b".to_owned(), fielded),
                ("c".to_owned(), no_options),
                ("d".to_owned(), titled),
                ("e".to_owned(), many),
                ("f".to_owned(), form.clone()),
                ("g".to_owned(), reordered),
            ],
            vec![],
        ];
        let ids = [RequestId::Number(7), RequestId::String("id \"7\"".into())];
        for questions in straight {
            for id in &ids {
                let ours = input_required(id, &questions, "sealed.\"state\"", &info)
                    .unwrap_or_else(|| panic!("written straight: {questions:?}"));
                let mut message = message_of(&server, questions.clone(), Some("sealed.\"state\""));
                if let ServerJsonRpcMessage::Response(response) = &mut message {
                    response.id = id.clone();
                }
                let rmcps = serde_json::to_vec(&message).unwrap();
                assert_eq!(String::from_utf8(ours), String::from_utf8(rmcps));
            }
        }

        let url = url_elicitation();
        let with_meta = form_with_meta();
        let sampling = request(
            "sampling/createMessage",
            serde_json::json!({"messages": [], "maxTokens": 10}),
        );
        let refused = request(
            "elicitation/create",
            serde_json::json!({"mode": "form", "message": "m", "requestedSchema": {
                "type": "object", "properties": {"nested": {"type": "object"}}}}),
        );
        let converted = [
            vec![("url".to_owned(), url)],
            vec![
                ("form".to_owned(), form.clone()),
                ("meta".to_owned(), with_meta),
            ],
            vec![("sampling".to_owned(), sampling)],
            vec![("refused".to_owned(), refused)],
            vec![
                ("b".to_owned(), form.clone()),
                ("a".to_owned(), form.clone()),
            ],
            vec![("a".to_owned(), form.clone()), ("a".to_owned(), form)],
        ];
        for questions in converted {
            assert_eq!(
                input_required(&ids[0], &questions, "s", &info),
                None,
                "{questions:?}"
            );
        }
    }

    /// A tool's text results written straight are rmcp's bytes for the same result; any
    /// other result is left to the conversion.
    #[test]
    fn a_straight_tool_result_is_rmcps_bytes() {
        use serde_json::json;
        let server = Server::builder("s", "1").build().unwrap();
        let info = serde_json::to_vec(server.info_json()).unwrap();
        let text = |text: &str| json!({"type": "text", "text": text});
        let straight = [
            json!({"content": [text("booked \"it\"\né")]}),
            json!({"content": []}),
            json!({}),
            json!({"content": [text("a"), text("")], "isError": true}),
            json!({"content": [text("a")], "structuredContent": {"b": [1, "x", null]},
                "isError": false}),
            json!({"structuredContent": null}),
        ];
        for result in straight {
            let ours = tool_result(&RequestId::Number(3), &result, &info)
                .unwrap_or_else(|| panic!("written straight: {result}"));
            let typed = crate::rmcp::convert::tool_result(result, server.info_json()).unwrap();
            let message = ServerJsonRpcMessage::response(
                ServerResult::CallToolResult(typed),
                RequestId::Number(3),
            );
            let rmcps = serde_json::to_vec(&message).unwrap();
            assert_eq!(String::from_utf8(ours), String::from_utf8(rmcps));
        }
        let converted = [
            json!({"content": [{"type": "image", "data": "AA==", "mimeType": "image/png"}]}),
            json!({"content": [{"type": "text", "text": "a", "annotations": {"priority": 1.0}}]}),
            json!({"content": [text("a")], "_meta": {"k": 1}}),
            json!({"content": [text("a")], "other": 1}),
            json!({"content": 5}),
            json!({"isError": "yes"}),
            json!("text"),
        ];
        for result in converted {
            assert_eq!(
                tool_result(&RequestId::Number(3), &result, &info),
                None,
                "{result}"
            );
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
        let url = url_elicitation();
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
