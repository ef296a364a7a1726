//! Elicitation forms: the restricted, flat schema of MCP form-mode elicitation, and the typed
//! values decoded from an accepted answer.
//!
//! Derive [`Form`] on a struct with named fields (`#[derive(mrtr::Form)]`) and [`Choice`] on a
//! unit-only enum (`#[derive(mrtr::Choice)]`); the derives refuse anything the restricted schema
//! cannot express. An accepted answer is validated against the schema that was sent (see
//! [`validate_content`]) before it is decoded, and an invalid one is asked again with the reason.

mod answer_error;
mod field;
mod validate;

use serde_json::{Map, Value};

pub use answer_error::AnswerError;
pub use field::{Choice, ChoiceOption, FormField};

/// What `#[derive(Form)]` and `#[derive(Choice)]` generate code against. Not a public API.
#[doc(hidden)]
pub mod __derive {
    pub use serde;

    pub use super::field::has_option;

    /// Seals [`FormField`](super::FormField): implemented by the runtime's field types and by
    /// `#[derive(Choice)]` only. Implementing it by hand voids the flat-schema guarantee.
    #[diagnostic::on_unimplemented(
        message = "`{Self}` cannot be a field of an elicitation form",
        label = "not a flat form field",
        note = "MCP forms are flat: use String, bool, an integer or float, a \
                `#[derive(mrtr::Choice)]` enum, `Vec` of such an enum (multi-select), or `Option` \
                of any of these; `FormField` cannot be implemented by hand"
    )]
    pub trait Sealed {}

    /// Narrows a bound of `schema` to `value`, never widening it: a `#[form(minimum = ..)]`
    /// below the type's own minimum keeps the type's.
    pub fn narrow_bound(
        schema: &mut serde_json::Map<String, serde_json::Value>,
        key: &str,
        value: serde_json::Value,
    ) {
        let tighter = match schema.get(key) {
            Some(current) => {
                let (Some(old), Some(new)) = (current.as_f64(), value.as_f64()) else {
                    return;
                };
                // Integers are compared exactly where f64 would round.
                let ordering = match (as_i128(current), as_i128(&value)) {
                    (Some(old), Some(new)) => new.cmp(&old),
                    _ => new.partial_cmp(&old).unwrap_or(std::cmp::Ordering::Equal),
                };
                match key {
                    "minimum" => ordering.is_gt(),
                    _ => ordering.is_lt(),
                }
            }
            None => true,
        };
        if tighter {
            schema.insert(key.to_owned(), value);
        }
    }

    fn as_i128(value: &serde_json::Value) -> Option<i128> {
        value
            .as_i64()
            .map(i128::from)
            .or_else(|| value.as_u64().map(i128::from))
    }
}
pub use validate::validate_content;

/// Whether two schemas (or any values) are equal with their members in the same order.
/// `Value`'s own equality ignores the order, which is the order a form's fields are shown in.
pub(crate) fn same_in_order(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Object(a), Value::Object(b)) => {
            a.len() == b.len()
                && a.iter()
                    .zip(b)
                    .all(|((ka, va), (kb, vb))| ka == kb && same_in_order(va, vb))
        }
        (Value::Array(a), Value::Array(b)) => {
            a.len() == b.len() && a.iter().zip(b).all(|(a, b)| same_in_order(a, b))
        }
        _ => a == b,
    }
}

/// A struct that can be asked for with a form-mode elicitation.
///
/// Implement it with `#[derive(mrtr::Form)]`; a hand-written implementation must keep
/// [`Form::requested_schema`] inside the restricted grammar and decode whatever it accepts.
pub trait Form: Sized {
    /// The `requestedSchema` sent to the client: `{"type": "object", "properties": ..,
    /// "required": ..}`, with the properties in the order the client should show them.
    fn requested_schema() -> Value;

    /// Builds the value from `content` that already passed [`validate_content`] against
    /// [`Form::requested_schema`]. An error here means the two disagree.
    fn from_content(content: &Map<String, Value>) -> Result<Self, AnswerError>;
}

/// Builds a form's `requestedSchema` one field at a time (what `#[derive(Form)]` emits, and a
/// convenience for hand-written forms).
#[derive(Debug, Default)]
pub struct FormSchema {
    properties: Map<String, Value>,
    required: Vec<Value>,
}

impl FormSchema {
    /// Adds a property after those added before: `properties` and `required` go on the wire
    /// in this order, which is the order clients show the fields in (`#[derive(Form)]` adds
    /// them in declaration order).
    pub fn field(&mut self, name: &str, schema: Map<String, Value>, required: bool) {
        self.properties
            .insert(name.to_owned(), Value::Object(schema));
        if required {
            self.required.push(Value::from(name));
        }
    }

    /// The `{"type": "object", "properties": .., "required": ..}` schema (`required` omitted
    /// when empty).
    pub fn into_value(self) -> Value {
        let mut schema = Map::new();
        schema.insert("type".into(), "object".into());
        schema.insert("properties".into(), Value::Object(self.properties));
        if !self.required.is_empty() {
            schema.insert("required".into(), Value::Array(self.required));
        }
        Value::Object(schema)
    }
}
