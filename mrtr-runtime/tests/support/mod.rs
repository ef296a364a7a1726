//! A tiny JSON-RPC client for driving `mrtr::Server` in tests.
#![allow(dead_code)]

use mrtr_runtime::Server;
use serde_json::{Map, Value, json};

pub struct Client {
    pub server: Server,
    pub capabilities: Value,
    pub principal: Option<String>,
    next_id: std::cell::Cell<u64>,
}

impl Client {
    pub fn new(server: Server) -> Self {
        Self {
            server,
            capabilities: json!({"elicitation": {}, "sampling": {}, "roots": {}}),
            principal: None,
            next_id: std::cell::Cell::new(1),
        }
    }

    pub fn meta(&self) -> Value {
        json!({
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": self.capabilities,
        })
    }

    pub async fn raw(&self, method: &str, params: Value) -> Value {
        let id = self.next_id.get();
        self.next_id.set(id + 1);
        let request = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        // Every request of every test has a timeout: a hang fails instead of stalling CI.
        let response = within(self.server.handle_as(request, self.principal.as_deref())).await;
        assert_eq!(
            response["id"], id,
            "every response carries the request id: {response}"
        );
        response
    }

    /// `tools/call` with optional answers and state; returns the whole response.
    pub async fn call(
        &self,
        tool: &str,
        arguments: Value,
        responses: Option<Value>,
        state: Option<&str>,
    ) -> Value {
        let mut params = Map::new();
        params.insert("_meta".into(), self.meta());
        params.insert("name".into(), tool.into());
        params.insert("arguments".into(), arguments);
        if let Some(responses) = responses {
            params.insert("inputResponses".into(), responses);
        }
        if let Some(state) = state {
            params.insert("requestState".into(), state.into());
        }
        self.raw("tools/call", Value::Object(params)).await
    }
}

pub fn result(response: &Value) -> &Value {
    assert!(
        response.get("error").is_none(),
        "expected a result, got {response}"
    );
    &response["result"]
}

pub fn error_code(response: &Value) -> i64 {
    response["error"]["code"]
        .as_i64()
        .unwrap_or_else(|| panic!("expected an error, got {response}"))
}

pub fn state(response: &Value) -> String {
    result(response)["requestState"]
        .as_str()
        .expect("a requestState")
        .to_owned()
}

pub fn keys(response: &Value) -> Vec<String> {
    let mut keys: Vec<String> = result(response)["inputRequests"]
        .as_object()
        .map(|requests| requests.keys().cloned().collect())
        .unwrap_or_default();
    keys.sort();
    keys
}

pub fn text(response: &Value) -> String {
    let result = result(response);
    assert_eq!(result["resultType"], "complete", "{response}");
    result["content"][0]["text"]
        .as_str()
        .unwrap_or_default()
        .to_owned()
}

pub fn accept(content: Value) -> Value {
    json!({"action": "accept", "content": content})
}

/// Runs `work`, failing the test if it does not finish within 60 s: a regression that makes
/// a round wait forever fails here instead of stalling CI. (A thread keeps the time, so this
/// needs no timer from the async runtime; it ends as soon as `work` does.)
pub async fn within<T>(work: impl std::future::Future<Output = T>) -> T {
    use std::sync::{Arc, Mutex, mpsc};
    use std::task::{Poll, Waker};
    const LIMIT: std::time::Duration = std::time::Duration::from_secs(60);
    let alarm: Arc<Mutex<(bool, Option<Waker>)>> = Arc::default();
    let ringer = Arc::clone(&alarm);
    let (done, finished) = mpsc::channel::<()>();
    std::thread::spawn(move || {
        if finished.recv_timeout(LIMIT) == Err(mpsc::RecvTimeoutError::Timeout) {
            let mut alarm = ringer.lock().unwrap();
            alarm.0 = true;
            if let Some(waker) = alarm.1.take() {
                waker.wake();
            }
        }
    });
    let mut work = std::pin::pin!(work);
    let value = std::future::poll_fn(|context| {
        if let Poll::Ready(value) = work.as_mut().poll(context) {
            return Poll::Ready(value);
        }
        let mut alarm = alarm.lock().unwrap();
        assert!(!alarm.0, "the test did not finish within {LIMIT:?}");
        alarm.1 = Some(context.waker().clone());
        Poll::Pending
    })
    .await;
    drop(done);
    value
}
