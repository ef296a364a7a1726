//! The URI-template grammar of mrtr's resources: RFC 6570 level 1 (`notes://{owner}/{id}`),
//! written once for the runtime, which routes `resources/read` by it, and for
//! `#[mrtr::resource]`, which refuses a template that would not parse at compile time.
//!
//! A template is literal text and `{name}` variables. A name is one or more ASCII letters,
//! digits or `_`. Two variables must be separated by text, or a URI could not be split between
//! them.
//!
//! ```
//! use mrtr_uri_template::{Part, parse};
//!
//! let parts = parse("notes://{owner}/{id}.md").unwrap();
//! assert_eq!(parts, [
//!     Part::Literal("notes://"),
//!     Part::Variable("owner"),
//!     Part::Literal("/"),
//!     Part::Variable("id"),
//!     Part::Literal(".md"),
//! ]);
//! assert_eq!(
//!     parse("notes://{owner}{id}").unwrap_err().to_string(),
//!     "two variables must be separated by text in URI template \"notes://{owner}{id}\"",
//! );
//! ```

#![forbid(unsafe_code)]
#![warn(missing_docs)]

use std::fmt;

/// A piece of a template, borrowed from it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Part<'a> {
    /// Text a URI must contain as it is.
    Literal(&'a str),
    /// A `{name}` variable: its name.
    Variable(&'a str),
}

/// Why a template does not parse.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TemplateError {
    template: String,
    kind: TemplateErrorKind,
}

/// The rule a template breaks.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum TemplateErrorKind {
    /// A `{` with no `}` after it.
    UnclosedBrace,
    /// A `}` with no `{` before it.
    UnmatchedClosingBrace,
    /// A variable name that is empty or holds something other than ASCII letters, digits or `_`.
    InvalidVariableName(String),
    /// Two variables with no text between them.
    AdjacentVariables,
}

impl TemplateError {
    /// The template that does not parse.
    pub fn template(&self) -> &str {
        &self.template
    }

    /// The rule it breaks.
    pub fn kind(&self) -> &TemplateErrorKind {
        &self.kind
    }
}

impl fmt::Display for TemplateError {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        let template = &self.template;
        match &self.kind {
            TemplateErrorKind::UnclosedBrace => {
                write!(formatter, "unclosed `{{` in URI template {template:?}")
            }
            TemplateErrorKind::UnmatchedClosingBrace => {
                write!(formatter, "unmatched `}}` in URI template {template:?}")
            }
            TemplateErrorKind::InvalidVariableName(name) => write!(
                formatter,
                "invalid variable name {name:?} in URI template {template:?}: use ASCII \
                 letters, digits and `_`"
            ),
            TemplateErrorKind::AdjacentVariables => write!(
                formatter,
                "two variables must be separated by text in URI template {template:?}"
            ),
        }
    }
}

impl std::error::Error for TemplateError {}

/// Splits `template` into literals and variables, or says which rule it breaks.
pub fn parse(template: &str) -> Result<Vec<Part<'_>>, TemplateError> {
    let fail = |kind| TemplateError {
        template: template.to_owned(),
        kind,
    };
    let mut parts = Vec::new();
    let mut rest = template;
    while !rest.is_empty() {
        let Some(variable) = rest.strip_prefix('{') else {
            let end = rest.find('{').unwrap_or(rest.len());
            if rest[..end].contains('}') {
                return Err(fail(TemplateErrorKind::UnmatchedClosingBrace));
            }
            parts.push(Part::Literal(&rest[..end]));
            rest = &rest[end..];
            continue;
        };
        let end = variable
            .find('}')
            .ok_or_else(|| fail(TemplateErrorKind::UnclosedBrace))?;
        let name = &variable[..end];
        if name.is_empty() || !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
            return Err(fail(TemplateErrorKind::InvalidVariableName(
                name.to_owned(),
            )));
        }
        if matches!(parts.last(), Some(Part::Variable(_))) {
            return Err(fail(TemplateErrorKind::AdjacentVariables));
        }
        parts.push(Part::Variable(name));
        rest = &variable[end + 1..];
    }
    Ok(parts)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kind(template: &str) -> TemplateErrorKind {
        parse(template).unwrap_err().kind
    }

    #[test]
    fn literals_and_variables() {
        assert_eq!(parse("").unwrap(), []);
        assert_eq!(parse("plain://x").unwrap(), [Part::Literal("plain://x")]);
        assert_eq!(
            parse("{a}/{b_2}").unwrap(),
            [
                Part::Variable("a"),
                Part::Literal("/"),
                Part::Variable("b_2")
            ]
        );
    }

    #[test]
    fn each_rule_has_its_error() {
        assert_eq!(kind("a://{x"), TemplateErrorKind::UnclosedBrace);
        assert_eq!(kind("a://x}"), TemplateErrorKind::UnmatchedClosingBrace);
        assert_eq!(kind("a://{x}/y}"), TemplateErrorKind::UnmatchedClosingBrace);
        assert_eq!(
            kind("a://{}"),
            TemplateErrorKind::InvalidVariableName(String::new())
        );
        assert_eq!(
            kind("a://{x.y}"),
            TemplateErrorKind::InvalidVariableName("x.y".into())
        );
        assert_eq!(
            kind("a://{{x}}"),
            TemplateErrorKind::InvalidVariableName("{x".into())
        );
        assert_eq!(kind("a://{x}{y}"), TemplateErrorKind::AdjacentVariables);
    }

    #[test]
    fn the_error_names_the_template() {
        let error = parse("notes://{owner").unwrap_err();
        assert_eq!(error.template(), "notes://{owner");
        assert_eq!(
            error.to_string(),
            "unclosed `{` in URI template \"notes://{owner\""
        );
    }
}
