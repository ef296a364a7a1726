//! Tasks on a [`Server`]: creating one at the hand-off, `tasks/get`, `tasks/update`,
//! `tasks/cancel`, and the steps that run a task's machine.
//!
//! Every transition is a compare-and-swap on the task's record, decided here; the store only
//! keeps sealed bytes. A step first takes a lease in the record (this instance, until when),
//! renews it while it runs, and writes its outcome only if it still holds the lease and the
//! task was not cancelled meanwhile. A `working` task whose lease expired (its instance died)
//! is taken over by the next `tasks/get` or `tasks/update` that reads it, on any instance.

use std::collections::BTreeMap;
use std::sync::Arc;

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use serde_json::{Map, Value, json};

use super::instance::Server;
use crate::author::context::Context;
use crate::author::results::{CallToolResult, ToolOutput};
use crate::capabilities::ClientCapabilities;
use crate::engine::{Ended, HandedOff, Place, Reached, Run, advance, take_answers};
use crate::protocol::RpcError;
use crate::state::saved::SavedState;
use crate::task::record::{self, Lease, TaskRecord, iso8601, now_ms};
use crate::task::{Inserted, StoredTask, TaskId, TaskStatus};
use crate::token::FlowId;

/// What a client is told about an id it may not read: unknown, malformed and foreign ids are
/// answered alike.
const UNKNOWN_TASK: &str = "unknown taskId";
/// What a client is told when the store failed (the log says why).
const STORE_FAILED: &str = "the task store is unavailable";

/// How a step's machine run ended.
enum Driven {
    Ended(Ended),
    /// Parked at questions: the state with them pending.
    Parked(SavedState),
}

impl Server {
    /// Stores a task for a flow at its hand-off point and answers `CreateTaskResult`, only
    /// once the store says the task is durable; then starts its first step.
    pub(crate) async fn create_task(
        &self,
        tool: &str,
        arguments: &Value,
        principal: Option<&str>,
        capabilities: &ClientCapabilities,
        handed: HandedOff,
    ) -> Result<Value, RpcError> {
        let tasks = &self.inner.tasks;
        let now = now_ms();
        let ttl_ms = tasks.options.ttl.as_millis() as u64;
        let mut record = TaskRecord {
            tool: tool.to_owned(),
            arguments: arguments.clone(),
            principal: principal.map(str::to_owned),
            capabilities: capabilities.as_object().clone(),
            status: TaskStatus::Working,
            state: URL_SAFE_NO_PAD.encode(handed.state.encode(&self.inner.env.forms)),
            flow: *handed.flow.as_bytes(),
            round: handed.round,
            step: 0,
            asked: BTreeMap::new(),
            used: Default::default(),
            lease: None,
            result: None,
            error: None,
            created_ms: now,
            updated_ms: now,
            ttl_ms,
        };
        // A collision of 128 random bits is not expected; one retry covers a retried insert.
        for _ in 0..2 {
            let id = TaskId::random();
            let stored = self.stored(&id, 1, &mut record)?;
            let inserted = tasks
                .options
                .store
                .insert(&id, stored, tasks.options.per_principal, now)
                .await
                .map_err(store_failed)?;
            match inserted {
                Inserted::Created => {
                    tracing::info!(target: "mrtr::task", task = %id, tool, "task created");
                    self.kick(&id);
                    let mut result = self.task_envelope(&id, &record);
                    result["resultType"] = "task".into();
                    return Ok(self.with_server_info(result));
                }
                Inserted::AtCapacity => {
                    return Err(RpcError::invalid_params(format!(
                        "this client already has {} live tasks, the most it may hold; wait for \
                         one to end and expire, or cancel one",
                        tasks.options.per_principal
                    )));
                }
                Inserted::Exists => continue,
            }
        }
        Err(RpcError::internal("could not allocate a task id"))
    }

    /// `tasks/get`: the task as it stands (a pure read, except that a `working` task whose
    /// step's instance is gone is taken over).
    pub(crate) async fn get_task(
        &self,
        params: &Map<String, Value>,
        principal: Option<&str>,
    ) -> Result<Value, RpcError> {
        let id = task_id(params)?;
        let (_, record) = self.load_task(&id, principal).await?;
        if record.runnable(now_ms()) {
            self.kick(&id);
        }
        Ok(self.complete(self.detailed_task(&id, &record)?))
    }

    /// The task as `tasks/get` and `notifications/tasks` show it (`DetailedTask`): the
    /// envelope, and what its status carries (pending questions, result or error).
    pub(super) fn detailed_task(
        &self,
        id: &TaskId,
        record: &TaskRecord,
    ) -> Result<Value, RpcError> {
        let mut result = self.task_envelope(id, record);
        match record.status {
            TaskStatus::InputRequired => {
                let state = self.decode_state(record)?;
                let requests: Map<String, Value> = record
                    .asked
                    .iter()
                    .filter_map(|(wire, key)| {
                        let question = state.pending.get(key)?;
                        (question.answer.is_none())
                            .then(|| (wire.clone(), question.request.clone().into_value()))
                    })
                    .collect();
                result["inputRequests"] = Value::Object(requests);
            }
            TaskStatus::Completed => {
                result["result"] = record.result.clone().unwrap_or_else(|| json!({}));
            }
            TaskStatus::Failed => {
                result["error"] = record.error.clone().unwrap_or_else(
                    || json!({"code": crate::protocol::codes::INTERNAL_ERROR, "message": "failed"}),
                );
            }
            TaskStatus::Working | TaskStatus::Cancelled => {}
        }
        Ok(result)
    }

    /// `tasks/update`: answers to pending questions. Ack-only; unknown and answered keys are
    /// ignored; an invalid answer is asked again (under a fresh key) with the reason; once no
    /// question is pending the task is `working` and its next step starts.
    pub(crate) async fn update_task(
        &self,
        params: &Map<String, Value>,
        principal: Option<&str>,
    ) -> Result<Value, RpcError> {
        let id = task_id(params)?;
        let responses = match params.get("inputResponses") {
            None | Some(Value::Null) => Map::new(),
            Some(Value::Object(responses)) => responses.clone(),
            Some(_) => return Err(RpcError::invalid_params("inputResponses must be an object")),
        };
        loop {
            let (version, mut record) = self.load_task(&id, principal).await?;
            if record.status != TaskStatus::InputRequired {
                if record.runnable(now_ms()) {
                    self.kick(&id);
                }
                return Ok(self.ack());
            }
            let mut state = self.decode_state(&record)?;
            let mut changed = false;
            for (wire, response) in &responses {
                let Some(key) = record.asked.get(wire).cloned() else {
                    continue;
                };
                let Some(question) = state.pending.get_mut(&key) else {
                    continue;
                };
                record.asked.remove(wire);
                changed = true;
                match question.request.validate_answer(response) {
                    Ok(answer) => question.answer = Some(answer),
                    Err(reason) => {
                        question.request = question.request.reasked(Some(&reason));
                        question.reasks = question.reasks.saturating_add(1);
                        let fresh = record.fresh_key(&key);
                        record.asked.insert(fresh, key);
                    }
                }
            }
            if !changed {
                return Ok(self.ack());
            }
            if state
                .pending
                .values()
                .all(|question| question.answer.is_some())
            {
                record.status = TaskStatus::Working;
                record.lease = None;
            }
            record.state = URL_SAFE_NO_PAD.encode(state.encode(&self.inner.env.forms));
            record.updated_ms = now_ms();
            if self.swap_task(&id, version, &mut record).await? {
                self.inner.tasks.changed(&id);
                if record.status == TaskStatus::Working {
                    self.kick(&id);
                }
                return Ok(self.ack());
            }
        }
    }

    /// `tasks/cancel`: ack-only and idempotent. A running step is stopped: at once on this
    /// instance, at its next lease renewal on another.
    pub(crate) async fn cancel_task(
        &self,
        params: &Map<String, Value>,
        principal: Option<&str>,
    ) -> Result<Value, RpcError> {
        let id = task_id(params)?;
        loop {
            let (version, mut record) = self.load_task(&id, principal).await?;
            if record.status.is_terminal() {
                return Ok(self.ack());
            }
            record.status = TaskStatus::Cancelled;
            record.lease = None;
            record.updated_ms = now_ms();
            if self.swap_task(&id, version, &mut record).await? {
                if let Some(step) = self.inner.tasks.running().remove(&id) {
                    step.abort();
                }
                self.inner.tasks.changed(&id);
                tracing::info!(target: "mrtr::task", task = %id, "task cancelled");
                return Ok(self.ack());
            }
        }
    }

    /// Starts a step of task `id` in the background, if a tokio runtime is at hand (without
    /// one, the task waits for a `tasks/get` on an instance that has one).
    pub(crate) fn kick(&self, id: &TaskId) {
        let Ok(runtime) = tokio::runtime::Handle::try_current() else {
            tracing::warn!(target: "mrtr::task", task = %id, "no tokio runtime to run the task's step on");
            return;
        };
        let server = self.clone();
        let id = id.clone();
        runtime.spawn(async move { server.run_step(id).await });
    }

    /// One step: take the lease, run the machine to its next suspension or its end while
    /// renewing the lease, and write the outcome if the lease is still ours.
    async fn run_step(self, id: TaskId) {
        let Some(record) = self.take_lease(&id).await else {
            return;
        };
        use tracing::field::Empty;
        let span = tracing::info_span!(
            target: "mrtr::task",
            "mrtr.task",
            task = %id,
            tool = %record.tool,
            step = record.step,
            outcome = Empty,
        );
        let server = self.clone();
        let driven_record = record.clone();
        let machine_run = tokio::spawn(tracing::Instrument::instrument(
            async move { server.drive(&driven_record).await },
            span.clone(),
        ));
        self.inner
            .tasks
            .running()
            .insert(id.clone(), machine_run.abort_handle());
        let abort = machine_run.abort_handle();
        let renewing = self.renew_lease(&id);
        tokio::pin!(renewing);
        let joined = tokio::select! {
            joined = machine_run => joined,
            () = &mut renewing => {
                // Cancelled, or the lease was lost: the step is dropped where it stands.
                abort.abort();
                span.record("outcome", "dropped");
                self.inner.tasks.running().remove(&id);
                return;
            }
        };
        self.inner.tasks.running().remove(&id);
        let outcome = match joined {
            Ok(Ok(driven)) => Ok(driven),
            Ok(Err(error)) => Err(json!({"code": error.code, "message": error.message})),
            Err(join) if join.is_cancelled() => {
                span.record("outcome", "cancelled");
                return;
            }
            Err(join) => {
                let reason = panic_message(join.into_panic());
                tracing::error!(target: "mrtr::task", task = %id, %reason, "the task's step panicked");
                Err(json!({
                    "code": crate::protocol::codes::INTERNAL_ERROR,
                    "message": format!("the tool failed: {reason}"),
                }))
            }
        };
        let written = self.write_outcome(&id, outcome).await;
        span.record("outcome", written.map_or("lost", TaskStatus::as_str));
    }

    /// Takes the lease of a runnable task; `None` if it is not runnable or another instance
    /// took it first.
    async fn take_lease(&self, id: &TaskId) -> Option<TaskRecord> {
        let tasks = &self.inner.tasks;
        loop {
            let (version, principal, mut record) = self.load_any(id).await?;
            let now = now_ms();
            if !record.runnable(now) {
                return None;
            }
            record.lease = Some(Lease {
                holder: tasks.instance.clone(),
                until_ms: now + tasks.options.lease.as_millis() as u64,
            });
            record.step = record.step.saturating_add(1);
            debug_assert_eq!(principal, record.principal);
            match self.swap_task(id, version, &mut record).await {
                Ok(true) => return Some(record),
                Ok(false) => continue,
                Err(_) => return None,
            }
        }
    }

    /// Renews the lease every third of its length; returns when the task was cancelled or
    /// the lease was lost (then the step must stop).
    async fn renew_lease(&self, id: &TaskId) {
        let tasks = &self.inner.tasks;
        let every = tasks.options.lease / 3;
        loop {
            tokio::time::sleep(every).await;
            let Some((version, _, mut record)) = self.load_any(id).await else {
                return;
            };
            let ours = record
                .lease
                .as_ref()
                .is_some_and(|lease| lease.holder == tasks.instance);
            if record.status != TaskStatus::Working || !ours {
                return;
            }
            record.lease = Some(Lease {
                holder: tasks.instance.clone(),
                until_ms: now_ms() + tasks.options.lease.as_millis() as u64,
            });
            // A lost race means someone else wrote: read again at the next tick.
            let _ = self.swap_task(id, version, &mut record).await;
        }
    }

    /// Runs the machine from the task's state until it parks at questions or ends.
    async fn drive(&self, record: &TaskRecord) -> Result<Driven, RpcError> {
        let (_, machine) = self
            .inner
            .tools
            .iter()
            .find(|(descriptor, _)| descriptor.name == record.tool)
            .ok_or_else(|| RpcError::internal(format!("tool {:?} is gone", record.tool)))?;
        let machine: &dyn crate::machine::Machine = &**machine;
        let mut state = self.decode_state(record)?;
        let mut at = if state.steps == 0 {
            Place::START
        } else {
            Place::of_state(machine, state.point).ok_or_else(|| {
                RpcError::internal("the task's resume point does not exist in this build")
            })?
        };
        let cx = Context::new(
            Arc::clone(&self.inner.env.state),
            ClientCapabilities::from_object(record.capabilities.clone()),
            record.principal.clone(),
            record.round,
            FlowId::from_bytes(record.flow),
            state.steps,
        );
        let run = Run {
            machine,
            target: &record.tool,
            arguments: &record.arguments,
            cx: &cx,
        };
        loop {
            let answers = match take_answers(&mut state.pending, Map::new(), false) {
                Ok(answers) => answers,
                // Not every question has its answer: park again.
                Err(_) => return Ok(Driven::Parked(state)),
            };
            match advance(&run, &mut state, &mut at, answers).await? {
                Reached::Ended(ended) => return Ok(Driven::Ended(ended)),
                Reached::Suspended { handoff } if state.pending.is_empty() => {
                    // A state-only `recheck()` waits a poll interval; a hand-off goes on.
                    if !handoff {
                        tokio::time::sleep(self.inner.tasks.options.poll_interval).await;
                    }
                }
                Reached::Suspended { .. } => return Ok(Driven::Parked(state)),
            }
        }
    }

    /// Writes a step's outcome if this instance still holds the lease and the task was not
    /// cancelled; returns the status written.
    async fn write_outcome(
        &self,
        id: &TaskId,
        outcome: Result<Driven, Value>,
    ) -> Option<TaskStatus> {
        let tasks = &self.inner.tasks;
        let forms = &self.inner.env.forms;
        loop {
            let (version, _, mut record) = self.load_any(id).await?;
            let ours = record
                .lease
                .as_ref()
                .is_some_and(|lease| lease.holder == tasks.instance);
            if record.status != TaskStatus::Working || !ours {
                return None;
            }
            record.lease = None;
            record.updated_ms = now_ms();
            match &outcome {
                Ok(Driven::Ended(Ended::Complete(result))) => {
                    record.status = TaskStatus::Completed;
                    record.result = Some(result.clone());
                }
                Ok(Driven::Ended(Ended::Failed(message))) => {
                    record.status = TaskStatus::Completed;
                    record.result = Some(CallToolResult::error(message.clone()).into_tool_result());
                }
                Ok(Driven::Ended(Ended::BadArguments(reason))) => {
                    record.status = TaskStatus::Completed;
                    record.result = Some(
                        CallToolResult::error(format!("invalid arguments: {reason}"))
                            .into_tool_result(),
                    );
                }
                Ok(Driven::Parked(state)) => {
                    record.status = TaskStatus::InputRequired;
                    record.asked.clear();
                    for key in state.pending.keys() {
                        let wire = record.fresh_key(key);
                        record.asked.insert(wire, key.clone());
                    }
                    record.state = URL_SAFE_NO_PAD.encode(state.encode(forms));
                }
                Err(error) => {
                    record.status = TaskStatus::Failed;
                    record.error = Some(error.clone());
                }
            }
            match self.swap_task(id, version, &mut record).await {
                Ok(true) => {
                    tasks.changed(id);
                    return Some(record.status);
                }
                Ok(false) => continue,
                Err(_) => return None,
            }
        }
    }

    /// The task's record, for `principal` only: any other (and any failure to open it) reads
    /// as unknown.
    pub(super) async fn load_task(
        &self,
        id: &TaskId,
        principal: Option<&str>,
    ) -> Result<(u64, TaskRecord), RpcError> {
        let stored = self
            .inner
            .tasks
            .options
            .store
            .load(id, now_ms())
            .await
            .map_err(store_failed)?
            .filter(|stored| stored.principal.as_deref() == principal)
            .ok_or_else(|| RpcError::invalid_params(UNKNOWN_TASK))?;
        let record = record::open(&self.inner.tasks.codec, id, principal, &stored.body)
            .ok_or_else(|| RpcError::invalid_params(UNKNOWN_TASK))?;
        Ok((stored.version, record))
    }

    /// The task's record whoever owns it (for the steps, which act for the task's owner).
    async fn load_any(&self, id: &TaskId) -> Option<(u64, Option<String>, TaskRecord)> {
        let stored = match self.inner.tasks.options.store.load(id, now_ms()).await {
            Ok(stored) => stored?,
            Err(error) => {
                tracing::error!(target: "mrtr::task", task = %id, %error, "the task store failed");
                return None;
            }
        };
        let record = record::open(
            &self.inner.tasks.codec,
            id,
            stored.principal.as_deref(),
            &stored.body,
        )?;
        Some((stored.version, stored.principal, record))
    }

    /// Writes `record` over `version`; `false` if another write came first.
    async fn swap_task(
        &self,
        id: &TaskId,
        version: u64,
        record: &mut TaskRecord,
    ) -> Result<bool, RpcError> {
        let stored = self.stored(id, version + 1, record)?;
        self.inner
            .tasks
            .options
            .store
            .swap(id, version, stored)
            .await
            .map_err(store_failed)
    }

    fn stored(
        &self,
        id: &TaskId,
        version: u64,
        record: &mut TaskRecord,
    ) -> Result<StoredTask, RpcError> {
        let body = record::seal(&self.inner.tasks.codec, id, record)
            .ok_or_else(|| RpcError::internal("the server could not seal the task"))?;
        Ok(StoredTask {
            version,
            principal: record.principal.clone(),
            expires_at_ms: record.created_ms.saturating_add(record.ttl_ms),
            body,
        })
    }

    fn decode_state(&self, record: &TaskRecord) -> Result<SavedState, RpcError> {
        URL_SAFE_NO_PAD
            .decode(&record.state)
            .ok()
            .and_then(|bytes| SavedState::decode(&bytes, &self.inner.env.forms))
            .ok_or_else(|| RpcError::internal("the task's state does not decode"))
    }

    /// The fields every task result carries.
    fn task_envelope(&self, id: &TaskId, record: &TaskRecord) -> Value {
        json!({
            "taskId": id.as_str(),
            "status": record.status.as_str(),
            "createdAt": iso8601(record.created_ms),
            "lastUpdatedAt": iso8601(record.updated_ms),
            "ttlMs": record.ttl_ms,
            "pollIntervalMs": self.inner.tasks.options.poll_interval.as_millis() as u64,
        })
    }

    fn ack(&self) -> Value {
        self.complete(json!({}))
    }

    /// Whether some registered tool may run as a task (then the extension is advertised).
    pub(crate) fn serves_tasks(&self) -> bool {
        self.tools().any(|tool| tool.task.allows_tasks())
    }
}

/// The `taskId` of a `tasks/*` request: any string is accepted here, and one that cannot name
/// a task is answered as unknown.
fn task_id(params: &Map<String, Value>) -> Result<TaskId, RpcError> {
    match params.get("taskId") {
        Some(Value::String(text)) => {
            TaskId::parse(text).ok_or_else(|| RpcError::invalid_params(UNKNOWN_TASK))
        }
        _ => Err(RpcError::invalid_params("taskId must be a string")),
    }
}

fn store_failed(error: crate::task::TaskStoreError) -> RpcError {
    tracing::error!(target: "mrtr::task", %error, "the task store failed");
    RpcError::internal(STORE_FAILED)
}

fn panic_message(payload: Box<dyn std::any::Any + Send>) -> String {
    payload
        .downcast_ref::<&str>()
        .map(|text| (*text).to_owned())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "it panicked".to_owned())
}
