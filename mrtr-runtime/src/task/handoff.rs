//! The hand-off point: where a task-capable tool's synchronous MRTR phase ends.

use crate::author::ask::Ask;

/// Marks where a task-capable tool (`#[mrtr::tool(task = "optional")]` or `"required"`) stops
/// answering its `tools/call` and goes on as a task: `ask!(handoff());`.
///
/// * A client that declared `io.modelcontextprotocol/tasks` on the request gets
///   `CreateTaskResult` here; the rest of the body runs as task steps, on any instance that
///   shares the task store. Asks before it are MRTR rounds; asks after it become the task's
///   `inputRequests`, answered with `tasks/update`.
/// * Any other client goes straight on in the same round: no question, no extra round trip.
/// * A 2025-era session runs the whole body, as always.
///
/// Asks no question. A task-capable tool without a hand-off point hands off at the start of
/// its body. In a tool without task support it is a no-op.
pub fn handoff() -> Ask<()> {
    Ask::<()>::handoff_point()
}
