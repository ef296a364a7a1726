//! The error of an answer that passed validation but does not decode into the type asked for.

use std::fmt;

/// An answer that passed validation but does not decode into the type asked for: the request
/// sent and the type disagree. The round fails with the reason, naming the key.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AnswerError(String);

impl AnswerError {
    /// An answer that does not decode, because of `reason` (shown to the client with the key).
    pub fn new(reason: impl Into<String>) -> Self {
        Self(reason.into())
    }

    /// The reason, as given.
    pub fn reason(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for AnswerError {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter.write_str(&self.0)
    }
}

impl std::error::Error for AnswerError {}

/// A reason given as text, so that `?` on a `String` error works in a hand-written
/// [`Form::from_content`](super::Form::from_content).
impl From<String> for AnswerError {
    fn from(reason: String) -> Self {
        Self(reason)
    }
}

impl From<&str> for AnswerError {
    fn from(reason: &str) -> Self {
        Self(reason.to_owned())
    }
}
