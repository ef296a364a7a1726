//! Single use: a state that may be redeemed at most once. The spec's bindings bound replay to
//! one principal, request and short window; they do not stop a client from sending the same
//! state twice. A single-use tool records each accepted token id in a store, after
//! verification and before any code runs, and refuses it the second time.
//!
//! A lost response then ends the flow: the client cannot retry the round.

use std::collections::HashMap;
use std::sync::Mutex;

use crate::context::BoxFuture;
use crate::token::TokenId;

/// Where consumed token ids are remembered until their token expires. Implement it on a
/// shared store (Redis, a database) when several instances serve the same flows.
pub trait ReplayStore: Send + Sync + 'static {
    /// Records `token` as used until `expires_at` (seconds since the epoch). `Ok(true)` the
    /// first time, `Ok(false)` if it was already recorded. Must be atomic.
    fn consume(
        &self,
        token: TokenId,
        expires_at: u64,
        now: u64,
    ) -> BoxFuture<'_, Result<bool, String>>;
}

/// A [`ReplayStore`] in this process's memory: right for one instance, wrong for several.
#[derive(Debug, Default)]
pub struct MemoryStore {
    seen: Mutex<HashMap<TokenId, u64>>,
}

impl ReplayStore for MemoryStore {
    fn consume(
        &self,
        token: TokenId,
        expires_at: u64,
        now: u64,
    ) -> BoxFuture<'_, Result<bool, String>> {
        let mut seen = self
            .seen
            .lock()
            .unwrap_or_else(|poison| poison.into_inner());
        // Expired tokens are refused by their claims anyway: forget them.
        seen.retain(|_, until| *until >= now);
        let first = seen.insert(token, expires_at).is_none();
        Box::pin(std::future::ready(Ok(first)))
    }
}
