//! A round's reply as rmcp's own types, built directly: the common shapes (text content, form
//! and URL elicitations) without a detour through JSON, anything else through serde.

use std::sync::{Mutex, PoisonError};

use rmcp::ErrorData;
use rmcp::model::{
    CallToolResult, ContentBlock, ElicitRequest, ElicitRequestParams, ElicitationSchema,
    EnumSchema, InputRequest as RmcpInputRequest, InputRequests, InputRequiredResult, MetaObject,
};
use serde::Deserialize;
use serde_json::{Map, Value};

use crate::machine::input::{ELICITATION_CREATE, InputRequest};
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
    if plain_text(&block).is_some() {
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

/// The text of a content block that is only `{"type": "text", "text": ...}`.
pub(super) fn plain_text(block: &Value) -> Option<&str> {
    let block = block.as_object().filter(|block| block.len() == 2)?;
    if block.get("type")?.as_str()? != "text" {
        return None;
    }
    block.get("text")?.as_str()
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
    let request = if request.method == ELICITATION_CREATE
        && let Value::Object(params) = request.params
    {
        match elicitation(params)? {
            Ok(params) => return Ok(RmcpInputRequest::Elicitation(ElicitRequest::new(params))),
            Err(params) => InputRequest {
                method: request.method,
                params: Value::Object(params),
            },
        }
    } else {
        request
    };
    RmcpInputRequest::deserialize(request.into_value()).map_err(unfit)
}

/// The params of a form or URL elicitation holding only the fields rmcp models, or the params
/// back for anything else (then serde decides).
fn elicitation(
    mut params: Map<String, Value>,
) -> Result<Result<ElicitRequestParams, Map<String, Value>>, ErrorData> {
    let form = if form_parts(&params).is_some() {
        true
    } else if params.len() == 3
        && params.get("mode").and_then(Value::as_str) == Some("url")
        && params.get("message").is_some_and(Value::is_string)
        && params.get("url").is_some_and(Value::is_string)
    {
        false
    } else {
        return Ok(Err(params));
    };
    let Some(Value::String(message)) = params.remove("message") else {
        unreachable!("checked above")
    };
    Ok(Ok(if form {
        let schema = params.remove("requestedSchema").unwrap_or_default();
        ElicitRequestParams::FormElicitationParams {
            meta: None,
            message,
            requested_schema: elicitation_schema(schema)?,
        }
    } else {
        let Some(Value::String(url)) = params.remove("url") else {
            unreachable!("checked above")
        };
        ElicitRequestParams::UrlElicitationParams {
            meta: None,
            message,
            url,
            // Retired by 2026-07-28; the retired-field filter removes it from the wire.
            elicitation_id: String::new(),
        }
    }))
}

/// The message and schema of form elicitation params holding only the fields rmcp models
/// (`mode`, `message`, `requestedSchema`).
pub(super) fn form_parts(params: &Map<String, Value>) -> Option<(&str, &Value)> {
    if params.len() != 3 || params.get("mode")?.as_str()? != "form" {
        return None;
    }
    Some((
        params.get("message")?.as_str()?,
        params.get("requestedSchema")?,
    ))
}

/// A `requestedSchema` as rmcp's type. An `elicit::choice` without titles is built directly;
/// other schemas, which are mostly the static schemas of form types, are deserialized once and
/// then taken from a small cache.
pub(super) fn elicitation_schema(schema: Value) -> Result<ElicitationSchema, ErrorData> {
    let schema = match untitled_choice(schema) {
        Ok((field, values)) => {
            return ElicitationSchema::builder()
                .required_enum_schema(field, EnumSchema::builder(values).build())
                .build()
                .map_err(unfit);
        }
        Err(schema) => schema,
    };
    static FORMS: SchemaCache<ElicitationSchema> = SchemaCache::new();
    FORMS.get_or_derive(&schema, |schema| {
        ElicitationSchema::deserialize(schema).map_err(unfit)
    })
}

/// What was derived from a handful of schemas, found by the schema with its members in order:
/// the schemas worth keeping are those of form types, few and static.
pub(super) struct SchemaCache<T>(Mutex<Vec<(Value, T)>>);

impl<T: Clone> SchemaCache<T> {
    /// How many schemas one cache keeps; later ones are derived every time.
    const KEPT: usize = 64;

    pub(super) const fn new() -> Self {
        Self(Mutex::new(Vec::new()))
    }

    /// What was derived from `schema`, else `derive`'s result, kept while there is room.
    pub(super) fn get_or_derive<E>(
        &self,
        schema: &Value,
        derive: impl FnOnce(&Value) -> Result<T, E>,
    ) -> Result<T, E> {
        let mut kept = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some((_, derived)) = kept
            .iter()
            .find(|(known, _)| crate::form::same_in_order(known, schema))
        {
            return Ok(derived.clone());
        }
        let derived = derive(schema)?;
        if kept.len() < Self::KEPT {
            kept.push((schema.clone(), derived.clone()));
        }
        Ok(derived)
    }
}

/// The property name and options of a schema that is exactly an `elicit::choice` without
/// titles (its one property is named after the ask key, or by `.field()`), moved out of it;
/// any other schema back as it came.
fn untitled_choice(schema: Value) -> Result<(String, Vec<String>), Value> {
    if untitled_choice_parts(&schema).is_none() {
        return Err(schema);
    }
    let Value::Object(mut schema) = schema else {
        unreachable!("checked to be an object")
    };
    let Some(Value::Object(properties)) = schema.remove("properties") else {
        unreachable!("checked to be an object")
    };
    let Some((field, Value::Object(mut property))) = properties.into_iter().next() else {
        unreachable!("checked to hold one object")
    };
    let Some(Value::Array(values)) = property.remove("enum") else {
        unreachable!("checked to be a list")
    };
    let values = values
        .into_iter()
        .map(|value| match value {
            Value::String(value) => value,
            _ => unreachable!("checked to be strings"),
        })
        .collect();
    Ok((field, values))
}

/// The property name and options of a schema that is exactly an `elicit::choice` without
/// titles: `type` `object`, one property named as the one `required` entry, that property
/// `{"type": "string", "enum": [strings]}`.
pub(super) fn untitled_choice_parts(schema: &Value) -> Option<(&str, &[Value])> {
    let schema = schema.as_object().filter(|schema| schema.len() == 3)?;
    let [Value::String(field)] = schema.get("required")?.as_array()?.as_slice() else {
        return None;
    };
    if schema.get("type")?.as_str()? != "object" {
        return None;
    }
    let properties = schema.get("properties")?.as_object()?;
    let property = properties
        .get(field)
        .filter(|_| properties.len() == 1)?
        .as_object()
        .filter(|property| property.len() == 2)?;
    if property.get("type")?.as_str()? != "string" {
        return None;
    }
    let options = property.get("enum")?.as_array()?;
    options
        .iter()
        .all(Value::is_string)
        .then_some((field.as_str(), options.as_slice()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::author::ask::elicit;

    #[test]
    fn a_choice_built_directly_is_what_deserializing_it_gives() {
        let request = elicit::choice("Which?", ["a", "b", "c"])
            .into_request()
            .unwrap();
        let schema = request.params["requestedSchema"].clone();
        let direct = elicitation_schema(schema.clone()).unwrap();
        let parsed = ElicitationSchema::deserialize(&schema).unwrap();
        assert_eq!(direct, parsed);
        assert_eq!(serde_json::to_value(&direct).unwrap(), schema);
    }

    #[test]
    fn a_choice_named_after_its_key_is_built_directly_too() {
        let schema = serde_json::json!({"type": "object", "properties": {
            "pick": {"type": "string", "enum": ["a", "b"]}}, "required": ["pick"]});
        assert_eq!(
            untitled_choice(schema.clone()).ok(),
            Some(("pick".to_owned(), vec!["a".to_owned(), "b".to_owned()]))
        );
        let direct = elicitation_schema(schema.clone()).unwrap();
        assert_eq!(direct, ElicitationSchema::deserialize(&schema).unwrap());
        assert_eq!(serde_json::to_value(&direct).unwrap(), schema);
    }

    #[test]
    fn two_orders_of_one_form_each_come_back_as_sent() {
        // Optional fields: no `required` list tells the two apart.
        let first = serde_json::json!({"type": "object", "properties": {
            "role": {"type": "string"}, "nickname": {"type": "string"}}});
        let second = serde_json::json!({"type": "object", "properties": {
            "nickname": {"type": "string"}, "role": {"type": "string"}}});
        for schema in [&first, &second, &first, &second] {
            let typed = elicitation_schema(schema.clone()).unwrap();
            let sent = serde_json::to_string(&typed).unwrap();
            assert_eq!(sent, schema.to_string());
        }
    }

    #[test]
    fn a_cached_form_schema_is_the_same_schema() {
        let schema = serde_json::json!({"type": "object", "properties": {
            "ok": {"type": "boolean", "description": "Book it?"}}, "required": ["ok"]});
        let first = elicitation_schema(schema.clone()).unwrap();
        let second = elicitation_schema(schema.clone()).unwrap();
        assert_eq!(first, second);
        assert_eq!(serde_json::to_value(&second).unwrap(), schema);
    }
}
