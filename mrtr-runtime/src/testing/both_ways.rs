//! Driving a flow to its end with one script of answers, over MRTR or over a simulated
//! 2025-11-25 session, so a test can assert that both paths give the same result.

use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::sync::Mutex;
use std::time::Duration;

use serde_json::{Map, Value, json};

use super::{Harness, Kind, within};
use crate::author::context::BoxFuture;
use crate::capabilities::ClientCapabilities;
use crate::legacy::{ClientFailure, LegacyOptions, LegacySession, RequestToClient, legacy_shape};

/// The rounds an MRTR run may take before the harness gives up (the server's round cap ends a
/// flow long before).
const MAX_RUN_ROUNDS: u32 = 64;

/// The client's answers, by key, each used once in order: the same script drives
/// [`Harness::run`] (MRTR) and [`Harness::run_legacy`] (a 2025-11-25 session).
///
/// ```
/// use mrtr::testing::{Script, answer};
/// use serde_json::json;
/// let script = Script::new()
///     .answer("number", answer::accept(json!({"number": 3})))
///     .answer("number", answer::accept(json!({"number": 4})))
///     .fail("haiku", "the model is unavailable");
/// # let _ = script;
/// ```
#[derive(Clone, Debug, Default)]
pub struct Script {
    answers: BTreeMap<String, VecDeque<Scripted>>,
}

#[derive(Clone, Debug)]
pub(super) enum Scripted {
    Answer(Value),
    Fail(String),
    Refuse(String),
}

/// The JSON-RPC error code of a scripted client failure.
pub(super) const CLIENT_ERROR_CODE: i64 = -32603;

impl Script {
    /// An empty script.
    pub fn new() -> Self {
        Self::default()
    }

    /// The next time `key` is asked, the client answers `answer` (see [`super::answer`]).
    pub fn answer(mut self, key: &str, answer: Value) -> Self {
        self.push(key, Scripted::Answer(answer));
        self
    }

    /// The next time `key` is asked, the client fails: over a session it answers with a
    /// JSON-RPC error carrying `message`; over MRTR it leaves the key out. Either way a
    /// sampling or roots question then resolves as [`Reply::Missing`](crate::Reply::Missing)
    /// without being sent again. (An elicitation the client fails ends a legacy call with a
    /// tool error, while MRTR asks it again: script elicitations with answers.)
    ///
    /// Over MRTR this is what the specification allows, not what the official Python and
    /// TypeScript clients do: to play those, use [`Script::refuse`].
    pub fn fail(mut self, key: &str, message: &str) -> Self {
        self.push(key, Scripted::Fail(message.to_owned()));
        self
    }

    /// The next time `key` is asked, the client's callback refuses it, and the client does
    /// what the official Python (`mcp` 2.3) and TypeScript (`@modelcontextprotocol/client`
    /// 2.4) SDK clients do with a refusal (their sampling, roots or elicitation callback
    /// returning an error):
    ///
    /// * over MRTR (2026-07-28) the client gives up the whole call: no retry is sent, and the
    ///   run ends with the client's error, `{"code": -32603, "message": message}`
    ///   ([`Run::error`], and [`Run::ended_by_client`] is true). The tool never sees
    ///   [`Reply::Missing`](crate::Reply::Missing);
    /// * over a session (2025-11-25) the client answers the request with that JSON-RPC error,
    ///   as with [`Script::fail`]: a sampling or roots question resolves as `Reply::Missing`,
    ///   a failed elicitation ends the call with a tool error.
    pub fn refuse(mut self, key: &str, message: &str) -> Self {
        self.push(key, Scripted::Refuse(message.to_owned()));
        self
    }

    fn push(&mut self, key: &str, scripted: Scripted) {
        self.answers
            .entry(key.to_owned())
            .or_default()
            .push_back(scripted);
    }

    /// Whether an answer is left for `key`.
    pub(super) fn has(&self, key: &str) -> bool {
        self.answers.get(key).is_some_and(|left| !left.is_empty())
    }

    pub(super) fn next(&mut self, key: &str, question: &Value) -> Scripted {
        self.answers
            .get_mut(key)
            .and_then(VecDeque::pop_front)
            .unwrap_or_else(|| {
                panic!("mrtr::testing: the script has no answer left for `{key}`, asked {question}")
            })
    }
}

/// A question the client was asked during a run.
#[derive(Clone, Debug, PartialEq)]
pub struct Question {
    /// The `ask!` key.
    pub key: String,
    /// `elicitation/create`, `sampling/createMessage` or `roots/list`.
    pub method: String,
    /// The params as the client saw them (over a session, a URL elicitation's carry its
    /// `elicitationId`).
    pub params: Value,
}

impl Question {
    /// The elicitation's message (empty for other kinds).
    pub fn message(&self) -> &str {
        self.params["message"].as_str().unwrap_or_default()
    }
}

/// A flow driven to its end by [`Harness::run`] or [`Harness::run_legacy`].
#[derive(Clone, Debug)]
pub struct Run {
    outcome: Result<Value, Value>,
    /// The client gave the call up ([`Script::refuse`] over MRTR): `outcome` is its error.
    ended_by_client: bool,
    questions: Vec<Question>,
    notifications: Vec<(String, Value)>,
    rounds: u32,
}

impl Run {
    /// The final result as a 2025-11-25 client sees it (without `resultType`, cache hints and
    /// `serverInfo`), so the results of both paths compare equal.
    ///
    /// # Panics
    ///
    /// If the run ended with a JSON-RPC error.
    #[track_caller]
    pub fn result(&self) -> Value {
        match &self.outcome {
            Ok(result) => legacy_shape(result.clone()),
            Err(error) => panic!("expected a result, got the error {error}"),
        }
    }

    /// The JSON-RPC error the run ended with, if any: the server's, or the client's own when
    /// it gave the call up ([`Run::ended_by_client`]).
    pub fn error(&self) -> Option<&Value> {
        self.outcome.as_ref().err()
    }

    /// Whether the client ended the call itself, with the error of a callback that refused a
    /// question ([`Script::refuse`] over MRTR), instead of the server ending it.
    pub fn ended_by_client(&self) -> bool {
        self.ended_by_client
    }

    /// Whether a tool ended with `isError: true`.
    pub fn is_error(&self) -> bool {
        matches!(&self.outcome, Ok(result) if result["isError"] == true)
    }

    /// A tool's first text content (a prompt's first message text, a resource's first text).
    #[track_caller]
    pub fn text(&self) -> String {
        let result = self.result();
        let text = result
            .pointer("/content/0/text")
            .or_else(|| result.pointer("/messages/0/content/text"))
            .or_else(|| result.pointer("/contents/0/text"));
        text.and_then(Value::as_str)
            .unwrap_or_else(|| panic!("no text in {result}"))
            .to_owned()
    }

    /// Every question sent to the client, in order (one round's in key order).
    pub fn questions(&self) -> &[Question] {
        &self.questions
    }

    /// The keys asked, in order: comparable between both paths.
    pub fn keys(&self) -> Vec<&str> {
        self.questions.iter().map(|q| q.key.as_str()).collect()
    }

    /// The notifications a session sent (`notifications/elicitation/complete`); none over
    /// MRTR.
    pub fn notifications(&self) -> &[(String, Value)] {
        &self.notifications
    }

    /// How many requests an MRTR run took (1 for a flow that asked nothing); 0 for a legacy
    /// run, which is one request.
    pub fn rounds(&self) -> u32 {
        self.rounds
    }
}

impl Harness {
    /// Drives the flow to its end over MRTR: each round's questions are answered from
    /// `script`, and the client retries at once after a state-only round.
    ///
    /// # Panics
    ///
    /// If the script has no answer for a question, or the flow takes more than 64 rounds.
    pub async fn run(&self, arguments: Value, script: &Script) -> Run {
        let mut script = script.clone();
        let mut failed = BTreeSet::new();
        let mut questions = Vec::new();
        let mut round = self.call(arguments).await;
        let mut rounds = 1;
        let mut refused = None;
        'rounds: while round.is_input_required() {
            assert!(
                rounds < MAX_RUN_ROUNDS,
                "mrtr::testing: the flow took more than {MAX_RUN_ROUNDS} rounds"
            );
            let asked = round.response()["result"]["inputRequests"]
                .as_object()
                .cloned()
                .unwrap_or_default();
            let mut answers = Map::new();
            for (key, question) in asked {
                if failed.contains(&key) {
                    continue;
                }
                questions.push(Question {
                    key: key.clone(),
                    method: question["method"].as_str().unwrap_or_default().to_owned(),
                    params: question["params"].clone(),
                });
                match script.next(&key, &question) {
                    Scripted::Answer(answer) => {
                        answers.insert(key, answer);
                    }
                    Scripted::Fail(_) => {
                        failed.insert(key);
                    }
                    Scripted::Refuse(message) => {
                        refused = Some(json!({"code": CLIENT_ERROR_CODE, "message": message}));
                        break 'rounds;
                    }
                }
            }
            round = round
                .retry()
                .raw_responses(Value::Object(answers))
                .send()
                .await;
            rounds += 1;
        }
        let response = round.response();
        let ended_by_client = refused.is_some();
        let outcome = match (refused, response.get("error")) {
            (Some(error), _) => Err(error),
            (None, Some(error)) => Err(error.clone()),
            (None, None) => Ok(response["result"].clone()),
        };
        Run {
            outcome,
            ended_by_client,
            questions,
            notifications: Vec::new(),
            rounds,
        }
    }

    /// Drives the flow over a simulated 2025-11-25 session that declared the harness's
    /// capabilities: the machine runs in process and each question is a request to the
    /// simulated client, answered from `script` (see [`Server::handle_legacy`](crate::Server)).
    ///
    /// # Panics
    ///
    /// If the script has no answer for a question.
    pub async fn run_legacy(&self, arguments: Value, script: &Script) -> Run {
        let inner = &self.inner;
        let capabilities = match &inner.capabilities {
            Value::Object(capabilities) => capabilities.clone(),
            _ => Map::new(),
        };
        let session = Simulated {
            capabilities: ClientCapabilities::from_object(capabilities),
            script: Mutex::new(script.clone()),
            questions: Mutex::new(Vec::new()),
            notifications: Mutex::new(Vec::new()),
        };
        let (method, params) = match inner.kind {
            Kind::Tool => (
                "tools/call",
                json!({"name": inner.target, "arguments": arguments}),
            ),
            Kind::Prompt => (
                "prompts/get",
                json!({"name": inner.target, "arguments": arguments}),
            ),
            Kind::Resource => ("resources/read", json!({"uri": inner.target})),
        };
        // No pause between polls: the harness's clock is stopped anyway.
        let options = LegacyOptions::new().recheck_delay(Duration::ZERO);
        let work = inner.server.handle_legacy(
            method,
            params,
            inner.principal.as_deref(),
            &session,
            &options,
        );
        let outcome = within(inner.timeout, work)
            .await
            .map_err(|error| error.to_json());
        Run {
            outcome,
            ended_by_client: false,
            questions: take(&session.questions),
            notifications: take(&session.notifications),
            rounds: 0,
        }
    }
}

fn take<T>(list: &Mutex<Vec<T>>) -> Vec<T> {
    std::mem::take(&mut *list.lock().expect("lock"))
}

/// The client of a simulated session: it answers from the script and records what it saw.
struct Simulated {
    capabilities: ClientCapabilities,
    script: Mutex<Script>,
    questions: Mutex<Vec<Question>>,
    notifications: Mutex<Vec<(String, Value)>>,
}

impl LegacySession for Simulated {
    fn capabilities(&self) -> &ClientCapabilities {
        &self.capabilities
    }

    fn request(
        &self,
        request: RequestToClient,
        _: Duration,
    ) -> BoxFuture<'_, Result<Value, ClientFailure>> {
        let shown = json!({"method": request.method, "params": request.params});
        let scripted = self.script.lock().expect("lock").next(&request.key, &shown);
        self.questions.lock().expect("lock").push(Question {
            key: request.key,
            method: request.method,
            params: request.params,
        });
        let reply = match scripted {
            Scripted::Answer(answer) => Ok(answer),
            // Over a session, the official clients answer a refusal with the error.
            Scripted::Fail(message) | Scripted::Refuse(message) => Err(ClientFailure::Error {
                code: CLIENT_ERROR_CODE,
                message,
            }),
        };
        Box::pin(std::future::ready(reply))
    }

    fn notify(&self, method: &str, params: Value) -> BoxFuture<'_, ()> {
        self.notifications
            .lock()
            .expect("lock")
            .push((method.to_owned(), params));
        Box::pin(std::future::ready(()))
    }

    fn pause(&self, _: Duration) -> BoxFuture<'_, ()> {
        Box::pin(std::future::ready(()))
    }
}
