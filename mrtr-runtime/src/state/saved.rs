//! What travels in `requestState` between rounds, in its binary layout: where the machine
//! stands, what it keeps, and the questions pending there.
//!
//! ```text
//! state    = point:u32 kept:u32 steps:varint frame count:varint question*  (frame: frame.rs)
//! question = key:str reasks:u8 answer request
//! answer   = 0 | 1 json:bytes                        a valid answer kept from a partial batch
//! request  = 0 method:str params:bytes               any request, params as JSON
//!          | 1 message:str count:varint value:str*   an `elicit::choice` without titles
//!          | 2 message:str count:varint (value:str title:str)*   one with titles
//!          | 3 message:str schema:bytes              a form elicitation, its schema in CBOR
//!          | 4 message:str url:str                   a URL elicitation
//!          | 5 message:str form:u64                  a form elicitation whose schema is a
//!                                                    known form (known_forms.rs): its id
//! str, bytes = length:varint content; u32 = 4 bytes, big-endian
//! ```
//!
//! `point` names the resume point by its [`ResumePoint::id`](crate::machine::ResumePoint), not by pc, and
//! `kept` is the signature of what it keeps and expects: together they let a later build
//! resume the state wherever that point still exists unchanged.
//!
//! A question is stored so that it rebuilds exactly as it was sent: a re-ask shows what the
//! user saw, and an answer is validated against what was asked. A choice keeps only its
//! message and options (its schema follows from them); anything of another shape is kept as
//! JSON.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

use serde_json::{Map, Value};

use crate::bytes::{Reader, put_bytes, put_varint};
use crate::machine::input::{ELICITATION_CREATE, InputRequest};
use crate::state::frame::Frame;
use crate::state::known_forms::KnownForms;

/// The state of a flow between two rounds.
#[derive(Debug)]
pub(crate) struct SavedState {
    /// The resume point's id (a hand-written machine without resume points: its pc).
    pub(crate) point: u32,
    /// What the resume point keeps and expects ([`Suspension::kept_types`](crate::machine::Suspension)).
    pub(crate) kept_types: u32,
    pub(crate) steps: u32,
    pub(crate) frame: Frame,
    pub(crate) pending: BTreeMap<String, PendingQuestion>,
}

/// A question as it was sent, and its answer once a valid one arrived (a partly answered batch
/// keeps its valid answers while the rest are asked again).
#[derive(Debug)]
pub(crate) struct PendingQuestion {
    pub(crate) request: InputRequest,
    pub(crate) answer: Option<Value>,
    pub(crate) reasks: u8,
}

impl SavedState {
    pub(crate) fn encode(&self, forms: &KnownForms) -> Vec<u8> {
        let mut out = Vec::with_capacity(256);
        out.extend_from_slice(&self.point.to_be_bytes());
        out.extend_from_slice(&self.kept_types.to_be_bytes());
        put_varint(&mut out, u64::from(self.steps));
        self.frame.encode(&mut out);
        put_varint(&mut out, self.pending.len() as u64);
        for (key, question) in &self.pending {
            put_bytes(&mut out, key.as_bytes());
            out.push(question.reasks);
            match &question.answer {
                None => out.push(0),
                Some(answer) => {
                    out.push(1);
                    put_bytes(&mut out, &serde_json::to_vec(answer).unwrap_or_default());
                }
            }
            encode_request(key, &question.request, forms, &mut out);
        }
        out
    }

    /// Decodes a verified state; `None` if it does not decode exactly, with nothing left, or
    /// names a known form this build does not declare.
    pub(crate) fn decode(bytes: &[u8], forms: &KnownForms) -> Option<Self> {
        Self::decode_with(bytes, &|id| forms.schema(id).cloned())
    }

    /// [`SavedState::decode`] with the schemas of known forms from `known_form`.
    fn decode_with(bytes: &[u8], known_form: &dyn Fn(u64) -> Option<Value>) -> Option<Self> {
        let mut input = Reader(bytes);
        let point = input.u32()?;
        let kept_types = input.u32()?;
        let steps = u32::try_from(input.varint()?).ok()?;
        let frame = Frame::decode(&mut input)?;
        let mut pending = BTreeMap::new();
        for _ in 0..input.varint()? {
            let key = input.str()?.to_owned();
            let reasks = input.byte()?;
            let answer = match input.byte()? {
                0 => None,
                1 => Some(serde_json::from_slice(input.bytes()?).ok()?),
                _ => return None,
            };
            let request = decode_request(&mut input, &key, known_form)?;
            let question = PendingQuestion {
                request,
                answer,
                reasks,
            };
            if pending.insert(key, question).is_some() {
                return None;
            }
        }
        input.0.is_empty().then_some(Self {
            point,
            kept_types,
            steps,
            frame,
            pending,
        })
    }
}

/// Why a state that does not decode fails, when it is a form this build does not declare: the
/// id of that form (its type's fields or descriptions changed since the state was minted).
pub(crate) fn unknown_form(bytes: &[u8], forms: &KnownForms) -> Option<u64> {
    let unknown = std::cell::Cell::new(None);
    let known_form = |id: u64| {
        forms.schema(id).cloned().or_else(|| {
            unknown.set(Some(id));
            Some(Value::Null)
        })
    };
    SavedState::decode_with(bytes, &known_form)?;
    unknown.get()
}

/// A state as JSON, for inspection: `{"p": resume point, "t"?: kept types, "s": steps, "f":
/// {slot: value}, "q": {key: {"r", "a"?, "n"?}}}`. A known form shows as `{"knownForm": id}`
/// in place of its schema, which only the server that declares it has.
pub(crate) fn view(bytes: &[u8]) -> Option<Value> {
    let known_form = |id: u64| {
        let mut placeholder = Map::new();
        placeholder.insert("knownForm".into(), format!("{id:016x}").into());
        Some(Value::Object(placeholder))
    };
    let state = SavedState::decode_with(bytes, &known_form)?;
    let mut questions = Map::new();
    for (key, question) in state.pending {
        let mut entry = Map::new();
        entry.insert("r".into(), question.request.into_value());
        if let Some(answer) = question.answer {
            entry.insert("a".into(), answer);
        }
        if question.reasks > 0 {
            entry.insert("n".into(), question.reasks.into());
        }
        questions.insert(key, Value::Object(entry));
    }
    let mut view = Map::new();
    view.insert("p".into(), state.point.into());
    if state.kept_types != 0 {
        view.insert("t".into(), state.kept_types.into());
    }
    view.insert("s".into(), state.steps.into());
    view.insert("f".into(), state.frame.view());
    if !questions.is_empty() {
        view.insert("q".into(), Value::Object(questions));
    }
    Some(Value::Object(view))
}

const GENERIC: u8 = 0;
const CHOICE: u8 = 1;
const TITLED_CHOICE: u8 = 2;
const FORM: u8 = 3;
const URL: u8 = 4;
const KNOWN_FORM: u8 = 5;
/// [`CHOICE`] and [`TITLED_CHOICE`] whose property is named after the question's key (what
/// `elicit::choice` sends unless `.field(..)` names it): the name is not stored twice.
const KEYED_CHOICE: u8 = 6;
const KEYED_TITLED_CHOICE: u8 = 7;

/// The property of an `elicit::choice` form never asked under a key.
const CHOICE_FIELD: &str = crate::author::ask::CHOICE_FIELD;

fn encode_request(key: &str, request: &InputRequest, forms: &KnownForms, out: &mut Vec<u8>) {
    if request.method == ELICITATION_CREATE
        && let Value::Object(params) = &request.params
        && params.len() == 3
        && let Some(Value::String(message)) = params.get("message")
    {
        match (
            params.get("mode").and_then(Value::as_str),
            params.get("url"),
        ) {
            (Some("url"), Some(Value::String(url))) => {
                out.push(URL);
                put_bytes(out, message.as_bytes());
                put_bytes(out, url.as_bytes());
                return;
            }
            (Some("form"), None) => {
                let Some(schema) = params.get("requestedSchema") else {
                    return encode_generic(request, out);
                };
                if encode_choice(key, message, schema, out) {
                    return;
                }
                if let Some(id) = forms.id_of(schema) {
                    out.push(KNOWN_FORM);
                    put_bytes(out, message.as_bytes());
                    out.extend_from_slice(&id.to_be_bytes());
                    return;
                }
                if let Some(cbor) = schema_to_cbor(schema) {
                    out.push(FORM);
                    put_bytes(out, message.as_bytes());
                    put_bytes(out, &cbor);
                    return;
                }
            }
            _ => {}
        }
    }
    encode_generic(request, out);
}

fn encode_generic(request: &InputRequest, out: &mut Vec<u8>) {
    out.push(GENERIC);
    put_bytes(out, request.method.as_bytes());
    put_bytes(
        out,
        &serde_json::to_vec(&request.params).unwrap_or_default(),
    );
}

/// Writes `schema` as a choice if it is exactly the shape [`choice_schema`] rebuilds, with its
/// property named `choice` or after `key`.
fn encode_choice(key: &str, message: &str, schema: &Value, out: &mut Vec<u8>) -> bool {
    let Some(schema) = schema.as_object() else {
        return false;
    };
    let Some(name) = schema
        .get("required")
        .and_then(Value::as_array)
        .and_then(|required| match required.as_slice() {
            [Value::String(name)] if name == CHOICE_FIELD || name == key => Some(name.as_str()),
            _ => None,
        })
    else {
        return false;
    };
    let (plain, titled) = if name == CHOICE_FIELD {
        (CHOICE, TITLED_CHOICE)
    } else {
        (KEYED_CHOICE, KEYED_TITLED_CHOICE)
    };
    let exact = schema.len() == 3 && schema.get("type").and_then(Value::as_str) == Some("object");
    let Some(property) = schema
        .get("properties")
        .and_then(Value::as_object)
        .filter(|properties| exact && properties.len() == 1)
        .and_then(|properties| properties.get(name))
        .and_then(Value::as_object)
        .filter(|property| {
            property.len() == 2 && property.get("type").and_then(Value::as_str) == Some("string")
        })
    else {
        return false;
    };
    if let Some(Value::Array(values)) = property.get("enum") {
        let Some(values) = values.iter().map(Value::as_str).collect::<Option<Vec<_>>>() else {
            return false;
        };
        out.push(plain);
        put_bytes(out, message.as_bytes());
        put_varint(out, values.len() as u64);
        for value in values {
            put_bytes(out, value.as_bytes());
        }
        return true;
    }
    let Some(Value::Array(options)) = property.get("oneOf") else {
        return false;
    };
    let options: Option<Vec<(&str, &str)>> = options
        .iter()
        .map(|option| {
            let option = option.as_object().filter(|option| option.len() == 2)?;
            Some((
                option.get("const")?.as_str()?,
                option.get("title")?.as_str()?,
            ))
        })
        .collect();
    let Some(options) = options else {
        return false;
    };
    out.push(titled);
    put_bytes(out, message.as_bytes());
    put_varint(out, options.len() as u64);
    for (value, title) in options {
        put_bytes(out, value.as_bytes());
        put_bytes(out, title.as_bytes());
    }
    true
}

/// The schema of a choice whose one property is `name`, exactly as `elicit::choice` builds it.
fn choice_schema(name: &str, property: Value) -> Value {
    let mut properties = Map::new();
    properties.insert(name.to_owned(), property);
    let mut schema = Map::new();
    schema.insert("type".into(), "object".into());
    schema.insert("properties".into(), Value::Object(properties));
    schema.insert("required".into(), Value::Array(vec![name.into()]));
    Value::Object(schema)
}

fn form(message: String, schema: Value) -> InputRequest {
    let mut params = Map::new();
    params.insert("mode".into(), "form".into());
    params.insert("message".into(), Value::String(message));
    params.insert("requestedSchema".into(), schema);
    InputRequest {
        method: ELICITATION_CREATE.to_owned(),
        params: Value::Object(params),
    }
}

fn decode_request(
    input: &mut Reader<'_>,
    key: &str,
    known_form: &dyn Fn(u64) -> Option<Value>,
) -> Option<InputRequest> {
    let tag = input.byte()?;
    let choice_name = match tag {
        KEYED_CHOICE | KEYED_TITLED_CHOICE => key,
        _ => CHOICE_FIELD,
    };
    Some(match tag {
        GENERIC => InputRequest {
            method: input.str()?.to_owned(),
            params: serde_json::from_slice(input.bytes()?).ok()?,
        },
        CHOICE | KEYED_CHOICE => {
            let message = input.str()?.to_owned();
            let count = input.varint()?;
            let values = (0..count)
                .map(|_| input.str().map(|value| Value::String(value.to_owned())))
                .collect::<Option<Vec<_>>>()?;
            let mut property = Map::new();
            property.insert("type".into(), "string".into());
            property.insert("enum".into(), Value::Array(values));
            form(message, choice_schema(choice_name, Value::Object(property)))
        }
        TITLED_CHOICE | KEYED_TITLED_CHOICE => {
            let message = input.str()?.to_owned();
            let count = input.varint()?;
            let options = (0..count)
                .map(|_| {
                    let mut option = Map::new();
                    option.insert("const".into(), input.str()?.into());
                    option.insert("title".into(), input.str()?.into());
                    Some(Value::Object(option))
                })
                .collect::<Option<Vec<_>>>()?;
            let mut property = Map::new();
            property.insert("type".into(), "string".into());
            property.insert("oneOf".into(), Value::Array(options));
            form(message, choice_schema(choice_name, Value::Object(property)))
        }
        FORM => {
            let message = input.str()?.to_owned();
            let schema = schema_from_cbor(input.bytes()?)?;
            form(message, schema)
        }
        KNOWN_FORM => {
            let message = input.str()?.to_owned();
            // A form this build does not declare: its type now asks something else.
            form(message, known_form(input.u64()?)?)
        }
        URL => {
            let message = input.str()?.to_owned();
            let url = input.str()?.to_owned();
            let mut params = Map::new();
            params.insert("mode".into(), "url".into());
            params.insert("message".into(), Value::String(message));
            params.insert("url".into(), Value::String(url));
            InputRequest {
                method: ELICITATION_CREATE.to_owned(),
                params: Value::Object(params),
            }
        }
        _ => return None,
    })
}

/// Form schemas are mostly the static schemas of form types, the same in every round: their
/// CBOR is encoded and decoded once, then taken from this small cache (up to 64 schemas).
static SCHEMAS: Mutex<Vec<(Value, Arc<[u8]>)>> = Mutex::new(Vec::new());
const CACHED_SCHEMAS: usize = 64;

fn schemas() -> std::sync::MutexGuard<'static, Vec<(Value, Arc<[u8]>)>> {
    SCHEMAS.lock().unwrap_or_else(|poison| poison.into_inner())
}

fn schema_to_cbor(schema: &Value) -> Option<Arc<[u8]>> {
    if let Some((_, cbor)) = schemas()
        .iter()
        .find(|(known, _)| crate::form::same_in_order(known, schema))
    {
        return Some(Arc::clone(cbor));
    }
    let mut cbor = Vec::new();
    ciborium::into_writer(schema, &mut cbor).ok()?;
    let cbor: Arc<[u8]> = cbor.into();
    let mut cache = schemas();
    if cache.len() < CACHED_SCHEMAS {
        cache.push((schema.clone(), Arc::clone(&cbor)));
    }
    Some(cbor)
}

fn schema_from_cbor(cbor: &[u8]) -> Option<Value> {
    if let Some((schema, _)) = schemas().iter().find(|(_, known)| **known == *cbor) {
        return Some(schema.clone());
    }
    let mut reader = cbor;
    let schema: Value = ciborium::from_reader(&mut reader).ok()?;
    if !reader.is_empty() {
        return None;
    }
    let mut cache = schemas();
    if cache.len() < CACHED_SCHEMAS {
        cache.push((schema.clone(), cbor.into()));
    }
    Some(schema)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::author::ask::elicit::{self, Pick};
    use serde_json::json;

    fn round_trip(request: InputRequest, forms: &KnownForms) {
        let mut pending = BTreeMap::new();
        pending.insert(
            "k".to_owned(),
            PendingQuestion {
                request: request.clone(),
                answer: Some(json!({"action": "accept"})),
                reasks: 2,
            },
        );
        let state = SavedState {
            point: 0x8a3f_0102,
            kept_types: 0xdead_beef,
            steps: 7,
            frame: Frame::json(json!({"a": 1})),
            pending,
        };
        let decoded = SavedState::decode(&state.encode(forms), forms).expect("decodes");
        assert_eq!(
            (decoded.point, decoded.kept_types, decoded.steps),
            (0x8a3f_0102, 0xdead_beef, 7)
        );
        assert_eq!(decoded.frame, state.frame);
        let question = &decoded.pending["k"];
        assert_eq!(question.request, request);
        assert_eq!(question.answer, Some(json!({"action": "accept"})));
        assert_eq!(question.reasks, 2);
    }

    #[test]
    fn every_kind_of_question_rebuilds_exactly() {
        let none = KnownForms::default();
        let choice = |options: Vec<Pick>| elicit::choice("Which?", options).into_request();
        round_trip(choice(vec![Pick::new("a"), Pick::new("b")]).unwrap(), &none);
        round_trip(
            choice(vec![Pick::new("a").title("A"), Pick::new("b")]).unwrap(),
            &none,
        );
        round_trip(choice(Vec::new()).unwrap(), &none);
        round_trip(
            elicit::url("Sign in", "https://example.com/x")
                .into_request()
                .unwrap(),
            &none,
        );
        round_trip(
            InputRequest {
                method: ELICITATION_CREATE.into(),
                params: json!({"mode": "form", "message": "m", "requestedSchema": {
                "type": "object", "properties": {"n": {"type": "integer", "minimum": -3,
                "maximum": 1.5, "default": 1}}, "required": ["n"]}}),
            },
            &none,
        );
        // Almost a choice: kept as a form, still exact.
        round_trip(
            InputRequest {
                method: ELICITATION_CREATE.into(),
                params: json!({"mode": "form", "message": "m", "requestedSchema": {
                "type": "object", "properties": {"choice": {"type": "string",
                "enum": ["a", 1]}}, "required": ["choice"]}}),
            },
            &none,
        );
        round_trip(
            InputRequest {
                method: "sampling/createMessage".into(),
                params: json!({"messages": [], "maxTokens": 5}),
            },
            &none,
        );
    }

    #[test]
    fn a_choice_named_after_its_key_is_stored_without_the_name() {
        let none = KnownForms::default();
        let options = || vec![Pick::new("a"), Pick::new("b").title("B")];
        let keyed = elicit::choice("Which?", options())
            .into_request_for("k")
            .unwrap();
        assert_eq!(keyed.params["requestedSchema"]["required"], json!(["k"]));
        round_trip(keyed.clone(), &none);
        let mut out = Vec::new();
        encode_request("k", &keyed, &none, &mut out);
        assert_eq!(out[0], KEYED_TITLED_CHOICE);
        // Named by `.field(..)`, the property is neither `choice` nor the key: kept as a form.
        let named = elicit::choice("Which?", options())
            .field("flight")
            .into_request_for("k")
            .unwrap();
        round_trip(named.clone(), &none);
        out.clear();
        encode_request("k", &named, &none, &mut out);
        assert_eq!(out[0], FORM);
        // A state minted before choices were named after their keys still rebuilds `choice`.
        let unnamed = elicit::choice("Which?", options()).into_request().unwrap();
        out.clear();
        encode_request("k", &unnamed, &none, &mut out);
        assert_eq!(out[0], TITLED_CHOICE);
        round_trip(unnamed, &none);
    }

    #[test]
    fn a_form_stored_whole_comes_back_in_its_order() {
        let none = KnownForms::default();
        let form = |names: [&str; 2]| {
            let mut properties = Map::new();
            for name in names {
                properties.insert(name.into(), json!({"type": "string"}));
            }
            InputRequest {
                method: ELICITATION_CREATE.into(),
                params: json!({"mode": "form", "message": "m", "requestedSchema": {
                    "type": "object", "properties": properties}}),
            }
        };
        // The same schema in two orders, one after the other: each keeps its own.
        for names in [["b_first", "a_second"], ["a_second", "b_first"]] {
            let request = form(names);
            let mut pending = BTreeMap::new();
            pending.insert(
                "k".to_owned(),
                PendingQuestion {
                    request,
                    answer: None,
                    reasks: 0,
                },
            );
            let state = SavedState {
                point: 1,
                kept_types: 0,
                steps: 1,
                frame: Frame::new(),
                pending,
            };
            let decoded = SavedState::decode(&state.encode(&none), &none).unwrap();
            let properties = &decoded.pending["k"].request.params["requestedSchema"]["properties"];
            let order: Vec<&String> = properties.as_object().unwrap().keys().collect();
            assert_eq!(order, names);
        }
    }

    #[test]
    fn a_known_form_is_stored_by_id_and_an_unknown_id_does_not_decode() {
        let schema = json!({"type": "object", "properties": {"saved_known_form": {"type": "boolean",
            "description": "Book it?"}}, "required": ["saved_known_form"]});
        let request = InputRequest {
            method: ELICITATION_CREATE.into(),
            params: json!({"mode": "form", "message": "Book?", "requestedSchema": schema}),
        };
        let (none, mut forms) = (KnownForms::default(), KnownForms::default());
        forms.register(schema.clone());
        let mut unknown = Vec::new();
        encode_request("ok", &request, &none, &mut unknown);
        let mut known = Vec::new();
        encode_request("ok", &request, &forms, &mut known);
        assert_eq!(known[0], KNOWN_FORM);
        assert_eq!(
            known.len(),
            1 + 1 + "Book?".len() + 8,
            "message and id only"
        );
        assert!(known.len() < unknown.len());
        round_trip(request.clone(), &forms);
        round_trip(request.clone(), &none);

        // A server that does not declare the form (another build, whose form type asks
        // something else) refuses the state rather than guess; inspection shows the rest.
        let mut state = SavedState {
            point: 1,
            kept_types: 0,
            steps: 1,
            frame: Frame::new(),
            pending: BTreeMap::new(),
        };
        state.pending.insert(
            "ok".into(),
            PendingQuestion {
                request,
                answer: None,
                reasks: 0,
            },
        );
        let bytes = state.encode(&forms);
        assert!(SavedState::decode(&bytes, &forms).is_some());
        assert!(SavedState::decode(&bytes, &none).is_none());
        let id = u64::from_be_bytes(bytes[bytes.len() - 8..].try_into().unwrap());
        assert_eq!(unknown_form(&bytes, &none), Some(id), "the log can say why");
        assert_eq!(unknown_form(&bytes, &forms), None);
        let shown = view(&bytes).expect("inspection shows it");
        let params = &shown["q"]["ok"]["r"]["params"];
        assert_eq!(params["message"], "Book?");
        assert!(
            params["requestedSchema"]["knownForm"].is_string(),
            "{shown}"
        );
    }

    #[test]
    fn trailing_or_missing_bytes_do_not_decode() {
        let state = SavedState {
            point: 1,
            kept_types: 0,
            steps: 1,
            frame: Frame::new(),
            pending: BTreeMap::new(),
        };
        let none = KnownForms::default();
        let mut bytes = state.encode(&none);
        assert!(SavedState::decode(&bytes, &none).is_some());
        bytes.push(0);
        assert!(SavedState::decode(&bytes, &none).is_none());
        bytes.truncate(bytes.len() - 2);
        assert!(SavedState::decode(&bytes, &none).is_none());
    }

    mod properties {
        use super::*;
        use proptest::prelude::*;

        fn question() -> impl Strategy<Value = InputRequest> {
            let text = "[a-z \\-é\"]{0,12}";
            prop_oneof![
                (text, prop::collection::vec(text, 0..6)).prop_map(|(message, values)| {
                    elicit::choice(message, values).into_request().unwrap()
                }),
                (text, prop::collection::vec((text, text), 0..6)).prop_map(|(message, options)| {
                    let options = options.into_iter().map(|(value, title)| Pick::new(value).title(title));
                    elicit::choice(message, options).into_request().unwrap()
                }),
                (text, text).prop_map(|(message, url)| InputRequest {
                    method: ELICITATION_CREATE.into(),
                    params: json!({"mode": "url", "message": message, "url": url}),
                }),
                (text, any::<i64>(), any::<bool>()).prop_map(|(message, number, flag)| InputRequest {
                    method: ELICITATION_CREATE.into(),
                    params: json!({"mode": "form", "message": message, "requestedSchema": {
                        "type": "object", "properties": {"n": {"type": "integer", "default": number},
                        "b": {"type": "boolean", "default": flag}}}}),
                }),
                (text, text).prop_map(|(method, value)| InputRequest {
                    method,
                    params: json!({"x": value, "y": [1.5, null]}),
                }),
            ]
        }

        proptest! {
            #![proptest_config(ProptestConfig::with_cases(128))]

            #[test]
            fn every_state_decodes_as_it_was_encoded(
                point in any::<u32>(),
                kept_types in any::<u32>(),
                steps in any::<u32>(),
                slots in prop::collection::btree_map("[a-z]{1,6}", prop::collection::vec(any::<u8>(), 0..20), 0..4),
                questions in prop::collection::btree_map("[a-z]{1,6}", (question(), any::<u8>(), any::<bool>()), 0..4),
                declared in any::<bool>(),
            ) {
                let mut frame = Frame::new();
                for (name, bytes) in &slots {
                    frame.put(name, bytes.clone());
                }
                let pending = questions
                    .iter()
                    .map(|(key, (request, reasks, answered))| {
                        let answer = answered.then(|| json!({"action": "decline"}));
                        (key.clone(), PendingQuestion { request: request.clone(), answer, reasks: *reasks })
                    })
                    .collect();
                let state = SavedState { point, kept_types, steps, frame, pending };
                // Either no form is declared, or every schema is: forms other than choices are
                // then stored by id, and must come back the same.
                let mut forms = KnownForms::default();
                if declared {
                    for (request, _, _) in questions.values() {
                        if let Some(schema) = request.params.get("requestedSchema") {
                            forms.register(schema.clone());
                        }
                    }
                }
                let decoded = SavedState::decode(&state.encode(&forms), &forms).expect("decodes");
                prop_assert_eq!((decoded.point, decoded.kept_types, decoded.steps), (point, kept_types, steps));
                prop_assert_eq!(&decoded.frame, &state.frame);
                prop_assert_eq!(decoded.pending.len(), state.pending.len());
                for (key, question) in &state.pending {
                    let back = &decoded.pending[key];
                    prop_assert_eq!(&back.request, &question.request);
                    prop_assert_eq!(&back.answer, &question.answer);
                    prop_assert_eq!(back.reasks, question.reasks);
                }
            }

            #[test]
            fn arbitrary_bytes_never_panic(bytes in prop::collection::vec(any::<u8>(), 0..200)) {
                let mut forms = KnownForms::default();
                forms.register(json!({"type": "object"}));
                let _ = SavedState::decode(&bytes, &KnownForms::default());
                let _ = SavedState::decode(&bytes, &forms);
                let _ = unknown_form(&bytes, &forms);
                let _ = view(&bytes);
            }
        }
    }
}
