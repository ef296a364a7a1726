//! A tool's `execution` (`taskSupport`, SEP-2663) through rmcp 3.11, whose `Tool` has no such
//! field: deserializing a `tools/list` entry into it drops `execution`. The entry carries it in
//! its `_meta` under [`CARRIER`] (which rmcp keeps), and the byte-level filter every mrtr
//! transport applies ([`strip_retired_fields`](super::strip_retired_fields): mrtr's stdio and
//! [`McpServer::streamable_http`](super::McpServer::streamable_http)) moves it back to the
//! top level before the message leaves.

use serde_json::{Map, Value};

/// The `_meta` key that carries a tool's `execution` through rmcp's typed `Tool`.
pub(crate) const CARRIER: &str = "mrtr/execution";

/// Moves a `tools/list` entry's `execution` into its `_meta`, where rmcp's `Tool` keeps it.
pub(crate) fn carry_in_meta(entry: &mut Value) {
    let Some(entry) = entry.as_object_mut() else {
        return;
    };
    let Some(execution) = entry.remove("execution") else {
        return;
    };
    let meta = entry
        .entry("_meta")
        .or_insert_with(|| Value::Object(Map::new()));
    if let Value::Object(meta) = meta {
        meta.insert(CARRIER.into(), execution);
    }
}

/// [`carry_in_meta`] on every tool of a `tools/list` result.
pub(crate) fn carry_list_in_meta(result: &mut Value) {
    if let Some(Value::Array(tools)) = result.get_mut("tools") {
        tools.iter_mut().for_each(carry_in_meta);
    }
}

/// Moves each carried `execution` of a `tools/list` response back to its tool's top level
/// (in place), dropping a `_meta` left empty.
pub(crate) fn hoist(message: &mut Value) {
    let Some(tools) = message
        .pointer_mut("/result/tools")
        .and_then(Value::as_array_mut)
    else {
        return;
    };
    for tool in tools.iter_mut().filter_map(Value::as_object_mut) {
        let Some(Value::Object(meta)) = tool.get_mut("_meta") else {
            continue;
        };
        let Some(execution) = meta.remove(CARRIER) else {
            continue;
        };
        if meta.is_empty() {
            tool.remove("_meta");
        }
        tool.insert("execution".into(), execution);
    }
}

/// Whether serialized bytes may hold a carried `execution`.
pub(crate) fn names_carrier(bytes: &[u8]) -> bool {
    memchr::memmem::find(bytes, b"\"mrtr/execution\"").is_some()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn execution_survives_rmcps_tool_through_meta_and_is_hoisted_back() {
        let mut entry = json!({"name": "t", "inputSchema": {"type": "object"},
            "execution": {"taskSupport": "required"}});
        carry_in_meta(&mut entry);
        let tool: rmcp::model::Tool = serde_json::from_value(entry).unwrap();
        let listed = rmcp::model::ListToolsResult::with_all_items(vec![tool]);
        let mut message = json!({"jsonrpc": "2.0", "id": 1, "result": listed});
        assert!(names_carrier(message.to_string().as_bytes()));
        hoist(&mut message);
        let tool = &message["result"]["tools"][0];
        assert_eq!(tool["execution"], json!({"taskSupport": "required"}));
        assert!(tool.get("_meta").is_none(), "{tool}");
    }

    #[test]
    fn other_meta_stays() {
        let mut message = json!({"result": {"tools": [{"name": "t",
            "_meta": {"mrtr/execution": {"taskSupport": "optional"}, "x/y": 1}}]}});
        hoist(&mut message);
        assert_eq!(message["result"]["tools"][0]["_meta"], json!({"x/y": 1}));
        assert_eq!(
            message["result"]["tools"][0]["execution"]["taskSupport"],
            "optional"
        );
    }
}
