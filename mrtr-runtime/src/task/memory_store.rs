//! The default task store: this process's memory. Tasks survive nothing and are seen by no
//! other instance; a deployment of several instances configures a shared store.

use std::collections::HashMap;
use std::sync::Mutex;

use crate::author::context::BoxFuture;
use crate::task::{Inserted, StoredTask, TaskId, TaskStore, TaskStoreError};

/// Tasks in this process's memory. Expired tasks are dropped whenever a task is inserted.
#[derive(Debug, Default)]
pub struct MemoryTaskStore {
    tasks: Mutex<HashMap<TaskId, StoredTask>>,
}

impl MemoryTaskStore {
    /// An empty store.
    pub fn new() -> Self {
        Self::default()
    }

    fn tasks(&self) -> std::sync::MutexGuard<'_, HashMap<TaskId, StoredTask>> {
        // A panic while the lock was held left no half-written record: every write below is
        // one map operation.
        self.tasks
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

impl TaskStore for MemoryTaskStore {
    fn insert<'a>(
        &'a self,
        id: &'a TaskId,
        task: StoredTask,
        cap: usize,
        now_ms: u64,
    ) -> BoxFuture<'a, Result<Inserted, TaskStoreError>> {
        let mut tasks = self.tasks();
        tasks.retain(|_, stored| stored.expires_at_ms > now_ms);
        let inserted = if tasks.contains_key(id) {
            Inserted::Exists
        } else if tasks
            .values()
            .filter(|stored| stored.principal == task.principal)
            .count()
            >= cap
        {
            Inserted::AtCapacity
        } else {
            tasks.insert(id.clone(), task);
            Inserted::Created
        };
        Box::pin(std::future::ready(Ok(inserted)))
    }

    fn load<'a>(
        &'a self,
        id: &'a TaskId,
        now_ms: u64,
    ) -> BoxFuture<'a, Result<Option<StoredTask>, TaskStoreError>> {
        let found = self
            .tasks()
            .get(id)
            .filter(|stored| stored.expires_at_ms > now_ms)
            .cloned();
        Box::pin(std::future::ready(Ok(found)))
    }

    fn swap<'a>(
        &'a self,
        id: &'a TaskId,
        expected: u64,
        task: StoredTask,
    ) -> BoxFuture<'a, Result<bool, TaskStoreError>> {
        let mut tasks = self.tasks();
        let swapped = match tasks.get_mut(id) {
            Some(stored) if stored.version == expected => {
                *stored = task;
                true
            }
            _ => false,
        };
        Box::pin(std::future::ready(Ok(swapped)))
    }
}
