//! A whole round through the engine with arbitrary `inputResponses` and `requestState` must
//! never panic and always answer with a result or a JSON-RPC error.
#![no_main]

use std::sync::LazyLock;

use libfuzzer_sys::fuzz_target;
use mrtr::token::{KeyId, KeyRing, SecretKey};
use mrtr::{Form, Server, ToolError, elicit};
use serde_json::{Value, json};

#[derive(Form)]
struct Details {
    #[form(min_length = 1, max_length = 20)]
    name: String,
    #[form(minimum = 0, maximum = 120)]
    age: u8,
    #[form(format = "email")]
    email: Option<String>,
}

#[derive(Form)]
struct Confirm {
    ok: bool,
}

/// Two rounds with a batch and a loop, so answers meet every validation path.
#[mrtr::tool]
async fn fuzzed() -> Result<String, ToolError> {
    let mut tries = 0u8;
    let details = loop {
        tries += 1;
        let details = ask!(elicit::form::<Details>("Details?"));
        if let mrtr::Answer::Accept(details) = details {
            break details;
        }
        if tries > 3 {
            return Ok("gave up".into());
        }
    };
    let (confirm, pick) = ask!(confirm = elicit::form::<Confirm>("Sure?"), pick = elicit::choice("Which?", ["a", "b"]));
    let confirmed = confirm.ok().is_some_and(|confirm| confirm.ok);
    Ok(format!("{} {} {confirmed} {:?}", details.name, details.age, pick.ok()))
}

static RUNTIME: LazyLock<tokio::runtime::Runtime> = LazyLock::new(|| tokio::runtime::Builder::new_current_thread().build().unwrap());

static SERVER: LazyLock<Server> = LazyLock::new(|| {
    let ring = KeyRing::with_signing_key(KeyId::new("fuzz").unwrap(), SecretKey::from_bytes(vec![3; 32]).unwrap());
    Server::builder("fuzz", "0").key_ring(ring).tool(fuzzed).build().unwrap()
});

fn call(extra: Value) -> Value {
    let mut params = json!({
        "_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {"elicitation": {}}},
        "name": "fuzzed", "arguments": {}
    });
    if let (Value::Object(params), Value::Object(extra)) = (&mut params, extra) {
        params.extend(extra);
    }
    let request = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": params});
    let response = RUNTIME.block_on(SERVER.handle(request));
    assert!(response.get("result").is_some() != response.get("error").is_some(), "{response}");
    response
}

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    // The input is the inputResponses value (any JSON, or the raw text as a string).
    let responses: Value = serde_json::from_str(text).unwrap_or_else(|_| Value::String(text.to_owned()));
    // Sent before any question, and as the retry of round 1 with its state.
    let first = call(json!({"inputResponses": responses.clone()}));
    let round1 = call(json!({}));
    let state = round1["result"]["requestState"].clone();
    let second = call(json!({"inputResponses": responses.clone(), "requestState": state.clone()}));
    // And once more from wherever that led, with the same answers.
    if let Some(next) = second["result"]["requestState"].as_str() {
        call(json!({"inputResponses": responses, "requestState": next}));
    }
    let _ = (first, text.len());
});
