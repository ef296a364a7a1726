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
        seen.retain(|_, until| until.saturating_add(60) >= now);
        let first = seen.insert(token, expires_at).is_none();
        Box::pin(std::future::ready(Ok(first)))
    }
}

/// A [`ReplayStore`] in Redis, for flows served by several instances: each consumption is one
/// atomic `SET key 1 NX PX ttl`, so exactly one instance wins a token, and the entry expires
/// with the token.
#[cfg(feature = "redis")]
#[derive(Clone)]
pub struct RedisStore {
    connection: redis::aio::MultiplexedConnection,
    prefix: String,
}

#[cfg(feature = "redis")]
impl RedisStore {
    /// Connects to `url` (`redis://127.0.0.1:6379/`); keys are prefixed with `prefix`.
    pub async fn connect(url: &str, prefix: impl Into<String>) -> Result<Self, redis::RedisError> {
        let connection = redis::Client::open(url)?
            .get_multiplexed_async_connection()
            .await?;
        Ok(Self {
            connection,
            prefix: prefix.into(),
        })
    }
}

#[cfg(feature = "redis")]
impl std::fmt::Debug for RedisStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RedisStore")
            .field("prefix", &self.prefix)
            .finish_non_exhaustive()
    }
}

#[cfg(feature = "redis")]
impl ReplayStore for RedisStore {
    fn consume(
        &self,
        token: TokenId,
        expires_at: u64,
        now: u64,
    ) -> BoxFuture<'_, Result<bool, String>> {
        let key = format!("{}{token}", self.prefix);
        // Keep the entry a little past the token's expiry: the skew allowance still accepts it.
        let ttl_ms = expires_at
            .saturating_sub(now)
            .saturating_add(60)
            .saturating_mul(1000);
        let mut connection = self.connection.clone();
        Box::pin(async move {
            let set: Option<String> = redis::cmd("SET")
                .arg(&key)
                .arg(1)
                .arg("NX")
                .arg("PX")
                .arg(ttl_ms)
                .query_async(&mut connection)
                .await
                .map_err(|error| error.to_string())?;
            Ok(set.is_some())
        })
    }
}
