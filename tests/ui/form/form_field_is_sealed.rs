#![allow(dead_code)]

use mrtr::AnswerError;
use mrtr::form::FormField;
use serde_json::{Map, Value, json};

/// A hand-written field that would put a nested object into a flat form.
struct Address;

impl FormField for Address {
    fn property_schema() -> Map<String, Value> {
        json!({"type": "object"}).as_object().unwrap().clone()
    }
    fn decode(_: Option<&Value>) -> Result<Self, AnswerError> {
        Ok(Address)
    }
    fn encode(&self) -> Option<Value> {
        None
    }
}

fn main() {}
