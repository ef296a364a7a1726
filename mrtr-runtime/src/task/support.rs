//! Whether a tool runs as a task: `tools/list`'s `execution.taskSupport`.

/// A tool's task support, set with `#[mrtr::tool(task = "optional" | "required")]`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum TaskSupport {
    /// Never a task (the default): the tool answers its `tools/call` itself.
    #[default]
    Forbidden,
    /// A task for a client that declared `io.modelcontextprotocol/tasks` on the request; any
    /// other client gets the whole body at once (its MRTR rounds, then the result).
    Optional,
    /// Only as a task: a 2026-07-28 client that did not declare the extension gets `-32021`
    /// before any of the tool's code runs. A 2025-era session runs the whole body, as it runs
    /// every tool (its `tools/list` shows no task support).
    Required,
}

impl TaskSupport {
    /// The wire value of `execution.taskSupport`.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Forbidden => "forbidden",
            Self::Optional => "optional",
            Self::Required => "required",
        }
    }

    /// Whether the tool may run as a task.
    pub fn allows_tasks(self) -> bool {
        self != Self::Forbidden
    }
}
