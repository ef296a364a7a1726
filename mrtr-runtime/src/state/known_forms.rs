//! The forms a server's machines ask by type (`elicit::form::<T>`), by an id derived from
//! their schema: a state waiting at such a form names it by id instead of carrying its schema
//! (issue 13: the token holds what cannot be rebuilt, and a form type's schema can be).
//!
//! A server registers the forms of its machines when it is built ([`Machine::known_forms`]),
//! and only its own: a state resumes where the form it waits for is declared.
//! The id is a hash of the schema itself, so every instance of a build agrees on it, and a
//! later build whose form type asks something else has another id: a state waiting at the old
//! form is then refused rather than validated against a schema its user never saw.
//!
//! [`Machine::known_forms`]: crate::Machine::known_forms

use serde_json::Value;
use sha2::{Digest, Sha256};

/// The forms one server's machines ask by type, each with its id. A handful per server: a
/// scan is cheaper than hashing.
#[derive(Debug, Default)]
pub(crate) struct KnownForms {
    forms: Vec<(u64, Value)>,
}

/// The id of `schema`: the first 8 bytes of SHA-256 over its canonical JSON (RFC 8785). Its
/// members are sorted, so the id does not depend on the order properties are declared in (the
/// order they go on the wire in), and it is the id earlier builds, whose JSON objects were
/// always sorted, derived.
fn id(schema: &Value) -> u64 {
    let json = crate::token::canonical_json(schema);
    let digest = Sha256::digest(&json);
    u64::from_be_bytes(digest[..8].try_into().expect("8 bytes"))
}

impl KnownForms {
    /// Registers `schema` (once).
    pub(crate) fn register(&mut self, schema: Value) {
        if self.id_of(&schema).is_none() {
            self.forms.push((id(&schema), schema));
        }
    }

    /// The id of `schema` if it is registered.
    pub(crate) fn id_of(&self, schema: &Value) -> Option<u64> {
        self.forms
            .iter()
            .find(|(_, registered)| registered == schema)
            .map(|(id, _)| *id)
    }

    /// The schema registered under `id`.
    pub(crate) fn schema(&self, id: u64) -> Option<&Value> {
        self.forms
            .iter()
            .find(|(registered, _)| *registered == id)
            .map(|(_, schema)| schema)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_registered_schema_is_found_by_content_and_by_id() {
        let schema =
            json!({"type": "object", "properties": {"known_forms_test": {"type": "boolean"}}});
        let mut known = KnownForms::default();
        assert_eq!(known.id_of(&schema), None);
        known.register(schema.clone());
        known.register(schema.clone());
        assert_eq!(known.forms.len(), 1);
        let id = known.id_of(&schema).expect("registered");
        assert_eq!(known.schema(id), Some(&schema));
        // Pinned: every instance and every later build derives the same id.
        assert_eq!(id, 0xd365_69b5_9ac2_3a34);
        let other =
            json!({"type": "object", "properties": {"known_forms_test": {"type": "string"}}});
        assert_ne!(super::id(&other), id);
        // The same members in another order: the same form, the same id.
        let reordered =
            json!({"properties": {"known_forms_test": {"type": "boolean"}}, "type": "object"});
        assert_eq!(super::id(&reordered), id);
        assert_eq!(known.id_of(&other), None);
        assert_eq!(known.schema(super::id(&other)), None);
    }
}
