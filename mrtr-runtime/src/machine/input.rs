//! Embedded input requests as they go on the wire (`{method, params}`, no `jsonrpc`, no `id`),
//! and the validation of the answers that come back for them.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};

use crate::capabilities::InputKind;
use crate::form::validate_content;

/// `elicitation/create`.
pub const ELICITATION_CREATE: &str = "elicitation/create";
/// `sampling/createMessage` (deprecated by the spec, still valid).
pub const SAMPLING_CREATE_MESSAGE: &str = "sampling/createMessage";
/// `roots/list` (deprecated by the spec, still valid).
pub const ROOTS_LIST: &str = "roots/list";

/// One value of `inputRequests`: an `ElicitRequest`, `CreateMessageRequest` or
/// `ListRootsRequest`, exactly as sent.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct InputRequest {
    /// The embedded method.
    pub method: String,
    /// Its params.
    pub params: Value,
}

impl InputRequest {
    /// What the client must have declared to receive this request.
    pub fn kind(&self) -> InputKind {
        match self.method.as_str() {
            SAMPLING_CREATE_MESSAGE => InputKind::Sampling {
                tools: self.params.get("tools").is_some()
                    || self.params.get("toolChoice").is_some(),
                context: self
                    .params
                    .get("includeContext")
                    .and_then(Value::as_str)
                    .is_some_and(|context| context != "none"),
            },
            ROOTS_LIST => InputKind::Roots,
            _ if self.params.get("mode").and_then(Value::as_str) == Some("url") => {
                InputKind::UrlElicitation
            }
            _ => InputKind::FormElicitation,
        }
    }

    /// The request as the JSON object that goes in `inputRequests`.
    pub(crate) fn into_value(self) -> Value {
        let mut request = Map::new();
        request.insert("method".into(), Value::String(self.method));
        request.insert("params".into(), self.params);
        Value::Object(request)
    }

    /// Whether this request is fit to send: a URL-mode elicitation must carry a valid
    /// absolute URL (the spec's MUST). The reason is for the author, whose code built it.
    pub fn check(&self) -> Result<(), String> {
        if self.kind() != InputKind::UrlElicitation {
            return Ok(());
        }
        match self.params.get("url").and_then(Value::as_str) {
            Some(url) => check_url(url),
            None => Err("a URL elicitation needs a `url`".to_owned()),
        }
    }

    /// The request to send again after an invalid answer: an elicitation's message gets the
    /// reason appended so the user knows what to fix; other kinds are repeated as they were.
    pub fn reasked(&self, reason: Option<&str>) -> InputRequest {
        let mut again = self.clone();
        if let (Some(reason), ELICITATION_CREATE) = (reason, self.method.as_str())
            && let Some(Value::String(message)) = again.params.get_mut("message")
        {
            message.push_str(&format!(
                "\n\n(The previous answer was not accepted: {reason}.)"
            ));
        }
        again
    }

    /// Checks a client's answer against this request and returns its normalized form, or why
    /// it cannot be used. Extra fields are tolerated; a form's content must fit the schema sent.
    pub fn validate_answer(&self, answer: &Value) -> Result<Value, String> {
        let Value::Object(answer) = answer else {
            return Err("the answer must be a JSON object".to_owned());
        };
        match self.method.as_str() {
            SAMPLING_CREATE_MESSAGE => validate_sampling(answer),
            ROOTS_LIST => validate_roots(answer),
            _ => self.validate_elicitation(answer),
        }
    }

    fn validate_elicitation(&self, answer: &Map<String, Value>) -> Result<Value, String> {
        let action = answer.get("action").and_then(Value::as_str);
        match action {
            Some("accept") if self.kind() == InputKind::FormElicitation => {
                let schema = self.params.get("requestedSchema").unwrap_or(&Value::Null);
                let content = answer
                    .get("content")
                    .ok_or_else(|| "an accepted form must carry its content".to_owned())?;
                let content = validate_content(schema, content)?;
                // Built by moving `content` in: `json!` would serialize a copy of it.
                let mut accepted = Map::new();
                accepted.insert("action".to_owned(), "accept".into());
                accepted.insert("content".to_owned(), Value::Object(content));
                Ok(Value::Object(accepted))
            }
            Some(action @ ("accept" | "decline" | "cancel")) => Ok(json!({"action": action})),
            _ => Err("`action` must be accept, decline or cancel".to_owned()),
        }
    }
}

/// An absolute URI (`scheme:rest`, RFC 3986) with no whitespace or control characters; for
/// `http`, `https` and other `//` schemes, a non-empty authority.
pub(crate) fn check_url(url: &str) -> Result<(), String> {
    let shown: String = url.chars().take(80).collect();
    let invalid = |why: &str| Err(format!("{shown:?} is not a valid URL to send: {why}"));
    let Some((scheme, rest)) = url.split_once(':') else {
        return invalid("it has no scheme (use an absolute URL such as https://example.com/path)");
    };
    let mut chars = scheme.chars();
    let scheme_ok = chars.next().is_some_and(|c| c.is_ascii_alphabetic())
        && chars.all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'));
    if !scheme_ok {
        return invalid("its scheme is not valid");
    }
    if url.chars().any(|c| c.is_whitespace() || c.is_control()) {
        return invalid("it contains whitespace or control characters");
    }
    let hierarchical = scheme.eq_ignore_ascii_case("http") || scheme.eq_ignore_ascii_case("https");
    if let Some(after) = rest.strip_prefix("//") {
        let authority = after.split(['/', '?', '#']).next().unwrap_or_default();
        let host = authority.rsplit('@').next().unwrap_or_default();
        if host.is_empty() || host.starts_with(':') {
            return invalid("it has no host");
        }
    } else if hierarchical || rest.is_empty() {
        return invalid("it has no host");
    }
    Ok(())
}

/// Whether a valid URL points somewhere other than this machine without HTTPS.
pub(crate) fn insecure_remote(url: &str) -> bool {
    let Some((scheme, rest)) = url.split_once(':') else {
        return false;
    };
    if scheme.eq_ignore_ascii_case("https") {
        return false;
    }
    let authority = rest
        .trim_start_matches("//")
        .split(['/', '?', '#'])
        .next()
        .unwrap_or_default();
    let host_port = authority.rsplit('@').next().unwrap_or_default();
    let host = if host_port.starts_with('[') {
        host_port.split(']').next().map_or("", |h| &h[1..])
    } else {
        host_port.split(':').next().unwrap_or_default()
    };
    !(host.eq_ignore_ascii_case("localhost")
        || host.starts_with("127.")
        || host == "::1"
        || host.to_ascii_lowercase().ends_with(".localhost"))
}

fn validate_sampling(answer: &Map<String, Value>) -> Result<Value, String> {
    match answer.get("role").and_then(Value::as_str) {
        Some("user" | "assistant") => {}
        _ => return Err("`role` must be user or assistant".to_owned()),
    }
    let block_ok = |block: &Value| block.get("type").and_then(Value::as_str).is_some();
    let content_ok = match answer.get("content") {
        Some(Value::Array(blocks)) => blocks.iter().all(block_ok),
        Some(block @ Value::Object(_)) => block_ok(block),
        _ => false,
    };
    if !content_ok {
        return Err("`content` must be a content block or a list of them".to_owned());
    }
    if !answer.get("model").is_some_and(Value::is_string) {
        return Err("`model` must be a string".to_owned());
    }
    Ok(Value::Object(answer.clone()))
}

fn validate_roots(answer: &Map<String, Value>) -> Result<Value, String> {
    let Some(Value::Array(roots)) = answer.get("roots") else {
        return Err("`roots` must be a list".to_owned());
    };
    if !roots
        .iter()
        .all(|root| root.get("uri").is_some_and(Value::is_string))
    {
        return Err("every root needs a `uri`".to_owned());
    }
    Ok(json!({"roots": roots}))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn form() -> InputRequest {
        InputRequest {
            method: ELICITATION_CREATE.into(),
            params: json!({"mode": "form", "message": "Name?", "requestedSchema": {
                "type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}}),
        }
    }

    #[test]
    fn kinds_follow_method_and_mode() {
        assert_eq!(form().kind(), InputKind::FormElicitation);
        let url = InputRequest {
            method: ELICITATION_CREATE.into(),
            params: json!({"mode": "url"}),
        };
        assert_eq!(url.kind(), InputKind::UrlElicitation);
        let sampling = InputRequest {
            method: SAMPLING_CREATE_MESSAGE.into(),
            params: json!({"tools": [], "includeContext": "none"}),
        };
        assert_eq!(
            sampling.kind(),
            InputKind::Sampling {
                tools: true,
                context: false
            }
        );
    }

    #[test]
    fn elicitation_answers_are_validated_and_normalized() {
        let ok = json!({"action": "accept", "content": {"name": "Ann", "x": 1}, "_meta": {}});
        assert_eq!(
            form().validate_answer(&ok),
            Ok(json!({"action": "accept", "content": {"name": "Ann"}}))
        );
        assert_eq!(
            form().validate_answer(&json!({"action": "decline", "content": 5})),
            Ok(json!({"action": "decline"}))
        );
        assert!(
            form()
                .validate_answer(&json!({"action": "accept"}))
                .is_err()
        );
        assert!(form().validate_answer(&json!({"action": "maybe"})).is_err());
        assert!(form().validate_answer(&json!(12345)).is_err());
        assert_eq!(
            form().validate_answer(&json!({"action": "accept", "content": {}})),
            Err("`name` is required".to_owned())
        );
    }

    #[test]
    fn url_elicitations_must_carry_an_absolute_url() {
        let url = |url: &str| InputRequest {
            method: ELICITATION_CREATE.into(),
            params: json!({"mode": "url", "message": "m", "url": url}),
        };
        for good in [
            "https://example.com/sign-in?x=1",
            "http://localhost:8080/cb",
            "https://[::1]/",
            "urn:example:thing",
        ] {
            assert_eq!(url(good).check(), Ok(()), "{good}");
        }
        for bad in [
            "",
            "example.com/path",
            "/relative",
            "https://",
            "https:///path",
            "https:example.com",
            "https://exa mple.com",
            "1http://x",
            "javascript",
        ] {
            assert!(url(bad).check().is_err(), "{bad:?} accepted");
        }
        assert!(form().check().is_ok());
        assert!(insecure_remote("http://example.com/x"));
        assert!(!insecure_remote("https://example.com/x"));
        assert!(
            !insecure_remote("http://localhost:3000/x") && !insecure_remote("http://127.0.0.1/")
        );
        assert!(!insecure_remote("http://[::1]:80/"));
    }

    #[test]
    fn a_reask_explains_itself() {
        let again = form().reasked(Some("`name` is required"));
        assert_eq!(
            again.params["message"],
            "Name?\n\n(The previous answer was not accepted: `name` is required.)"
        );
        assert_eq!(form().reasked(None), form());
    }

    #[test]
    fn sampling_and_roots_answers_are_parsed_tolerantly() {
        let sampling = InputRequest {
            method: SAMPLING_CREATE_MESSAGE.into(),
            params: json!({}),
        };
        let answer = json!({"role": "assistant", "content": {"type": "text", "text": "Paris"},
            "model": "m", "stopReason": "endTurn", "extra": true});
        assert_eq!(sampling.validate_answer(&answer), Ok(answer.clone()));
        assert!(
            sampling
                .validate_answer(&json!({"role": "assistant", "model": "m"}))
                .is_err()
        );
        let roots = InputRequest {
            method: ROOTS_LIST.into(),
            params: json!({}),
        };
        assert!(
            roots
                .validate_answer(&json!({"roots": [{"uri": "file:///a", "name": "A"}]}))
                .is_ok()
        );
        assert!(
            roots
                .validate_answer(&json!({"roots": [{"name": "A"}]}))
                .is_err()
        );
    }
}
