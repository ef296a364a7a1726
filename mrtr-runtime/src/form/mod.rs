//! Elicitation forms: the restricted, flat schema of MCP form-mode elicitation, and the typed
//! values decoded from an accepted answer.
//!
//! Derive [`Form`] on a struct with named fields (`#[derive(mrtr::Form)]`) and [`Choice`] on a
//! unit-only enum (`#[derive(mrtr::Choice)]`); the derives refuse anything the restricted schema
//! cannot express. An accepted answer is validated against the schema that was sent (see
//! [`validate_content`]) before it is decoded, and an invalid one is asked again with the reason.

mod field;
mod validate;

use serde_json::{Map, Value};

pub use field::{Choice, ChoiceOption, FormField};
pub use validate::validate_content;

/// A struct that can be asked for with a form-mode elicitation.
///
/// Implement it with `#[derive(mrtr::Form)]`; a hand-written implementation must keep
/// [`Form::requested_schema`] inside the restricted grammar and decode whatever it accepts.
pub trait Form: Sized {
    /// The `requestedSchema` sent to the client: `{"type": "object", "properties": .., "required": ..}`.
    fn requested_schema() -> Value;

    /// Builds the value from `content` that already passed [`validate_content`] against
    /// [`Form::requested_schema`]. An error here means the two disagree.
    fn from_content(content: &Map<String, Value>) -> Result<Self, String>;
}

/// Builds a form's `requestedSchema` one field at a time (what `#[derive(Form)]` emits, and a
/// convenience for hand-written forms).
#[derive(Debug, Default)]
pub struct FormSchema {
    properties: Map<String, Value>,
    required: Vec<Value>,
}

impl FormSchema {
    /// Adds a property.
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
