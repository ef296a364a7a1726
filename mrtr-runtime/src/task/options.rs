//! How a server keeps tasks: the store, how long a task lives, how many a principal may hold.

use std::sync::Arc;
use std::time::Duration;

use crate::task::{MemoryTaskStore, TaskStore};

/// How long a task stays readable after it is created, unless configured (one hour).
pub const DEFAULT_TASK_TTL: Duration = Duration::from_secs(3600);
/// The longest TTL [`TaskOptions::ttl`] accepts (one week).
pub const MAX_TASK_TTL: Duration = Duration::from_secs(7 * 24 * 3600);
/// How many live tasks one principal may hold, unless configured.
pub const DEFAULT_TASKS_PER_PRINCIPAL: usize = 64;
/// The most [`TaskOptions::per_principal`] accepts.
pub const MAX_TASKS_PER_PRINCIPAL: usize = 100_000;
/// How long an instance holds a step's lease before renewing it, unless configured (30 s).
pub const DEFAULT_TASK_LEASE: Duration = Duration::from_secs(30);

/// The task settings of a server ([`ServerBuilder::tasks`](crate::ServerBuilder::tasks)).
///
/// Every value is bounded: a TTL between 1 s and [`MAX_TASK_TTL`], a per-principal cap
/// between 1 and [`MAX_TASKS_PER_PRINCIPAL`], a lease between 100 ms and 10 minutes, a poll
/// interval between 10 ms and 1 minute; values outside are clamped.
#[derive(Clone)]
pub struct TaskOptions {
    pub(crate) store: Arc<dyn TaskStore>,
    pub(crate) ttl: Duration,
    pub(crate) per_principal: usize,
    pub(crate) lease: Duration,
    pub(crate) poll_interval: Duration,
}

impl std::fmt::Debug for TaskOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TaskOptions")
            .field("ttl", &self.ttl)
            .field("per_principal", &self.per_principal)
            .field("lease", &self.lease)
            .field("poll_interval", &self.poll_interval)
            .finish_non_exhaustive()
    }
}

impl Default for TaskOptions {
    fn default() -> Self {
        Self {
            store: Arc::new(MemoryTaskStore::new()),
            ttl: DEFAULT_TASK_TTL,
            per_principal: DEFAULT_TASKS_PER_PRINCIPAL,
            lease: DEFAULT_TASK_LEASE,
            poll_interval: Duration::from_millis(500),
        }
    }
}

impl TaskOptions {
    /// The defaults: this process's memory, a one-hour TTL, 64 tasks per principal.
    pub fn new() -> Self {
        Self::default()
    }

    /// Where tasks live. Instances that share a store (and the state keys) serve each other's
    /// tasks; the default, memory, is this process's alone.
    pub fn store(mut self, store: impl TaskStore) -> Self {
        self.store = Arc::new(store);
        self
    }

    /// The store, shared with other servers (tests run two instances on one store this way).
    pub fn shared_store(mut self, store: Arc<dyn TaskStore>) -> Self {
        self.store = store;
        self
    }

    /// How long a task stays readable after it is created (`ttlMs`), whatever its status.
    pub fn ttl(mut self, ttl: Duration) -> Self {
        self.ttl = ttl.clamp(Duration::from_secs(1), MAX_TASK_TTL);
        self
    }

    /// How many live tasks one principal (or all anonymous clients together) may hold; a
    /// `tools/call` past it is refused with `-32602`, saying to wait for a task to end.
    pub fn per_principal(mut self, cap: usize) -> Self {
        self.per_principal = cap.clamp(1, MAX_TASKS_PER_PRINCIPAL);
        self
    }

    /// How long the instance running a step holds it (renewed every third of it while the
    /// step runs). A step whose instance died is taken over once its lease expires.
    pub fn lease(mut self, lease: Duration) -> Self {
        self.lease = lease.clamp(Duration::from_millis(100), Duration::from_secs(600));
        self
    }

    /// The `pollIntervalMs` suggested to clients.
    pub fn poll_interval(mut self, interval: Duration) -> Self {
        self.poll_interval = interval.clamp(Duration::from_millis(10), Duration::from_secs(60));
        self
    }
}
