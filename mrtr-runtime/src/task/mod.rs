//! Tasks (SEP-2663): the third way to run a machine. Before its hand-off point a tool runs as
//! MRTR rounds; at the hand-off a client that declared `io.modelcontextprotocol/tasks` gets a
//! task, and the rest of the body runs as task steps whose state lives in a [`TaskStore`], so
//! that any instance can resume it.

mod id;
mod memory_store;
#[cfg(feature = "redis")]
mod redis_store;
mod store;

pub use id::TaskId;
pub use memory_store::MemoryTaskStore;
#[cfg(feature = "redis")]
pub use redis_store::RedisTaskStore;
pub use store::{Inserted, StoredTask, TaskStore, TaskStoreError};
