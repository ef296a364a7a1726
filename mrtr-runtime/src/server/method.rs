//! The methods a [`Server`](super::instance::Server) answers, parsed once from their names.

/// A method this server answers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Method {
    /// `server/discover` or a `*/list` method: answered from the descriptors alone.
    Listing(Listing),
    /// A method whose round may answer `input_required`.
    Round(RoundMethod),
    /// `completion/complete`.
    Complete,
    /// `tasks/get`, `tasks/update` or `tasks/cancel` (SEP-2663).
    Task(TaskMethod),
}

/// The methods of the tasks extension.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum TaskMethod {
    Get,
    Update,
    Cancel,
}

/// The methods that describe the server without running anything.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Listing {
    Discover,
    Tools,
    Prompts,
    Resources,
    ResourceTemplates,
}

/// The three methods whose rounds may answer `input_required`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum RoundMethod {
    CallTool,
    GetPrompt,
    ReadResource,
}

/// A capability a server declares when it has something registered for it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Capability {
    Tools,
    Prompts,
    Resources,
    Completions,
    /// The tasks extension (declared under `extensions`, not as a capability of its own).
    Tasks,
}

impl Method {
    pub(super) fn parse(method: &str) -> Option<Self> {
        Some(match method {
            "server/discover" => Self::Listing(Listing::Discover),
            "tools/list" => Self::Listing(Listing::Tools),
            "tools/call" => Self::Round(RoundMethod::CallTool),
            "prompts/list" => Self::Listing(Listing::Prompts),
            "prompts/get" => Self::Round(RoundMethod::GetPrompt),
            "resources/list" => Self::Listing(Listing::Resources),
            "resources/templates/list" => Self::Listing(Listing::ResourceTemplates),
            "resources/read" => Self::Round(RoundMethod::ReadResource),
            "completion/complete" => Self::Complete,
            "tasks/get" => Self::Task(TaskMethod::Get),
            "tasks/update" => Self::Task(TaskMethod::Update),
            "tasks/cancel" => Self::Task(TaskMethod::Cancel),
            _ => return None,
        })
    }

    /// The capability the method belongs to (`None`: every server answers it). A server
    /// that does not declare the capability does not know the method.
    pub(super) fn capability(self) -> Option<Capability> {
        match self {
            Self::Listing(Listing::Discover) => None,
            Self::Listing(Listing::Tools) | Self::Round(RoundMethod::CallTool) => {
                Some(Capability::Tools)
            }
            Self::Listing(Listing::Prompts) | Self::Round(RoundMethod::GetPrompt) => {
                Some(Capability::Prompts)
            }
            Self::Listing(Listing::Resources | Listing::ResourceTemplates)
            | Self::Round(RoundMethod::ReadResource) => Some(Capability::Resources),
            Self::Complete => Some(Capability::Completions),
            Self::Task(_) => Some(Capability::Tasks),
        }
    }
}

impl RoundMethod {
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Self::CallTool => "tools/call",
            Self::GetPrompt => "prompts/get",
            Self::ReadResource => "resources/read",
        }
    }

    /// The params field naming the round's target.
    pub(super) fn target_field(self) -> &'static str {
        match self {
            Self::ReadResource => "uri",
            Self::CallTool | Self::GetPrompt => "name",
        }
    }
}

impl Capability {
    /// Its name in `capabilities`.
    pub(super) fn as_str(self) -> &'static str {
        match self {
            Self::Tools => "tools",
            Self::Prompts => "prompts",
            Self::Resources => "resources",
            Self::Completions => "completions",
            Self::Tasks => crate::task::TASKS_EXTENSION,
        }
    }

    pub(super) const ALL: [Self; 4] = [
        Self::Tools,
        Self::Prompts,
        Self::Resources,
        Self::Completions,
    ];
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_round_method_parses_back_from_its_name() {
        for method in [
            RoundMethod::CallTool,
            RoundMethod::GetPrompt,
            RoundMethod::ReadResource,
        ] {
            assert_eq!(Method::parse(method.as_str()), Some(Method::Round(method)));
        }
        assert_eq!(Method::parse("initialize"), None);
        assert_eq!(Method::parse("tools/call "), None);
    }
}
