//! RFC 6570 level-1 URI templates (`notes://{owner}/{id}`): enough to route `resources/read`
//! to a template and extract its variables.

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
    /// Parses `template`; `{name}` marks a variable. Fails on unbalanced braces, empty names
    /// or two adjacent variables (which could not be told apart).
    pub fn parse(template: &str) -> Result<Self, String> {
        let mut parts = Vec::new();
        let mut rest = template;
        while !rest.is_empty() {
            match rest.find('{') {
                Some(0) => {
                    let end = rest
                        .find('}')
                        .ok_or_else(|| format!("unclosed `{{` in {template:?}"))?;
                    let name = &rest[1..end];
                    if name.is_empty()
                        || !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
                    {
                        return Err(format!("invalid variable name {name:?} in {template:?}"));
                    }
                    if matches!(parts.last(), Some(Part::Variable(_))) {
                        return Err(format!(
                            "two variables must be separated by text in {template:?}"
                        ));
                    }
                    parts.push(Part::Variable(name.to_owned()));
                    rest = &rest[end + 1..];
                }
                found => {
                    let end = found.unwrap_or(rest.len());
                    if rest[..end].contains('}') {
                        return Err(format!("unmatched `}}` in {template:?}"));
                    }
                    parts.push(Part::Literal(rest[..end].to_owned()));
                    rest = &rest[end..];
                }
            }
        }
        Ok(Self { parts })
    }

    /// The variables of `uri` if it matches. A variable matches one or more characters other
    /// than `/`, `?` and `#`.
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
                    if value.is_empty() || value.contains(['/', '?', '#']) {
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
    fn rejects_bad_templates() {
        assert!(UriTemplate::parse("a://{x").is_err());
        assert!(UriTemplate::parse("a://{x}{y}").is_err());
        assert!(UriTemplate::parse("a://{}").is_err());
        assert!(UriTemplate::parse("a://x}").is_err());
    }
}
