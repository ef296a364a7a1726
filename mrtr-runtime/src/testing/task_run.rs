//! Driving a task-capable tool as a task client does: MRTR rounds until the hand-off, then
//! `tasks/get` polling and `tasks/update` answers until the task ends.

use std::time::Duration;

use serde_json::{Map, Value, json};

use super::both_ways::{CLIENT_ERROR_CODE, Script, Scripted};
use super::{Harness, Question, Retry};
use crate::task::TASKS_EXTENSION;

/// How often [`Harness::run_task`] polls `tasks/get`.
const POLL: Duration = Duration::from_millis(5);
/// How many polls before [`Harness::run_task`] gives up (about 30 seconds).
const MAX_POLLS: u32 = 6000;

/// A run by [`Harness::run_task`]: the MRTR rounds, the `CreateTaskResult` (if the tool
/// handed off) and the task as `tasks/get` last showed it.
#[derive(Clone, Debug)]
pub struct TaskRun {
    rounds: u32,
    created: Option<Value>,
    last: Value,
    questions: Vec<Question>,
    updates: u32,
}

impl TaskRun {
    /// The `CreateTaskResult` the hand-off answered, if the tool handed off.
    pub fn created(&self) -> Option<&Value> {
        self.created.as_ref()
    }

    /// The task's id, if one was created.
    pub fn task_id(&self) -> Option<&str> {
        self.created.as_ref()?.get("taskId")?.as_str()
    }

    /// The last response: the final `tasks/get` result of a task, else the last round's
    /// JSON-RPC response.
    pub fn last(&self) -> &Value {
        &self.last
    }

    /// The task's final status (`completed`, `failed`, `cancelled`), if a task ran.
    pub fn status(&self) -> Option<&str> {
        self.created.as_ref()?;
        self.last.get("status")?.as_str()
    }

    /// The task's result (`result` of the final `tasks/get`).
    ///
    /// # Panics
    ///
    /// If no task completed.
    #[track_caller]
    pub fn result(&self) -> &Value {
        self.last
            .get("result")
            .unwrap_or_else(|| panic!("expected a completed task, got {}", self.last))
    }

    /// The first text content of the task's result.
    #[track_caller]
    pub fn text(&self) -> &str {
        self.result()["content"][0]["text"]
            .as_str()
            .unwrap_or_default()
    }

    /// Every question asked, by MRTR round and inside the task, in order (a task question
    /// under the key the client saw).
    pub fn questions(&self) -> &[Question] {
        &self.questions
    }

    /// How many `tools/call` requests the MRTR phase took.
    pub fn rounds(&self) -> u32 {
        self.rounds
    }

    /// How many `tasks/update` requests delivered answers.
    pub fn updates(&self) -> u32 {
        self.updates
    }
}

impl Harness {
    /// Drives the tool as a client that declared `io.modelcontextprotocol/tasks`: MRTR rounds
    /// answered from `script` until the hand-off, then `tasks/get` polling, each
    /// `input_required` answered with `tasks/update` from `script` (a key the task made
    /// unique with a `_2`, `_3`, .. suffix is answered from the script's entry for the ask's
    /// own key), until the task ends.
    ///
    /// # Panics
    ///
    /// If the script has no answer for a question, or the task does not end within about 30
    /// seconds.
    pub async fn run_task(&self, arguments: Value, script: &Script) -> TaskRun {
        let mut script = script.clone();
        let capabilities = self.task_capabilities();
        let mut questions = Vec::new();
        let mut round = Retry::fresh(self, arguments)
            .capabilities(capabilities.clone())
            .send()
            .await;
        let mut rounds = 1;
        while round.is_input_required() {
            let asked = round.response()["result"]["inputRequests"]
                .as_object()
                .cloned()
                .unwrap_or_default();
            let answers = answer(&mut script, &asked, &mut questions);
            round = round
                .retry()
                .capabilities(capabilities.clone())
                .raw_responses(Value::Object(answers))
                .send()
                .await;
            rounds += 1;
        }
        let response = round.response().clone();
        if response["result"]["resultType"] != "task" {
            return TaskRun {
                rounds,
                created: None,
                last: response,
                questions,
                updates: 0,
            };
        }
        let created = response["result"].clone();
        let id = created["taskId"].clone();
        let mut updates = 0;
        for _ in 0..MAX_POLLS {
            let got = self.task_request("tasks/get", json!({"taskId": id})).await;
            let task = got["result"].clone();
            match task["status"].as_str() {
                Some("completed" | "failed" | "cancelled") | None => {
                    return TaskRun {
                        rounds,
                        created: Some(created),
                        last: if task.is_null() { got } else { task },
                        questions,
                        updates,
                    };
                }
                Some("input_required") => {
                    let asked = task["inputRequests"]
                        .as_object()
                        .cloned()
                        .unwrap_or_default();
                    let answers = answer(&mut script, &asked, &mut questions);
                    self.task_request(
                        "tasks/update",
                        json!({"taskId": id, "inputResponses": answers}),
                    )
                    .await;
                    updates += 1;
                }
                Some(_) => tokio::time::sleep(POLL).await,
            }
        }
        panic!("mrtr::testing: task {id} did not end within 30 seconds");
    }

    /// Sends a `tasks/*` request as the harness's principal, declaring the extension.
    pub async fn task_request(&self, method: &str, mut params: Value) -> Value {
        params["_meta"] = json!({
            "io.modelcontextprotocol/protocolVersion": crate::protocol::PROTOCOL_VERSION,
            "io.modelcontextprotocol/clientCapabilities": self.task_capabilities(),
        });
        let request = json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params});
        self.server()
            .handle_as(request, self.inner.principal.as_deref())
            .await
    }

    /// The harness's capabilities with the tasks extension declared.
    fn task_capabilities(&self) -> Value {
        let mut capabilities = match &self.inner.capabilities {
            Value::Object(capabilities) => capabilities.clone(),
            _ => Map::new(),
        };
        let extensions = capabilities
            .entry("extensions")
            .or_insert_with(|| json!({}));
        extensions[TASKS_EXTENSION] = json!({});
        Value::Object(capabilities)
    }
}

/// The script's answers to `asked`, recording the questions.
fn answer(
    script: &mut Script,
    asked: &Map<String, Value>,
    questions: &mut Vec<Question>,
) -> Map<String, Value> {
    let mut answers = Map::new();
    for (key, question) in asked {
        questions.push(Question {
            key: key.clone(),
            method: question["method"].as_str().unwrap_or_default().to_owned(),
            params: question["params"].clone(),
        });
        let scripted = script.next(script_key(script, key), question);
        match scripted {
            Scripted::Answer(answer) => {
                answers.insert(key.clone(), answer);
            }
            Scripted::Fail(message) | Scripted::Refuse(message) => {
                panic!(
                    "mrtr::testing: a task client cannot fail a question (code {CLIENT_ERROR_CODE}): {message}"
                )
            }
        }
    }
    answers
}

/// The script entry answering `key`: its own, or that of the ask key it was made unique from.
fn script_key<'k>(script: &Script, key: &'k str) -> &'k str {
    if script.has(key) {
        return key;
    }
    match key.rsplit_once('_') {
        Some((base, suffix)) if suffix.bytes().all(|b| b.is_ascii_digit()) => base,
        _ => key,
    }
}
