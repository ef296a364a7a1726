//! Bounds on the 2025-era calls running at once. Such a call runs its machine in process and
//! waits on its client, holding both, so calls are capped server-wide and per session.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};

use rmcp::ErrorData;
use rmcp::model::ErrorCode;

/// The 2025-era calls running, server-wide and per session. A running call holds its machine
/// and arguments until its client answers, so both are capped.
#[derive(Debug, Default)]
pub(super) struct CallGates {
    running: Mutex<Running>,
}

#[derive(Debug, Default)]
struct Running {
    total: usize,
    per_session: HashMap<String, usize>,
}

impl CallGates {
    /// A place for one more call on `session`, given the caps (server-wide, per session); the
    /// place is freed when the returned guard drops, however the call ends.
    pub(super) fn enter(
        self: &Arc<Self>,
        session: String,
        (server_wide, per_session): (usize, usize),
    ) -> Result<CallPlace, ErrorData> {
        let mut running = self.running();
        if running.total >= server_wide {
            return Err(ErrorData::new(
                ErrorCode(-32000),
                "the server is running as many calls from 2025-era sessions as it allows: retry \
                 later, or connect with MCP 2026-07-28, whose calls hold nothing on the server",
                None,
            ));
        }
        let on_session = running.per_session.entry(session.clone()).or_default();
        if *on_session >= per_session {
            return Err(ErrorData::new(
                ErrorCode(-32000),
                "this session is running as many calls at once as the server allows: wait for \
                 one to finish",
                None,
            ));
        }
        *on_session += 1;
        running.total += 1;
        Ok(CallPlace {
            gates: Arc::clone(self),
            session,
        })
    }

    /// How many calls are running, server-wide.
    pub(super) fn running_total(&self) -> usize {
        self.running().total
    }

    fn running(&self) -> std::sync::MutexGuard<'_, Running> {
        self.running.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// One running call's place in [`CallGates`].
pub(super) struct CallPlace {
    gates: Arc<CallGates>,
    session: String,
}

impl Drop for CallPlace {
    fn drop(&mut self) {
        let mut running = self.gates.running();
        running.total -= 1;
        if let Some(count) = running.per_session.get_mut(&self.session) {
            *count -= 1;
            if *count == 0 {
                running.per_session.remove(&self.session);
            }
        }
    }
}
