//! Drives `mrtr::Server` like a client in the facade's tests.
#![allow(dead_code)]

pub mod streamable;

use std::collections::BTreeMap;
use std::io::Write;
use std::sync::{Arc, Mutex};

use mrtr::Server;
use mrtr::token::{KeyId, KeyRing, SecretKey};
use serde_json::{Map, Value, json};

/// Counts how many times each step of a tool ran.
#[derive(Default)]
pub struct Counters(Mutex<BTreeMap<String, usize>>);

impl Counters {
    pub fn hit(&self, step: &str) {
        *self.0.lock().unwrap().entry(step.to_owned()).or_default() += 1;
    }

    pub fn get(&self, step: &str) -> usize {
        self.0.lock().unwrap().get(step).copied().unwrap_or(0)
    }

    pub fn all(&self) -> BTreeMap<String, usize> {
        self.0.lock().unwrap().clone()
    }
}

pub fn ring(byte: u8) -> KeyRing {
    KeyRing::with_signing_key(
        KeyId::new("test").unwrap(),
        SecretKey::from_bytes(vec![byte; 32]).unwrap(),
    )
}

pub struct Client {
    pub server: Server,
    pub capabilities: Value,
    next_id: std::cell::Cell<u64>,
}

pub struct Reply(pub Value);

impl Client {
    pub fn new(server: Server) -> Self {
        Self {
            server,
            capabilities: json!({"elicitation": {}, "sampling": {}}),
            next_id: std::cell::Cell::new(1),
        }
    }

    pub async fn call(
        &self,
        tool: &str,
        arguments: Value,
        responses: Option<Value>,
        state: Option<&str>,
    ) -> Reply {
        let mut params = Map::new();
        params.insert(
            "_meta".into(),
            json!({"io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": self.capabilities}),
        );
        params.insert("name".into(), tool.into());
        params.insert("arguments".into(), arguments);
        if let Some(responses) = responses {
            params.insert("inputResponses".into(), responses);
        }
        if let Some(state) = state {
            params.insert("requestState".into(), state.into());
        }
        let id = self.next_id.get();
        self.next_id.set(id + 1);
        let response = self
            .server
            .handle(json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": params}))
            .await;
        Reply(response)
    }

    /// Runs a flow to the end, answering each round with `answer(round, keys)`.
    pub async fn run(
        &self,
        tool: &str,
        arguments: Value,
        mut answer: impl FnMut(usize, &Value) -> Value,
    ) -> (Reply, Vec<Vec<String>>) {
        let mut asked = Vec::new();
        let mut reply = self.call(tool, arguments.clone(), None, None).await;
        for round in 1..=20 {
            if !reply.is_input_required() {
                return (reply, asked);
            }
            asked.push(reply.keys());
            let responses = answer(round, &reply.result()["inputRequests"]);
            let state = reply.state();
            reply = self
                .call(tool, arguments.clone(), Some(responses), Some(&state))
                .await;
        }
        panic!("no end after 20 rounds");
    }
}

impl Reply {
    pub fn result(&self) -> &Value {
        assert!(
            self.0.get("error").is_none(),
            "expected a result, got {}",
            self.0
        );
        &self.0["result"]
    }

    pub fn is_input_required(&self) -> bool {
        self.result()["resultType"] == "input_required"
    }

    pub fn keys(&self) -> Vec<String> {
        self.result()["inputRequests"]
            .as_object()
            .map(|requests| requests.keys().cloned().collect())
            .unwrap_or_default()
    }

    pub fn state(&self) -> String {
        self.result()["requestState"]
            .as_str()
            .expect("requestState")
            .to_owned()
    }

    pub fn text(&self) -> String {
        let result = self.result();
        assert_eq!(result["resultType"], "complete", "{}", self.0);
        result["content"][0]["text"]
            .as_str()
            .unwrap_or_default()
            .to_owned()
    }

    pub fn is_error(&self) -> bool {
        self.result()["isError"] == true
    }

    pub fn error_code(&self) -> i64 {
        self.0["error"]["code"]
            .as_i64()
            .unwrap_or_else(|| panic!("expected an error, got {}", self.0))
    }

    pub fn message(&self, key: &str) -> String {
        self.result()["inputRequests"][key]["params"]["message"]
            .as_str()
            .unwrap_or_default()
            .to_owned()
    }
}

pub fn accept(content: Value) -> Value {
    json!({"action": "accept", "content": content})
}

/// What an HMAC-mode token sealed with `ring(3)` holds, as the codec shows it for inspection
/// (`{"p", "s", "f", "q"}`).
pub fn hmac_payload(token: &str) -> Value {
    let codec = mrtr::token::StateCodec::builder()
        .mode(mrtr::token::Mode::Hmac)
        .key_ring(ring(3))
        .build()
        .unwrap();
    codec.inspect(token).unwrap().payload
}

/// Keeps what a `tracing` subscriber writes (give it `move || sink.clone()` as its writer), for
/// a test to read.
#[derive(Clone, Default)]
pub struct Sink(Arc<Mutex<Vec<u8>>>);

impl Write for Sink {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(bytes);
        Ok(bytes.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl Sink {
    /// What was written so far, and forgets it.
    pub fn take(&self) -> String {
        String::from_utf8(std::mem::take(&mut *self.0.lock().unwrap())).unwrap()
    }
}
