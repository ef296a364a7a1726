//! A round's reply as rmcp's own types, built directly: the common shapes (text content, form
//! and URL elicitations) without a detour through JSON, anything else through serde.

use rmcp::ErrorData;
use rmcp::model::{
    CallToolResult, ContentBlock, ElicitRequest, ElicitRequestParams, ElicitationSchema,
    InputRequest as RmcpInputRequest, InputRequests, InputRequiredResult, MetaObject,
};
use serde::Deserialize;
use serde_json::{Map, Value};

use crate::input::{ELICITATION_CREATE, InputRequest};
use crate::protocol::META_SERVER_INFO;

/// `_meta` with the server's info, which every result carries.
fn meta(info: &Value) -> MetaObject {
    let mut meta = Map::new();
    meta.insert(META_SERVER_INFO.to_owned(), info.clone());
    MetaObject(meta)
}

fn unfit(reason: impl std::fmt::Display) -> ErrorData {
    ErrorData::internal_error(format!("result does not fit rmcp's types: {reason}"), None)
}

/// A tool's final result (`{content, structuredContent?, isError}`) as rmcp's.
pub(super) fn tool_result(result: Value, info: &Value) -> Result<CallToolResult, ErrorData> {
    let Value::Object(mut result) = result else {
        return Err(unfit("a tool result must be an object"));
    };
    let content = match result.remove("content") {
        Some(Value::Array(blocks)) => blocks
            .into_iter()
            .map(content_block)
            .collect::<Result<Vec<_>, _>>()?,
        None => Vec::new(),
        Some(_) => return Err(unfit("`content` must be a list")),
    };
    let is_error = match result.remove("isError") {
        Some(Value::Bool(is_error)) => Some(is_error),
        None => None,
        Some(_) => return Err(unfit("`isError` must be a boolean")),
    };
    let structured = result.remove("structuredContent");
    let mut typed = CallToolResult::success(content);
    typed.is_error = is_error;
    typed.structured_content = structured;
    let mut meta = meta(info);
    if let Some(Value::Object(extra)) = result.remove("_meta") {
        for (key, value) in extra {
            meta.0.entry(key).or_insert(value);
        }
    }
    typed.meta = Some(meta);
    Ok(typed)
}

/// One content block; a plain text block is built directly.
fn content_block(block: Value) -> Result<ContentBlock, ErrorData> {
    if let Value::Object(fields) = &block
        && fields.len() == 2
        && fields.get("type").and_then(Value::as_str) == Some("text")
        && let Some(Value::String(_)) = fields.get("text")
    {
        let Value::Object(mut fields) = block else {
            unreachable!("matched an object")
        };
        let Some(Value::String(text)) = fields.remove("text") else {
            unreachable!("matched a string")
        };
        return Ok(ContentBlock::text(text));
    }
    ContentBlock::deserialize(block).map_err(unfit)
}

/// An `input_required` result with the questions and the sealed state.
pub(super) fn input_required(
    requests: Vec<(String, InputRequest)>,
    state: String,
    info: &Value,
) -> Result<InputRequiredResult, ErrorData> {
    // Never an empty map: a state-only round omits the field.
    let requests = if requests.is_empty() {
        None
    } else {
        Some(
            requests
                .into_iter()
                .map(|(key, request)| Ok((key, input_request(request)?)))
                .collect::<Result<InputRequests, ErrorData>>()?,
        )
    };
    Ok(InputRequiredResult::new(requests, Some(state)).with_meta(meta(info)))
}

/// One question as rmcp's `InputRequest`: form and URL elicitations built field by field,
/// other kinds through serde.
fn input_request(request: InputRequest) -> Result<RmcpInputRequest, ErrorData> {
    if request.method == ELICITATION_CREATE
        && let Value::Object(params) = &request.params
        && let Some(params) = elicitation(params)?
    {
        return Ok(RmcpInputRequest::Elicitation(ElicitRequest::new(params)));
    }
    RmcpInputRequest::deserialize(request.into_value()).map_err(unfit)
}

/// The params of a form or URL elicitation holding only the fields rmcp models; `None` for
/// anything else (then serde decides).
fn elicitation(params: &Map<String, Value>) -> Result<Option<ElicitRequestParams>, ErrorData> {
    let Some(Value::String(message)) = params.get("message") else {
        return Ok(None);
    };
    let mode = params.get("mode").and_then(Value::as_str);
    Ok(
        match (mode, params.get("requestedSchema"), params.get("url")) {
            (Some("form"), Some(schema), None) if params.len() == 3 => {
                Some(ElicitRequestParams::FormElicitationParams {
                    meta: None,
                    message: message.clone(),
                    requested_schema: ElicitationSchema::deserialize(schema).map_err(unfit)?,
                })
            }
            (Some("url"), None, Some(Value::String(url))) if params.len() == 3 => {
                Some(ElicitRequestParams::UrlElicitationParams {
                    meta: None,
                    message: message.clone(),
                    url: url.clone(),
                    // Retired by 2026-07-28; the retired-field filter removes it from the wire.
                    elicitation_id: String::new(),
                })
            }
            _ => None,
        },
    )
}
