//! Where tasks live between steps: a versioned record per task, written only by
//! compare-and-swap, so that every instance sharing the store sees one history of each task.
//!
//! The store keeps bytes it does not interpret. The server seals everything about a task into
//! [`StoredTask::body`] (the machine's frame, the pending questions, the answers delivered so
//! far, the status, the lease, the result or error) with its state keys, and decides every
//! transition itself; a store only has to make [`TaskStore::insert`] and
//! [`TaskStore::swap`] atomic. That keeps an implementation on a shared database small enough
//! to be obviously right.

use std::fmt;

use crate::author::context::BoxFuture;
use crate::task::TaskId;

/// One task's record as a store holds it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StoredTask {
    /// Incremented by every write: [`TaskStore::swap`] succeeds only against the version the
    /// writer read. A new task has version 1.
    pub version: u64,
    /// The principal that created the task (`None`: an anonymous client). Stored in the clear
    /// so that a store can bound live tasks per principal; the server checks it again against
    /// the sealed copy in the body.
    pub principal: Option<String>,
    /// When the task may be forgotten, in milliseconds since the Unix epoch. A store must keep
    /// the task at least until then, and must not return it after (it may drop it lazily).
    pub expires_at_ms: u64,
    /// Everything else, sealed by the server.
    pub body: Vec<u8>,
}

/// How an [`TaskStore::insert`] ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Inserted {
    /// The task is stored: a [`TaskStore::load`] from any instance now finds it.
    Created,
    /// The principal already has `cap` live tasks; nothing was stored.
    AtCapacity,
    /// A task with this id exists (a random id collided, or an insert was retried).
    Exists,
}

/// A store that failed: unreachable, or an answer it cannot read. The server fails the
/// request closed (`-32603`), logging the reason; the client never sees it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TaskStoreError(String);

impl TaskStoreError {
    /// A failure described by `reason` (for the server's log).
    pub fn new(reason: impl Into<String>) -> Self {
        Self(reason.into())
    }
}

impl fmt::Display for TaskStoreError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "the task store failed: {}", self.0)
    }
}

impl std::error::Error for TaskStoreError {}

/// Durable task records shared by every instance that serves the same tasks. Memory
/// ([`MemoryTaskStore`](crate::task::MemoryTaskStore)) is the default; implement it on a
/// shared database when several instances serve one deployment.
///
/// Times are passed in (milliseconds since the Unix epoch) rather than read by the store, so
/// that every instance judges expiry by the server's clock and tests control time.
pub trait TaskStore: Send + Sync + 'static {
    /// Stores a new task unless `id` exists or `task.principal` has `cap` tasks that have not
    /// expired at `now_ms`. Atomic: two inserts racing for the last free place cannot both
    /// succeed. Durable when it returns `Created`.
    fn insert<'a>(
        &'a self,
        id: &'a TaskId,
        task: StoredTask,
        cap: usize,
        now_ms: u64,
    ) -> BoxFuture<'a, Result<Inserted, TaskStoreError>>;

    /// The task's current record, or `None` if there is none or it expired at `now_ms`.
    fn load<'a>(
        &'a self,
        id: &'a TaskId,
        now_ms: u64,
    ) -> BoxFuture<'a, Result<Option<StoredTask>, TaskStoreError>>;

    /// Replaces the record if its version is still `expected`, and returns whether it did.
    /// `task.version` is `expected + 1`. Atomic: of two swaps from the same version, one wins.
    fn swap<'a>(
        &'a self,
        id: &'a TaskId,
        expected: u64,
        task: StoredTask,
    ) -> BoxFuture<'a, Result<bool, TaskStoreError>>;
}
