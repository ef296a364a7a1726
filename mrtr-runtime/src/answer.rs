//! What an `ask!` evaluates to: typed answers decoded from validated client responses.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::form::{AnswerError, Form};

/// The user's answer to an elicitation. Serializable when `T` is, so it can be kept across a
/// later `ask!` (derive `Serialize` and `Deserialize` on the form for that).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Answer<T> {
    /// The user submitted the form (or, for a URL, consented to open it).
    Accept(T),
    /// The user explicitly said no.
    Decline,
    /// The user dismissed the request without choosing.
    Cancel,
}

/// A declined or cancelled elicitation, as an error: `ask!(..).accepted()?` ends the tool with
/// a tool error saying so.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error, Serialize, Deserialize)]
pub enum NotAccepted {
    /// The user declined.
    #[error("the user declined the request")]
    Declined,
    /// The user cancelled.
    #[error("the user cancelled the request")]
    Cancelled,
}

impl<T> Answer<T> {
    /// The accepted value, or why there is none.
    pub fn accepted(self) -> Result<T, NotAccepted> {
        match self {
            Self::Accept(value) => Ok(value),
            Self::Decline => Err(NotAccepted::Declined),
            Self::Cancel => Err(NotAccepted::Cancelled),
        }
    }

    /// Whether the user accepted.
    pub fn is_accepted(&self) -> bool {
        matches!(self, Self::Accept(_))
    }

    /// The accepted value, if any.
    pub fn ok(self) -> Option<T> {
        self.accepted().ok()
    }

    /// Maps the accepted value.
    pub fn map<U>(self, f: impl FnOnce(T) -> U) -> Answer<U> {
        match self {
            Self::Accept(value) => Answer::Accept(f(value)),
            Self::Decline => Answer::Decline,
            Self::Cancel => Answer::Cancel,
        }
    }
}

/// The client's reply to a sampling or roots request, which have no decline.
///
/// [`Reply::Missing`] is what the tool gets when the client does not answer: over MRTR
/// (2026-07-28) when it leaves the key out of `inputResponses` even after one re-ask, as the
/// specification allows; over a 2025-11-25 session when it answers the request with an error.
///
/// **What the official clients really do.** In 2026-07-28 mode the Python (`mcp` 2.3) and
/// TypeScript (`@modelcontextprotocol/client` 2.4) SDK clients never leave a key out: when
/// their sampling or roots callback refuses, they fail the whole `tools/call` with the
/// callback's error, so the call ends there and the tool never sees `Missing`. Over a 2025
/// session the same clients answer the request with the error, and the tool gets `Missing`.
/// Keep the `Missing` branch for those (and for MRTR clients that leave the key out), but do
/// not count on it to rescue a 2026-07-28 call. The testing harness plays both:
/// `Script::fail` leaves the key out, `Script::refuse` gives the call up like the official
/// clients.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum Reply<T> {
    /// The client answered.
    Answered(T),
    /// The client did not answer, even when asked again.
    Missing,
}

impl<T> Reply<T> {
    /// The answer, if there is one.
    pub fn ok(self) -> Option<T> {
        match self {
            Self::Answered(value) => Some(value),
            Self::Missing => None,
        }
    }
}

/// A message produced by the client's model (`CreateMessageResult`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SampledMessage {
    /// `user` or `assistant`.
    pub role: String,
    /// The content blocks (a single block on the wire becomes a list of one).
    #[serde(deserialize_with = "one_or_many")]
    pub content: Vec<Value>,
    /// The model that produced it.
    pub model: String,
    /// Why generation stopped, if the client said.
    #[serde(default)]
    pub stop_reason: Option<String>,
}

impl SampledMessage {
    /// The text of every text block, joined.
    pub fn text(&self) -> String {
        self.content
            .iter()
            .filter(|block| block.get("type").and_then(Value::as_str) == Some("text"))
            .filter_map(|block| block.get("text").and_then(Value::as_str))
            .collect::<Vec<_>>()
            .join("")
    }
}

fn one_or_many<'de, D: serde::Deserializer<'de>>(deserializer: D) -> Result<Vec<Value>, D::Error> {
    Ok(match Value::deserialize(deserializer)? {
        Value::Array(blocks) => blocks,
        block => vec![block],
    })
}

/// One of the client's roots.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Root {
    /// A `file://` URI.
    pub uri: String,
    /// A display name.
    #[serde(default)]
    pub name: Option<String>,
}

/// A type an answer decodes into. `answer` has already been validated against the request
/// that was sent; `Value::Null` stands for a reply that resolved as missing.
pub trait FromAnswer: Sized {
    /// Whether the question may have no answer at all (a state-only round).
    const OPTIONAL: bool = false;

    /// Decodes the validated answer.
    fn from_answer(answer: &Value) -> Result<Self, AnswerError>;
}

fn action_and_content(answer: &Value) -> (&str, Option<&Map<String, Value>>) {
    let action = answer
        .get("action")
        .and_then(Value::as_str)
        .unwrap_or("cancel");
    (action, answer.get("content").and_then(Value::as_object))
}

fn elicitation<T>(
    answer: &Value,
    accept: impl FnOnce(Option<&Map<String, Value>>) -> Result<T, AnswerError>,
) -> Result<Answer<T>, AnswerError> {
    match action_and_content(answer) {
        ("accept", content) => accept(content).map(Answer::Accept),
        ("decline", _) => Ok(Answer::Decline),
        _ => Ok(Answer::Cancel),
    }
}

impl<T: Form> FromAnswer for Answer<T> {
    fn from_answer(answer: &Value) -> Result<Self, AnswerError> {
        elicitation(answer, |content| {
            T::from_content(content.unwrap_or(&Map::new()))
        })
    }
}

/// The value of a select's one property (validation dropped everything else).
fn selected(content: Option<&Map<String, Value>>) -> Option<&Value> {
    let content = content?;
    (content.len() == 1).then(|| content.values().next())?
}

/// A single choice: the value of the selected option.
impl FromAnswer for Answer<String> {
    fn from_answer(answer: &Value) -> Result<Self, AnswerError> {
        elicitation(answer, |content| {
            selected(content)
                .and_then(Value::as_str)
                .map(str::to_owned)
                .ok_or_else(|| AnswerError::new("the selected option is missing"))
        })
    }
}

/// A multi-select: the values of the selected options, in the order the client sent them.
impl FromAnswer for Answer<Vec<String>> {
    fn from_answer(answer: &Value) -> Result<Self, AnswerError> {
        elicitation(answer, |content| {
            selected(content)
                .and_then(Value::as_array)
                .and_then(|values| {
                    values
                        .iter()
                        .map(|value| value.as_str().map(str::to_owned))
                        .collect()
                })
                .ok_or_else(|| AnswerError::new("the selected options are missing"))
        })
    }
}

/// A URL elicitation: accept means consent only.
impl FromAnswer for Answer<()> {
    fn from_answer(answer: &Value) -> Result<Self, AnswerError> {
        elicitation(answer, |_| Ok(()))
    }
}

impl FromAnswer for Reply<SampledMessage> {
    fn from_answer(answer: &Value) -> Result<Self, AnswerError> {
        match answer {
            Value::Null => Ok(Reply::Missing),
            answered => SampledMessage::deserialize(answered)
                .map(Reply::Answered)
                .map_err(|error| AnswerError::new(error.to_string())),
        }
    }
}

/// A state-only round answers nothing.
impl FromAnswer for () {
    const OPTIONAL: bool = true;

    fn from_answer(_: &Value) -> Result<Self, AnswerError> {
        Ok(())
    }
}

/// `ListRootsResult` decodes to its list of roots.
#[derive(Deserialize)]
struct RootsResult {
    roots: Vec<Root>,
}

impl FromAnswer for Reply<Vec<Root>> {
    fn from_answer(answer: &Value) -> Result<Self, AnswerError> {
        match answer {
            Value::Null => Ok(Reply::Missing),
            answered => RootsResult::deserialize(answered)
                .map(|result| Reply::Answered(result.roots))
                .map_err(|error| AnswerError::new(error.to_string())),
        }
    }
}
