//! The error a tool ends with.

use std::fmt;

/// A tool's failure, sent to the client as a tool result with `isError: true` (the model sees
/// the message and can react), not as a protocol error.
///
/// Any error type converts into it with `?`, so a tool can return `Result<T, ToolError>` and
/// propagate its own errors; a tool with its own error type `E: Display` works too.
pub struct ToolError {
    message: String,
}

impl ToolError {
    /// A tool error with this message.
    pub fn new(message: impl Into<String>) -> Self {
        Self {
            message: message.into(),
        }
    }

    /// The message sent to the client.
    pub fn message(&self) -> &str {
        &self.message
    }
}

impl fmt::Debug for ToolError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "ToolError({:?})", self.message)
    }
}

impl fmt::Display for ToolError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl<E: std::error::Error> From<E> for ToolError {
    fn from(error: E) -> Self {
        Self::new(error.to_string())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::answer::{Answer, NotAccepted};

    #[test]
    fn a_declined_answer_becomes_a_tool_error_with_question_mark() {
        fn tool(answer: Answer<u8>) -> Result<u8, ToolError> {
            Ok(answer.accepted()? + 1)
        }
        assert_eq!(tool(Answer::Accept(1)).unwrap(), 2);
        assert_eq!(
            tool(Answer::Decline).unwrap_err().message(),
            NotAccepted::Declined.to_string()
        );
        assert_eq!(
            tool(Answer::Cancel).unwrap_err().message(),
            "the user cancelled the request"
        );
    }
}
