//! RFC 6570 level-1 URI templates (`notes://{owner}/{id}`): enough to route `resources/read`
//! to a template and extract its variables.

use mrtr_uri_template::TemplateError;
use serde_json::{Map, Value};

#[derive(Debug, PartialEq)]
enum Part {
    Literal(String),
    Variable(String),
}

/// A parsed URI template.
#[derive(Debug, PartialEq)]
pub struct UriTemplate {
    parts: Vec<Part>,
}

impl UriTemplate {
    /// Parses `template`; `{name}` marks a variable. Fails on unbalanced braces, invalid names
    /// or two adjacent variables (which could not be told apart), with the rule broken.
    pub fn parse(template: &str) -> Result<Self, TemplateError> {
        let parts = mrtr_uri_template::parse(template)?
            .into_iter()
            .map(|part| match part {
                mrtr_uri_template::Part::Literal(text) => Part::Literal(text.to_owned()),
                mrtr_uri_template::Part::Variable(name) => Part::Variable(name.to_owned()),
            })
            .collect();
        Ok(Self { parts })
    }

    /// The variables of `uri` if it matches. A variable matches one or more characters other
    /// than `/`, `?` and `#`, and is returned as it was sent (still percent-encoded).
    ///
    /// A value that could step out of where a handler puts it does not match, so that a
    /// handler building a path from its variables cannot be sent elsewhere: `.` or `..` (also
    /// percent-encoded, `%2E%2E`), or a separator, `\` or a percent-encoded `/` or `\`
    /// (`%2F`, `%5C`, either case). The check decodes once: a handler that decodes a value
    /// twice must check the result itself.
    pub fn matches(&self, uri: &str) -> Option<Map<String, Value>> {
        let mut variables = Map::new();
        let mut rest = uri;
        for (index, part) in self.parts.iter().enumerate() {
            match part {
                Part::Literal(literal) => rest = rest.strip_prefix(literal.as_str())?,
                Part::Variable(name) => {
                    let stop = match self.parts.get(index + 1) {
                        Some(Part::Literal(next)) => rest.find(next.as_str())?,
                        _ => rest.len(),
                    };
                    let value = &rest[..stop];
                    if value.is_empty() || value.contains(['/', '?', '#']) || climbs(value) {
                        return None;
                    }
                    variables.insert(name.clone(), Value::String(value.to_owned()));
                    rest = &rest[stop..];
                }
            }
        }
        rest.is_empty().then_some(variables)
    }
}

/// Whether `value`, percent-decoded once, is `.` or `..` or holds a path separator.
fn climbs(value: &str) -> bool {
    let decoded = percent_decoded(value);
    decoded == b"." || decoded == b".." || decoded.contains(&b'/') || decoded.contains(&b'\\')
}

/// `value` with each `%XX` escape (either case) replaced by its byte; a `%` that starts no
/// escape stays as it is.
fn percent_decoded(value: &str) -> Vec<u8> {
    let hex = |byte: Option<&u8>| byte.and_then(|&byte| char::from(byte).to_digit(16));
    let bytes = value.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut index = 0;
    while index < bytes.len() {
        if bytes[index] == b'%'
            && let (Some(high), Some(low)) = (hex(bytes.get(index + 1)), hex(bytes.get(index + 2)))
        {
            out.push((high * 16 + low) as u8);
            index += 3;
            continue;
        }
        out.push(bytes[index]);
        index += 1;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn matches_and_extracts_variables() {
        let template = UriTemplate::parse("notes://{owner}/{id}.md").unwrap();
        let vars = template.matches("notes://ann/42.md").unwrap();
        assert_eq!(Value::Object(vars), json!({"owner": "ann", "id": "42"}));
        assert!(template.matches("notes://ann/x/42.md").is_none());
        assert!(template.matches("notes:///42.md").is_none());
        assert!(template.matches("notes://ann/42.txt").is_none());
    }

    #[test]
    fn a_variable_never_climbs_or_hides_a_separator() {
        let template = UriTemplate::parse("files://{dir}/{name}").unwrap();
        for uri in [
            "files://../passwd",
            "files://docs/..",
            "files://%2E%2E/passwd",
            "files://.%2e/passwd",
            "files://docs/%2e.",
            "files://./passwd",
            "files://docs/%2E",
            "files://..%2Fetc/passwd",
            "files://..%2fetc/passwd",
            "files://docs/a%2Fb",
            "files://docs/..%5Cwindows",
            "files://docs/a%5cb",
            "files://docs/..\\windows",
        ] {
            assert!(template.matches(uri).is_none(), "{uri}");
        }
        // Dots inside a name, and other escapes, are a name's own business.
        let vars = template.matches("files://v1..v2/a.tar.gz").unwrap();
        assert_eq!(
            Value::Object(vars),
            json!({"dir": "v1..v2", "name": "a.tar.gz"})
        );
        let vars = template.matches("files://my%20docs/...").unwrap();
        assert_eq!(
            Value::Object(vars),
            json!({"dir": "my%20docs", "name": "..."})
        );
    }

    #[test]
    fn rejects_bad_templates() {
        assert!(UriTemplate::parse("a://{x").is_err());
        assert!(UriTemplate::parse("a://{x}{y}").is_err());
        assert!(UriTemplate::parse("a://{}").is_err());
        assert!(UriTemplate::parse("a://x}").is_err());
    }
}
