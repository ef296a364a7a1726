//! Support for the differential test of `#[mrtr::tool]`'s lowering.
//!
//! `build.rs` generates random tool bodies (see `gen/generator.rs`) and emits each one twice:
//! as a plain `async fn` whose `ask!`s are answered by [`plain_ask`] from a [`Script`], and as a
//! `#[mrtr::tool]` driven round by round by [`run_tool`] through `mrtr::testing::Harness`,
//! answering from a script with the same seed. Both append to the same side-effect trace
//! ([`t`]); the test compares results and traces.
//!
//! Every question's message starts with `s<site>.<index>:<form>`, so the tool driver answers
//! a batch's questions in the order the plain run evaluates them, with content of the right
//! form.

use std::cell::RefCell;
use std::future::Future;

use mrtr::machine::Tool;
use mrtr::testing::{Harness, Round};
use mrtr::{Ask, FromAnswer, ToolError};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

/// The number form every generated body asks with.
#[derive(mrtr::Form, Debug, Clone, PartialEq)]
pub struct N {
    /// A number.
    pub n: i64,
}

/// The yes/no form every generated body asks with.
#[derive(mrtr::Form, Debug, Clone, PartialEq)]
pub struct C {
    /// Yes or no.
    pub ok: bool,
}

/// A unit struct kept across asks (serializes to JSON `null`).
#[derive(Serialize, Deserialize, Debug, Clone, Copy, PartialEq)]
pub struct Marker;

/// The inner level of a nested enum.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
pub enum Inner {
    /// No data.
    X,
    /// A number.
    Y(i64),
}

/// The outer level of a nested enum.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
pub enum Outer {
    /// Wraps an inner value.
    A(Inner),
    /// A struct variant.
    B {
        /// A flag.
        flag: bool,
    },
    /// No data.
    E,
}

/// An element of the `Vec` of structs the bodies keep.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
pub struct Item {
    /// A number.
    pub id: i64,
    /// A character.
    pub tag: char,
}

/// A map kept across asks (ordered: a `HashMap`'s order is not kept, see the README's rules).
pub type Map = std::collections::BTreeMap<String, i64>;

/// A value with its own `Drop`, which Rust never lets a field be moved out of: kept whole.
/// Its drop has no visible effect (a kept value is dropped once per round: README's rules).
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
pub struct Guard {
    /// A number.
    pub n: i64,
    /// A label.
    pub label: String,
}

impl Drop for Guard {
    fn drop(&mut self) {
        self.n = 0;
    }
}

/// A struct whose `name` the bodies move out while they read `n` after asks.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
pub struct Pair {
    /// A name, moved out.
    pub name: String,
    /// A number, read after the move.
    pub n: i64,
}

/// A struct holding a [`Pair`]: the bodies move `customer.name` (a field of a field) or
/// `customer` out while they read `id` and, if it is still owned, `customer.n` after asks.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
pub struct Order {
    /// The inner struct, moved out whole or in part.
    pub customer: Pair,
    /// A number, read after the moves.
    pub id: i64,
}

thread_local! {
    static TRACE: RefCell<Vec<String>> = const { RefCell::new(Vec::new()) };
    static SCRIPT: RefCell<Option<Script>> = const { RefCell::new(None) };
}

/// Appends one line to the side-effect trace of the running body.
pub fn t(line: String) {
    TRACE.with(|trace| trace.borrow_mut().push(line));
}

/// Takes `value` by move and describes it: a call the generator's `moves` feature moves a
/// local into.
pub fn eat<T: std::fmt::Debug>(value: T) -> String {
    format!("eat {value:?}")
}

/// Takes the trace collected so far, leaving it empty.
pub fn take_trace() -> Vec<String> {
    TRACE.with(|trace| std::mem::take(&mut *trace.borrow_mut()))
}

/// Fails with a tool error for some values, so bodies can use `?` away from asks.
pub fn check(value: i64) -> Result<i64, ToolError> {
    if value.rem_euclid(11) == 7 {
        Err(ToolError::new(format!("check failed on {value}")))
    } else {
        Ok(value)
    }
}

/// An abstract answer: the same sequence answers the plain run and the machine.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Scripted {
    /// Accept with this number (for `N`) or flag (for `C`).
    Accept(i64, bool),
    /// Decline.
    Decline,
    /// Cancel.
    Cancel,
}

/// A deterministic, endless sequence of answers for one case.
#[derive(Clone, Debug)]
pub struct Script {
    state: u64,
    /// How many answers were taken.
    pub taken: usize,
}

impl Script {
    /// The script of a case.
    pub fn new(seed: u64) -> Self {
        Self {
            state: seed ^ 0x9e37_79b9_7f4a_7c15,
            taken: 0,
        }
    }

    fn next_u64(&mut self) -> u64 {
        // splitmix64
        self.state = self.state.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.state;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// The next answer.
    pub fn next_answer(&mut self) -> Scripted {
        self.taken += 1;
        let roll = self.next_u64() % 100;
        let value = (self.next_u64() % 13) as i64 - 3;
        match roll {
            0..=14 => Scripted::Decline,
            15..=19 => Scripted::Cancel,
            _ => Scripted::Accept(value, !roll.is_multiple_of(3)),
        }
    }
}

/// The JSON answer to the question with `message`, from an abstract answer.
///
/// # Panics
///
/// If the message does not name its form.
pub fn answer_json(message: &str, scripted: Scripted) -> Value {
    match scripted {
        Scripted::Decline => json!({"action": "decline"}),
        Scripted::Cancel => json!({"action": "cancel"}),
        Scripted::Accept(n, ok) => {
            let form = message
                .split_whitespace()
                .next()
                .and_then(|head| head.split(':').nth(1))
                .unwrap_or_else(|| panic!("no form in the message {message:?}"));
            match form {
                "N" => json!({"action": "accept", "content": {"n": n}}),
                "C" => json!({"action": "accept", "content": {"ok": ok}}),
                other => panic!("unknown form {other}"),
            }
        }
    }
}

/// Installs the script the plain run answers from.
pub fn set_script(script: Script) {
    SCRIPT.with(|slot| *slot.borrow_mut() = Some(script));
}

/// Answers one question of the plain run from the installed script, tracing it the way
/// [`run_tool`] traces the machine's questions.
///
/// # Panics
///
/// If no script is installed or the answer does not decode.
pub fn plain_ask<A: FromAnswer>(question: Ask<A>) -> A {
    let Some(request) = question.request() else {
        t("recheck".into());
        return A::from_answer(&Value::Null).expect("a state-only round decodes");
    };
    let message = request.params["message"].as_str().unwrap_or_default();
    t(format!("ask {message}"));
    let scripted = SCRIPT.with(|slot| {
        slot.borrow_mut()
            .as_mut()
            .expect("a script is installed")
            .next_answer()
    });
    A::from_answer(&answer_json(message, scripted)).expect("the scripted answer decodes")
}

/// The outcome of a run, comparable across the plain run and the machine.
pub fn outcome(result: Result<String, ToolError>) -> String {
    match result {
        Ok(text) => format!("Ok({text})"),
        Err(error) => format!("Err({})", error.message()),
    }
}

/// Runs the plain version of a body with its script; returns the outcome and the trace.
pub async fn run_plain<F: Future<Output = Result<String, ToolError>>>(
    seed: u64,
    body: impl FnOnce() -> F,
) -> (String, Vec<String>) {
    take_trace();
    set_script(Script::new(seed));
    let result = body().await;
    (outcome(result), take_trace())
}

fn sorted_questions(round: &Round) -> Vec<(String, String)> {
    let mut questions: Vec<(String, String)> = round
        .keys()
        .into_iter()
        .map(|key| {
            let message = round.request(&key).message().to_owned();
            (key, message)
        })
        .collect();
    // `s<site>.<index>:<form>`: order by the index within the batch.
    questions.sort_by_key(|(_, message)| {
        message
            .split(['.', ':'])
            .nth(1)
            .and_then(|index| index.parse::<u32>().ok())
            .unwrap_or(u32::MAX)
    });
    questions
}

/// Drives the machine round by round through the harness (every state sealed and opened),
/// answering from the same script; returns the outcome and the trace.
pub async fn run_tool(seed: u64, tool: impl Tool) -> (String, Vec<String>) {
    take_trace();
    let mut script = Script::new(seed);
    let harness = Harness::tool(tool);
    let mut round = harness.call(json!({})).await;
    let mut rounds = 0;
    loop {
        if let Some(error) = round.response().get("error") {
            let text = format!("JSON-RPC error {error}");
            return (text, take_trace());
        }
        if !round.is_input_required() {
            break;
        }
        rounds += 1;
        if rounds > 12 {
            return ("too many rounds".into(), take_trace());
        }
        let questions = sorted_questions(&round);
        if questions.is_empty() {
            t("recheck".into());
            round = round.retry().send().await;
            continue;
        }
        let mut answers = Vec::new();
        for (key, message) in &questions {
            t(format!("ask {message}"));
            answers.push((key.as_str(), answer_json(message, script.next_answer())));
        }
        round = round.answer(answers).await;
    }
    let text = round.text();
    let text = if round.is_error() {
        format!("Err({text})")
    } else {
        format!("Ok({text})")
    };
    (text, take_trace())
}
