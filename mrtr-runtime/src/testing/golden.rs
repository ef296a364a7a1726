//! Golden states: the states a test run minted, kept in a file under `tests/`, and the check
//! that the current build still resumes each of them. Record on `main`, check in the pull
//! request: a change that would refuse the flows in flight during a deploy fails the check,
//! which names each state refused and what changed at its resume point.
//!
//! The harness seals with a fixed test key and a stopped clock, so a recorded state stays
//! valid in every later run, although a real state lives only minutes.

use std::path::PathBuf;

use serde_json::{Map, Value, json};
use tracing::instrument::WithSubscriber;

use super::refusals::Refusals;
use super::{Harness, Retry, Round};

/// Set it to `record` to (re)write golden-state files instead of only checking them.
pub const GOLDEN_ENV_VAR: &str = "MRTR_GOLDEN";

/// The states a test records at each resume point of a flow, with the answers to resume them
/// with, and the check that the current build resumes them all.
///
/// ```no_run
/// # use mrtr::testing::{GoldenStates, Harness, answer};
/// # use serde_json::json;
/// # async fn demo(harness: Harness) {
/// let mut golden = GoldenStates::new(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/golden/book.json"));
/// let first = harness.call(json!({"city": "Paris"})).await;
/// golden.record("offer", &first, [("offer", answer::accept(json!({"offer": "o1"})))]);
/// // With MRTR_GOLDEN=record (or no file yet) this writes the file; it then resumes every
/// // state in it and panics, naming what changed, if any is refused.
/// golden.check(&harness).await;
/// # }
/// ```
pub struct GoldenStates {
    path: PathBuf,
    recorded: Vec<Value>,
}

impl GoldenStates {
    /// Golden states kept in `path` (a JSON file; give it an absolute path, e.g. under
    /// `env!("CARGO_MANIFEST_DIR")`).
    pub fn new(path: impl Into<PathBuf>) -> Self {
        Self {
            path: path.into(),
            recorded: Vec::new(),
        }
    }

    fn recording(&self) -> bool {
        std::env::var(GOLDEN_ENV_VAR).is_ok_and(|mode| mode == "record") || !self.path.exists()
    }

    /// Notes the state `round` returned, under `name`, with the answers that resume it. Only
    /// kept when recording.
    ///
    /// # Panics
    ///
    /// If the round returned no state.
    pub fn record<'k>(
        &mut self,
        name: &str,
        round: &Round,
        answers: impl IntoIterator<Item = (&'k str, Value)>,
    ) {
        let state = round.state();
        let inner = &round.harness.inner;
        let view = inner
            .server
            .codec()
            .inspect(&state)
            .expect("the harness's own token opens")
            .payload;
        let point = view["p"].as_u64().unwrap_or_default() as u32;
        let label = inner
            .points
            .iter()
            .find(|candidate| candidate.id == point)
            .map_or_else(|| format!("pc {point}"), |found| found.label.to_owned());
        let kept: Vec<&String> = view["f"]
            .as_object()
            .map(|f| f.keys().collect())
            .unwrap_or_default();
        let answers: Map<String, Value> = answers
            .into_iter()
            .map(|(key, value)| (key.to_owned(), value))
            .collect();
        self.recorded.push(json!({
            "name": name,
            "target": inner.target,
            "resumePoint": {"id": format!("{point:08x}"), "label": label},
            "kept": kept,
            "arguments": round.arguments,
            "principal": round.principal,
            "answers": answers,
            "requestState": state,
        }));
    }

    /// Writes the recorded states when recording, then resumes every state of the file on
    /// `harness` with its answers.
    ///
    /// # Panics
    ///
    /// If a state is refused, naming each refused state, its resume point and what changed
    /// (the reason the server logs); or if the file cannot be read or written.
    pub async fn check(self, harness: &Harness) {
        if self.recording() {
            if let Some(parent) = self.path.parent() {
                std::fs::create_dir_all(parent).expect("create the golden-state directory");
            }
            let file = json!({
                "note": "Golden states: minted by an earlier build with mrtr::testing's fixed key and stopped clock. Rewrite with MRTR_GOLDEN=record.",
                "states": self.recorded,
            });
            let text = serde_json::to_string_pretty(&file).expect("JSON") + "\n";
            std::fs::write(&self.path, text).expect("write the golden-state file");
        }
        let text = std::fs::read_to_string(&self.path)
            .unwrap_or_else(|error| panic!("cannot read {}: {error}", self.path.display()));
        let file: Value = serde_json::from_str(&text)
            .unwrap_or_else(|error| panic!("{} is not JSON: {error}", self.path.display()));
        let mut refused = Vec::new();
        let states = file["states"].as_array().cloned().unwrap_or_default();
        for state in &states {
            if let Some(why) = resume(harness, state).await {
                refused.push(why);
            }
        }
        assert!(
            refused.is_empty(),
            "{} of {} golden states in {} are refused by this build; flows waiting there during a \
             deploy would fail. If the break is intended (a `version` bump, a renamed key), \
             record again with {GOLDEN_ENV_VAR}=record.\n\n{}",
            refused.len(),
            states.len(),
            self.path.display(),
            refused.join("\n\n")
        );
    }
}

/// Resumes one golden state; what was refused and why, if it was.
async fn resume(harness: &Harness, state: &Value) -> Option<String> {
    let mut retry = Retry::fresh(harness, state["arguments"].clone())
        .state(state["requestState"].as_str().unwrap_or_default());
    if let Some(principal) = state["principal"].as_str() {
        retry = retry.principal(principal);
    }
    let answers: Vec<(String, Value)> = state["answers"]
        .as_object()
        .map(|answers| {
            answers
                .iter()
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect()
        })
        .unwrap_or_default();
    let retry = retry.answers(
        answers
            .iter()
            .map(|(key, value)| (key.as_str(), value.clone())),
    );
    let refusals = Refusals::default();
    let round = retry.send().with_subscriber(refusals.clone()).await;
    if !round.is_refused_state() {
        return None;
    }
    let now: Vec<&str> = harness
        .inner
        .points
        .iter()
        .map(|point| point.label)
        .collect();
    Some(format!(
        "- `{}`: resume point `{}` ({}), recorded keeping {}\n  refused: {}\n  this build's resume points: {}",
        state["name"].as_str().unwrap_or_default(),
        state["resumePoint"]["label"].as_str().unwrap_or_default(),
        state["resumePoint"]["id"].as_str().unwrap_or_default(),
        state["kept"],
        refusals.lines().join(" / "),
        now.join("; "),
    ))
}
