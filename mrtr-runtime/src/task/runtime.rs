//! A server's task machinery: its options, the codec sealing records, its instance id and the
//! steps running in this process.

use std::collections::HashMap;
use std::sync::Mutex;

use crate::task::{TaskId, TaskOptions};
use crate::token::StateCodec;

/// How many task changes wait for slow listeners before the oldest are dropped (a listener
/// that falls behind re-reads its tasks from the store instead).
const CHANGES_BUFFER: usize = 256;

/// How long a task record's seal stays valid: longer than any TTL a task may have.
const RECORD_SEAL_TTL: std::time::Duration = std::time::Duration::from_secs(8 * 24 * 3600);

pub(crate) struct TaskRuntime {
    pub(crate) options: TaskOptions,
    /// Seals task records with the server's keys, valid as long as a task can live.
    pub(crate) codec: StateCodec,
    /// This instance, as lease holders name it.
    pub(crate) instance: String,
    /// Steps running in this process, so that `tasks/cancel` can stop them at once.
    pub(crate) running: Mutex<HashMap<TaskId, tokio::task::AbortHandle>>,
    /// The ids of tasks whose record this instance changed, for `subscriptions/listen`.
    pub(crate) changes: tokio::sync::broadcast::Sender<TaskId>,
}

impl TaskRuntime {
    /// The runtime for a server sealing states with `codec`.
    pub(crate) fn new(
        options: TaskOptions,
        codec: &StateCodec,
    ) -> Result<Self, crate::token::KeyError> {
        let codec = StateCodec::builder()
            .mode(codec.mode())
            .audience(codec.audience())
            .key_ring(codec.key_ring().clone())
            .round_ttl(RECORD_SEAL_TTL)
            .flow_ttl(RECORD_SEAL_TTL)
            .compress_above(None)
            .max_token_len(8 << 20)
            .max_payload_len(4 << 20)
            .build()?;
        Ok(Self {
            options,
            codec,
            instance: TaskId::random().to_string(),
            running: Mutex::new(HashMap::new()),
            changes: tokio::sync::broadcast::channel(CHANGES_BUFFER).0,
        })
    }

    /// Tells this instance's listeners that task `id` changed (no listener: nothing).
    pub(crate) fn changed(&self, id: &TaskId) {
        let _ = self.changes.send(id.clone());
    }

    pub(crate) fn running(
        &self,
    ) -> std::sync::MutexGuard<'_, HashMap<TaskId, tokio::task::AbortHandle>> {
        self.running
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}
