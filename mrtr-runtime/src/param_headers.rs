//! SEP-2243 custom headers: a tool argument whose schema carries `x-mcp-header: "Name"` is
//! mirrored by HTTP clients in an `Mcp-Param-Name` header, which the server must check against
//! the body. rmcp makes that check for the tools its handler's `get_tool` returns; the server
//! builder refuses annotations a client would reject.

use std::collections::HashSet;

use serde_json::{Map, Value};

/// The annotation on an argument's schema that names its header.
const ANNOTATION: &str = "x-mcp-header";

/// Whether `schema` (a tool's input schema) mirrors any argument, at any depth of
/// `properties`, in an `Mcp-Param-*` header.
pub(crate) fn declares_param_headers(schema: &Value) -> bool {
    let Some(properties) = schema.get("properties").and_then(Value::as_object) else {
        return false;
    };
    properties
        .values()
        .any(|property| property.get(ANNOTATION).is_some() || declares_param_headers(property))
}

/// Why `schema`'s annotations would make a client drop the tool, if they would: each must sit
/// on a property reached from the root through `properties` alone, name a non-empty HTTP token
/// that no other annotation names (case aside), and annotate a `string`, `integer` or
/// `boolean`.
pub(crate) fn check_param_headers(schema: &Value) -> Result<(), String> {
    let Some(root) = schema.as_object() else {
        return Ok(());
    };
    if root.contains_key(ANNOTATION) {
        return Err(format!(
            "{ANNOTATION} must annotate an argument, not the whole schema"
        ));
    }
    let mut seen = HashSet::new();
    check_properties(root, "", &mut seen)?;
    if annotated_off_path(root, true) {
        return Err(format!(
            "{ANNOTATION} must sit on a property reached through `properties` alone \
             (not inside `$defs`, `items`, `anyOf`, ...): inline the type, e.g. with \
             #[schemars(inline)]"
        ));
    }
    Ok(())
}

/// Checks the annotated properties under `schema.properties`, depth first.
fn check_properties(
    schema: &Map<String, Value>,
    prefix: &str,
    seen: &mut HashSet<String>,
) -> Result<(), String> {
    let Some(properties) = schema.get("properties").and_then(Value::as_object) else {
        return Ok(());
    };
    for (name, property) in properties {
        let path = format!("{prefix}{name}");
        let Some(property) = property.as_object() else {
            continue;
        };
        if let Some(header) = property.get(ANNOTATION) {
            let header = header
                .as_str()
                .ok_or_else(|| format!("argument `{path}`: {ANNOTATION} must be a string"))?;
            if header.is_empty() || !header.chars().all(is_token_char) {
                return Err(format!(
                    "argument `{path}`: {ANNOTATION} {header:?} is not an HTTP token (letters, \
                     digits and !#$%&'*+-.^_`|~)"
                ));
            }
            if !seen.insert(header.to_ascii_lowercase()) {
                return Err(format!(
                    "argument `{path}`: header {header:?} is mirrored twice (names are \
                     case-insensitive)"
                ));
            }
            let kind = property.get("type").and_then(Value::as_str);
            if !matches!(kind, Some("string" | "integer" | "boolean")) {
                return Err(format!(
                    "argument `{path}`: {ANNOTATION} needs a `string`, `integer` or `boolean` \
                     argument, found type {}",
                    property
                        .get("type")
                        .map_or("none".to_owned(), Value::to_string)
                ));
            }
        }
        check_properties(property, &format!("{path}."), seen)?;
    }
    Ok(())
}

/// Whether an annotation sits anywhere but on the `properties` path from the root.
/// `on_path`: `schema` is the root or a property reached through `properties` alone.
fn annotated_off_path(schema: &Map<String, Value>, on_path: bool) -> bool {
    schema.iter().any(|(key, value)| match key.as_str() {
        ANNOTATION => !on_path,
        "properties" => value
            .as_object()
            .is_some_and(|properties| properties.values().any(|p| off_path(p, on_path))),
        // Instance data and property names, not schemas.
        "default" | "const" | "enum" | "examples" | "dependentRequired" | "required" => false,
        _ => off_path(value, false),
    })
}

fn off_path(value: &Value, on_path: bool) -> bool {
    match value {
        Value::Object(schema) => annotated_off_path(schema, on_path),
        Value::Array(items) => items.iter().any(|item| off_path(item, false)),
        _ => false,
    }
}

/// RFC 9110 `tchar`.
fn is_token_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || "!#$%&'*+-.^_`|~".contains(c)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::{check_param_headers, declares_param_headers};

    #[test]
    fn finds_annotations_at_any_depth_and_only_on_properties() {
        let flat = json!({"type": "object", "properties": {
            "region": {"type": "string", "x-mcp-header": "Region"},
            "city": {"type": "string"},
        }});
        assert!(declares_param_headers(&flat));
        let nested = json!({"type": "object", "properties": {
            "place": {"type": "object", "properties": {
                "region": {"type": "string", "x-mcp-header": "Region"},
            }},
        }});
        assert!(declares_param_headers(&nested));
        let none = json!({"type": "object", "properties": {"city": {"type": "string"}}});
        assert!(!declares_param_headers(&none));
        // On the schema itself, not on an argument: nothing is mirrored.
        let misplaced = json!({"type": "object", "x-mcp-header": "Region", "properties": {}});
        assert!(!declares_param_headers(&misplaced));
        assert!(!declares_param_headers(&json!({"type": "object"})));
    }

    #[test]
    fn annotations_a_client_would_reject_are_named() {
        let ok = json!({"type": "object", "properties": {
            "region": {"type": "string", "x-mcp-header": "Region"},
            "count": {"type": "integer", "x-mcp-header": "Count"},
            "place": {"type": "object", "properties": {
                "zone": {"type": "boolean", "x-mcp-header": "Zone"},
            }},
        }});
        assert_eq!(check_param_headers(&ok), Ok(()));
        let refused = |schema: serde_json::Value, needle: &str| {
            let reason = check_param_headers(&schema).unwrap_err();
            assert!(reason.contains(needle), "{reason}");
        };
        refused(
            json!({"x-mcp-header": "R", "properties": {}}),
            "not the whole schema",
        );
        refused(
            json!({"properties": {"a": {"type": "string", "x-mcp-header": ""}}}),
            "not an HTTP token",
        );
        refused(
            json!({"properties": {"a": {"type": "string", "x-mcp-header": "Re gion"}}}),
            "not an HTTP token",
        );
        refused(
            json!({"properties": {"a": {"type": "string", "x-mcp-header": 7}}}),
            "must be a string",
        );
        refused(
            json!({"properties": {
                "a": {"type": "string", "x-mcp-header": "Region"},
                "b": {"type": "string", "x-mcp-header": "REGION"},
            }}),
            "mirrored twice",
        );
        // schemars writes an `Option<String>` as ["string", "null"].
        refused(
            json!({"properties": {"a": {"type": ["string", "null"], "x-mcp-header": "A"}}}),
            "found type",
        );
        refused(
            json!({"properties": {"a": {"type": "number", "x-mcp-header": "A"}}}),
            "found type",
        );
        refused(
            json!({"properties": {"a": {"$ref": "#/$defs/A"}}, "$defs": {"A": {"type": "object",
                "properties": {"b": {"type": "string", "x-mcp-header": "B"}}}}}),
            "`properties` alone",
        );
        refused(
            json!({"properties": {"a": {"type": "array", "items": {"type": "string",
                "x-mcp-header": "A"}}}}),
            "`properties` alone",
        );
    }
}
