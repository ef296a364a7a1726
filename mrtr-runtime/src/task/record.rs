//! What the server seals into a task's stored body, and how it seals it.

use std::collections::{BTreeMap, BTreeSet};

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::task::TaskId;
use crate::token::{Binding, Fingerprint, StateCodec};

/// A task's status (`status` on the wire).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TaskStatus {
    /// A step runs, or is about to.
    Working,
    /// The task waits for answers (`tasks/get` lists them, `tasks/update` delivers them).
    InputRequired,
    /// The tool returned (its result, possibly `isError: true`, is inlined on `tasks/get`).
    Completed,
    /// A step failed below the tool (a panic, an internal error): `error` is inlined.
    Failed,
    /// `tasks/cancel` ended it.
    Cancelled,
}

impl TaskStatus {
    /// The wire value.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Working => "working",
            Self::InputRequired => "input_required",
            Self::Completed => "completed",
            Self::Failed => "failed",
            Self::Cancelled => "cancelled",
        }
    }

    /// Whether the task has ended (it stays readable until its TTL).
    pub fn is_terminal(self) -> bool {
        matches!(self, Self::Completed | Self::Failed | Self::Cancelled)
    }
}

/// The instance running a step, and until when it holds it.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub(crate) struct Lease {
    pub(crate) holder: String,
    pub(crate) until_ms: u64,
}

/// Everything about one task, sealed at rest.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub(crate) struct TaskRecord {
    pub(crate) tool: String,
    pub(crate) arguments: Value,
    pub(crate) principal: Option<String>,
    /// The capabilities the creating request declared: asks inside the task are checked
    /// against them.
    pub(crate) capabilities: Map<String, Value>,
    pub(crate) status: TaskStatus,
    /// The machine's state (the encoding a `requestState` carries), base64url.
    pub(crate) state: String,
    pub(crate) flow: [u8; 16],
    /// The MRTR round the hand-off happened in (what `cx.round()` shows in the task).
    pub(crate) round: u32,
    /// Steps taken so far (each took the lease once).
    pub(crate) step: u32,
    /// The pending questions by the key the client sees, each naming the ask's own key.
    pub(crate) asked: BTreeMap<String, String>,
    /// Every key shown to the client so far: keys are never reused over the task's life.
    pub(crate) used: BTreeSet<String>,
    pub(crate) lease: Option<Lease>,
    pub(crate) result: Option<Value>,
    pub(crate) error: Option<Value>,
    pub(crate) created_ms: u64,
    pub(crate) updated_ms: u64,
    pub(crate) ttl_ms: u64,
}

impl TaskRecord {
    /// A key for the client that no earlier question of this task used: the ask's own key,
    /// or the key with a `_2`, `_3`, .. suffix.
    pub(crate) fn fresh_key(&mut self, key: &str) -> String {
        let mut candidate = key.to_owned();
        let mut n = 2u32;
        while self.used.contains(&candidate) {
            candidate = format!("{key}_{n}");
            n += 1;
        }
        self.used.insert(candidate.clone());
        candidate
    }

    /// Whether a step may start now: the task is working and no live lease holds it.
    pub(crate) fn runnable(&self, now_ms: u64) -> bool {
        self.status == TaskStatus::Working
            && self
                .lease
                .as_ref()
                .is_none_or(|lease| lease.until_ms <= now_ms)
    }
}

/// Task records are bound to this fingerprint (the tool's own is checked per resume point).
fn record_fingerprint() -> Fingerprint {
    Fingerprint::of(b"mrtr task record v1")
}

/// Seals a record with the server's state keys, bound to its task id and principal.
pub(crate) fn seal(codec: &StateCodec, id: &TaskId, record: &TaskRecord) -> Option<Vec<u8>> {
    let binding = Binding::new("tasks", id.as_str(), None).principal(record.principal.as_deref());
    let flow = codec.start_flow(record_fingerprint());
    match codec.seal(&flow, &binding, record) {
        Ok(token) => Some(token.into_bytes()),
        Err(error) => {
            tracing::error!(target: "mrtr::task", task = %id, %error, "could not seal the task record");
            None
        }
    }
}

/// Opens a record sealed for `id` and `principal`; `None` (logged) if it was not.
pub(crate) fn open(
    codec: &StateCodec,
    id: &TaskId,
    principal: Option<&str>,
    body: &[u8],
) -> Option<TaskRecord> {
    let token = std::str::from_utf8(body).ok()?;
    let binding = Binding::new("tasks", id.as_str(), None).principal(principal);
    match codec.open::<TaskRecord>(token, &binding, record_fingerprint()) {
        Ok(opened) if opened.payload.principal.as_deref() == principal => Some(opened.payload),
        Ok(_) => None,
        Err(_) => {
            tracing::debug!(target: "mrtr::task", task = %id, "a task record does not open for this principal");
            None
        }
    }
}

/// Milliseconds since the Unix epoch.
pub(crate) fn now_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |elapsed| elapsed.as_millis() as u64)
}

/// `ms` since the epoch as ISO 8601 in UTC, e.g. `2026-12-04T18:21:44.120Z`.
pub(crate) fn iso8601(ms: u64) -> String {
    let seconds = ms / 1000;
    let days = (seconds / 86_400) as i64;
    let of_day = seconds % 86_400;
    // Howard Hinnant's days-to-civil.
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}.{:03}Z",
        of_day / 3600,
        of_day % 3600 / 60,
        of_day % 60,
        ms % 1000
    )
}

#[cfg(test)]
mod tests {
    use super::iso8601;

    #[test]
    fn times_read_as_iso_8601() {
        assert_eq!(iso8601(0), "1970-01-01T00:00:00.000Z");
        assert_eq!(iso8601(1_796_408_504_120), "2026-12-04T18:21:44.120Z");
        assert_eq!(iso8601(951_782_400_000), "2000-02-29T00:00:00.000Z");
    }
}
