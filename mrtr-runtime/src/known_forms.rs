//! The forms this process's machines ask by type (`elicit::form::<T>`), by an id derived from
//! their schema: a state waiting at such a form names it by id instead of carrying its schema
//! (issue 13: the token holds what cannot be rebuilt, and a form type's schema can be).
//!
//! A server registers the forms of its machines when it is built ([`Machine::known_forms`]).
//! The id is a hash of the schema itself, so every instance of a build agrees on it, and a
//! later build whose form type asks something else has another id: a state waiting at the old
//! form is then refused rather than validated against a schema its user never saw.
//!
//! [`Machine::known_forms`]: crate::Machine::known_forms

use std::sync::RwLock;

use serde_json::Value;
use sha2::{Digest, Sha256};

/// Every registered schema with its id. A handful per server: a scan is cheaper than hashing.
static KNOWN: RwLock<Vec<(u64, Value)>> = RwLock::new(Vec::new());

/// The id of `schema`: the first 8 bytes of SHA-256 over its JSON.
fn id(schema: &Value) -> u64 {
    let json = serde_json::to_vec(schema).unwrap_or_default();
    let digest = Sha256::digest(&json);
    u64::from_be_bytes(digest[..8].try_into().expect("8 bytes"))
}

/// Registers `schema` (once).
pub(crate) fn register(schema: Value) {
    let mut known = KNOWN.write().unwrap_or_else(|poison| poison.into_inner());
    if !known.iter().any(|(_, registered)| *registered == schema) {
        known.push((id(&schema), schema));
    }
}

/// The id of `schema` if it is registered.
pub(crate) fn id_of(schema: &Value) -> Option<u64> {
    let known = KNOWN.read().unwrap_or_else(|poison| poison.into_inner());
    known
        .iter()
        .find(|(_, registered)| registered == schema)
        .map(|(id, _)| *id)
}

/// The schema registered under `id`.
pub(crate) fn schema(id: u64) -> Option<Value> {
    let known = KNOWN.read().unwrap_or_else(|poison| poison.into_inner());
    known
        .iter()
        .find(|(registered, _)| *registered == id)
        .map(|(_, schema)| schema.clone())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_registered_schema_is_found_by_content_and_by_id() {
        let schema =
            json!({"type": "object", "properties": {"known_forms_test": {"type": "boolean"}}});
        assert_eq!(id_of(&schema), None);
        register(schema.clone());
        register(schema.clone());
        let id = id_of(&schema).expect("registered");
        assert_eq!(super::schema(id).as_ref(), Some(&schema));
        // Pinned: every instance and every later build derives the same id.
        assert_eq!(id, 0xd365_69b5_9ac2_3a34);
        let other =
            json!({"type": "object", "properties": {"known_forms_test": {"type": "string"}}});
        assert_ne!(super::id(&other), id);
        assert_eq!(id_of(&other), None);
    }
}
