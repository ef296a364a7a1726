//! SEP-2243 custom headers: a tool argument whose schema carries `x-mcp-header: "Name"` is
//! mirrored by HTTP clients in an `Mcp-Param-Name` header, which the server must check against
//! the body. rmcp makes that check for the tools its handler's `get_tool` returns.

use serde_json::Value;

/// The annotation on an argument's schema that names its header.
const ANNOTATION: &str = "x-mcp-header";

/// Whether `schema` (a tool's input schema) mirrors any argument, at any depth of
/// `properties`, in an `Mcp-Param-*` header.
pub(super) fn declares_param_headers(schema: &Value) -> bool {
    let Some(properties) = schema.get("properties").and_then(Value::as_object) else {
        return false;
    };
    properties
        .values()
        .any(|property| property.get(ANNOTATION).is_some() || declares_param_headers(property))
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::declares_param_headers;

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
}
