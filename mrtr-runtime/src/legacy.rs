//! Serving 2025-11-25 (and 2025-06-18) clients, which know no `input_required`: on their
//! session the machine runs here, in process, and each suspension becomes real
//! server-to-client requests.
//!
//! Every resume goes through [`Server::handle_request`]'s road, exactly as a client's retry
//! would (marked as a session's round, so a task-capable tool runs whole and its hand-off
//! point is passed): the frame is sealed and opened by the codec, authorization runs every
//! round, and the round cap, the fingerprint, `single_use` and `cx.idempotency_key()` behave
//! as in MRTR. Only the client's part is played here: the questions of a round are sent to
//! the client at once, their answers become the next round's `inputResponses`, the state is
//! echoed byte for byte.
//!
//! The host supplies the session ([`LegacySession`]): `mrtr::rmcp` does for rmcp, and
//! `mrtr::testing` simulates one.

use std::collections::BTreeSet;
use std::future::{Future, poll_fn};
use std::pin::Pin;
use std::task::Poll;
use std::time::Duration;

use serde_json::{Map, Value, json};

use crate::author::context::BoxFuture;
use crate::author::results::{CallToolResult, ToolOutput};
use crate::capabilities::{ClientCapabilities, InputKind};
use crate::machine::input::InputRequest;
use crate::protocol::{
    META_CLIENT_CAPABILITIES, META_PROTOCOL_VERSION, META_SERVER_INFO, PROTOCOL_VERSION, RpcError,
    codes,
};
use crate::server::Server;

/// How long the client may take to answer one request (the user is filling in a form):
/// 2 minutes. It is kept below [`DEFAULT_SESSION_IDLE`], so that a client that never answers
/// gets an error on its call before its idle session is closed under it.
pub const DEFAULT_CLIENT_TIMEOUT: Duration = Duration::from_secs(120);

/// The pause before a state-only round (`recheck()`) resumes, so polling does not spin.
pub const DEFAULT_RECHECK_DELAY: Duration = Duration::from_millis(250);

/// How long a 2025-era session may stay without any message before the server closes it:
/// 3 minutes.
pub const DEFAULT_SESSION_IDLE: Duration = Duration::from_secs(180);

/// How many 2025-era sessions one server keeps open at once, server-wide. Each costs about
/// 60 KB of memory while idle.
pub const DEFAULT_MAX_SESSIONS: usize = 512;

/// How many 2025-era calls may run at once, server-wide. A running call holds its machine and
/// its arguments (up to the request body cap) until its client answers.
pub const DEFAULT_MAX_FLOWS: usize = 64;

/// How many calls one 2025-era session may run at once.
pub const DEFAULT_MAX_FLOWS_PER_SESSION: usize = 4;

/// `notifications/elicitation/complete` (2025-11-25): an accepted URL elicitation is over.
pub const ELICITATION_COMPLETE: &str = "notifications/elicitation/complete";

/// How a legacy session runs flows, and how many sessions and flows the server holds.
///
/// Every limit has a default meant for a server reachable by anyone: sessions are opened by an
/// unauthenticated `initialize`, so put authentication in front of a public server, or serve
/// only 2026-07-28 clients (`McpServer::without_legacy`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LegacyOptions {
    client_timeout: Duration,
    recheck_delay: Duration,
    session_idle: Duration,
    max_sessions: usize,
    max_flows: usize,
    max_flows_per_session: usize,
}

impl Default for LegacyOptions {
    fn default() -> Self {
        Self {
            client_timeout: DEFAULT_CLIENT_TIMEOUT,
            recheck_delay: DEFAULT_RECHECK_DELAY,
            session_idle: DEFAULT_SESSION_IDLE,
            max_sessions: DEFAULT_MAX_SESSIONS,
            max_flows: DEFAULT_MAX_FLOWS,
            max_flows_per_session: DEFAULT_MAX_FLOWS_PER_SESSION,
        }
    }
}

impl LegacyOptions {
    /// The defaults: the `DEFAULT_*` constants of this module.
    pub fn new() -> Self {
        Self::default()
    }

    /// How long the client may take to answer one request before the call ends with a tool
    /// error (default [`DEFAULT_CLIENT_TIMEOUT`]). The session's idle lifetime is raised to
    /// outlast it (see [`LegacyOptions::session_idle`]).
    pub fn client_timeout(mut self, timeout: Duration) -> Self {
        self.client_timeout = timeout;
        self
    }

    /// The pause before a `recheck()` round resumes (default [`DEFAULT_RECHECK_DELAY`]).
    pub fn recheck_delay(mut self, delay: Duration) -> Self {
        self.recheck_delay = delay;
        self
    }

    /// How long a session may go without a message before it is closed (default
    /// [`DEFAULT_SESSION_IDLE`]). A call waiting on its client sends nothing, so the lifetime
    /// in force is at least the client timeout plus 10 s: the call then ends with an error on
    /// its stream rather than with a closed session.
    pub fn session_idle(mut self, idle: Duration) -> Self {
        self.session_idle = idle;
        self
    }

    /// How many sessions may be open at once (default [`DEFAULT_MAX_SESSIONS`]). When all are
    /// taken, an `initialize` is answered with HTTP 503 and a JSON-RPC error.
    pub fn max_sessions(mut self, sessions: usize) -> Self {
        self.max_sessions = sessions;
        self
    }

    /// How many calls may run at once, server-wide (default [`DEFAULT_MAX_FLOWS`]) and on one
    /// session (default [`DEFAULT_MAX_FLOWS_PER_SESSION`]). A call beyond either is refused
    /// with a JSON-RPC error before its machine starts.
    pub fn max_flows(mut self, server_wide: usize, per_session: usize) -> Self {
        self.max_flows = server_wide;
        self.max_flows_per_session = per_session;
        self
    }

    /// The configured client timeout.
    pub fn timeout(&self) -> Duration {
        self.client_timeout
    }

    /// The configured recheck delay.
    pub fn delay(&self) -> Duration {
        self.recheck_delay
    }

    /// The idle lifetime in force: the configured one, or the client timeout plus 10 s if
    /// that is longer.
    pub fn idle_lifetime(&self) -> Duration {
        self.session_idle
            .max(self.client_timeout.saturating_add(Duration::from_secs(10)))
    }

    /// The configured cap on open sessions.
    pub fn session_cap(&self) -> usize {
        self.max_sessions
    }

    /// The configured caps on running calls: server-wide, and per session.
    pub fn flow_caps(&self) -> (usize, usize) {
        (self.max_flows, self.max_flows_per_session)
    }
}

/// One server-to-client request of a suspension.
#[derive(Clone, Debug, PartialEq)]
pub struct RequestToClient {
    /// The key of the `ask!` it comes from (never on the wire; for hosts' logs and simulated
    /// clients).
    pub key: String,
    /// `elicitation/create`, `sampling/createMessage` or `roots/list`.
    pub method: String,
    /// The params to send (a URL elicitation's carry its `elicitationId`).
    pub params: Value,
}

/// Why a request to the client produced no answer.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum ClientFailure {
    /// The client answered with a JSON-RPC error.
    #[error("the client answered with error {code}: {message}")]
    Error {
        /// Its code.
        code: i64,
        /// Its message.
        message: String,
    },
    /// The client did not answer in time.
    #[error("the client did not answer within {} s", .0.as_secs())]
    TimedOut(Duration),
    /// The session cannot carry requests to the client (closed, or a request that came
    /// without a session).
    #[error("{0}")]
    Unreachable(String),
}

/// The client's side of a 2025-era session, as the host provides it.
pub trait LegacySession: Send + Sync {
    /// What the client declared in `initialize`.
    fn capabilities(&self) -> &ClientCapabilities;

    /// Sends `request` to the client and waits at most `timeout` for its result.
    fn request(
        &self,
        request: RequestToClient,
        timeout: Duration,
    ) -> BoxFuture<'_, Result<Value, ClientFailure>>;

    /// Sends a notification to the client (`notifications/elicitation/complete`). Best effort.
    fn notify(&self, method: &str, params: Value) -> BoxFuture<'_, ()>;

    /// Reports progress between rounds, if the client asked for it (a `progressToken` on its
    /// request). Best effort; the default sends nothing.
    fn progress(&self, _progress: u32, _message: String) -> BoxFuture<'_, ()> {
        Box::pin(std::future::ready(()))
    }

    /// Waits `delay` (before a `recheck()` round resumes).
    fn pause(&self, delay: Duration) -> BoxFuture<'_, ()>;

    /// Whether requests can reach the client at all; `Err` says why not (a request that came
    /// without a session). A machine that needs to ask then ends with that reason, whatever
    /// it asks. The default: reachable.
    fn reachable(&self) -> Result<(), String> {
        Ok(())
    }
}

/// The three methods whose machines may ask.
fn is_flow(method: &str) -> bool {
    matches!(method, "tools/call" | "prompts/get" | "resources/read")
}

impl Server {
    /// Runs one request of a 2025-era client (no per-request `_meta`) over `session`: list
    /// methods answer at once; a `tools/call`, `prompts/get` or `resources/read` runs its
    /// machine to the end, sending each suspension's questions to the client. Returns the
    /// result in the client's revision's shape (no `resultType`, cache hints or `serverInfo`)
    /// or the JSON-RPC error.
    ///
    /// A question of a kind the client did not declare is never sent: a tool ends with a tool
    /// error carrying the same message as MRTR's `-32021`, a prompt or resource with that
    /// error. A client that answers an elicitation with an error, or does not answer within
    /// the timeout, ends the call the same way; one that answers sampling or roots with an
    /// error gives the tool [`Reply::Missing`](crate::Reply::Missing).
    pub async fn handle_legacy(
        &self,
        method: &str,
        params: Value,
        principal: Option<&str>,
        session: &dyn LegacySession,
        options: &LegacyOptions,
    ) -> Result<Value, RpcError> {
        let mut base = match params {
            Value::Object(params) => params,
            Value::Null => Map::new(),
            _ => return Err(RpcError::invalid_params("params must be an object")),
        };
        // The legacy `_meta` (a progress token) is the session's business, not the machine's.
        base.remove("_meta");
        // What only a retry carries comes from this loop, never from the client.
        base.remove("inputResponses");
        base.remove("requestState");
        let meta = json!({
            META_PROTOCOL_VERSION: PROTOCOL_VERSION,
            META_CLIENT_CAPABILITIES: Value::Object(session.capabilities().as_object().clone()),
        });
        base.insert("_meta".into(), meta);
        if !is_flow(method) {
            let result = self
                .handle_request(method, Value::Object(base), principal)
                .await?;
            return Ok(legacy_shape(result));
        }
        SessionCall {
            server: self,
            method,
            principal,
            session,
            options,
            failed: BTreeSet::new(),
            open_urls: Vec::new(),
        }
        .run(base)
        .await
    }
}

/// One call's loop over its rounds.
struct SessionCall<'a> {
    server: &'a Server,
    method: &'a str,
    principal: Option<&'a str>,
    session: &'a dyn LegacySession,
    options: &'a LegacyOptions,
    /// Keys whose sampling or roots request the client answered with an error: left out of
    /// every later round, so the machine gets `Reply::Missing`.
    failed: BTreeSet<String>,
    /// `elicitationId`s of accepted URL elicitations not yet declared complete.
    open_urls: Vec<String>,
}

/// One question on its way to the client.
type Asking<'a> = Pin<Box<dyn Future<Output = Asked> + Send + 'a>>;

/// What became of one question of a round.
enum Asked {
    Answered(Value),
    /// Left out of `inputResponses`.
    Omitted,
    /// Ends the call with this message.
    Fatal(String),
}

impl SessionCall<'_> {
    async fn run(mut self, base: Map<String, Value>) -> Result<Value, RpcError> {
        let mut responses: Option<Map<String, Value>> = None;
        let mut state: Option<String> = None;
        for round in 1u32.. {
            let mut params = base.clone();
            if let Some(responses) = responses.take() {
                params.insert("inputResponses".into(), Value::Object(responses));
            }
            if let Some(state) = &state {
                params.insert("requestState".into(), state.clone().into());
            }
            let result = match self
                .server
                .handle_session_request(self.method, Value::Object(params), self.principal)
                .await
            {
                Ok(result) => result,
                Err(error) if error.code == codes::MISSING_REQUIRED_CLIENT_CAPABILITY => {
                    let reason = self.session.reachable().err();
                    return self.end(reason.unwrap_or(error.message)).await;
                }
                Err(error) => return Err(error),
            };
            if result.get("resultType").and_then(Value::as_str) != Some("input_required") {
                self.complete_urls().await;
                return Ok(legacy_shape(result));
            }
            state = result
                .get("requestState")
                .and_then(Value::as_str)
                .map(str::to_owned);
            let questions = result
                .get("inputRequests")
                .and_then(Value::as_object)
                .cloned()
                .unwrap_or_default();
            if let (false, Err(reason)) = (questions.is_empty(), self.session.reachable()) {
                return self.end(reason).await;
            }
            if questions.is_empty() {
                // `recheck()`: the machine waits on something out of band.
                self.session.pause(self.options.recheck_delay).await;
                continue;
            }
            // A round that asks again means the machine moved on from an accepted URL.
            self.complete_urls().await;
            let count = questions.len();
            self.session
                .progress(
                    round,
                    format!("waiting for the client's answer to {count} question(s)"),
                )
                .await;
            let mut answers = Map::new();
            for (key, outcome) in self.ask(questions).await {
                match outcome {
                    Asked::Answered(answer) => {
                        answers.insert(key, answer);
                    }
                    Asked::Omitted => {}
                    Asked::Fatal(message) => return self.end(message).await,
                }
            }
            responses = Some(answers);
        }
        unreachable!("the rounds of a flow are counted by u32 and capped by the server")
    }

    /// Sends a round's questions to the client at once and collects what became of each; the
    /// first one that ends the call stops the others.
    async fn ask(&mut self, questions: Map<String, Value>) -> Vec<(String, Asked)> {
        let mut pending: Vec<(String, Asking<'_>)> = Vec::new();
        let mut url_ids = Vec::new();
        for (key, question) in questions {
            let request: InputRequest = match serde_json::from_value(question) {
                Ok(request) => request,
                Err(error) => {
                    let outcome = Asked::Fatal(format!("`{key}` is not a request: {error}"));
                    return vec![(key, outcome)];
                }
            };
            if self.failed.contains(&key) {
                pending.push((key, Box::pin(std::future::ready(Asked::Omitted))));
                continue;
            }
            let kind = request.kind();
            let mut params = request.params;
            if kind == InputKind::UrlElicitation
                && let Value::Object(params) = &mut params
            {
                let id = elicitation_id();
                params.insert("elicitationId".into(), id.clone().into());
                url_ids.push((key.clone(), id));
            }
            let outgoing = RequestToClient {
                key: key.clone(),
                method: request.method,
                params,
            };
            let (session, timeout) = (self.session, self.options.client_timeout);
            let future = async move {
                let method = outgoing.method.clone();
                let key = outgoing.key.clone();
                match session.request(outgoing, timeout).await {
                    Ok(answer) => Asked::Answered(answer),
                    Err(ClientFailure::Error { .. }) if !is_elicitation(kind) => Asked::Omitted,
                    Err(failure) => Asked::Fatal(format!(
                        "the request `{method}` for `{key}` failed: {failure}"
                    )),
                }
            };
            pending.push((key, Box::pin(future)));
        }
        let outcomes = join_until_fatal(pending).await;
        for (key, outcome) in &outcomes {
            match outcome {
                Asked::Omitted => {
                    self.failed.insert(key.clone());
                }
                Asked::Answered(answer) if answer.get("action") == Some(&json!("accept")) => {
                    if let Some((_, id)) = url_ids.iter().find(|(url_key, _)| url_key == key) {
                        self.open_urls.push(id.clone());
                    }
                }
                _ => {}
            }
        }
        outcomes
    }

    /// Tells the client that the accepted URL elicitations are over: the machine went past
    /// them, to another question or to its end.
    async fn complete_urls(&mut self) {
        for id in std::mem::take(&mut self.open_urls) {
            self.session
                .notify(ELICITATION_COMPLETE, json!({"elicitationId": id}))
                .await;
        }
    }

    /// Ends the call with `message`: a tool error for a tool (the model reads it), the error
    /// for a prompt or resource.
    async fn end(mut self, message: String) -> Result<Value, RpcError> {
        self.complete_urls().await;
        if self.method == "tools/call" {
            return Ok(CallToolResult::error(message).into_tool_result());
        }
        Err(RpcError::handler_error(message))
    }
}

fn is_elicitation(kind: InputKind) -> bool {
    matches!(kind, InputKind::FormElicitation | InputKind::UrlElicitation)
}

/// Polls every future until all are done, or one ends the call (the rest are dropped, which
/// cancels them).
async fn join_until_fatal<'f>(mut pending: Vec<(String, Asking<'f>)>) -> Vec<(String, Asked)> {
    let mut done: Vec<(String, Asked)> = Vec::new();
    poll_fn(|context| {
        let mut index = 0;
        while index < pending.len() {
            match pending[index].1.as_mut().poll(context) {
                Poll::Ready(outcome) => {
                    let (key, _) = pending.swap_remove(index);
                    let fatal = matches!(outcome, Asked::Fatal(_));
                    done.push((key, outcome));
                    if fatal {
                        pending.clear();
                        return Poll::Ready(());
                    }
                }
                Poll::Pending => index += 1,
            }
        }
        if pending.is_empty() {
            Poll::Ready(())
        } else {
            Poll::Pending
        }
    })
    .await;
    done
}

/// A fresh `elicitationId` for a URL elicitation: 128 random bits, hex.
fn elicitation_id() -> String {
    let mut bytes = [0u8; 16];
    getrandom::fill(&mut bytes).expect("the operating system's random source is unavailable");
    bytes.iter().map(|byte| format!("{byte:02x}")).collect()
}

/// A final result as a 2025-era client expects it: no `resultType`, no cache hints, no
/// `serverInfo` in `_meta` (all 2026-07-28 fields).
pub(crate) fn legacy_shape(mut result: Value) -> Value {
    if let Value::Object(fields) = &mut result {
        fields.remove("resultType");
        fields.remove("ttlMs");
        fields.remove("cacheScope");
        // 2025-11-25's own `execution.taskSupport` means its task augmentation, which a
        // session does not get: there every tool runs whole.
        if let Some(Value::Array(tools)) = fields.get_mut("tools") {
            for tool in tools.iter_mut().filter_map(Value::as_object_mut) {
                tool.remove("execution");
            }
        }
        let empty_meta = match fields.get_mut("_meta") {
            Some(Value::Object(meta)) => {
                meta.remove(META_SERVER_INFO);
                meta.is_empty()
            }
            _ => false,
        };
        if empty_meta {
            fields.remove("_meta");
        }
    }
    result
}
