//! Task status notifications (SEP-2663 over SEP-2575): a `subscriptions/listen` request that
//! names `notifications.taskIds` gets `notifications/tasks`, each the task as `tasks/get` would
//! show it at that moment, until every task it listens to has ended.
//!
//! A change written by this instance reaches its listeners at once (an in-process broadcast of
//! task ids, bounded: a listener that falls behind re-reads its tasks). A change written by
//! another instance sharing the store is found when the listener re-reads its tasks, every
//! poll interval. Polling `tasks/get` stays the answer that needs nothing from the server.

use std::collections::VecDeque;
use std::time::Duration;

use serde_json::{Map, Value, json};
use tokio::sync::broadcast::error::RecvError;

use super::instance::Server;
use super::params::check_meta;
use crate::protocol::RpcError;
use crate::task::{TASKS_EXTENSION, TaskId};

/// The most task ids one `subscriptions/listen` may name.
pub const MAX_LISTENED_TASKS: usize = 64;

/// The `_meta` key tying a notification to its `subscriptions/listen` request.
const SUBSCRIPTION_ID: &str = "io.modelcontextprotocol/subscriptionId";

/// The shortest pause between two re-reads of a listener's tasks from the store.
const MIN_REREAD: Duration = Duration::from_millis(100);

/// One `subscriptions/listen` stream's task notifications ([`Server::listen_tasks`]).
///
/// Send [`TaskListener::acknowledgment`] first, then each message [`TaskListener::next`]
/// gives; when it gives `None`, every listened task has ended (its last status was sent) or
/// expired: send [`TaskListener::end`] and close the stream. Dropping the listener (the client
/// went away) stops it.
#[derive(Debug)]
pub struct TaskListener {
    server: Server,
    principal: Option<String>,
    /// The `subscriptions/listen` request's id.
    subscription: Value,
    /// The tasks still listened to, with what was last sent for each.
    tasks: Vec<(TaskId, Option<Value>)>,
    /// Tasks to read again before waiting.
    due: VecDeque<TaskId>,
    changes: tokio::sync::broadcast::Receiver<TaskId>,
    reread: Duration,
    /// When the tasks are next read from the store whatever this instance heard (other
    /// instances' changes); a steady stream of unrelated changes does not postpone it.
    next_reread: tokio::time::Instant,
    accepted: Vec<String>,
}

impl Server {
    /// Opens the task part of a `subscriptions/listen` request (`id`, `params`) for
    /// `principal`: `params.notifications.taskIds` names the tasks (at most
    /// [`MAX_LISTENED_TASKS`]); the acknowledgment lists those this principal may read, any
    /// other id (unknown, expired, foreign) is left out alike. Other notification kinds are
    /// not offered and are left out of the acknowledgment.
    ///
    /// Errors: `-32602` for params that are not a listen request's (with what to fix);
    /// `-32021` when task ids are named without the tasks extension declared in `_meta`.
    pub async fn listen_tasks(
        &self,
        id: Value,
        params: &Value,
        principal: Option<&str>,
    ) -> Result<TaskListener, RpcError> {
        let params = params
            .as_object()
            .ok_or_else(|| RpcError::invalid_params("params must be an object"))?;
        let capabilities = check_meta(params.get("_meta").and_then(Value::as_object))?;
        let notifications = params
            .get("notifications")
            .and_then(Value::as_object)
            .ok_or_else(|| {
                RpcError::invalid_params(
                    "subscriptions/listen needs params.notifications, an object naming what to \
                     receive (taskIds: the ids of tasks to follow)",
                )
            })?;
        let named = match notifications.get("taskIds") {
            None | Some(Value::Null) => Vec::new(),
            Some(Value::Array(ids)) => ids
                .iter()
                .map(|id| id.as_str().map(str::to_owned))
                .collect::<Option<Vec<String>>>()
                .ok_or_else(|| {
                    RpcError::invalid_params("notifications.taskIds must be an array of strings")
                })?,
            Some(_) => {
                return Err(RpcError::invalid_params(
                    "notifications.taskIds must be an array of strings",
                ));
            }
        };
        if named.len() > MAX_LISTENED_TASKS {
            return Err(RpcError::invalid_params(format!(
                "notifications.taskIds names {} tasks; one subscription follows at most \
                 {MAX_LISTENED_TASKS}: open several",
                named.len()
            )));
        }
        if !named.is_empty() && !capabilities.tasks() {
            return Err(RpcError::missing_capability(
                json!({"extensions": {(TASKS_EXTENSION): {}}}),
                "task notifications need the io.modelcontextprotocol/tasks extension declared \
                 in this request's clientCapabilities",
            ));
        }
        // Subscribe before reading, so that no change between the two is missed.
        let changes = self.inner.tasks.changes.subscribe();
        let mut tasks: Vec<(TaskId, Option<Value>)> = Vec::new();
        for text in named {
            let Some(task) = TaskId::parse(&text) else {
                continue;
            };
            if tasks.iter().any(|(known, _)| *known == task) {
                continue;
            }
            if self.load_task(&task, principal).await.is_ok() {
                tasks.push((task, None));
            }
        }
        let accepted = tasks.iter().map(|(task, _)| task.to_string()).collect();
        Ok(TaskListener {
            server: self.clone(),
            principal: principal.map(str::to_owned),
            subscription: id,
            // The first messages are each task as it stands (`next_reread` is now).
            due: VecDeque::new(),
            tasks,
            changes,
            reread: self.inner.tasks.options.poll_interval.max(MIN_REREAD),
            next_reread: tokio::time::Instant::now(),
            accepted,
        })
    }
}

impl TaskListener {
    /// The ids of the tasks this subscription follows (those the acknowledgment lists).
    pub fn task_ids(&self) -> &[String] {
        &self.accepted
    }

    /// `notifications/subscriptions/acknowledged`, the stream's first message.
    pub fn acknowledgment(&self) -> Value {
        let mut notifications = Map::new();
        if !self.accepted.is_empty() {
            notifications.insert("taskIds".into(), json!(self.accepted));
        }
        json!({
            "jsonrpc": "2.0",
            "method": "notifications/subscriptions/acknowledged",
            "params": {
                "_meta": {(SUBSCRIPTION_ID): self.subscription},
                "notifications": notifications,
            },
        })
    }

    /// The next `notifications/tasks`: a listened task whose status or pending questions
    /// changed, as `tasks/get` shows it now. `None` once no listened task can change any more.
    pub async fn next(&mut self) -> Option<Value> {
        loop {
            if self.tasks.is_empty() {
                return None;
            }
            while let Some(task) = self.due.pop_front() {
                if let Some(message) = self.read(&task).await {
                    return Some(message);
                }
            }
            tokio::select! {
                change = self.changes.recv() => match change {
                    Ok(task) => {
                        if self.tasks.iter().any(|(known, _)| *known == task) {
                            self.due.push_back(task);
                        }
                    }
                    // Changes were dropped while this listener was slow: read every task.
                    Err(RecvError::Lagged(_)) => self.all_due(),
                    Err(RecvError::Closed) => return None,
                },
                // Another instance may have changed a task: read them all from the store.
                () = tokio::time::sleep_until(self.next_reread) => self.all_due(),
            }
        }
    }

    /// The `subscriptions/listen` response that ends the stream once [`TaskListener::next`]
    /// gave `None`.
    pub fn end(&self) -> Value {
        let mut result = self.server.complete(json!({}));
        if let Some(meta) = result.get_mut("_meta").and_then(Value::as_object_mut) {
            meta.insert(SUBSCRIPTION_ID.into(), self.subscription.clone());
        }
        json!({"jsonrpc": "2.0", "id": self.subscription, "result": result})
    }

    fn all_due(&mut self) {
        self.due = self.tasks.iter().map(|(task, _)| task.clone()).collect();
        self.next_reread = tokio::time::Instant::now() + self.reread;
    }

    /// The notification for `task` if it changed since the last one; a task that ended (or
    /// can no longer be read) stops being listened to.
    async fn read(&mut self, task: &TaskId) -> Option<Value> {
        let position = self.tasks.iter().position(|(known, _)| known == task)?;
        let loaded = self.server.load_task(task, self.principal.as_deref()).await;
        let Ok((_, record)) = loaded else {
            // Expired (or the store failed): nothing more will come for it here.
            self.tasks.remove(position);
            return None;
        };
        let detailed = self.server.detailed_task(task, &record).ok()?;
        if self.tasks[position].1.as_ref() == Some(&detailed) {
            return None;
        }
        if record.status.is_terminal() {
            self.tasks.remove(position);
        } else {
            self.tasks[position].1 = Some(detailed.clone());
        }
        let mut params = detailed;
        params["_meta"] = json!({(SUBSCRIPTION_ID): self.subscription});
        Some(json!({"jsonrpc": "2.0", "method": "notifications/tasks", "params": params}))
    }
}
