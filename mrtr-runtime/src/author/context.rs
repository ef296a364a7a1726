//! The per-round context a tool sees, the shared application state behind it, and the
//! authorization hook that runs before every round.

use std::any::{Any, TypeId, type_name};
use std::collections::HashMap;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicU32, Ordering};

use serde_json::Value;

use crate::capabilities::ClientCapabilities;
use crate::token::FlowId;

/// A boxed, sendable future, as returned by the object-safe traits of this crate.
pub type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// Application state shared by every tool, looked up by type.
#[derive(Clone, Default)]
pub struct AppState {
    values: HashMap<TypeId, Arc<dyn Any + Send + Sync>>,
}

impl AppState {
    /// Registers `value`, replacing any earlier value of the same type.
    pub fn insert<T: Send + Sync + 'static>(&mut self, value: T) {
        self.values.insert(TypeId::of::<T>(), Arc::new(value));
    }

    /// The value of type `T`, if one was registered.
    pub fn get<T: Send + Sync + 'static>(&self) -> Option<&T> {
        self.values
            .get(&TypeId::of::<T>())
            .and_then(|value| value.downcast_ref())
    }
}

impl std::fmt::Debug for AppState {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AppState")
            .field("values", &self.values.len())
            .finish()
    }
}

/// What a tool knows about the round it runs in. Rebuilt for every request and never kept in
/// the state: capabilities, principal and app state always describe *this* request.
#[derive(Debug)]
pub struct Context {
    state: Arc<AppState>,
    capabilities: ClientCapabilities,
    principal: Option<String>,
    round: u32,
    flow_id: FlowId,
    steps: AtomicU32,
}

impl Context {
    pub(crate) fn new(
        state: Arc<AppState>,
        capabilities: ClientCapabilities,
        principal: Option<String>,
        round: u32,
        flow_id: FlowId,
        steps: u32,
    ) -> Self {
        Self {
            state,
            capabilities,
            principal,
            round,
            flow_id,
            steps: AtomicU32::new(steps),
        }
    }

    /// Shared application state of type `T`.
    ///
    /// # Panics
    ///
    /// If no `T` was registered on the server; use [`Context::try_state`] to handle that.
    pub fn state<T: Send + Sync + 'static>(&self) -> &T {
        self.try_state().unwrap_or_else(|| {
            panic!(
                "no application state of type `{}` is registered; add it with \
                 `Server::builder(..).state(value)`",
                type_name::<T>()
            )
        })
    }

    /// Shared application state of type `T`, if registered.
    pub fn try_state<T: Send + Sync + 'static>(&self) -> Option<&T> {
        self.state.get()
    }

    /// The capabilities the client declared on this request.
    pub fn capabilities(&self) -> &ClientCapabilities {
        &self.capabilities
    }

    /// The authenticated principal of this request, as given by the host.
    pub fn principal(&self) -> Option<&str> {
        self.principal.as_deref()
    }

    /// This request's round in the flow: 1 for the first request.
    pub fn round(&self) -> u32 {
        self.round
    }

    /// The flow's id, the same in every round.
    pub fn flow_id(&self) -> FlowId {
        self.flow_id
    }

    /// A key for downstream calls: the flow id and the number of steps the machine has
    /// executed before this one. A client replaying a token re-runs the same step with the same
    /// key; every other step (each loop iteration included) gets its own.
    pub fn idempotency_key(&self) -> String {
        format!("{}-{}", self.flow_id, self.steps.load(Ordering::SeqCst))
    }

    pub(crate) fn set_steps(&self, steps: u32) {
        self.steps.store(steps, Ordering::SeqCst);
    }
}

/// A request about to resume (or start) a flow, or to complete an argument, as shown to the
/// authorization hook.
#[derive(Clone, Copy, Debug)]
pub struct Access<'a> {
    /// `tools/call`, `prompts/get`, `resources/read`, or `completion/complete`.
    pub method: &'a str,
    /// The tool or prompt name, or the resource URI; for `completion/complete`, the prompt's
    /// name or the resource template.
    pub target: &'a str,
    /// The request's arguments (`{}` when absent); for `completion/complete`, the arguments
    /// already filled in (`context.arguments`).
    pub arguments: &'a Value,
    /// The authenticated principal, if any.
    pub principal: Option<&'a str>,
    /// The round about to run: 1 for a fresh request (and for `completion/complete`).
    pub round: u32,
}

/// Why access was refused; the message is sent to the client.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("not authorized: {0}")]
pub struct Denied(pub String);

/// The host's authorization check, run on every round before any machine resumes: a permission
/// decided in round 1 is not a permission in round 3.
pub trait Authorize: Send + Sync + 'static {
    /// Allows or refuses `access`.
    fn authorize<'a>(&'a self, access: Access<'a>) -> BoxFuture<'a, Result<(), Denied>>;
}

impl<F> Authorize for F
where
    F: Fn(Access<'_>) -> Result<(), Denied> + Send + Sync + 'static,
{
    fn authorize<'a>(&'a self, access: Access<'a>) -> BoxFuture<'a, Result<(), Denied>> {
        let decision = self(access);
        Box::pin(std::future::ready(decision))
    }
}
