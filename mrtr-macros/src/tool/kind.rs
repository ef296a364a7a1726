//! The three requests that may answer `input_required`: the attribute's name and the options
//! each accepts. What differs in their generated code (how the result is finished, the
//! descriptor) is written by `expand`, so that this enumeration depends on nothing.

#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    Tool,
    Prompt,
    Resource,
}

impl Kind {
    pub(crate) fn attribute(self) -> &'static str {
        match self {
            Kind::Tool => "tool",
            Kind::Prompt => "prompt",
            Kind::Resource => "resource",
        }
    }

    pub(crate) fn options(self) -> &'static [&'static str] {
        match self {
            Kind::Tool => &[
                "name",
                "description",
                "crate",
                "max_rounds",
                "single_use",
                "version",
                "task",
            ],
            Kind::Prompt => &["name", "description", "crate", "max_rounds", "version"],
            Kind::Resource => &[
                "uri",
                "name",
                "description",
                "mime_type",
                "ttl_ms",
                "cache_scope",
                "crate",
                "max_rounds",
                "version",
            ],
        }
    }
}
