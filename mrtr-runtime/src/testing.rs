//! A harness for multi-round tools, prompts and resources: drive a flow round by round with
//! scripted answers, assert what each round asks, and attack its tokens (tamper, expire,
//! re-bind, replay) the way a hostile client would; or drive it to its end with one
//! [`Script`], over MRTR ([`Harness::run`]) and over a simulated 2025-11-25 session
//! ([`Harness::run_legacy`]), to assert that both generations of clients get the same result.
//!
//! The `mrtr` crate's `testing` module documentation has a worked example.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::{Map, Value, json};

use crate::machine::{Prompt, Resource, ResumePoint, Tool};
use crate::server::{Server, ServerBuilder};
use crate::token::{KeyId, KeyRing, ManualClock, Mode, SecretKey, StateCodec};

mod both_ways;
mod golden;
mod refusals;
pub(crate) mod round_trip;
mod task_run;

pub use both_ways::{Question, Run, Script};
pub use golden::{GOLDEN_ENV_VAR, GoldenStates};
pub use task_run::TaskRun;

/// Ready-made answers for [`Round::answer`].
pub mod answer {
    use serde_json::{Value, json};

    /// The user accepted a form with `content`.
    pub fn accept(content: Value) -> Value {
        json!({"action": "accept", "content": content})
    }

    /// The user accepted a URL elicitation (consent to open it).
    pub fn consent() -> Value {
        json!({"action": "accept"})
    }

    /// The user declined.
    pub fn decline() -> Value {
        json!({"action": "decline"})
    }

    /// The user dismissed the question.
    pub fn cancel() -> Value {
        json!({"action": "cancel"})
    }

    /// The client's model answered a sampling request with `text`.
    pub fn sampled(text: &str) -> Value {
        json!({"role": "assistant", "content": {"type": "text", "text": text}, "model": "test-model", "stopReason": "endTurn"})
    }

    /// The client's roots.
    pub fn roots(uris: &[&str]) -> Value {
        json!({"roots": uris.iter().map(|uri| json!({"uri": uri})).collect::<Vec<_>>()})
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Tool,
    Prompt,
    Resource,
}

struct Inner {
    server: Server,
    clock: ManualClock,
    kind: Kind,
    /// Tool or prompt name, or the resource URI to read.
    target: String,
    /// The machine's resume points, to name the point a state stands at.
    points: &'static [ResumePoint],
    capabilities: Value,
    principal: Option<String>,
    transcript: Mutex<Vec<(Value, Value)>>,
    next_id: Mutex<u64>,
    timeout: Duration,
}

/// The time at which every harness's clock stands still (seconds since the epoch, in 2027).
pub const HARNESS_EPOCH: u64 = 1_800_000_000;

/// The key every harness seals with. It is public and for tests only: with it and the stopped
/// clock, a state minted in one test run opens in any later one ([`GoldenStates`]).
const HARNESS_KEY: &[u8; 32] = b"mrtr testing harness: public key";

/// How long one round may take before the harness fails the test (see
/// [`HarnessBuilder::timeout`]).
pub const DEFAULT_ROUND_TIMEOUT: Duration = Duration::from_secs(30);

/// Runs `work`, panicking if it has not finished after `limit`: a round that waits forever
/// (an answer never consumed, a machine spinning on I/O) fails its test instead of stalling
/// the run. A thread keeps the time, so any async runtime will do.
async fn within<T>(limit: Duration, work: impl Future<Output = T>) -> T {
    use std::sync::mpsc;
    use std::task::{Poll, Waker};
    let alarm: Arc<Mutex<(bool, Option<Waker>)>> = Arc::default();
    let ringer = Arc::clone(&alarm);
    let (done, finished) = mpsc::channel::<()>();
    std::thread::spawn(move || {
        // Dropping `done` (the round finished) ends the wait at once.
        if finished.recv_timeout(limit) == Err(mpsc::RecvTimeoutError::Timeout) {
            let mut alarm = ringer.lock().unwrap_or_else(|poison| poison.into_inner());
            alarm.0 = true;
            if let Some(waker) = alarm.1.take() {
                waker.wake();
            }
        }
    });
    let mut work = std::pin::pin!(work);
    let result = std::future::poll_fn(|context| {
        if let Poll::Ready(value) = work.as_mut().poll(context) {
            return Poll::Ready(value);
        }
        let mut alarm = alarm.lock().unwrap_or_else(|poison| poison.into_inner());
        assert!(
            !alarm.0,
            "mrtr::testing: the round did not finish within {limit:?} (raise it with \
             HarnessBuilder::timeout if it is slow on purpose)"
        );
        alarm.1 = Some(context.waker().clone());
        Poll::Pending
    })
    .await;
    drop(done);
    result
}

/// Drives one tool, prompt or resource through a real [`Server`] with a stopped clock.
#[derive(Clone)]
pub struct Harness {
    inner: Arc<Inner>,
}

/// Configures a [`Harness`] (app state, keys, mode).
pub struct HarnessBuilder {
    builder: ServerBuilder,
    kind: Kind,
    target: String,
    points: &'static [ResumePoint],
    capabilities: Value,
    principal: Option<String>,
    mode: Mode,
    timeout: Duration,
}

impl Harness {
    /// A harness for a tool, with default settings (use [`Harness::builder_for_tool`] to add
    /// app state).
    pub fn tool(tool: impl Tool) -> Self {
        Self::builder_for_tool(tool).build()
    }

    /// A harness for a prompt.
    pub fn prompt(prompt: impl Prompt) -> Self {
        let (name, points) = (prompt.descriptor().name, prompt.resume_points());
        HarnessBuilder::new(
            Server::builder("harness", "0").prompt(prompt),
            Kind::Prompt,
            name,
            points,
        )
        .build()
    }

    /// A harness reading `uri` from a resource template.
    pub fn resource(resource: impl Resource, uri: &str) -> Self {
        let points = resource.resume_points();
        HarnessBuilder::new(
            Server::builder("harness", "0").resource(resource),
            Kind::Resource,
            uri.to_owned(),
            points,
        )
        .build()
    }

    /// Configures a harness for a tool.
    pub fn builder_for_tool(tool: impl Tool) -> HarnessBuilder {
        let (name, points) = (tool.descriptor().name, tool.resume_points());
        HarnessBuilder::new(
            Server::builder("harness", "0").tool(tool),
            Kind::Tool,
            name,
            points,
        )
    }

    /// The harness's clock (seconds since the epoch): advance it to expire tokens.
    pub fn clock(&self) -> &ManualClock {
        &self.inner.clock
    }

    /// The server under test.
    pub fn server(&self) -> &Server {
        &self.inner.server
    }

    /// The first request of a flow: `arguments` (a prompt's arguments; ignored for a
    /// resource) and no answers.
    pub async fn call(&self, arguments: Value) -> Round {
        self.send(Retry::fresh(self, arguments)).await
    }

    /// The first request with answers sent before any question was asked.
    pub async fn call_with_answers<'k>(
        &self,
        arguments: Value,
        answers: impl IntoIterator<Item = (&'k str, Value)>,
    ) -> Round {
        let mut retry = Retry::fresh(self, arguments);
        retry.responses = Some(collect(answers));
        self.send(retry).await
    }

    /// Every request and response so far, as pretty JSON, with tokens replaced by
    /// `<requestState n>` so the text can be compared with a snapshot.
    pub fn transcript(&self) -> String {
        let exchange = self
            .inner
            .transcript
            .lock()
            .expect("transcript lock")
            .clone();
        let mut tokens: Vec<String> = Vec::new();
        let mut text = String::new();
        for (request, response) in exchange {
            for (arrow, message) in [("->", request), ("<-", response)] {
                let mut message = message;
                for pointer in ["/params/requestState", "/result/requestState"] {
                    if let Some(Value::String(token)) = message.pointer_mut(pointer) {
                        let index =
                            tokens
                                .iter()
                                .position(|seen| seen == token)
                                .unwrap_or_else(|| {
                                    tokens.push(token.clone());
                                    tokens.len() - 1
                                });
                        *token = format!("<requestState {}>", index + 1);
                    }
                }
                text.push_str(arrow);
                text.push(' ');
                text.push_str(&serde_json::to_string_pretty(&message).unwrap_or_default());
                text.push('\n');
            }
        }
        text
    }

    async fn send(&self, retry: Retry) -> Round {
        let inner = &self.inner;
        let id = {
            let mut next = inner.next_id.lock().expect("id lock");
            *next += 1;
            *next
        };
        let mut params = Map::new();
        params.insert(
            "_meta".into(),
            json!({"io.modelcontextprotocol/protocolVersion": crate::protocol::PROTOCOL_VERSION, "io.modelcontextprotocol/clientCapabilities": retry.capabilities}),
        );
        let method = match inner.kind {
            Kind::Tool => {
                params.insert("name".into(), inner.target.clone().into());
                params.insert("arguments".into(), retry.arguments.clone());
                "tools/call"
            }
            Kind::Prompt => {
                params.insert("name".into(), inner.target.clone().into());
                params.insert("arguments".into(), retry.arguments.clone());
                "prompts/get"
            }
            Kind::Resource => {
                params.insert("uri".into(), inner.target.clone().into());
                "resources/read"
            }
        };
        if let Some(responses) = &retry.responses {
            params.insert("inputResponses".into(), responses.clone());
        }
        if let Some(state) = &retry.state {
            params.insert("requestState".into(), state.clone().into());
        }
        let request = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        let response = within(
            inner.timeout,
            inner
                .server
                .handle_as(request.clone(), retry.principal.as_deref()),
        )
        .await;
        inner
            .transcript
            .lock()
            .expect("transcript lock")
            .push((request, response.clone()));
        Round {
            harness: self.clone(),
            arguments: retry.arguments,
            principal: retry.principal,
            response,
        }
    }
}

impl HarnessBuilder {
    fn new(
        builder: ServerBuilder,
        kind: Kind,
        target: String,
        points: &'static [ResumePoint],
    ) -> Self {
        Self {
            builder,
            kind,
            target,
            points,
            capabilities: json!({"elicitation": {"form": {}, "url": {}}, "sampling": {}, "roots": {}}),
            principal: None,
            mode: Mode::Hmac,
            timeout: DEFAULT_ROUND_TIMEOUT,
        }
    }

    /// Registers application state.
    pub fn state<T: Send + Sync + 'static>(mut self, value: T) -> Self {
        self.builder = self.builder.state(value);
        self
    }

    /// How the server under test keeps tasks ([`TaskOptions`](crate::TaskOptions)).
    pub fn tasks(mut self, options: crate::task::TaskOptions) -> Self {
        self.builder = self.builder.tasks(options);
        self
    }

    /// The client capabilities every request declares (default: form and URL elicitation,
    /// sampling, roots).
    pub fn capabilities(mut self, capabilities: Value) -> Self {
        self.capabilities = capabilities;
        self
    }

    /// The principal every request is made as (default: none).
    pub fn principal(mut self, principal: &str) -> Self {
        self.principal = Some(principal.to_owned());
        self
    }

    /// How long one round may take before the test fails (default
    /// [`DEFAULT_ROUND_TIMEOUT`]).
    pub fn timeout(mut self, limit: Duration) -> Self {
        self.timeout = limit;
        self
    }

    /// The sealing mode (default HMAC, so [`Round::kept`] can show kept values).
    pub fn mode(mut self, mode: Mode) -> Self {
        self.mode = mode;
        self
    }

    /// Builds the harness.
    ///
    /// # Panics
    ///
    /// If the server cannot be built (two machines with one name).
    pub fn build(self) -> Harness {
        let clock = ManualClock::new(HARNESS_EPOCH);
        let ring = KeyRing::with_signing_key(
            KeyId::new("harness").expect("valid id"),
            SecretKey::from_bytes(HARNESS_KEY).expect("a long enough key"),
        );
        let codec = StateCodec::builder()
            .mode(self.mode)
            .key_ring(ring)
            .audience("harness")
            .clock(clock.clone())
            .build()
            .expect("a signing key");
        let server = self
            .builder
            .codec(codec)
            .build()
            .expect("the harness's server builds");
        Harness {
            inner: Arc::new(Inner {
                server,
                clock,
                kind: self.kind,
                target: self.target,
                points: self.points,
                capabilities: self.capabilities,
                principal: self.principal,
                transcript: Mutex::new(Vec::new()),
                next_id: Mutex::new(0),
                timeout: self.timeout,
            }),
        }
    }
}

fn collect<'k>(answers: impl IntoIterator<Item = (&'k str, Value)>) -> Value {
    Value::Object(
        answers
            .into_iter()
            .map(|(key, value)| (key.to_owned(), value))
            .collect(),
    )
}

/// One round's request and response.
#[derive(Clone)]
pub struct Round {
    harness: Harness,
    arguments: Value,
    principal: Option<String>,
    response: Value,
}

/// One question of a round, as sent.
#[derive(Clone, Debug)]
pub struct Asked<'r>(&'r Value);

impl Asked<'_> {
    /// `elicitation/create`, `sampling/createMessage` or `roots/list`.
    pub fn method(&self) -> &str {
        self.0["method"].as_str().unwrap_or_default()
    }

    /// The elicitation's message (empty for other kinds).
    pub fn message(&self) -> &str {
        self.0["params"]["message"].as_str().unwrap_or_default()
    }

    /// The form's `requestedSchema` (`Null` for other kinds).
    pub fn schema(&self) -> &Value {
        &self.0["params"]["requestedSchema"]
    }

    /// The params as sent.
    pub fn params(&self) -> &Value {
        &self.0["params"]
    }
}

impl Round {
    /// The JSON-RPC response.
    pub fn response(&self) -> &Value {
        &self.response
    }

    fn result(&self) -> &Value {
        assert!(
            self.response.get("error").is_none(),
            "expected a result, got the error {}",
            self.response["error"]
        );
        &self.response["result"]
    }

    /// Whether the round asked for input (or for a state-only retry).
    pub fn is_input_required(&self) -> bool {
        self.response["result"]["resultType"] == "input_required"
    }

    /// Whether the flow completed (successfully or with a tool error).
    pub fn is_complete(&self) -> bool {
        self.response["result"]["resultType"] == "complete"
    }

    /// Whether a tool completed with `isError: true`.
    pub fn is_error(&self) -> bool {
        self.response["result"]["isError"] == true
    }

    /// The JSON-RPC error code.
    ///
    /// # Panics
    ///
    /// If the round did not end with a JSON-RPC error.
    pub fn error_code(&self) -> i64 {
        self.response["error"]["code"]
            .as_i64()
            .unwrap_or_else(|| panic!("expected a JSON-RPC error, got {}", self.response))
    }

    /// Whether the server refused the round's `requestState` (the opaque `-32602 invalid
    /// requestState`; the reason is only logged, under `mrtr::state`).
    pub fn is_refused_state(&self) -> bool {
        self.response["error"]["code"] == -32602
            && self.response["error"]["message"] == crate::token::InvalidState::MESSAGE
    }

    /// The keys asked this round, sorted.
    pub fn keys(&self) -> Vec<String> {
        let mut keys: Vec<String> = self.result()["inputRequests"]
            .as_object()
            .map(|requests| requests.keys().cloned().collect())
            .unwrap_or_default();
        keys.sort();
        keys
    }

    /// Asserts that this round asked exactly `keys`.
    #[track_caller]
    pub fn assert_asks<'k>(&self, keys: impl IntoIterator<Item = &'k str>) {
        let mut expected: Vec<String> = keys.into_iter().map(str::to_owned).collect();
        expected.sort();
        assert_eq!(
            self.keys(),
            expected,
            "keys asked; response: {}",
            self.response
        );
    }

    /// The question asked under `key`.
    ///
    /// # Panics
    ///
    /// If it was not asked.
    #[track_caller]
    pub fn request(&self, key: &str) -> Asked<'_> {
        let request = &self.result()["inputRequests"][key];
        assert!(
            !request.is_null(),
            "`{key}` was not asked; response: {}",
            self.response
        );
        Asked(request)
    }

    /// The `requestState` of this round.
    ///
    /// # Panics
    ///
    /// If the round sent none.
    pub fn state(&self) -> String {
        self.result()["requestState"]
            .as_str()
            .unwrap_or_else(|| panic!("no requestState in {}", self.response))
            .to_owned()
    }

    /// This round's state with one character changed.
    pub fn tampered_state(&self) -> String {
        let mut state = self.state().into_bytes();
        let last = state.len() - 3;
        state[last] = if state[last] == b'A' { b'B' } else { b'A' };
        String::from_utf8(state).expect("base64 is ASCII")
    }

    /// The values the machine kept in this round's state (its frame), read with the
    /// harness's key.
    pub fn kept(&self) -> Value {
        let opened = self
            .harness
            .inner
            .server
            .codec()
            .inspect(&self.state())
            .expect("the harness's own token opens");
        crate::driver::frame_as_json(&opened.payload["f"])
    }

    /// A tool's first text content (a prompt's first message text, a resource's first text).
    pub fn text(&self) -> String {
        let result = self.result();
        let text = result
            .pointer("/content/0/text")
            .or_else(|| result.pointer("/messages/0/content/text"))
            .or_else(|| result.pointer("/contents/0/text"));
        text.and_then(Value::as_str)
            .unwrap_or_else(|| panic!("no text in {}", self.response))
            .to_owned()
    }

    /// Retries with this round's state and `answers`.
    pub async fn answer<'k>(&self, answers: impl IntoIterator<Item = (&'k str, Value)>) -> Round {
        self.retry().answers(answers).send().await
    }

    /// A retry of this round to adjust before sending: by default this round's state, arguments
    /// and principal, no answers.
    pub fn retry(&self) -> Retry {
        Retry {
            harness: self.harness.clone(),
            arguments: self.arguments.clone(),
            principal: self.principal.clone(),
            capabilities: self.harness.inner.capabilities.clone(),
            state: self.response["result"]["requestState"]
                .as_str()
                .map(str::to_owned),
            responses: None,
        }
    }
}

/// A request to send, adjusted from a round (see [`Round::retry`]).
pub struct Retry {
    harness: Harness,
    arguments: Value,
    principal: Option<String>,
    capabilities: Value,
    state: Option<String>,
    responses: Option<Value>,
}

impl Retry {
    fn fresh(harness: &Harness, arguments: Value) -> Self {
        Self {
            harness: harness.clone(),
            arguments,
            principal: harness.inner.principal.clone(),
            capabilities: harness.inner.capabilities.clone(),
            state: None,
            responses: None,
        }
    }

    /// Sends these answers.
    pub fn answers<'k>(mut self, answers: impl IntoIterator<Item = (&'k str, Value)>) -> Self {
        self.responses = Some(collect(answers));
        self
    }

    /// Sends `inputResponses` exactly as given (malformed ones included).
    pub fn raw_responses(mut self, responses: Value) -> Self {
        self.responses = Some(responses);
        self
    }

    /// Sends another `requestState`.
    pub fn state(mut self, state: impl Into<String>) -> Self {
        self.state = Some(state.into());
        self
    }

    /// Sends no `requestState`.
    pub fn without_state(mut self) -> Self {
        self.state = None;
        self
    }

    /// Sends other arguments.
    pub fn arguments(mut self, arguments: Value) -> Self {
        self.arguments = arguments;
        self
    }

    /// Sends as another principal.
    pub fn principal(mut self, principal: &str) -> Self {
        self.principal = Some(principal.to_owned());
        self
    }

    /// Declares other capabilities.
    pub fn capabilities(mut self, capabilities: Value) -> Self {
        self.capabilities = capabilities;
        self
    }

    /// Sends the request to another harness: another build of the same tool, say (every
    /// harness shares one test key, so its tokens open there).
    pub fn to(mut self, harness: &Harness) -> Self {
        self.harness = harness.clone();
        self
    }

    /// Sends the request.
    pub async fn send(self) -> Round {
        let harness = self.harness.clone();
        harness.send(self).await
    }
}
