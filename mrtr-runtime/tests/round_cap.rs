//! The round cap holds whatever the rounds are: a new question, a question asked again because
//! its answer was invalid, or a `recheck()` with no question. Counted through MRTR (the
//! `input_required` results a client receives) and through a 2025-era session (the requests
//! that reach the client while the machine runs in process).

mod support;

use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use mrtr_runtime::form::FormField;
use mrtr_runtime::legacy::{ClientFailure, LegacySession, RequestToClient};
use mrtr_runtime::machine::{Machine, Outcome, Step, StepError, Suspension, Tool, ToolDescriptor};
use mrtr_runtime::token::{Fingerprint, KeyId, KeyRing, SecretKey};
use mrtr_runtime::{
    Answer, AnswerError, BoxFuture, CallToolResult, ClientCapabilities, Form, LegacyOptions,
    Server, ToolOutput, elicit, recheck,
};
use serde_json::{Map, Value, json};
use support::{Client, accept, result, state, within};

const CAP: u32 = 3;

/// Far past the cap: a flow that gets here was not capped (and is stopped, not left to spin).
const RUNAWAY: usize = 50;

struct Code {
    code: String,
}

impl Form for Code {
    fn requested_schema() -> Value {
        json!({"type": "object", "properties": {"code": {"type": "string"}}, "required": ["code"]})
    }
    fn from_content(content: &Map<String, Value>) -> Result<Self, AnswerError> {
        Ok(Self {
            code: String::decode(content.get("code"))?,
        })
    }
}

fn valid_code() -> Value {
    accept(json!({"code": "1234"}))
}

/// Does not fit the schema: the engine asks the same question again, and the machine stays.
fn invalid_code() -> Value {
    accept(json!({"code": 1234}))
}

/// Each round asks a question the machine had not asked before.
struct NewQuestions;

impl Machine for NewQuestions {
    fn fingerprint(&self) -> Fingerprint {
        Fingerprint::of(b"new questions")
    }
    fn step<'a>(&'a self, mut step: Step<'a>) -> BoxFuture<'a, Result<Outcome, StepError>> {
        Box::pin(async move {
            let asked = step.frame["asked"].as_u64().unwrap_or(0);
            if step.pc == 1 {
                step.answers.take::<Answer<Code>>("code")?;
            }
            let question = elicit::form::<Code>(format!("Code number {}?", asked + 1));
            Ok(Outcome::Suspend(
                Suspension::new(1, json!({"asked": asked + 1})).ask("code", question),
            ))
        })
    }
}

/// Asks once and ends with the answer: only invalid answers keep it going.
struct OneQuestion;

impl Machine for OneQuestion {
    fn fingerprint(&self) -> Fingerprint {
        Fingerprint::of(b"one question")
    }
    fn step<'a>(&'a self, mut step: Step<'a>) -> BoxFuture<'a, Result<Outcome, StepError>> {
        Box::pin(async move {
            if step.pc == 0 {
                let question = elicit::form::<Code>("Code?");
                return Ok(Outcome::Suspend(
                    Suspension::new(1, Value::Null).ask("code", question),
                ));
            }
            let code = step.answers.take::<Answer<Code>>("code")?;
            let text = code.ok().map(|code| code.code).unwrap_or_default();
            Ok(Outcome::Complete(
                CallToolResult::text(text).into_tool_result(),
            ))
        })
    }
}

/// Waits on something out of band, forever: rounds without a question.
struct Polling;

impl Machine for Polling {
    fn fingerprint(&self) -> Fingerprint {
        Fingerprint::of(b"polling")
    }
    fn step<'a>(&'a self, _: Step<'a>) -> BoxFuture<'a, Result<Outcome, StepError>> {
        Box::pin(async move {
            Ok(Outcome::Suspend(
                Suspension::new(1, Value::Null).ask("again", recheck()),
            ))
        })
    }
}

macro_rules! capped_tool {
    ($ty:ident, $name:literal) => {
        impl Tool for $ty {
            fn descriptor(&self) -> ToolDescriptor {
                ToolDescriptor::new($name, json!({"type": "object"})).max_rounds(CAP)
            }
        }
    };
}
capped_tool!(NewQuestions, "new_questions");
capped_tool!(OneQuestion, "one_question");
capped_tool!(Polling, "polling");

fn server() -> Server {
    Server::builder("capped", "0.1.0")
        .key_ring(KeyRing::with_signing_key(
            KeyId::new("cap").unwrap(),
            SecretKey::random(),
        ))
        .tool(NewQuestions)
        .tool(OneQuestion)
        .tool(Polling)
        .build()
        .unwrap()
}

fn is_capped(result: &Value) -> bool {
    result["isError"] == true
        && result["content"][0]["text"]
            .as_str()
            .is_some_and(|text| text.contains(&format!("more than {CAP} rounds")))
}

// ---------------------------------------------------------------- MRTR

/// What a client of `tool` received until the flow ended: the `input_required` rounds, the
/// questions they carried, and the final result. Every retry answers each question with
/// `answer`.
async fn mrtr_rounds(tool: &str, answer: Value) -> (u32, usize, Value) {
    let client = Client::new(server());
    let (mut rounds, mut questions) = (0u32, 0usize);
    let mut response = client.call(tool, json!({}), None, None).await;
    while result(&response)["resultType"] == "input_required" {
        rounds += 1;
        assert!((rounds as usize) < RUNAWAY, "`{tool}` was never capped");
        let asked = result(&response)["inputRequests"]
            .as_object()
            .cloned()
            .unwrap_or_default();
        questions += asked.len();
        let answers: Map<String, Value> = asked
            .keys()
            .map(|key| (key.clone(), answer.clone()))
            .collect();
        response = client
            .call(
                tool,
                json!({}),
                Some(Value::Object(answers)),
                Some(&state(&response)),
            )
            .await;
    }
    (rounds, questions, result(&response).clone())
}

#[tokio::test]
async fn through_mrtr_new_questions_are_capped() {
    let (rounds, questions, last) = within(mrtr_rounds("new_questions", valid_code())).await;
    assert_eq!((rounds, questions), (CAP, CAP as usize));
    assert!(is_capped(&last), "{last}");
}

#[tokio::test]
async fn through_mrtr_questions_asked_again_for_invalid_answers_are_capped() {
    let (rounds, questions, last) = within(mrtr_rounds("one_question", invalid_code())).await;
    assert_eq!((rounds, questions), (CAP, CAP as usize));
    assert!(is_capped(&last), "{last}");
}

#[tokio::test]
async fn through_mrtr_rechecks_are_capped() {
    let (rounds, questions, last) = within(mrtr_rounds("polling", valid_code())).await;
    assert_eq!((rounds, questions), (CAP, 0));
    assert!(is_capped(&last), "{last}");
}

/// Under the cap, a question asked again still takes a valid answer: the cap stops only flows
/// that run away.
#[tokio::test]
async fn through_mrtr_a_valid_answer_after_an_invalid_one_completes_under_the_cap() {
    let client = Client::new(server());
    let first = client.call("one_question", json!({}), None, None).await;
    let again = client
        .call(
            "one_question",
            json!({}),
            Some(json!({"code": invalid_code()})),
            Some(&state(&first)),
        )
        .await;
    assert_eq!(result(&again)["resultType"], "input_required");
    let done = client
        .call(
            "one_question",
            json!({}),
            Some(json!({"code": valid_code()})),
            Some(&state(&again)),
        )
        .await;
    assert_eq!(result(&done)["content"][0]["text"], "1234", "{done}");
}

// ---------------------------------------------------------------- a 2025-era session

/// A 2025-era client that answers every request with the same answer, and counts what reached
/// it.
struct Answering {
    capabilities: ClientCapabilities,
    answer: Value,
    requests: AtomicUsize,
    pauses: AtomicUsize,
}

impl Answering {
    fn new(answer: Value) -> Self {
        let declared = json!({"elicitation": {}});
        Self {
            capabilities: ClientCapabilities::from_object(declared.as_object().unwrap().clone()),
            answer,
            requests: AtomicUsize::new(0),
            pauses: AtomicUsize::new(0),
        }
    }
}

impl LegacySession for Answering {
    fn capabilities(&self) -> &ClientCapabilities {
        &self.capabilities
    }
    fn request(
        &self,
        _: RequestToClient,
        _: Duration,
    ) -> BoxFuture<'_, Result<Value, ClientFailure>> {
        let sent = self.requests.fetch_add(1, Ordering::SeqCst) + 1;
        assert!(sent < RUNAWAY, "{sent} requests reached the client: no cap");
        Box::pin(std::future::ready(Ok(self.answer.clone())))
    }
    fn notify(&self, _: &str, _: Value) -> BoxFuture<'_, ()> {
        Box::pin(std::future::ready(()))
    }
    fn pause(&self, _: Duration) -> BoxFuture<'_, ()> {
        let paused = self.pauses.fetch_add(1, Ordering::SeqCst) + 1;
        assert!(paused < RUNAWAY, "{paused} rechecks: no cap");
        Box::pin(std::future::ready(()))
    }
}

/// Runs `tool` for `client` on a 2025-era session; returns the call's result.
async fn legacy_call(tool: &str, client: &Answering) -> Value {
    let options = LegacyOptions::new().recheck_delay(Duration::ZERO);
    let params = json!({"name": tool, "arguments": {}});
    within(server().handle_legacy("tools/call", params, None, client, &options))
        .await
        .expect("a tool's cap is a tool error, not a protocol error")
}

#[tokio::test]
async fn on_a_2025_session_new_questions_are_capped() {
    let client = Answering::new(valid_code());
    let last = legacy_call("new_questions", &client).await;
    assert_eq!(client.requests.load(Ordering::SeqCst), CAP as usize);
    assert!(is_capped(&last), "{last}");
}

#[tokio::test]
async fn on_a_2025_session_questions_asked_again_for_invalid_answers_are_capped() {
    let client = Answering::new(invalid_code());
    let last = legacy_call("one_question", &client).await;
    assert_eq!(client.requests.load(Ordering::SeqCst), CAP as usize);
    assert!(is_capped(&last), "{last}");
}

#[tokio::test]
async fn on_a_2025_session_rechecks_are_capped() {
    let client = Answering::new(valid_code());
    let last = legacy_call("polling", &client).await;
    assert_eq!(client.requests.load(Ordering::SeqCst), 0);
    assert_eq!(client.pauses.load(Ordering::SeqCst), CAP as usize);
    assert!(is_capped(&last), "{last}");
}
