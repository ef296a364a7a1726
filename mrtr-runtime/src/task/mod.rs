//! Tasks (SEP-2663): the third way to run a machine. Before its hand-off point a tool runs as
//! MRTR rounds; at the hand-off a client that declared `io.modelcontextprotocol/tasks` gets a
//! task, and the rest of the body runs as task steps whose state lives in a [`TaskStore`], so
//! that any instance can resume it.

mod handoff;
mod id;
mod memory_store;
mod options;
pub(crate) mod record;
#[cfg(feature = "redis")]
mod redis_store;
pub(crate) mod runtime;
mod store;
mod support;

pub use handoff::handoff;
pub use id::TaskId;
pub use memory_store::MemoryTaskStore;
pub use options::{
    DEFAULT_TASK_LEASE, DEFAULT_TASK_TTL, DEFAULT_TASKS_PER_PRINCIPAL, MAX_TASK_TTL,
    MAX_TASKS_PER_PRINCIPAL, TaskOptions,
};
pub use record::TaskStatus;
#[cfg(feature = "redis")]
pub use redis_store::RedisTaskStore;
pub use store::{Inserted, StoredTask, TaskStore, TaskStoreError};
pub use support::TaskSupport;
/// The extension's identifier, as clients declare it and servers advertise it.
pub const TASKS_EXTENSION: &str = "io.modelcontextprotocol/tasks";
