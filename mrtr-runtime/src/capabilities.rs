//! The client capabilities declared on *this* request, and the kinds of question that need them.

use serde_json::{Map, Value, json};

/// The `clientCapabilities` of one request. Parsed leniently: unknown members are ignored, and
/// a member that is present and not `null` counts as declared.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ClientCapabilities {
    raw: Map<String, Value>,
}

impl ClientCapabilities {
    /// Wraps a `clientCapabilities` object.
    pub fn from_object(raw: Map<String, Value>) -> Self {
        Self { raw }
    }

    /// The capabilities as sent.
    pub fn as_object(&self) -> &Map<String, Value> {
        &self.raw
    }

    fn member(&self, name: &str) -> Option<&Value> {
        self.raw.get(name).filter(|value| !value.is_null())
    }

    fn sub_member(&self, name: &str, sub: &str) -> bool {
        self.member(name)
            .and_then(|value| value.get(sub))
            .is_some_and(|value| !value.is_null())
    }

    /// Form-mode elicitation: `elicitation: {}` (the legacy spelling) or `elicitation.form`.
    pub fn elicitation_form(&self) -> bool {
        let declares_a_mode =
            self.sub_member("elicitation", "form") || self.sub_member("elicitation", "url");
        self.member("elicitation").is_some()
            && (!declares_a_mode || self.sub_member("elicitation", "form"))
    }

    /// URL-mode elicitation: `elicitation.url`.
    pub fn elicitation_url(&self) -> bool {
        self.sub_member("elicitation", "url")
    }

    /// Sampling (deprecated by the spec, still valid).
    pub fn sampling(&self) -> bool {
        self.member("sampling").is_some()
    }

    /// Sampling with `tools` / `toolChoice`.
    pub fn sampling_tools(&self) -> bool {
        self.sub_member("sampling", "tools")
    }

    /// Sampling with `includeContext` other than `none`.
    pub fn sampling_context(&self) -> bool {
        self.sub_member("sampling", "context")
    }

    /// `roots/list` (deprecated by the spec, still valid).
    pub fn roots(&self) -> bool {
        self.member("roots").is_some()
    }

    /// The tasks extension (SEP-2663): `extensions["io.modelcontextprotocol/tasks"]` is
    /// present and not `null`.
    pub fn tasks(&self) -> bool {
        self.member("extensions")
            .and_then(|extensions| extensions.get(crate::task::TASKS_EXTENSION))
            .is_some_and(|value| !value.is_null())
    }

    /// Whether a question of `kind` may be sent to this client.
    pub fn supports(&self, kind: InputKind) -> bool {
        match kind {
            InputKind::FormElicitation => self.elicitation_form(),
            InputKind::UrlElicitation => self.elicitation_url(),
            InputKind::Sampling { tools, context } => {
                self.sampling()
                    && (!tools || self.sampling_tools())
                    && (!context || self.sampling_context())
            }
            InputKind::Roots => self.roots(),
        }
    }
}

/// The kind of an embedded input request, as far as capabilities are concerned.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum InputKind {
    /// `elicitation/create` in form mode.
    FormElicitation,
    /// `elicitation/create` in URL mode.
    UrlElicitation,
    /// `sampling/createMessage`, possibly with tools or included context.
    Sampling {
        /// The request carries `tools` or `toolChoice`.
        tools: bool,
        /// The request asks for `includeContext` other than `none`.
        context: bool,
    },
    /// `roots/list`.
    Roots,
}

impl InputKind {
    /// The `requiredCapabilities` object of a `-32021` error for this kind.
    pub fn required_capability(self) -> Value {
        match self {
            // Spelled out: `{"elicitation": {}}` merged with a URL ask would read as URL-only.
            Self::FormElicitation => json!({"elicitation": {"form": {}}}),
            Self::UrlElicitation => json!({"elicitation": {"url": {}}}),
            Self::Sampling {
                tools: false,
                context: false,
            } => json!({"sampling": {}}),
            Self::Sampling { tools, context } => {
                let mut sampling = Map::new();
                if tools {
                    sampling.insert("tools".into(), json!({}));
                }
                if context {
                    sampling.insert("context".into(), json!({}));
                }
                json!({ "sampling": sampling })
            }
            Self::Roots => json!({"roots": {}}),
        }
    }

    /// A human name for messages and logs.
    pub fn describe(self) -> &'static str {
        match self {
            Self::FormElicitation => "form elicitation",
            Self::UrlElicitation => "URL elicitation",
            Self::Sampling { tools: true, .. } => "sampling with tools",
            Self::Sampling { context: true, .. } => "sampling with included context",
            Self::Sampling { .. } => "sampling",
            Self::Roots => "roots",
        }
    }
}

/// Merges the capabilities required by `kinds` into one `requiredCapabilities` object.
pub(crate) fn required_capabilities(kinds: impl IntoIterator<Item = InputKind>) -> Value {
    let mut merged = Map::new();
    for kind in kinds {
        if let Value::Object(required) = kind.required_capability() {
            for (name, value) in required {
                let entry = merged.entry(name).or_insert_with(|| json!({}));
                if let (Value::Object(into), Value::Object(from)) = (entry, value) {
                    into.extend(from);
                }
            }
        }
    }
    Value::Object(merged)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn caps(value: Value) -> ClientCapabilities {
        ClientCapabilities::from_object(value.as_object().unwrap().clone())
    }

    #[test]
    fn empty_elicitation_means_form_mode_only() {
        let c = caps(json!({"elicitation": {}}));
        assert!(c.supports(InputKind::FormElicitation));
        assert!(!c.supports(InputKind::UrlElicitation));
        let url_only = caps(json!({"elicitation": {"url": {}}}));
        assert!(!url_only.supports(InputKind::FormElicitation));
        assert!(url_only.supports(InputKind::UrlElicitation));
        let both = caps(json!({"elicitation": {"form": {}, "url": {}}}));
        assert!(
            both.supports(InputKind::FormElicitation) && both.supports(InputKind::UrlElicitation)
        );
    }

    #[test]
    fn unknown_members_are_ignored_and_null_is_absent() {
        let c = caps(json!({"roots": {"listChanged": true}, "sampling": null, "futureThing": 1}));
        assert!(c.supports(InputKind::Roots));
        assert!(!c.supports(InputKind::Sampling {
            tools: false,
            context: false
        }));
    }

    #[test]
    fn sampling_with_tools_needs_the_tools_member() {
        let plain = caps(json!({"sampling": {}}));
        assert!(!plain.supports(InputKind::Sampling {
            tools: true,
            context: false
        }));
        let tools = caps(json!({"sampling": {"tools": {}}}));
        assert!(tools.supports(InputKind::Sampling {
            tools: true,
            context: false
        }));
    }

    #[test]
    fn required_capabilities_merge() {
        let merged = required_capabilities([
            InputKind::FormElicitation,
            InputKind::UrlElicitation,
            InputKind::Sampling {
                tools: false,
                context: false,
            },
        ]);
        assert_eq!(
            merged,
            json!({"elicitation": {"form": {}, "url": {}}, "sampling": {}})
        );
    }

    /// Declaring exactly the `requiredCapabilities` of a -32021 always gets past that check,
    /// for every combination of kinds.
    #[test]
    fn declaring_what_was_required_satisfies_it() {
        let kinds = [
            InputKind::FormElicitation,
            InputKind::UrlElicitation,
            InputKind::Sampling {
                tools: false,
                context: false,
            },
            InputKind::Sampling {
                tools: true,
                context: false,
            },
            InputKind::Sampling {
                tools: false,
                context: true,
            },
            InputKind::Sampling {
                tools: true,
                context: true,
            },
            InputKind::Roots,
        ];
        for mask in 1u32..(1 << kinds.len()) {
            let chosen: Vec<InputKind> = (0..kinds.len())
                .filter(|bit| mask & (1 << bit) != 0)
                .map(|bit| kinds[bit])
                .collect();
            let required = required_capabilities(chosen.iter().copied());
            let declared = caps(required.clone());
            for kind in &chosen {
                assert!(
                    declared.supports(*kind),
                    "{kind:?} not satisfied by {required}"
                );
            }
        }
    }
}
